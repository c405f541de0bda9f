"""Elementwise primitives: unary math, binary arithmetic, bitwise ops, comparisons,
select_n and clamp. Each primitive is followed by its rules.

Binary primitives need equal dtypes (jnp promotes first) and broadcast rank-0
operands and size-1 dimensions, as JAX's lax does.
"""
from __future__ import annotations

import builtins
import enum

import numpy as np

from ..core import dtypes
from ..core.avals import ShapedArray
from ..core.primitive import Primitive, abstract_eval_rules, batching_rules, lowering_rules
from . import _batch_util as bu
from . import _lowering as hl
from ._rules import (ANY, COMPLEX, FLOAT, INEXACT, INT, INTEGRAL, NUMERIC, SIGNED, binop,
                     check_dtype, check_same_dtypes, unop)


def _real_dtype(d):
    return np.dtype(np.float32) if d == dtypes.complex64 else \
        np.dtype(np.float64) if d == dtypes.complex128 else d


def _to_bool(d):
    return dtypes.bool_


# ------------------------------------------------------------------ unary math
neg_p = unop("neg", "stablehlo.negate", NUMERIC)
floor_p = unop("floor", "stablehlo.floor", FLOAT)
ceil_p = unop("ceil", "stablehlo.ceil", FLOAT)
is_finite_p = unop("is_finite", None, FLOAT, _to_bool)
lowering_rules[is_finite_p] = lambda ctx, x: ctx.op1("stablehlo.is_finite", [x])
exp_p = unop("exp", "stablehlo.exponential", INEXACT)
exp2_p = unop("exp2", None, INEXACT)
log_p = unop("log", "stablehlo.log", INEXACT)
log1p_p = unop("log1p", "stablehlo.log_plus_one", INEXACT)
expm1_p = unop("expm1", "stablehlo.exponential_minus_one", INEXACT)
tanh_p = unop("tanh", "stablehlo.tanh", INEXACT)
logistic_p = unop("logistic", "stablehlo.logistic", INEXACT)
sin_p = unop("sin", "stablehlo.sine", INEXACT)
cos_p = unop("cos", "stablehlo.cosine", INEXACT)
tan_p = unop("tan", "stablehlo.tan", INEXACT)
asin_p = unop("asin", "chlo.asin", INEXACT)
acos_p = unop("acos", "chlo.acos", INEXACT)
atan_p = unop("atan", "chlo.atan", INEXACT)
sinh_p = unop("sinh", "chlo.sinh", INEXACT)
cosh_p = unop("cosh", "chlo.cosh", INEXACT)
asinh_p = unop("asinh", "chlo.asinh", INEXACT)
acosh_p = unop("acosh", "chlo.acosh", INEXACT)
atanh_p = unop("atanh", "chlo.atanh", INEXACT)
sqrt_p = unop("sqrt", "stablehlo.sqrt", INEXACT)
rsqrt_p = unop("rsqrt", "stablehlo.rsqrt", INEXACT)
cbrt_p = unop("cbrt", "stablehlo.cbrt", FLOAT)
erf_p = unop("erf", "chlo.erf", FLOAT)
erfc_p = unop("erfc", "chlo.erfc", FLOAT)
erf_inv_p = unop("erf_inv", "chlo.erf_inv", FLOAT)
lgamma_p = unop("lgamma", "chlo.lgamma", FLOAT)
digamma_p = unop("digamma", "chlo.digamma", FLOAT)
not_p = unop("not", "stablehlo.not", INTEGRAL)
population_count_p = unop("population_count", "stablehlo.popcnt", INT)
clz_p = unop("clz", "stablehlo.count_leading_zeros", INT)
real_p = unop("real", "stablehlo.real", COMPLEX, _real_dtype)
imag_p = unop("imag", "stablehlo.imag", COMPLEX, _real_dtype)
copy_p = unop("copy", None, ANY)
lowering_rules[copy_p] = lambda ctx, x: x


def _exp2_lowering(ctx, x):
    ln2 = hl.splat(ctx, np.log(2), ctx.avals_in[0].dtype, ctx.avals_in[0].shape)
    return ctx.op1("stablehlo.exponential", [ctx.op1("stablehlo.multiply", [ln2, x])])


lowering_rules[exp2_p] = _exp2_lowering

abs_p = unop("abs", None, SIGNED | dtypes.UNSIGNED_DTYPES | INEXACT, _real_dtype)


def _abs_lowering(ctx, x):
    if dtypes.is_unsigned(ctx.avals_in[0].dtype):
        return x
    return ctx.op1("stablehlo.abs", [x])


lowering_rules[abs_p] = _abs_lowering

sign_p = unop("sign", None, NUMERIC)


def _sign_lowering(ctx, x):
    aval = ctx.avals_in[0]
    if dtypes.is_unsigned(aval.dtype):          # stablehlo.sign has no unsigned form
        zero = hl.splat(ctx, 0, aval.dtype, aval.shape)
        one = hl.splat(ctx, 1, aval.dtype, aval.shape)
        return hl.select(ctx, hl.compare(ctx, x, zero, "EQ", aval), zero, one, aval)
    return ctx.op1("stablehlo.sign", [x])


lowering_rules[sign_p] = _sign_lowering


class RoundingMethod(enum.IntEnum):
    """How lax.round breaks ties."""
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1

    def __str__(self):
        return str(int(self))


round_p = unop("round", None, FLOAT)
lowering_rules[round_p] = lambda ctx, x, *, rounding_method: ctx.op1(
    "stablehlo.round_nearest_even" if rounding_method == RoundingMethod.TO_NEAREST_EVEN
    else "stablehlo.round_nearest_afz", [x])

integer_pow_p = unop("integer_pow", None, NUMERIC)


def _integer_pow_lowering(ctx, x, *, y):
    """x**y by repeated squaring (y a static int), as JAX lowers it."""
    aval = ctx.avals_in[0]
    if y == 0:
        return hl.splat(ctx, 1, aval.dtype, aval.shape)
    base, result, n = x, None, builtins.abs(y)
    while n:
        if n & 1:
            result = base if result is None else ctx.op1("stablehlo.multiply", [result, base])
        n >>= 1
        if n:
            base = ctx.op1("stablehlo.multiply", [base, base])
    if y < 0:
        one = hl.splat(ctx, 1, aval.dtype, aval.shape)
        result = ctx.op1("stablehlo.divide", [one, result])
    return result


lowering_rules[integer_pow_p] = _integer_pow_lowering

conj_p = Primitive("conj")


def _conj_abstract_eval(x, *, input_dtype):
    check_dtype("conj", x, INEXACT)
    dtype = x.dtype if dtypes.is_complex(x.dtype) else \
        dtypes.complex128 if x.dtype == dtypes.float64 else dtypes.complex64
    return ShapedArray(x.shape, dtype, x.weak_type)


def _conj_lowering(ctx, x, *, input_dtype):
    aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
    real_type = hl.aval_type(ShapedArray(aval_in.shape, _real_dtype(aval_out.dtype)))
    if dtypes.is_complex(aval_in.dtype):
        re = ctx.op1("stablehlo.real", [x], result_type=real_type)
        im = ctx.op1("stablehlo.imag", [x], result_type=real_type)
        im = ctx.block.op1("stablehlo.negate", [im], real_type)
    else:
        re = hl.convert(ctx, x, aval_in, _real_dtype(aval_out.dtype))
        im = hl.splat(ctx, 0, _real_dtype(aval_out.dtype), aval_in.shape)
    return ctx.op1("stablehlo.complex", [re, im])


abstract_eval_rules[conj_p] = _conj_abstract_eval
lowering_rules[conj_p] = _conj_lowering
bu.defvectorized(conj_p)

# ------------------------------------------------------------------ binary arithmetic
add_p = binop("add", "stablehlo.add", NUMERIC)
sub_p = binop("sub", "stablehlo.subtract", NUMERIC)
mul_p = binop("mul", "stablehlo.multiply", NUMERIC)
div_p = binop("div", "stablehlo.divide", NUMERIC)
rem_p = binop("rem", "stablehlo.remainder", NUMERIC)
pow_p = binop("pow", "stablehlo.power", INEXACT)
atan2_p = binop("atan2", "stablehlo.atan2", FLOAT)
max_p = binop("max", "stablehlo.maximum", ANY)
min_p = binop("min", "stablehlo.minimum", ANY)
nextafter_p = binop("nextafter", "chlo.next_after", FLOAT)
and_p = binop("and", "stablehlo.and", INTEGRAL)
or_p = binop("or", "stablehlo.or", INTEGRAL)
xor_p = binop("xor", "stablehlo.xor", INTEGRAL)
shift_left_p = binop("shift_left", "stablehlo.shift_left", INT)
shift_right_logical_p = binop("shift_right_logical", "stablehlo.shift_right_logical", INT)
shift_right_arithmetic_p = binop("shift_right_arithmetic", "stablehlo.shift_right_arithmetic", INT)

complex_p = binop("complex", "stablehlo.complex", frozenset([dtypes.float32, dtypes.float64]),
                  lambda d: dtypes.complex64 if d == dtypes.float32 else dtypes.complex128)

# ------------------------------------------------------------------ comparisons


def _comparison(name, direction, accepted):
    prim = binop(name, None, accepted, _to_bool)

    def lower(ctx, x, y):
        x, y = hl.broadcast_operands(ctx, [x, y])
        operand = ShapedArray(ctx.avals_out[0].shape, ctx.avals_in[0].dtype)
        return hl.compare(ctx, x, y, direction, operand)

    lowering_rules[prim] = lower
    return prim


eq_p = _comparison("eq", "EQ", ANY)
ne_p = _comparison("ne", "NE", ANY)
_ORDERED = ANY - COMPLEX
lt_p = _comparison("lt", "LT", _ORDERED)
le_p = _comparison("le", "LE", _ORDERED)
gt_p = _comparison("gt", "GT", _ORDERED)
ge_p = _comparison("ge", "GE", _ORDERED)

# ------------------------------------------------------------------ select_n, clamp
select_n_p = Primitive("select_n")


def _select_n_abstract_eval(which, *cases):
    if not cases:
        raise TypeError("select_n must have at least one case")
    if which.dtype != dtypes.bool_ and which.dtype not in INT:
        raise TypeError(f"select_n `which` must be boolean or integer type, got {which.dtype.name}")
    if which.dtype == dtypes.bool_ and len(cases) > 2:
        raise TypeError("select_n with a boolean `which` cannot have more than two cases")
    first = cases[0]
    for c in cases[1:]:
        if c.shape != first.shape or c.dtype != first.dtype:
            raise TypeError(f"select_n cases must have the same shapes and dtypes, got "
                            f"{', '.join(c.str_short() for c in cases)}")
    if which.shape and which.shape != first.shape:
        raise TypeError(f"select_n `which` must be scalar or have the same shape as cases, got "
                        f"`which` shape {which.shape} but case shape {first.shape}")
    return ShapedArray(first.shape, first.dtype, all(c.weak_type for c in cases))


def _select_n_lowering(ctx, which, *cases):
    which_aval, out = ctx.avals_in[0], ctx.avals_out[0]
    if which_aval.shape != out.shape:
        which = hl.broadcast_in_dim(ctx, which, out.shape, which_aval.dtype, [])
    which_aval = ShapedArray(out.shape, which_aval.dtype)
    return _select_tree(ctx, which, which_aval, list(cases), 0)


def _select_tree(ctx, which, which_aval, cases, offset):
    """Binary search over the cases: `which < mid ? low half : high half`."""
    if len(cases) == 1:
        return cases[0]
    out = ctx.avals_out[0]
    if which_aval.dtype == dtypes.bool_:
        return hl.select(ctx, which, cases[1], cases[0], out)
    mid = len(cases) // 2
    pivot = hl.splat(ctx, offset + mid, which_aval.dtype, which_aval.shape)
    pred = hl.compare(ctx, which, pivot, "LT", which_aval)
    low = _select_tree(ctx, which, which_aval, cases[:mid], offset)
    high = _select_tree(ctx, which, which_aval, cases[mid:], offset + mid)
    return hl.select(ctx, pred, low, high, out)


def _select_n_batching(vals, dims):
    which, cases = vals[0], vals[1:]
    wdim, cdims = dims[0], dims[1:]
    size = bu.axis_size_of(vals, dims)
    if wdim is bu.not_mapped and not bu.shape(which) and len(set(cdims) - {None}) <= 1 \
            and all(d is not bu.not_mapped for d in cdims):
        return select_n_p.bind(which, *cases), cdims[0]
    cases = [bu.bdim_at_front(c, d, size) for c, d in zip(cases, cdims)]
    case_shape = bu.shape(cases[0])
    if wdim is bu.not_mapped and not bu.shape(which):
        return select_n_p.bind(which, *cases), 0
    which = bu.bdim_at_front(which, wdim, size)
    if bu.shape(which) != case_shape:        # a per-example scalar: spread it over the case
        which = _shapes().broadcast_in_dim(which, case_shape, (0,))
    return select_n_p.bind(which, *cases), 0


def _shapes():
    from . import shapes
    return shapes


abstract_eval_rules[select_n_p] = _select_n_abstract_eval
lowering_rules[select_n_p] = _select_n_lowering
batching_rules[select_n_p] = _select_n_batching

clamp_p = Primitive("clamp")


def _clamp_abstract_eval(lo, x, hi):
    check_same_dtypes("clamp", lo, x, hi)
    check_dtype("clamp", x, ANY - COMPLEX)
    for name, bound in (("min", lo), ("max", hi)):
        if bound.shape and bound.shape != x.shape:
            raise TypeError(f"clamp requires {name} to be a scalar or have the same shape as the "
                            f"operand, got {name} shape {bound.shape} and operand shape {x.shape}")
    return ShapedArray(x.shape, x.dtype, x.weak_type)


def _clamp_lowering(ctx, lo, x, hi):
    lo, hi = (hl.broadcast_operands(ctx, [v], [a])[0] for v, a in
              ((lo, ctx.avals_in[0]), (hi, ctx.avals_in[2])))
    return ctx.op1("stablehlo.clamp", [lo, x, hi])


def _clamp_batching(vals, dims):
    lo, x, hi = vals
    if dims[0] is bu.not_mapped and dims[2] is bu.not_mapped and not bu.shape(lo) \
            and not bu.shape(hi):
        return clamp_p.bind(lo, x, hi), dims[1]
    size = bu.axis_size_of(vals, dims)
    x = bu.bdim_at_front(x, dims[1], size)
    full = bu.shape(x)
    bounds = []
    for b, d in ((lo, dims[0]), (hi, dims[2])):
        if d is bu.not_mapped and not bu.shape(b):
            bounds.append(b)
            continue
        b = bu.bdim_at_front(b, d, size)
        if bu.shape(b) != full:              # a per-example scalar bound
            b = _shapes().broadcast_in_dim(b, full, (0,))
        bounds.append(b)
    return clamp_p.bind(bounds[0], x, bounds[1]), 0


abstract_eval_rules[clamp_p] = _clamp_abstract_eval
lowering_rules[clamp_p] = _clamp_lowering
batching_rules[clamp_p] = _clamp_batching



# ------------------------------------------------------------------ lax functions
# (These shadow Python's abs/max/min/round/pow/complex inside this module: use builtins.*.)
def neg(x): return neg_p.bind(x)
def sign(x): return sign_p.bind(x)
def floor(x): return floor_p.bind(x)
def ceil(x): return ceil_p.bind(x)
def is_finite(x): return is_finite_p.bind(x)
def exp(x): return exp_p.bind(x)
def exp2(x): return exp2_p.bind(x)
def log(x): return log_p.bind(x)
def log1p(x): return log1p_p.bind(x)
def expm1(x): return expm1_p.bind(x)
def tanh(x): return tanh_p.bind(x)
def logistic(x): return logistic_p.bind(x)
def sin(x): return sin_p.bind(x)
def cos(x): return cos_p.bind(x)
def tan(x): return tan_p.bind(x)
def asin(x): return asin_p.bind(x)
def acos(x): return acos_p.bind(x)
def atan(x): return atan_p.bind(x)
def sinh(x): return sinh_p.bind(x)
def cosh(x): return cosh_p.bind(x)
def asinh(x): return asinh_p.bind(x)
def acosh(x): return acosh_p.bind(x)
def atanh(x): return atanh_p.bind(x)
def sqrt(x): return sqrt_p.bind(x)
def rsqrt(x): return rsqrt_p.bind(x)
def cbrt(x): return cbrt_p.bind(x)
def abs(x): return abs_p.bind(x)
def erf(x): return erf_p.bind(x)
def erfc(x): return erfc_p.bind(x)
def erf_inv(x): return erf_inv_p.bind(x)
def lgamma(x): return lgamma_p.bind(x)
def digamma(x): return digamma_p.bind(x)
def bitwise_not(x): return not_p.bind(x)
def population_count(x): return population_count_p.bind(x)
def clz(x): return clz_p.bind(x)
def real(x): return real_p.bind(x)
def imag(x): return imag_p.bind(x)
def conj(x): return conj_p.bind(x, input_dtype=_dtype_of(x))



def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):
    """Round to the nearest integer; ties away from zero unless TO_NEAREST_EVEN."""
    return round_p.bind(x, rounding_method=RoundingMethod(rounding_method))


def integer_pow(x, y: int):
    """x ** y for a static Python int y (repeated multiplication)."""
    return integer_pow_p.bind(x, y=int(y))


def add(x, y): return add_p.bind(x, y)
def sub(x, y): return sub_p.bind(x, y)
def mul(x, y): return mul_p.bind(x, y)
def div(x, y): return div_p.bind(x, y)
def rem(x, y): return rem_p.bind(x, y)
def pow(x, y): return pow_p.bind(x, y)
def atan2(x, y): return atan2_p.bind(x, y)
def max(x, y): return max_p.bind(x, y)
def min(x, y): return min_p.bind(x, y)
def nextafter(x1, x2): return nextafter_p.bind(x1, x2)
def bitwise_and(x, y): return and_p.bind(x, y)
def bitwise_or(x, y): return or_p.bind(x, y)
def bitwise_xor(x, y): return xor_p.bind(x, y)
def shift_left(x, y): return shift_left_p.bind(x, y)
def shift_right_logical(x, y): return shift_right_logical_p.bind(x, y)
def shift_right_arithmetic(x, y): return shift_right_arithmetic_p.bind(x, y)
def complex(x, y): return complex_p.bind(x, y)
def eq(x, y): return eq_p.bind(x, y)
def ne(x, y): return ne_p.bind(x, y)
def lt(x, y): return lt_p.bind(x, y)
def le(x, y): return le_p.bind(x, y)
def gt(x, y): return gt_p.bind(x, y)
def ge(x, y): return ge_p.bind(x, y)


def select_n(which, *cases):
    """cases[which] elementwise; `which` is bool (two cases) or an integer."""
    return select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
    """on_true where pred else on_false (select_n with the cases swapped)."""
    return select_n_p.bind(pred, on_false, on_true)


def clamp(min, x, max):
    """x clipped to [min, max]; the bounds are scalars or have x's shape."""
    return clamp_p.bind(min, x, max)


def square(x): return integer_pow_p.bind(x, y=2)
def reciprocal(x): return integer_pow_p.bind(x, y=-1)


def _dtype_of(x):
    return dtypes.dtype(x)
