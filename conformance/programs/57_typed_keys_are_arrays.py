import jax
import jax.numpy as jnp

key = jax.random.key(0)
print(isinstance(key, jax.Array), isinstance(jax.random.PRNGKey(0), jax.Array))
print(jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key))
print(jnp.issubdtype(key.dtype, jax.dtypes.prng_key), jnp.issubdtype(jnp.float32, jnp.floating))
print(key.dtype.name if hasattr(key.dtype, "name") else key.dtype)
print(jax.tree.leaves({"k": key})[0].shape)
print(jax.jit(lambda k: k)(key).dtype)
