"""jnp.fft: NumPy's discrete Fourier transforms on `lax.fft`, as JAX builds them.

    >>> jnp.fft.fft(jnp.array([1., 2., 3., 4.]))
    Array([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j], dtype=complex64)
    >>> jnp.fft.irfft(jnp.fft.rfft(jnp.array([1., 2., 3.])), n=3)
    Array([1., 2., 3.], dtype=float32)

Inputs become complex64 (complex128 for 64-bit inputs under x64; real float32/float64 for
the real transforms). `n`/`s` truncate or zero-pad the input along the transformed axes;
`norm` is "backward" (the default: the inverse divides by n), "ortho" (both divide by
sqrt(n)) or "forward". The transformed axes are moved last, as XLA transforms trailing
dimensions; more than three axes take repeated transforms of at most three.
"""
from __future__ import annotations

import operator

from ..core import dtypes
from ..lax.fft import FftType
from ..lax.fft import fft as _lax_fft
from . import creation, manipulation, reductions, ufuncs
from .pad import pad
from .util import aval_of, ensure_arraylike, promote_dtypes_inexact

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn",
           "ifftshift", "ihfft", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn"]


def _norm_factor(s, func_name: str, norm: str):
    """What the transform is multiplied by for `norm` (inverse transforms: names with 'i')."""
    if norm == "backward":
        return creation.array(1)
    s, = promote_dtypes_inexact(s)
    inverse = func_name.startswith("i")
    if norm == "ortho":
        root = ufuncs.sqrt(reductions.prod(s))
        return root if inverse else 1 / root
    if norm == "forward":
        size = reductions.prod(s)
        return size if inverse else 1 / size
    raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')


def _fft_core(func_name: str, fft_type: FftType, a, s, axes, norm):
    arr = ensure_arraylike(f"jax.numpy.fft.{func_name}", a)
    if s is not None:
        s = tuple(map(operator.index, s))
        if any(n <= 0 for n in s):
            raise ValueError("Shape should be positive.")
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    ndim = len(aval_of(arr).shape)
    orig_axes = axes
    if axes is None:
        axes = range(ndim) if s is None else range(ndim - len(s), ndim)
    if len(axes) != len(set(axes)):
        raise ValueError(f"jax.numpy.fft.{func_name} does not support repeated axes. Got axes "
                         f"{axes}.")
    if orig_axes is not None:       # the transformed axes go last, where XLA transforms
        axes = tuple(range(ndim - len(axes), ndim))
        arr = manipulation.moveaxis(arr, orig_axes, axes)
    if s is not None:
        in_s = list(aval_of(arr).shape)
        for axis, n in zip(axes, s):
            in_s[axis] = n
        if fft_type == FftType.IRFFT:
            in_s[-1] = in_s[-1] // 2 + 1
        arr = arr[tuple(slice(n) for n in in_s)]
        arr = pad(arr, [(0, n - m) for n, m in zip(in_s, aval_of(arr).shape)])
    else:
        shape = aval_of(arr).shape
        if fft_type == FftType.IRFFT:
            s = [shape[axis] for axis in axes[:-1]]
            if axes:
                s += [max(0, 2 * (shape[axes[-1]] - 1))]
        else:
            s = [shape[axis] for axis in axes]
    out = _fft_core_nd(arr, fft_type, s)
    if norm is not None:
        out = out * _norm_factor(creation.array(s, dtype=aval_of(out).dtype), func_name, norm)
    if orig_axes is not None:
        out = manipulation.moveaxis(out, axes, orig_axes)
    return out


def _fft_core_nd(arr, fft_type: FftType, s):
    """XLA transforms at most three dimensions at once: more take a transform of the last
    two or three, then (with those moved aside) complex transforms of the rest."""
    if len(s) <= 3:
        return _lax_fft(arr, fft_type, tuple(s))
    n = 2 if len(s) == 4 else 3
    ndim = len(aval_of(arr).shape)
    src = tuple(range(ndim - len(s), ndim - n))
    dst = tuple(range(ndim - len(s) + n, ndim))
    if fft_type in (FftType.RFFT, FftType.FFT):
        arr = _lax_fft(arr, fft_type, tuple(s)[-n:])
        arr = manipulation.moveaxis(arr, src, dst)
        arr = _fft_core_nd(arr, FftType.FFT, s[:-n])
        return manipulation.moveaxis(arr, dst, src)
    arr = manipulation.moveaxis(arr, src, dst)       # inverses: the outer axes first
    arr = _fft_core_nd(arr, FftType.IFFT, s[:-n])
    arr = manipulation.moveaxis(arr, dst, src)
    return _lax_fft(arr, fft_type, tuple(s)[-n:])


def _axis_check_1d(func_name: str, axis):
    if isinstance(axis, (list, tuple)):
        full = f"jax.numpy.fft.{func_name}"
        raise ValueError(f"{full} does not support multiple axes. Please use {full}n. Got "
                         f"axis = {axis!r}.")


def _fft_core_1d(func_name, fft_type, a, n, axis, norm):
    _axis_check_1d(func_name, axis)
    return _fft_core(func_name, fft_type, a, None if n is None else [n],
                     None if axis is None else [axis], norm)


def _fft_core_2d(func_name, fft_type, a, s, axes, norm):
    if len(axes) != 2:
        raise ValueError(f"jax.numpy.fft.{func_name} only supports 2 axes. Got axes = "
                         f"{axes!r}.")
    return _fft_core(func_name, fft_type, a, s, axes, norm)


# ------------------------------------------------------------------ n-dimensional
def fftn(a, s=None, axes=None, norm=None):
    """The n-dimensional DFT over `axes` (all by default), of size `s` along them.

    >>> jnp.fft.fftn(jnp.ones((2, 2)))
    Array([[4.+0.j, 0.+0.j],
           [0.+0.j, 0.+0.j]], dtype=complex64)
    """
    return _fft_core("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm=None):
    """The n-dimensional inverse DFT (the inverse of fftn).

    >>> jnp.fft.ifftn(jnp.fft.fftn(jnp.array([[1., 2.], [3., 4.]]))).real
    Array([[1., 2.],
           [3., 4.]], dtype=float32)
    """
    return _fft_core("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
    """The n-dimensional DFT of a real array; the last axis keeps s[-1] // 2 + 1 entries.

    >>> jnp.fft.rfftn(jnp.ones((2, 4))).shape
    (2, 3)
    """
    return _fft_core("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm=None):
    """The inverse of rfftn: a real array, of length 2 * (m - 1) along the last axis unless
    `s` says otherwise.

    >>> jnp.fft.irfftn(jnp.fft.rfftn(jnp.array([[1., 2.], [3., 4.]])))
    Array([[1., 2.],
           [3., 4.]], dtype=float32)
    """
    return _fft_core("irfftn", FftType.IRFFT, a, s, axes, norm)


# ------------------------------------------------------------------ one-dimensional
def fft(a, n=None, axis=-1, norm=None):
    """The one-dimensional DFT along `axis`, of length `n` (truncated or zero-padded).

    >>> jnp.fft.fft(jnp.array([1., 1., 1., 1.]))
    Array([4.+0.j, 0.+0.j, 0.+0.j, 0.+0.j], dtype=complex64)
    """
    return _fft_core_1d("fft", FftType.FFT, a, n, axis, norm)


def ifft(a, n=None, axis=-1, norm=None):
    """The one-dimensional inverse DFT along `axis` (divided by n for norm="backward").

    >>> jnp.fft.ifft(jnp.array([4., 0., 0., 0.]))
    Array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j], dtype=complex64)
    """
    return _fft_core_1d("ifft", FftType.IFFT, a, n, axis, norm)


def rfft(a, n=None, axis=-1, norm=None):
    """The one-dimensional DFT of a real signal: its n // 2 + 1 non-negative frequencies.

    >>> jnp.fft.rfft(jnp.array([1., 2., 3., 4.]))
    Array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex64)
    """
    return _fft_core_1d("rfft", FftType.RFFT, a, n, axis, norm)


def irfft(a, n=None, axis=-1, norm=None):
    """The inverse of rfft: a real signal of length `n` (default 2 * (m - 1)).

    >>> jnp.fft.irfft(jnp.array([10., -2. + 2.j, -2.]))
    Array([1., 2., 3., 4.], dtype=float32)
    """
    return _fft_core_1d("irfft", FftType.IRFFT, a, n, axis, norm)


def hfft(a, n=None, axis=-1, norm=None):
    """The DFT of a signal with Hermitian symmetry, given by its first half: a real spectrum.

    >>> jnp.fft.hfft(jnp.array([1., 2., 3.]))
    Array([ 8., -2.,  0., -2.], dtype=float32)
    """
    conj_a = ufuncs.conj(a)
    _axis_check_1d("hfft", axis)
    nn = (aval_of(conj_a).shape[axis] - 1) * 2 if n is None else n
    return _fft_core_1d("hfft", FftType.IRFFT, conj_a, n, axis, norm) * nn


def ihfft(a, n=None, axis=-1, norm=None):
    """The inverse of hfft: the first half of a Hermitian spectrum of a real signal.

    >>> jnp.fft.ihfft(jnp.array([8., -2., 0., -2.]))
    Array([1.+0.j, 2.+0.j, 3.+0.j], dtype=complex64)
    """
    _axis_check_1d("ihfft", axis)
    arr = creation.asarray(a)
    nn = aval_of(arr).shape[axis] if n is None else n
    out = _fft_core_1d("ihfft", FftType.RFFT, arr, n, axis, norm)
    return ufuncs.conj(out) * (1 / nn)


# ------------------------------------------------------------------ two-dimensional
def fft2(a, s=None, axes=(-2, -1), norm=None):
    """The two-dimensional DFT over `axes` (the last two by default).

    >>> jnp.fft.fft2(jnp.ones((2, 2)))
    Array([[4.+0.j, 0.+0.j],
           [0.+0.j, 0.+0.j]], dtype=complex64)
    """
    return _fft_core_2d("fft2", FftType.FFT, a, s, axes, norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    """The two-dimensional inverse DFT over `axes`.

    >>> jnp.fft.ifft2(jnp.array([[4., 0.], [0., 0.]]))
    Array([[1.+0.j, 1.+0.j],
           [1.+0.j, 1.+0.j]], dtype=complex64)
    """
    return _fft_core_2d("ifft2", FftType.IFFT, a, s, axes, norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    """The two-dimensional DFT of a real array over `axes` (the last one halved).

    >>> jnp.fft.rfft2(jnp.ones((2, 4))).shape
    (2, 3)
    """
    return _fft_core_2d("rfft2", FftType.RFFT, a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    """The inverse of rfft2: a real array.

    >>> jnp.fft.irfft2(jnp.array([[4., 0.], [0., 0.]]))
    Array([[1., 1.],
           [1., 1.]], dtype=float32)
    """
    return _fft_core_2d("irfft2", FftType.IRFFT, a, s, axes, norm)


# ------------------------------------------------------------------ frequencies and shifts
def _check_freq_args(name: str, n, d):
    if isinstance(n, (list, tuple)):
        raise ValueError(f"The n argument of jax.numpy.fft.{name} only takes an int. Got "
                         f"n = {list(n)}.")
    if isinstance(d, (list, tuple)):
        raise ValueError(f"The d argument of jax.numpy.fft.{name} only takes a single value. "
                         f"Got d = {list(d)}.")


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of fft's output for a window of length `n`, spacing `d`.

    >>> jnp.fft.fftfreq(4)
    Array([ 0.  ,  0.25, -0.5 , -0.25], dtype=float32)
    """
    dtype = dtype or dtypes.default_float_dtype()
    _check_freq_args("fftfreq", n, d)
    out_dtype = dtype
    dtype = dtypes.finfo(dtypes.to_inexact_dtype(dtypes.canonicalize_named(dtype))).dtype
    i = creation.arange(n, dtype=dtype, device=device)
    k = (i + n // 2) % n - n // 2
    result = k.astype(dtype) / creation.array(d * n, dtype=dtype, device=device)
    return result.astype(out_dtype)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of rfft's output for a window of length `n`, spacing `d`.

    >>> jnp.fft.rfftfreq(4)
    Array([0.  , 0.25, 0.5 ], dtype=float32)
    """
    dtype = dtype or dtypes.default_float_dtype()
    _check_freq_args("rfftfreq", n, d)
    k = creation.arange(0, n // 2 + 1, dtype=dtype)       # (n - 1) // 2 + 1 for odd n
    result = k / creation.array(d * n, dtype=dtype)
    if device is not None:
        return result.to_device(device)
    return result


def _shifts(x, axes, sign: int):
    shape = aval_of(x).shape
    if axes is None:
        return [sign * (dim // 2) for dim in shape], tuple(range(len(shape)))
    if isinstance(axes, int):
        return sign * (shape[axes] // 2), axes
    return [sign * (shape[ax] // 2) for ax in axes], axes


def fftshift(x, axes=None):
    """`x` rolled so the zero frequency sits in the middle (along `axes`, all by default).

    >>> jnp.fft.fftshift(jnp.fft.fftfreq(5))
    Array([-0.4, -0.2,  0. ,  0.2,  0.4], dtype=float32)
    """
    x = ensure_arraylike("fftshift", x)
    shift, axes = _shifts(x, axes, 1)
    return manipulation.roll(x, shift, axes)


def ifftshift(x, axes=None):
    """The inverse of fftshift.

    >>> jnp.fft.ifftshift(jnp.fft.fftshift(jnp.arange(5)))
    Array([0, 1, 2, 3, 4], dtype=int32)
    """
    x = ensure_arraylike("ifftshift", x)
    shift, axes = _shifts(x, axes, -1)
    return manipulation.roll(x, shift, axes)
