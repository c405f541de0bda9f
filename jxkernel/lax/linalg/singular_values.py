"""svd: the singular value decomposition, with all its rules (LAPACK's gesdd or gesvd on the
CPU; cuSOLVER's gesvdj, gesvdp or gesvd on CUDA GPUs, as JAX picks; JAX's jvp).

    >>> svd(np.float32([[3, 0], [0, 4]]), compute_uv=False)
    Array([4., 3.], dtype=float32)
"""
from __future__ import annotations

import enum

import numpy as np

from ...core import dtypes
from ...core.avals import ShapedArray
from ...core.symbolic import min_dim
from ...core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                               lowering_rules, numpy_rules, sharding_rules)
from ...xla import gpu_solver, lapack
from ...xla import stablehlo as hlo
from ...xla.lapack import char
from ...transforms import ad_util as ad
from ...transforms.batching import vmap
from .. import _lowering as hl
from .. import elementwise as ew, shapes
from ..slicing.slice_pad import _slice_lowering
from .polar_svd import svd as polar_svd
from ._common import (_H, _T, _batch_all_front, _check_matrix, _diag, _dtype, _eye, _nan_unless,
                      _ok, _real, _shape, _sub_ctx, linalg_sharding_rule, untyped_lowering)


# svd(a) -> (s, u, vt) (or (s,) without compute_uv): a = u diag(s) vt, s real, descending;
# NaN where the LAPACK routine fails.
class SvdAlgorithm(enum.Enum):
    """SVD algorithm: on CPU DEFAULT and DIVIDE_AND_CONQUER are gesdd, QR is gesvd."""
    DEFAULT = "default"
    QR = "QR"
    JACOBI = "Jacobi"
    POLAR = "polar"
    DIVIDE_AND_CONQUER = "divide_and_conquer"


svd_p = Primitive("svd", multiple_results=True)


def _svd_shapes(shape, full_matrices, compute_uv, subset_by_index):
    *batch, m, n = shape
    rank = min_dim(m, n)
    if subset_by_index is not None:
        if full_matrices and tuple(subset_by_index) != (0, rank):
            raise ValueError("full_matrices and subset_by_index cannot both be set")
        rank = min(rank, subset_by_index[1] - subset_by_index[0])
    s = (*batch, rank)
    return [s, (*batch, m, m if full_matrices else rank),
            (*batch, n if full_matrices else rank, n)] if compute_uv else [s]


# (algorithm=None: JAX's rules default it, and its test harnesses bind svd_p without it)
def _svd_abstract_eval(x, *, full_matrices, compute_uv, subset_by_index, algorithm=None):
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


def _svd_lowering(ctx, x, *, full_matrices, compute_uv, subset_by_index, algorithm=None):
    aval = ctx.avals_in[0]
    *batch, m, n = aval.shape
    batch = tuple(batch)
    if ctx.platform == "tpu":           # JAX's default rule: the polar decomposition's SVD
        ctx.default_rule()
        return _svd_tpu_lowering(ctx, x, full_matrices=full_matrices, compute_uv=compute_uv,
                                 subset_by_index=subset_by_index, algorithm=algorithm)
    if not (subset_by_index is None or tuple(subset_by_index) == (0, min_dim(m, n))):
        raise NotImplementedError("subset_by_index not implemented for CPU and GPU")
    if m == 0 or n == 0:
        return hl.lower_fun(_empty_svd, multiple_results=True)(
            ctx, x, full_matrices=full_matrices, compute_uv=compute_uv)
    if gpu_solver.on_gpu(ctx):
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


def _svd_tpu(a, *, full_matrices, compute_uv, subset_by_index):
    """JAX's _svd_tpu: the QDWH polar decomposition's SVD (lax.linalg's qdwh, qr and eigh),
    mapped over the batch."""
    fn = lambda a: polar_svd(a, full_matrices, compute_uv,  # noqa: E731
                             subset_by_index=subset_by_index)
    for _ in _shape(a)[:-2]:
        fn = vmap(fn)
    if compute_uv:
        u, s, vh = fn(a)
        return [s, u, vh]
    return [fn(a)]


def _svd_tpu_lowering(ctx, x, *, full_matrices, compute_uv, subset_by_index, algorithm):
    m, n = ctx.avals_in[0].shape[-2:]
    if algorithm not in (None, SvdAlgorithm.DEFAULT, SvdAlgorithm.POLAR):
        raise NotImplementedError("Only the POLAR (which is also DEFAULT on TPU) SVD algorithm "
                                  "is supported on TPU.")
    if m == 0 or n == 0:
        return hl.lower_fun(_empty_svd, multiple_results=True)(
            ctx, x, full_matrices=full_matrices, compute_uv=compute_uv)
    if algorithm not in (None, SvdAlgorithm.DEFAULT):
        raise NotImplementedError("The SVD algorithm parameter is not implemented on TPU.")
    return hl.lower_fun(_svd_tpu, multiple_results=True)(
        ctx, x, full_matrices=full_matrices, compute_uv=compute_uv,
        subset_by_index=subset_by_index)


def _svd_gpu_lowering(ctx, x, *, full_matrices, compute_uv, algorithm):
    """cuSOLVER's SVD as JAX picks it: Jacobi (gesvdj) by default up to 1024 x 1024 and
    for SvdAlgorithm.JACOBI, polar (gesvdp) for POLAR, else QR (gesvd, of the transpose
    when m < n)."""
    aval = ctx.avals_in[0]
    *batch, m, n = aval.shape
    batch, k, nb = tuple(batch), min_dim(m, n), len(batch)
    s_aval = ctx.avals_out[0]
    algorithm = SvdAlgorithm.DEFAULT if algorithm is None else algorithm
    if algorithm == SvdAlgorithm.DIVIDE_AND_CONQUER and ctx.platform != "rocm":
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
                u = _slice_lowering(_sub_ctx(ctx, [u_aval], [u_out]), u,
                                    start_indices=(0,) * (nb + 2),
                                    limit_indices=u_out.shape, strides=None)
                vt = _slice_lowering(_sub_ctx(ctx, [vt_aval], [vt_out]), vt,
                                     start_indices=(0,) * (nb + 2),
                                     limit_indices=vt_out.shape, strides=None)
    elif algorithm == SvdAlgorithm.DIVIDE_AND_CONQUER:      # ROCm's gesdd
        u_aval, vt_aval = ctx.avals_out[1:] if compute_uv else \
            [ShapedArray((), aval.dtype)] * 2
        _, s, u, vt, info = gpu_solver.custom_call(
            ctx, "cusolver_gesdd_ffi", [x], [aval, s_aval, u_aval, vt_aval, info_aval],
            aliases={0: 0}, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv),
            transposed=False)
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


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index, algorithm=None):
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
    eye = _eye(_dtype(s), k, ndim=len(_shape(A)))
    s_diffs_zeros = eye                          # 1 where s_diffs is 0 on the diagonal
    F = 1 / (s_diffs + s_diffs_zeros) - s_diffs_zeros
    dSS = s_dim.astype(dtype) * dS               # dS @ diag(s)
    SdS = _T(s_dim.astype(dtype)) * dS           # diag(s) @ dS
    s_zeros = (s == 0).astype(_dtype(s))
    s_inv = 1 / (s + s_zeros) - s_zeros
    dUdV_diag = .5 * (dS - _H(dS)) * (s_inv[..., :, None] * eye).astype(dtype)
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
lowering_rules[svd_p] = untyped_lowering(_svd_lowering)
sharding_rules[svd_p] = linalg_sharding_rule(svd_p, (2,))


def _svd_numpy(x, *, full_matrices, compute_uv, subset_by_index, algorithm=None):
    """numpy.linalg.svd (LAPACK's gesdd, the CPU lowering's default): [s] or [s, u, vt]."""
    lapack.prefix(x.dtype)      # another dtype (float16) refused as it lowers, in JAX's words
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
