# conformance: ulps=8
import jax
import jax.numpy as jnp
from jax import grad, jvp, vjp


def f(X):
    return jnp.sum(jnp.tanh(X) ** 2)


def hvp(f, x, v):
    return jvp(grad(f), (x,), (v,))[1]


def hvp_revfwd(f, x, v):
    return grad(lambda x: jnp.vdot(grad(f)(x), v))(x)


X = jax.random.normal(jax.random.key(0), (3, 2))
V = jax.random.normal(jax.random.key(1), (3, 2))
a = hvp(f, X, V)
b = hvp_revfwd(f, X, V)
print(a.shape, jnp.allclose(a, b, atol=1e-5))


def vmap_mjp(f, x, M):
    y, vjp_fun = vjp(f, x)
    outs, = jax.vmap(vjp_fun)(M)
    return outs


g = lambda x: jnp.sin(x) * x
x = jnp.arange(3.)
M = jnp.eye(3)
print(vmap_mjp(g, x, M))
RESULTS = {"hvp": a, "hvp_revfwd": b, "mjp": vmap_mjp(g, x, M)}
