"""Linear-algebra primitives, lowered on CPU to LAPACK (jaxlib's typed-FFI custom calls) and
on CUDA GPUs to cuSOLVER (the CUDA plugin's kernels) as JAX's lax.linalg lowers them, so
results match JAX's bit for bit:

    primitive              CPU (LAPACK)           CUDA GPU
    cholesky               potrf                  cusolver potrf
    triangular_solve       trsm                   stablehlo.triangular_solve (XLA's cuBLAS trsm)
    lu                     getrf                  cusolver getrf
    lu_pivots_to_permutation  (a loop)            cu_lu_pivots_to_permutation
    geqrf, geqp3           geqrf, geqp3           cusolver geqrf, hybrid geqp3 (host LAPACK)
    householder_product    orgqr/ungqr            cusolver orgqr
    ormqr                  ormqr/unmqr            cusolver ormqr
    qr                     (built on geqrf/geqp3 and householder_product)
    eigh                   syevd/heevd            cusolver syevd (or syevj: Jacobi)
    eig                    geev                   cusolver geev, or hybrid geev (host LAPACK)
    schur                  gees                   (none, as in JAX)
    hessenberg             gehrd                  (none, as in JAX)
    svd                    gesdd (gesvd for QR)   cusolver gesvdj up to 1024x1024, else gesvd

All act on the last two dimensions and batch over the leading ones. Each primitive has its
rules beside it; the differentiation rules are JAX's (references in the comments). geqrf,
geqp3 and householder_product are not differentiable (as in JAX): differentiate `qr`.

    >>> cholesky(np.array([[4., 2.], [2., 5.]], np.float32))
    Array([[2., 0.],
           [1., 2.]], dtype=float32)
"""
from __future__ import annotations

import enum
import warnings

import numpy as np

from ..core import dtypes
from ..core.avals import ShapedArray, get_aval
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                              lowering_rules, numpy_rules, transpose_rules)
from ..xla import gpu_solver, lapack
from ..xla import stablehlo as hlo
from ..xla.lapack import char
from ..xla.lowering import LoweringRuleContext
from ..transforms import ad_util as ad
from ..transforms import batch_util as bu
from . import _lowering as hl
from . import conversion, elementwise as ew, shapes, slicing
from ._rules import INEXACT, check_dtype
from .dot import Precision, dot_general
from .loops import fori_loop
from .reductions import argmax, cumsum, reduce_sum
from .slicing import GatherDimensionNumbers, GatherScatterMode, gather
from .sorting import sort_key_val

_LAPACK_DTYPES = frozenset(map(np.dtype, (np.float32, np.float64, np.complex64, np.complex128)))


class EighImplementation(enum.Enum):
    """Implementation for symmetric/Hermitian eigendecomposition (CPU has QR only)."""
    QR = "qr"
    JACOBI = "jacobi"
    QDWH = "qdwh"


class SvdAlgorithm(enum.Enum):
    """SVD algorithm: on CPU DEFAULT and DIVIDE_AND_CONQUER are gesdd, QR is gesvd."""
    DEFAULT = "default"
    QR = "QR"
    JACOBI = "Jacobi"
    POLAR = "polar"
    DIVIDE_AND_CONQUER = "divide_and_conquer"


# ------------------------------------------------------------------ helpers
def _check_square(name, x, not_square: str):
    """JAX's checks of the operand of eig, schur and hessenberg: an inexact dtype, rank 2 or
    more (TypeError), and `not_square` (a ValueError's message) unless its matrices are."""
    check_dtype(name, x, INEXACT, position=0)
    if len(x.shape) < 2:
        raise TypeError(f"Input 0 to {name} must have rank at least 2, but got "
                        f"shape={x.shape}")
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(not_square)


def _check_matrix(name, x, square=False, position=None):
    check_dtype(name, x, INEXACT, position=position)
    if len(x.shape) < 2:
        raise ValueError(f"{name} requires an operand with at least 2 dimensions, got shape "
                         f"{x.shape}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{name} requires the last two dimensions to be square, got shape "
                         f"{x.shape}")
    if x.dtype not in _LAPACK_DTYPES:
        raise TypeError(f"{name} supports float32, float64, complex64 and complex128, got "
                        f"{x.dtype.name}")


def _real(dtype):
    return np.dtype(np.float64 if np.dtype(dtype) == np.complex128 else
                    np.float32 if np.dtype(dtype) == np.complex64 else dtype)


def _batch_all_front(prim):
    """Batching rule of a primitive that batches over leading dims: batch dims go first (an
    unbatched operand is broadcast), as JAX's expand_dims_batcher."""
    def rule(vals, dims, **params):
        size = bu.axis_size_of(vals, dims)
        outs = prim.bind(*(bu.bdim_at_front(x, d, size) for x, d in zip(vals, dims)), **params)
        return outs, ([0] * len(outs) if prim.multiple_results else 0)
    return rule


def _not_differentiable(prim):
    """JAX defines no jvp for the LAPACK building blocks of qr: its message, as a rule."""
    def rule(primals, tangents, **params):
        raise NotImplementedError(f"Differentiation rule for '{prim}' not implemented")
    return rule


def _sub_ctx(ctx, avals_in, avals_out):
    return LoweringRuleContext(ctx.module_ctx, ctx.block, avals_in, avals_out, ctx.source_info)


def _ok(ctx, info, batch, direction="EQ"):
    """LAPACK's `info` (one per matrix of the `batch`) against 0: where the routine worked."""
    aval = ShapedArray(batch, np.int32)
    return hl.compare(ctx, info, hl.splat(ctx, 0, np.int32, batch), direction, aval)


def _nan_unless(ctx, ok, x, aval, batch):
    """x where `ok` (a flag per matrix of the batch), NaN in failed matrices (as JAX)."""
    ok = hl.broadcast_in_dim(ctx, ok, aval.shape, np.bool_, list(range(len(batch))))
    nan = np.nan + np.nan * 1j if dtypes.is_complex(aval.dtype) else np.nan
    return hl.select(ctx, ok, x, hl.splat(ctx, nan, aval.dtype, aval.shape), aval)


def _shape(x):
    return bu.shape(x)


def _dtype(x):
    return get_aval(x).dtype


def _T(x):
    nd = len(_shape(x))
    return shapes.transpose(x, (*range(nd - 2), nd - 1, nd - 2))


def _H(x):
    return ew.conj(_T(x)) if dtypes.is_complex(_dtype(x)) else _T(x)


def symmetrize(x):
    """(x + x^H) / 2: the Hermitian part of x."""
    return ew.div(ew.add(x, _H(x)), np.array(2, _dtype(x)))


def _dot(a, b):
    """Matrix product over the last two dims, batched over equal leading dims, at HIGHEST
    precision (as JAX's rules compute theirs)."""
    nd = len(_shape(a))
    batch = tuple(range(nd - 2))
    return dot_general(a, b, (((nd - 1,), (nd - 2,)), (batch, batch)),
                       precision=Precision.HIGHEST)


def _tri(n, m, k):
    """Booleans (n, m): i + k >= j (JAX's lax._tri)."""
    rows = ew.add(shapes.broadcasted_iota(np.int32, (n, m), 0), np.int32(k))
    return ew.ge(rows, shapes.broadcasted_iota(np.int32, (n, m), 1))


def _tri_mask(x, k):
    """_tri for x's last two dims, broadcast over its batch dims."""
    shape = _shape(x)
    nd = len(shape)
    mask = _tri(*shape[-2:], k)
    return mask if nd == 2 else shapes.broadcast_in_dim(mask, shape, (nd - 2, nd - 1))


def _zeros(x):
    return shapes.broadcast_in_dim(np.zeros((), _dtype(x)), _shape(x), ())


def _tril(x, k=0):
    """x with the entries above diagonal k zeroed."""
    mask = _tri_mask(x, k)
    return ew.select(mask, x, _zeros(x))


def _triu(x, k=0):
    """x with the entries below diagonal k zeroed."""
    mask = _tri_mask(x, k - 1)
    return ew.select(mask, _zeros(x), x)


def _eye(dtype, n, m=None):
    """The identity (n, m) of `dtype`, built as JAX's lax._eye builds it."""
    m = n if m is None else m
    rows = ew.add(shapes.broadcasted_iota(np.int32, (n, m), 0), np.int32(0))
    return conversion.convert_element_type(
        ew.eq(rows, shapes.broadcasted_iota(np.int32, (n, m), 1)), dtype)


def _diag(x):
    """The diagonals of a batch of square matrices (a strided slice of the flattened matrix,
    so linear and transposable)."""
    *batch, k, _ = _shape(x)
    flat = shapes.reshape(x, (*batch, k * k))
    return slicing.slice(flat, (0,) * (len(batch) + 1), (*batch, k * k),
                         (1,) * len(batch) + (k + 1,))


def _permute_rows(x, perm):
    """x[..., perm, :] per matrix (perm has x's batch dims): a gather with batching dims."""
    *batch, _, n = _shape(x)
    nb = len(batch)
    dn = GatherDimensionNumbers(offset_dims=(nb + 1,), collapsed_slice_dims=(nb,),
                                start_index_map=(nb,), operand_batching_dims=tuple(range(nb)),
                                start_indices_batching_dims=tuple(range(nb)))
    return gather(x, shapes.expand_dims(perm, (nb + 1,)), dn, (1,) * nb + (1, n),
                  unique_indices=True, mode=GatherScatterMode.PROMISE_IN_BOUNDS)


# ------------------------------------------------------------------ cholesky
# cholesky(a) -> L with a = L @ L^H in its lower triangle (the upper one is left as it was, as
# LAPACK and JAX's primitive leave it); NaN where the factorization fails. The upper triangle
# of the operand is never read (jax's `cholesky` symmetrizes first).
cholesky_p = Primitive("cholesky")


def _cholesky_abstract_eval(x):
    _check_matrix("cholesky", x, square=True)
    return ShapedArray(x.shape, x.dtype)


def _cholesky_lowering(ctx, x):
    aval = ctx.avals_in[0]
    info_aval = ShapedArray(aval.shape[:-2], np.int32)
    if ctx.platform == "cpu":
        factor, info = lapack.custom_call(ctx, "potrf", aval.dtype, [x], [aval, info_aval],
                                          aliases={0: 0}, uplo=char("L"))
    else:
        factor, info = gpu_solver.custom_call(ctx, "cusolver_potrf_ffi", [x],
                                              [aval, info_aval], aliases={0: 0}, lower=True)
    # (potrf leaves the operand's upper triangle: `cholesky` zeroes it, as JAX's does)
    return _nan_unless(ctx, _ok(ctx, info, aval.shape[:-2]), factor, aval, aval.shape[:-2])


def _cholesky_jvp(primals, tangents):
    # forward-mode rule from https://arxiv.org/pdf/1602.07527.pdf (JAX's): with
    # tmp = L^-1 dA L^-H, dL = L phi(tmp), phi = lower triangle with half the diagonal
    x, = primals
    sigma_dot = ad.instantiate(tangents[0])
    L = _tril(cholesky_p.bind(x))
    n = _shape(x)[-1]
    tmp = triangular_solve(L, sigma_dot, left_side=False, transpose_a=True, conjugate_a=True,
                           lower=True)
    tmp = triangular_solve(L, tmp, left_side=True, transpose_a=False, lower=True)
    phi = _tril(tmp) / (np.array(1, _dtype(x)) + _eye(_dtype(x), n))
    return L, _dot(L, phi)


abstract_eval_rules[cholesky_p] = _cholesky_abstract_eval
lowering_rules[cholesky_p] = _cholesky_lowering


def _scipy_lapack(routine: str, dtype):
    """SciPy's wrapper of the LAPACK `routine` for `dtype` (the NumPy rules of the routines
    NumPy does not wrap); SciPy is optional, so the rule says so where it is absent."""
    try:
        import scipy.linalg.lapack  # deferred: optional and heavy, only these rules need it
    except ImportError:
        raise NotImplementedError(f"the NumPy rule of {routine} needs SciPy") from None
    return scipy.linalg.lapack.get_lapack_funcs(routine, dtype=dtype)


def _cholesky_numpy(x):
    """As potrf: the lower factor under the operand's upper triangle, NaN where x is not
    positive definite (matrix by matrix)."""
    out = np.empty_like(x)
    for i in np.ndindex(x.shape[:-2]):
        try:
            out[i] = np.linalg.cholesky(x[i]) + np.triu(x[i], 1)
        except np.linalg.LinAlgError:
            out[i] = np.nan
    return out


numpy_rules[cholesky_p] = _cholesky_numpy
jvp_rules[cholesky_p] = _cholesky_jvp
batching_rules[cholesky_p] = _batch_all_front(cholesky_p)


def cholesky(x, *, symmetrize_input: bool = True):
    """The lower Cholesky factor L of a Hermitian positive-definite x (x = L @ L^H), batched
    over leading dims; NaN where x is not positive definite. symmetrize_input=False reads
    only the lower triangle."""
    if symmetrize_input:
        x = symmetrize(x)
    return _tril(cholesky_p.bind(x))


# ------------------------------------------------------------------ triangular_solve
# Solves op(a) @ x = b (left_side) or x @ op(a) = b for x, a triangular; op transposes and/or
# conjugates. Linear in b (transpose: solve with op's transpose), JAX's jvp in a.
triangular_solve_p = Primitive("triangular_solve")


def _triangular_solve_abstract_eval(a, b, *, left_side, lower, transpose_a, conjugate_a,
                                    unit_diagonal):
    _check_matrix("triangular_solve", a, position=0)
    _check_matrix("triangular_solve", b, position=1)
    if a.dtype != b.dtype:
        raise TypeError(f"triangular_solve requires arguments to have the same dtypes, got "
                        f"{a.dtype.name}, {b.dtype.name}")
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"The first input to triangular_solve must be a square matrix. Got "
                         f"shape {a.shape[-2:]}.")
    if len(a.shape) != len(b.shape):
        raise TypeError(f"All inputs to triangular_solve must have the same number of batch "
                        f"dimensions, but got {[len(a.shape) - 2, len(b.shape) - 2]} batch "
                        f"dimensions for the inputs.")
    if a.shape[:-2] != b.shape[:-2] or a.shape[-1] != b.shape[-2 if left_side else -1]:
        raise ValueError(f"Incompatible shapes for arguments to triangular_solve: {a.shape} "
                         f"and {b.shape}.")
    return ShapedArray(b.shape, b.dtype)


def _triangular_solve_lowering(ctx, a, b, *, left_side, lower, transpose_a, conjugate_a,
                               unit_diagonal):
    a_aval, b_aval = ctx.avals_in
    if 0 in b_aval.shape:
        return b
    if conjugate_a and not transpose_a:      # trsm conjugates only while transposing
        a = ew._conj_lowering(_sub_ctx(ctx, [a_aval], [a_aval]), a, input_dtype=a_aval.dtype)
        conjugate_a = False
    if ctx.platform != "cpu":
        # XLA's own op (cuBLAS trsm on GPUs), as JAX lowers it off the CPU
        transpose = ("ADJOINT" if conjugate_a else "TRANSPOSE") if transpose_a else \
            "NO_TRANSPOSE"
        return ctx.op1("stablehlo.triangular_solve", [a, b], {
            "left_side": hlo.bool_attr(left_side), "lower": hlo.bool_attr(lower),
            "unit_diagonal": hlo.bool_attr(unit_diagonal),
            "transpose_a": hlo.enum("transpose", transpose)})
    trans = ("C" if conjugate_a else "T") if transpose_a else "N"
    return lapack.custom_call(
        ctx, "trsm", b_aval.dtype, [a, b], [b_aval], aliases={1: 0},
        side=char("L" if left_side else "R"), uplo=char("L" if lower else "U"),
        trans_x=char(trans), diag=char("U" if unit_diagonal else "N"))[0]


def _triangular_solve_jvp_a(g_a, ans, a, b, *, left_side, lower, transpose_a, conjugate_a,
                            unit_diagonal):
    # d(op(A)^-1 B) = -op(A)^-1 op(dA) op(A)^-1 B, using only dA's referenced triangle;
    # the product order is whichever is cheaper (a solve costs about a matmul)
    m, n = _shape(b)[-2:]
    k = 1 if unit_diagonal else 0
    g_a = ew.neg(_tril(g_a, k=-k) if lower else _triu(g_a, k=k))
    g_a = _T(g_a) if transpose_a else g_a
    g_a = ew.conj(g_a) if conjugate_a else g_a

    def a_inverse(rhs):
        return triangular_solve(a, rhs, left_side=left_side, lower=lower,
                                transpose_a=transpose_a, conjugate_a=conjugate_a,
                                unit_diagonal=unit_diagonal)
    if left_side:
        return a_inverse(_dot(g_a, ans)) if m > n else _dot(a_inverse(g_a), ans)
    return a_inverse(_dot(ans, g_a)) if m < n else _dot(ans, a_inverse(g_a))


def _triangular_solve_transpose(ct, a, b, *, transpose_a, **params):
    # linear in b only (like div, swapped): the transpose solves with op(A)^T
    assert not ad.is_undefined(a) and ad.is_undefined(b)
    if type(ct) is ad.Zero:
        return [None, ad.Zero(b.aval)]
    return [None, triangular_solve_p.bind(a, ct, transpose_a=not transpose_a, **params)]


def _triangular_solve_batching(vals, dims, *, left_side, **params):
    (a, b), (a_dim, b_dim) = vals, dims
    if a_dim is None:
        # one a for the whole batch: fold b's batch into its columns (rows when solving from
        # the right), a single bigger solve, as JAX
        if left_side:
            b = bu.moveaxis(b, b_dim, -1)
            flat = shapes.reshape(b, (*_shape(b)[:-2], _shape(b)[-2] * _shape(b)[-1]))
            out_dim = len(_shape(b)) - 1
        else:
            b = bu.moveaxis(b, b_dim, -2)
            s = _shape(b)
            flat = shapes.reshape(b, (*s[:-3], s[-3] * s[-2], s[-1]))
            out_dim = len(s) - 2
        out = triangular_solve_p.bind(a, flat, left_side=left_side, **params)
        return shapes.reshape(out, _shape(b)), out_dim
    size = bu.axis_size_of(vals, dims)
    return triangular_solve_p.bind(bu.bdim_at_front(a, a_dim, size),
                                   bu.bdim_at_front(b, b_dim, size), left_side=left_side,
                                   **params), 0


abstract_eval_rules[triangular_solve_p] = _triangular_solve_abstract_eval
lowering_rules[triangular_solve_p] = _triangular_solve_lowering


def _triangular_solve_numpy(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    """Substitution row by row, as trsm: a zero pivot gives inf or NaN, not an error. A
    right-side solve x op(a) = b is the left-side op(a)^T x^T = b^T."""
    a = np.tril(a) if lower else np.triu(a)
    a = a.conj() if conjugate_a else a
    if transpose_a:
        a, lower = np.swapaxes(a, -1, -2), not lower
    if not left_side:
        a, lower, b = np.swapaxes(a, -1, -2), not lower, np.swapaxes(b, -1, -2)
    x = np.zeros_like(b)
    n = a.shape[-1]
    for i in range(n) if lower else range(n - 1, -1, -1):
        rest = b[..., i, :] - (a[..., i:i + 1, :] @ x)[..., 0, :]     # x's unsolved rows are 0
        x[..., i, :] = rest if unit_diagonal else rest / a[..., i, i][..., None]
    return x if left_side else np.swapaxes(x, -1, -2)


numpy_rules[triangular_solve_p] = _triangular_solve_numpy
ad.defjvp(triangular_solve_p, _triangular_solve_jvp_a,
          lambda g_b, ans, a, b, **params: triangular_solve_p.bind(a, g_b, **params))
transpose_rules[triangular_solve_p] = _triangular_solve_transpose
batching_rules[triangular_solve_p] = _triangular_solve_batching


def triangular_solve(a, b, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False):
    """x with op(a) @ x = b (left_side) or x @ op(a) = b, a triangular (only the `lower` or
    upper triangle is read); op transposes and/or conjugates a. A b with one dimension fewer
    than a is a (batch of) vector(s).

    >>> triangular_solve(np.float32([[2, 0], [1, 1]]), np.float32([2, 3]), left_side=True,
    ...                  lower=True)
    Array([1., 2.], dtype=float32)
    """
    conjugate_a = bool(conjugate_a) and dtypes.is_complex(_dtype(a))
    singleton = len(_shape(b)) == len(_shape(a)) - 1
    if singleton:
        b = shapes.expand_dims(b, (-1 if left_side else -2,))
    out = triangular_solve_p.bind(a, b, left_side=bool(left_side), lower=bool(lower),
                                  transpose_a=bool(transpose_a), conjugate_a=conjugate_a,
                                  unit_diagonal=bool(unit_diagonal))
    if singleton:
        out = shapes.squeeze(out, (-1 if left_side else -2,))
    return out


# ------------------------------------------------------------------ lu
# lu(a) -> (lu, pivots, permutation): P a = L U with L unit lower (below the diagonal of lu)
# and U upper (on and above it); pivots are LAPACK's row swaps (0-based), permutation the
# resulting row order. NaN where getrf fails outright (info < 0); singular matrices factor.
lu_p = Primitive("lu", multiple_results=True)


def _lu_abstract_eval(x):
    _check_matrix("lu", x)
    *batch, m, n = x.shape
    return [ShapedArray(x.shape, x.dtype), ShapedArray((*batch, min(m, n)), np.int32),
            ShapedArray((*batch, m), np.int32)]


def _lu_lowering(ctx, x):
    lu_aval, pivots_aval, perm_aval = ctx.avals_out
    info_aval = ShapedArray(lu_aval.shape[:-2], np.int32)
    outs = [lu_aval, pivots_aval, info_aval]
    if ctx.platform == "cpu":
        lu, pivots, info = lapack.custom_call(ctx, "getrf", lu_aval.dtype, [x], outs,
                                              aliases={0: 0})
    else:
        lu, pivots, info = gpu_solver.custom_call(ctx, "cusolver_getrf_ffi", [x], outs,
                                                  aliases={0: 0})
    pivots = ctx.block.op1("stablehlo.subtract", [pivots, hl.splat(
        ctx, 1, np.int32, pivots_aval.shape)], hl.aval_type(pivots_aval))   # 1-based -> 0-based
    batch = lu_aval.shape[:-2]
    lu = _nan_unless(ctx, _ok(ctx, info, batch, "GE"), lu, lu_aval, batch)
    perm = _lu_pivots_to_permutation_lowering(
        _sub_ctx(ctx, [pivots_aval], [perm_aval]), pivots, permutation_size=lu_aval.shape[-2])
    return [lu, pivots, perm]


def _lu_jvp(primals, tangents):
    # De Hoog, Anderssen and Lukas, "Differentiation of matrix functionals using triangular
    # factorization" (JAX's rule): with X = L^-1 P dA U^-1, dL = L tril(X, -1), dU = triu(X) U
    a, = primals
    a_dot = ad.instantiate(tangents[0])
    lu, pivots, permutation = lu_p.bind(a)
    *batch, m, n = _shape(a)
    dtype, k, nb = _dtype(a), min(m, n), len(batch)
    zero = np.zeros((), dtype)
    l = slicing.pad(_tril(lu[..., :, :k], -1), zero, [(0, 0, 0)] * (nb + 1) + [(0, m - k, 0)])
    l = l + _eye(dtype, m)
    u = slicing.pad(_triu(lu[..., :k, :]), zero, [(0, 0, 0)] * nb + [(0, n - k, 0), (0, 0, 0)])
    u_eye = slicing.pad(_eye(dtype, n - k), zero, ((k, 0, 0), (k, 0, 0)))
    u = u + u_eye                                   # a unit tail keeps u invertible
    la = triangular_solve(l, _permute_rows(a_dot, permutation), left_side=True, lower=True,
                          unit_diagonal=True)
    lau = triangular_solve(u, la, left_side=False, lower=False)
    lu_dot = _dot(l, _tril(lau, -1)) + _dot(_triu(lau), u)
    return [lu, pivots, permutation], [lu_dot, ad.Zero.like(pivots), ad.Zero.like(permutation)]


abstract_eval_rules[lu_p] = _lu_abstract_eval
lowering_rules[lu_p] = _lu_lowering


def _lu_numpy(x):
    """Unblocked getrf over the whole batch at once: per column, the row of the largest
    magnitude swapped up, the column below divided by the pivot (left as is where the pivot
    is 0: singular matrices factor), the trailing block updated."""
    *batch, m, n = x.shape
    k = min(m, n)
    a = x.reshape(-1, m, n).copy()
    rows = np.arange(a.shape[0])
    pivots = np.zeros((a.shape[0], k), np.int32)
    for j in range(k):
        p = j + np.argmax(np.abs(a[:, j:, j]), axis=1)
        pivots[:, j] = p
        a[rows, j], a[rows, p] = a[rows, p], a[rows, j].copy()
        pivot = a[:, j, j][:, None]
        a[:, j + 1:, j] = np.where(pivot == 0, a[:, j + 1:, j], a[:, j + 1:, j] / pivot)
        a[:, j + 1:, j + 1:] -= a[:, j + 1:, j:j + 1] * a[:, j:j + 1, j + 1:]
    pivots = pivots.reshape(*batch, k)
    return [a.reshape(x.shape), pivots,
            _lu_pivots_to_permutation_numpy(pivots, permutation_size=m)]


numpy_rules[lu_p] = _lu_numpy
jvp_rules[lu_p] = _lu_jvp
batching_rules[lu_p] = _batch_all_front(lu_p)


def lu(x):
    """LU decomposition with partial pivoting: (lu, pivots, permutation) with
    x[..., permutation, :] == L @ U (L: unit lower triangle of lu, U: its upper triangle).

    >>> lu(np.float32([[1, 2], [3, 4]]))[2]
    Array([1, 0], dtype=int32)
    """
    return tuple(lu_p.bind(x))


# lu_pivots_to_permutation(pivots, permutation_size): the row order that applying the swaps
# pivots[0], pivots[1], ... to iota(permutation_size) produces.
lu_pivots_to_permutation_p = Primitive("lu_pivots_to_permutation")


def _lu_pivots_to_permutation_abstract_eval(pivots, *, permutation_size):
    if pivots.dtype != np.int32:
        raise TypeError(f"lu_pivots_to_permutation does not accept dtype {pivots.dtype.name}. "
                        f"Accepted dtypes are subtypes of int32.")
    if len(pivots.shape) < 1:
        raise TypeError(f"Input 0 to lu_pivots_to_permutation must have rank at least 1, but "
                        f"got shape={pivots.shape}")
    if not permutation_size >= pivots.shape[-1]:
        raise ValueError(f"Output permutation size {permutation_size} has to exceed the "
                         f"trailing dimension of the pivots. Got pivots size "
                         f"{pivots.shape[-1]}")
    return ShapedArray((*pivots.shape[:-1], permutation_size), np.int32)


def _lu_pivots_to_permutation_impl(swaps, *, permutation_size):
    """A loop over the swaps, each exchanging two entries of the permutation (selects against
    an iota, so the whole batch swaps at once)."""
    *batch, k = _shape(swaps)
    nb, shape = len(batch), (*batch, permutation_size)
    iota = shapes.broadcasted_iota(np.int32, shape, nb)
    if permutation_size == 0 or k == 0:
        return iota
    spread = lambda v: shapes.broadcast_in_dim(v, shape, tuple(range(nb + 1)))

    def body(i, perm):
        i = conversion.convert_element_type(i, np.int32)   # fori_loop's index is a weak int
        j = slicing.dynamic_slice_in_dim(swaps, i, 1, nb)              # (*batch, 1)
        x = slicing.dynamic_slice_in_dim(perm, i, 1, nb)               # perm[..., i]
        y = _take_last(perm, j)                                        # perm[..., j]
        perm = ew.select(ew.eq(iota, i), spread(y), perm)
        return ew.select(ew.eq(iota, spread(j)), spread(x), perm)
    return fori_loop(np.int32(0), np.int32(k), body, iota)


def _take_last(x, j):
    """x[..., j] for j of shape (*batch, 1) holding one index per row: a masked sum."""
    iota = shapes.broadcasted_iota(np.int32, _shape(x), len(_shape(x)) - 1)
    hit = ew.eq(iota, shapes.broadcast_in_dim(j, _shape(x), tuple(range(len(_shape(x))))))
    return shapes.expand_dims(reduce_sum(ew.select(hit, x, _zeros(x)), (len(_shape(x)) - 1,)),
                              (len(_shape(x)) - 1,))


_lu_pivots_to_permutation_loop = hl.lower_fun(_lu_pivots_to_permutation_impl)


def _lu_pivots_to_permutation_lowering(ctx, pivots, *, permutation_size):
    if ctx.platform == "cpu":
        return _lu_pivots_to_permutation_loop(ctx, pivots, permutation_size=permutation_size)
    return gpu_solver.custom_call(ctx, "cu_lu_pivots_to_permutation", [pivots],
                                  ctx.avals_out, column_major=False)[0]


abstract_eval_rules[lu_pivots_to_permutation_p] = _lu_pivots_to_permutation_abstract_eval
lowering_rules[lu_pivots_to_permutation_p] = _lu_pivots_to_permutation_lowering


def _lu_pivots_to_permutation_numpy(pivots, *, permutation_size):
    """The identity permutation with row j swapped with row pivots[j], for each j in turn."""
    *batch, k = pivots.shape
    swaps = pivots.reshape(-1, k)
    rows = np.arange(swaps.shape[0])
    perm = np.tile(np.arange(permutation_size, dtype=np.int32), (swaps.shape[0], 1))
    for j in range(k):
        p = swaps[:, j]
        perm[rows, j], perm[rows, p] = perm[rows, p], perm[rows, j].copy()
    return perm.reshape(*batch, permutation_size)


numpy_rules[lu_pivots_to_permutation_p] = _lu_pivots_to_permutation_numpy
ad.defjvp_zero(lu_pivots_to_permutation_p)
batching_rules[lu_pivots_to_permutation_p] = _batch_all_front(lu_pivots_to_permutation_p)


def lu_pivots_to_permutation(pivots, permutation_size: int):
    """The permutation (int32, (..., permutation_size)) that LU's row swaps `pivots` make."""
    return lu_pivots_to_permutation_p.bind(pivots, permutation_size=int(permutation_size))


def lu_solve(lu, permutation, b, trans: int = 0):
    """x with a @ x = b (trans=0), a^T @ x = b (1) or a^H @ x = b (2), from lu(a); b is a
    (batch of) vector(s) (one dimension fewer than lu) or matrices, leading dims broadcast."""
    lu_shape, b_shape = _shape(lu), _shape(b)
    if len(lu_shape) < 2 or lu_shape[-1] != lu_shape[-2]:
        raise ValueError(f"last two dimensions of LU decomposition must be equal, got shape "
                         f"{lu_shape}")
    if len(b_shape) < 1:
        raise ValueError(f"b matrix must have rank >= 1, got shape {b_shape}")
    rhs_vector = len(lu_shape) == len(b_shape) + 1
    if rhs_vector:
        if b_shape[-1] != lu_shape[-1]:
            raise ValueError(f"When LU decomposition matrix and b have the same number of "
                             f"dimensions, last axis of LU decomposition matrix (shape "
                             f"{lu_shape}) and b array (shape {b_shape}) must match")
        b = shapes.expand_dims(b, (len(b_shape),))
    elif b_shape[-2] != lu_shape[-1]:
        raise ValueError(f"When LU decomposition matrix and b different numbers of dimensions, "
                         f"last axis of LU decomposition matrix (shape {lu_shape}) and second "
                         f"to last axis of b array (shape {b_shape}) must match")
    batch = np.broadcast_shapes(lu_shape[:-2], _shape(permutation)[:-1], _shape(b)[:-2])
    spread = lambda x, tail: shapes.broadcast_in_dim(
        x, (*batch, *tail), tuple(range(len(batch) + len(tail) - len(_shape(x)),
                                        len(batch) + len(tail))))
    lu, b = spread(lu, lu_shape[-2:]), spread(b, _shape(b)[-2:])
    permutation = spread(permutation, _shape(permutation)[-1:])
    if trans == 0:
        x = _permute_rows(b, permutation)
        x = triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
        x = triangular_solve(lu, x, left_side=True, lower=False)
    elif trans in (1, 2):
        conj = trans == 2
        x = triangular_solve(lu, b, left_side=True, lower=False, transpose_a=True,
                             conjugate_a=conj)
        x = triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True,
                             transpose_a=True, conjugate_a=conj)
        iota = shapes.broadcasted_iota(np.int32, _shape(permutation), len(batch))
        x = _permute_rows(x, sort_key_val(permutation, iota)[1])      # inverse permutation
    else:
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    return shapes.squeeze(x, (-1,)) if rhs_vector else x


# ------------------------------------------------------------------ geqrf, geqp3, householder
# geqrf(a) -> (r_and_reflectors, taus): LAPACK's Householder QR, R in the upper triangle and
# the reflectors below it; geqp3(a, jpvt) the same with column pivoting (jpvt: 1-based column
# order). householder_product(a, taus) -> Q from those reflectors. None is differentiable
# (JAX defines no jvp for them either): qr_p's jvp differentiates the whole factorization.
geqrf_p = Primitive("geqrf", multiple_results=True)


def _geqrf_abstract_eval(x):
    _check_matrix("geqrf", x)
    *batch, m, n = x.shape
    return [ShapedArray(x.shape, x.dtype), ShapedArray((*batch, min(m, n)), x.dtype)]


def _geqrf_lowering(ctx, x):
    if ctx.platform != "cpu":
        return gpu_solver.custom_call(ctx, "cusolver_geqrf_ffi", [x], ctx.avals_out,
                                      aliases={0: 0})
    return lapack.custom_call(ctx, "geqrf", ctx.avals_in[0].dtype, [x], ctx.avals_out,
                              aliases={0: 0})


abstract_eval_rules[geqrf_p] = _geqrf_abstract_eval
lowering_rules[geqrf_p] = _geqrf_lowering


def _geqrf_numpy(x):
    """LAPACK's geqrf through numpy.linalg.qr(mode="raw"), which returns its output
    transposed (Fortran order), matrix by matrix."""
    *batch, m, n = x.shape
    a, taus = np.empty_like(x), np.empty((*batch, min(m, n)), x.dtype)
    for i in np.ndindex(tuple(batch)):
        h, tau = np.linalg.qr(x[i], mode="raw")
        a[i], taus[i] = h.T, tau
    return [a, taus]


numpy_rules[geqrf_p] = _geqrf_numpy
jvp_rules[geqrf_p] = _not_differentiable(geqrf_p)
batching_rules[geqrf_p] = _batch_all_front(geqrf_p)


def geqrf(a):
    """LAPACK's QR: (a_out, taus), R in a_out's upper triangle, Q as Householder reflectors
    below it and in taus."""
    return tuple(geqrf_p.bind(a))


geqp3_p = Primitive("geqp3", multiple_results=True)


def _geqp3_abstract_eval(a, jpvt, *, use_magma):
    _check_matrix("geqp3", a, position=0)
    *batch, m, n = a.shape
    if jpvt.dtype != np.int32 or jpvt.shape != (*batch, n):
        raise TypeError(f"geqp3 needs jpvt: int32[..., n] matching a, got a: "
                        f"{a.str_short()}, jpvt: {jpvt.str_short()}")
    return [ShapedArray(a.shape, a.dtype), ShapedArray(jpvt.shape, np.int32),
            ShapedArray((*batch, min(m, n)), a.dtype)]


def _geqp3_lowering(ctx, a, jpvt, *, use_magma):
    if ctx.platform != "cpu":
        # LAPACK on the host (or MAGMA on the device, "auto" lets jaxlib choose by size)
        gpu_solver.initialize_hybrid_kernels()
        magma = "auto" if use_magma is None else "on" if use_magma else "off"
        return gpu_solver.custom_call(ctx, "cuhybrid_geqp3", [a, jpvt], ctx.avals_out,
                                      aliases={0: 0, 1: 1}, magma=magma)
    return lapack.custom_call(ctx, "geqp3", ctx.avals_in[0].dtype, [a, jpvt], ctx.avals_out,
                              aliases={0: 0, 1: 1})


abstract_eval_rules[geqp3_p] = _geqp3_abstract_eval
lowering_rules[geqp3_p] = _geqp3_lowering


def _geqp3_numpy(a, jpvt, *, use_magma):
    """LAPACK's geqp3 through SciPy, matrix by matrix; SciPy's wrapper takes no jpvt, so only
    all-free columns (jpvt 0, what qr passes) are supported."""
    if jpvt.any():
        raise NotImplementedError("geqp3 with fixed columns (nonzero jpvt) has no NumPy rule")
    *batch, m, n = a.shape
    out, pivots = np.empty_like(a), np.empty_like(jpvt)
    taus = np.empty((*batch, min(m, n)), a.dtype)
    for i in np.ndindex(tuple(batch)):
        out[i], pivots[i], taus[i], _, _ = _scipy_lapack("geqp3", a.dtype)(a[i])
    return [out, pivots, taus]


numpy_rules[geqp3_p] = _geqp3_numpy
jvp_rules[geqp3_p] = _not_differentiable(geqp3_p)
batching_rules[geqp3_p] = _batch_all_front(geqp3_p)


def geqp3(a, jpvt, *, use_magma=None):
    """Column-pivoted QR: (a_out, jpvt, taus) with a[:, jpvt - 1] = Q R (1-based jpvt; a
    nonzero entry of the input jpvt pins that column to the front)."""
    return tuple(geqp3_p.bind(a, jpvt, use_magma=use_magma))


householder_product_p = Primitive("householder_product")


def _householder_product_abstract_eval(a, taus):
    _check_matrix("householder_product", a)
    *batch, m, n = a.shape
    if m < n:
        raise ValueError(f"The first argument to householder_product must have at least as "
                         f"many rows as columns, got shape {a.shape}")
    if taus.dtype != a.dtype or tuple(taus.shape[:-1]) != tuple(batch) or \
            taus.shape[-1] > min(m, n):
        raise ValueError(f"householder_product needs taus of shape batch + (k,) with k <= "
                         f"min(m, n) and a's dtype, got a: {a.str_short()}, taus: "
                         f"{taus.str_short()}")
    return ShapedArray(a.shape, a.dtype)


def _householder_product_lowering(ctx, a, taus):
    dtype = ctx.avals_in[0].dtype
    if ctx.platform != "cpu":
        return gpu_solver.custom_call(ctx, "cusolver_orgqr_ffi", [a, taus], ctx.avals_out,
                                      aliases={0: 0})[0]
    return lapack.custom_call(ctx, "ungqr" if dtypes.is_complex(dtype) else "orgqr", dtype,
                              [a, taus], ctx.avals_out, aliases={0: 0})[0]


abstract_eval_rules[householder_product_p] = _householder_product_abstract_eval
lowering_rules[householder_product_p] = _householder_product_lowering


def _householder_product_numpy(a, taus):
    """orgqr: the first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H, v_i being column
    i of `a` below the diagonal with a unit at it; applied to [I; 0] right to left."""
    m, n = a.shape[-2:]
    q = np.broadcast_to(np.eye(m, n, dtype=a.dtype), a.shape).copy()
    for i in reversed(range(taus.shape[-1])):
        v = a[..., :, i].copy()
        v[..., :i], v[..., i] = 0, 1
        q -= taus[..., i, None, None] * v[..., :, None] * (v.conj()[..., None, :] @ q)
    return q


numpy_rules[householder_product_p] = _householder_product_numpy
jvp_rules[householder_product_p] = _not_differentiable(householder_product_p)
batching_rules[householder_product_p] = _batch_all_front(householder_product_p)


def householder_product(a, taus):
    """The orthogonal (unitary) Q that geqrf's reflectors (a's lower part, taus) make."""
    return householder_product_p.bind(a, taus)


# ormqr(a, taus, c) -> Q c, Q^H c, c Q or c Q^H (left, transpose) with Q the product of
# geqrf's reflectors (a's lower part, taus), without forming Q: LAPACK's ormqr/unmqr on the
# CPU, cuSOLVER's ormqr on CUDA GPUs, as in JAX; no derivative, as in JAX.
ormqr_p = Primitive("ormqr")


def _ormqr_abstract_eval(a, taus, c, *, left, transpose):
    for i, x in enumerate((a, taus, c)):
        check_dtype("ormqr", x, INEXACT, position=i)
    m = a.shape[-2]
    if left and c.shape[-2] != m:
        raise ValueError(f"ormqr with left=True expects c to have the same number of rows as "
                         f"the Householder matrix a. Got a shape {a.shape[-2:]} and c shape "
                         f"{c.shape[-2:]}.")
    if not left and c.shape[-1] != m:
        raise ValueError(f"ormqr with left=False expects c to have the same number of columns "
                         f"as the Householder matrix a has rows. Got a shape {a.shape[-2:]} "
                         f"and c shape {c.shape[-2:]}.")
    return ShapedArray(c.shape, c.dtype)


def _ormqr_lowering(ctx, a, taus, c, *, left, transpose):
    dtype = ctx.avals_in[0].dtype
    if ctx.platform != "cpu":
        return gpu_solver.custom_call(ctx, "cusolver_ormqr_ffi", [a, taus, c], ctx.avals_out,
                                      aliases={2: 0}, left=bool(left),
                                      transpose=bool(transpose))[0]
    flag = lambda b: "true" if b else "false"              # noqa: E731
    return lapack.custom_call(ctx, "unmqr" if dtypes.is_complex(dtype) else "ormqr", dtype,
                              [a, taus, c], ctx.avals_out, aliases={2: 0}, left=flag(left),
                              transpose=flag(transpose))[0]


abstract_eval_rules[ormqr_p] = _ormqr_abstract_eval
lowering_rules[ormqr_p] = _ormqr_lowering


def _ormqr_numpy(a, taus, c, *, left, transpose):
    """Q (or Q^H) times c from either side, Q = H_1 ... H_k formed whole (m x m) as
    householder_product forms its first columns."""
    m = a.shape[-2]
    wide = np.zeros((*a.shape[:-1], m), a.dtype)
    wide[..., :a.shape[-1]] = a[..., :m]
    q = _householder_product_numpy(wide, taus)
    q = np.swapaxes(q, -1, -2).conj() if transpose else q
    return (q @ c if left else c @ q).astype(c.dtype, copy=False)


numpy_rules[ormqr_p] = _ormqr_numpy
jvp_rules[ormqr_p] = _not_differentiable("ormqr")
batching_rules[ormqr_p] = _batch_all_front(ormqr_p)


def ormqr(a, taus, c, *, left: bool = True, transpose: bool = False):
    """Q @ c (left), c @ Q (not left), with Q^H for Q where `transpose`: Q the product of the
    Householder reflectors geqrf leaves in a's lower part and taus, never formed."""
    return ormqr_p.bind(a, taus, c, left=left, transpose=transpose)


# ------------------------------------------------------------------ qr
# qr(a) -> (q, r[, p]) with a[..., p] = q @ r: lowered as geqrf/geqp3 then householder_product
# (JAX's composition, inlined), differentiated as a whole by JAX's rule.
qr_p = Primitive("qr", multiple_results=True)


def _qr_abstract_eval(x, *, pivoting, full_matrices, use_magma):
    _check_matrix("qr", x)
    *batch, m, n = x.shape
    k = m if full_matrices else min(m, n)
    outs = [ShapedArray((*batch, m, k), x.dtype), ShapedArray((*batch, k, n), x.dtype)]
    return outs + [ShapedArray((*batch, n), np.int32)] if pivoting else outs


def _qr_impl(a, *, pivoting, full_matrices, use_magma):
    *batch, m, n = _shape(a)
    dtype, nd = _dtype(a), len(batch) + 2
    if m == 0 or n == 0:
        k = m if full_matrices else min(m, n)
        q = shapes.broadcast_in_dim(_eye(dtype, m, k), (*batch, m, k), (nd - 2, nd - 1))
        r = shapes.broadcast_in_dim(np.zeros((), dtype), (*batch, k, n), ())
        return [q, r, shapes.broadcast_in_dim(np.int32(0), (*batch, n), ())] if pivoting \
            else [q, r]
    if pivoting:
        jpvt = shapes.broadcast_in_dim(np.int32(0), (*batch, n), ())
        r, p, taus = geqp3_p.bind(a, jpvt, use_magma=use_magma)
        p = ew.sub(p, np.int32(1))                     # geqp3's 1-based columns -> 0-based
    else:
        r, taus = geqrf_p.bind(a)
    if m < n:
        q = householder_product_p.bind(slicing.slice(r, (0,) * nd, (*batch, m, m)), taus)
    elif full_matrices:
        q = slicing.pad(r, np.zeros((), dtype), [(0, 0, 0)] * (nd - 1) + [(0, m - n, 0)])
        q = householder_product_p.bind(q, taus)
    else:
        q = householder_product_p.bind(r, taus)
        r = slicing.slice(r, (0,) * nd, (*batch, n, n))
    return [q, _triu(r), p] if pivoting else [q, _triu(r)]


def _thin_qr_jvp(q, r, dx):
    """JVP of the QR of [..., m, n] matrices with m >= n: see
    j-towns.github.io/papers/qr-derivative.pdf for a terse derivation."""
    dx_rinv = triangular_solve(r, dx)                 # right side solve by default
    qt_dx_rinv = _H(q) @ dx_rinv
    qt_dx_rinv_lower = _tril(qt_dx_rinv, -1)
    do = qt_dx_rinv_lower - _H(qt_dx_rinv_lower)      # skew-symmetric
    # the correction complex inputs need (zero for real ones)
    eye = _eye(_dtype(do), _shape(r)[-1])
    do = do + eye * (qt_dx_rinv - qt_dx_rinv.real.astype(_dtype(qt_dx_rinv)))
    return q @ (do - qt_dx_rinv) + dx_rinv, (qt_dx_rinv - do) @ r


def _qr_jvp(primals, tangents, *, pivoting, full_matrices, use_magma):
    x, = primals
    dx = ad.instantiate(tangents[0])
    q, r, *p = qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices,
                         use_magma=use_magma)
    *_, m, n = _shape(x)
    if pivoting:
        dx = dx[..., p[0]] if len(_shape(x)) == 2 else _T(_permute_rows(_T(dx), p[0]))
    zero_p = [ad.Zero.like(p[0])] if pivoting else []
    if m < n:
        # wide: X = [X1 X2] = Q [R1 R2]; X1 = Q R1 is a square QR, and R2 = Q^H X2 gives
        # dR2 = dQ^H X2 + Q^H dX2
        x2, dx1, dx2, r1 = x[..., :, m:], dx[..., :, :m], dx[..., :, m:], r[..., :, :m]
        dq, dr1 = _thin_qr_jvp(q, r1, dx1)
        dr2 = _H(dq) @ x2 + _H(q) @ dx2
        return [q, r, *p], [dq, shapes.concatenate([dr1, dr2], len(_shape(dr1)) - 1), *zero_p]
    q_mn = q[..., :, :n] if full_matrices else q
    r_nn = r[..., :n, :n] if full_matrices else r
    dq, dr = _thin_qr_jvp(q_mn, r_nn, dx)
    if full_matrices and m != n:
        # the remaining columns of Q: https://arxiv.org/pdf/2409.13374 (eqs. 32, 33), with
        # Z_pn = Q_pn (Q_nn - I)^-1 from an LU solve rather than an inverse
        q_nn, q_pn, q_mp = q_mn[..., :n, :], q_mn[..., n:, :], q[..., :, n:]
        dq_nn, dq_pn = dq[..., :n, :], dq[..., n:, :]
        lu_factor, _, perm = lu_p.bind(q_nn - _eye(_dtype(q), n))
        z_pn_h = lu_solve(lu_factor, perm, _H(q_pn), trans=2)
        z_pn = _H(z_pn_h)
        dq_mp = dq @ z_pn_h - (q_mn + q_mp @ z_pn) @ _H(dq_pn - z_pn @ dq_nn)
        nd = len(_shape(dq))
        dq = shapes.concatenate([dq, dq_mp], nd - 1)
        dr = slicing.pad(dr, np.zeros((), _dtype(dr)), [(0, 0, 0)] * (nd - 2) +
                         [(0, m - n, 0), (0, 0, 0)])
    return [q, r, *p], [dq, dr, *zero_p]


abstract_eval_rules[qr_p] = _qr_abstract_eval
lowering_rules[qr_p] = hl.lower_fun(_qr_impl, multiple_results=True)
numpy_rules[qr_p] = hl.numpy_fun(_qr_impl, multiple_results=True)
jvp_rules[qr_p] = _qr_jvp
batching_rules[qr_p] = _batch_all_front(qr_p)


def qr(x, *, pivoting: bool = False, full_matrices: bool = True, use_magma=None):
    """(q, r) with x = q @ r, q unitary, r upper triangular; full_matrices=False gives the
    reduced factorization; pivoting=True gives (q, r, p) with x[..., p] = q @ r.

    >>> q, r = qr(np.float32([[3, 1], [4, 2]]))
    """
    return tuple(qr_p.bind(x, pivoting=bool(pivoting), full_matrices=bool(full_matrices),
                           use_magma=use_magma))


# ------------------------------------------------------------------ eigh
# eigh(a) -> (v, w): a = v diag(w) v^H for Hermitian a, w real and ascending; NaN where the
# LAPACK routine fails. Only the `lower` (or upper) triangle is read.
eigh_p = Primitive("eigh", multiple_results=True)


def _eigh_abstract_eval(x, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    _check_matrix("eigh", x)
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"Argument to symmetric eigendecomposition must have shape [..., n, "
                         f"n], got shape {x.shape}")
    *batch, n, _ = x.shape
    d = n if subset_by_index is None else subset_by_index[1] - subset_by_index[0]
    return [ShapedArray((*batch, n, d), x.dtype), ShapedArray((*batch, d), _real(x.dtype))]


def _eigh_lowering(ctx, x, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    aval = ctx.avals_in[0]
    v_aval, w_aval = ctx.avals_out
    n, batch = aval.shape[-1], aval.shape[:-2]
    if not (subset_by_index is None or tuple(subset_by_index) == (0, n)):
        raise NotImplementedError("subset_by_index not supported on CPU and GPU")
    if algorithm == EighImplementation.QDWH:
        raise NotImplementedError("QDWH implementation is only supported on TPU")
    outs = [v_aval, w_aval, ShapedArray(batch, np.int32)]
    if ctx.platform != "cpu":
        # cuSOLVER's choice (0), QR (1: syevd) or Jacobi (2: syevj)
        choice = {None: 0, EighImplementation.QR: 1, EighImplementation.JACOBI: 2}[algorithm]
        v, w, info = gpu_solver.custom_call(ctx, "cusolver_syevd_ffi", [x], outs,
                                            aliases={0: 0}, lower=bool(lower),
                                            algorithm=np.uint8(choice))
    elif algorithm == EighImplementation.JACOBI:
        raise NotImplementedError("Jacobi implementation is not supported on CPU")
    else:
        routine = "heevd" if dtypes.is_complex(aval.dtype) else "syevd"
        v, w, info = lapack.custom_call(ctx, routine, aval.dtype, [x], outs, aliases={0: 0},
                                        mode=char("V"), uplo=char("L" if lower else "U"))
    ok = _ok(ctx, info, batch)
    return [_nan_unless(ctx, ok, v, v_aval, batch), _nan_unless(ctx, ok, w, w_aval, batch)]


def _eigh_jvp(primals, tangents, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    # first-order perturbation theory for distinct eigenvalues (JAX's rule; see
    # https://people.maths.ox.ac.uk/gilesm/files/NA-08-01.pdf): with F_ij = 1/(w_j - w_i),
    # dv = v (F * (v^H da v)), dw = diag(v^H da v)
    a, = primals
    a_dot = ad.instantiate(tangents[0])
    n, dtype = _shape(a)[-1], _dtype(a)
    if not (subset_by_index is None or tuple(subset_by_index) == (0, n)):
        raise NotImplementedError("Derivatives not defined for partial eigen decomposition.")
    v, w_real = eigh_p.bind(symmetrize(a), lower=lower, sort_eigenvalues=sort_eigenvalues,
                            subset_by_index=subset_by_index, algorithm=algorithm)
    w = conversion.convert_element_type(w_real, dtype)
    eye_n = _eye(dtype, n)
    f = ew.integer_pow(eye_n + w[..., None, :] - w[..., None], -1) - eye_n   # no 1/0 NaNs
    vdag_adot_v = _dot(_dot(_H(v), a_dot), v)
    return [v, w_real], [_dot(v, f * vdag_adot_v), _diag(vdag_adot_v.real)]


abstract_eval_rules[eigh_p] = _eigh_abstract_eval
lowering_rules[eigh_p] = _eigh_lowering


def _eigh_numpy(x, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    """numpy.linalg.eigh (LAPACK's syevd/heevd, as the CPU lowering): ascending eigenvalues,
    vectors in columns; which sign or phase a vector takes is LAPACK's."""
    n = x.shape[-1]
    if not (subset_by_index is None or tuple(subset_by_index) == (0, n)):
        raise NotImplementedError("eigh's subset_by_index has no NumPy rule")
    w, v = np.linalg.eigh(x, UPLO="L" if lower else "U")
    return [v, w]


numpy_rules[eigh_p] = _eigh_numpy
jvp_rules[eigh_p] = _eigh_jvp
batching_rules[eigh_p] = _batch_all_front(eigh_p)


def eigh(x, *, lower: bool = True, symmetrize_input: bool = True,
         sort_eigenvalues: bool = True, subset_by_index=None, implementation=None):
    """(v, w): eigenvectors (columns of v) and ascending real eigenvalues of Hermitian x.

    >>> eigh(np.float32([[2, 1], [1, 2]]))[1]
    Array([1., 3.], dtype=float32)
    """
    if symmetrize_input:
        x = symmetrize(x)
    subset = None if subset_by_index is None else tuple(map(int, subset_by_index))
    return tuple(eigh_p.bind(x, lower=bool(lower), sort_eigenvalues=bool(sort_eigenvalues),
                             subset_by_index=subset, algorithm=implementation))


# ------------------------------------------------------------------ eig
# eig(a) -> [w, vl, vr], the nonsymmetric eigendecomposition: a @ vr[..., :, j] =
# w[..., j] vr[..., :, j] and vl[..., :, j]^H @ a = w[..., j] vl[..., :, j]^H. LAPACK's geev
# on CPU (jaxlib's typed-FFI kernel), cuSOLVER's geev or jaxlib's hybrid kernel (geev on the
# host) on CUDA GPUs, as JAX chooses, so results match JAX's bit for bit on CPU. w, vl and vr
# are complex (complex64 for float32/complex64 input, complex128 for 64-bit) even for real a.
# Each eigenvector has unit 2-norm and its largest component real (geev's choice); the order
# of the eigenvalues is LAPACK's. NaN in every output of a matrix geev fails on. Eigenvalues
# are differentiable; eigenvectors only with enable_eigvec_derivs=True (their derivative
# assumes distinct eigenvalues and a unique largest component, which JAX cannot check).
class EigImplementation(enum.Enum):
    """Implementation of the nonsymmetric eigendecomposition (CPU has LAPACK only)."""
    CUSOLVER = "cusolver"
    MAGMA = "magma"
    LAPACK = "lapack"


# geev's ComputationMode attribute (jaxlib's lapack.eig.ComputationMode): 'V' or 'N'
_COMPUTE = {True: ord("V"), False: ord("N")}

_EIGVEC_DERIVS_MESSAGE = (
    "Derivatives of non-symmetric eigenvectors are only valid under assumptions on the input "
    "that JAX cannot check (see the enable_eigvec_derivs argument to jax.lax.linalg.eig). "
    "Pass enable_eigvec_derivs=True to jax.lax.linalg.eig to opt in. See "
    "https://github.com/jax-ml/jax/issues/2748 for discussion.")


eig_p = Primitive("eig", multiple_results=True)


def _eig_abstract_eval(x, *, compute_left_eigenvectors, compute_right_eigenvectors,
                       enable_eigvec_derivs, implementation):
    _check_square("eig", x, f"The input to eig must be a square matrix. Got shape "
                            f"{x.shape[-2:]}.")
    dtype = dtypes.to_complex_dtype(x.dtype)
    vectors = [ShapedArray(x.shape, dtype)] * (compute_left_eigenvectors +
                                               compute_right_eigenvectors)
    return [ShapedArray(x.shape[:-1], dtype), *vectors]


def _eig_lowering(ctx, x, *, compute_left_eigenvectors, compute_right_eigenvectors,
                  enable_eigvec_derivs, implementation):
    if ctx.platform == "gpu":
        return _eig_gpu_lowering(ctx, x, compute_left_eigenvectors=compute_left_eigenvectors,
                                 compute_right_eigenvectors=compute_right_eigenvectors,
                                 implementation=implementation)
    if ctx.platform != "cpu":
        raise NotImplementedError(
            f"eig: jxkernel computes nonsymmetric eigendecompositions on the CPU (LAPACK) and "
            f"on CUDA GPUs only, not on the {ctx.platform!r} backend; put the operand on a CPU "
            f"device (jax.device_put(x, jax.devices('cpu')[0])) or use eigh for Hermitian "
            f"matrices")
    aval = ctx.avals_in[0]
    _check_geev(aval.dtype, implementation)
    batch = aval.shape[:-2]
    w_aval, v_aval = ShapedArray(aval.shape[:-1], aval.dtype), ctx.avals_out[0]
    v_aval = ShapedArray(aval.shape, v_aval.dtype)
    real = not dtypes.is_complex(aval.dtype)
    # the real kernel returns the eigenvalues as (real, imaginary) parts, and already unpacks
    # LAPACK's conjugate-pair columns into complex eigenvectors
    outs = [w_aval] * (2 if real else 1) + [v_aval, v_aval, ShapedArray(batch, np.int32)]
    *w, vl, vr, info = lapack.custom_call(
        ctx, "geev", aval.dtype, [x], outs,
        compute_left=f"{_COMPUTE[bool(compute_left_eigenvectors)]} : ui8",
        compute_right=f"{_COMPUTE[bool(compute_right_eigenvectors)]} : ui8")
    out_aval = ctx.avals_out[0]
    w = ctx.op1("stablehlo.complex", w, result_type=hl.aval_type(out_aval)) if real else w[0]
    ok = _ok(ctx, info, batch)
    results = [(w, out_aval)]
    if compute_left_eigenvectors:
        results.append((vl, v_aval))
    if compute_right_eigenvectors:
        results.append((vr, v_aval))
    return [_nan_unless(ctx, ok, r, a, batch) for r, a in results]


def _eig_gpu_lowering(ctx, x, *, compute_left_eigenvectors, compute_right_eigenvectors,
                      implementation):
    """JAX's choice on CUDA: cuSOLVER's geev (cuSOLVER >= 11.7.1, right eigenvectors only)
    unless left ones are wanted or another implementation is named; else the hybrid kernel,
    LAPACK's geev on the host (or MAGMA's on the device)."""
    aval = ctx.avals_in[0]
    if aval.dtype not in _LAPACK_DTYPES:
        raise ValueError(f"Unsupported dtype: {aval.dtype.name} (eig on the GPU takes float32, "
                         f"float64, complex64 or complex128; cast the operand)")
    batch = aval.shape[:-2]
    real = not dtypes.is_complex(aval.dtype)
    w_aval, info_aval = ctx.avals_out[0], ShapedArray(batch, np.int32)
    v_aval = ShapedArray(aval.shape, w_aval.dtype)
    left, right = bool(compute_left_eigenvectors), bool(compute_right_eigenvectors)
    have_geev = (gpu_solver.cusolver_version() or 0) >= 11701
    if implementation == EigImplementation.CUSOLVER or (
            implementation is None and have_geev and not left):
        if not have_geev:
            raise RuntimeError("Nonsymmetric eigendecomposition requires cusolver 11.7.1 or "
                               "newer")
        if left:
            raise NotImplementedError("Left eigenvectors are not supported by cusolver")
        packed = ShapedArray(aval.shape, aval.dtype)   # real input: LAPACK's packed columns
        _, w, vl, vr, info = gpu_solver.custom_call(
            ctx, "cusolver_geev_ffi", [x], [packed, w_aval, packed, packed, info_aval],
            left=left, right=right)
        if real and right:
            vr = hl.lower_fun(_unpack_conjugate_pairs)(
                LoweringRuleContext(ctx.module_ctx, ctx.block, [w_aval, packed], [v_aval],
                                    ctx.source_info), w, vr)
    else:
        magma = "auto" if implementation is None else \
            "on" if implementation == EigImplementation.MAGMA else "off"
        gpu_solver.initialize_hybrid_kernels()
        parts = ShapedArray(aval.shape[:-1], aval.dtype)
        outs = [parts] * (2 if real else 1) + [v_aval, v_aval, info_aval]
        *w, vl, vr, info = gpu_solver.custom_call(
            ctx, "cuhybrid_eig_real" if real else "cuhybrid_eig_comp", [x], outs,
            magma=magma, left=left, right=right)
        w = ctx.op1("stablehlo.complex", w, result_type=hl.aval_type(w_aval)) if real else w[0]
    ok = _ok(ctx, info, batch)
    results = [(w, w_aval)] + [(vl, v_aval)] * left + [(vr, v_aval)] * right
    return [_nan_unless(ctx, ok, r, a, batch) for r, a in results]


def _unpack_conjugate_pairs(w, v):
    """Complex eigenvectors from the packed real columns cuSOLVER (like LAPACK) returns: a
    complex-conjugate pair of eigenvalues shares two adjacent columns, re and im, for
    re + i im and re - i im."""
    nd = len(_shape(v))
    if _shape(w)[-1] == 0:
        return ew.complex(v, ew.sub(v, v))
    is_real = ew.eq(ew.imag(w), np.zeros((), _dtype(v)))
    odd = cumsum(conversion.convert_element_type(ew.bitwise_not(is_real), np.int32), nd - 2)
    starts = ew.eq(ew.rem(odd, np.int32(2)), np.int32(1))      # first column of a pair
    spread = lambda x: shapes.broadcast_in_dim(x, _shape(v), (*range(nd - 2), nd - 1))
    is_real, starts = spread(is_real), spread(starts)
    zero = np.zeros((), _dtype(v))
    shift = lambda lo, hi: slicing.pad(v, zero, [(0, 0, 0)] * (nd - 1) + [(lo, hi, 0)])
    next_column, previous_column = shift(-1, 1), shift(1, -1)
    re = ew.select(ew.bitwise_or(is_real, starts), v, previous_column)
    im = ew.select(starts, next_column, ew.neg(v))
    im = ew.select(is_real, shapes.broadcast_in_dim(zero, _shape(v), ()), im)
    return ew.complex(re, im)


def _solve(a, b):
    """a^-1 b for square a and matrices b (one LU of a)."""
    factors, _, permutation = lu(a)
    return lu_solve(factors, permutation, b)


def _eigenvector_jvp(w, v, da):
    """(dw, dv) by first-order perturbation theory for distinct eigenvalues (JAX's rule; see
    Sec. 3.1 of https://people.maths.ox.ac.uk/gilesm/files/NA-08-01.pdf). A v_j = w_j v_j fixes
    v_j only up to a complex factor: dv_j = u_j + c_j v_j, where c_j keeps geev's normalisation
    (unit 2-norm, real largest component k_j):
    c_j = -Re(v_j^H u_j) - i Im(u_kj,j) / v_kj,j."""
    n, nd = _shape(w)[-1], len(_shape(v))
    dtype = _dtype(v)
    eye = shapes.broadcast_in_dim(_eye(dtype, n), _shape(v), (nd - 2, nd - 1))
    spread = lambda x: shapes.broadcast_in_dim(x, _shape(v), tuple(
        i for i in range(nd) if i != nd - 2))                # (*batch, n) as rows of (.., n, n)
    row, col = shapes.expand_dims(w, (nd - 2,)), shapes.expand_dims(w, (nd - 1,))
    diffs = ew.sub(ew.add(eye, shapes.broadcast_in_dim(row, _shape(v), tuple(range(nd)))),
                   shapes.broadcast_in_dim(col, _shape(v), tuple(range(nd))))
    f = ew.sub(ew.integer_pow(diffs, -1), eye)              # 1/(w_j - w_i), 0 on the diagonal
    p = _dot(_solve(v, da), v)
    u = _dot(v, ew.mul(f, p))
    k = argmax(ew.abs(v), nd - 2, np.int32)
    hit = ew.eq(shapes.broadcasted_iota(np.int32, _shape(v), nd - 2), spread(k))
    mask = conversion.convert_element_type(hit, dtype)
    column_sum = lambda x: reduce_sum(x, (nd - 2,))
    c = ew.complex(ew.neg(ew.real(column_sum(ew.mul(ew.conj(v), u)))),
                   ew.div(ew.neg(ew.imag(column_sum(ew.mul(mask, u)))),
                          ew.real(column_sum(ew.mul(mask, v)))))
    return _diag(p), ew.add(u, ew.mul(v, spread(c)))


def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors,
             enable_eigvec_derivs, implementation):
    a, = primals
    vectors = compute_left_eigenvectors or compute_right_eigenvectors
    if vectors and not enable_eigvec_derivs:
        raise NotImplementedError(_EIGVEC_DERIVS_MESSAGE)
    # the right eigenvectors are needed either way: dw = diag(vr^-1 da vr)
    outs = eig_p.bind(a, compute_left_eigenvectors=compute_left_eigenvectors,
                      compute_right_eigenvectors=True, enable_eigvec_derivs=enable_eigvec_derivs,
                      implementation=implementation)
    w, vr = outs[0], outs[-1]
    da = conversion.convert_element_type(ad.instantiate(tangents[0]), _dtype(vr))
    if not vectors:
        nd = len(_shape(vr))
        return [w], [reduce_sum(ew.mul(_solve(vr, da), _T(vr)), (nd - 1,))]
    dw, dvr = _eigenvector_jvp(w, vr, da)
    primals_out, tangents_out = [w], [dw]
    if compute_left_eigenvectors:
        # left eigenvectors are the right ones of a^H, whose eigenvalues are conj(w)
        primals_out.append(outs[1])
        tangents_out.append(_eigenvector_jvp(ew.conj(w), outs[1], _H(da))[1])
    if compute_right_eigenvectors:
        primals_out.append(vr)
        tangents_out.append(dvr)
    return primals_out, tangents_out


abstract_eval_rules[eig_p] = _eig_abstract_eval
lowering_rules[eig_p] = _eig_lowering


def _check_geev(dtype, implementation):
    """What the CPU's eig (LAPACK's geev: the XLA lowering's and the NumPy rule's) refuses."""
    if implementation is not None and implementation != EigImplementation.LAPACK:
        raise ValueError("Only the lapack implementation is supported on CPU.")
    if dtype not in _LAPACK_DTYPES:
        raise NotImplementedError(f"eig: LAPACK has no geev for {dtype.name}; cast the "
                                  f"operand to float32, float64, complex64 or complex128")


def _eig_numpy(x, *, compute_left_eigenvectors, compute_right_eigenvectors,
               enable_eigvec_derivs, implementation):
    """LAPACK's geev, through SciPy where present (its left eigenvectors too; the same
    routine whichever vectors are asked for, so eigenvalues agree between calls), else
    numpy.linalg.eig (right eigenvectors only); a matrix with inf or NaN gets NaN in all its
    outputs, as XLA's kernel gives where geev fails."""
    _check_geev(x.dtype, implementation)
    outs = _eig_finite(np.where(np.isfinite(x), x, 0), compute_left_eigenvectors,
                       compute_right_eigenvectors)
    bad = ~np.isfinite(x).all(axis=(-2, -1))
    return [np.where(bad.reshape(bad.shape + (1,) * (o.ndim - bad.ndim)), np.nan, o)
            .astype(o.dtype) for o in outs]


def _eig_finite(x, compute_left_eigenvectors, compute_right_eigenvectors):
    dtype = dtypes.to_complex_dtype(x.dtype)
    try:
        import scipy.linalg      # optional (Pyodide may lack it): NumPy's eig serves without it
    except ImportError:
        if compute_left_eigenvectors:
            raise NotImplementedError("eig's left eigenvectors on the numpy backend need SciPy "
                                      "(pip install scipy)") from None
        w, v = np.linalg.eig(x)
        return [w.astype(dtype)] + ([v.astype(dtype)] if compute_right_eigenvectors else [])
    w, vl, vr = (np.empty(x.shape[:-1], dtype), np.empty(x.shape, dtype),
                 np.empty(x.shape, dtype))
    for i in np.ndindex(x.shape[:-2]):              # SciPy's eig takes one matrix at a time
        w[i], vl[i], vr[i] = scipy.linalg.eig(x[i], left=True, right=True,
                                              check_finite=False)
    return [w] + ([vl] if compute_left_eigenvectors else []) + \
        ([vr] if compute_right_eigenvectors else [])


numpy_rules[eig_p] = _eig_numpy
jvp_rules[eig_p] = _eig_jvp
batching_rules[eig_p] = _batch_all_front(eig_p)


def eig(x, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
        enable_eigvec_derivs: bool = False, implementation=None, use_magma=None):
    """[w, vl, vr]: eigenvalues, left and right eigenvectors (columns) of square x, batched
    over leading dims; vl and vr only where asked for. Complex results.

    >>> eig(np.float32([[2, 0], [0, 3]]), compute_left_eigenvectors=False,
    ...     compute_right_eigenvectors=False)
    [Array([2.+0.j, 3.+0.j], dtype=complex64)]
    """
    if use_magma is not None:
        warnings.warn("use_magma is deprecated, please use "
                      "implementation=EigImplementation.MAGMA instead.",
                      DeprecationWarning, stacklevel=2)
        implementation = EigImplementation.MAGMA if use_magma else EigImplementation.LAPACK
    return eig_p.bind(x, compute_left_eigenvectors=bool(compute_left_eigenvectors),
                      compute_right_eigenvectors=bool(compute_right_eigenvectors),
                      enable_eigvec_derivs=bool(enable_eigvec_derivs),
                      implementation=implementation)


# ------------------------------------------------------------------ schur
# schur(a) -> (t, z) (or (t,) without compute_schur_vectors): a = z t z^H with z unitary and t
# upper triangular (complex a) or quasi-triangular, 2x2 blocks for conjugate pairs (real a).
# LAPACK's gees on the CPU, as in JAX, which has no other lowering and no derivative.
schur_p = Primitive("schur", multiple_results=True)


def _schur_abstract_eval(x, *, compute_schur_vectors, sort_eig_vals, select_callable):
    _check_square("schur", x, f"The input to schur must be a square matrix. Got shape "
                              f"{x.shape[-2:]}.")
    return [x] * (2 if compute_schur_vectors else 1)


def _schur_lowering(ctx, x, *, compute_schur_vectors, sort_eig_vals, select_callable):
    if sort_eig_vals:
        raise NotImplementedError("The sort feature of LAPACK's gees routine is not "
                                  "implemented.")
    aval = ctx.avals_in[0]
    batch = aval.shape[:-2]
    count = ShapedArray(batch, np.int32)
    eigvals = ShapedArray(aval.shape[:-1], aval.dtype)
    # gees also returns the eigenvalues (a real matrix's as real and imaginary parts), how
    # many a sort selected, and info
    parts = 1 if dtypes.is_complex(aval.dtype) else 2
    t, z, *_, info = lapack.custom_call(
        ctx, "gees", aval.dtype, [x], [aval, aval] + [eigvals] * parts + [count, count],
        aliases={0: 0}, mode=char("V" if compute_schur_vectors else "N"), sort=char("N"))
    ok = _ok(ctx, info, batch)
    return [_nan_unless(ctx, ok, r, aval, batch) for r in (t, z)[:1 + compute_schur_vectors]]


abstract_eval_rules[schur_p] = _schur_abstract_eval
lowering_rules[schur_p] = _schur_lowering


def _schur_numpy(x, *, compute_schur_vectors, sort_eig_vals, select_callable):
    """LAPACK's gees through SciPy, matrix by matrix: T (and Z); NaN where it fails."""
    if sort_eig_vals:
        raise NotImplementedError("The sort feature of LAPACK's gees routine is not "
                                  "implemented.")
    t, z = np.empty_like(x), np.empty_like(x)
    gees = _scipy_lapack("gees", x.dtype)
    for i in np.ndindex(x.shape[:-2]):
        t[i], *_, z[i], _, info = gees(lambda *args: None, x[i])
        if info:
            t[i], z[i] = np.nan, np.nan
    return [t, z][:1 + compute_schur_vectors]


numpy_rules[schur_p] = _schur_numpy
jvp_rules[schur_p] = _not_differentiable("schur")
batching_rules[schur_p] = _batch_all_front(schur_p)


def schur(x, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False,
          select_callable=None):
    """(t, z): the Schur form and Schur vectors of square `x` (batched over leading dims),
    x = z t z^H; only (t,) without `compute_schur_vectors`. On the CPU only (LAPACK's gees),
    not differentiable, and `sort_eig_vals` is refused, all as in JAX.

    >>> t, z = schur(np.float32([[2, 1], [0, 3]]))
    >>> t
    Array([[2., 1.],
           [0., 3.]], dtype=float32)
    """
    outs = schur_p.bind(x, compute_schur_vectors=compute_schur_vectors,
                        sort_eig_vals=sort_eig_vals, select_callable=select_callable)
    return tuple(outs) if compute_schur_vectors else outs[0]


# ------------------------------------------------------------------ hessenberg
# hessenberg(a) -> (a', taus): a' holds the upper Hessenberg form (upper triangle and first
# subdiagonal) and below that the Householder reflectors whose factors are taus; LAPACK's
# gehrd on the CPU, as in JAX, which has no other lowering and no derivative.
hessenberg_p = Primitive("hessenberg", multiple_results=True)


def _hessenberg_abstract_eval(a):
    _check_square("hessenberg", a, f"Argument to Hessenberg reduction must have shape "
                                   f"[..., n, n], got shape {a.shape[-2:]}")
    return [a, ShapedArray(a.shape[:-2] + (a.shape[-1] - 1,), a.dtype)]


def _hessenberg_lowering(ctx, a):
    aval, taus_aval = ctx.avals_in[0], ctx.avals_out[1]
    batch = aval.shape[:-2]
    out, taus, info = lapack.custom_call(
        ctx, "gehrd", aval.dtype, [a], [aval, taus_aval, ShapedArray(batch, np.int32)],
        aliases={0: 0}, low="1 : i32", high=f"{aval.shape[-1]} : i32")
    ok = _ok(ctx, info, batch)
    return [_nan_unless(ctx, ok, out, aval, batch), _nan_unless(ctx, ok, taus, taus_aval, batch)]


abstract_eval_rules[hessenberg_p] = _hessenberg_abstract_eval
lowering_rules[hessenberg_p] = _hessenberg_lowering


def _hessenberg_numpy(a):
    """LAPACK's gehrd through SciPy, matrix by matrix; NaN where it fails."""
    out, taus = np.empty_like(a), np.empty((*a.shape[:-2], a.shape[-1] - 1), a.dtype)
    gehrd = _scipy_lapack("gehrd", a.dtype)
    for i in np.ndindex(a.shape[:-2]):
        out[i], taus[i], info = gehrd(a[i])
        if info:
            out[i], taus[i] = np.nan, np.nan
    return [out, taus]


numpy_rules[hessenberg_p] = _hessenberg_numpy
jvp_rules[hessenberg_p] = _not_differentiable("hessenberg")
batching_rules[hessenberg_p] = _batch_all_front(hessenberg_p)


def hessenberg(a):
    """(a', taus): the upper Hessenberg form of square `a` in a''s upper triangle and first
    subdiagonal, the Householder reflectors that make it below (factors in taus), as LAPACK's
    gehrd leaves them; on the CPU only and not differentiable, as in JAX. Batched over
    leading dims.

    >>> h, taus = hessenberg(np.eye(3, dtype=np.float32))
    >>> taus
    Array([0., 0.], dtype=float32)
    """
    return tuple(hessenberg_p.bind(a))


# ------------------------------------------------------------------ svd
# svd(a) -> (s, u, vt) (or (s,) without compute_uv): a = u diag(s) vt, s real, descending;
# NaN where the LAPACK routine fails.
svd_p = Primitive("svd", multiple_results=True)


def _svd_shapes(shape, full_matrices, compute_uv, subset_by_index):
    *batch, m, n = shape
    rank = min(m, n)
    if subset_by_index is not None:
        if full_matrices and tuple(subset_by_index) != (0, rank):
            raise ValueError("full_matrices and subset_by_index cannot both be set")
        rank = min(rank, subset_by_index[1] - subset_by_index[0])
    s = (*batch, rank)
    return [s, (*batch, m, m if full_matrices else rank),
            (*batch, n if full_matrices else rank, n)] if compute_uv else [s]


def _svd_abstract_eval(x, *, full_matrices, compute_uv, subset_by_index, algorithm):
    _check_matrix("svd", x)
    s, *uv = _svd_shapes(x.shape, full_matrices, compute_uv, subset_by_index)
    return [ShapedArray(s, _real(x.dtype))] + [ShapedArray(u, x.dtype) for u in uv]


def _empty_svd(a, *, full_matrices, compute_uv):
    *batch, m, n = _shape(a)
    dtype, nb = _dtype(a), len(batch)
    full = lambda shape, dt: shapes.broadcast_in_dim(np.zeros((), dt), shape, ())
    s = full((*batch, 0), _real(dtype))
    if not compute_uv:
        return [s]
    if full_matrices:
        size = max(m, n)
        u = shapes.broadcast_in_dim(_eye(dtype, size), (*batch, size, size), (nb, nb + 1))
    else:
        u = full((*batch, m, n), dtype)
    v = full((*batch, 0, 0), dtype)
    return [s, v, u] if m < n else [s, u, v]


def _svd_lowering(ctx, x, *, full_matrices, compute_uv, subset_by_index, algorithm):
    aval = ctx.avals_in[0]
    *batch, m, n = aval.shape
    batch = tuple(batch)
    if not (subset_by_index is None or tuple(subset_by_index) == (0, min(m, n))):
        raise NotImplementedError("subset_by_index not implemented for CPU and GPU")
    if m == 0 or n == 0:
        return hl.lower_fun(_empty_svd, multiple_results=True)(
            ctx, x, full_matrices=full_matrices, compute_uv=compute_uv)
    if ctx.platform != "cpu":
        return _svd_gpu_lowering(ctx, x, full_matrices=full_matrices, compute_uv=compute_uv,
                                 algorithm=algorithm)
    if algorithm in (None, SvdAlgorithm.DEFAULT, SvdAlgorithm.DIVIDE_AND_CONQUER):
        routine = "gesdd"
    elif algorithm == SvdAlgorithm.QR:
        routine = "gesvd"
    else:
        raise NotImplementedError("The SVD Jacobi and Polar algorithms are not implemented on "
                                  "CPU.")
    # LAPACK writes u and vt even when they are not wanted: their shapes as for compute_uv
    s, u, vt = _svd_shapes(aval.shape, full_matrices, True, None)
    outs = [aval, ShapedArray(s, _real(aval.dtype)), ShapedArray(u, aval.dtype),
            ShapedArray(vt, aval.dtype), ShapedArray(batch, np.int32)]
    mode = "N" if not compute_uv else "A" if full_matrices else "S"
    _, *results, info = lapack.custom_call(ctx, routine, aval.dtype, [x], outs,
                                           aliases={0: 0}, mode=char(mode))
    ok = _ok(ctx, info, batch)
    return [_nan_unless(ctx, ok, r, a, batch)
            for r, a in zip(results, outs[1:4])][:len(ctx.avals_out)]


def _svd_gpu_lowering(ctx, x, *, full_matrices, compute_uv, algorithm):
    """cuSOLVER's SVD as JAX picks it: Jacobi (gesvdj) by default up to 1024 x 1024 and
    for SvdAlgorithm.JACOBI, polar (gesvdp) for POLAR, else QR (gesvd, of the transpose
    when m < n)."""
    aval = ctx.avals_in[0]
    *batch, m, n = aval.shape
    batch, k, nb = tuple(batch), min(m, n), len(batch)
    s_aval = ctx.avals_out[0]
    algorithm = SvdAlgorithm.DEFAULT if algorithm is None else algorithm
    if algorithm == SvdAlgorithm.DIVIDE_AND_CONQUER:
        raise NotImplementedError("Divide-and-conquer SVD (SvdAlgorithm.DIVIDE_AND_CONQUER) "
                                  "is only supported on AMD (ROCm) GPUs, not on NVIDIA CUDA.")
    if algorithm == SvdAlgorithm.DEFAULT:
        algorithm = SvdAlgorithm.JACOBI if m <= 1024 and n <= 1024 else SvdAlgorithm.QR
    info_aval = ShapedArray(batch, np.int32)
    if algorithm in (SvdAlgorithm.JACOBI, SvdAlgorithm.POLAR):
        # these return V (not V^H) and always need room for u and v; batched gesvdj (small
        # matrices) has no economy mode
        econ = not full_matrices and (algorithm == SvdAlgorithm.POLAR or (m > 32 and n > 32))
        u_aval = ShapedArray((*batch, m, k if econ else m), aval.dtype)
        v_aval = ShapedArray((*batch, n, k if econ else n), aval.dtype)
        target = "cusolver_gesvdj_ffi" if algorithm == SvdAlgorithm.JACOBI else \
            "cusolver_gesvdp_ffi"
        _, s, u, vt, info = gpu_solver.custom_call(
            ctx, target, [x], [aval, s_aval, u_aval, v_aval, info_aval], aliases={0: 0},
            full_matrices=not econ, compute_uv=bool(compute_uv))
        if compute_uv:
            u_out, vt_out = ctx.avals_out[1:]
            vt_aval = ShapedArray((*batch, v_aval.shape[-1], n), aval.dtype)
            vt = ctx.op1("stablehlo.transpose", [vt], {"permutation": hlo.i64_array(
                (*range(nb), nb + 1, nb))}, result_type=hl.aval_type(vt_aval))
            if dtypes.is_complex(aval.dtype):
                vt = ew._conj_lowering(_sub_ctx(ctx, [vt_aval], [vt_aval]), vt,
                                       input_dtype=aval.dtype)
            if not full_matrices and not econ:
                u = slicing._slice_lowering(_sub_ctx(ctx, [u_aval], [u_out]), u,
                                            start_indices=(0,) * (nb + 2),
                                            limit_indices=u_out.shape, strides=None)
                vt = slicing._slice_lowering(_sub_ctx(ctx, [vt_aval], [vt_out]), vt,
                                             start_indices=(0,) * (nb + 2),
                                             limit_indices=vt_out.shape, strides=None)
    elif algorithm == SvdAlgorithm.QR:
        # m < n: the kernel factors the transpose (the operand read row-major), whose U and
        # V^H are this matrix's V^H and U
        u_aval, vt_aval = ctx.avals_out[1:] if compute_uv else \
            [ShapedArray((), aval.dtype)] * 2
        transposed = m < n
        outs = [aval, s_aval, *((vt_aval, u_aval) if transposed else (u_aval, vt_aval)),
                info_aval]
        _, s, u, vt, info = gpu_solver.custom_call(
            ctx, "cusolver_gesvd_ffi", [x], outs, aliases={0: 0},
            column_major=not transposed, full_matrices=bool(full_matrices),
            compute_uv=bool(compute_uv), transposed=transposed)
        if transposed:
            u, vt = vt, u
    else:
        raise NotImplementedError(f"Unsupported SVD algorithm on GPU: {algorithm!r}")
    ok = _ok(ctx, info, batch)
    results = [s, u, vt][:len(ctx.avals_out)]
    return [_nan_unless(ctx, ok, r, a, batch) for r, a in zip(results, ctx.avals_out)]


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index, algorithm):
    # JAX's rule (https://people.maths.ox.ac.uk/gilesm/files/NA-08-01.pdf, with the
    # corrections for non-square matrices); the full_matrices case is not implemented (as JAX)
    A, = primals
    dA = ad.instantiate(tangents[0])
    s, U, Vt = svd_p.bind(A, full_matrices=False, compute_uv=True,
                          subset_by_index=subset_by_index, algorithm=algorithm)
    m, n = _shape(A)[-2:]
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError(
            "Singular value decomposition JVP not implemented for full matrices")
    dtype, k = _dtype(A), _shape(s)[-1]
    Ut, V = _H(U), _H(Vt)
    s_dim = s[..., None, :]
    dS = Ut @ dA @ V
    ds = _diag(dS.real)
    if not compute_uv:
        return [s], [ds]
    s_diffs = (s_dim + _T(s_dim)) * (s_dim - _T(s_dim))
    s_diffs_zeros = _eye(_dtype(s), k)           # 1 where s_diffs is 0 on the diagonal
    F = 1 / (s_diffs + s_diffs_zeros) - s_diffs_zeros
    dSS = s_dim.astype(dtype) * dS               # dS @ diag(s)
    SdS = _T(s_dim.astype(dtype)) * dS           # diag(s) @ dS
    s_zeros = (s == 0).astype(_dtype(s))
    s_inv = 1 / (s + s_zeros) - s_zeros
    dUdV_diag = .5 * (dS - _H(dS)) * (s_inv[..., :, None] * _eye(_dtype(s), k)).astype(dtype)
    dU = U @ (F.astype(dtype) * (dSS + _H(dSS)) + dUdV_diag)
    dV = V @ (F.astype(dtype) * (SdS + _H(SdS)))
    if m > n:
        dAV = dA @ V
        dU = dU + (dAV - U @ (Ut @ dAV)) / s_dim.astype(dtype)
    if n > m:
        dAHU = _H(dA) @ U
        dV = dV + (dAHU - V @ (Vt @ dAHU)) / s_dim.astype(dtype)
    return [s, U, Vt], [ds, dU, _H(dV)]


abstract_eval_rules[svd_p] = _svd_abstract_eval
lowering_rules[svd_p] = _svd_lowering


def _svd_numpy(x, *, full_matrices, compute_uv, subset_by_index, algorithm):
    """numpy.linalg.svd (LAPACK's gesdd, the CPU lowering's default): [s] or [s, u, vt]."""
    if not (subset_by_index is None or tuple(subset_by_index) == (0, min(x.shape[-2:]))):
        raise NotImplementedError("svd's subset_by_index has no NumPy rule")
    if not compute_uv:
        return [np.linalg.svd(x, compute_uv=False)]
    u, s, vt = np.linalg.svd(x, full_matrices=full_matrices)
    return [s, u, vt]


numpy_rules[svd_p] = _svd_numpy
jvp_rules[svd_p] = _svd_jvp
batching_rules[svd_p] = _batch_all_front(svd_p)


def svd(x, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index=None,
        algorithm=None):
    """(u, s, vh) with x = u @ diag(s) @ vh (s descending), or s alone without compute_uv.

    >>> svd(np.float32([[3, 0], [0, 4]]), compute_uv=False)
    Array([4., 3.], dtype=float32)
    """
    subset = None if subset_by_index is None else tuple(map(int, subset_by_index))
    result = svd_p.bind(x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv),
                        subset_by_index=subset, algorithm=algorithm)
    if compute_uv:
        s, u, vt = result
        return u, s, vt
    return result[0]
