"""eigh: the eigendecomposition of a Hermitian (symmetric) matrix, eigenvalues real and
ascending, with all its rules (LAPACK's syevd/heevd, cuSOLVER's syevd or syevj).

    >>> eigh(np.float32([[2, 1], [1, 2]]))[1]
    Array([1., 3.], dtype=float32)
"""
from __future__ import annotations

import enum

import numpy as np

from ...core import dtypes
from ...core.avals import ShapedArray
from ...core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                               lowering_rules, numpy_rules, sharding_rules)
from ...xla import ffi, gpu_solver, lapack
from ...xla.lapack import char
from ...transforms import ad_util as ad
from .. import _lowering as hl, conversion, elementwise as ew
from ._common import (_H, _batch_all_front, _check_matrix, _diag, _dot, _dtype, _eye, _nan_unless,
                      _ok, _real, _shape, linalg_sharding_rule, symmetrize, untyped_lowering)


# eigh(a) -> (v, w): a = v diag(w) v^H for Hermitian a, w real and ascending; NaN where the
# LAPACK routine fails. Only the `lower` (or upper) triangle is read.
class EighImplementation(enum.Enum):
    """Implementation for symmetric/Hermitian eigendecomposition (CPU has QR only)."""
    QR = "qr"
    JACOBI = "jacobi"
    QDWH = "qdwh"


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
    if ctx.platform == "tpu":
        return _eigh_tpu_lowering(ctx, x, lower=lower, sort_eigenvalues=sort_eigenvalues,
                                  subset_by_index=subset_by_index, algorithm=algorithm)
    if not (subset_by_index is None or tuple(subset_by_index) == (0, n)):
        raise NotImplementedError("subset_by_index not supported on CPU and GPU")
    if algorithm == EighImplementation.QDWH:
        raise NotImplementedError("QDWH implementation is only supported on TPU")
    outs = [v_aval, w_aval, ShapedArray(batch, np.int32)]
    if gpu_solver.on_gpu(ctx):
        # cuSOLVER's (hipSOLVER's) choice (0), QR (1: syevd) or Jacobi (2: syevj)
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


_JACOBI_UP_TO = 256     # JAX's TPU eigh: XLA's Jacobi kernel up to this size, QDWH beyond


def _eigh_tpu_lowering(ctx, x, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    """JAX's TPU rule: XLA's Jacobi kernel "Eigh" for EighImplementation.JACOBI, and for its
    default (QDWH) on matrices up to 256 x 256 (all eigenvalues), as JAX's QDWH hands those
    to it. JAX's spectral divide and conquer for larger ones (jax/_src/tpu/linalg/eigh.py)
    jxkernel does not lower."""
    if algorithm == EighImplementation.QR:
        raise NotImplementedError("QR algorithm is not supported on TPU")
    aval = ctx.avals_in[0]
    n = aval.shape[-1]
    if algorithm != EighImplementation.JACOBI and not (
            n <= _JACOBI_UP_TO and subset_by_index in (None, (0, n))):
        raise NotImplementedError(
            f"eigh on TPU: jxkernel lowers XLA's Jacobi kernel (JAX's choice up to "
            f"{_JACOBI_UP_TO} x {_JACOBI_UP_TO} for all eigenvalues), not JAX's QDWH spectral "
            f"divide and conquer beyond, for this {n} x {n} matrix")
    if n == 0:
        w_aval = ctx.avals_out[1]
        flat = ctx.op1("stablehlo.reshape", [x], result_type=hl.aval_type(
            ShapedArray(aval.shape[:-1], aval.dtype)))
        return [x, ctx.op1("stablehlo.real", [flat], result_type=hl.aval_type(w_aval))]
    config = f'"{int(bool(lower))},{int(bool(sort_eigenvalues))},100,1e-6"'
    return ffi.custom_call(ctx, "Eigh", [x], ctx.avals_out, backend_config=config,
                           operand_layouts=None, result_layouts=None, api_version=1)


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
    eye_n = _eye(dtype, n, ndim=len(_shape(a)))
    f = ew.integer_pow(eye_n + w[..., None, :] - w[..., None], -1) - eye_n   # no 1/0 NaNs
    vdag_adot_v = _dot(_dot(_H(v), a_dot), v)
    return [v, w_real], [_dot(v, f * vdag_adot_v), _diag(vdag_adot_v.real)]


abstract_eval_rules[eigh_p] = _eigh_abstract_eval
lowering_rules[eigh_p] = untyped_lowering(_eigh_lowering)
sharding_rules[eigh_p] = linalg_sharding_rule(eigh_p, (2,))


def _eigh_numpy(x, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    """numpy.linalg.eigh (LAPACK's syevd/heevd, as the CPU lowering): ascending eigenvalues,
    vectors in columns; which sign or phase a vector takes is LAPACK's."""
    lapack.prefix(x.dtype)      # another dtype (float16) refused as it lowers, in JAX's words
    n = x.shape[-1]
    if not (subset_by_index is None or tuple(subset_by_index) == (0, n)):
        raise NotImplementedError("eigh's subset_by_index has no NumPy rule")
    # a matrix with an inf or NaN gets NaNs, as the CPU lowering's failed-info select gives
    # (numpy.linalg.eigh would raise LinAlgError)
    bad = ~np.isfinite(x).all(axis=(-2, -1))
    w, v = np.linalg.eigh(np.where(bad[..., None, None], 0, x), UPLO="L" if lower else "U")
    if bad.any():
        w, v = w.copy(), v.copy()
        w[bad], v[bad] = np.nan, np.nan
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
