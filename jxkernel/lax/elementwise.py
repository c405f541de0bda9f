"""Elementwise primitives: unary math, binary arithmetic, bitwise ops, comparisons,
select_n and clamp. Each primitive is followed by its rules.

Binary primitives need equal dtypes (jnp promotes first) and broadcast rank-0
operands and size-1 dimensions, as JAX's lax does.
"""
from __future__ import annotations

import builtins
import enum
import math
import operator

import numpy as np

from ..core import dtypes, sharding_types
from ..core.avals import ShapedArray
from ..core.ir import none_hidden_params, param_printers
from ..core.trace import EvalTrace as _EvalTrace, _ctx as _trace_ctx
from ..core.interpreter_primitives import typed_constant
from ..core.interpreter_primitives import reshard as _reshard
from ..core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules,
                              batching_rules, impl_rules, jvp_rules, lowering_rules, numpy_rules,
                              sharding_rules, transpose_rules)
from ..transforms import ad_util as ad
from ..transforms import batch_util as bu
from ..xla.lowering import results_left_unconstrained
from . import _xla_formulas
from . import _lowering as hl
from ._rules import (ANY, ANY_OR_KEYS, COMPLEX, FLOAT, INEXACT, INT, INTEGRAL,  # noqa: F401
                     NUMERIC, SIGNED, AccuracyMode, Tolerance, accuracy_attrs, binop,
                     broadcast_shapes, check_dtype, check_same_dtypes, unop, widen_narrow_int)
from .conversion import convert_element_type
from .shapes import broadcast_in_dim


def _real_dtype(d):
    return np.dtype(np.float32) if d == dtypes.complex64 else \
        np.dtype(np.float64) if d == dtypes.complex128 else d


def _to_bool(d):
    return dtypes.bool_


def _const(x, value):
    """`value` as a scalar of x's dtype, as JAX's `_const`: a Python scalar (weakly typed)
    when `x` is a weakly typed scalar, else a NumPy scalar (strong). Rules' constants so keep
    a weak operand's result weak, and the weak type of a gradient comes out of its rules.

    >>> _const(1.0, 2), _const(np.float32(1.0), 2)
    (2.0, array(2., dtype=float32))
    """
    dtype = dtypes.dtype(x)
    if _is_weak_scalar(x):
        val = _scalar_type_of(dtype)(value)
        return val if dtypes.dtype(val) == dtype else typed_constant(val, dtype)
    return typed_constant(value, dtype)


def _scalar_type_of(dtype):
    return (bool if dtype == np.bool_ else int if dtypes.issubdtype(dtype, np.integer) else
            builtins.complex if dtypes.issubdtype(dtype, np.complexfloating) else float)


def _is_weak_scalar(x):
    aval = getattr(x, "aval", None)
    if aval is None:
        return type(x) in (bool, int, float, builtins.complex)   # (lax.complex shadows it)
    return aval.weak_type and not aval.shape


def _zeros_like(x):
    return ad.zeros(ad.aval_of(x))


def _full_like(x, value):
    """`value` spread to x's shape and dtype (select_n needs equal-shaped cases), typed as a
    traced `x` is, as JAX's full_like: select_n's cases share one sharding."""
    sharding = sharding_types.traced_sharding(x)
    if sharding is None:
        return ad.broadcast_to(_const(x, value), ad.aval_of(x))
    return broadcast_in_dim(_const(x, value), ad.aval_of(x).shape, (), out_sharding=sharding)


def _one_minus(x):
    return sub(_const(x, 1), x)


def _scalar_on_mesh(x, value):
    """JAX's lax._zero/_one: `value` as a rank-0 value of x's dtype (_const's), placed on a
    traced `x`'s mesh where x is typed (`reshard 1.0:f32[]` in a jaxpr, as JAX's
    full_like(x, shape=(), sharding=P() over it))."""
    scalar = _const(x, value)
    sharding = sharding_types.traced_sharding(x)
    if sharding is None:
        return scalar
    return _reshard(scalar, sharding_types.make(sharding.mesh, []))


# Without SciPy, the functions Python's math module has, element by element (correctly
# rounded from float64's libm; slower, but teaching sizes are small): erf for gelu and
# truncated_normal, erfc, lgamma.
_MATH_FALLBACKS = {"erf": "erf", "erfc": "erfc", "gammaln": "lgamma"}


def _np_special(name):
    """scipy.special's `name` as a NumPy rule, imported on first use (SciPy is optional:
    where it is absent, as in a bare Pyodide, math's function serves if it has one, else the
    primitive says so)."""
    def fn(*args):
        try:
            import scipy.special  # deferred: optional and heavy, only this rule needs it
        except ImportError:
            if name not in _MATH_FALLBACKS:
                raise NotImplementedError(f"the NumPy rule of {name} needs SciPy") from None
            import math           # (with the fallback: only a SciPy-less process needs it)
            each = np.frompyfunc(getattr(math, _MATH_FALLBACKS[name]), 1, 1)
            return np.asarray(each(np.asarray(args[0], np.float64)), np.float64)
        return getattr(scipy.special, name)(*args)
    return fn


# ------------------------------------------------------------------ unary math
# the dtypes XLA computes exp, log, erf, tanh for with its float32 formulas (lax/_xla_formulas.py)
_XLA_FLOAT32_MATH = {np.dtype(np.float32), np.dtype(np.float16), *dtypes.BFLOAT16_DTYPES}


def _xla_float32_or(float32_fn, other_fn):
    """A NumPy rule computing float32 (and float16, bfloat16) with XLA's formula, float64 and
    complex values with NumPy's `other_fn`."""
    return lambda x: float32_fn(x) if x.dtype in _XLA_FLOAT32_MATH else other_fn(x)


def _real_or(real, complex_fn):
    """A NumPy rule computing real floats with `real` (XLA's formula), complex ones with
    NumPy's `complex_fn`."""
    return lambda x: complex_fn(x) if x.dtype.kind == "c" else real(x)


neg_p = unop("neg", "stablehlo.negate", NUMERIC, numpy=np.negative)
ad.deflinear(neg_p, lambda ct: [neg(ct)])

floor_p = unop("floor", "stablehlo.floor", FLOAT, numpy=np.floor)
ad.defjvp_zero(floor_p)

ceil_p = unop("ceil", "stablehlo.ceil", FLOAT, numpy=np.ceil)
ad.defjvp_zero(ceil_p)

is_finite_p = unop("is_finite", None, FLOAT, _to_bool, numpy=np.isfinite)
lowering_rules[is_finite_p] = lambda ctx, x: ctx.op1("stablehlo.is_finite", [x])
ad.defjvp_zero(is_finite_p)

# XLA's exp (logistic's rule computes with it too)
_xla_exp = _xla_float32_or(_xla_formulas.exp32, _real_or(_xla_formulas.exp64, np.exp))
exp_p = unop("exp", "stablehlo.exponential", INEXACT, numpy=_xla_exp)
ad.defjvp(exp_p, lambda g, ans, x, **_: mul(g, ans))

exp2_p = unop("exp2", None, INEXACT, numpy=np.exp2)


def _exp2_lowering(ctx, x, accuracy=None):
    ln2 = hl.splat(ctx, np.log(2), ctx.avals_in[0].dtype, ctx.avals_in[0].shape)
    return ctx.op1("stablehlo.exponential", [ctx.op1("stablehlo.multiply", [ln2, x])],
                   accuracy_attrs(accuracy))


lowering_rules[exp2_p] = _exp2_lowering
ad.defjvp(exp2_p, lambda g, ans, x, **_: mul(g, mul(_const(x, np.log(2)), ans)))

log_p = unop("log", "stablehlo.log", INEXACT,
             numpy=_xla_float32_or(_xla_formulas.log32, np.log))
ad.defjvp(log_p, lambda g, ans, x, **_: div(g, x))

def _complex_log1p(z):
    """log1p of complex z without NumPy's log(1 + z), whose real part loses the digits of a
    small z (complex64 1e-5: 1.00135e-05 for 9.99995e-06): log|1 + z| is
    log1p(x (2 + x) + y^2) / 2 near |1 + z| = 1, else log(hypot(1 + x, y)); its angle
    atan2(y, 1 + x); in float64 (NumPy's own past 1e150, where the squares would overflow
    and 1 + z loses nothing)."""
    x, y = z.real.astype(np.float64), z.imag.astype(np.float64)
    near = np.abs(x) + np.abs(y) < 1e150
    xs, ys = np.where(near, x, 0.0), np.where(near, y, 0.0)
    w = xs * (2.0 + xs) + ys * ys                 # |1 + z|^2 - 1
    # (where |1 + z| is far from 1, w has lost what log(hypot) keeps: -0.96 + 7e-9j)
    log_abs = np.where(np.abs(w) < 0.5, 0.5 * np.log1p(w), np.log(np.hypot(1.0 + xs, ys)))
    small = log_abs + 1j * np.arctan2(ys, 1.0 + xs)
    return np.where(near, small, np.log1p(z.astype(np.complex128))).astype(z.dtype)


log1p_p = unop("log1p", "stablehlo.log_plus_one", INEXACT,
               numpy=_real_or(_xla_formulas.log1p, _complex_log1p))
ad.defjvp(log1p_p, lambda g, ans, x, **_: div(g, add(x, _scalar_on_mesh(x, 1))))

expm1_p = unop("expm1", "stablehlo.exponential_minus_one", INEXACT,
               numpy=_real_or(_xla_formulas.expm1, np.expm1))
ad.defjvp(expm1_p, lambda g, ans, x, **_: mul(g, add(ans, _scalar_on_mesh(ans, 1))))

# XLA's float32 tanh (NumPy's is up to 4 ulps from it: 80 ulps of a small gelu)
tanh_p = unop("tanh", "stablehlo.tanh", INEXACT,
              numpy=_xla_float32_or(_xla_formulas.tanh32, np.tanh))
ad.defjvp(tanh_p, lambda g, ans, x, **_: mul(add(g, mul(g, ans)),
                                                sub(_scalar_on_mesh(x, 1), ans)))

def _np_logistic(x):
    # XLA's expansion (its logistic expander: 1 / (1 + exp(-x))) on the exp rule's own exp,
    # XLA's formula: NumPy's float32 exp put 1 in 6 float32 results 1 to 4 ulps off XLA's
    # (logistic(-2.0) 2). XLA's CPU computes a bfloat16 one in float32, rounded once (float16
    # rounds each operation), as measured on 40008 values of each
    if x.dtype == dtypes.bfloat16:
        wide = _np_logistic(x.astype(np.float32))
        # (its float32 result's subnormals written as zero, as XLA's CPU writes them)
        return np.where(wide < dtypes.finfo(np.float32).tiny, np.float32(0), wide).astype(x.dtype)
    one = np.ones((), x.dtype)
    return one / (one + _xla_exp(np.negative(x)))


logistic_p = unop("logistic", "stablehlo.logistic", INEXACT, numpy=_np_logistic)
ad.defjvp(logistic_p, lambda g, ans, x, **_: mul(g, mul(ans, sub(_scalar_on_mesh(ans, 1), ans))))

sin_p = unop("sin", "stablehlo.sine", INEXACT,
             numpy=_xla_float32_or(_xla_formulas.sin32, np.sin))
ad.defjvp(sin_p, lambda g, ans, x, **_: mul(g, cos(x)))   # (accuracy: the primal's only, as JAX)

cos_p = unop("cos", "stablehlo.cosine", INEXACT,
             numpy=_xla_float32_or(_xla_formulas.cos32, np.cos))
ad.defjvp(cos_p, lambda g, ans, x, **_: neg(mul(g, sin(x))))

tan_p = unop("tan", "stablehlo.tan", INEXACT, numpy=np.tan)
ad.defjvp(tan_p, lambda g, ans, x, **_: mul(g, add(_const(x, 1), square(ans))))

asin_p = unop("asin", "chlo.asin", INEXACT, numpy=np.arcsin)
ad.defjvp(asin_p, lambda g, ans, x: mul(g, rsqrt(_one_minus(square(x)))))

acos_p = unop("acos", "chlo.acos", INEXACT, numpy=np.arccos)
ad.defjvp(acos_p, lambda g, ans, x: mul(g, neg(rsqrt(_one_minus(square(x))))))

atan_p = unop("atan", "chlo.atan", INEXACT, numpy=np.arctan)
ad.defjvp(atan_p, lambda g, ans, x: div(g, add(_const(x, 1), square(x))))

sinh_p = unop("sinh", "chlo.sinh", INEXACT,
              numpy=_real_or(_xla_formulas.sinh, np.sinh))
ad.defjvp(sinh_p, lambda g, ans, x: mul(g, cosh(x)))

cosh_p = unop("cosh", "chlo.cosh", INEXACT,
              numpy=_real_or(_xla_formulas.cosh, np.cosh))
ad.defjvp(cosh_p, lambda g, ans, x: mul(g, sinh(x)))

asinh_p = unop("asinh", "chlo.asinh", INEXACT, numpy=np.arcsinh)
ad.defjvp(asinh_p, lambda g, ans, x: mul(g, rsqrt(add(square(x), _scalar_on_mesh(x, 1)))))

acosh_p = unop("acosh", "chlo.acosh", INEXACT, numpy=np.arccosh)
# JAX's formula: x**2 - 1 (on x's mesh), not (x - 1) * (x + 1), which is more accurate near
# x = 0 only, outside the real domain; the last bits differ for complex x
ad.defjvp(acosh_p, lambda g, ans, x: mul(g, rsqrt(sub(square(x), _scalar_on_mesh(x, 1)))))

atanh_p = unop("atanh", "chlo.atanh", INEXACT, numpy=np.arctanh)
ad.defjvp(atanh_p, lambda g, ans, x: mul(reciprocal(add(_scalar_on_mesh(x, 1), x)),
                                         div(g, sub(_scalar_on_mesh(x, 1), x))))

sqrt_p = unop("sqrt", "stablehlo.sqrt", INEXACT, numpy=np.sqrt)
ad.defjvp(sqrt_p, lambda g, ans, x, **_: mul(g, div(_const(x, 0.5), ans)))

def _np_rsqrt(x):
    """1 / sqrt(x); of a complex x whose root is infinite, XLA's signed zero (the reciprocal
    conj(s) / |s|**2 tends to), where NumPy's 1 / (inf+infj) is nan."""
    root = np.sqrt(x)
    if not np.iscomplexobj(root):
        return 1 / root
    with np.errstate(invalid="ignore"):
        out = 1 / root
    huge = np.isinf(root.real) | np.isinf(root.imag)
    if np.any(huge):
        out = np.where(huge, np.copysign(0, root.real) + 1j * np.copysign(0, -root.imag), out)
    return out.astype(root.dtype)


rsqrt_p = unop("rsqrt", "stablehlo.rsqrt", INEXACT, numpy=_np_rsqrt)
ad.defjvp(rsqrt_p, lambda g, ans, x, **_: mul(g, mul(_const(x, -0.5), div(ans, x))))

cbrt_p = unop("cbrt", "stablehlo.cbrt", FLOAT,
              numpy=_xla_float32_or(_xla_formulas.cbrt32, np.cbrt))
ad.defjvp(cbrt_p, lambda g, ans, x, **_: mul(g, mul(_const(x, 1 / 3), integer_pow(ans, -2))))

# XLA's float32 erf and its float64 one (the C library's)
erf_p = unop("erf", "chlo.erf", FLOAT,
             numpy=_xla_float32_or(_xla_formulas.erf32, _xla_formulas.erf64))
ad.defjvp(erf_p, lambda g, ans, x: mul(_const(x, 2 / np.sqrt(np.pi)), mul(g, exp(neg(square(x))))))


def _erfc_numpy(x):
    if x.dtype == np.float64:        # CHLO's float64 formulas; narrower floats SciPy's
        return _xla_formulas.erfc64(x)
    return _np_special("erfc")(x)


erfc_p = unop("erfc", "chlo.erfc", FLOAT, numpy=_erfc_numpy)
ad.defjvp(erfc_p, lambda g, ans, x: mul(_const(x, -2 / np.sqrt(np.pi)),
                                       mul(g, exp(neg(square(x))))))

def _erf_inv_numpy(x):
    if x.dtype == np.float64:        # XLA's float64 polynomial is not reproduced: SciPy's
        return _np_special("erfinv")(x)
    return _xla_formulas.erf_inv32(x)


erf_inv_p = unop("erf_inv", "chlo.erf_inv", FLOAT, numpy=_erf_inv_numpy)
ad.defjvp(erf_inv_p, lambda g, ans, x: mul(_const(x, np.sqrt(np.pi) / 2),
                                          mul(g, exp(square(ans)))))

# XLA's own Lanczos formulas (lax/_xla_formulas.py): SciPy's gammaln and psi are more exact,
# so programs built on them (igamma, betainc) landed up to 90 ulps away from JAX's results
lgamma_p = unop("lgamma", "chlo.lgamma", FLOAT, numpy=_xla_formulas.lgamma)
ad.defjvp(lgamma_p, lambda g, ans, x: mul(g, digamma(x)))

digamma_p = unop("digamma", "chlo.digamma", FLOAT, numpy=_xla_formulas.digamma)


def _trigamma(x):
    """psi'(x) for the jvp of digamma: shift x up by the recurrence psi'(x) = psi'(x+1) + 1/x^2,
    then the asymptotic series (accurate to float32/float64 rounding for x >= 6)."""
    acc = _zeros_like(x)
    for _ in range(6):
        small = lt(x, _const(x, 6))
        acc = select(small, add(acc, reciprocal(square(x))), acc)
        x = select(small, add(x, _const(x, 1)), x)
    inv = reciprocal(x)
    inv2 = square(inv)
    series = mul(inv2, sub(_const(x, 1 / 6), mul(inv2, sub(_const(x, 1 / 30), mul(
        inv2, sub(_const(x, 1 / 42), mul(inv2, _const(x, 1 / 30))))))))
    return add(acc, add(inv, add(mul(_const(x, 0.5), inv2), mul(inv, series))))


ad.defjvp(digamma_p, lambda g, ans, x: mul(g, _trigamma(x)))

not_p = unop("not", "stablehlo.not", INTEGRAL, numpy=np.invert)
ad.defjvp_zero(not_p)

# ml_dtypes' narrow ints at their own width, where XLA's CPU computes them so (the NumPy rules
# widen the rest to 8 bits, as XLA does int4's: _rules.numpy_elementwise)
def _narrow_bits(x):
    """x's bit pattern (the low bit_width bits, as int64) and that width."""
    bits = dtypes.bit_width(x.dtype)
    return x.astype(np.int64) & ((1 << bits) - 1), bits


def _np_narrow_right_shift(arithmetic: bool):
    """x >> y at x's width: arithmetic copies the top bit whether x is signed or not, as
    XLA's does (uint4 8 >> 1 is 12); a count of the width or more (read unsigned) gives the
    fill."""
    def shift(x, y):
        value, bits = _narrow_bits(x)
        if arithmetic:
            value = value - ((value >> (bits - 1)) << bits)
        count, _ = _narrow_bits(y)
        return np.where(count < bits, value >> np.minimum(count, bits - 1),
                        np.where(value < 0, -1, 0))
    return shift


def _np_narrow_clz(x):
    """Leading zeros at x's width: the width less the bit length (int4 0 has 4)."""
    value, bits = _narrow_bits(x)
    return bits - sum((value >> k != 0).astype(np.int64) for k in range(bits))


def _np_narrow_popcnt(x):
    """int2's and uint2's set bits; None for int4 and uint4, which XLA counts in 8 bits (its
    int8 widening sign-extends: int4 -8 has 5)."""
    value, bits = _narrow_bits(x)
    return np.bitwise_count(value) if bits < 4 else None


population_count_p = unop("population_count", "stablehlo.popcnt", INT, numpy=lambda x: (
    np.bitwise_count(x.view(np.dtype(f"u{x.dtype.itemsize}")))),   # of the bits, not of |x|
    numpy_narrow=_np_narrow_popcnt)

def _np_clz(x):
    """Leading zero bits of each integer, by halving the window (a zero gives the width)."""
    bits = x.dtype.itemsize * 8
    u = x.view(np.dtype(f"u{x.dtype.itemsize}"))
    count = np.zeros(x.shape, x.dtype)
    for s in (32, 16, 8, 4, 2, 1):
        if s < bits:
            top_zero = (u >> (bits - s)) == 0
            count += np.where(top_zero, s, 0).astype(x.dtype)
            u = np.where(top_zero, u << s, u)
    return count + ((u >> (bits - 1)) == 0).astype(x.dtype)


clz_p = unop("clz", "stablehlo.count_leading_zeros", INT, numpy=_np_clz,
             numpy_narrow=_np_narrow_clz)
# population_count and clz have no jvp rule, as in JAX: an integer operand's tangent is a
# symbolic zero, which skips the rule; a float operand under grad or jvp meets JAX's
# NotImplementedError ("Differentiation rule for 'clz' not implemented") before any dtype check

real_p = unop("real", "stablehlo.real", COMPLEX, _real_dtype, numpy=np.real)
# a broadcast strong scalar zero, as JAX's (np.zeros): the cotangent of a weak complex is strong
ad.deflinear(real_p, lambda ct: [complex(ct, typed_constant(0, dtypes.dtype(ct)))])

imag_p = unop("imag", "stablehlo.imag", COMPLEX, _real_dtype, numpy=np.imag)
ad.deflinear(imag_p, lambda ct: [complex(typed_constant(0, dtypes.dtype(ct)), neg(ct))])

copy_p = unop("copy", None, ANY_OR_KEYS, numpy=np.copy)
lowering_rules[copy_p] = lambda ctx, x: x
ad.deflinear(copy_p, lambda ct: [copy_p.bind(ct)])     # a copy back too, as JAX's

# signed and inexact only, as JAX's lax.abs (jnp.abs passes unsigned integers through)
abs_p = unop("abs", None, SIGNED | INEXACT, _real_dtype, numpy=np.abs, narrow_ints=False)


def _abs_lowering(ctx, x):
    if dtypes.is_unsigned(ctx.avals_in[0].dtype):
        return x
    return ctx.op1("stablehlo.abs", [x])


lowering_rules[abs_p] = _abs_lowering


def _abs_jvp(g, ans, x):
    if dtypes.is_complex(ad.aval_of(x).dtype):
        safe = select(eq(ans, _const(ans, 0)), _full_like(ans, 1), ans)
        return div(real(mul(conj(x), g)), safe)
    return select(ge(x, _scalar_on_mesh(x, 0)), g, neg(g))   # JAX's: |x|' = 1 at 0 (and -0)


ad.defjvp(abs_p, _abs_jvp)

def _np_sign(x):
    """stablehlo.sign: a real float's zero keeps its sign (sign(-0.0) is -0.0, np.sign's 0.0)."""
    out = np.sign(x)
    return np.where(x == 0, x, out) if _zero_signs(x.dtype) else out


sign_p = unop("sign", None, NUMERIC, numpy=_np_sign)


def _sign_lowering(ctx, x):
    aval = ctx.avals_in[0]
    if dtypes.is_unsigned(aval.dtype):          # stablehlo.sign has no unsigned form
        zero = hl.splat(ctx, 0, aval.dtype, aval.shape)
        one = hl.splat(ctx, 1, aval.dtype, aval.shape)
        return hl.select(ctx, hl.compare(ctx, x, zero, "EQ", aval), zero, one, aval)
    return ctx.op1("stablehlo.sign", [x])


lowering_rules[sign_p] = _sign_lowering
ad.defjvp_zero(sign_p)


class RoundingMethod(enum.IntEnum):
    """How lax.round breaks ties."""
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1

    def __str__(self):
        return str(int(self))


def _np_round(x, *, rounding_method):
    if rounding_method == RoundingMethod.TO_NEAREST_EVEN:
        return np.round(x)
    t = np.trunc(x)                                       # ties away from zero; x - t is exact
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t)


round_p = unop("round", None, FLOAT, numpy=_np_round)
lowering_rules[round_p] = lambda ctx, x, *, rounding_method: ctx.op1(
    "stablehlo.round_nearest_even" if rounding_method == RoundingMethod.TO_NEAREST_EVEN
    else "stablehlo.round_nearest_afz", [x])
ad.defjvp_zero(round_p)

def _np_integer_pow(x, *, y):
    """x**y by repeated squaring, as the lowering computes it (so the same roundings)."""
    if y == 0:
        return np.ones_like(x)
    base, result, n = x, None, builtins.abs(y)
    while n:
        if n & 1:
            result = base if result is None else result * base
        n >>= 1
        if n:
            base = base * base
    return np.ones_like(x) / result if y < 0 else result


integer_pow_p = unop("integer_pow", None, NUMERIC, numpy=_np_integer_pow)
_integer_pow_base_rule = abstract_eval_rules[integer_pow_p]


def _integer_pow_abstract_eval(x, *, y):
    if y < 0 and x.dtype in INT:
        raise TypeError(f"Integers cannot be raised to negative powers, got "
                        f"integer_pow({x.dtype.name}[{','.join(map(str, x.shape))}], {y})")
    return _integer_pow_base_rule(x, y=y)


abstract_eval_rules[integer_pow_p] = _integer_pow_abstract_eval


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


def _integer_pow_jvp(g, ans, x, *, y):
    if y == 0:
        return _zeros_like(g)
    return mul(g, mul(_const(x, y), x if y == 2 else integer_pow(x, y - 1)))


ad.defjvp(integer_pow_p, _integer_pow_jvp)

# x * x as its own primitive, as JAX 0.10.2 has it (jnp.square and lax.square bind it; x ** 2
# stays integer_pow)
def _np_square(x):
    """NumPy's square, but a complex one as chlo.square computes it: (re - im) * (re + im)
    for the real part (exact where |re| == |im|: (1e20+1e20j)**2 is infj, not nan)."""
    if not np.iscomplexobj(x):
        return np.square(x)
    re, im = x.real, x.imag
    out = np.empty_like(x)
    out.real, out.imag = (re - im) * (re + im), re * im * 2
    return out


square_p = unop("square", None, NUMERIC, numpy=_np_square)
# JAX's lowering: an integer multiply, chlo.square otherwise (its complex formula, above)
lowering_rules[square_p] = lambda ctx, x: (
    ctx.op1("stablehlo.multiply", [x, x]) if dtypes.is_int(ctx.avals_in[0].dtype) else
    ctx.op1("chlo.square", [x]))
ad.defjvp(square_p, lambda g, ans, x: mul(g, mul(_const(x, 2), x)))

# rounds to a float format with fewer exponent/mantissa bits, staying in the input dtype
def _np_reduce_precision(x, *, exponent_bits, mantissa_bits):
    """XLA's bit-level reduce_precision: the mantissa rounded to nearest even at
    `mantissa_bits`, then exponents past the narrow range made infinite, those below it
    (subnormals included) a signed zero; NaN stays NaN."""
    info = dtypes.finfo(x.dtype)
    src_mant, src_exp, nbits = int(info.nmant), int(info.nexp), x.dtype.itemsize * 8
    u = np.dtype(f"u{x.dtype.itemsize}")
    bits = x.view(u)
    if mantissa_bits < src_mant:
        shift = src_mant - mantissa_bits
        last = u.type(1) << u.type(shift)
        bias = ((bits & last) >> u.type(shift)) + ((last >> u.type(1)) - u.type(1))
        bits = (bits + bias) & ~(last - u.type(1))
    if exponent_bits < src_exp:
        exp_mask = u.type(((1 << src_exp) - 1) << src_mant)
        exp_bias, narrow_bias = (1 << (src_exp - 1)) - 1, (1 << (exponent_bits - 1)) - 1
        exponent = bits & exp_mask
        signed_zero = bits & u.type(1 << (nbits - 1))
        bits = np.where(exponent > u.type((exp_bias + narrow_bias) << src_mant),
                        signed_zero | exp_mask,
                        np.where(exponent <= u.type((exp_bias - narrow_bias) << src_mant),
                                 signed_zero, bits))
    out = np.asarray(bits, u).view(x.dtype)
    return np.where(np.isnan(x), x, out) if mantissa_bits < src_mant else out


reduce_precision_p = unop("reduce_precision", None, FLOAT, numpy=_np_reduce_precision)
_reduce_precision_base_rule = abstract_eval_rules[reduce_precision_p]


def _reduce_precision_abstract_eval(x, *, exponent_bits, mantissa_bits):
    if exponent_bits < 1:
        raise ValueError(f"reduce_precision: exponent_bits must be positive; got {exponent_bits}")
    if mantissa_bits < 0:
        raise ValueError(f"reduce_precision: mantissa_bits must be non-negative; "
                         f"got {mantissa_bits}")
    return _reduce_precision_base_rule(x)


abstract_eval_rules[reduce_precision_p] = _reduce_precision_abstract_eval
lowering_rules[reduce_precision_p] = lambda ctx, x, *, exponent_bits, mantissa_bits: ctx.op1(
    "stablehlo.reduce_precision", [x],
    attrs={"exponent_bits": f"{exponent_bits} : i32", "mantissa_bits": f"{mantissa_bits} : i32"})
ad.deflinear(reduce_precision_p, lambda ct, **params: [reduce_precision_p.bind(ct, **params)])

conj_p = Primitive("conj")


# (**params: JAX's rules but its transpose take any params, input_dtype or not; its test
# harnesses bind conj_p without it, and with `_input_dtype`)
def _conj_abstract_eval(x, **params):
    check_dtype("conj", x, INEXACT)
    dtype = x.dtype if dtypes.is_complex(x.dtype) else \
        dtypes.complex128 if x.dtype == dtypes.float64 else dtypes.complex64
    return ShapedArray(x.shape, dtype, x.weak_type)


def _conj_lowering(ctx, x, **params):
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
numpy_rules[conj_p] = lambda x, **params: np.conj(x).astype(
    x.dtype if dtypes.is_complex(x.dtype) else np.result_type(x.dtype, np.complex64))
sharding_rules[conj_p] = sharding_types.broadcasting_rule
bu.defvectorized(conj_p)
ad.deflinear2(conj_p, lambda ct, x, *, input_dtype: [
    conj(ct) if dtypes.is_complex(input_dtype) else real(ct)])


# ------------------------------------------------------------------ binary arithmetic
add_p = binop("add", "stablehlo.add", NUMERIC, numpy=np.add)
sharding_types.ur_rules[add_p] = sharding_types.add_ur_rule


def _linear_binop_transpose(sign_y):
    def transpose(ct, x, y):
        cts = [ad.unbroadcast(ct, x.aval) if ad.is_undefined(x) else None,
               ad.unbroadcast(neg(ct) if sign_y < 0 else ct, y.aval)
               if ad.is_undefined(y) else None]
        return cts
    return transpose


def _binop_linear_jvp(prim, sign_y):
    """add's and sub's JVP, as JAX's _add_jvp/_sub_jvp: both tangents meet in the op itself
    (`add tx ty`, broadcasting as the primal did); one alone is broadcast to, or resharded
    as, the result's type (`reshard`: a replicated bias's tangent added to a split batch)."""
    def jvp(primals, tangents):
        ans = prim.bind(*primals)
        out = ad.aval_of(ans)
        tx, ty = tangents
        if type(tx) is ad.Zero and type(ty) is ad.Zero:
            return ans, ad.Zero(out)
        if type(tx) is ad.Zero:
            return ans, ad.broadcast_to(neg(ty) if sign_y < 0 else ty, out)
        if type(ty) is ad.Zero:
            return ans, ad.broadcast_to(tx, out)
        return ans, prim.bind(ad.as_array(tx), ad.as_array(ty))
    return jvp


jvp_rules[add_p] = _binop_linear_jvp(add_p, 1)
transpose_rules[add_p] = _linear_binop_transpose(1)
# Eager add_any (gradients summing cotangents) runs add's program, as JAX's add_any impl
# (raw_jaxval_adders) calls lax.add: compiled alone it was the same program under another
# name, one more compile per shape and dtype that eager gradients meet.
# An extended dtype's contributions add by its rules' `add` (JAX's _add_arrays).
def _add_any_impl(x, y):
    dtype = getattr(x, "dtype", None)
    if dtypes.is_extended(dtype):
        return dtype._rules.add(dtype, x, y)
    return add_p.bind(x, y)


impl_rules[ad.add_any_p] = _add_any_impl

sub_p = binop("sub", "stablehlo.subtract", NUMERIC, numpy=np.subtract)
jvp_rules[sub_p] = _binop_linear_jvp(sub_p, -1)
transpose_rules[sub_p] = _linear_binop_transpose(-1)

mul_p = binop("mul", "stablehlo.multiply", NUMERIC, numpy=np.multiply)
sharding_types.ur_rules[mul_p] = sharding_types.mul_ur_rule


# mul(x, y, out_dtype=d), JAX's mixed-precision multiply: the operands may differ in dtype,
# each is converted to `d` and multiplied there (a param only when given, as `accuracy`)
def _mul_abstract_eval(x, y, out_dtype=None):
    if out_dtype is None:
        return _mul_same_dtype_eval(x, y)
    out_dtype = dtypes.canonicalize_named(out_dtype)   # (the param is what was given, as JAX's)
    for i, a in enumerate((x, y)):
        check_dtype("mul", a, NUMERIC, position=i)
    return ShapedArray(broadcast_shapes("mul", x.shape, y.shape), out_dtype,
                       x.weak_type and y.weak_type)


def _mul_lowering(ctx, x, y, out_dtype=None):
    if out_dtype is not None:
        out_dtype = ctx.avals_out[0].dtype
        x, y = (hl.convert(ctx, v, a, out_dtype) for v, a in zip((x, y), ctx.avals_in))
    avals = [a.update(dtype=ctx.avals_out[0].dtype) for a in ctx.avals_in]
    return ctx.op1("stablehlo.multiply", hl.broadcast_operands(ctx, [x, y], avals))


def _mul_numpy(x, y, out_dtype=None):
    dtype = x.dtype if out_dtype is None else dtypes.canonicalize_named(out_dtype)
    return np.multiply(x.astype(dtype, copy=False), y.astype(dtype, copy=False)).astype(
        dtype, copy=False)


def _mul_transpose_rule(ct, x, y, out_dtype=None):
    # the cotangent of each operand in its own dtype, as JAX's _mul_transpose_left/right
    if ad.is_undefined(x):
        return ad.unbroadcast(mul(ct, y, out_dtype=None if out_dtype is None else x.aval.dtype),
                              x.aval)
    return ad.unbroadcast(mul(x, ct, out_dtype=None if out_dtype is None else y.aval.dtype),
                          y.aval)


_mul_same_dtype_eval = abstract_eval_rules[mul_p]
abstract_eval_rules[mul_p] = _mul_abstract_eval
lowering_rules[mul_p] = _mul_lowering
numpy_rules[mul_p] = _mul_numpy
ad.defbilinear(mul_p, _mul_transpose_rule, _mul_transpose_rule)

# the upper half of the double-width integer product (chlo.mulhi, as JAX lowers it)
def _np_mulhi(x, y):
    """The high half of the double-width product x * y."""
    bits = x.dtype.itemsize * 8
    if bits <= 32:
        wide = np.int64 if x.dtype.kind == "i" else np.uint64
        return (x.astype(wide) * y.astype(wide)) >> bits
    u = np.dtype(np.uint64)                               # 64 bits: 32-bit limbs, unsigned
    a, b = x.view(u), y.view(u)
    mask = np.uint64(0xFFFFFFFF)
    a_lo, a_hi, b_lo, b_hi = a & mask, a >> 32, b & mask, b >> 32
    mid = (a_lo * b_lo >> 32) + (a_hi * b_lo & mask) + a_lo * b_hi
    hi = a_hi * b_hi + (a_hi * b_lo >> 32) + (mid >> 32)
    if x.dtype.kind == "i":                               # signed: subtract the wrapped terms
        hi = hi - np.where(x < 0, b, 0).astype(u) - np.where(y < 0, a, 0).astype(u)
    return hi.view(x.dtype)


def _np_narrow_mulhi(x, y):
    """int2's and uint2's high half of the 4-bit product; None for int4 and uint4, whose
    mulhi XLA takes of the 16-bit product of their int8 widenings (the high 8 bits)."""
    bits = dtypes.bit_width(x.dtype)
    return (x.astype(np.int64) * y.astype(np.int64)) >> bits if bits < 4 else None


mulhi_p = binop("mulhi", "chlo.mulhi", INT, numpy=_np_mulhi, numpy_narrow=_np_narrow_mulhi)
ad.defjvp_zero(mulhi_p)

# XLA's algebraic simplifier turns A / Broadcast(B) into A * Broadcast(1 / B) (one division
# per element of B; measured: f32 and f64, a scalar or a vector B, eager or jitted), which
# rounds twice: e.g. x / 1.5 at x = 0.3 is 0.2 but x * (1 / 1.5) the next float32 up.
_RECIPROCAL = frozenset(map(np.dtype, ("float32", "float64")))


def _is_broadcast(y, shape) -> bool:
    """Whether XLA's program holds `y` as a broadcast to `shape` of fewer elements: a smaller
    operand the lowering broadcasts (a 0-d one beside an array), or a broadcast_in_dim's
    result (NumPy's rule keeps it a view with a zero stride). One of as many elements is a
    reshape to XLA, and divides."""
    size = math.prod(shape)
    return size > 1 and (y.size < size or any(st == 0 and n > 1
                                               for st, n in zip(y.strides, y.shape)))


def _np_div(x, y):
    """x / y; integers round toward zero, x / 0 is -1 (all bits set) and INT_MIN / -1 wraps,
    as XLA's integer division does. A float32/float64 divisor broadcast from fewer elements
    multiplies by its reciprocal, as XLA's simplifier rewrites A / Broadcast(B)."""
    if x.dtype.kind not in "iu":
        if _is_broadcast(y, np.broadcast_shapes(x.shape, y.shape)) and x.dtype in _RECIPROCAL:
            return np.multiply(x, np.true_divide(y.dtype.type(1), y))
        return np.true_divide(x, y)
    x, y = np.broadcast_arrays(x, y)
    safe = np.where(y == 0, 1, y).astype(y.dtype)
    if x.dtype.kind == "i":
        safe = np.where((y == -1) & (x == dtypes.iinfo(x.dtype).min), 1, safe).astype(y.dtype)
    q = x // safe
    q = q + ((x - q * safe != 0) & ((x < 0) != (safe < 0))).astype(x.dtype)
    # x / 0 has all bits set: ~0 in x's own dtype (a Python -1 beside unsigned ints is refused
    # by NumPy 2.5's promotion: OverflowError for uint32)
    all_bits = np.invert(np.zeros((), x.dtype))
    q = np.where(safe != y, np.where(y == 0, all_bits, x), q)    # the special cases
    return q.astype(x.dtype)


def _np_rem(x, y):
    """The remainder with x's sign (C's fmod); x % 0 is x and INT_MIN % -1 is 0, as XLA's."""
    if x.dtype.kind not in "iu":
        return np.fmod(x, y)
    x, y = np.broadcast_arrays(x, y)
    safe = np.where(y == 0, 1, y).astype(y.dtype)
    return np.where(y == 0, x, np.fmod(x, safe)).astype(x.dtype)


div_p = binop("div", "stablehlo.divide", NUMERIC, numpy=_np_div)
ad.defjvp(div_p, lambda g, ans, x, y: div(g, y),
          lambda g, ans, x, y: mul(mul(neg(g), x), integer_pow(y, -2)))


def _div_transpose(ct, x, y):
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval), None]
    return [ad.unbroadcast(div(ct, y), x.aval), None]


transpose_rules[div_p] = _div_transpose

# (no complex rem: XLA crashes compiling it)
rem_p = binop("rem", "stablehlo.remainder", INT | FLOAT, numpy=_np_rem)
ad.defjvp(rem_p, lambda g, ans, x, y: g,
          lambda g, ans, x, y: mul(neg(g), mul(sign(div(x, y)), floor(abs(div(x, y))))))

pow_p = Primitive("pow")


def _pow_abstract_eval(x, y):
    """pow takes a float/complex base and an exponent of the same dtype, or of an int dtype."""
    check_dtype("pow", x, INEXACT, position=0)
    check_dtype("pow", y, INEXACT | INT, position=1)
    if y.dtype not in INT:
        check_same_dtypes("pow", x, y)
    shape = broadcast_shapes("pow", x.shape, y.shape)
    return ShapedArray(shape, x.dtype, x.weak_type and y.weak_type)


def _pow_lowering(ctx, x, y):
    x_aval, y_aval = ctx.avals_in
    if y_aval.dtype != x_aval.dtype:          # an int exponent: converted, as JAX lowers it
        y = hl.convert(ctx, y, y_aval, x_aval.dtype)
        y_aval = y_aval.update(dtype=x_aval.dtype)
    return ctx.op1("stablehlo.power", hl.broadcast_operands(ctx, [x, y], [x_aval, y_aval]))


abstract_eval_rules[pow_p] = _pow_abstract_eval
lowering_rules[pow_p] = _pow_lowering
def _pow_numpy(x, y):
    """x ** y in x's dtype; float32 (and narrower) computed in float64 and rounded once, as
    XLA's CPU pow is (NumPy's float32 power is a last bit away in 1 of 5)."""
    if x.dtype in _XLA_FLOAT32_MATH and y.dtype.kind == "f":
        return np.power(x.astype(np.float64), y.astype(np.float64)).astype(x.dtype)
    return np.power(x, y.astype(x.dtype)).astype(x.dtype)


numpy_rules[pow_p] = _pow_numpy
batching_rules[pow_p] = bu.broadcasting_batcher(pow_p)
sharding_rules[pow_p] = sharding_types.broadcasting_rule


def _pow_jvp_x(g, ans, x, y):
    """JAX's _pow_jvp_lhs: y * x ** (y - 1). For an integer y, x ** 0 is flat (even at x = 0,
    where 0 * inf), and only then are x and y broadcast to the result (select_n needs whole
    cases), as JAX's: a float y's operands are not (nor resharded)."""
    out = ad.aval_of(ans)
    is_int = ad.aval_of(y).dtype != out.dtype
    # both as strong values of the result's dtype, as JAX's (its gradient at a weak x is strong)
    x, y = convert_element_type(x, out.dtype), convert_element_type(y, out.dtype)
    if not is_int:
        return mul(g, mul(y, pow(x, sub(y, _full_like(y, 1)))))
    if bu.shape(x) != bu.shape(y):
        x, y = ad.broadcast_to(x, out), ad.broadcast_to(y, out)
    # (its equations in JAX's order: the nonzero y, JAX's _replace_zero, inside the select)
    jac = select(eq(y, _const(y, 0)), _full_like(y, 0),
                 mul(select(eq(y, _const(y, 0)), _full_like(y, 1), y),
                     pow(x, sub(y, _full_like(y, 1)))))
    return mul(g, jac)


def _pow_jvp_y(g, ans, x, y):
    safe_x = select(eq(x, _const(x, 0)), _full_like(x, 1), x)
    return convert_element_type(mul(g, mul(log(safe_x), ans)), ad.aval_of(y).dtype)  # strong


ad.defjvp(pow_p, _pow_jvp_x, lambda g, ans, x, y: _pow_jvp_y(g, ans, x, y)
          if dtypes.is_inexact(ad.aval_of(y).dtype) else _zeros_like(ans))

def _atan2_numpy(x, y):
    """np.arctan2, and for complex operands XLA's definition, -i log((y + ix) / sqrt(x² + y²))
    (NumPy's arctan2 takes no complex numbers)."""
    if np.iscomplexobj(x) or np.iscomplexobj(y):
        return -1j * np.log((y + 1j * x) / np.sqrt(x * x + y * y))
    return np.arctan2(x, y)


atan2_p = binop("atan2", "stablehlo.atan2", INEXACT, numpy=_atan2_numpy)


def _atan2_jvp_x(g, ans, x, y):
    return mul(g, div(y, add(square(x), square(y))))


def _atan2_jvp_y(g, ans, x, y):
    return mul(g, div(neg(x), add(square(x), square(y))))


ad.defjvp(atan2_p, _atan2_jvp_x, _atan2_jvp_y)

def _zero_signs(dtype) -> bool:
    """Whether `dtype` has signed zeros that XLA's max and min order (real floats)."""
    # by name: without ml_dtypes (Pyodide) float8_e8m0fnu is a placeholder np.dtype refuses
    return dtypes.is_float(dtype) and np.dtype(dtype).name != "float8_e8m0fnu"


def xla_max(a, b):
    """XLA's max (NaN propagates; -0.0 is below 0.0, so max(-0.0, 0.0) is 0.0 either way
    round, where np.maximum gives its first operand).

        >>> xla_max(np.float32([-0.0, 0.0]), np.float32([0.0, -0.0]))
        array([0., 0.], dtype=float32)
    """
    out = np.maximum(a, b)
    if _zero_signs(out.dtype):
        zeros = (a == 0) & (b == 0)
        if zeros.any():            # both zeros: -0.0 + -0.0 is -0.0, any other sum 0.0
            out = np.where(zeros, a + b, out).astype(out.dtype, copy=False)
    return out


def xla_min(a, b):
    """XLA's min (NaN propagates; min(-0.0, 0.0) is -0.0 either way round).

        >>> xla_min(np.float32([-0.0, 0.0]), np.float32([0.0, -0.0]))
        array([-0., -0.], dtype=float32)
    """
    out = np.minimum(a, b)
    if _zero_signs(out.dtype):
        zeros = (a == 0) & (b == 0)
        if zeros.any():            # both zeros: 0.0 unless either is -0.0
            out = np.where(zeros, -(-a + -b), out).astype(out.dtype, copy=False)
    return out


def extreme_zeros(x, kind: str):
    """Which elements of x decide the sign of a zero that is their max (`kind` "max": the
    0.0s) or min (the -0.0s), as XLA orders -0.0 below 0.0 (none: a dtype without them)."""
    if not _zero_signs(x.dtype):
        return np.zeros(x.shape, bool)
    sign = np.signbit(x.astype(np.float32) if x.dtype.itemsize < 4 else x)
    return (x == 0) & (~sign if kind == "max" else sign)


def signed_zeros(out, found, kind: str):
    """`out`, maxima (`kind` "max") or minima, with each zero signed as XLA's: a max is 0.0
    where `found` (extreme_zeros folded over what it came from) holds, else -0.0; a min the
    other way round. np.maximum.reduce and friends keep whichever zero came first."""
    if not _zero_signs(out.dtype):
        return out
    zero = out == 0
    if not zero.any():
        return out
    signed = np.where(found, 0.0, -0.0) if kind == "max" else np.where(found, -0.0, 0.0)
    return np.where(zero, signed, out).astype(out.dtype, copy=False)


max_p = binop("max", "stablehlo.maximum", ANY, numpy=xla_max)


def _balanced_eq(x, z, y):
    """1 where x is the max/min (0.5 on ties with y), else 0: splits the gradient on ties.
    JAX's formula, (x == z ? 1 : 0) / (y == z ? 2 : 1): its equations and their types (eq
    broadcasts x and y to z's shape and type, no operand is resharded)."""
    return div(select(eq(x, z), _full_like(z, 1), _full_like(z, 0)),
               select(eq(y, z), _full_like(z, 2), _full_like(z, 1)))


ad.defjvp(max_p, lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
          lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)))

min_p = binop("min", "stablehlo.minimum", ANY, numpy=xla_min)
ad.defjvp(min_p, lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
          lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)))

nextafter_p = binop("nextafter", "chlo.next_after", FLOAT, numpy=np.nextafter)
# nextafter(x, y) moves x by one ulp: d/dx = 1, d/dy = 0 (so jnp.spacing's derivative is 0;
# JAX has no rule and raises)
ad.defjvp(nextafter_p, lambda g, ans, x, y: g, None)

and_p = binop("and", "stablehlo.and", INTEGRAL, numpy=np.bitwise_and)
ad.defjvp_zero(and_p)

or_p = binop("or", "stablehlo.or", INTEGRAL, numpy=np.bitwise_or)
ad.defjvp_zero(or_p)

xor_p = binop("xor", "stablehlo.xor", INTEGRAL, numpy=np.bitwise_xor)
ad.defjvp_zero(xor_p)

def _np_shift(op, fill):
    """A shift of x by y bits; a count of the width or more (or negative: XLA reads it
    unsigned) gives `fill(x)`, as XLA's shifts do, where C's are undefined."""
    def fn(x, y):
        bits = x.dtype.itemsize * 8
        u = np.dtype(f"u{x.dtype.itemsize}")
        in_range = y.astype(u) < bits
        return np.where(in_range, op(x, np.where(in_range, y, 0).astype(x.dtype)),
                        fill(x)).astype(x.dtype)
    return fn


def _right_as(kind):
    """x >> n on x's bits read as signed ("i": arithmetic) or unsigned ("u": logical)."""
    def shift(x, n):
        view = np.dtype(f"{kind}{x.dtype.itemsize}")
        return (x.view(view) >> n.astype(view)).view(x.dtype)
    return shift


def _sign_fill(x):
    return np.where(x.view(np.dtype(f"i{x.dtype.itemsize}")) < 0, -1, 0).astype(x.dtype)


_np_shift_left = _np_shift(np.left_shift, np.zeros_like)
_np_shift_right_logical = _np_shift(_right_as("u"), np.zeros_like)
_np_shift_right_arithmetic = _np_shift(_right_as("i"), _sign_fill)
shift_left_p = binop("shift_left", "stablehlo.shift_left", INT, numpy=_np_shift_left)
ad.defjvp_zero(shift_left_p)

shift_right_logical_p = binop("shift_right_logical", "stablehlo.shift_right_logical", INT,
                              numpy=_np_shift_right_logical,
                              numpy_narrow=_np_narrow_right_shift(False))
ad.defjvp_zero(shift_right_logical_p)

shift_right_arithmetic_p = binop("shift_right_arithmetic", "stablehlo.shift_right_arithmetic",
                                 INT, numpy=_np_shift_right_arithmetic,
                                 numpy_narrow=_np_narrow_right_shift(True))
ad.defjvp_zero(shift_right_arithmetic_p)

complex_p = binop("complex", "stablehlo.complex", frozenset([dtypes.float32, dtypes.float64]),
                  lambda d: dtypes.complex64 if d == dtypes.float32 else dtypes.complex128,
                  numpy=lambda x, y: x + 1j * y)
# each part's cotangent summed back to its input's shape where size-1 dimensions broadcast
# ((3, 1) with (1, 4)), as add's and mul's are
ad.deflinear2(complex_p, lambda ct, x, y: [
    ad.unbroadcast(real(ct), x.aval) if ad.is_undefined(x) else None,
    ad.unbroadcast(imag(neg(ct)), y.aval) if ad.is_undefined(y) else None])


# ------------------------------------------------------------------ comparisons
def _comparison(name, direction, accepted, numpy):
    prim = binop(name, None, accepted, _to_bool, numpy=numpy)

    def lower(ctx, x, y):
        x, y = hl.broadcast_operands(ctx, [x, y])
        operand = ShapedArray(ctx.avals_out[0].shape, ctx.avals_in[0].dtype)
        return hl.compare(ctx, x, y, direction, operand)

    lowering_rules[prim] = lower
    results_left_unconstrained.add(prim)      # (JAX's comparisons: no result constraint)
    return prim


# (values of an extended dtype too, as JAX's allow_extended_dtype: they compare their data,
# lax/edtype_rules.py)
eq_p = _comparison("eq", "EQ", ANY_OR_KEYS, np.equal)
ad.defjvp_zero(eq_p)

ne_p = _comparison("ne", "NE", ANY_OR_KEYS, np.not_equal)
ad.defjvp_zero(ne_p)

_ORDERED = ANY - COMPLEX
lt_p = _comparison("lt", "LT", _ORDERED, np.less)
ad.defjvp_zero(lt_p)

le_p = _comparison("le", "LE", _ORDERED, np.less_equal)
ad.defjvp_zero(le_p)

gt_p = _comparison("gt", "GT", _ORDERED, np.greater)
ad.defjvp_zero(gt_p)

ge_p = _comparison("ge", "GE", _ORDERED, np.greater_equal)
ad.defjvp_zero(ge_p)

# a scalar operand resharded reduced as the other operand is (JAX's insert_reduced_reshard
# in these lax functions)
sharding_types.reduced_reshard_prims.update((
    add_p, sub_p, mul_p, mulhi_p, div_p, rem_p, pow_p, atan2_p, max_p, min_p, nextafter_p,
    and_p, or_p, xor_p, shift_left_p, shift_right_logical_p, shift_right_arithmetic_p,
    complex_p, eq_p, ne_p, lt_p, le_p, gt_p, ge_p))


# ------------------------------------------------------------------ total-order comparisons
# What JAX's sort comparators bind (eq_to, le_to, lt_to): IEEE total order on floats, where
# -NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN, -0.0 != 0.0, and a NaN equals only a NaN
# of the same bits' order. Integers and bools compare as eq, le and lt do.
def _total_order_key(x):
    """Integers ordered as the floats `x` are in IEEE total order; other dtypes as they are.

    >>> _total_order_key(np.float32([-0.0, 0.0])).tolist()
    [-1, 0]
    """
    if not dtypes.is_float(x.dtype):
        return x
    bits = x.view(np.dtype(f"i{x.dtype.itemsize}"))
    return np.where(bits < 0, bits ^ dtypes.iinfo(bits.dtype).max, bits)


def _total_comparison(name, direction, accepted, numpy):
    prim = binop(name, None, accepted, _to_bool,
                 numpy=lambda x, y: numpy(_total_order_key(x), _total_order_key(y)))

    def lower(ctx, x, y):
        x, y = hl.broadcast_operands(ctx, [x, y])
        operand = ShapedArray(ctx.avals_out[0].shape, ctx.avals_in[0].dtype)
        return hl.compare(ctx, x, y, direction, operand, total_order=True)

    lowering_rules[prim] = lower
    results_left_unconstrained.add(prim)
    ad.defjvp_zero(prim)
    return prim


eq_to_p = _total_comparison("eq_to", "EQ", ANY, np.equal)
le_to_p = _total_comparison("le_to", "LE", _ORDERED, np.less_equal)
lt_to_p = _total_comparison("lt_to", "LT", _ORDERED, np.less)


# ------------------------------------------------------------------ select_n, clamp
select_n_p = Primitive("select_n")


def _select_n_abstract_eval(which, *cases):
    """JAX's checks in its order (its shape rule, then its dtype rule) and words, which name
    the primitive "select"."""
    if not cases:
        raise TypeError("select must have at least one case")
    first = cases[0]
    if any(c.shape != first.shape for c in cases[1:]):
        raise TypeError(f"select cases must have the same shapes, got "
                        f"[{', '.join(str(c.shape) for c in cases)}].")
    if which.shape and which.shape != first.shape:
        raise TypeError(f"select `which` must be scalar or have the same shape as cases, got "
                        f"`which` shape {which.shape} but case shape {first.shape}.")
    check_same_dtypes("select", *cases)
    if which.dtype != dtypes.bool_ and which.dtype not in INT:
        raise TypeError(f"select `which` must be boolean or integer type, got "
                        f"{which.dtype.name}.")
    if which.dtype == dtypes.bool_ and len(cases) > 2:
        raise TypeError("select with boolean `which` cannot have > 2 cases.")
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


def _select_n_batching(axis_data, vals, dims):
    """JAX's cases: batch dims that agree need no transpose (a per-example scalar `which`
    spread over the cases, typed as them); otherwise every operand gets its batch dim first,
    an unbatched one broadcast split as vmap's inputs are (so the cases stay typed alike over
    a split batch: vmap of jnp.where(c > 0, c, 0.0))."""
    which, cases = vals[0], vals[1:]
    wdim, cdims = dims[0], dims[1:]
    if all(d is bu.not_mapped for d in dims):
        return select_n_p.bind(which, *cases), bu.not_mapped
    size, ema = bu.axis_size_of(vals, dims), axis_data.explicit_mesh_axis
    if all(d == wdim for d in cdims):
        if bu.shape(which) != bu.shape(cases[0]):
            which = broadcast_in_dim(which, bu.shape(cases[0]), (wdim,),
                                     out_sharding=ad.aval_of(cases[0]).split)
        return select_n(which, *cases), wdim
    if not bu.shape(which) and all(d is not bu.not_mapped for d in cdims):
        if all(d == cdims[0] for d in cdims):
            return select_n(which, *cases), cdims[0]
        if all(bu.shape(c) == bu.shape(cases[0]) for c in cases):
            moved = [bu.moveaxis(c, d, cdims[0]) for c, d in zip(cases[1:], cdims[1:])]
            return select_n(which, cases[0], *moved), cdims[0]
    if bu.shape(which):
        which = bu.bdim_at_front(which, wdim, size, ema)
    if any(bu.shape(c) for c in cases):
        cases = [bu.bdim_at_front(c, d, size, ema) for c, d in zip(cases, cdims)]
    if 0 < bu.ndim(which) < bu.ndim(cases[0]):      # a per-example scalar `which`
        which = broadcast_in_dim(which, bu.shape(cases[0]), (0,),
                                 out_sharding=ad.aval_of(cases[0]).split)
    if bu.ndim(which) > bu.ndim(cases[0]):          # scalar cases, a batched `which`
        like = ad.aval_of(which)
        cases = [broadcast_in_dim(c, like.shape, (), out_sharding=like.split) for c in cases]
    return select_n(which, *cases), 0


abstract_eval_rules[select_n_p] = _select_n_abstract_eval
lowering_rules[select_n_p] = _select_n_lowering
def _select_n_numpy(which, *cases):
    """As XLA runs the lowering's compares: one case is the result whatever `which` says, and
    an int `which` out of range picks the nearest case (-1 the first, n the last)."""
    if len(cases) == 1:
        return cases[0]
    if which.dtype == np.bool_:
        return np.where(which, cases[1], cases[0])
    return np.choose(which.astype(np.intp), np.broadcast_arrays(*cases), mode="clip")


numpy_rules[select_n_p] = _select_n_numpy
axis_batching_rules[select_n_p] = _select_n_batching


def _select_n_jvp(primals, tangents):
    which, *cases = primals
    ans = select_n(which, *cases)
    case_tangents = tangents[1:]
    if all(type(t) is ad.Zero for t in case_tangents):
        return ans, ad.Zero(ad.aval_of(ans))
    # a Zero case's tangent is zeros like a nonzero one, typed as it is (JAX's _zeros): the
    # cases of select_n share one sharding
    z = _full_like(next(t for t in case_tangents if type(t) is not ad.Zero), 0)
    return ans, select_n(which, *(z if type(t) is ad.Zero else t for t in case_tangents))


def _select_n_transpose(ct, which, *cases):
    if type(ct) is ad.Zero:
        return [None] + [ad.Zero(c.aval) if ad.is_undefined(c) else None for c in cases]
    zeros = _full_like(ct, 0)          # typed as ct, as JAX's full_like(ct, 0)
    return [None] + [select_n(which, *[ct if j == i else zeros for j in range(len(cases))])
                     if ad.is_undefined(c) else None for i, c in enumerate(cases)]


jvp_rules[select_n_p] = _select_n_jvp
transpose_rules[select_n_p] = _select_n_transpose
sharding_rules[select_n_p] = sharding_types.select_n_rule

clamp_p = Primitive("clamp")


def _clamp_abstract_eval(lo, x, hi):
    check_same_dtypes("clamp", lo, x, hi)
    check_dtype("clamp", x, ANY - COMPLEX)
    for name, bound in (("min", lo), ("max", hi)):
        if bound.shape and bound.shape != x.shape:
            raise TypeError(f"clamp requires {name}.shape == operand.shape or {name}.shape == "
                            f"(), got {name}.shape={bound.shape}, operand.shape={x.shape}.")
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
            b = broadcast_in_dim(b, full, (0,))
        bounds.append(b)
    return clamp_p.bind(bounds[0], x, bounds[1]), 0


abstract_eval_rules[clamp_p] = _clamp_abstract_eval
lowering_rules[clamp_p] = _clamp_lowering
numpy_rules[clamp_p] = lambda lo, x, hi: xla_min(xla_max(*map(widen_narrow_int, (x, lo))),
                                                 widen_narrow_int(hi)).astype(x.dtype)
batching_rules[clamp_p] = _clamp_batching


def _clamp_jvp(primals, tangents):
    lo, x, hi = primals
    ans = clamp(lo, x, hi)
    out = ad.aval_of(ans)
    zero = _zeros_like(ans)
    total = ad.Zero(out)
    t_lo, t_x, t_hi = tangents
    if type(t_lo) is not ad.Zero:
        # lo's tangent only where lo is the answer: above x and below hi (where lo > hi the
        # answer is hi, XLA's min(max(x, lo), hi)), as JAX's rule
        total = ad.add_tangents(total, select(bitwise_and(gt(lo, x), lt(lo, hi)),
                                              ad.broadcast_to(t_lo, out), zero))
    if type(t_x) is not ad.Zero:
        total = ad.add_tangents(total, select(bitwise_and(gt(x, lo), lt(x, hi)), t_x, zero))
    if type(t_hi) is not ad.Zero:
        total = ad.add_tangents(total, select(lt(hi, x), ad.broadcast_to(t_hi, out), zero))
    return ans, total


jvp_rules[clamp_p] = _clamp_jvp
sharding_rules[clamp_p] = sharding_types.clamp_rule


def _bind_accurate(prim, x, accuracy):
    # the equation always carries `accuracy` (None by default), as JAX's `eqn.params`; its
    # printer leaves a None out (below), as JAX's
    if accuracy is not None:
        accuracy_attrs(accuracy)              # a bad value raises here, naming the argument
    return prim.bind(x, accuracy=accuracy)


def _mul_params() -> dict:
    """mul's params when no out_dtype is given: `out_dtype=None`, as JAX's equations carry it;
    eagerly none, so that Array's `*` (compiled, core/_fastpath.c: it runs mul's last eager run,
    with no params) finds the same run as lax.mul and jnp.multiply (no equation is made then)."""
    return _NO_PARAMS if type(_trace_ctx.trace) is _EvalTrace else _MUL_DEFAULT


_NO_PARAMS, _MUL_DEFAULT = {}, {"out_dtype": None}


def _params_but_none(*keys):
    """A param printer leaving out `keys` whose value is None (JAX's _unary_with_accuracy_pp_rule
    and _mul_pp_rule: `sin a`, not `sin[accuracy=None] a`)."""
    def printer(params):
        return sorted((k, v) for k, v in params.items() if not (v is None and k in keys))
    return printer


# the primitives of lax's functions taking accuracy= (JAX's _unary_with_accuracy_pp_rule's)
_ACCURACY_PRIMITIVES = frozenset((exp_p, exp2_p, log_p, log1p_p, expm1_p, tanh_p, logistic_p, sin_p,
                                 cos_p, tan_p, sqrt_p, rsqrt_p, cbrt_p))
for _prim in _ACCURACY_PRIMITIVES:
    param_printers[_prim] = _params_but_none("accuracy")
    none_hidden_params[_prim] = ("accuracy",)
param_printers[mul_p] = _params_but_none("out_dtype")
none_hidden_params[mul_p] = ("out_dtype",)


# ------------------------------------------------------------------ lax functions
# (These shadow Python's abs/max/min/round/pow/complex inside this module: use builtins.*.)
def neg(x): return neg_p.bind(x)
def sign(x): return sign_p.bind(x)
def floor(x): return floor_p.bind(x)
def ceil(x): return ceil_p.bind(x)
def is_finite(x): return is_finite_p.bind(x)
def exp(x, *, accuracy=None): return _bind_accurate(exp_p, x, accuracy)
def exp2(x, *, accuracy=None): return _bind_accurate(exp2_p, x, accuracy)
def log(x, *, accuracy=None): return _bind_accurate(log_p, x, accuracy)
def log1p(x, *, accuracy=None): return _bind_accurate(log1p_p, x, accuracy)
def expm1(x, *, accuracy=None): return _bind_accurate(expm1_p, x, accuracy)
def tanh(x, *, accuracy=None): return _bind_accurate(tanh_p, x, accuracy)
def logistic(x, *, accuracy=None): return _bind_accurate(logistic_p, x, accuracy)
def sin(x, *, accuracy=None): return _bind_accurate(sin_p, x, accuracy)
def cos(x, *, accuracy=None): return _bind_accurate(cos_p, x, accuracy)
def tan(x, *, accuracy=None): return _bind_accurate(tan_p, x, accuracy)
def asin(x): return asin_p.bind(x)
def acos(x): return acos_p.bind(x)
def atan(x): return atan_p.bind(x)
def sinh(x): return sinh_p.bind(x)
def cosh(x): return cosh_p.bind(x)
def asinh(x): return asinh_p.bind(x)
def acosh(x): return acosh_p.bind(x)
def atanh(x): return atanh_p.bind(x)
def sqrt(x, *, accuracy=None): return _bind_accurate(sqrt_p, x, accuracy)
def rsqrt(x, *, accuracy=None): return _bind_accurate(rsqrt_p, x, accuracy)
def cbrt(x, *, accuracy=None): return _bind_accurate(cbrt_p, x, accuracy)
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


def reduce_precision(operand, exponent_bits: int, mantissa_bits: int):
    """Round `operand` to the nearest value of a float format with the given bit counts.

    >>> reduce_precision(np.float32(1.0001), exponent_bits=8, mantissa_bits=7)  # as bfloat16
    Array(1., dtype=float32)
    """
    return reduce_precision_p.bind(operand, exponent_bits=operator.index(exponent_bits),
                                   mantissa_bits=operator.index(mantissa_bits))


def integer_pow(x, y: int):
    """x ** y for a static Python int y (repeated multiplication). A whole float (2.0) is
    taken as JAX takes it; 1.5 is refused (JAX's TypeError, there an accident of its code,
    "unsupported operand type(s) for &"), where int() would drop the fraction."""
    if isinstance(y, float) and not y.is_integer():
        raise TypeError(f"integer_pow takes an integer exponent y, got {y}")
    return integer_pow_p.bind(x, y=int(y))


def add(x, y): return add_p.bind(x, y)
def sub(x, y): return sub_p.bind(x, y)


def mul(x, y, *, out_dtype=None):
    """x * y elementwise (equal dtypes), or with `out_dtype` both converted to it first.

    >>> mul(np.float16(3), np.float32(2), out_dtype=np.float32)
    Array(6., dtype=float32)
    """
    if out_dtype is None:
        return mul_p.bind(x, y, **_mul_params())
    dtypes.canonicalize_named(out_dtype)             # (a bad dtype raises here)
    return mul_p.bind(x, y, out_dtype=out_dtype)     # (as given, as JAX's)


def mulhi(x, y, /): return mulhi_p.bind(x, y)
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
    if not cases:       # JAX's function's own check, before its primitive's
        raise ValueError("select_n() must have at least one case")
    return select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
    """on_true where pred else on_false (select_n with the cases swapped)."""
    return select_n_p.bind(pred, on_false, on_true)


def clamp(min, x, max):
    """x clipped to [min, max]; the bounds are scalars or have x's shape."""
    return clamp_p.bind(min, x, max)


def square(x): return square_p.bind(x)
def reciprocal(x): return integer_pow_p.bind(x, y=-1)


def _dtype_of(x):
    return dtypes.dtype(x)

# the mesh axes their results are unreduced and reduced over (JAX's ur rules)
sharding_types.ur_rules[reduce_precision_p] = sharding_types.keeps_ur_rule
sharding_types.ur_rules[select_n_p] = sharding_types.select_ur_rule
