import jax
import jax.numpy as jnp
import numpy as np

x = jnp.ones(3)
print(x.dtype)
print(jnp.asarray(np.arange(3, dtype=np.int64)).dtype)
jax.config.update("jax_enable_x64", True)
y = jnp.arange(3, dtype=jnp.float64)
print(y.dtype, jnp.ones(2).dtype, jnp.arange(3).dtype)
print(jnp.float64(1) / 3)
print(jnp.array(2 ** 40) + 1)
print(jnp.finfo(jnp.float64).eps, jnp.iinfo(jnp.int64).max)
z = jax.jit(lambda a: a * 2.5)(jnp.arange(3))
print(z, z.dtype)
RESULTS = {"third": jnp.float64(1) / 3, "big": jnp.array(2 ** 40) + 1, "z": z}
jax.config.update("jax_enable_x64", False)
