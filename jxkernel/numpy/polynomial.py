"""Polynomials as coefficient arrays, highest power first (NumPy's `poly1d` convention):
vander, polyval, polyadd, polysub, polymul, polydiv, polyder, polyint, polyfit, and roots
(the eigenvalues of the companion matrix, JAX's algorithm, so in LAPACK's order).

    >>> jnp.polyval(jnp.array([1., 0., -1.]), 3.)     # x**2 - 1 at 3
    Array(8., dtype=float32)
    >>> jnp.polyder(jnp.array([1., 0., -1.]))
    Array([2., 0.], dtype=float32)
"""
from __future__ import annotations

import operator

import numpy as np

from ..transforms.jit.namesakes import jax_jitted
from .. import lax
from ..core import dtypes as _core_dtypes
from ..core.errors import ConcretizationTypeError
from ..core.trace import Tracer
from . import linalg, ufuncs, util
from .convolution import convolve
from .creation import _concrete, arange, array, full, ones, zeros
from .dtypes import finfo
from .editing import trim_zeros, trim_zeros_tol
from .index_tricks import diag
from .manipulation import atleast_1d, concatenate, roll
from .products import dot, outer
from .reductions import all as _all
from .reductions import argmin
from .util import _where, aval_of, ensure_arraylike, jnp_jit, promote_dtypes_inexact

__all__ = ["poly", "vander", "polyval", "polyadd", "polysub", "polymul", "polydiv", "polyder",
           "polyint", "polyfit", "roots"]


def _static_index(x, what: str) -> int:
    return operator.index(_concrete(x, what))


@jax_jitted
@jnp_jit
def poly(seq_of_zeros):
    """The coefficients of the monic polynomial with the given roots (or with a square
    matrix's eigenvalues as roots), built by convolving (1, -root) factors, as JAX does.

    >>> jnp.poly(jnp.array([1., 2., 3.]))
    Array([ 1., -6., 11., -6.], dtype=float32)
    """
    zeros, = util.promote_dtypes_inexact(ensure_arraylike("poly", seq_of_zeros))
    zeros = atleast_1d(zeros)
    shape = aval_of(zeros).shape
    if len(shape) == 2 and shape[0] == shape[1] and shape[0] != 0:
        zeros = linalg.eigvals(zeros)
    if len(aval_of(zeros).shape) != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    dtype = aval_of(zeros).dtype
    if aval_of(zeros).shape[0] == 0:
        return ones((), dtype=dtype)
    coefficients = ones((1,), dtype=dtype)
    for k in range(aval_of(zeros).shape[0]):
        coefficients = convolve(coefficients, array([1, -zeros[k]], dtype=dtype), mode="full")
    return coefficients


@jax_jitted(static_argnames=("N", "increasing"))
def vander(x, N: int | None = None, increasing: bool = False):
    """The Vandermonde matrix of `x`: column j is x**(N-1-j) (x**j if increasing).

    >>> jnp.vander(jnp.array([1, 2, 3]), 3)
    Array([[1, 1, 1],
           [4, 2, 1],
           [9, 3, 1]], dtype=int32)
    """
    x = ensure_arraylike("vander", x)
    if aval_of(x).ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    N = aval_of(x).shape[0] if N is None else _static_index(N, "It arose in the 'N' "
                                                               "argument of jnp.vander()")
    if N < 0:
        raise ValueError("N must be nonnegative")
    powers = lax.iota(aval_of(x).dtype, N)
    if not increasing:
        powers = lax.sub(util.const(powers, N - 1), powers)
    return ufuncs.power(x[..., None], powers[None, :])


@jax_jitted
@jnp_jit(static_argnames=("unroll",))
def polyval(p, x, *, unroll: int = 16):
    """The polynomial with coefficients `p` (highest power first) at `x`, by Horner's rule
    (a scan over the leading axis of `p`).

    >>> jnp.polyval(jnp.array([2, 0, 1]), jnp.array([0, 1, 2]))
    Array([1, 3, 9], dtype=int32)
    """
    p, x = util.promote_dtypes(*ensure_arraylike("polyval", p, x))
    shape = util.broadcast_shapes(aval_of(p).shape[1:], aval_of(x).shape)
    y = util.full(shape, 0, aval_of(x).dtype, weak_type=False)   # strong, as JAX's
    y, _ = lax.scan(lambda acc, c: (acc * x + c, None), y, p, unroll=unroll)
    return y


@jax_jitted
@jnp_jit
def polyadd(a1, a2):
    """The sum of two polynomials (the shorter one aligned to the low-order end).

    >>> jnp.polyadd(jnp.array([1, 2]), jnp.array([1, 0, 0]))
    Array([1, 1, 2], dtype=int32)
    """
    a1, a2 = util.promote_dtypes(*ensure_arraylike("polyadd", a1, a2))
    n1, n2 = aval_of(a1).shape[0], aval_of(a2).shape[0]
    if n2 <= n1:
        return a1.at[-n2:].add(a2)
    return a2.at[-n1:].add(a1)


@jax_jitted
@jnp_jit
def polysub(a1, a2):
    """The difference of two polynomials.

    >>> jnp.polysub(jnp.array([1, 2]), jnp.array([1, 0, 0]))
    Array([-1,  1,  2], dtype=int32)
    """
    a1, a2 = util.promote_dtypes(*ensure_arraylike("polysub", a1, a2))
    return polyadd(a1, -a2)


def polymul(a1, a2, *, trim_leading_zeros: bool = False):
    """The product of two polynomials (a full convolution of the coefficients).

    >>> jnp.polymul(jnp.array([1., 1.]), jnp.array([1., -1.]))
    Array([ 1.,  0., -1.], dtype=float32)
    """
    a1, a2 = util.promote_dtypes_inexact(*ensure_arraylike("polymul", a1, a2))
    if trim_leading_zeros and (aval_of(a1).shape[0] > 1 or aval_of(a2).shape[0] > 1):
        a1, a2 = trim_zeros(a1, trim="f"), trim_zeros(a2, trim="f")
    if aval_of(a1).shape[0] == 0:
        a1 = zeros(1, dtype=aval_of(a2).dtype)
    if aval_of(a2).shape[0] == 0:
        a2 = zeros(1, dtype=aval_of(a1).dtype)
    return convolve(a1, a2, mode="full")


def polydiv(u, v, *, trim_leading_zeros: bool = False):
    """(quotient, remainder) of polynomial long division of `u` by `v`.

    >>> jnp.polydiv(jnp.array([1., 0., -1.]), jnp.array([1., 1.]))
    (Array([ 1., -1.], dtype=float32), Array([0., 0., 0.], dtype=float32))
    """
    u, v = util.promote_dtypes_inexact(*ensure_arraylike("polydiv", u, v))
    m, n = aval_of(u).shape[0] - 1, aval_of(v).shape[0] - 1
    scale = 1. / v[0]
    q = zeros(max(m - n + 1, 1), dtype=aval_of(u).dtype)
    for k in range(m - n + 1):
        d = scale * u[k]
        q = q.at[k].set(d)
        u = u.at[k:k + n + 1].add(-d * v)
    if trim_leading_zeros:    # NumPy's tolerance, approximately: sqrt(eps)
        u = trim_zeros_tol(u, tol=ufuncs.sqrt(finfo(aval_of(u).dtype).eps), trim="f")
    return q, u


@jax_jitted
@jnp_jit(static_argnames=("m",))
def polyder(p, m: int = 1):
    """The m-th derivative of the polynomial `p`.

    >>> jnp.polyder(jnp.array([1., 1., 1., 1.]), 2)
    Array([6., 2.], dtype=float32)
    """
    p = ensure_arraylike("polyder", p)
    m = _static_index(m, "It arose in the 'm' argument of jnp.polyder")
    p, = util.promote_dtypes_inexact(p)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return p
    dt, n = aval_of(p).dtype, aval_of(p).shape[0]
    # the coefficient of x**k gains the falling factorial k (k-1) ... (k-m+1)
    falling = (arange(m, n, dtype=dt)[None] - arange(m, dtype=dt)[:, None]).prod(0)
    return p[:-m] * falling[::-1]


@jax_jitted
@jnp_jit(static_argnames=("m",))
def polyint(p, m: int = 1, k=None):
    """The m-th antiderivative of `p`, with integration constants `k` (scalar or m of
    them, the first for the first integration).

    >>> jnp.polyint(jnp.array([3., 2., 1.]))
    Array([1., 1., 1., 0.], dtype=float32)
    """
    m = _static_index(m, "It arose in the 'm' argument of jnp.polyint")
    p, k = util.promote_dtypes_inexact(*ensure_arraylike("polyint", p, 0 if k is None else k))
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k = atleast_1d(k)
    if aval_of(k).shape[0] == 1:
        k = full((m,), k[0])
    if aval_of(k).shape != (m,):
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return p
    dt, n = aval_of(p).dtype, aval_of(p).shape[0]
    grid = arange(n + m, dtype=dt)[None] - arange(m, dtype=dt)[:, None]
    rising = ufuncs.maximum(1, grid).prod(0)[::-1]
    return ufuncs.true_divide(concatenate((p, k)), rising)


@jax_jitted
@jnp_jit(static_argnames=("deg", "rcond", "full", "cov"))
def polyfit(x, y, deg: int, rcond: float | None = None, full: bool = False, w=None,
            cov: bool = False):
    """Least-squares polynomial fit of degree `deg` to the points (x, y) (y may hold
    several columns), optionally weighted; `full` adds the lstsq diagnostics, `cov` the
    covariance of the coefficients.

    >>> jnp.polyfit(jnp.array([0., 1., 2.]), jnp.array([1., 3., 5.]), 1).round(4)
    Array([2., 1.], dtype=float32)
    """
    if w is None:
        x, y = ensure_arraylike("polyfit", x, y)
    else:
        x, y, w = ensure_arraylike("polyfit", x, y, w)
    deg = int(_concrete(deg, "deg must be int"))
    order = deg + 1
    if deg < 0:
        raise ValueError("expected deg >= 0")
    xs, ys = aval_of(x).shape, aval_of(y).shape
    if len(xs) != 1:
        raise TypeError("expected 1D vector for x")
    if xs[0] == 0:
        raise TypeError("expected non-empty vector for x")
    if not 1 <= len(ys) <= 2:
        raise TypeError("expected 1D or 2D array for y")
    if xs[0] != ys[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = xs[0] * float(finfo(aval_of(x).dtype).eps)
    rcond = float(_concrete(rcond, "rcond must be float"))
    lhs, rhs = vander(x, order), y
    if w is not None:
        w, = util.promote_dtypes_inexact(w)
        if aval_of(w).ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if aval_of(w).shape[0] != ys[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * w[:, None]
        rhs = rhs * (w[:, None] if len(ys) == 2 else w)
    scale = ufuncs.sqrt((lhs * lhs).sum(axis=0))     # unit columns: better conditioned
    lhs = lhs / scale[None, :]
    c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = (c.T / scale[None, :]).T if c.ndim > 1 else c / scale
    if full:
        return c, resids, rank, s, util.ensure_array(rcond)    # weakly typed, as JAX
    if not cov:
        return c
    vbase = linalg.inv(dot(lhs.T, lhs)) / outer(scale, scale)
    if cov == "unscaled":
        fac = array(1.0)
    else:
        if xs[0] <= order:
            raise ValueError("the number of data points must exceed order to scale the "
                             "covariance matrix")
        fac = resids / (xs[0] - order)
    if len(ys) == 1:
        return c, vbase * atleast_1d(fac)[None]
    return c, vbase[:, :, None] * atleast_1d(fac)[None, None, :]


@jnp_jit
def _roots_no_zeros(p):
    # the companion matrix: ones below the diagonal, -p[1:] / p[0] in the first row
    if p.size < 2:
        return array([], dtype=_core_dtypes.to_complex_dtype(p.dtype))
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
        return array([], dtype=_core_dtypes.to_complex_dtype(p.dtype))
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
