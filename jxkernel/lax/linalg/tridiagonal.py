"""tridiagonal_solve and tridiagonal: the tridiagonal family, with all their rules.

tridiagonal_solve solves A X = B for a tridiagonal A given by its three diagonals (LAPACK's
gtsv on the CPU, as JAX's CPU lowering, or jaxlib's perturbed LU kernel with perturb_singular;
elsewhere JAX's default lowering, the Thomas algorithm in a scan; the NumPy backend runs
SciPy's gtsv, or the perturbed kernel ported to NumPy). Linear in b, JAX's jvp in the diagonals.
tridiagonal reduces a Hermitian matrix to tridiagonal form (LAPACK's sytrd/hetrd; not
differentiable, as in JAX).

    >>> tridiagonal_solve(np.float32([0, 1]), np.float32([2, 2]), np.float32([1, 0]),
    ...                   np.float32([[3], [3]]))
    Array([[1.],
           [1.]], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.avals import ShapedArray
from ...core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                               lowering_rules, numpy_rules, sharding_rules, transpose_rules)
from ...xla import ffi, gpu_solver, lapack
from ...xla.lapack import char
from ...transforms import ad_util as ad
from ...transforms import batch_util as bu
from .. import _lowering as hl
from .. import elementwise as ew, shapes, slicing
from .._rules import INEXACT, check_dtype, check_same_dtypes
from ..scan import scan
from ._common import (_LAPACK_DTYPES, _batch_all_front, _dtype, _linalg_batch_dims, _nan_unless,
                      _not_differentiable, _ok, _real, _scipy_lapack, _shape, linalg_sharding_rule,
                      untyped_lowering)


# ------------------------------------------------------------------ tridiagonal_solve
# tridiagonal_solve(dl, d, du, b) -> x with A x = b, A[i, i-1] = dl[i], A[i, i] = d[i],
# A[i, i+1] = du[i] (dl[0] and du[-1] are not read); NaN where gtsv finds A singular.
tridiagonal_solve_p = Primitive("tridiagonal_solve")


def _tridiagonal_solve_abstract_eval(dl, d, du, b, *, perturb_singular):
    for i, x in enumerate((dl, d, du, b)):
        check_dtype("tridiagonal_solve", x, INEXACT, position=i)
    check_same_dtypes("tridiagonal_solve", dl, d, du, b)
    _linalg_batch_dims("tridiagonal_solve", (1, 1, 1, 2), (dl, d, du, b))
    if not dl.shape == d.shape == du.shape:
        raise TypeError("tridiagonal_solve requires that all diagonal arguments have the same "
                        "shape.")
    if dl.shape != b.shape[:-1]:
        raise TypeError("tridiagonal_solve requires that the leading ndim-1 dimensions of b "
                        "equal the dimensions of the diagonal arguments.")
    return ShapedArray(b.shape, b.dtype)


def _lapack_dtype(dtype):
    """JAX's refusal of a dtype LAPACK has no routine for (float16, bfloat16), in its words."""
    if np.dtype(dtype) not in _LAPACK_DTYPES:
        raise NotImplementedError(f"Unsupported dtype {np.dtype(dtype).name}.")
    return dtype


def _tridiagonal_solve_cpu(ctx, dl, d, du, b, *, perturb_singular):
    """gtsv (LU with partial pivoting; its dl is ours from index 1), NaN where it failed; or
    jaxlib's kernel that perturbs tiny pivots instead (perturb_singular)."""
    *diag_avals, b_aval = ctx.avals_in
    batch = b_aval.shape[:-2]
    if perturb_singular:
        lapack.ensure_registered()
        return lapack.ffi_call(ctx, "tridiagonal_solve_perturbed_ffi", [dl, d, du, b],
                               [b_aval], backend_config=ffi.dictionary({}))[0]
    *_, x, info = lapack.custom_call(
        ctx, "gtsv", _lapack_dtype(b_aval.dtype), [dl, d, du, b],
        [*diag_avals, b_aval, ShapedArray(batch, np.int32)], aliases={0: 0, 1: 1, 2: 2, 3: 3})
    return _nan_unless(ctx, _ok(ctx, info, batch), x, b_aval, batch)


def _front(x, axis):
    """x with `axis` moved to the front (the axis a scan walks)."""
    nd = len(_shape(x))
    axis %= nd
    return shapes.transpose(x, (axis, *(i for i in range(nd) if i != axis)))


def _back(x, axis):
    """The inverse of _front: the leading axis moved back to `axis`."""
    nd = len(_shape(x))
    axis %= nd
    perm = list(range(1, nd))
    perm.insert(axis, 0)
    return shapes.transpose(x, tuple(perm))


def _tridiagonal_solve_thomas(dl, d, du, b, *, perturb_singular):
    """JAX's default lowering (no pivoting, as its _tridiagonal_solve_jax_impl): a forward
    scan eliminating the subdiagonal, a backward one substituting. Batched by broadcasting the
    diagonals over b's columns and scanning over the rows."""
    if perturb_singular:
        raise NotImplementedError("perturb_singular=True is not supported on this platform.")
    nd = len(_shape(b))
    spread = lambda v: _front(shapes.broadcast_in_dim(v, _shape(b), tuple(range(nd - 1))), -2)
    a, bb, c = spread(dl), spread(d), spread(du)
    rhs = _front(b, -2)
    first = lambda v: slicing.index_in_dim(v, 0, keepdims=False)
    rest = lambda v: slicing.slice_in_dim(v, 1, None)

    def fwd(carry, args):
        cp, dp = carry
        a, b, c, d = args
        denom = ew.sub(b, ew.mul(a, cp))
        return (ew.div(c, denom), ew.div(ew.sub(d, ew.mul(a, dp)), denom)), (cp, dp)

    init = (ew.div(first(c), first(bb)), ew.div(first(rhs), first(bb)))
    (_, final), (cp, dp) = scan(fwd, init, (rest(a), rest(bb), rest(c), rest(rhs)), unroll=32)

    def bwd(xn, args):
        cp, dp = args
        return ew.sub(dp, ew.mul(cp, xn)), xn

    end, ans = scan(bwd, final, (cp, dp), unroll=32, reverse=True)
    return _back(shapes.concatenate([shapes.expand_dims(end, (0,)), ans], 0), -2)


_thomas_lowering = hl.lower_fun(_tridiagonal_solve_thomas)


def _tridiagonal_solve_gpu(ctx, dl, d, du, b, *, perturb_singular):
    """As JAX's on a CUDA GPU: the plugin's perturbed-LU kernel (perturb_singular), the
    Thomas algorithm for systems of 2 or fewer rows (cuSPARSE's gtsv2 needs 3), else gtsv2."""
    b_aval = ctx.avals_in[-1]
    if perturb_singular:
        return gpu_solver.custom_call(ctx, "cu_tridiagonal_solve_perturbed", [dl, d, du, b],
                                      [b_aval])[0]
    if b_aval.shape[-2] <= 2:
        return _thomas_lowering(ctx, dl, d, du, b, perturb_singular=False)
    return gpu_solver.custom_call(ctx, "cusparse_gtsv2_ffi", [dl, d, du, b], [b_aval],
                                  aliases={3: 0})[0]


def _tridiagonal_solve_lowering(ctx, dl, d, du, b, *, perturb_singular):
    if ctx.platform == "cpu":
        return _tridiagonal_solve_cpu(ctx, dl, d, du, b, perturb_singular=perturb_singular)
    if gpu_solver.on_gpu(ctx):
        return _tridiagonal_solve_gpu(ctx, dl, d, du, b, perturb_singular=perturb_singular)
    ctx.default_rule()                  # JAX's default rule (the TPU's): the Thomas algorithm
    return _thomas_lowering(ctx, dl, d, du, b, perturb_singular=perturb_singular)


def _tridiagonal_solve_numpy(dl, d, du, b, *, perturb_singular):
    """SciPy's gtsv, matrix by matrix (NaN where singular), as the CPU lowering's LAPACK;
    with perturb_singular, jaxlib's perturbed LU kernel ported (_perturbed_solve)."""
    _lapack_dtype(b.dtype)             # (float16 refused, as by the CPU lowering's LAPACK)
    solve = _perturbed_solve if perturb_singular else _gtsv_solve(b.dtype)
    out = np.empty_like(b)
    for i in np.ndindex(b.shape[:-2]):
        out[i] = solve(dl[i], d[i], du[i], b[i])
    return out


def _gtsv_solve(dtype):
    gtsv = _scipy_lapack("gtsv", dtype)

    def solve(dl, d, du, b):
        *_, x, info = gtsv(dl[1:], d, du[:-1], b)
        return x if info == 0 else np.nan
    return solve


def _perturbed_solve(dl, d, du, b):
    """jaxlib's tridiagonal_solve_perturbed_ffi (jaxlib/tridiagonal_solve_perturbed.h, after
    LAPACK's xLAGTF + xLAGTS), step for step in b's dtype: LU with row pivoting, the forward
    solve done as it factors, then back substitution where a tiny pivot of U is perturbed by
    about eps * max|U| (or the row scaled up) instead of overflowing. Inverse iteration
    (eigh_tridiagonal's eigenvectors) solves such singular systems.

    >>> _perturbed_solve(*np.float32([[0, 1], [1, 1], [1, 0]]), np.float32([[1], [2]]))
    array([[-8.388607e+06],
           [ 8.388608e+06]], dtype=float32)
    """
    n, dtype = len(d), b.dtype
    real = dtypes.finfo(dtype).dtype
    zero = dtype.type(0)
    x = b.copy()
    if n == 0:
        return x
    eps = real.type(dtypes.finfo(real).eps)
    if n == 1:
        p, row = _perturbed_pivot(eps * real.type(abs(d[0])), d[0], x[0].copy())
        x[0] = row / p
        return x
    u = np.zeros((n, 3), dtype)
    u[0, 0], u[0, 1] = d[0], du[0]
    max_u = max(abs(u[0, 0]), abs(u[0, 1]))
    scale1 = real.type(abs(u[0, 0]) + abs(u[0, 1]))
    for k in range(n - 1):
        u[k + 1, 0] = d[k + 1]
        scale2 = real.type(abs(dl[k + 1]) + abs(u[k + 1, 0]))
        if k < n - 2:
            scale2 += real.type(abs(du[k + 1]))
        if dl[k + 1] == zero:                  # nothing below the pivot: the next row
            scale1 = scale2
            u[k + 1, 1], u[k, 2] = du[k + 1], zero
        else:
            piv1 = real.type(0) if u[k, 0] == zero else real.type(abs(u[k, 0]) / scale1)
            piv2 = real.type(abs(dl[k + 1]) / scale2)
            if piv2 <= piv1:                   # no row exchange
                scale1 = scale2
                factor = dl[k + 1] / u[k, 0]
                u[k + 1, 0] -= factor * u[k, 1]
                u[k + 1, 1], u[k, 2] = du[k + 1], zero
                x[k + 1] = x[k + 1] - factor * x[k]
            else:                              # rows k and k+1 exchanged
                factor = u[k, 0] / dl[k + 1]
                utmp = u[k, 1]
                u[k, 0] = dl[k + 1]
                u[k + 1, 0] = utmp - factor * d[k + 1]
                u[k, 1] = d[k + 1]
                if k < n - 2:
                    u[k, 2] = du[k + 1]
                    u[k + 1, 1] = -factor * du[k + 1]
                x[k + 1], x[k] = x[k] - factor * x[k + 1], x[k + 1].copy()
                scale1 = real.type(abs(u[k + 1, 0]) + abs(u[k + 1, 1]))
        if k < n - 2:
            max_u = max(max_u, *np.abs(u[k]))
    max_u = max(max_u, abs(u[n - 1, 0]))
    perturb = real.type(eps * max_u)
    one = dtype.type(1)
    for k in range(n - 1, -1, -1):             # U x = z, tiny pivots perturbed
        row = x[k].copy()
        if k + 1 < n:
            row = row - u[k, 1] * x[k + 1]
        if k + 2 < n:
            row = row - u[k, 2] * x[k + 2]
        p, row = _perturbed_pivot(perturb, u[k, 0], row)
        x[k] = row * (one / p)
    return x


def _perturbed_pivot(perturb, pivot, row):
    """jaxlib's MaybePerturbPivot (from LAPACK's xLAGTS): (pivot, row) with a pivot of
    magnitude below 1 moved away from zero by `perturb`, doubling, until neither row / pivot
    nor 1 / pivot overflows (or, below the safe minimum, both scaled up instead)."""
    real = dtypes.finfo(row.dtype).dtype
    info = dtypes.finfo(real)
    one, tiny, small = real.type(1), real.type(info.tiny), real.type(1) / real.type(info.max)
    safemin = tiny if small < tiny else real.type(small * (one + real.type(info.eps)))
    bignum = one / safemin
    size = real.type(abs(pivot))
    if size >= one:
        return pivot, row
    perturb = real.type(np.copysign(max(abs(perturb), safemin), np.real(pivot)))
    biggest = real.type(np.abs(row).max()) if row.size else real.type(0)
    while size < one:
        if size < safemin:
            if size == 0 or biggest * safemin > size:
                pivot, perturb = pivot + perturb, perturb * real.type(2)
            else:
                return pivot * bignum, row * bignum
        elif biggest > size * bignum:
            pivot, perturb = pivot + perturb, perturb * real.type(2)
        else:
            break
        size = real.type(abs(pivot))
    return pivot, row


def _zero_row(x, axis):
    """Zeros shaped as x with `axis` of size 1."""
    shape = list(_shape(x))
    shape[axis] = 1
    return shapes.broadcast_in_dim(np.zeros((), _dtype(x)), tuple(shape), ())


def _shifted(x, axis, down):
    """x moved one place along `axis` (down: row i holds x[i-1]), a zero entering."""
    axis %= len(_shape(x))
    n = _shape(x)[axis]
    if down:
        return shapes.concatenate([_zero_row(x, axis), slicing.slice_in_dim(x, 0, n - 1,
                                                                             axis=axis)], axis)
    return shapes.concatenate([slicing.slice_in_dim(x, 1, n, axis=axis), _zero_row(x, axis)],
                              axis)


def _tridiagonal_product(dl, d, du, b):
    """A @ b for the tridiagonal A of (dl, d, du) (JAX's _tridiagonal_product): dl[0] and
    du[-1] meet the zero rows, so they add nothing, as JAX's .at[1:].add."""
    nd = len(_shape(b))
    col = lambda v: shapes.broadcast_in_dim(v, _shape(b), tuple(range(nd - 1)))
    return ew.add(ew.add(ew.mul(col(d), b), ew.mul(col(dl), _shifted(b, nd - 2, True))),
                  ew.mul(col(du), _shifted(b, nd - 2, False)))


def _tridiagonal_solve_jvp(primals, tangents, *, perturb_singular):
    # d(A^-1 b) = A^-1 (db - dA x): one more solve with the same diagonals (JAX's rule)
    *diags, _ = primals
    *diags_dot, b_dot = tangents
    ans = tridiagonal_solve_p.bind(*primals, perturb_singular=perturb_singular)
    if all(type(t) is ad.Zero for t in diags_dot):
        rhs = b_dot
    else:
        matvec = _tridiagonal_product(*map(ad.instantiate, diags_dot), ans)
        rhs = ad.add_tangents(b_dot, ew.neg(matvec))
    if type(rhs) is ad.Zero:
        return ans, rhs
    return ans, tridiagonal_solve_p.bind(*diags, rhs, perturb_singular=perturb_singular)


def _tridiagonal_solve_transpose(ct, dl, d, du, b, *, perturb_singular):
    # linear in b only: the transpose solves with A^T, whose subdiagonal is du shifted right
    # and superdiagonal dl shifted left (JAX's rule)
    assert not any(map(ad.is_undefined, (dl, d, du))) and ad.is_undefined(b)
    if type(ct) is ad.Zero:
        return [None, None, None, ad.Zero(b.aval)]
    return [None, None, None, tridiagonal_solve_p.bind(
        _shifted(du, -1, down=True), d, _shifted(dl, -1, down=False), ct,
        perturb_singular=perturb_singular)]


def _tridiagonal_solve_batching(vals, dims, *, perturb_singular):
    dl, d, du, b = vals
    *diag_dims, b_dim = dims
    if all(x is None for x in diag_dims):
        # one A for the whole batch: b's batch joins its columns, one bigger solve (JAX's)
        b = bu.moveaxis(b, b_dim, -2)
        s = _shape(b)
        flat = shapes.reshape(b, (*s[:-3], s[-3], s[-2] * s[-1]))
        out = tridiagonal_solve_p.bind(dl, d, du, flat, perturb_singular=perturb_singular)
        return shapes.reshape(out, s), len(s) - 2
    size = bu.axis_size_of(vals, dims)
    return tridiagonal_solve_p.bind(*(bu.bdim_at_front(x, i, size) for x, i in zip(vals, dims)),
                                    perturb_singular=perturb_singular), 0


abstract_eval_rules[tridiagonal_solve_p] = _tridiagonal_solve_abstract_eval
lowering_rules[tridiagonal_solve_p] = untyped_lowering(_tridiagonal_solve_lowering)
sharding_rules[tridiagonal_solve_p] = linalg_sharding_rule(tridiagonal_solve_p, (1, 1, 1, 2))
numpy_rules[tridiagonal_solve_p] = _tridiagonal_solve_numpy
jvp_rules[tridiagonal_solve_p] = _tridiagonal_solve_jvp
transpose_rules[tridiagonal_solve_p] = _tridiagonal_solve_transpose
batching_rules[tridiagonal_solve_p] = _tridiagonal_solve_batching


def tridiagonal_solve(dl, d, du, b, *, perturb_singular: bool = False):
    """x with A @ x = b for the tridiagonal A of diagonals dl (A[i, i-1], dl[0] unread), d
    and du (A[i, i+1], du[-1] unread), batched over leading dims; NaN where A is singular,
    unless perturb_singular, which perturbs tiny pivots (CPU only) to keep x finite.

    >>> tridiagonal_solve(np.float32([0, 1]), np.float32([2, 2]), np.float32([1, 0]),
    ...                   np.float32([[3], [3]]))
    Array([[1.],
           [1.]], dtype=float32)
    """
    return tridiagonal_solve_p.bind(dl, d, du, b, perturb_singular=bool(perturb_singular))


# ------------------------------------------------------------------ tridiagonal
# tridiagonal(a) -> (a', d, e, taus): sytrd/hetrd's reduction Q^H a Q = T of the `lower` (or
# upper) triangle; T's diagonal d and off-diagonal e (real), the reflectors in a' and taus.
tridiagonal_p = Primitive("tridiagonal")
tridiagonal_p.multiple_results = True


def _tridiagonal_abstract_eval(a, *, lower):
    check_dtype("tridiagonal", a, INEXACT, position=0)
    batch = _linalg_batch_dims("tridiagonal", (2,), (a,))
    n, m = a.shape[-2:]
    if n != m or m == 0:
        raise ValueError(f"The input to tridiagonal must be a square matrix. Got shape "
                         f"{a.shape[-2:]}.")
    real = _real(a.dtype)
    return [ShapedArray(a.shape, a.dtype), ShapedArray((*batch, n), real),
            ShapedArray((*batch, n - 1), real), ShapedArray((*batch, n - 1), a.dtype)]


def _tridiagonal_lowering(ctx, a, *, lower):
    aval, = ctx.avals_in
    batch = aval.shape[:-2]
    results = [*ctx.avals_out, ShapedArray(batch, np.int32)]
    if gpu_solver.on_gpu(ctx):      # cuSOLVER's sytrd (complex too), as JAX's on a CUDA GPU
        *outs, info = gpu_solver.custom_call(ctx, "cusolver_sytrd_ffi", [a], results,
                                             aliases={0: 0}, lower=bool(lower))
    else:
        routine = "hetrd" if dtypes.is_complex(aval.dtype) else "sytrd"
        *outs, info = lapack.custom_call(ctx, routine, _lapack_dtype(aval.dtype), [a], results,
                                         aliases={0: 0}, uplo=char("L" if lower else "U"))
    ok = _ok(ctx, info, batch)
    return [_nan_unless(ctx, ok, x, out_aval, batch) for x, out_aval in zip(outs, ctx.avals_out)]


def _tridiagonal_numpy(a, *, lower):
    """SciPy's sytrd/hetrd matrix by matrix, the CPU lowering's LAPACK routine."""
    trd = _scipy_lapack("hetrd" if a.dtype.kind == "c" else "sytrd", _lapack_dtype(a.dtype))
    batch, n = a.shape[:-2], a.shape[-1]
    real = _real(a.dtype)
    outs = [np.empty_like(a), np.empty((*batch, n), real), np.empty((*batch, n - 1), real),
            np.empty((*batch, n - 1), a.dtype)]
    for i in np.ndindex(batch):
        *got, info = trd(a[i], lower=int(lower))
        for out, x in zip(outs, got):
            out[i] = x if info == 0 else np.nan
    return outs


abstract_eval_rules[tridiagonal_p] = _tridiagonal_abstract_eval
lowering_rules[tridiagonal_p] = untyped_lowering(_tridiagonal_lowering)
sharding_rules[tridiagonal_p] = linalg_sharding_rule(tridiagonal_p, (2,))
numpy_rules[tridiagonal_p] = _tridiagonal_numpy
jvp_rules[tridiagonal_p] = _not_differentiable(tridiagonal_p)
batching_rules[tridiagonal_p] = _batch_all_front(tridiagonal_p)


def tridiagonal(a, *, lower: bool = True):
    """(a', d, e, taus): a Hermitian `a` reduced to tridiagonal form T = Q^H a Q, reading
    only its `lower` (or upper) triangle; d is T's diagonal, e its off-diagonal, and a' holds
    them with Q's Householder reflectors beyond (their scales in taus), as LAPACK's sytrd.

    >>> tridiagonal(np.float32([[2, 1], [1, 2]]))[1]
    Array([2., 2.], dtype=float32)
    """
    return tridiagonal_p.bind(a, lower=bool(lower))
