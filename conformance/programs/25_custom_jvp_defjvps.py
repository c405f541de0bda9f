import jax
import jax.numpy as jnp


@jax.custom_jvp
def f(x, y):
    return jnp.sin(x) * y


f.defjvps(lambda x_dot, primal_out, x, y: jnp.cos(x) * x_dot * y,
          lambda y_dot, primal_out, x, y: jnp.sin(x) * y_dot)
print(f(2., 3.))
print(jax.grad(f)(2., 3.))
print(jax.grad(f, 1)(2., 3.))


@jax.custom_jvp
def safe_norm(x):
    return jnp.sqrt(jnp.sum(x ** 2))


@safe_norm.defjvp
def safe_norm_jvp(primals, tangents):
    x, = primals
    t, = tangents
    n = safe_norm(x)
    return n, jnp.where(n == 0, 0.0, jnp.dot(x, t) / jnp.where(n == 0, 1.0, n))


print(jax.grad(safe_norm)(jnp.zeros(2)), jax.grad(safe_norm)(jnp.array([3., 4.])))
print(jax.jacfwd(f)(1.0, 2.0), jax.vmap(f)(jnp.arange(3.), jnp.ones(3)))
