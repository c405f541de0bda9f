import jax.numpy as jnp
import numpy as np

x = jnp.arange(4.)
xp = x.__array_namespace__()
print(xp is jnp, jnp.__array_api_version__)
print(xp.sum(x), xp.isdtype(jnp.float32, "real floating"), xp.isdtype(jnp.int8, ("integral", "bool")))
info = jnp.__array_namespace_info__()
print(sorted(info.capabilities()), sorted(info.default_dtypes()))
print(x.__dlpack_device__())
y = np.from_dlpack(x)
print(y, y.dtype)
z = jnp.from_dlpack(np.arange(3, dtype=np.int32))
print(z, z.dtype)
try:
    jnp.permute_dims(jnp.ones((2, 3, 4)), (-1, 0, 1))
except TypeError as e:
    print("permute_dims with negative axes:", type(e).__name__)
print(jnp.cumulative_sum(jnp.arange(4)), jnp.cumulative_prod(jnp.arange(1, 5, dtype=jnp.int8)).dtype)
print(x.mT.shape if x.ndim >= 2 else jnp.ones((2, 3)).mT.shape, x.device)
