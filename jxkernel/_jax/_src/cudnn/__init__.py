"""jxkernel._src.cudnn, as jax._src.cudnn: the home in JAX of its cuDNN kernels' Python side.
jxkernel has no cuDNN kernels; what lives here is what needs none (scaled_matmul_stablehlo's
block quantization, nn/scaled.py's)."""
