"""jnp.linalg: NumPy's linear algebra on lax.linalg's LAPACK primitives, with JAX's algorithms
and derivatives (det and slogdet through an LU and JAX's custom JVPs, pinv with JAX's JVP,
lstsq through an SVD, norms as JAX computes them).

    >>> jnp.linalg.solve(jnp.array([[2., 0.], [0., 4.]]), jnp.array([2., 2.]))
    Array([1. , 0.5], dtype=float32)
    >>> jnp.linalg.det(jnp.array([[1., 2.], [3., 4.]]))
    Array(-2., dtype=float32)

`solve` is JAX's: a custom_linear_solve whose solves reuse the LU factors of
stop_gradient(a), so that it differentiates implicitly at the solution (dx = solve(a, db - da x)).
"""
from __future__ import annotations

import functools
import itertools
import math
import operator
from typing import NamedTuple

import numpy as np

from .. import lax
from ..core import dtypes
from ..lax import linalg as lax_linalg
from ..transforms.custom_derivatives import custom_jvp
from ..transforms.batching import vmap
from ..transforms.jit.namesakes import jax_jitted
from .functional import vectorize
from . import creation, index_tricks, manipulation, products, reductions, ufuncs, util
from .util import ensure_arraylike, jnp_jit, promote_dtypes_inexact

__all__ = ["cholesky", "cond", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv",
           "lstsq", "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose",
           "multi_dot", "norm", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals",
           "tensordot", "tensorinv", "tensorsolve", "trace", "vecdot", "vector_norm",
           "EighResult", "QRResult", "SlogdetResult", "SVDResult"]


class EighResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class QRResult(NamedTuple):
    Q: object
    R: object


class SlogdetResult(NamedTuple):
    sign: object
    logabsdet: object


class SVDResult(NamedTuple):
    U: object
    S: object
    Vh: object


def _H(x):
    return ufuncs.conjugate(products.matrix_transpose(x))


def _symmetrize(x):
    return (x + _H(x)) / 2


def _hi(a, b):
    return products.matmul(a, b, precision=lax.Precision.HIGHEST)


# ------------------------------------------------------------------ factorizations
@jax_jitted
@jnp_jit(static_argnames=("upper", "symmetrize_input"))
def cholesky(a, *, upper: bool = False, symmetrize_input: bool = True):
    """The Cholesky factor L (a = L @ L^H) of Hermitian positive-definite a, or U = L^H with
    upper=True; NaN where a is not positive definite.

    >>> jnp.linalg.cholesky(jnp.array([[4., 2.], [2., 5.]]))
    Array([[2., 0.],
           [1., 2.]], dtype=float32)
    """
    a = ensure_arraylike("jnp.linalg.cholesky", a)
    a, = promote_dtypes_inexact(a)
    L = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return _H(L) if upper else L


@jax_jitted
@jnp_jit(static_argnames=("mode",))
def qr(a, mode: str = "reduced"):
    """QR decomposition: (Q, R) for mode 'reduced' (default) or 'complete', R for 'r', and
    LAPACK's (reflectors^T, taus) for 'raw'.

    >>> q, r = jnp.linalg.qr(jnp.array([[3., 1.], [4., 2.]]))
    """
    a = ensure_arraylike("jnp.linalg.qr", a)
    a, = promote_dtypes_inexact(a)
    if mode == "raw":
        a, taus = lax_linalg.geqrf(a)
        return QRResult(a.mT, taus)
    if mode in ("reduced", "r", "full"):
        full_matrices = False
    elif mode == "complete":
        full_matrices = True
    else:
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = lax_linalg.qr(a, pivoting=False, full_matrices=full_matrices)
    return r if mode == "r" else QRResult(q, r)


@jax_jitted
@jnp_jit(static_argnames=("UPLO", "symmetrize_input"))
def eigh(a, UPLO: str | None = None, symmetrize_input: bool = True):
    """Eigenvalues (ascending) and eigenvectors (columns) of a Hermitian matrix.

    >>> jnp.linalg.eigh(jnp.array([[2., 1.], [1., 2.]])).eigenvalues
    Array([1., 3.], dtype=float32)
    """
    a = ensure_arraylike("jnp.linalg.eigh", a)
    if UPLO is None or UPLO == "L":
        lower = True
    elif UPLO == "U":
        lower = False
    else:
        raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
    a, = promote_dtypes_inexact(a)
    v, w = lax_linalg.eigh(a, lower=lower, symmetrize_input=symmetrize_input)
    return EighResult(w, v)


@jax_jitted
@jnp_jit(static_argnames=("UPLO", "symmetrize_input"))
def eigvalsh(a, UPLO: str | None = "L", *, symmetrize_input: bool = True):
    """The eigenvalues (ascending) of a Hermitian matrix.

    >>> jnp.linalg.eigvalsh(jnp.array([[2., 1.], [1., 2.]]))
    Array([1., 3.], dtype=float32)
    """
    a = ensure_arraylike("jnp.linalg.eigvalsh", a)
    a, = promote_dtypes_inexact(a)
    return eigh(a, UPLO, symmetrize_input=symmetrize_input)[0]


@jax_jitted
@jnp_jit(static_argnames=("full_matrices", "compute_uv", "hermitian", "subset_by_index"))
def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index=None):
    """Singular value decomposition a = U @ diag(S) @ Vh (S descending), or S alone.

    >>> jnp.linalg.svd(jnp.array([[3., 0.], [0., 4.]]), compute_uv=False)
    Array([4., 3.], dtype=float32)
    """
    a = ensure_arraylike("jnp.linalg.svd", a)
    a, = promote_dtypes_inexact(a)
    if hermitian:
        # from the eigendecomposition: singular values are |eigenvalues|, sorted descending
        w, v = lax_linalg.eigh(a, subset_by_index=subset_by_index)
        s = ufuncs.abs(v)
        last = s.ndim - 1
        if compute_uv:
            sign = ufuncs.sign(v)
            idxs = lax.broadcasted_iota(np.int32, s.shape, last)
            s, idxs, sign = lax.sort((s, idxs, sign), dimension=-1, num_keys=1)
            s, idxs, sign = (lax.rev(t, (last,)) for t in (s, idxs, sign))
            u = index_tricks.take_along_axis(w, idxs[..., None, :], axis=-1)
            return SVDResult(u, s, _H(u * sign[..., None, :].astype(u.dtype)))
        return lax.rev(lax.sort(s, dimension=-1), (last,))
    if compute_uv:
        return SVDResult(*lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=True,
                                         subset_by_index=subset_by_index))
    return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=False,
                          subset_by_index=subset_by_index)


def svdvals(x, /):
    """The singular values of x (descending).  ``svdvals(jnp.eye(2))`` is [1., 1.]."""
    x = ensure_arraylike("jnp.linalg.svdvals", x)
    return svd(x, compute_uv=False, hermitian=False)


# ------------------------------------------------------------------ solve, inv
def _lu_solve_ab(a, b):
    """x with a @ x = b, a [..., m, m] and b [..., m, k] with equal batch dims (one LU)."""
    lu, _, permutation = lax_linalg.lu(a)
    return lax_linalg.lu_solve(lu, permutation, b)


@jax_jitted
@jnp_jit
def solve(a, b):
    """x with a @ x = b for square a (..., n, n) and b (..., n, k), or b (n,) a vector;
    leading dims broadcast.

    >>> jnp.linalg.solve(jnp.array([[2., 0.], [0., 4.]]), jnp.array([2., 2.]))
    Array([1. , 0.5], dtype=float32)
    """
    a, b = ensure_arraylike("jnp.linalg.solve", a, b)
    a, b = promote_dtypes_inexact(a, b)
    if a.ndim < 2:
        raise ValueError(f"left hand array must be at least two dimensional; got "
                         f"a.shape={a.shape}")
    if b.ndim > 1 and a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1] and \
            a.shape[-1] != b.shape[-2]:
        raise ValueError(f"Invalid shapes for solve: {a.shape}, {b.shape}. Prior to JAX "
                         f"v0.5.0, this would have been treated as a batched 1-dimensional "
                         f"solve. To recover this behavior, use solve(a, b[..., None])"
                         f".squeeze(-1).")
    # as JAX 0.10.2 builds it: jnp.vectorize over a custom_linear_solve whose solves reuse the
    # LU factors of stop_gradient(a) (`jit[name=_lu_solve]`, trans 0 and 1), so that
    # make_jaxpr prints JAX's equations and derivatives are further solves
    signature = "(m,m),(m)->(m)" if b.ndim == 1 else "(m,m),(m,n)->(m,n)"
    return vectorize(_solve_core, signature=signature)(a, b)


def _solve_core(a, b):
    """JAX's lax.linalg._solve."""
    if not (a.ndim >= 2 and b.ndim in (a.ndim, a.ndim - 1) and
            a.shape[-1] == a.shape[-2] == b.shape[a.ndim - 2]):
        raise ValueError(f"The arguments to solve must have shapes a=[..., m, m] and "
                         f"b=[..., m, k] or b=[..., m]; got a={a.shape} and b={b.shape}")
    out_shape = tuple(d_a if d_b == 1 else d_b
                      for d_a, d_b in zip(a.shape[:-1] + (1,), b.shape))
    if out_shape != b.shape:       # (JAX's broadcast_in_dim to b's own shape stages nothing)
        b = lax.broadcast_in_dim(b, out_shape, tuple(range(b.ndim)))
    lu_, _, permutation = lax_linalg.lu(lax.stop_gradient(a))
    custom_solve = functools.partial(
        lax.custom_linear_solve, lambda x: _broadcasted_matvec(a, x),
        solve=lambda _, x: _lu_solve(lu_, permutation, x, 0),
        transpose_solve=lambda _, x: _lu_solve(lu_, permutation, x, 1))
    if a.ndim == b.ndim + 1:
        return custom_solve(b)
    return vmap(custom_solve, b.ndim - 1, max(a.ndim, b.ndim) - 1)(b)


def _broadcasted_matvec(a, b):
    """(..., n, m), (..., m) -> (..., n) at HIGHEST precision, as JAX's."""
    batch_shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-1])
    n_batch = len(batch_shape)
    # lax.broadcast_in_dim even to the same shape, as JAX's _broadcast_to: jit's trace forwards
    # it, linear_transpose's stages it and transposes it to vecmat's reduce_sum[axes=()]
    a = lax.broadcast_in_dim(a, (*batch_shape, *a.shape[-2:]),
                             range(len(batch_shape), len(batch_shape) + 2))
    b = lax.broadcast_in_dim(b, (*batch_shape, b.shape[-1]),
                             range(len(batch_shape), len(batch_shape) + 1))
    dims = (([a.ndim - 1], [b.ndim - 1]), (list(range(n_batch)), list(range(n_batch))))
    return lax.dot_general(a, b, dims, precision=lax.Precision.HIGHEST)


def _lu_solve_core(lu, permutation, b, trans: int):
    m = lu.shape[0]
    x = lax.reshape(b, (m, math.prod(b.shape[1:])))
    if trans == 0:
        x = x[permutation, :]
        x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
        x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)
    else:
        conj = trans == 2
        x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False, transpose_a=True,
                                        conjugate_a=conj)
        x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True,
                                        transpose_a=True, conjugate_a=conj)
        _, ind = lax.sort_key_val(permutation, lax.iota(np.int32, permutation.shape[0]))
        x = x[ind, :]
    return lax.reshape(x, b.shape)


@functools.partial(jnp_jit, static_argnames=("trans",))
def _lu_solve(lu, permutation, b, trans: int):
    """JAX's lax.linalg._lu_solve: a jit of its own, batch dims broadcast and vmapped."""
    rhs_vector = lu.ndim == b.ndim + 1
    if rhs_vector:
        b = b[..., np.newaxis]
    batch_shape = np.broadcast_shapes(lu.shape[:-2], permutation.shape[:-1], b.shape[:-2])
    lu = manipulation.broadcast_to(lu, (*batch_shape, *lu.shape[-2:]))
    permutation = manipulation.broadcast_to(permutation, (*batch_shape, permutation.shape[-1]))
    b = manipulation.broadcast_to(b, (*batch_shape, *b.shape[-2:]))
    fn = _lu_solve_core
    for _ in batch_shape:
        fn = vmap(fn, in_axes=(0, 0, 0, None))
    x = fn(lu, permutation, b, trans)
    return x[..., 0] if rhs_vector else x


@jax_jitted
@jnp_jit
def inv(a):
    """The inverse of square matrices (..., n, n) (a solve against the identity).

    >>> jnp.linalg.inv(jnp.array([[2., 0.], [0., 4.]]))
    Array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
    """
    arr = ensure_arraylike("jnp.linalg.inv", a)
    if arr.ndim < 2 or arr.shape[-1] != arr.shape[-2]:
        raise ValueError(f"Argument to inv must have shape [..., n, n], got {arr.shape}.")
    return solve(arr, lax.broadcast(creation.eye(arr.shape[-1], dtype=arr.dtype),
                                    arr.shape[:-2]))


# ------------------------------------------------------------------ det, slogdet
def _slogdet_small_parts(a):
    """(sign, log|det|) for 1x1 and 2x2 matrices by formula, and det itself."""
    if a.shape[-1] == 1:
        det = a[..., 0, 0]
    else:
        det = a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]
    return ufuncs.sign(det), ufuncs.real(ufuncs.log(ufuncs.abs(det))), det


@custom_jvp
def _slogdet_small(a):
    return _slogdet_small_parts(a)[:2]


def _complex_sign_dot(ans_dot, sign, x):
    if dtypes.is_complex(x.dtype):
        return (ans_dot - ufuncs.real(ans_dot).astype(ans_dot.dtype)) * sign, \
            ufuncs.real(ans_dot)
    return creation.zeros_like(sign), ans_dot


@_slogdet_small.defjvp
def _slogdet_small_jvp(primals, tangents):
    (x,), (g,) = primals, tangents
    # the primal through the custom_jvp function itself, as JAX's: a second derivative of
    # a complex sign then uses this rule again (sign's own JVP is zero)
    sign, ans = _slogdet_small(x)
    if x.shape[-1] == 1:
        ans_dot = g[..., 0, 0] / x[..., 0, 0]
    else:
        det = _slogdet_small_parts(x)[2]
        ans_dot = (g[..., 0, 0] * x[..., 1, 1] - g[..., 0, 1] * x[..., 1, 0]
                   - g[..., 1, 0] * x[..., 0, 1] + g[..., 1, 1] * x[..., 0, 0]) / det
    sign_dot, ans_dot = _complex_sign_dot(ans_dot, sign, x)
    return (sign, ans), (sign_dot, ans_dot)


def _parity(pivots, n):
    """Number of row swaps LU made (pivots != iota; the iota given pivots' rank, so that a
    batch counts under jax_numpy_rank_promotion='raise')."""
    iota = lax.expand_dims(creation.arange(n, dtype=pivots.dtype), range(pivots.ndim - 1))
    return reductions.count_nonzero(pivots != iota, axis=-1)


@custom_jvp
def _slogdet_lu(a):
    # sign: the permutation's parity times the signs (phases) of U's diagonal
    dtype = a.dtype
    lu, pivots, _ = lax_linalg.lu(a)
    diag = index_tricks.diagonal(lu, axis1=-2, axis2=-1)
    is_zero = reductions.any(diag == creation.array(0, dtype=dtype), axis=-1)
    parity = _parity(pivots, a.shape[-1])
    if dtypes.is_complex(dtype):
        sign = reductions.prod(diag / ufuncs.abs(diag).astype(dtype), axis=-1)
    else:
        sign = creation.array(1, dtype=dtype)
        parity = parity + reductions.count_nonzero(diag < 0, axis=-1)
    sign = util.where(is_zero, creation.array(0, dtype=dtype),
                        sign * creation.array(-2 * (parity % 2) + 1, dtype=dtype))
    logdet = util.where(is_zero, creation.array(-np.inf, dtype=dtype),
                          reductions.sum(ufuncs.log(ufuncs.abs(diag)).astype(dtype), axis=-1))
    return sign, ufuncs.real(logdet)


@custom_jvp
def _slogdet_qr(a):
    # a QR has no row pivoting; each Householder reflection that happened (tau != 0) has
    # determinant -1
    if dtypes.is_complex(a.dtype):
        raise NotImplementedError("slogdet method='qr' not implemented for complex inputs")
    n = a.shape[-1]
    a, taus = lax_linalg.geqrf(a)
    a_diag = index_tricks.diagonal(a, axis1=-2, axis2=-1)
    log_abs_det = reductions.sum(ufuncs.log(ufuncs.abs(a_diag)), axis=-1)
    sign_diag = reductions.prod(ufuncs.sign(a_diag), axis=-1)
    sign_taus = reductions.prod(util.where(taus[..., :(n - 1)] != 0, -1, 1),
                                axis=-1).astype(sign_diag.dtype)
    return sign_diag * sign_taus, log_abs_det


def _slogdet_jvp(primals, tangents):
    # d log|det a| = trace(a^-1 da); the sign is piecewise constant (real) or a phase
    (x,), (g,) = primals, tangents
    sign, ans = slogdet(x)
    # (JAX calls solve here; a custom_jvp function applied to a tangent does not transpose
    # in jxkernel yet, so the LU solve is written out)
    ans_dot = reductions.trace(_lu_solve_ab(x, g), axis1=-1, axis2=-2)
    sign_dot, ans_dot = _complex_sign_dot(ans_dot, sign, x)
    return (sign, ans), (sign_dot, ans_dot)


_slogdet_lu.defjvp(_slogdet_jvp)
_slogdet_qr.defjvp(_slogdet_jvp)


@jax_jitted
@jnp_jit(static_argnames=("method",))
def slogdet(a, *, method: str | None = None):
    """(sign, log|det|) of square matrices, by an LU (method 'lu', the default) or a QR.

    >>> jnp.linalg.slogdet(jnp.array([[1., 2.], [3., 4.]]))
    SlogdetResult(sign=Array(-1., dtype=float32), logabsdet=Array(0.6931472, dtype=float32))
    """
    a = ensure_arraylike("jnp.linalg.slogdet", a)
    a, = promote_dtypes_inexact(a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to slogdet() must have shape [..., n, n], got {a.shape}")
    if method is None or method == "lu":
        if a.shape[-1] in (1, 2):
            return SlogdetResult(*_slogdet_small(a))
        return SlogdetResult(*_slogdet_lu(a))
    if method == "qr":
        return SlogdetResult(*_slogdet_qr(a))
    raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' (`None`), "
                     f"and 'qr'.")


def _cofactor_solve(a, b):
    """(det(a), adjugate(a) @ b), well defined for singular a: JAX's algorithm. With
    a = P L U, det(a) solve(a, b) = prod(diag U) U^-1 L^-1 P^-1 b; replacing U's last
    diagonal entry by 1/partial_det keeps the triangular solves finite when rank(a) = n-1,
    and a matrix of rank < n-1 (adjugate zero) is filtered out."""
    a, b = promote_dtypes_inexact(a), promote_dtypes_inexact(b)
    a, b = a[0], b[0]
    n = a.shape[-1]
    if n == 1:
        return a[..., 0, 0], b
    lu, pivots, permutation = lax_linalg.lu(a)
    dtype = a.dtype
    batch = np.broadcast_shapes(lu.shape[:-2], b.shape[:-2])
    x = manipulation.broadcast_to(b, (*batch, *b.shape[-2:]))
    lu = manipulation.broadcast_to(lu, (*batch, *lu.shape[-2:]))
    diag = index_tricks.diagonal(lu, axis1=-2, axis2=-1)
    sign = creation.asarray(-2 * (_parity(pivots, n) % 2) + 1, dtype=dtype)
    # partial_det[..., -1] is det(a); partial_det[..., -2] is det(u) / u_nn
    partial_det = reductions.cumprod(diag, axis=-1) * sign[..., None]
    lu = lu.at[..., -1, -1].set(1.0 / partial_det[..., -2])
    permutation = manipulation.broadcast_to(permutation, (*batch, n))
    d = creation.ones(x.shape[:-1], x.dtype)
    d = lax_linalg.triangular_solve(lu, d, left_side=True, lower=False)
    d = reductions.any(ufuncs.logical_or(ufuncs.isnan(d), ufuncs.isinf(d)), axis=-1)
    d = d[..., None, None]
    x = util.where(d, creation.zeros_like(x), x)                 # first filter
    x = index_tricks.take_along_axis(x, permutation[..., None], axis=-2)
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
    x = manipulation.concatenate((x[..., :-1, :] * partial_det[..., -1, None, None],
                                  x[..., -1:, :]), axis=-2)
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)
    x = util.where(d, creation.zeros_like(x), x)                 # second filter
    return partial_det[..., -1], x


@custom_jvp
def _det(a):
    sign, logdet = slogdet(a)
    return sign * ufuncs.exp(logdet).astype(sign.dtype)


@_det.defjvp
def _det_jvp(primals, tangents):
    # d det(a) = trace(adj(a) da), by _cofactor_solve (defined for singular a too)
    y, z = _cofactor_solve(primals[0], tangents[0])
    return y, reductions.trace(z, axis1=-1, axis2=-2)


@jax_jitted
@jnp_jit
def det(a):
    """The determinant of square matrices (..., n, n): a formula for n = 2, 3, else an LU.

    >>> jnp.linalg.det(jnp.array([[1., 2.], [3., 4.]]))
    Array(-2., dtype=float32)
    """
    a = ensure_arraylike("jnp.linalg.det", a)
    a, = promote_dtypes_inexact(a)
    if a.ndim >= 2 and a.shape[-1] == a.shape[-2] == 2:
        return a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]
    if a.ndim >= 2 and a.shape[-1] == a.shape[-2] == 3:
        return (a[..., 0, 0] * a[..., 1, 1] * a[..., 2, 2] +
                a[..., 0, 1] * a[..., 1, 2] * a[..., 2, 0] +
                a[..., 0, 2] * a[..., 1, 0] * a[..., 2, 1] -
                a[..., 0, 2] * a[..., 1, 1] * a[..., 2, 0] -
                a[..., 0, 0] * a[..., 1, 2] * a[..., 2, 1] -
                a[..., 0, 1] * a[..., 1, 0] * a[..., 2, 2])
    if a.ndim >= 2 and a.shape[-1] == a.shape[-2]:
        return _det(a)
    raise ValueError(f"Argument to _det() must have shape [..., n, n], got {a.shape}")


# ------------------------------------------------------------------ norms
def _axis(axis, ndim):
    return (axis + ndim if axis < 0 else axis) if -ndim <= axis < ndim else \
        _bad_axis(axis, ndim)


def _bad_axis(axis, ndim):
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")


def _sq_sum(x, axis, keepdims):
    return reductions.sum(ufuncs.real(x * ufuncs.conj(x)), axis=axis, keepdims=keepdims)


@jax_jitted
@jnp_jit(static_argnames=("ord", "axis", "keepdims"))
def norm(x, ord=None, axis=None, keepdims: bool = False):
    """Vector norms (one axis: ord 2, inf, -inf, 0, 1, or any p) and matrix norms (two axes:
    'fro', 'nuc', 1, -1, 2, -2, inf, -inf); with no axis and no ord, the 2-norm of all.

    >>> jnp.linalg.norm(jnp.array([3., 4.]))
    Array(5., dtype=float32)
    """
    x = ensure_arraylike("jnp.linalg.norm", x)
    x, = promote_dtypes_inexact(x)
    ndim = x.ndim
    if axis is None:
        if ord is None:     # NumPy admits any rank here (numpy/numpy#14215)
            return ufuncs.sqrt(_sq_sum(x, None, keepdims))
        axis = tuple(range(ndim))
    elif isinstance(axis, tuple):
        axis = tuple(_axis(a, ndim) for a in axis)
    else:
        axis = (_axis(operator.index(axis), ndim),)
    if len(axis) == 1:
        return vector_norm(x, ord=2 if ord is None else ord, axis=axis, keepdims=keepdims)
    if len(axis) != 2:
        raise ValueError(f"Improper number of axes for norm: axis={axis}. Pass one axis to "
                         f"compute a vector-norm, or two axes to compute a matrix-norm.")
    row_axis, col_axis = axis
    if ord is None or ord in ("f", "fro"):
        return ufuncs.sqrt(_sq_sum(x, axis, keepdims))
    if ord in (1, -1, np.inf, -np.inf):
        # 1-norms sum over rows then take the extreme column; inf-norms the other way round
        over, then = (row_axis, col_axis) if ord in (1, -1) else (col_axis, row_axis)
        if not keepdims and then > over:
            then -= 1
        sums = reductions.sum(ufuncs.abs(x), axis=over, keepdims=keepdims)
        if ord > 0:
            return reductions.amax(sums, axis=then, keepdims=keepdims, initial=0)
        return reductions.amin(sums, axis=then, keepdims=keepdims)
    if ord in ("nuc", 2, -2):
        s = svd(manipulation.moveaxis(x, axis, (-2, -1)), compute_uv=False)
        if ord == 2:
            y = reductions.amax(s, axis=-1, initial=0)
        elif ord == -2:
            y = reductions.amin(s, axis=-1)
        else:
            y = reductions.sum(s, axis=-1)
        return manipulation.expand_dims(y, axis) if keepdims else y
    raise ValueError(f"Invalid order '{ord}' for matrix norm.")


def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2):
    """The vector norm of order `ord` over `axis` (all of x by default).

    >>> jnp.linalg.vector_norm(jnp.array([3., -4.]), ord=1)
    Array(7., dtype=float32)
    """
    x = ensure_arraylike("jnp.linalg.vector_norm", x)
    if ord is None or ord == 2:
        return ufuncs.sqrt(_sq_sum(x, axis, keepdims))
    if ord == np.inf:
        return reductions.amax(ufuncs.abs(x), axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return reductions.amin(ufuncs.abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return reductions.sum(x != 0, dtype=dtypes.finfo(dtypes.to_inexact_dtype(
            x.dtype)).dtype, axis=axis, keepdims=keepdims)
    if ord == 1:
        return reductions.sum(ufuncs.abs(x), axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        msg = f"Invalid order '{ord}' for vector norm."
        if ord == "inf":
            msg += "Use 'jax.numpy.inf' instead."
        if ord == "-inf":
            msg += "Use '-jax.numpy.inf' instead."
        raise ValueError(msg)
    abs_x = ufuncs.abs(x)
    ord_arr = creation.asarray(ord, dtype=abs_x.dtype)
    out = reductions.sum(abs_x ** ord_arr, axis=axis, keepdims=keepdims)
    return ufuncs.power(out, creation.asarray(1. / ord_arr, dtype=abs_x.dtype))


def matrix_norm(x, /, *, keepdims: bool = False, ord="fro"):
    """The matrix norm of order `ord` of the last two axes.  ``matrix_norm(jnp.eye(2))``
    is sqrt(2)."""
    x = ensure_arraylike("jnp.linalg.matrix_norm", x)
    return norm(x, ord=ord, keepdims=keepdims, axis=(-2, -1))


# ------------------------------------------------------------------ derived
@jax_jitted
@jnp_jit(static_argnames=("n",))
def matrix_power(a, n: int):
    """a to the integer power n by repeated squaring (negative n: of inv(a)).

    >>> jnp.linalg.matrix_power(jnp.array([[1., 1.], [0., 1.]]), 3)
    Array([[1., 3.],
           [0., 1.]], dtype=float32)
    """
    arr = ensure_arraylike("jnp.linalg.matrix_power", a)
    if arr.ndim < 2:
        raise TypeError(f"{arr.ndim}-dimensional array given. Array must be at least "
                        f"two-dimensional")
    if arr.shape[-2] != arr.shape[-1]:
        raise TypeError("Last 2 dimensions of the array must be square")
    try:
        n = operator.index(n)
    except TypeError as err:
        raise TypeError(f"exponent must be an integer, got {n}") from err
    if n == 0:
        return manipulation.broadcast_to(creation.eye(arr.shape[-2], dtype=arr.dtype),
                                         arr.shape)
    if n < 0:
        arr, n = inv(arr), -n
    if n <= 3:
        return arr if n == 1 else arr @ arr if n == 2 else (arr @ arr) @ arr
    z = result = None
    while n > 0:
        z = arr if z is None else z @ z
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else result @ z
    return result


@jax_jitted
@jnp_jit(static_argnames=("hermitian",))
def matrix_rank(M, rtol=None, *, hermitian: bool = False, tol=None):
    """The number of singular values above rtol * the largest (default rtol: the dtype's
    eps times the larger dimension).  ``matrix_rank(jnp.eye(3))`` is 3."""
    M = ensure_arraylike("jnp.linalg.matrix_rank", M)
    if tol is not None:
        if rtol is not None:
            raise ValueError("matrix_rank: only one of tol or rtol may be specified.")
        rtol = tol
    M, = promote_dtypes_inexact(M)
    if M.ndim < 2:
        return reductions.any(M != 0).astype(np.int32)
    S = svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian)
    if rtol is None:
        rtol = S.max(-1) * np.max(M.shape[-2:]).astype(S.dtype) * dtypes.finfo(S.dtype).eps
    rtol = manipulation.expand_dims(rtol, np.ndim(rtol))
    return reductions.sum(S > rtol, axis=-1)


def pinv(a, rtol=None, hermitian: bool = False, *, rcond=None):
    """The Moore-Penrose pseudo-inverse (via the SVD; singular values at most rtol * the
    largest count as zero; default rtol 10 * max(m, n) * eps, as JAX).

    >>> jnp.linalg.pinv(jnp.array([[2., 0.], [0., 0.]]))
    Array([[0.5, 0. ],
           [0. , 0. ]], dtype=float32)
    """
    if rcond is not None:
        if rtol is not None:
            raise ValueError("pinv: only one of rtol and rcond may be specified.")
        rtol = rcond
    return _pinv(a, rtol, hermitian)


def _pinv_impl(a, rtol=None, hermitian=False):
    a = ensure_arraylike("jnp.linalg.pinv", a)
    arr, = promote_dtypes_inexact(a)
    m, n = arr.shape[-2:]
    if m == 0 or n == 0:
        return creation.empty(arr.shape[:-2] + (n, m), arr.dtype)
    arr = ufuncs.conj(arr)
    if rtol is None:
        rtol = 10. * max(arr.shape[-2:]) * creation.array(dtypes.finfo(arr.dtype).eps)
    rtol = creation.asarray(rtol)
    u, s, vh = svd(arr, full_matrices=False, hermitian=hermitian)
    rtol = lax.expand_dims(rtol[..., None], range(s.ndim - rtol.ndim - 1))
    cutoff = rtol * s[..., 0:1]
    s = util.where(s > cutoff, s, np.inf).astype(u.dtype)
    res = _hi(vh.mT, ufuncs.divide(u.mT, s[..., None]))
    return lax.convert_element_type(res, arr.dtype)


_pinv = custom_jvp(jnp_jit(_pinv_impl, static_argnames=("hermitian",)), nondiff_argnums=(1, 2))


@_pinv.defjvp
def _pinv_jvp(rtol, hermitian, primals, tangents):
    # Golub and Pereyra, "The differentiation of pseudo-inverses and nonlinear least squares
    # problems whose variables separate" (1973), as JAX
    (a,), (a_dot,) = primals, tangents
    p = pinv(a, rtol=rtol, hermitian=hermitian)
    if hermitian:      # svd(hermitian=True) symmetrizes its input; the JVP must match
        a, a_dot = _symmetrize(a), _symmetrize(a_dot)
    m, n = a.shape[-2:]
    if m >= n:
        s = (p @ _H(p)) @ _H(a_dot)
        t = (_H(a_dot) @ _H(p)) @ p
        p_dot = -(p @ a_dot) @ p + s - (s @ a) @ p + t - (p @ a) @ t
    else:
        s = p @ (_H(p) @ _H(a_dot))
        t = _H(a_dot) @ (_H(p) @ p)
        p_dot = -p @ (a_dot @ p) + s - s @ (a @ p) + t - p @ (a @ t)
    return p, p_dot


def _lstsq(a, b, rcond, *, numpy_resid=False):
    a, b = promote_dtypes_inexact(a, b)
    if a.shape[0] != b.shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    b_orig_ndim = b.ndim
    if b_orig_ndim == 1:
        b = b[:, None]
    if a.ndim != 2:
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    if b.ndim != 2:
        raise TypeError(f"{b.ndim}-dimensional array given. Array must be one or "
                        f"two-dimensional")
    m, n = a.shape
    dtype = a.dtype
    if a.size == 0:
        s = creation.empty(0, dtype=a.dtype)
        rank = creation.array(0, dtype=int)
        x = creation.zeros((n, *b.shape[1:]), dtype=a.dtype)
    else:
        if rcond is None:
            rcond = float(dtypes.finfo(dtype).eps) * max(n, m)
        else:
            rcond = util.where(rcond < 0, dtypes.finfo(dtype).eps, rcond)
        u, s, vt = svd(a, full_matrices=False)
        mask = (s > 0) & (s >= creation.array(rcond, dtype=s.dtype) * s[0])
        rank = mask.sum()
        safe_s = util.where(mask, s, 1).astype(a.dtype)
        s_inv = util.where(mask, 1 / safe_s, 0)[:, None]
        uTb = _hi(u.conj().T, b)
        x = _hi(vt.conj().T, s_inv * uTb)
    # NumPy returns empty residuals in some cases; to allow compilation, full ones by default
    if numpy_resid and (rank < n or m <= n):
        resid = creation.asarray([])
    else:
        resid = norm(b - _hi(a, x), axis=0) ** 2
    if b_orig_ndim == 1:
        x = x.ravel()
    return x, resid, rank, s


_jit_lstsq = jnp_jit(lambda a, b, rcond: _lstsq(a, b, rcond))


def lstsq(a, b, rcond=None, *, numpy_resid: bool = False):
    """Least-squares solution of a @ x = b via the SVD: (x, residuals, rank, singular
    values). numpy_resid=True returns NumPy's (sometimes empty) residuals, eagerly.

    >>> jnp.linalg.lstsq(jnp.array([[1., 0.], [0., 2.]]), jnp.array([1., 4.]))[0]
    Array([1., 2.], dtype=float32)
    """
    a, b = ensure_arraylike("jnp.linalg.lstsq", a, b)
    if numpy_resid:
        return _lstsq(a, b, rcond, numpy_resid=True)
    return _jit_lstsq(a, b, rcond)


@jax_jitted
@jnp_jit(static_argnames=("p",))
def cond(x, p=None):
    """The condition number of x in the norm of order p (default: 2, the ratio of the
    extreme singular values).  ``cond(jnp.diag(jnp.array([1., 4.])))`` is 4."""
    arr = ensure_arraylike("cond", x)
    if arr.ndim < 2:
        raise ValueError(f"jnp.linalg.cond: input array must be at least 2D; got "
                         f"arr.shape={arr.shape}")
    if arr.shape[-1] == 0 or arr.shape[-2] == 0:
        raise ValueError(f"jnp.linalg.cond: input array must not be empty; got "
                         f"arr.shape={arr.shape}")
    if p is None or p == 2:
        s = svdvals(x)
        return s[..., 0] / s[..., -1]
    if p == -2:
        s = svdvals(x)
        r = s[..., -1] / s[..., 0]
    else:
        if arr.shape[-2] != arr.shape[-1]:
            raise ValueError(f"jnp.linalg.cond: for p={p}, array must be square; got "
                             f"arr.shape={arr.shape}")
        r = norm(x, ord=p, axis=(-2, -1)) * norm(inv(x), ord=p, axis=(-2, -1))
    # NaNs become infs where the input had none
    return util.where(ufuncs.isnan(r) & ~ufuncs.isnan(x).any(axis=(-2, -1)), np.inf, r)


def multi_dot(arrays, *, precision=None):
    """The product of a chain of matrices (the first and last may be vectors) in the cheapest
    order (an einsum, whose contraction order opt_einsum picks).

    >>> jnp.linalg.multi_dot([jnp.ones((2, 3)), jnp.ones((3, 4)), jnp.ones(4)])
    Array([12., 12.], dtype=float32)
    """
    arrs = [ensure_arraylike("jnp.linalg.multi_dot", a) for a in arrays]
    if len(arrs) < 2:
        raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)="
                         f"{len(arrs)}")
    if not (arrs[0].ndim in (1, 2) and arrs[-1].ndim in (1, 2) and
            all(a.ndim == 2 for a in arrs[1:-1])):
        raise ValueError(f"multi_dot: input arrays must all be two-dimensional, except for "
                         f"the first and last array which may be 1 or 2 dimensional. Got "
                         f"array shapes {[a.shape for a in arrs]}")
    if any(a.shape[-1] != b.shape[0] for a, b in zip(arrs[:-1], arrs[1:])):
        raise ValueError(f"multi_dot: last dimension of each array must match first "
                         f"dimension of following array. Got array shapes "
                         f"{[a.shape for a in arrs]}")
    axes = [(i, i + 1) for i in range(len(arrs))]
    if arrs[0].ndim == 1:
        axes[0] = axes[0][1:]
    if arrs[-1].ndim == 1:
        axes[-1] = axes[-1][:1]
    return products.einsum(*itertools.chain(*zip(arrs, axes)), optimize="auto",
                           precision=precision)


def tensorinv(a, ind: int = 2):
    """The inverse of a as a tensor product with `ind` leading indices.
    ``tensorinv(a).shape == (*a.shape[ind:], *a.shape[:ind])``."""
    arr = ensure_arraylike("tensorinv", a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError(f"ind must be a positive integer; got ind={ind}")
    contracting, batch = arr.shape[:ind], arr.shape[ind:]
    flat = (math.prod(contracting), math.prod(batch))
    if flat[0] != flat[1]:
        raise ValueError(f"tensorinv is only possible when the product of the first `ind` "
                         f"dimensions equals that of the remaining dimensions. got "
                         f"arr.shape={arr.shape} with ind={ind}.")
    return inv(arr.reshape(flat)).reshape(*batch, *contracting)


def tensorsolve(a, b, axes=None):
    """x with tensordot(a, x, x.ndim) == b (after moving `axes` of a to the end)."""
    a_arr, b_arr = ensure_arraylike("tensorsolve", a, b)
    if axes is not None:
        a_arr = manipulation.moveaxis(a_arr, axes, len(axes) * (a_arr.ndim - 1,))
    out_shape = a_arr.shape[b_arr.ndim:]
    if a_arr.shape[:b_arr.ndim] != b_arr.shape:
        raise ValueError(f"After moving axes to end, leading shape of a must match shape of "
                         f"b. got a.shape={a_arr.shape}, b.shape={b_arr.shape}")
    if b_arr.size != math.prod(out_shape):
        raise ValueError(f"Input arrays must have prod(a.shape[:b.ndim]) == "
                         f"prod(a.shape[b.ndim:]); got a.shape={a_arr.shape}, "
                         f"b.ndim={b_arr.ndim}.")
    a_arr = a_arr.reshape(b_arr.size, math.prod(out_shape))
    return solve(a_arr, b_arr.ravel()).reshape(out_shape)


# ------------------------------------------------------------------ array API aliases
def outer(x1, x2, /):
    """The outer product of two vectors.  ``outer(x, y)[i, j] == x[i] * y[j]``."""
    x1, x2 = ensure_arraylike("jnp.linalg.outer", x1, x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are "
                         f"x1.ndim={x1.ndim} x2.ndim={x2.ndim}")
    return x1[:, None] * x2[None, :]


def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-vectors along `axis`."""
    x1, x2 = ensure_arraylike("jnp.linalg.cross", x1, x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(f"Both input arrays must be (arrays of) 3-dimensional vectors, but "
                         f"they have x1.shape[axis]={x1.shape[axis]} and "
                         f"x2.shape[axis]={x2.shape[axis]}")
    return products.cross(x1, x2, axis=axis)


def matrix_transpose(x, /):
    """x with its last two axes swapped."""
    x = ensure_arraylike("jnp.linalg.matrix_transpose", x)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose requires at least 2 dimensions; got "
                         f"ndim={x.ndim}")
    return products.matrix_transpose(x)


def diagonal(x, /, *, offset: int = 0):
    """The diagonals of the last two axes.  ``diagonal(jnp.eye(2))`` is [1., 1.]."""
    x = ensure_arraylike("jnp.linalg.diagonal", x)
    return index_tricks.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def trace(x, /, *, offset: int = 0, dtype=None):
    """The traces of the last two axes.  ``trace(jnp.eye(2))`` is 2."""
    x = ensure_arraylike("jnp.linalg.trace", x)
    return reductions.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    """jnp.matmul."""
    x1, x2 = ensure_arraylike("jnp.linalg.matmul", x1, x2)
    return products.matmul(x1, x2, precision=precision,
                           preferred_element_type=preferred_element_type)


def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
    """jnp.vecdot: conj(x1) . x2 along `axis`."""
    x1, x2 = ensure_arraylike("jnp.linalg.vecdot", x1, x2)
    return products.vecdot(x1, x2, axis=axis, precision=precision,
                           preferred_element_type=preferred_element_type)


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None,
              out_sharding=None):
    """jnp.tensordot."""
    x1, x2 = ensure_arraylike("jnp.linalg.tensordot", x1, x2)
    return products.tensordot(x1, x2, axes=axes, precision=precision,
                              preferred_element_type=preferred_element_type,
                              out_sharding=out_sharding)


# ------------------------------------------------------------------ nonsymmetric eigenproblem
class EigResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


def eig(a):
    """Eigenvalues and right eigenvectors (columns) of a general square matrix, complex even
    for real input (complex64, or complex128 for 64-bit input); on CPU (LAPACK) and CUDA GPUs.

    >>> jnp.linalg.eig(jnp.array([[2., 0.], [0., 3.]])).eigenvalues
    Array([2.+0.j, 3.+0.j], dtype=complex64)
    """
    a = ensure_arraylike("jnp.linalg.eig", a)
    a, = promote_dtypes_inexact(a)
    w, v = lax_linalg.eig(a, compute_left_eigenvectors=False)
    return EigResult(w, v)


@jax_jitted
@jnp_jit
def eigvals(a):
    """The eigenvalues of a general square matrix (complex).

    >>> jnp.linalg.eigvals(jnp.array([[0., 1.], [-1., 0.]]))
    Array([0.+1.j, 0.-1.j], dtype=complex64)
    """
    a = ensure_arraylike("jnp.linalg.eigvals", a)
    a, = promote_dtypes_inexact(a)
    return lax_linalg.eig(a, compute_left_eigenvectors=False,
                          compute_right_eigenvectors=False)[0]


__all__ += ["EigResult", "eig", "eigvals"]
