"""QR by Householder reflectors: LAPACK's building blocks (geqrf, geqp3 with column pivoting,
householder_product, which forms Q, and ormqr, which applies it), none differentiable, as in
JAX; and qr, built on them and differentiated as a whole. Each primitive with all its rules.

    >>> q, r = qr(np.float32([[3, 1], [4, 2]]))
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.avals import ShapedArray
from ...core.symbolic import min_dim
from ...core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                               lowering_rules, numpy_rules, sharding_rules)
from ...xla import ffi, gpu_solver, lapack
from ...transforms import ad_util as ad
from .. import _lowering as hl
from .. import conversion, elementwise as ew, shapes, slicing
from ..loops import fori_loop
from ..dot import Precision, dot_general
from .._rules import INEXACT, check_dtype
from ._common import (_H, _T, _batch_all_front, _check_matrix, _dtype, _eye, _not_differentiable,
                      _permute_rows, _scipy_lapack, _shape, _tril, _triu, linalg_sharding_rule,
                      untyped_lowering)
from .triangular import triangular_solve
from .lu_decomposition import lu_p, lu_solve


# ------------------------------------------------------------------ geqrf, geqp3, householder
# geqrf(a) -> (r_and_reflectors, taus): LAPACK's Householder QR, R in the upper triangle and
# the reflectors below it; geqp3(a, jpvt) the same with column pivoting (jpvt: 1-based column
# order). householder_product(a, taus) -> Q from those reflectors. None is differentiable
# (JAX defines no jvp for them either): qr_p's jvp differentiates the whole factorization.
geqrf_p = Primitive("geqrf", multiple_results=True)


def _geqrf_abstract_eval(x):
    _check_matrix("geqrf", x)
    *batch, m, n = x.shape
    return [ShapedArray(x.shape, x.dtype), ShapedArray((*batch, min_dim(m, n)), x.dtype)]


def _geqrf_lowering(ctx, x):
    if ctx.platform not in ("cpu", *gpu_solver.GPU_PLATFORMS):
        # JAX's default rule (the TPU's): XLA's own QR kernel
        ctx.default_rule()
        return ffi.plain_custom_call(ctx, "Qr", [x], ctx.avals_out)
    if ctx.platform != "cpu":
        return gpu_solver.custom_call(ctx, "cusolver_geqrf_ffi", [x], ctx.avals_out,
                                      aliases={0: 0})
    return lapack.custom_call(ctx, "geqrf", ctx.avals_in[0].dtype, [x], ctx.avals_out,
                              aliases={0: 0})


abstract_eval_rules[geqrf_p] = _geqrf_abstract_eval
lowering_rules[geqrf_p] = untyped_lowering(_geqrf_lowering)
sharding_rules[geqrf_p] = linalg_sharding_rule(geqrf_p, (2,))


def _geqrf_numpy(x):
    """LAPACK's geqrf through numpy.linalg.qr(mode="raw"), which returns its output
    transposed (Fortran order), matrix by matrix."""
    lapack.prefix(x.dtype)      # another dtype (float16) refused as it lowers, in JAX's words
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
                        f"{a.str_short(True)}, jpvt: {jpvt.str_short(True)}")
    return [ShapedArray(a.shape, a.dtype), ShapedArray(jpvt.shape, np.int32),
            ShapedArray((*batch, min_dim(m, n)), a.dtype)]


def _geqp3_lowering(ctx, a, jpvt, *, use_magma):
    if gpu_solver.on_gpu(ctx):
        # LAPACK on the host (or MAGMA on the device, "auto" lets jaxlib choose by size)
        gpu_solver.initialize_hybrid_kernels()
        magma = "auto" if use_magma is None else "on" if use_magma else "off"
        return gpu_solver.custom_call(ctx, "cuhybrid_geqp3", [a, jpvt], ctx.avals_out,
                                      aliases={0: 0, 1: 1}, magma=magma)
    return lapack.custom_call(ctx, "geqp3", ctx.avals_in[0].dtype, [a, jpvt], ctx.avals_out,
                              aliases={0: 0, 1: 1})


abstract_eval_rules[geqp3_p] = _geqp3_abstract_eval
lowering_rules[geqp3_p] = untyped_lowering(_geqp3_lowering)
sharding_rules[geqp3_p] = linalg_sharding_rule(geqp3_p, (2, 1))


def _geqp3_numpy(a, jpvt, *, use_magma):
    """LAPACK's geqp3 through SciPy, matrix by matrix; SciPy's wrapper takes no jpvt, so only
    all-free columns (jpvt 0, what qr passes) are supported."""
    lapack.prefix(a.dtype)      # another dtype (float16) refused as it lowers, in JAX's words
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
            taus.shape[-1] > min_dim(m, n):
        raise ValueError(f"householder_product needs taus of shape batch + (k,) with k <= "
                         f"min(m, n) and a's dtype, got a: {a.str_short(True)}, taus: "
                         f"{taus.str_short(True)}")
    return ShapedArray(a.shape, a.dtype)


def _householder_product_lowering(ctx, a, taus):
    dtype = ctx.avals_in[0].dtype
    if ctx.platform not in ("cpu", *gpu_solver.GPU_PLATFORMS):
        # JAX's default rule (the TPU's): XLA's own kernel
        ctx.default_rule()
        return ffi.plain_custom_call(ctx, "ProductOfElementaryHouseholderReflectors",
                                     [a, taus], ctx.avals_out)[0]
    if ctx.platform != "cpu":
        return gpu_solver.custom_call(ctx, "cusolver_orgqr_ffi", [a, taus], ctx.avals_out,
                                      aliases={0: 0})[0]
    return lapack.custom_call(ctx, "ungqr" if dtypes.is_complex(dtype) else "orgqr", dtype,
                              [a, taus], ctx.avals_out, aliases={0: 0})[0]


abstract_eval_rules[householder_product_p] = _householder_product_abstract_eval
lowering_rules[householder_product_p] = untyped_lowering(_householder_product_lowering)
sharding_rules[householder_product_p] = linalg_sharding_rule(householder_product_p, (2, 1))


def _householder_product_numpy(a, taus):
    """orgqr: the first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H, v_i being column
    i of `a` below the diagonal with a unit at it; applied to [I; 0] right to left."""
    lapack.prefix(a.dtype)      # another dtype (float16) refused as it lowers, in JAX's words
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


def _ormqr_reflectors(a, taus, c, *, left, transpose):
    """JAX's default ormqr (the TPU's): each reflector H_i = I - tau_i v_i v_i^H applied to c
    in turn, in a loop (Q c and c Q^H take them last to first), Q never formed."""
    *batch, m, _ = _shape(a)
    k, nb = _shape(taus)[-1], len(batch)
    eye = _eye(_dtype(a), m, k)
    if batch:
        eye = shapes.broadcast_in_dim(eye, (*batch, m, k), (nb, nb + 1))
    v_all = ew.add(_tril(slicing.slice_in_dim(a, 0, k, axis=nb + 1), -1), eye)
    if transpose and dtypes.is_complex(_dtype(a)):
        taus = ew.conj(taus)
    reverse = left != transpose
    bdims = tuple(range(nb))
    conj = (lambda x: ew.conj(x)) if dtypes.is_complex(_dtype(a)) else (lambda x: x)

    def body(i, c):
        i = conversion.convert_element_type(i, np.int32)
        idx = ew.sub(np.int32(k - 1), i) if reverse else i
        tau = slicing.dynamic_index_in_dim(taus, idx, nb, keepdims=False)
        v = slicing.dynamic_index_in_dim(v_all, idx, nb + 1, keepdims=False)
        nd = len(_shape(c))
        if left:       # c - tau v (v^H c)
            vhc = dot_general(conj(v), c, (((nb,), (nd - 2,)), (bdims, bdims)),
                              precision=Precision.HIGHEST)
            update = ew.mul(shapes.expand_dims(v, (nb + 1,)), shapes.expand_dims(vhc, (nb,)))
        else:          # c - tau (c v) v^H
            cv = dot_general(c, v, (((nd - 1,), (nb,)), (bdims, bdims)),
                             precision=Precision.HIGHEST)
            update = ew.mul(shapes.expand_dims(cv, (nb + 1,)),
                            shapes.expand_dims(conj(v), (nb,)))
        return ew.sub(c, ew.mul(shapes.expand_dims(tau, (nb, nb + 1)), update))
    return fori_loop(np.int32(0), np.int32(k), body, c)


def _ormqr_lowering(ctx, a, taus, c, *, left, transpose):
    dtype = ctx.avals_in[0].dtype
    if ctx.platform not in ("cpu", *gpu_solver.GPU_PLATFORMS):
        ctx.default_rule()
        return hl.lower_fun(_ormqr_reflectors)(ctx, a, taus, c, left=left,
                                               transpose=transpose)
    if ctx.platform != "cpu":
        return gpu_solver.custom_call(ctx, "cusolver_ormqr_ffi", [a, taus, c], ctx.avals_out,
                                      aliases={2: 0}, left=bool(left),
                                      transpose=bool(transpose))[0]
    flag = lambda b: "true" if b else "false"              # noqa: E731
    return lapack.custom_call(ctx, "unmqr" if dtypes.is_complex(dtype) else "ormqr", dtype,
                              [a, taus, c], ctx.avals_out, aliases={2: 0}, left=flag(left),
                              transpose=flag(transpose))[0]


abstract_eval_rules[ormqr_p] = _ormqr_abstract_eval
lowering_rules[ormqr_p] = untyped_lowering(_ormqr_lowering)
sharding_rules[ormqr_p] = linalg_sharding_rule(ormqr_p, (2, 1, 2))


def _ormqr_numpy(a, taus, c, *, left, transpose):
    """Q (or Q^H) times c from either side, Q = H_1 ... H_k formed whole (m x m) as
    householder_product forms its first columns."""
    lapack.prefix(a.dtype)      # another dtype (float16) refused as it lowers, in JAX's words
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
    k = m if full_matrices else min_dim(m, n)
    outs = [ShapedArray((*batch, m, k), x.dtype), ShapedArray((*batch, k, n), x.dtype)]
    return outs + [ShapedArray((*batch, n), np.int32)] if pivoting else outs


def _qr_impl(a, *, pivoting, full_matrices, use_magma):
    *batch, m, n = _shape(a)
    dtype, nd = _dtype(a), len(batch) + 2
    if m == 0 or n == 0:
        k = m if full_matrices else min_dim(m, n)
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
    eye = _eye(_dtype(do), _shape(r)[-1], ndim=len(_shape(do)))
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
        lu_factor, _, perm = lu_p.bind(q_nn - _eye(_dtype(q), n, ndim=len(_shape(q))))
        z_pn_h = lu_solve(lu_factor, perm, _H(q_pn), trans=2)
        z_pn = _H(z_pn_h)
        dq_mp = dq @ z_pn_h - (q_mn + q_mp @ z_pn) @ _H(dq_pn - z_pn @ dq_nn)
        nd = len(_shape(dq))
        dq = shapes.concatenate([dq, dq_mp], nd - 1)
        dr = slicing.pad(dr, np.zeros((), _dtype(dr)), [(0, 0, 0)] * (nd - 2) +
                         [(0, m - n, 0), (0, 0, 0)])
    return [q, r, *p], [dq, dr, *zero_p]


abstract_eval_rules[qr_p] = _qr_abstract_eval
lowering_rules[qr_p] = untyped_lowering(hl.lower_fun(_qr_impl, multiple_results=True))
sharding_rules[qr_p] = linalg_sharding_rule(qr_p, (2,))
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
