"""Linear-algebra primitives lowered to LAPACK on CPU (jaxlib's typed-FFI custom calls):
`cholesky` (potrf), `geqrf` and `householder_product` (orgqr/ungqr), and `qr` built on them,
as JAX's lax.linalg lowers them, so results match JAX's bit for bit on CPU.

All act on the last two dimensions and batch over the leading ones. LAPACK works on
column-major matrices, so every custom call states column-major layouts for them.

    >>> cholesky(np.array([[4., 2.], [2., 5.]], np.float32))
    Array([[2., 0.],
           [1., 2.]], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.avals import ShapedArray, get_aval
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                              lowering_rules)
from ..xla import stablehlo as hlo
from . import _batch_util as bu
from . import _lowering as hl
from ._rules import INEXACT, check_dtype

_LAPACK_DTYPES = frozenset(map(np.dtype, (np.float32, np.float64, np.complex64, np.complex128)))


# ------------------------------------------------------------------ helpers
def _col_major(ndim):
    """Minor-to-major layout of a batch of column-major matrices."""
    return (ndim - 2, ndim - 1) + tuple(range(ndim - 3, -1, -1))


def _row_major(ndim):
    return tuple(range(ndim - 1, -1, -1))


def _layouts(layouts) -> str:
    def one(lay):
        body = str(lay[0]) if len(lay) == 1 else "[" + ", ".join(map(str, lay)) + "]"
        return f"dense<{body if lay else ''}> : tensor<{len(lay)}xindex>"
    return "[" + ", ".join(one(lay) for lay in layouts) + "]"


def _lapack_call(ctx, target, operands, result_types, operand_layouts, result_layouts,
                 alias_result=None, config=None):
    """A LAPACK custom call; `alias_result` = index of the result that overwrites operand 0
    (LAPACK works in place), or "single" when that result is the only one."""
    from ..xla import lapack
    lapack.ensure_registered()
    if ctx.platform != "cpu":
        raise NotImplementedError(f"{target}: jxkernel lowers linear algebra to LAPACK, on "
                                  f"CPU only (platform here: {ctx.platform})")
    attrs = {"call_target_name": f'"{target}"', "api_version": "4 : i32",
             "backend_config": "{" + ", ".join(f"{k} = {v}" for k, v in (config or {}).items())
                               + "}",
             "operand_layouts": _layouts(operand_layouts),
             "result_layouts": _layouts(result_layouts)}
    if alias_result is not None:
        tuple_index = "[]" if alias_result == "single" else f"[{alias_result}]"
        attrs["output_operand_aliases"] = (
            f"[#stablehlo.output_operand_alias<output_tuple_indices = {tuple_index}, "
            f"operand_index = 0, operand_tuple_indices = []>]")
    return ctx.op("stablehlo.custom_call", operands, attrs, result_types=result_types)


def _check_matrix(name, x, square=False):
    check_dtype(name, x, INEXACT)
    if len(x.shape) < 2:
        raise ValueError(f"{name} requires an operand with at least 2 dimensions, got shape "
                         f"{x.shape}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{name} requires the last two dimensions to be square, got shape "
                         f"{x.shape}")
    if x.dtype not in _LAPACK_DTYPES:
        raise TypeError(f"{name} supports float32, float64, complex64 and complex128, got "
                        f"{x.dtype.name}")


def _batch_all_front(prim, **fixed):
    """Batching rule of a primitive that batches over leading dims: batch dims go first."""
    def rule(vals, dims, **params):
        size = bu.axis_size_of(vals, dims)
        outs = prim.bind(*(bu.bdim_at_front(x, d, size) for x, d in zip(vals, dims)), **params)
        return outs, ([0] * len(outs) if prim.multiple_results else 0)
    return rule


def _no_jvp(name):
    def rule(primals, tangents, **params):
        raise NotImplementedError(f"Differentiation of {name} is not implemented in jxkernel "
                                  f"yet (its JVP needs a triangular solve)")
    return rule


def _lower_triangle_mask(ctx, shape, offset=0):
    """Booleans of `shape` (a batch of matrices): row + offset >= column."""
    n, m = shape[-2:]
    i32 = np.dtype(np.int32)
    t = hlo.tensor_type((n, m), i32)
    rows = ctx.op1("stablehlo.iota", [], {"iota_dimension": hlo.i64_attr(0)}, result_type=t)
    cols = ctx.op1("stablehlo.iota", [], {"iota_dimension": hlo.i64_attr(1)}, result_type=t)
    rows = ctx.op1("stablehlo.add", [rows, hl.splat(ctx, offset, i32, (n, m))], result_type=t)
    mask = hl.compare(ctx, rows, cols, "GE", ShapedArray((n, m), i32))
    if len(shape) > 2:
        mask = hl.broadcast_in_dim(ctx, mask, shape, np.bool_, [len(shape) - 2, len(shape) - 1])
    return mask


# ------------------------------------------------------------------ cholesky
# cholesky(a) -> L, lower triangular with a = L @ L^H; NaN where the factorization fails.
# The upper triangle of the operand is never read (jax's `cholesky` symmetrizes first).
cholesky_p = Primitive("cholesky")


def _cholesky_abstract_eval(x):
    _check_matrix("cholesky", x, square=True)
    return ShapedArray(x.shape, x.dtype)


def _cholesky_lowering(ctx, x):
    aval = ctx.avals_in[0]
    nd, batch = len(aval.shape), aval.shape[:-2]
    info_aval = ShapedArray(batch, np.int32)
    from ..xla import lapack
    factor, info = _lapack_call(
        ctx, f"lapack_{lapack.prefix(aval.dtype)}potrf_ffi", [x],
        [hl.aval_type(aval), hl.aval_type(info_aval)], [_col_major(nd)],
        [_col_major(nd), _row_major(nd - 2)], alias_result=0, config={"uplo": "76 : ui8"})
    ok = hl.compare(ctx, info, hl.splat(ctx, 0, np.int32, batch), "EQ", info_aval)
    ok = hl.broadcast_in_dim(ctx, ok, aval.shape, np.bool_, list(range(len(batch))))
    nan = hl.splat(ctx, np.nan, aval.dtype, aval.shape)
    factor = hl.select(ctx, ok, factor, nan, aval)
    zero = hl.splat(ctx, 0, aval.dtype, aval.shape)        # potrf leaves the upper triangle
    return hl.select(ctx, _lower_triangle_mask(ctx, aval.shape), factor, zero, aval)


abstract_eval_rules[cholesky_p] = _cholesky_abstract_eval
lowering_rules[cholesky_p] = _cholesky_lowering
batching_rules[cholesky_p] = _batch_all_front(cholesky_p)
jvp_rules[cholesky_p] = _no_jvp("cholesky")


def _H(x):
    from . import elementwise, shapes
    nd = len(bu.shape(x))
    xt = shapes.transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))
    return elementwise.conj(xt) if dtypes.is_complex(get_aval(x).dtype) else xt


def symmetrize(x):
    """(x + x^H) / 2: the Hermitian part of x."""
    from . import elementwise
    return elementwise.div(elementwise.add(x, _H(x)), np.array(2, get_aval(x).dtype))


def cholesky(x, *, symmetrize_input: bool = True):
    """The lower Cholesky factor L of a Hermitian positive-definite x (x = L @ L^H), batched
    over leading dims; NaN where x is not positive definite."""
    if symmetrize_input:
        x = symmetrize(x)
    return cholesky_p.bind(x)


# ------------------------------------------------------------------ geqrf, householder_product
# geqrf(a) -> (r_and_reflectors, taus): LAPACK's Householder QR, R in the upper triangle and
# the reflectors below it. householder_product(a, taus) -> Q from those reflectors.
geqrf_p = Primitive("geqrf", multiple_results=True)


def _geqrf_abstract_eval(x):
    _check_matrix("geqrf", x)
    *batch, m, n = x.shape
    return [ShapedArray(x.shape, x.dtype), ShapedArray((*batch, min(m, n)), x.dtype)]


def _geqrf_lowering(ctx, x):
    from ..xla import lapack
    a_aval, taus_aval = ctx.avals_out
    nd = len(a_aval.shape)
    return _lapack_call(ctx, f"lapack_{lapack.prefix(a_aval.dtype)}geqrf_ffi", [x],
                        [hl.aval_type(a_aval), hl.aval_type(taus_aval)], [_col_major(nd)],
                        [_col_major(nd), _row_major(nd - 1)], alias_result=0)


abstract_eval_rules[geqrf_p] = _geqrf_abstract_eval
lowering_rules[geqrf_p] = _geqrf_lowering
batching_rules[geqrf_p] = _batch_all_front(geqrf_p)
jvp_rules[geqrf_p] = _no_jvp("geqrf")

householder_product_p = Primitive("householder_product")


def _householder_product_abstract_eval(a, taus):
    _check_matrix("householder_product", a)
    *batch, m, n = a.shape
    if taus.dtype != a.dtype or tuple(taus.shape[:-1]) != tuple(batch) or \
            taus.shape[-1] > min(m, n):
        raise ValueError(f"householder_product needs taus of shape batch + (k,) with k <= "
                         f"min(m, n) and a's dtype, got a: {a.str_short()}, taus: "
                         f"{taus.str_short()}")
    if m < n:
        raise ValueError(f"householder_product needs m >= n, got shape {a.shape}")
    return ShapedArray(a.shape, a.dtype)


def _householder_product_lowering(ctx, a, taus):
    from ..xla import lapack
    a_aval, taus_aval = ctx.avals_in
    nd = len(a_aval.shape)
    name = "orgqr" if dtypes.is_float(a_aval.dtype) else "ungqr"
    return _lapack_call(ctx, f"lapack_{lapack.prefix(a_aval.dtype)}{name}_ffi", [a, taus],
                        [hl.aval_type(a_aval)], [_col_major(nd), _row_major(nd - 1)],
                        [_col_major(nd)], alias_result="single")[0]


abstract_eval_rules[householder_product_p] = _householder_product_abstract_eval
lowering_rules[householder_product_p] = _householder_product_lowering
batching_rules[householder_product_p] = _batch_all_front(householder_product_p)
jvp_rules[householder_product_p] = _no_jvp("householder_product")


def _triu(x, k=0):
    """x with the entries below diagonal k zeroed (k=0: the upper triangle)."""
    from . import elementwise, shapes
    shape = bu.shape(x)
    n, m = shape[-2:]
    rows = shapes.broadcasted_iota(np.int32, (n, m), 0)
    cols = shapes.broadcasted_iota(np.int32, (n, m), 1)
    below = elementwise.ge(elementwise.add(rows, np.int32(k - 1)), cols)
    if len(shape) > 2:
        below = shapes.broadcast_in_dim(below, shape, (len(shape) - 2, len(shape) - 1))
    zero = shapes.broadcast_in_dim(np.zeros((), get_aval(x).dtype), shape, ())
    return elementwise.select(below, zero, x)


def qr(x, *, full_matrices: bool = True):
    """(q, r) with x = q @ r, q orthonormal columns, r upper triangular (JAX's algorithm:
    geqrf then orgqr). full_matrices=False gives the reduced factorization."""
    from . import shapes, slicing
    *batch, m, n = bu.shape(x)
    r, taus = geqrf_p.bind(x)
    nd = len(batch) + 2
    if m < n:
        q = householder_product_p.bind(slicing.slice(r, (0,) * nd, (*batch, m, m)), taus)
    elif full_matrices:
        pad = [(0, 0, 0)] * (nd - 1) + [(0, m - n, 0)]
        q = shapes.pad(r, np.zeros((), get_aval(r).dtype), pad)
        q = householder_product_p.bind(q, taus)
    else:
        q = householder_product_p.bind(r, taus)
        r = slicing.slice(r, (0,) * nd, (*batch, n, n))
    return q, _triu(r)
