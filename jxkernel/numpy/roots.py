"""jnp.roots: a polynomial's roots as the eigenvalues of its companion matrix (JAX's algorithm,
so the roots come in LAPACK's order, as complex numbers).

    >>> jnp.roots(jnp.array([1., -3., 2.]))
    Array([2.+0.j, 1.+0.j], dtype=complex64)
"""
from __future__ import annotations

import numpy as np

from .. import lax
from ..core.errors import ConcretizationTypeError
from ..core.trace import Tracer
from . import linalg
from .creation import arange, array, ones
from .manipulation import atleast_1d, diag, roll
from .reductions import all as _all, argmin
from .util import _where, ensure_arraylike, jnp_jit, promote_dtypes_inexact

__all__ = ["roots"]


def _complex_dtype(dtype):
    wide = np.dtype(dtype) in (np.dtype(np.float64), np.dtype(np.complex128))
    return np.complex128 if wide else np.complex64


@jnp_jit
def _roots_no_zeros(p):
    # the companion matrix: ones below the diagonal, -p[1:] / p[0] in the first row
    if p.size < 2:
        return array([], dtype=_complex_dtype(p.dtype))
    a = diag(ones((p.size - 2,), p.dtype), -1)
    a = a.at[0, :].set(-p[1:] / p[0])
    return linalg.eigvals(a)


@jnp_jit
def _roots_with_zeros(p, num_leading_zeros):
    # an all-zero p would make LAPACK fail: any nonzero p does, its roots are all NaN below
    p = _where(len(p) == num_leading_zeros, 1.0, p)
    # the leading zeros rolled to the end are extra roots at 0: sort zero roots last, then
    # NaN the last num_leading_zeros of them
    found = _roots_no_zeros(roll(p, -num_leading_zeros))
    found = lax.sort_key_val(found == 0, found)[1]
    return _where(arange(found.size) < found.size - num_leading_zeros, found,
                  complex(np.nan, np.nan))


def roots(p, *, strip_zeros: bool = True):
    """The roots of the polynomial p[0] x^(n-1) + ... + p[n-1], complex, in LAPACK's order.
    Leading zeros are stripped (as NumPy does), which needs a concrete p; under jit pass
    strip_zeros=False, which gives NaN for the roots the leading zeros stand for.

    >>> jnp.roots(jnp.array([0., 1., 2.]), strip_zeros=False)
    Array([-2. +0.j,  nan+nanj], dtype=complex64)
    """
    p = ensure_arraylike("roots", p)
    p, = promote_dtypes_inexact(p)
    p = atleast_1d(p)
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    if p.size < 2:
        return array([], dtype=_complex_dtype(p.dtype))
    num_leading_zeros = _where(_all(p == 0), len(p), argmin(p == 0))
    if strip_zeros:
        if isinstance(num_leading_zeros, Tracer):
            value = num_leading_zeros.to_concrete_value()
            if value is None:
                raise ConcretizationTypeError(
                    num_leading_zeros,
                    "The error occurred in the jnp.roots() function. To use this within a "
                    "JIT-compiled context, pass strip_zeros=False, but be aware that leading "
                    "zeros will result in some returned roots being set to NaN.\n")
            num_leading_zeros = value
        return _roots_no_zeros(p[int(num_leading_zeros):])
    return _roots_with_zeros(p, num_leading_zeros)
