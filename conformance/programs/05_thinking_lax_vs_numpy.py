import jax.numpy as jnp
from jax import lax

print(jnp.add(1, 1.0))
print(lax.add(1.0, 1.0))
try:
    lax.add(jnp.int32(1), jnp.float32(1.0))
except TypeError:
    print("lax.add of int32 and float32 raises TypeError")
print(lax.add(jnp.float32(1), 1.0))

x = jnp.array([1, 2, 1])
y = jnp.ones(10)
print(jnp.convolve(x, y))

result = lax.conv_general_dilated(
    x.reshape(1, 1, 3).astype(float),
    y.reshape(1, 1, 10),
    window_strides=(1,),
    padding=[(len(y) - 1, len(y) - 1)])
print(result[0, 0])
print(lax.div(7, 2), lax.rem(-7, 2), jnp.remainder(-7, 2), jnp.floor_divide(-7, 2))
