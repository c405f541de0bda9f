import jax
import jax.numpy as jnp
from jax import custom_jvp, grad, jit, vmap


def log1pexp_naive(x):
    return jnp.log(1. + jnp.exp(x))


print(jit(log1pexp_naive)(3.))
print(grad(log1pexp_naive)(100.))


@custom_jvp
def log1pexp(x):
    return jnp.log(1. + jnp.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    ans = log1pexp(x)
    ans_dot = (1 - 1 / (1 + jnp.exp(x))) * x_dot
    return ans, ans_dot


print(grad(log1pexp)(100.))
print(jit(log1pexp)(3.))
print(jit(grad(log1pexp))(3.))
print(vmap(jit(grad(log1pexp)))(jnp.arange(3.)))
print(jax.jvp(log1pexp, (1.0,), (2.0,)))
