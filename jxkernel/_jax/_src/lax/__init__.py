"""jxkernel._src.lax, as jax._src.lax: JAX's private home of lax, which its primitives
guide imports (`from jax._src.lax import lax`)."""
