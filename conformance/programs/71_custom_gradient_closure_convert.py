import jax
import jax.numpy as jnp


@jax.custom_gradient
def f(x):
    return x ** 2, lambda g: (g * 3 * x,)


print(f(3.0), jax.grad(f)(3.0), jax.jit(jax.grad(f))(2.0))


def outer(scale, x):
    def inner(y):
        return jnp.sin(y) * scale
    converted = jax.closure_convert(inner, x)
    return converted[0](x, *converted[1])


print(outer(2.0, 1.0), jax.grad(outer, 1)(2.0, 1.0))
print(jax.value_and_grad(lambda v: jnp.sum(f(v)))(jnp.arange(3.)))
