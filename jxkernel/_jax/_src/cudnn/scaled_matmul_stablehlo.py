"""jxkernel._src.cudnn.scaled_matmul_stablehlo, as JAX's: the block-scaled products behind
`jax.nn.scaled_matmul` and `scaled_dot_general` (nn/block_scaled_dot.py, nn/scaled.py), under
the names JAX's nn_test and scaled_matmul_stablehlo_test import. The product itself runs on a
CUDA GPU only, as in JAX.

    >>> q, scales = quantize(jnp.ones((1, 2, 32)), jax.nn.get_scaled_dot_general_config("mxfp8"))
    >>> q.dtype, scales.shape, scales.dtype
    (dtype(float8_e4m3fn), (1, 2, 1), dtype(float8_e8m0fnu))
"""
from ....nn.block_scaled_dot import scaled_matmul as scaled_matmul_wrapper  # noqa: F401
from ....nn.scaled import BlockScaleConfig  # noqa: F401
from ....nn.scaled import _e8m0_rounding_up as cast_to_e8m0_with_rounding_up  # noqa: F401
from ....nn.scaled import _e8m0_value as e8m0_to_dtype  # noqa: F401
from ....nn.scaled import _quantize as quantize  # noqa: F401
from ....nn.scaled import scaled_dot_general_wrapper, shape_normalization  # noqa: F401
