"""jax.nn's block-scaled products: `get_scaled_dot_general_config` ('mxfp8', 'nvfp4'),
`scaled_dot_general` and `scaled_matmul`, as JAX 0.10.2 has them.

A block-scaled operand is stored in a narrow type (float8_e4m3fn, float4_e2m1fn) with one scale
per block of `block_size` elements along the contracting axis (float8_e8m0fnu, a power of two,
for mxfp8; float8_e4m3fn for nvfp4). `scaled_dot_general` quantizes its operands so
(`_quantize`, JAX's arithmetic) and multiplies them with `scaled_matmul`.

JAX 0.10.2 computes `scaled_matmul` only through cuDNN and hipBLASLt custom calls: on the CPU
its primitive has no lowering and every call raises NotImplementedError ("MLIR translation
rule for primitive 'scaled_matmul' not found for platform cpu"). jxkernel has neither kernel,
so its `scaled_matmul` raises the same error, at the call, on every platform; the configs,
the argument checks and the quantization are JAX's.

    >>> get_scaled_dot_general_config('mxfp8').block_size
    32
"""
from __future__ import annotations

import dataclasses
import warnings

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..core import dtypes as _core
from ..core.dtypes import canonicalize_user_dtype
from ..xla import client as _client

__all__ = ["BlockScaleConfig", "get_scaled_dot_general_config", "scaled_dot_general",
           "scaled_matmul"]


def _narrow(name: str):
    """A narrow type as JAX names it in a config: ml_dtypes' scalar class, as its repr shows.
    Looked up on use: without ml_dtypes (an optional dependency) jxkernel still imports, and
    the dtype's own error says what to install."""
    return getattr(_core, name).type


@dataclasses.dataclass(slots=True)
class BlockScaleConfig:
    mode: str
    block_size: int
    data_type: object
    scale_type: object
    global_scale: object
    infer_only: bool


def get_scaled_dot_general_config(mode, global_scale=None):
    """Get quantization configs for scaled_dot_general: 'mxfp8' (float8_e4m3fn data, a
    float8_e8m0fnu scale per 32 elements) or 'nvfp4' (float4_e2m1fn data, a float8_e4m3fn
    scale per 16, and a float32 `global_scale`, 1 by default)."""
    if mode == 'nvfp4':
        return BlockScaleConfig(
            mode='nvfp4', block_size=16, data_type=_narrow("float4_e2m1fn"),
            scale_type=_narrow("float8_e4m3fn"),
            global_scale=jnp.ones((1,), dtype=np.float32) if global_scale is None
            else global_scale,
            infer_only=False)
    if mode == 'mxfp8':
        return BlockScaleConfig(mode='mxfp8', block_size=32, data_type=_narrow("float8_e4m3fn"),
                                scale_type=_narrow("float8_e8m0fnu"), global_scale=None,
                                infer_only=False)
    raise ValueError(f"Unsupported mode: {mode}")


def _unsupported():
    # JAX's words: its primitive has lowerings for CUDA and ROCm only
    platform = _client.default_backend()
    raise NotImplementedError(f"MLIR translation rule for primitive 'scaled_matmul' not found "
                              f"for platform {platform}")


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
    """Block-scaled batched matmul: `lhs` (B, M, K) times `rhs` (B, N, K) contracted over K,
    each scaled by its scales (B, M, K_a) and (B, N, K_b), one per block of K // K_a
    elements. JAX's checks; then, as JAX on the CPU, NotImplementedError (module docstring)."""
    a, b, a_scales, b_scales = lhs, rhs, lhs_scales, rhs_scales
    if not all(x.ndim == 3 for x in (a, b, a_scales, b_scales)):
        raise ValueError("scaled_matmul requires all inputs to be 3-dimensional arrays")
    (batch_a, m_a, k_a), (batch_b, n_b, k_b) = a.shape, b.shape
    if k_a != k_b or batch_a != batch_b:
        raise ValueError("scaled_matmul requires inputs a and b to have matching batch (B) "
                         f"and contract (K) dimensions, but got shapes {a.shape} and {b.shape}")
    (batch_as, m_as, k_as), (batch_bs, n_bs, k_bs) = a_scales.shape, b_scales.shape
    if k_as != k_bs or batch_as != batch_bs:
        raise ValueError("scaled_matmul requires scales to have matching batch (B) and "
                         f"contract (K) dimensions, but got shapes {a_scales.shape} and "
                         f"{b_scales.shape}")
    if m_as != m_a or n_bs != n_b:
        raise ValueError("scaled_matmul requires scales to match non-contract dimensions of "
                         f"inputs, but got shapes a: {a.shape}, b: {b.shape}, a_scales: "
                         f"{a_scales.shape}, b_scales: {b_scales.shape}")
    canonicalize_user_dtype(preferred_element_type)
    _unsupported()


def scaled_dot_general(lhs, rhs, dimension_numbers, preferred_element_type=np.float32,
                       configs=None, implementation=None):
    """Scaled dot general: `lax.dot_general` with both operands quantized by `configs`
    (`get_scaled_dot_general_config`'s, for lhs, rhs and the gradient); without configs,
    `lax.dot_general` itself."""
    if implementation is not None:
        warnings.warn("Backend selector, now ignored. The system chooses the backend "
                      "automatically.", DeprecationWarning)
    if configs is None:
        return lax.dot_general(lhs, rhs, dimension_numbers,
                               preferred_element_type=preferred_element_type)
    preferred = np.dtype(canonicalize_user_dtype(preferred_element_type))
    if preferred not in (np.dtype('float32'), np.dtype('bfloat16'), np.dtype('float16')):
        # (JAX's message, which does not fill in the type)
        raise TypeError('Only support preferred_element_type in (f32, bf16, f16), but got '
                        '{preferred_element_type}')
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = (
        tuple(tuple(d) for d in pair) for pair in dimension_numbers)
    # an operand without batch dimensions gets a trailing one of size 1
    if not lhs_batch:
        lhs, lhs_batch = jnp.expand_dims(lhs, lhs.ndim), (lhs.ndim,)
    if not rhs_batch:
        rhs, rhs_batch = jnp.expand_dims(rhs, rhs.ndim), (rhs.ndim,)
    a, a_scales = _quantize(_as_bmk(lhs, lhs_contract, lhs_batch), configs[0])
    b, b_scales = _quantize(_as_bmk(rhs, rhs_contract, rhs_batch), configs[1])
    return scaled_matmul(a, b, a_scales, b_scales, preferred_element_type=preferred)


def _as_bmk(x, contracting, batch):
    """`x` as (batch, rows, contracting), each group flattened in its axes' order."""
    axes = range(x.ndim)
    batch_axes = [d for d in axes if d in batch]
    rows = [d for d in axes if d not in contracting and d not in batch]
    cols = [d for d in axes if d in contracting]
    size = lambda ds: int(np.prod([x.shape[d] for d in ds], dtype=int))   # noqa: E731
    return jnp.reshape(jnp.transpose(x, batch_axes + rows + cols),
                       (size(batch_axes), size(rows), size(cols)))


def _e8m0_rounding_up(x):
    """The float8_e8m0fnu scale (its byte, a biased exponent) of the power of two at or above
    each positive float32 `x`."""
    bits = lax.bitcast_convert_type(x.astype(np.float32), np.uint32)
    exponent, mantissa = bits >> 23, bits & 0x7FFFFF
    # up unless x is a power of two, would overflow, or is a subnormal of at most half the
    # smallest normal
    up = jnp.logical_and(jnp.logical_and(mantissa > 0, exponent != 0xFE),
                         ~jnp.logical_and(exponent == 0, mantissa <= 0x400000))
    return jnp.where(up, exponent + 1, exponent).astype(np.uint8)


def _e8m0_value(byte, dtype):
    """The scale a float8_e8m0fnu byte stands for, in `dtype` (zero made the smallest power
    of two the type holds, so dividing by it stays finite)."""
    value = lax.bitcast_convert_type(byte.astype(np.uint32) << 23, np.float32)
    tiny = 2 ** -15 if dtype == np.float16 else 2 ** -127
    return jnp.where(value == 0, jnp.array(tiny, np.float32), value).astype(dtype)


def _quantize(x, config):
    """(x in config's data type, its scale per block of the last axis), as JAX's quantize."""
    shape = x.shape
    block = config.block_size
    assert shape[-1] >= block and shape[-1] % block == 0
    x = x.reshape(shape[:-1] + (shape[-1] // block, block))
    top = _core.finfo(config.data_type).max.astype(x.dtype)

    def block_scales(values):
        return jnp.max(jnp.abs(values), axis=-1, keepdims=True) / top

    if config.mode == "mxfp8":
        assert config.global_scale is None and config.scale_type == _narrow("float8_e8m0fnu")
        scales = _e8m0_rounding_up(block_scales(x))
        scaled = x / _e8m0_value(scales, x.dtype)
    elif config.mode == "nvfp4":
        assert config.scale_type == _narrow("float8_e4m3fn") and \
            config.global_scale.dtype == np.float32
        x = x / config.global_scale
        scales = jnp.clip(block_scales(x), 0, _core.finfo(config.scale_type).max.astype(x.dtype))
        scales = lax.optimization_barrier(scales.astype(config.scale_type))
        scaled = x / scales.astype(np.float32)
    else:
        raise ValueError(f"Unrecognized mode: {config.mode}.")
    quantized = jnp.clip(scaled, -top, top).astype(config.data_type).reshape(shape)
    scales = jnp.reshape(scales, scales.shape[:-1]).view(config.scale_type)
    return quantized, scales
