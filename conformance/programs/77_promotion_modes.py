import jax
import jax.numpy as jnp

print((jnp.ones(2, jnp.int32) + jnp.ones(2, jnp.float32)).dtype)
with jax.numpy_dtype_promotion("strict"):
    try:
        jnp.ones(2, jnp.int32) + jnp.ones(2, jnp.float32)
    except Exception as e:
        print("strict promotion:", type(e).__name__)
    print((jnp.ones(2) + 1.0).dtype)
with jax.default_matmul_precision("float32"):
    print(jnp.dot(jnp.ones((2, 2)), jnp.ones((2, 2))))
print(jnp.ones(3, dtype=jnp.bfloat16) @ jnp.ones(3, dtype=jnp.bfloat16))
print(jax.lax.dot(jnp.ones(2), jnp.ones(2), precision=jax.lax.Precision.HIGHEST))
