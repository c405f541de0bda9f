"""jxkernel._src.numpy, as jax._src.numpy: the private modules of JAX's jax.numpy that JAX's
own tests import (`indexing`, `fft`, `util`)."""
