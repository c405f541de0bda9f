import jax
import jax.numpy as jnp
import numpy as np

print((jnp.int8(1) + 1).dtype, (jnp.int8(1) + 1.0).dtype, (jnp.uint8(1) + jnp.int8(1)).dtype)
print((jnp.float16(1) + jnp.bfloat16(1)).dtype, (jnp.int32(1) + jnp.float16(1)).dtype)
print(jnp.promote_types(jnp.int16, jnp.uint32), jnp.result_type(jnp.int8, 2.0))
print(jnp.array([1, 2]).dtype, jnp.array([1., 2.]).dtype, jnp.array(np.array([1., 2.])).dtype)
print((jnp.arange(3) / 2).dtype, (jnp.arange(3) // 2).dtype, (jnp.arange(3) ** 2).dtype)
print(jnp.bfloat16(1.5) * 2, jnp.array(3, jnp.uint8) - 4)
print(jax.dtypes.canonicalize_dtype(np.float64), jnp.dtype("float32") == jnp.float32)
print(jnp.finfo(jnp.bfloat16).eps, jnp.iinfo(jnp.int8).min, jnp.can_cast(jnp.int32, jnp.float32))
print(jnp.issubdtype(jnp.int32, jnp.integer), jnp.isdtype(jnp.float32, "real floating"))
print(jnp.array(1.0).astype(jnp.int4).dtype if hasattr(jnp, "int4") else "int4")
print(jnp.zeros(2, dtype=bool), jnp.ones((), dtype=jnp.complex64), jnp.float32(7).dtype.itemsize)
