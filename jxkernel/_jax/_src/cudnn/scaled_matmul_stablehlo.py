"""jxkernel._src.cudnn.scaled_matmul_stablehlo, as JAX's: the block quantization behind
`jax.nn.scaled_dot_general` (nn/scaled.py), which JAX's nn_test calls to make its operands.
The cuDNN matmul itself JAX runs on GPUs only; jxkernel's `scaled_matmul` says so.

    >>> q, scales = quantize(jnp.ones((1, 2, 32)), jax.nn.get_scaled_dot_general_config("mxfp8"))
    >>> q.dtype, scales.shape, scales.dtype
    (dtype(float8_e4m3fn), (1, 2, 1), dtype(float8_e8m0fnu))
"""
from ....nn.scaled import _e8m0_rounding_up as cast_to_e8m0_with_rounding_up  # noqa: F401
from ....nn.scaled import _e8m0_value as e8m0_to_dtype  # noqa: F401
from ....nn.scaled import _quantize as quantize  # noqa: F401
