"""Fast Fourier transforms: `fft_p` over the trailing `len(fft_lengths)` dimensions of an
array, lowered to one `stablehlo.fft`, with JAX's four transform types.

    FFT    complex -> complex, same shape
    IFFT   complex -> complex, same shape (divided by the transform size)
    RFFT   real -> complex: the last dimension n becomes n // 2 + 1 (the Hermitian half)
    IRFFT  complex -> real: the inverse of RFFT; the last dimension becomes fft_lengths[-1]

    >>> lax.fft(jnp.array([1., 2., 3., 4.]), "fft", (4,))
    Array([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j], dtype=complex64)

`lax.fft` is jitted (its jaxprs show a nested `jit[name=fft]`) as in JAX. Leading dimensions
are batch dimensions for XLA, so vmap only moves the batch dimension to the front.
"""
from __future__ import annotations

import enum
import math

import numpy as np

from ..core import dtypes
from ..core.avals import ShapedArray, get_aval
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, lowering_rules,
                              numpy_rules)
from ..xla import stablehlo as hlo
from ..transforms import ad_util as ad
from ..transforms import batch_util as bu
from ..transforms.jit import jit
from . import elementwise as ew
from . import shapes
from .conversion import convert_element_type
from .creation import full_like
from .slicing import dynamic_update_slice

__all__ = ["FftType", "fft", "fft_p"]


class FftType(enum.IntEnum):
    """Which transform `lax.fft` computes (printed as its number in jaxprs, as in JAX)."""
    FFT = 0      # forward complex-to-complex
    IFFT = 1     # inverse complex-to-complex
    RFFT = 2     # forward real-to-complex
    IRFFT = 3    # inverse complex-to-real


_FFT_TYPE_NAMES = {"fft": FftType.FFT, "ifft": FftType.IFFT, "rfft": FftType.RFFT,
                   "irfft": FftType.IRFFT}


def _fft_type(fft_type) -> FftType:
    if isinstance(fft_type, str):
        if fft_type.lower() not in _FFT_TYPE_NAMES or fft_type not in (
                fft_type.lower(), fft_type.upper()):
            raise ValueError(f"Unknown FFT type '{fft_type}'")
        return _FFT_TYPE_NAMES[fft_type.lower()]
    if isinstance(fft_type, FftType):
        return fft_type
    raise TypeError(f"Unknown FFT type value '{fft_type}'")


def _complex_dtype(dtype) -> np.dtype:
    """complex128 for 64-bit inputs, complex64 otherwise (float16/bfloat16/ints included)."""
    return dtypes.canonicalize_named(dtypes.to_complex_dtype(dtypes.to_inexact_dtype(dtype)))


def _real_dtype(dtype) -> np.dtype:
    return np.dtype(np.float64 if np.dtype(dtype) == np.complex128 else np.float32)


# ------------------------------------------------------------------ fft
fft_p = Primitive("fft")


def _fft_abstract_eval(x, *, fft_type, fft_lengths):
    k = len(fft_lengths)
    if k > len(x.shape):
        raise ValueError(f"FFT input shape {x.shape} must have at least as many input "
                         f"dimensions as fft_lengths {fft_lengths}.")
    minor = x.shape[len(x.shape) - k:]
    if fft_type == FftType.RFFT:
        if x.dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
            raise ValueError(f"RFFT input must be float32 or float64, got {x.dtype}")
        if minor != fft_lengths:
            raise ValueError(f"RFFT input shape {x.shape} minor dimensions must be equal to "
                             f"fft_lengths {fft_lengths}")
        shape = x.shape[:len(x.shape) - k] + fft_lengths[:-1] + (fft_lengths[-1] // 2 + 1,)
        return ShapedArray(shape, np.dtype(np.complex128 if x.dtype == np.float64
                                           else np.complex64), x.weak_type)
    if not dtypes.is_complex(x.dtype):
        name = "IRFFT" if fft_type == FftType.IRFFT else "FFT"
        raise ValueError(f"{name} input must be complex64 or complex128, got {x.dtype}")
    if fft_type == FftType.IRFFT:
        if minor[:-1] != fft_lengths[:-1]:
            raise ValueError(f"IRFFT input shape {x.shape} minor dimensions must be equal to all "
                             f"except the last fft_length, got fft_lengths={fft_lengths}")
        if minor[-1] != fft_lengths[-1] // 2 + 1:
            # (JAX only finds this when XLA rejects the lowered op)
            raise ValueError(f"IRFFT input shape {x.shape}: the last dimension must be "
                             f"fft_lengths[-1] // 2 + 1 = {fft_lengths[-1] // 2 + 1} (the "
                             f"Hermitian half of a length-{fft_lengths[-1]} signal), got "
                             f"{minor[-1]}; slice or pad the input, or pick fft_lengths to fit")
        return ShapedArray(x.shape[:len(x.shape) - k] + fft_lengths, _real_dtype(x.dtype),
                           x.weak_type)
    if minor != fft_lengths:
        raise ValueError(f"FFT input shape {x.shape} minor dimensions must be equal to "
                         f"fft_lengths {fft_lengths}")
    return x


def _emit_fft(ctx, x, fft_type: FftType, lengths, out_shape, out_dtype):
    return ctx.op1("stablehlo.fft", [x], {
        "fft_type": hlo.enum("fft_type", fft_type.name),
        "fft_length": hlo.i64_array(lengths)}, result_type=hlo.tensor_type(out_shape, out_dtype))


def _fft_lowering(ctx, x, *, fft_type, fft_lengths):
    out = ctx.avals_out[0]
    if ctx.platform in ("gpu", "rocm") and fft_type == FftType.IRFFT and len(fft_lengths) > 1:
        return _irfft_gpu_lowering(ctx, x, fft_lengths)
    return _emit_fft(ctx, x, FftType(fft_type), fft_lengths, out.shape, out.dtype)


def _fft_numpy(x, *, fft_type, fft_lengths):
    """numpy.fft over the trailing axes (in double precision, rounded to x's precision)."""
    axes = tuple(range(x.ndim - len(fft_lengths), x.ndim))
    if 0 in fft_lengths and fft_type in (FftType.FFT, FftType.IFFT):
        # NumPy refuses a transform of no points; XLA's is empty (its real ones refuse too)
        return np.zeros(x.shape, x.dtype)
    if fft_type == FftType.RFFT:
        return np.fft.rfftn(x, fft_lengths, axes).astype(_complex_dtype(x.dtype))
    if fft_type == FftType.IRFFT:
        return np.fft.irfftn(x, fft_lengths, axes).astype(_real_dtype(x.dtype))
    transform = np.fft.fftn if fft_type == FftType.FFT else np.fft.ifftn
    return transform(x, fft_lengths, axes).astype(x.dtype)


def _irfft_gpu_lowering(ctx, x, fft_lengths):
    """cuFFT's multi-dimensional C2R transform assumes Hermitian symmetry in every transformed
    dimension, NumPy (and XLA on CPU) only in the last: so, as JAX does there, an IFFT over the
    outer dimensions (moved last), then a 1-D IRFFT over the last one."""
    aval, out = ctx.avals_in[0], ctx.avals_out[0]
    rank, k = len(aval.shape), len(fft_lengths)
    start = rank - k
    perm = list(range(rank))
    perm.insert(start, perm.pop())               # the C2R dimension ahead of the outer ones
    moved = tuple(aval.shape[p] for p in perm)
    x = ctx.op1("stablehlo.transpose", [x], {"permutation": hlo.i64_array(perm)},
                result_type=hlo.tensor_type(moved, aval.dtype))
    x = _emit_fft(ctx, x, FftType.IFFT, fft_lengths[:-1], moved, aval.dtype)
    back = list(range(rank))
    back.append(back.pop(start))
    x = ctx.op1("stablehlo.transpose", [x], {"permutation": hlo.i64_array(back)},
                result_type=hlo.tensor_type(aval.shape, aval.dtype))
    return _emit_fft(ctx, x, FftType.IRFFT, fft_lengths[-1:], out.shape, out.dtype)


def _hermitian_mask(like, size: int, n: int, dtype):
    """Weights of the stored half of a Hermitian spectrum of length-`n` signals: 1 at DC (and
    at Nyquist when n is even), 2 elsewhere, where the half stands for two bins."""
    mask = full_like(like, 2.0, shape=(size,), dtype=dtype)
    mask = dynamic_update_slice(mask, full_like(like, 1.0, shape=(1,), dtype=dtype), (0,))
    if n % 2 == 0:
        mask = dynamic_update_slice(mask, full_like(like, 1.0, shape=(1,), dtype=dtype),
                                    (size - 1,))
    return mask


def _lead_ones(mask, ndim: int):
    """`mask` (1-D) with ndim - 1 leading size-1 dimensions, to scale the last dimension."""
    return shapes.expand_dims(mask, tuple(range(ndim - 1))) if ndim > 1 else mask


@jit(static_argnums=(1,))
def _rfft_transpose(t, fft_lengths):
    # the adjoint of RFFT: an IRFFT (which divides by N and doubles the non-DC/Nyquist
    # bins) undone by N and the mask; conj because IRFFT is the conjugate-linear inverse
    ndim = len(get_aval(t).shape)
    mask = _hermitian_mask(t, get_aval(t).shape[-1], fft_lengths[-1], None)
    mask = _lead_ones(mask, ndim)
    return math.prod(fft_lengths) * fft(ew.conj(t) / mask, FftType.IRFFT, fft_lengths)


def _irfft_transpose(t, fft_lengths):
    # the adjoint of IRFFT: an RFFT scaled by 1/N, with the bins that IRFFT counts twice
    # doubled, conjugated by JAX's convention for complex cotangents
    x = fft(t, FftType.RFFT, fft_lengths)
    ndim = len(get_aval(x).shape)
    mask = _hermitian_mask(t, get_aval(x).shape[-1], fft_lengths[-1], get_aval(x).dtype)
    out = 1 / math.prod(fft_lengths) * _lead_ones(mask, ndim) * x
    return ew.conj(out)


def _fft_transpose(t, x, *, fft_type, fft_lengths):
    if fft_type == FftType.RFFT:
        return [_rfft_transpose(t, fft_lengths)]
    if fft_type == FftType.IRFFT:
        return [_irfft_transpose(t, fft_lengths)]
    return [fft(t, fft_type, fft_lengths)]     # the DFT matrix is symmetric


def _fft_batching(vals, dims, *, fft_type, fft_lengths):
    (x,), (d,) = vals, dims
    return fft(bu.moveaxis(x, d, 0), fft_type, fft_lengths), 0


abstract_eval_rules[fft_p] = _fft_abstract_eval
lowering_rules[fft_p] = _fft_lowering
numpy_rules[fft_p] = _fft_numpy
ad.deflinear2(fft_p, _fft_transpose)
batching_rules[fft_p] = _fft_batching


# jitted, as JAX's: its equations print nested under a jit named `fft`
@jit(static_argnums=(1, 2))
def fft(x, fft_type, fft_lengths):
    """The FFT of `fft_type` (a FftType or 'fft'/'ifft'/'rfft'/'irfft') over the trailing
    `len(fft_lengths)` dimensions of `x`; the input is cast to complex (to real for RFFT).

    >>> lax.fft(jnp.array([1., 0., 0., 0.]), "rfft", (4,))
    Array([1.+0.j, 1.+0.j, 1.+0.j], dtype=complex64)
    """
    typ = _fft_type(fft_type)
    dtype = dtypes.dtype(x)
    if typ == FftType.RFFT:
        if dtypes.is_complex(dtype):
            raise ValueError("only real valued inputs supported for rfft")
        x = convert_element_type(x, dtypes.to_inexact_dtype(dtype))
    else:
        x = convert_element_type(x, _complex_dtype(dtype))
    if not fft_lengths:           # XLA has no 0-dimensional FFT: the identity
        return x
    return fft_p.bind(x, fft_type=typ, fft_lengths=tuple(int(n) for n in fft_lengths))
