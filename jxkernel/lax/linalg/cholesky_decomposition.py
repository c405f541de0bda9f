"""cholesky: the lower Cholesky factor of a Hermitian positive-definite matrix, with all its
rules (LAPACK's potrf, cuSOLVER's and hipSOLVER's potrf, XLA's own `stablehlo.cholesky`
elsewhere, the TPU's; JAX's jvp, two triangular solves).

    >>> cholesky(np.array([[4., 2.], [2., 5.]], np.float32))
    Array([[2., 0.],
           [1., 2.]], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ...core.avals import ShapedArray
from ...core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                               lowering_rules, numpy_rules, sharding_rules)
from ...core.interpreter_primitives import typed_constant
from ...xla import gpu_solver, lapack
from ...xla.lapack import char
from ...transforms import ad_util as ad
from .. import _lowering as hl
from .. import elementwise as ew, shapes, slicing
from .._rules import FLOAT, check_dtype, check_same_dtypes
from ._common import (_batch_all_front, _check_matrix, _dot, _dtype, _eye, _linalg_batch_dims,
                      _nan_unless, _not_differentiable, _ok, _shape, _tril, linalg_sharding_rule,
                      symmetrize, untyped_lowering)
from .triangular import triangular_solve


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
    if ctx.platform not in ("cpu", *gpu_solver.GPU_PLATFORMS):
        # JAX's default rule (the TPU's): XLA's Cholesky, failures left as XLA computes them
        ctx.default_rule()
        return ctx.op1("stablehlo.cholesky", [x], {"lower": "true"},
                       result_type=hl.aval_type(aval))
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
    phi = _tril(tmp) / (typed_constant(1, _dtype(x)) + _eye(_dtype(x), n, ndim=len(_shape(x))))
    return L, _dot(L, phi)


abstract_eval_rules[cholesky_p] = _cholesky_abstract_eval
lowering_rules[cholesky_p] = untyped_lowering(_cholesky_lowering)
sharding_rules[cholesky_p] = linalg_sharding_rule(cholesky_p, (2,))


def _cholesky_numpy(x):
    """As potrf: the lower factor under the operand's upper triangle, NaN where x is not
    positive definite (matrix by matrix)."""
    lapack.prefix(x.dtype)      # another dtype (float16) refused as it lowers, in JAX's words
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


# cholesky_update(r, w) -> the upper factor of r^T r + w w^T, by n Givens rotations (JAX's
# _cholesky_update_jax_fn, its lowering off CUDA). Unbatched and not differentiable, as JAX's.
cholesky_update_p = Primitive("cholesky_update")


def _cholesky_update_abstract_eval(r, w):
    check_dtype("cholesky_update", r, FLOAT, position=0)
    check_dtype("cholesky_update", w, FLOAT, position=1)
    check_same_dtypes("cholesky_update", r, w)
    _linalg_batch_dims("cholesky_update", (2, 1), (r, w), batching=False)
    if r.shape[0] != r.shape[1] or w.shape[0] != r.shape[1]:
        raise ValueError(f"Rank-1 update to Cholesky decomposition takes a square matrix and "
                         f"a vector of the same size as input. Got shapes {r.shape} and "
                         f"{w.shape} instead")
    return ShapedArray(r.shape, r.dtype)


def _givens(x, y):
    """(c, s) rotating (x, y) onto (r, 0), scaled by max(|x|, |y|) against overflow; (1, 0)
    where y is 0 (JAX's _drotg; a select where JAX has a cond: the same values)."""
    one, zero = typed_constant(1, _dtype(x)), typed_constant(0, _dtype(x))
    big = ew.select(ew.gt(ew.abs(x), ew.abs(y)), ew.abs(x), ew.abs(y))
    x, y = ew.div(x, big), ew.div(y, big)
    rh = ew.div(one, ew.sqrt(ew.add(ew.mul(x, x), ew.mul(y, y))))
    y_zero = ew.eq(y, zero)
    return (ew.select(y_zero, one, ew.mul(x, rh)),
            ew.select(y_zero, zero, ew.neg(ew.mul(y, rh))))


def _cholesky_update_impl(r, z):
    """Row k of r and z rotated together so z[k] becomes 0, for k = 0 .. n-1."""
    n = _shape(z)[0]
    for k in range(n):
        row = slicing.index_in_dim(r, k, keepdims=False)
        c, s = _givens(slicing.index_in_dim(row, k, keepdims=False),
                       slicing.index_in_dim(z, k, keepdims=False))
        c, s = (shapes.broadcast_in_dim(v, (n,), ()) for v in (c, s))
        row, z = ew.sub(ew.mul(c, row), ew.mul(s, z)), ew.add(ew.mul(c, z), ew.mul(s, row))
        r = slicing.dynamic_update_slice(r, shapes.expand_dims(row, (0,)),
                                         (np.int32(k), np.int32(0)))
    return r


abstract_eval_rules[cholesky_update_p] = _cholesky_update_abstract_eval
lowering_rules[cholesky_update_p] = hl.lower_fun(_cholesky_update_impl)
numpy_rules[cholesky_update_p] = hl.numpy_fun(_cholesky_update_impl)
jvp_rules[cholesky_update_p] = _not_differentiable(cholesky_update_p)
# no sharding rule: cholesky_update does not batch, and JAX gives it none


def cholesky_update(r_matrix, w_vector):
    """The upper Cholesky factor of r^T r + w w^T from the upper factor r of r^T r, in
    O(n^2) (n Givens rotations). Unbatched (vmap it not: JAX has no batching rule).

    >>> cholesky_update(np.eye(2, dtype=np.float32), np.float32([0, 1]))
    Array([[1.       , 0.       ],
           [0.       , 1.4142135]], dtype=float32)
    """
    return cholesky_update_p.bind(r_matrix, w_vector)
