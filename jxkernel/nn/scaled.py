"""jax.nn's block-scaled products: `get_scaled_dot_general_config` ('mxfp8', 'nvfp4'),
`scaled_dot_general` and `scaled_matmul`, as JAX 0.10.2 has them.

A block-scaled operand is stored in a narrow type (float8_e4m3fn, float4_e2m1fn) with one scale
per block of `block_size` elements along the contracting axis (float8_e8m0fnu, a power of two,
for mxfp8; float8_e4m3fn for nvfp4). `scaled_dot_general` quantizes its operands so
(`_quantize`, JAX's arithmetic) and multiplies them with `scaled_matmul`; its gradient
(JAX's custom_vjp) quantizes the cotangent with the third config.

`scaled_matmul` is computed only on a CUDA GPU, as in JAX (block_scaled_dot.py, its
primitives): elsewhere it traces, vmaps and has shapes, and compiling it raises JAX's
NotImplementedError ("MLIR translation rule for primitive 'scaled_matmul' not found for
platform cpu").

    >>> get_scaled_dot_general_config('mxfp8').block_size
    32
"""
from __future__ import annotations

import dataclasses
import functools
import warnings

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..core import dtypes as _core
from ..core.dtypes import canonicalize_user_dtype
from ..core.source_info import user_stacklevel
from ..lax.dot import _ranges_like, _remaining
from ..transforms.custom_derivatives import custom_vjp

__all__ = ["BlockScaleConfig", "get_scaled_dot_general_config", "scaled_dot_general",
           "scaled_matmul"]


def _scaled_matmul_jit():
    """The jitted product (block_scaled_dot.py), imported on first use: its partitioning rule
    needs custom_partitioning and the collectives, which `import jxkernel` does without."""
    from .block_scaled_dot import scaled_matmul     # (deferred: kept off `import jxkernel`)
    return scaled_matmul


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


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
    """Block-scaled batched matmul: `lhs` (B, M, K) times `rhs` (B, N, K) contracted over K,
    each scaled by its scales (B, M, K_a) and (B, N, K_b), one per block of K // K_a
    elements: `einsum('BMK,BNK->BMN', a * repeat(a_scales), b * repeat(b_scales))`.
    Computed on a CUDA GPU only (module docstring)."""
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
    preferred = canonicalize_user_dtype(preferred_element_type, "scaled_matmul")
    return _scaled_matmul_jit()(a, b, a_scales, b_scales, preferred_element_type=preferred)


def scaled_dot_general(lhs, rhs, dimension_numbers, preferred_element_type=np.float32,
                       configs=None, implementation=None):
    """Scaled dot general: `lax.dot_general` with both operands quantized by `configs`
    (`get_scaled_dot_general_config`'s, for lhs, rhs and the gradient); without configs,
    `lax.dot_general` itself."""
    if implementation is not None:
        warnings.warn("Backend selector, now ignored. The system chooses the backend "
                      "automatically.", DeprecationWarning, stacklevel=user_stacklevel())
    if configs is None:
        return lax.dot_general(lhs, rhs, dimension_numbers,
                               preferred_element_type=preferred_element_type)
    return scaled_dot_general_wrapper(lhs, rhs, dimension_numbers, preferred_element_type,
                                      configs)


def scaled_dot_general_wrapper(lhs, rhs, dimension_numbers, preferred_element_type=np.float32,
                               configs=None):
    """JAX's function under `scaled_dot_general` with configs (its cuDNN module's name, which
    its tests import): mxfp8 for all three configs when none are given."""
    if preferred_element_type not in (np.dtype('float32'), np.dtype('bfloat16'),
                                      np.dtype('float16')):
        # (JAX's message, which does not fill in the type)
        raise TypeError('Only support preferred_element_type in (f32, bf16, f16), but got '
                        '{preferred_element_type}')
    if configs is None:
        configs = [get_scaled_dot_general_config('mxfp8')] * 3
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = (
        tuple(tuple(d) for d in pair) for pair in dimension_numbers)
    dims = (lhs_contract, rhs_contract), (lhs_batch, rhs_batch)
    # an operand without batch dimensions gets a trailing one of size 1, squeezed from the
    # front of the result after
    if not lhs_batch:
        lhs, lhs_batch = jnp.expand_dims(lhs, lhs.ndim), (lhs.ndim,)
    if not rhs_batch:
        rhs, rhs_batch = jnp.expand_dims(rhs, rhs.ndim), (rhs.ndim,)
    batched = (lhs_contract, rhs_contract), (lhs_batch, rhs_batch)
    out = scaled_dot_general_fn(lhs, rhs, batched, preferred_element_type, configs)
    return jnp.squeeze(out, axis=0) if batched != dims else out


def _scaled_dot(lhs, rhs, dimension_numbers, preferred_element_type, configs):
    """Both operands quantized by their configs and multiplied with scaled_matmul (nvfp4's
    in float32, times both global scales), the result shaped as dot_general's."""
    if preferred_element_type is None:
        preferred = np.dtype(jnp.result_type(lhs, rhs))
    else:
        preferred = np.dtype(canonicalize_user_dtype(preferred_element_type, "scaled_dot_impl"))
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    lhs_3d, rhs_3d = _as_bmk(lhs, lhs_contract, lhs_batch), _as_bmk(rhs, rhs_contract, rhs_batch)
    lhs_q, lhs_scales = _quantize(lhs_3d, configs[0])
    rhs_q, rhs_scales = _quantize(rhs_3d, configs[1])
    nvfp4 = configs[0].mode == 'nvfp4'
    out = _scaled_matmul_jit()(
        lhs_q, rhs_q, lhs_scales, rhs_scales,
        preferred_element_type=np.dtype(np.float32) if nvfp4 else preferred)
    if nvfp4:
        out = (out * (configs[0].global_scale * configs[1].global_scale)).astype(preferred)
    return jnp.reshape(out, _dot_shape(lhs.shape, rhs.shape, (lhs_contract, lhs_batch),
                                       (rhs_contract, rhs_batch)))


def _dot_shape(lhs_shape, rhs_shape, lhs_dims, rhs_dims) -> tuple:
    """dot_general's result shape: the batch dimensions (lhs's), then lhs's and rhs's free
    ones."""
    (lhs_contract, lhs_batch), (rhs_contract, rhs_batch) = lhs_dims, rhs_dims
    return (*(d for i, d in enumerate(lhs_shape) if i in lhs_batch),
            *(d for i, d in enumerate(lhs_shape) if i not in lhs_contract + lhs_batch),
            *(d for i, d in enumerate(rhs_shape) if i not in rhs_contract + rhs_batch))


def _transpose_lhs(g, x, y, *, dimension_numbers, preferred_element_type, configs,
                   swap_ans=False):
    """x's cotangent: g times y over y's free dimensions, quantized by `configs` (g's, y's)
    and multiplied with scaled_matmul, or in nvfp4 mode an unquantized matmul."""
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    x_kept = list(_remaining(range(x.ndim), x_contract, x_batch))
    y_kept = list(_remaining(range(y.ndim), y_contract, y_batch))
    if swap_ans:
        ans_batch, ans_y, _ = _ranges_like(x_batch, y_kept, x_kept)
    else:
        ans_batch, _, ans_y = _ranges_like(x_batch, x_kept, y_kept)
    x_contract_by_y = list(np.take(x_contract, np.argsort(y_contract)))
    out_axes = np.argsort(list(x_batch) + x_kept + x_contract_by_y)
    y_dims, g_dims = (tuple(y_kept), tuple(y_batch)), (tuple(ans_y), tuple(ans_batch))
    y_3d, g_3d = _as_bmk(y, *y_dims), _as_bmk(g, *g_dims)
    if configs[0].mode != 'nvfp4':
        g_q, g_scales = _quantize(g_3d, configs[0])
        y_q, y_scales = _quantize(y_3d, configs[1])
        out = _scaled_matmul_jit()(g_q, y_q, g_scales, y_scales,
                                   preferred_element_type=preferred_element_type)
    else:
        out = jnp.matmul(g_3d, jnp.permute_dims(y_3d, (0, 2, 1)),
                         preferred_element_type=preferred_element_type)
    out = jnp.reshape(out, _dot_shape(g.shape, y.shape, g_dims, y_dims))
    return lax.transpose(out, tuple(int(a) for a in out_axes))


def _transpose_rhs(g, x, y, *, dimension_numbers, preferred_element_type, configs):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    return _transpose_lhs(g, y, x, dimension_numbers=((y_contract, x_contract),
                                                      (y_batch, x_batch)),
                          preferred_element_type=preferred_element_type, configs=configs,
                          swap_ans=True)


# JAX's names for the custom_vjp and its rules, which jaxprs print
@functools.partial(custom_vjp, nondiff_argnums=(2, 3, 4))
def scaled_dot_general_fn(lhs, rhs, dimension_numbers, preferred_element_type, configs):
    return _scaled_dot(lhs, rhs, dimension_numbers, preferred_element_type, configs)


def scaled_dot_fwd(lhs, rhs, dimension_numbers, preferred_element_type, configs):
    return _scaled_dot(lhs, rhs, dimension_numbers, preferred_element_type, configs), (lhs, rhs)


def scaled_dot_bwd(dimension_numbers, preferred_element_type, configs, res, g):
    """Each operand's cotangent quantized with the gradient's config (configs[2]); in nvfp4
    mode a straight-through estimator that zeroes the gradient where quantizing clipped."""
    lhs, rhs = res
    params = dict(dimension_numbers=dimension_numbers,
                  preferred_element_type=preferred_element_type)
    grad_lhs = _transpose_lhs(g, lhs, rhs, configs=[configs[2], configs[1]], **params)
    grad_rhs = _transpose_rhs(g, lhs, rhs, configs=[configs[2], configs[0]], **params)
    if configs[2].mode == "nvfp4":
        assert rhs.dtype == lhs.dtype
        top = _core.finfo(configs[0].data_type).max.astype(lhs.dtype)
        scale_top = _core.finfo(configs[0].scale_type).max.astype(lhs.dtype)
        grad_lhs = jnp.where(jnp.abs(lhs) <= configs[0].global_scale * top * scale_top,
                             grad_lhs, 0)
        grad_rhs = jnp.where(jnp.abs(rhs) <= configs[1].global_scale * top * scale_top,
                             grad_rhs, 0)
    return grad_lhs, grad_rhs


scaled_dot_general_fn.defvjp(scaled_dot_fwd, scaled_dot_bwd)


def shape_normalization(x, dimension_numbers):
    """`x` as (batch, rows, contracting) for `dimension_numbers` = (contracting, batch)
    (JAX's name, which its tests import)."""
    return _as_bmk(x, *dimension_numbers)


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
