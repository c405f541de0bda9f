"""jxkernel._src: the few helpers of JAX's private `jax._src` that JAX's own tutorials import
(the custom interpreter notebook uses `jax._src.util.safe_map`)."""
