"""Window functions for spectral analysis: bartlett, blackman, hamming, hanning, kaiser.
Each returns M points in the default float dtype (M <= 1 gives ones), as JAX's.

    >>> jnp.hanning(5)
    Array([0. , 0.5, 1. , 0.5, 0. ], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from .. import lax
from ..core import dtypes
from . import ufuncs
from .creation import _concrete

__all__ = ["bartlett", "blackman", "hamming", "hanning", "kaiser"]


def _points(M, name: str):
    """(M as an int, the float positions 0..M-1, or None with a window of ones for M <= 1)."""
    M = int(_concrete(M, f"M argument of jnp.{name}"))
    dtype = dtypes.default_float_dtype()
    if M <= 1:
        return M, None, lax.full((M,), 1, dtype)
    return M, lax.iota(dtype, M), None


def bartlett(M: int):
    """The triangular window.

    >>> jnp.bartlett(5)
    Array([0. , 0.5, 1. , 0.5, 0. ], dtype=float32)
    """
    M, n, ones = _points(M, "bartlett")
    if n is None:
        return ones
    return 1 - ufuncs.abs(2 * n + 1 - M) / (M - 1)


def blackman(M: int):
    """The Blackman window (three cosine terms).

    >>> jnp.blackman(3).round(4)
    Array([-0.,  1., -0.], dtype=float32)
    """
    M, n, ones = _points(M, "blackman")
    if n is None:
        return ones
    return (0.42 - 0.5 * ufuncs.cos(2 * np.pi * n / (M - 1))
            + 0.08 * ufuncs.cos(4 * np.pi * n / (M - 1)))


def hamming(M: int):
    """The Hamming window.

    >>> jnp.hamming(3).round(2)
    Array([0.08, 1.  , 0.08], dtype=float32)
    """
    M, n, ones = _points(M, "hamming")
    if n is None:
        return ones
    return 0.54 - 0.46 * ufuncs.cos(2 * np.pi * n / (M - 1))


def hanning(M: int):
    """The Hann window.

    >>> jnp.hanning(3)
    Array([0., 1., 0.], dtype=float32)
    """
    M, n, ones = _points(M, "hanning")
    if n is None:
        return ones
    return 0.5 * (1 - ufuncs.cos(2 * np.pi * n / (M - 1)))


def kaiser(M: int, beta):
    """The Kaiser window with shape parameter `beta` (a ratio of Bessel functions i0).

    >>> jnp.kaiser(3, 0.)
    Array([1., 1., 1.], dtype=float32)
    """
    M, n, ones = _points(M, "kaiser")
    if n is None:
        return ones
    alpha = 0.5 * (M - 1)
    return ufuncs.i0(beta * ufuncs.sqrt(1 - ((n - alpha) / alpha) ** 2)) / ufuncs.i0(beta)
