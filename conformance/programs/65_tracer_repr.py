import jax
import jax.numpy as jnp


def show(x):
    print(type(x).__name__ == "ArrayImpl", x.shape, x.dtype)
    print(repr(x))
    return x


jax.jit(show)(jnp.ones(2))
jax.grad(lambda v: show(v) * 2)(1.0)
jax.vmap(show)(jnp.ones((3, 2)))
print(jax.make_jaxpr(lambda v: show(v) + 1)(jnp.int32(1)))
print(isinstance(jax.jit(lambda v: v)(1.0), jax.Array))
jax.jit(lambda v: print(isinstance(v, jax.Array), isinstance(v, jax.core.Tracer)))(1.0)
