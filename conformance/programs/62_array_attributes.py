import jax
import jax.numpy as jnp

x = jnp.arange(6.).reshape(2, 3)
print(x.shape, x.ndim, x.size, x.dtype, x.itemsize, x.nbytes, len(x))
print(x.sharding.is_fully_replicated, x.sharding.device_set == {jax.devices()[0]})
print(x.devices() == {jax.devices()[0]}, x.is_fully_addressable)
print(jax.devices()[0].platform, jax.default_backend())
print(repr(x))
print(x.T.tolist(), x.astype(int).dtype, x.reshape(-1)[::2])
print(float(x[1, 2]), int(x[0, 1]), bool(x[0, 0]), x[0, 1].item())
print(x.sum(), x.argmax(), x.flatten().shape, x.ravel()[-1], x.clip(1, 4).min())
print(jax.typeof(x), jax.ShapeDtypeStruct(x.shape, x.dtype))
print(x.weak_type if hasattr(x, "weak_type") else "n/a", jnp.asarray(1.0).weak_type)
print(jax.device_get(x), type(jax.device_get(x)).__name__)
print(jax.block_until_ready({"a": x})["a"].shape, x.copy().dtype, x.conj().dtype)
