# conformance: devices=4
import jax
import jax.numpy as jnp

print(jax.device_count(), jax.local_device_count())
n = jax.local_device_count()
x = jnp.arange(n * 3.).reshape(n, 3)
y = jax.pmap(lambda v: v * 2)(x)
print(y)
print(jax.pmap(lambda v: v / jax.lax.psum(v, "i"), axis_name="i")(jnp.arange(1., n + 1)))
print(jax.pmap(lambda v: jax.lax.axis_index("i"), axis_name="i")(jnp.zeros(n)))
print(jax.pmap(lambda a, b: a + b, in_axes=(0, None))(jnp.arange(n), 10))
print(jax.pmap(jnp.sum)(x), type(y).__name__ == "ArrayImpl")
