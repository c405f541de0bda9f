import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def f(x, y):
    print("Running f():")
    print(f"  x.shape = {x.shape}, x.dtype = {x.dtype}")
    result = jnp.dot(x + 1, y + 1)
    print(f"  result.shape = {result.shape}")
    return result


x = np.ones((3, 4), dtype=np.float32)
y = np.ones(4, dtype=np.float32)
print(f(x, y))
print(f(x + 1, y + 1))
print(f(np.ones((2, 4), np.float32), y))


def g(x, y):
    return jnp.dot(x + 1, y + 1)


print(jax.make_jaxpr(g)(x, y))
print(jax.make_jaxpr(lambda a: jnp.sin(a) * 2.0)(1.0))
