"""Special matrices of jax.scipy.linalg (block_diag, toeplitz, hankel, circulant, leslie,
companion, fiedler, fiedler_companion, convolution_matrix, hilbert, invhilbert, pascal,
invpascal, helmert, hadamard, dft), built as JAX 0.10.2 builds them.

    >>> toeplitz(jnp.array([1, 2, 3]))
    Array([[1, 2, 3],
           [2, 1, 2],
           [3, 2, 1]], dtype=int32)
"""
from __future__ import annotations

import functools
import math
import operator

import numpy as np

from ..transforms.jit.namesakes import jax_jitted
from .. import lax
from .. import numpy as jnp
from ..core import dtypes
from ..core.dtypes import canonicalize_user_dtype
from ..numpy.util import check_arraylike, jnp_jit, promote_args_inexact, promote_dtypes
from .special import comb


@jax_jitted
@jnp_jit
def block_diag(*arrs):
    """The block-diagonal matrix of the (at most 2-D) arguments.

    >>> block_diag(jnp.ones((1, 1)), 2 * jnp.ones((2, 2)))
    Array([[1., 0., 0.],
           [0., 2., 2.],
           [0., 2., 2.]], dtype=float32)
    """
    if len(arrs) == 0:
        arrs = (jnp.zeros((1, 0)),)
    arrs = tuple(promote_dtypes(*arrs))
    bad = [i for i, a in enumerate(arrs) if np.ndim(a) > 2]
    if bad:
        raise ValueError(f"Arguments to jax.scipy.linalg.block_diag must have at most 2 "
                         f"dimensions, got {arrs[bad[0]]} at argument {bad[0]}.")
    mats = [jnp.atleast_2d(a) for a in arrs]
    dtype = mats[0].dtype
    total = sum(a.shape[1] for a in mats)
    rows, col = [], 0
    for a in mats:
        cols = a.shape[1]
        rows.append(lax.pad(a, dtype.type(0), ((0, 0, 0), (col, total - cols - col, 0))))
        col += cols
    return jnp.concatenate(rows, axis=0)


def _patches(v, width):
    """The sliding windows of v of length `width`, one per row (an exact identity
    convolution, as JAX extracts them)."""
    return lax.conv_general_dilated_patches(
        v.reshape((1, v.shape[0], 1)), (width,), (1,), "VALID",
        dimension_numbers=("NTC", "IOT", "NTC"), precision=lax.Precision.HIGHEST)[0]


def toeplitz(c, r=None):
    """The Toeplitz matrix with first column c and first row r (r defaults to conj(c); r[0]
    is ignored); leading dims batch.

    >>> toeplitz(jnp.array([1., 2.]), jnp.array([1., 5., 6.]))
    Array([[1., 5., 6.],
           [2., 1., 5.]], dtype=float32)
    """
    if r is None:
        check_arraylike("toeplitz", c)
        r = jnp.conjugate(jnp.asarray(c))
    else:
        check_arraylike("toeplitz", c, r)
    return _toeplitz(jnp.atleast_1d(jnp.asarray(c)), jnp.atleast_1d(jnp.asarray(r)))


@functools.partial(jnp.vectorize, signature="(m),(n)->(m,n)")
def _toeplitz(c, r):
    nrows, = c.shape
    ncols, = r.shape
    if nrows == 0 or ncols == 0:
        return jnp.empty((nrows, ncols), dtype=jnp.promote_types(c.dtype, r.dtype))
    return jnp.flip(_patches(jnp.concatenate((c[::-1], r[1:])), ncols), axis=0)


def hankel(c, r=None):
    """The Hankel matrix with first column c and last row r (zeros by default; r[0] is
    ignored); leading dims batch.

    >>> hankel(jnp.array([1, 2, 3]))
    Array([[1, 2, 3],
           [2, 3, 0],
           [3, 0, 0]], dtype=int32)
    """
    if r is None:
        check_arraylike("hankel", c)
        c = jnp.asarray(c)
        r = jnp.zeros_like(c)
    else:
        check_arraylike("hankel", c, r)
        c, r = jnp.asarray(c), jnp.asarray(r)
    if c.ndim == 0:
        raise ValueError("hankel: c must be at least 1-dimensional, got a scalar.")
    if r.ndim == 0:
        raise ValueError("hankel: r must be at least 1-dimensional, got a scalar.")
    if c.ndim < r.ndim:
        c = lax.expand_dims(c, range(r.ndim - c.ndim))
    elif r.ndim < c.ndim:
        r = lax.expand_dims(r, range(c.ndim - r.ndim))
    return _hankel(c, r)


@functools.partial(jnp.vectorize, signature="(m),(n)->(m,n)")
def _hankel(c, r):
    nrows, = c.shape
    ncols, = r.shape
    if nrows == 0 or ncols == 0:
        return jnp.empty((nrows, ncols), dtype=jnp.result_type(c, r))
    return _patches(jnp.concatenate((c, r[1:])), ncols)


def circulant(c):
    """The circulant matrix with first column c.

    >>> circulant(jnp.array([1, 2, 3]))
    Array([[1, 3, 2],
           [2, 1, 3],
           [3, 2, 1]], dtype=int32)
    """
    check_arraylike("circulant", c)
    return _circulant(jnp.atleast_1d(jnp.asarray(c)))


@functools.partial(jnp.vectorize, signature="(n)->(n,n)")
def _circulant(c):
    n, = c.shape
    return c[(jnp.arange(n)[:, None] - jnp.arange(n)[None, :]) % n]


def leslie(f, s):
    """The Leslie matrix: fecundities f on the first row, survival rates s below the
    diagonal."""
    check_arraylike("leslie", f, s)
    f, s = jnp.atleast_1d(f), jnp.atleast_1d(s)
    if f.shape[-1] < 2:
        raise ValueError(f"The length of f along the last axis must be at least 2; got shape "
                         f"{f.shape}.")
    if s.shape[-1] != f.shape[-1] - 1:
        raise ValueError(f"Incorrect lengths for f and s. The length of s along the last axis "
                         f"must be one less than the length of f; got f shape {f.shape} and "
                         f"s shape {s.shape}.")
    return _leslie(f, s)


@functools.partial(jnp.vectorize, signature="(n),(m)->(n,n)")
def _leslie(f, s):
    f, s = promote_dtypes(f, s)
    return jnp.diag(s, k=-1).at[0].set(f)


def companion(a):
    """The companion matrix of the polynomial with coefficients a (highest first).

    >>> companion(jnp.array([1., -3., 2.]))
    Array([[ 3., -2.],
           [ 1.,  0.]], dtype=float32)
    """
    a, = promote_args_inexact("companion", a)
    a = jnp.atleast_1d(a)
    if a.shape[-1] < 2:
        raise ValueError(f"The length of `a` along the last axis must be at least 2; got shape "
                         f"{a.shape}.")
    return _companion(a)


@functools.partial(jnp.vectorize, signature="(n)->(m,m)")
def _companion(a):
    first_row = -a[1:] / a[0]
    m = a.shape[0] - 1
    return jnp.eye(m, m, k=-1, dtype=first_row.dtype).at[0].set(first_row)


def fiedler(a):
    """The symmetric Fiedler matrix |a_i - a_j|."""
    check_arraylike("fiedler", a)
    a = jnp.atleast_1d(a)
    return jnp.abs(a[..., None] - a[..., None, :])


def fiedler_companion(a):
    """The Fiedler companion matrix (pentadiagonal, same eigenvalues as companion(a))."""
    a, = promote_args_inexact("fiedler_companion", a)
    a = jnp.atleast_1d(a)
    if a.shape[-1] == 0:
        raise ValueError(f"fiedler_companion requires the last axis of 'a' to have nonzero "
                         f"length, but got an array of shape {a.shape}.")
    return _fiedler_companion(a)


@functools.partial(jnp.vectorize, signature="(n)->(m,m)")
def _fiedler_companion(a):
    n = a.shape[0] - 1
    if n == 0:
        return jnp.empty_like(a, shape=(0, 0))
    a = a / a[0]
    if n == 1:
        return -a[1:].reshape(1, 1)
    i, j = jnp.arange(n)[:, None], jnp.arange(n)[None, :]
    even, odd = i % 2 == 0, i % 2 == 1
    one, zero = jnp.array(1, dtype=a.dtype), jnp.array(0, dtype=a.dtype)
    conditions = [(i == 0) & (j == 0), (i == 1) & (j == 0), (j == i + 1) & even,
                  (j == i + 2) & even, (j == i - 1) & even & (i >= 2),
                  (j == i - 2) & odd & (i >= 3)]
    choices = [-a[1], one, -a[jnp.minimum(i + 2, n)], one, -a[jnp.minimum(i + 1, n)], one]
    return jnp.select(conditions, choices, default=zero)


@jax_jitted
@jnp_jit(static_argnames=("n", "mode"))
def convolution_matrix(a, n: int, mode: str = "full"):
    """The Toeplitz matrix A with A @ v == jnp.convolve(a, v, mode) for len(v) == n.

    >>> convolution_matrix(jnp.array([1., 2.]), 2)
    Array([[1., 0.],
           [2., 1.],
           [0., 2.]], dtype=float32)
    """
    n = operator.index(n)
    if n <= 0:
        raise ValueError(f"n must be a positive integer; got {n}.")
    check_arraylike("convolution_matrix", a)
    a = jnp.asarray(a)
    if a.ndim == 0:
        raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
    m = a.shape[-1]
    if m < 1:
        raise ValueError(f"len(a) must be at least 1; got shape {a.shape}.")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    pads = [(0, 0)] * (a.ndim - 1) + [(0, n - 1)]
    az, raz = jnp.pad(a, pads), jnp.pad(jnp.flip(a, axis=-1), pads)
    length = m + n - 1
    if mode == "same":
        trim = min(n, m) - 1
        tb, te = trim // 2, trim - trim // 2
    elif mode == "valid":
        tb = te = min(n, m) - 1
    else:
        tb = te = 0
    return toeplitz(lax.slice_in_dim(az, tb, length - te, axis=-1),
                    lax.slice_in_dim(raz, length - n - tb, length - tb, axis=-1))


@jax_jitted
@jnp_jit(static_argnames=("n",))
def hilbert(n: int):
    """The Hilbert matrix 1 / (i + j + 1) (float32 even under x64, as JAX).

    >>> hilbert(2)
    Array([[1.        , 0.5       ],
           [0.5       , 0.33333334]], dtype=float32)
    """
    a = lax.broadcasted_iota(float, (n, 1), 0)
    return 1 / (a + a.T + 1)


@jax_jitted
@jnp_jit(static_argnames=("n",))
def invhilbert(n: int):
    """The inverse of hilbert(n), from its closed form in binomial coefficients."""
    a = jnp.arange(n, dtype=dtypes.default_float_dtype())
    i, j = a[:, None], a[None, :]
    s = i + j
    return ((-1.0) ** s * (s + 1.0) * comb(n + i, n - j - 1) * comb(n + j, n - i - 1)
            * comb(s, i) ** 2)


def _binom(n, k):
    return lax.exp(lax.lgamma(n + 1.0) - lax.lgamma(n - k + 1.0) - lax.lgamma(k + 1.0))


def _pascal_kind(kind, one: str = "one"):
    """`kind` checked; `one` is the word JAX's message has there (pascal's reads "on of")."""
    kind = "symmetric" if kind is None else kind
    valid = ["symmetric", "lower", "upper"]
    if kind not in valid:
        raise ValueError(f"Expected kind to be {one} of: {valid}; got {kind}")
    return kind


@jax_jitted
@jnp_jit(static_argnames=("n", "kind"))
def pascal(n: int, kind: str | None = None):
    """The Pascal matrix (binomial coefficients, float32): 'symmetric' (default), 'lower'
    or 'upper'.

    >>> pascal(3, kind="lower")
    Array([[0.9999995, 0.       , 0.       ],
           [0.9999995, 0.9999995, 0.       ],
           [0.9999995, 2.0000005, 0.9999995]], dtype=float32)
    """
    kind = _pascal_kind(kind, one="on")
    a = jnp.arange(n, dtype=np.float32)
    low = _binom(a[:, None], a[None, :])
    return low if kind == "lower" else low.T if kind == "upper" else jnp.dot(low, low.T)


@jax_jitted
@jnp_jit(static_argnames=("n", "kind"))
def invpascal(n: int, kind: str | None = None):
    """The inverse of pascal(n, kind)."""
    kind = _pascal_kind(kind)
    a = jnp.arange(n, dtype=dtypes.default_float_dtype())
    i, j = a[:, None], a[None, :]
    low_inv = (-1.0) ** (i - j) * _binom(i, j)
    return (low_inv if kind == "lower" else low_inv.T if kind == "upper"
            else jnp.dot(low_inv.T, low_inv))


@jax_jitted
@jnp_jit(static_argnames=("n", "full"))
def helmert(n: int, full: bool = False):
    """The Helmert matrix ((n - 1, n), or (n, n) with full=True: orthogonal)."""
    if n < 1:
        raise ValueError(f"n must be a positive integer; got {n}.")
    i, j = jnp.arange(n - 1)[:, None], jnp.arange(n)[None, :]
    k = (i + 1).astype(dtypes.default_float_dtype())
    denom = jnp.sqrt(k * (k + 1))
    H = jnp.where(j <= i, 1.0 / denom, jnp.where(j == i + 1, -k / denom, jnp.zeros_like(denom)))
    if full:
        H = jnp.concatenate([jnp.full((1, n), 1.0 / jnp.sqrt(n), dtype=H.dtype), H], axis=0)
    return H


@jax_jitted
@jnp_jit(static_argnames=("n", "dtype"))
def hadamard(n: int, dtype=int):
    """The Sylvester Hadamard matrix of order n (a power of 2).

    >>> hadamard(2)
    Array([[ 1,  1],
           [ 1, -1]], dtype=int32)
    """
    if n < 1 or not math.log2(n).is_integer():
        raise ValueError(f"n must be a positive power of 2; got {n}.")
    H = jnp.ones((1, 1), dtype=dtype)
    for _ in range(int(math.log2(n))):
        H = jnp.block([[H, H], [H, -H]])
    return H


@jax_jitted
@jnp_jit(static_argnames=("n", "scale", "dtype"))
def dft(n: int, scale: str | None = None, *, dtype=None):
    """The discrete Fourier transform matrix exp(-2 pi i jk / n), scaled by 1/sqrt(n)
    ('sqrtn') or 1/n ('n')."""
    if scale is not None and scale not in ("sqrtn", "n"):
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    if dtype is None:
        dtype = dtypes.default_complex_dtype()
    else:
        dtype = canonicalize_user_dtype(dtype, "dft")
        if not dtypes.issubdtype(dtype, np.complexfloating):
            raise ValueError(f"dtype must be a complex floating-point type; got {dtype}.")
    a = jnp.arange(n, dtype=dtype)
    omegas = jnp.exp(-2j * np.pi * a[:, None] * a[None, :] / n)
    if scale == "sqrtn":
        return omegas / jnp.sqrt(n)
    return omegas / n if scale == "n" else omegas
