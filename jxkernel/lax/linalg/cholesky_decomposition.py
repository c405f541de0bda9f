"""cholesky: the lower Cholesky factor of a Hermitian positive-definite matrix, with all its
rules (LAPACK's potrf, cuSOLVER's potrf; JAX's jvp, two triangular solves).

    >>> cholesky(np.array([[4., 2.], [2., 5.]], np.float32))
    Array([[2., 0.],
           [1., 2.]], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ...core.avals import ShapedArray
from ...core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                               lowering_rules, numpy_rules)
from ...xla import gpu_solver, lapack
from ...xla.lapack import char
from ...transforms import ad_util as ad
from ._common import (_batch_all_front, _check_matrix, _dot, _dtype, _eye, _nan_unless, _ok, _shape,
                      _tril, symmetrize)
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
