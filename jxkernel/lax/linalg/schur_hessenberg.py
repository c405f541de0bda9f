"""schur and hessenberg: the Schur form (LAPACK's gees) and the upper Hessenberg form
(gehrd), each with all its rules; on the CPU only and not differentiable, as in JAX.

    >>> h, taus = hessenberg(np.eye(3, dtype=np.float32))
    >>> taus
    Array([0., 0.], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.avals import ShapedArray
from ...core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                               lowering_rules, numpy_rules, sharding_rules)
from ...xla import lapack
from ...xla.lapack import char
from ._common import (_batch_all_front, _check_square, _nan_unless, _not_differentiable, _ok,
                      _scipy_lapack, linalg_sharding_rule, untyped_lowering)


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
lowering_rules[schur_p] = untyped_lowering(_schur_lowering)
sharding_rules[schur_p] = linalg_sharding_rule(schur_p, (2,))


def _schur_numpy(x, *, compute_schur_vectors, sort_eig_vals, select_callable):
    """LAPACK's gees through SciPy, matrix by matrix: T (and Z); NaN where it fails."""
    lapack.prefix(x.dtype)      # another dtype (float16) refused as it lowers, in JAX's words
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
lowering_rules[hessenberg_p] = untyped_lowering(_hessenberg_lowering)
sharding_rules[hessenberg_p] = linalg_sharding_rule(hessenberg_p, (2,))


def _hessenberg_numpy(a):
    """LAPACK's gehrd through SciPy, matrix by matrix; NaN where it fails."""
    lapack.prefix(a.dtype)      # another dtype (float16) refused as it lowers, in JAX's words
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
