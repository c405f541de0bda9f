"""eig: the eigendecomposition of a general square matrix (complex eigenvalues, left and
right eigenvectors), with all its rules (LAPACK's geev on the CPU; cuSOLVER's geev or
jaxlib's hybrid kernel on CUDA GPUs, as JAX chooses).

    >>> eig(np.float32([[2, 0], [0, 3]]), compute_left_eigenvectors=False,
    ...     compute_right_eigenvectors=False)
    [Array([2.+0.j, 3.+0.j], dtype=complex64)]
"""
from __future__ import annotations

import enum
import warnings

import numpy as np

from ...core import dtypes
from ...core.avals import ShapedArray
from ...core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                               lowering_rules, numpy_rules, sharding_rules)
from ...xla import gpu_solver, lapack
from ...xla.lowering import LoweringRuleContext, no_rule_error
from ...transforms import ad_util as ad
from .. import _lowering as hl
from .. import conversion, elementwise as ew, shapes, slicing
from ..reductions import argmax, cumsum, reduce_sum
from ._common import (_H, _LAPACK_DTYPES, _T, _batch_all_front, _check_square, _diag, _dot, _dtype,
                      _eye, _nan_unless, _ok, _shape, linalg_sharding_rule, untyped_lowering)
from .lu_decomposition import lu, lu_solve


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
    if gpu_solver.on_gpu(ctx):
        return _eig_gpu_lowering(ctx, x, compute_left_eigenvectors=compute_left_eigenvectors,
                                 compute_right_eigenvectors=compute_right_eigenvectors,
                                 implementation=implementation)
    if ctx.platform != "cpu":     # (JAX registers eig for the CPU and the GPUs alone)
        raise no_rule_error("eig", ctx.platform)
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
    # (ROCm's: the hybrid kernel, hipSOLVER has no geev in JAX)
    have_geev = ctx.platform == "gpu" and (gpu_solver.cusolver_version() or 0) >= 11701
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
lowering_rules[eig_p] = untyped_lowering(_eig_lowering)
sharding_rules[eig_p] = linalg_sharding_rule(eig_p, (2,))


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
