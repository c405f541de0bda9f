"""lu (LU with partial pivoting, LAPACK's getrf), lu_pivots_to_permutation (the row order
its swaps make), each with all its rules, and lu_solve, the solve from the factors.

    >>> lu(np.float32([[1, 2], [3, 4]]))[2]
    Array([1, 0], dtype=int32)
"""
from __future__ import annotations

import math

import numpy as np

from ...core import dtypes
from ...core.avals import ShapedArray
from ...core.symbolic import is_symbolic, min_dim, symbolic_as_value
from ...core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                               lowering_rules, numpy_rules, sharding_rules)
from ...xla import ffi, gpu_solver, lapack
from ...transforms import ad_util as ad
from .. import _lowering as hl
from .. import conversion, elementwise as ew, shapes, slicing
from ..loops import fori_loop
from ..reductions import argmax, reduce_sum
from ..sorting import sort_key_val
from ...transforms.batching import vmap
from ._common import (_batch_all_front, _check_matrix, _dot, _dtype, _eye, _nan_unless, _ok,
                      _permute_rows, _shape, _sub_ctx, _tril, _triu, _zeros, linalg_sharding_rule,
                      untyped_lowering)
from .triangular import triangular_solve


# ------------------------------------------------------------------ lu
# lu(a) -> (lu, pivots, permutation): P a = L U with L unit lower (below the diagonal of lu)
# and U upper (on and above it); pivots are LAPACK's row swaps (0-based), permutation the
# resulting row order. NaN where getrf fails outright (info < 0); singular matrices factor.
lu_p = Primitive("lu", multiple_results=True)


def _lu_abstract_eval(x):
    _check_matrix("lu", x)
    *batch, m, n = x.shape
    return [ShapedArray(x.shape, x.dtype), ShapedArray((*batch, min_dim(m, n)), np.int32),
            ShapedArray((*batch, m), np.int32)]


def _lu_lowering(ctx, x):
    lu_aval, pivots_aval, perm_aval = ctx.avals_out
    if ctx.platform == "tpu":
        # JAX's TPU rule: XLA's own LU kernel, which gives the permutation too
        return ffi.plain_custom_call(ctx, "LuDecomposition", [x], ctx.avals_out,
                                     api_version=2)
    if ctx.platform not in ("cpu", *gpu_solver.GPU_PLATFORMS):
        ctx.default_rule()
        return hl.lower_fun(_lu_python, multiple_results=True)(ctx, x)   # JAX's default
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
    perm = _pivots_to_permutation(
        _sub_ctx(ctx, [pivots_aval], [perm_aval]), pivots, permutation_size=lu_aval.shape[-2])
    return [lu, pivots, perm]


def _lu_jvp(primals, tangents):
    # De Hoog, Anderssen and Lukas, "Differentiation of matrix functionals using triangular
    # factorization" (JAX's rule): with X = L^-1 P dA U^-1, dL = L tril(X, -1), dU = triu(X) U
    a, = primals
    a_dot = ad.instantiate(tangents[0])
    lu, pivots, permutation = lu_p.bind(a)
    *batch, m, n = _shape(a)
    dtype, k, nb = _dtype(a), min_dim(m, n), len(batch)
    zero = np.zeros((), dtype)
    l = slicing.pad(_tril(lu[..., :, :k], -1), zero, [(0, 0, 0)] * (nb + 1) + [(0, m - k, 0)])
    l = l + _eye(dtype, m, ndim=nb + 2)
    u = slicing.pad(_triu(lu[..., :k, :]), zero, [(0, 0, 0)] * nb + [(0, n - k, 0), (0, 0, 0)])
    u_eye = slicing.pad(_eye(dtype, n - k, ndim=nb + 2), zero,
                        ((0, 0, 0),) * nb + ((k, 0, 0), (k, 0, 0)))
    u = u + u_eye                                   # a unit tail keeps u invertible
    la = triangular_solve(l, _permute_rows(a_dot, permutation), left_side=True, lower=True,
                          unit_diagonal=True)
    lau = triangular_solve(u, la, left_side=False, lower=False)
    lu_dot = _dot(l, _tril(lau, -1)) + _dot(_triu(lau), u)
    return [lu, pivots, permutation], [lu_dot, ad.Zero.like(pivots), ad.Zero.like(permutation)]


abstract_eval_rules[lu_p] = _lu_abstract_eval
lowering_rules[lu_p] = untyped_lowering(_lu_lowering)
sharding_rules[lu_p] = linalg_sharding_rule(lu_p, (2,))


def _lu_numpy(x):
    """Unblocked getrf over the whole batch at once: per column, the row of the largest
    magnitude swapped up, the column below divided by the pivot (left as is where the pivot
    is 0: singular matrices factor), the trailing block updated."""
    lapack.prefix(x.dtype)      # another dtype (float16) refused as it lowers, in JAX's words
    *batch, m, n = x.shape
    k = min(m, n)
    # (the batch's size named, not -1: an empty matrix leaves -1 nothing to infer from)
    a = x.reshape(math.prod(batch), m, n).copy()
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


def _lu_python(x):
    """`lu` in lax operations alone, for where no LAPACK or cuSOLVER kernel exists (JAX's
    fallback of the same name): a loop over the columns, each pivot the entry of largest
    |re| + |im| on or below the diagonal (LAPACK's choice), vmapped over the batch. Singular
    matrices factor: a zero pivot leaves its column as it is.

    >>> _lu_python(np.float32([[1, 2], [3, 4]]))[2]
    Array([1, 0], dtype=int32)
    """
    fn = _lu_unblocked
    for _ in _shape(x)[:-2]:
        fn = vmap(fn)
    return fn(x)


def _lu_unblocked(a):
    m, n = _shape(a)
    pivots, perm = _zeros_int(min(m, n)), shapes.broadcasted_iota(np.int32, (m,), 0)
    if min(m, n) == 0:
        return a, pivots, perm
    rows = shapes.broadcasted_iota(np.int32, (m,), 0)
    row_ids, col_ids = (shapes.broadcasted_iota(np.int32, (m, n), d) for d in (0, 1))
    below = lambda j: ew.bitwise_and(ew.gt(row_ids, _fill(j, (m, n))),
                                     ew.gt(col_ids, _fill(j, (m, n))))

    def body(j, state):
        a, pivots, perm = state
        j = conversion.convert_element_type(j, np.int32)   # fori_loop's index is a weak int
        col = _column(a, j)
        size = ew.add(ew.abs(ew.real(col)), ew.abs(ew.imag(col))) \
            if dtypes.issubdtype(_dtype(a), np.complexfloating) else ew.abs(col)
        size = ew.select(ew.ge(rows, _fill(j, (m,))), size,
                         _fill(np.asarray(-np.inf, _dtype(size)), (m,)))
        i = argmax(size, 0, np.int32)
        a, perm = _swap(a, i, j), _swap(perm, i, j)
        pivots = slicing.dynamic_update_index_in_dim(pivots, i, j, 0)
        col, pivot = _column(a, j), slicing.dynamic_index_in_dim(_column(a, j), j, 0, False)
        keep = ew.bitwise_or(ew.le(rows, _fill(j, (m,))),
                             _fill(ew.eq(pivot, _zeros(pivot)), (m,)))
        col = ew.select(keep, col, ew.div(col, _fill(pivot, (m,))))   # multipliers below j
        a = slicing.dynamic_update_slice_in_dim(a, shapes.expand_dims(col, (1,)), j, 1)
        row = slicing.dynamic_index_in_dim(a, j, 0, False)
        update = ew.mul(shapes.expand_dims(col, (1,)), shapes.expand_dims(row, (0,)))
        return ew.sub(a, ew.select(below(j), update, _zeros(update))), pivots, perm
    return fori_loop(np.int32(0), np.int32(min(m, n)), body, (a, pivots, perm))


def _zeros_int(k):
    return _fill(np.int32(0), (k,))


def _fill(scalar, shape):
    return shapes.broadcast_in_dim(scalar, shape, ())


def _column(a, j):
    return slicing.dynamic_index_in_dim(a, j, 1, False)


def _swap(x, i, j):
    """x with its rows (first-axis entries) i and j exchanged."""
    xi = slicing.dynamic_index_in_dim(x, i, 0, True)
    xj = slicing.dynamic_index_in_dim(x, j, 0, True)
    x = slicing.dynamic_update_slice_in_dim(x, xi, j, 0)
    return slicing.dynamic_update_slice_in_dim(x, xj, i, 0)


# lu_pivots_to_permutation(pivots, permutation_size): the row order that applying the swaps
# pivots[0], pivots[1], ... to iota(permutation_size) produces.
lu_pivots_to_permutation_p = Primitive("lu_pivots_to_permutation")


def _lu_pivots_to_permutation_abstract_eval(pivots, *, permutation_size):
    if pivots.dtype != np.int32:
        raise TypeError(f"lu_pivots_to_permutation does not accept dtype {pivots.dtype.name} "
                        f"at position 0. Accepted dtypes at position 0 are subtypes of int32.")
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
    return fori_loop(np.int32(0), _int32(k), body, iota)


def _int32(k):
    """A loop bound: an int32, or a symbolic size as an int32 value (jax.export)."""
    return conversion.convert_element_type(symbolic_as_value(k), np.int32) if is_symbolic(k) \
        else np.int32(k)


def _take_last(x, j):
    """x[..., j] for j of shape (*batch, 1) holding one index per row: a masked sum."""
    iota = shapes.broadcasted_iota(np.int32, _shape(x), len(_shape(x)) - 1)
    hit = ew.eq(iota, shapes.broadcast_in_dim(j, _shape(x), tuple(range(len(_shape(x))))))
    return shapes.expand_dims(reduce_sum(ew.select(hit, x, _zeros(x)), (len(_shape(x)) - 1,)),
                              (len(_shape(x)) - 1,))


_lu_pivots_to_permutation_loop = hl.lower_fun(_lu_pivots_to_permutation_impl)


def _lu_pivots_to_permutation_lowering(ctx, pivots, *, permutation_size):
    if not gpu_solver.on_gpu(ctx):
        ctx.default_rule()              # JAX's default rule, the CPU's and the TPU's
    return _pivots_to_permutation(ctx, pivots, permutation_size=permutation_size)


def _pivots_to_permutation(ctx, pivots, *, permutation_size):
    """The permutation of `pivots`: the GPU's kernel, else the loop."""
    if not gpu_solver.on_gpu(ctx):
        return _lu_pivots_to_permutation_loop(ctx, pivots, permutation_size=permutation_size)
    return gpu_solver.custom_call(ctx, "cu_lu_pivots_to_permutation", [pivots],
                                  ctx.avals_out, column_major=False,
                                  num_non_batch_dims=1)[0]


abstract_eval_rules[lu_pivots_to_permutation_p] = _lu_pivots_to_permutation_abstract_eval
lowering_rules[lu_pivots_to_permutation_p] = untyped_lowering(_lu_pivots_to_permutation_lowering)
sharding_rules[lu_pivots_to_permutation_p] = linalg_sharding_rule(lu_pivots_to_permutation_p, (1,))


def _lu_pivots_to_permutation_numpy(pivots, *, permutation_size):
    """The identity permutation with row j swapped with row pivots[j], for each j in turn."""
    *batch, k = pivots.shape
    swaps = pivots.reshape(math.prod(batch), k)
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
