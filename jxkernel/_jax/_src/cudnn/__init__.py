"""jxkernel._src.cudnn, as jax._src.cudnn: the home in JAX of its cuDNN kernels' Python side.
What lives here is scaled_matmul_stablehlo's names (the block-scaled products, computed through
cuDNN's custom call on a CUDA GPU: nn/block_scaled_dot.py)."""
