"""triangular_solve: x with op(a) @ x = b or x @ op(a) = b for triangular a, with all its
rules (LAPACK's trsm on the CPU, XLA's own op on GPUs; linear in b, JAX's jvp in a).

    >>> triangular_solve(np.float32([[2, 0], [1, 1]]), np.float32([2, 3]), left_side=True,
    ...                  lower=True)
    Array([1., 2.], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.avals import ShapedArray
from ...core.primitive import (Primitive, abstract_eval_rules, batching_rules, lowering_rules,
                               numpy_rules, sharding_rules, transpose_rules)
from ...xla import lapack
from ...xla import stablehlo as hlo
from ...xla.lapack import char
from ...transforms import ad_util as ad
from ...transforms import batch_util as bu
from .. import elementwise as ew, shapes
from ._common import (_LAPACK_DTYPES, _T, _check_matrix, _dot, _dtype, _shape, _sub_ctx, _tril,
                      _triu, triangular_solve_sharding_rule, untyped_lowering)


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
        ctx.default_rule()                  # (JAX's rule for the CPU alone is LAPACK's)
    if ctx.platform != "cpu" or b_aval.dtype not in _LAPACK_DTYPES:
        # XLA's own op (cuBLAS trsm on GPUs), as JAX lowers it off the CPU and for the dtypes
        # LAPACK has no trsm for (float16, bfloat16)
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
lowering_rules[triangular_solve_p] = untyped_lowering(_triangular_solve_lowering)
sharding_rules[triangular_solve_p] = triangular_solve_sharding_rule


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
