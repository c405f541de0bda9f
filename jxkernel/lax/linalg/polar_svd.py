"""svd by the polar decomposition: a = u_p @ h (qdwh), h = v @ diag(s) @ v^H (eigh), so
a = (u_p @ v) @ diag(s) @ v^H. The algorithm of JAX's TPU SVD (jax/_src/tpu/linalg/svd.py,
which JAX's svd_test.py tests on every platform; Nakatsukasa and Higham, SIAM J. Sci. Comput.
35(3), 2013), on lax.linalg's qr, qdwh and eigh: no primitive of its own, so every
transformation goes through theirs.

    >>> u, s, vh = svd(np.float32([[3, 0], [0, 4]]), full_matrices=False)
    >>> np.round(np.asarray(s), 4).tolist()
    [4.0, 3.0]
"""
from __future__ import annotations

import operator

import numpy as np

from ...core import dtypes
from ...core.avals import get_aval
from ...core.interpreter_primitives import typed_constant
from ...core.trace import concrete_or_error
from ...transforms.jit import jit
from .. import elementwise as ew, reductions, shapes, slicing, sorting
from ._common import _H, _diag, _dot, _permute_rows, _T
from .polar import qdwh
from .qr_decomposition import qr
from .symmetric_eigen import eigh

_QR_FIRST_RATIO = 1.15     # m > 1.15 n: a reduced QR first makes the square factor (JAX's cut)


def _static(kind, value, name):
    return concrete_or_error(kind, value, f"The `{name}` argument must be statically "
                                          f"specified to use `svd` within JAX transformations.")


def _checked_subset(subset_by_index, shape, full_matrices):
    """The index range of singular values (largest first) as eigh's range of eigenvalues
    (smallest first), after JAX's checks."""
    if subset_by_index is None:
        return None
    if len(subset_by_index) != 2:
        raise ValueError("subset_by_index must be a tuple of size 2.")
    start, end = operator.index(subset_by_index[0]), operator.index(subset_by_index[1])
    if start >= end:
        raise ValueError("Got empty index range in subset_by_index.")
    if start < 0:
        raise ValueError("Indices in subset_by_index must be non-negative.")
    rank = min(shape)
    if end > rank:
        raise ValueError("Index in subset_by_index[1] exceeds matrix size.")
    if full_matrices and (start, end) != (0, rank):
        raise ValueError("full_matrices and subset_by_index cannot be both be set.")
    return rank - end, rank - start


@jit(static_argnums=(1, 2, 3, 4, 5))     # as JAX's: a traced option fails jit's static hash
def svd(a, full_matrices: bool, compute_uv: bool = True, hermitian: bool = False,
        max_iterations: int = 10, subset_by_index: tuple[int, int] | None = None):
    """(u, s, vh) of an m x n matrix, s non-increasing (only s if not `compute_uv`); a
    non-finite `a` gives NaNs everywhere when `compute_uv`. `hermitian` is passed to qdwh,
    `max_iterations` bounds its iterations; `subset_by_index` = (start, end) keeps singular
    values start..end-1, the largest first."""
    full_matrices = _static(bool, full_matrices, "full_matrices")
    compute_uv = _static(bool, compute_uv, "compute_uv")
    hermitian = _static(bool, hermitian, "hermitian")
    max_iterations = _static(int, max_iterations, "max_iterations")
    subset = _checked_subset(subset_by_index, get_aval(a).shape, full_matrices)
    flipped = get_aval(a).shape[0] < get_aval(a).shape[1]
    if flipped:                                  # work on the tall a^H: a = (a^H)^H
        a = _H(a)
    m, n = get_aval(a).shape
    q = null_space = None
    if full_matrices and m > n:
        q_full, r = qr(a, full_matrices=True)
        q, null_space = slicing.slice_in_dim(q_full, 0, n, axis=1), \
            slicing.slice_in_dim(q_full, n, m, axis=1)
        a = slicing.slice_in_dim(r, 0, n, axis=0)
    elif m > _QR_FIRST_RATIO * n:
        q, a = qr(a, full_matrices=False)
    if not compute_uv:
        return _square_svd(a, hermitian, False, max_iterations, subset)
    u, s, v = _square_svd(a, hermitian, True, max_iterations, subset)
    if q is not None:
        u = _dot(q, u)
    if null_space is not None:
        u = shapes.concatenate([u, null_space], 1)
    finite = reductions.reduce_and(_finite(a), (0, 1))
    u, s, v = (ew.select(_fill(finite, x), x, _fill(typed_constant(np.nan, get_aval(x).dtype), x))
               for x in (u, s, v))
    return (v, s, _H(u)) if flipped else (u, s, _H(v))


def _square_svd(a, hermitian, compute_uv, max_iterations, subset):
    """(u, s, v) of an m x n matrix with m >= n (not too tall), a = u @ diag(s) @ v^H."""
    u_p, h, _, _ = qdwh(a, is_hermitian=hermitian, max_iterations=max_iterations)
    v, s = eigh(h, subset_by_index=subset, sort_eigenvalues=False)
    s = ew.max(s, typed_constant(0, get_aval(s).dtype))     # eigh may give tiny negatives
    k = get_aval(s).shape[0]
    neg_sorted, order = sorting.sort((ew.neg(s), shapes.iota(np.int32, k)), num_keys=1)
    s = ew.neg(neg_sorted)                                 # non-increasing
    if not compute_uv:
        return s
    v = _T(_permute_rows(_T(v), order))                    # v's columns in s's order
    u = _dot(u_p, v)
    # A rank-deficient a leaves u_p's columns for its null space unreliable: re-orthonormalize
    # u by QR with R's diagonal made non-negative (Nakatsukasa and Higham, section 5.5).
    eps = float(dtypes.finfo(get_aval(a).dtype).eps)
    first, last = slicing.index_in_dim(s, 0, keepdims=False), \
        slicing.index_in_dim(s, k - 1, keepdims=False)
    deficient = ew.le(last, ew.mul(typed_constant(get_aval(a).shape[1] * eps,
                                                  get_aval(s).dtype), first))
    q, r = qr(u, full_matrices=False)
    diag = _diag(r)
    if dtypes.is_complex(get_aval(diag).dtype):
        diag = ew.real(diag)                      # (R's diagonal is real: LAPACK's beta)
    one = _fill(typed_constant(1, get_aval(u).dtype), diag)
    signs = ew.select(ew.ge(diag, _fill(typed_constant(0, get_aval(diag).dtype), diag)),
                      one, ew.neg(one))
    corrected = ew.mul(q, shapes.broadcast_in_dim(signs, get_aval(q).shape, (1,)))
    return ew.select(_fill(deficient, u), corrected, u), s, v


def _fill(scalar, like):
    """A 0-d value broadcast to `like`'s shape."""
    return shapes.broadcast_in_dim(scalar, get_aval(like).shape, ())


def _finite(a):
    """Elementwise: a (both parts, for complex a) is finite."""
    if dtypes.is_complex(get_aval(a).dtype):
        return ew.bitwise_and(ew.is_finite(ew.real(a)), ew.is_finite(ew.imag(a)))
    return ew.is_finite(a)
