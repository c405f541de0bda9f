import jax
import jax.numpy as jnp


def f(x):
    print("value:", x)
    return x * 2


with jax.disable_jit():
    print(jax.jit(f)(jnp.arange(3)))


@jax.jit
def g(x):
    with jax.ensure_compile_time_eval():
        table = jnp.arange(4) ** 2
        print("table is concrete:", table)
    return x + table


print(g(jnp.ones(4, jnp.int32)))
print(jax.jit(lambda x: x + jnp.asarray(1.5))(1.0))
jax.config.update("jax_disable_jit", True)
print(jax.jit(lambda x: type(x).__name__)(1.0) in ("ArrayImpl", "float"))
jax.config.update("jax_disable_jit", False)
