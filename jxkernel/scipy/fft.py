"""jax.scipy.fft: the discrete cosine transform of type 2 (`dct`, `dctn`) and its inverse
(`idct`, `idctn`), with scipy's 'backward' and 'ortho' normalizations.

Each 1-d transform is one FFT of the same length (Makhoul, "A fast cosine transform in one
and two dimensions", 1980): the even-indexed samples followed by the odd-indexed ones
reversed, transformed, and each frequency k turned by exp(-i pi k / 2N). The n-d
transforms apply the 1-d one along each axis in turn.

    >>> dct(jnp.array([1., 2., 3., 4.]))
    Array([20.      , -6.308644,  0.      , -0.448342], dtype=float32)
"""
from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..core import dtypes
from ..numpy import fft as jnp_fft
from ..numpy.util import canonicalize_axis, ensure_arraylike, promote_dtypes_inexact

__all__ = ["dct", "dctn", "idct", "idctn"]


def _check(name, type, norm):
    if type != 2:
        raise NotImplementedError("Only DCT type 2 is implemented.")
    if norm is not None and norm not in ("backward", "ortho"):
        raise ValueError(f"jax.scipy.fft.{name}: {norm=!r} is not implemented")


def _resized(x, n, axis):
    """`x` cut or zero-padded to length `n` along `axis` (None: as it is)."""
    if n is None or n == x.shape[axis]:
        return x
    if n < x.shape[axis]:
        return lax.slice_in_dim(x, 0, n, axis=axis)
    pads = [(0, n - x.shape[axis] if a == axis else 0, 0) for a in range(x.ndim)]
    return lax.pad(x, np.zeros((), x.dtype), pads)


def _along(values, axis, ndim):
    """A 1-d array of per-index values, shaped to broadcast along `axis` of an ndim array."""
    return lax.expand_dims(values, [a for a in range(ndim) if a != axis])


def _ortho_scale(n, axis, ndim, dtype):
    """scipy's 'ortho' factors: sqrt(1 / 4n) for frequency 0, sqrt(1 / 2n) for the rest."""
    factor = np.full(n, 1 / np.sqrt(2 * n))
    factor[0] = 1 / np.sqrt(4 * n)
    return _along(jnp.asarray(factor.astype(dtype)), axis, ndim)


def _turn(n, axis, ndim, dtype, sign):
    """exp(sign * i pi k / 2n) for k = 0..n-1, along `axis` (dtype: the complex one)."""
    # k complex before the complex constant meets it: strict dtype promotion (JAX's tests
    # run under it) refuses a complex scalar times a float array, as JAX's _W4 avoids too
    k = jnp.arange(n, dtype=np.real(np.zeros((), dtype)).dtype).astype(dtype)
    return _along(jnp.exp(sign * 0.5j * np.pi * k / n).astype(dtype), axis, ndim)


def _interleaved(x, axis):
    """x0, x2, x4, ..., then the odd-indexed samples last to first."""
    evens = lax.slice_in_dim(x, 0, None, 2, axis)
    odds = lax.rev(lax.slice_in_dim(x, 1, None, 2, axis), (axis,))
    return lax.concatenate([evens, odds], axis)


def _deinterleaved(v, axis):
    """The inverse of `_interleaved`: the first ceil(n/2) values go to the even indices, the
    rest, reversed, to the odd ones."""
    n = v.shape[axis]
    evens = lax.slice_in_dim(v, 0, (n + 1) // 2, axis=axis)
    odds = lax.rev(lax.slice_in_dim(v, (n + 1) // 2, n, axis=axis), (axis,))
    if n % 2:                                      # one odd value fewer: pad it for the zip
        pads = [(0, 1 if a == axis else 0, 0) for a in range(v.ndim)]
        odds = lax.pad(odds, np.zeros((), v.dtype), pads)
    pairs = jnp.stack([evens, odds], axis=axis + 1)
    shape = list(v.shape)
    shape[axis] = 2 * evens.shape[axis]
    return lax.slice_in_dim(pairs.reshape(shape), 0, n, axis=axis)


def _complex_parts(fun, x, **kwargs):
    return lax.complex(fun(jnp.real(x), **kwargs), fun(jnp.imag(x), **kwargs))


def dct(x, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The type-2 DCT of `x` along `axis`: X_k = 2 sum_j x_j cos(pi k (2j + 1) / 2N), as
    scipy.fft.dct (`n`: cut or zero-pad to that length first; norm 'ortho': orthonormal).
    A complex `x` is transformed as its real and imaginary parts."""
    x = ensure_arraylike("dct", x)
    _check("dct", type, norm)
    if dtypes.is_complex(x.dtype):
        return _complex_parts(dct, x, n=n, axis=axis, norm=norm)
    axis = canonicalize_axis(axis, x.ndim)
    x = _resized(x, n, axis)
    size = x.shape[axis]
    spectrum = jnp_fft.fft(_interleaved(x, axis), axis=axis)
    out = 2 * jnp.real(spectrum * _turn(size, axis, x.ndim, spectrum.dtype, -1))
    return out * _ortho_scale(size, axis, x.ndim, out.dtype) if norm == "ortho" else out


def idct(x, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The inverse of `dct` along `axis` (scipy.fft.idct of type 2): `idct(dct(x)) == x`
    for either norm."""
    x = ensure_arraylike("idct", x)
    _check("idct", type, norm)
    if dtypes.is_complex(x.dtype):
        return _complex_parts(idct, x, n=n, axis=axis, norm=norm)
    axis = canonicalize_axis(axis, x.ndim)
    x, = promote_dtypes_inexact(_resized(x, n, axis))
    size = x.shape[axis]
    if norm == "ortho":
        x = x / _ortho_scale(size, axis, x.ndim, x.dtype)
    # The spectrum of the interleaved signal from its cosine coefficients (X_size = 0):
    # V_k = (X_k - i X_(size-k)) / 2 * exp(i pi k / 2 size), then one inverse FFT.
    mirrored = lax.concatenate([lax.slice_in_dim(x, 0, 1, axis=axis) * 0,
                                lax.rev(lax.slice_in_dim(x, 1, size, axis=axis), (axis,))],
                               axis)
    half = lax.complex(x, -mirrored) / 2
    spectrum = half * _turn(size, axis, x.ndim, half.dtype, 1)
    return _deinterleaved(jnp.real(jnp_fft.ifft(spectrum, axis=axis)), axis)


def _axes_and_sizes(x, s, axes):
    """(axes, sizes or None) of an n-d transform, by scipy's rules for `s` and `axes`."""
    if s is not None:
        s = [operator.index(s)] if not isinstance(s, Sequence) else list(s)
        if len(s) > x.ndim:
            raise ValueError(f"s must have at most x.ndim ({x.ndim}) elements, got {len(s)}")
    if axes is None:
        axes = range(x.ndim - len(s), x.ndim) if s is not None else range(x.ndim)
    axes = tuple(canonicalize_axis(a, x.ndim) for a in
                 (axes if isinstance(axes, (Sequence, range)) else (axes,)))
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis: {axes}")
    return axes, s


def _along_axes(name, transform, x, type, s, axes, norm):
    """`transform` (dct or idct) along each of `axes`, each first cut or padded to its size
    in `s`: the n-d transforms, by scipy's rules for `s` and `axes`."""
    x = ensure_arraylike(name, x)
    _check(name, type, norm)
    axes, s = _axes_and_sizes(x, s, axes)
    for i, axis in enumerate(axes):
        x = transform(x, n=None if s is None else s[i], axis=axis, norm=norm)
    return x


def dctn(x, type: int = 2, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None):
    """The type-2 DCT along each of `axes` (default: all; or the last len(s)), each first cut
    or padded to the length in `s`, as scipy.fft.dctn."""
    return _along_axes("dctn", dct, x, type, s, axes, norm)


def idctn(x, type: int = 2, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None):
    """The inverse of `dctn` (scipy.fft.idctn of type 2)."""
    return _along_axes("idctn", idct, x, type, s, axes, norm)
