"""Rule factories shared by the primitive families: most primitives need one line per rule.

    sin_p = unop("sin", "stablehlo.sine", INEXACT, numpy=np.sin)

defines the primitive with its abstract eval (dtype check, same shape), its lowering (one
elementwise StableHLO op), its batching and sharding rules and, given `numpy=`, its NumPy
rule; `binop` does the same for a broadcasting binary op. Its jvp (and transpose, if it is
linear) is still the family file's to write, below it (lax/elementwise.py). Also here: the
dtype families a primitive accepts (`INEXACT`, `NUMERIC`, ...), the checks whose errors name
the primitive, the argument and what was expected, as JAX's do (`check_dtype`,
`check_same_dtypes`, `broadcast_shapes`), and the `accuracy=` parameter of the unary
functions (`AccuracyMode`, `Tolerance`).
"""
from __future__ import annotations

import enum

import numpy as np

from ..core import dtypes, sharding_types
from ..core.avals import ShapedArray, abstract_token
from ..core.errors import float0_error
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, lowering_rules,
                              numpy_rules, sharding_rules)
from ..transforms import batch_util
from . import _lowering as hl

# dtype families accepted by primitives, named as JAX's error messages name them
BOOL = dtypes.BOOL_DTYPES
SIGNED = dtypes.SIGNED_DTYPES
UNSIGNED = dtypes.UNSIGNED_DTYPES
INT = dtypes.INT_DTYPES
FLOAT = dtypes.FLOAT_DTYPES
COMPLEX = dtypes.COMPLEX_DTYPES
INEXACT = dtypes.INEXACT_DTYPES
NUMERIC = INT | INEXACT
ANY = NUMERIC | BOOL
INTEGRAL = INT | BOOL


class _WithKeys(frozenset):
    """A set of accepted dtypes that also takes typed keys' extended dtypes (copy's)."""
    def __contains__(self, dtype):
        return isinstance(dtype, dtypes.ExtendedDType) or frozenset.__contains__(self, dtype)


ANY_OR_KEYS = _WithKeys(ANY)

_FAMILY_NAMES = [(BOOL, "bool"), (SIGNED, "signedinteger"), (UNSIGNED, "unsignedinteger"),
                 (INT, "integer"), (FLOAT, "floating"), (COMPLEX, "complexfloating")]


def describe_dtypes(accepted) -> str:
    """The families of `accepted`, named in JAX's order. JAX joins the names of a Python set
    of NumPy's abstract types (`{np.integer} | {np.floating} | ...`), so the order is that
    set's iteration order, which follows from the types' hashes: the same set built here
    lists them alike ("integer, floating, complexfloating" where families sorted by size
    gave "floating, integer, ..."). The hashes are the types' addresses, so the order
    changes with the NumPy build and, on some, between processes (3.12 with NumPy 2.5):
    JAX's in the same process, never a fixed string."""
    chosen, covered = [], set()
    for family, name in sorted(_FAMILY_NAMES, key=lambda f: -len(f[0])):
        if family <= accepted and not family <= covered:
            chosen.append(name)
            covered |= family
    types = {"bool": np.bool_, "signedinteger": np.signedinteger,
             "unsignedinteger": np.unsignedinteger, "integer": np.integer,
             "floating": np.floating, "complexfloating": np.complexfloating}
    # JAX's declarations read `_int | _float | _complex | _bool` (abs: `_signedint | ...`)
    order = ("signedinteger", "unsignedinteger", "integer", "floating", "complexfloating",
             "bool")
    as_set: set = set()
    for name in order:
        if name in chosen:
            as_set |= {types[name]}
    if not as_set:      # no whole family (complex's float32 and float64): JAX names the dtypes
        return ", ".join(d.name for d in sorted(accepted, key=lambda d: (d.kind, d.itemsize)))
    return ", ".join("bool" if t is np.bool_ else t.__name__ for t in as_set)


def refuse_token(name: str, aval) -> None:
    """JAX's ValueError for a token given to an array primitive (its standard abstract
    evaluation's): `lax.reduce_sum(lax.create_token(), ())`."""
    if aval is abstract_token:
        raise ValueError(f"Attempting to pass an unexpected type {aval!r} to a primitive: "
                         f"{name}")


def check_dtype(name: str, aval, accepted, what="", position=None) -> None:
    refuse_token(name, aval)
    if aval.dtype not in accepted:
        if aval.dtype == dtypes.float0:
            raise float0_error(name, position)
        at = "" if position is None else f" at position {position}"
        raise TypeError(f"{name} does not accept dtype {aval.dtype.name}{what}{at}. Accepted "
                        f"dtypes{at} are subtypes of {describe_dtypes(accepted)}.")


# lax name -> the jax.numpy function that promotes (JAX's _JNP_FUNCTION_EQUIVALENTS): the tip
# in the message below names it; a lax op with none (lt_to, rem, ...) gets no tip, as in JAX
_JNP_EQUIVALENTS = dict(
    abs="fabs", acos="arccos", acosh="arccosh", asin="arcsin", asinh="arcsinh", atan="arctan",
    atan2="arctan2", atanh="arctanh", div="divide", eq="equal", max="maximum", min="minimum",
    mul="multiply", ne="not_equal", neg="negative", pow="float_power", select="where",
    shift_left="left_shift", shift_right_logical="right_shift",
    shift_right_arithmetic="right_shift", sub="subtract",
    **{n: n for n in "add bitwise_and bitwise_not bitwise_or bitwise_xor cbrt ceil concatenate "
       "cos cosh exp expm1 floor greater greater_equal less less_equal log logical_and "
       "logical_not logical_or logical_xor log1p nextafter round sign sin sinh sqrt tan "
       "tanh".split()})


def check_same_dtypes(name: str, *avals) -> None:
    if len({a.dtype for a in avals}) > 1:
        got = ", ".join(a.dtype.name for a in avals)
        tip = (f" (Tip: jnp.{_JNP_EQUIVALENTS[name]} is a similar function that does automatic "
               f"type promotion on inputs).") if name in _JNP_EQUIVALENTS else ""
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got {got}.{tip}")


def broadcast_shapes(name: str, *shapes) -> tuple:
    """The result shape of an elementwise op: equal ranks with size-1 dims stretching, or
    rank-0 operands (scalars) that broadcast to anything, as JAX's lax allows."""
    nonscalar = [tuple(s) for s in shapes if s]
    if not nonscalar:
        return ()
    ranks = {len(s) for s in nonscalar}
    if len(ranks) > 1:                       # (JAX's messages; scalars are left out of both)
        raise TypeError(f"{name}: arrays must have the same number of dimensions, got {ranks}")
    out = []
    for sizes in zip(*nonscalar):
        distinct = {d for d in sizes if d != 1}
        if len(distinct) > 1:
            raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                            f"{', '.join(map(str, nonscalar))}.")
        out.append(distinct.pop() if distinct else 1)
    return tuple(out)


# ------------------------------------------------------------------ accuracy
class Tolerance:
    """How far from exact a unary function's result may be (`accuracy=` of exp, log, sin,
    tanh, ...): absolute and relative tolerances, or units in the last place. XLA picks an
    implementation that meets it, or fails to compile.

    >>> Tolerance(atol=1e-5, ulps=2).ulps
    2
    """

    def __init__(self, atol: float = 0.0, rtol: float = 0.0, ulps: int = 0):
        if atol < 0.0 or rtol < 0.0 or ulps < 0.0:
            raise ValueError("Tolerances must be non-negative.")
        if atol == 0.0 and rtol == 0.0 and ulps == 0:
            raise ValueError("At least one of atol, rtol, or ulps must be set.")
        self.atol, self.rtol, self.ulps = atol, rtol, ulps


class AccuracyMode(enum.Enum):
    """`accuracy=` as a mode: the most accurate implementation XLA has, or its default."""
    HIGHEST = 1
    DEFAULT = 2
    # (repr `<AccuracyMode.HIGHEST: 1>` and str `AccuracyMode.HIGHEST`, what jaxprs print: Enum's)


def accuracy_attrs(accuracy) -> dict:
    """The `result_accuracy` attribute of a unary op's StableHLO (none for accuracy=None)."""
    if accuracy is None:
        return {}
    if isinstance(accuracy, AccuracyMode):
        return {"result_accuracy": "#stablehlo.result_accuracy<mode = "
                f"#stablehlo.result_accuracy_mode<{accuracy.name}>>"}
    if isinstance(accuracy, Tolerance):
        return {"result_accuracy": f"#stablehlo.result_accuracy<atol = {float(accuracy.atol):e}, "
                f"rtol = {float(accuracy.rtol):e}, ulps = {int(accuracy.ulps)}, "
                "mode = #stablehlo.result_accuracy_mode<TOLERANCE>>"}
    raise TypeError(f"accuracy must be a lax.Tolerance, a lax.AccuracyMode or None, got "
                    f"{accuracy!r}")


# ------------------------------------------------------------------ factories
def numpy_elementwise(fn, result_dtype=None, narrow=None):
    """The NumPy rule of an elementwise primitive computing `fn(*operands, **params)`: its
    result in the dtype lax gives (the first operand's, or `result_dtype` of it), so float32
    stays float32 whatever NumPy promotes to. An `accuracy` param has no NumPy meaning.

    ml_dtypes' narrow integers (int2, int4 and their unsigned kin) are computed as XLA's CPU
    computes int4: `fn` on the operands widened to int8/uint8, the result's low bits kept
    (XLA converts int4 and uint4 operands so for all but clz and the right shifts; int2 and
    uint2 it computes in their own width, which agrees but for those and popcnt, mulhi).
    `narrow(*operands)`, where given, computes at the type's own width (None: widened).

    >>> numpy_elementwise(np.sqrt)(np.float16([4.0]))
    array([2.], dtype=float16)
    """
    def rule(*args, accuracy=None, **params):
        dtype = result_dtype(args[0].dtype) if result_dtype else args[0].dtype
        if args[0].dtype in dtypes.INTN_DTYPES:
            out = None if narrow is None else narrow(*args, **params)
            if out is None:
                out = fn(*map(widen_narrow_int, args), **params)
        else:
            out = fn(*args, **params)
        return out if getattr(out, "dtype", None) == dtype else np.asarray(out).astype(dtype)
    return rule


def widen_narrow_int(x):
    """An ml_dtypes narrow integer array as int8 (uint8 if unsigned), the same values; other
    arrays as they are. (NumPy has no max, min or shift loops for them.)"""
    if getattr(x, "dtype", None) not in dtypes.INTN_DTYPES:
        return x
    return x.astype(np.uint8 if x.dtype in dtypes.UNSIGNED_DTYPES else np.int8)


# the narrow integers JAX refuses in the ops declared without them (abs)
_NARROW_INTS = frozenset(d for d in dtypes.INTN_DTYPES if d.name in ("int2", "uint2", "int4",
                                                                     "uint4"))


def unop(name: str, hlo_op: str | None, accepted, result_dtype=None, numpy=None,
         narrow_ints: bool = True, numpy_narrow=None) -> Primitive:
    """An elementwise unary primitive; `result_dtype(dtype)` if the result type differs;
    `numpy(x, **params)` computes it with NumPy (`numpy_narrow` for narrow ints: see
    `numpy_elementwise`); without `narrow_ints` it refuses int2/int4 and their unsigned kin,
    as JAX's does."""
    prim = Primitive(name)
    if numpy is not None:
        numpy_rules[prim] = numpy_elementwise(numpy, result_dtype, numpy_narrow)
    sharding_rules[prim] = sharding_types.broadcasting_rule

    def abstract(x, **params):
        check_dtype(name, x, accepted)
        if not narrow_ints and x.dtype in _NARROW_INTS:
            raise TypeError(f"{name} does not accept dtype {x.dtype.name}. Support for "
                            f"narrow-width integers is platform-dependent and limited to a few "
                            f"specific operations, e.g. basic arithmetic and type casting.")
        dtype = result_dtype(x.dtype) if result_dtype else x.dtype
        return ShapedArray(x.shape, dtype, x.weak_type)

    abstract_eval_rules[prim] = abstract
    batching_rules[prim] = batch_util.vectorized_batcher(prim)
    if hlo_op is not None:
        lowering_rules[prim] = lambda ctx, x, accuracy=None, **params: ctx.op1(
            hlo_op, [x], accuracy_attrs(accuracy))
    return prim


def naryop_abstract_eval(name: str, accepted, result_dtype=None):
    """Abstract eval of a broadcasting n-ary elementwise op with equal input dtypes."""
    def abstract(*avals, **params):
        for i, a in enumerate(avals):
            check_dtype(name, a, accepted, position=i)
        check_same_dtypes(name, *avals)
        shape = broadcast_shapes(name, *(a.shape for a in avals))
        dtype = result_dtype(avals[0].dtype) if result_dtype else avals[0].dtype
        return ShapedArray(shape, dtype, all(a.weak_type for a in avals))
    return abstract


def binop(name: str, hlo_op: str | None, accepted, result_dtype=None, numpy=None,
          numpy_narrow=None) -> Primitive:
    """A broadcasting binary elementwise primitive lowered to one StableHLO op; `numpy(x, y)`
    computes it with NumPy, whose broadcasting is lax's here (see `numpy_elementwise`)."""
    prim = Primitive(name)
    if numpy is not None:
        numpy_rules[prim] = numpy_elementwise(numpy, result_dtype, numpy_narrow)
    sharding_rules[prim] = sharding_types.broadcasting_rule
    abstract_eval_rules[prim] = naryop_abstract_eval(name, accepted, result_dtype)
    batching_rules[prim] = batch_util.broadcasting_batcher(prim)
    if hlo_op is not None:   # (no accuracy= here: JAX gives it to unary functions alone)
        lowering_rules[prim] = lambda ctx, x, y, **params: ctx.op1(
            hlo_op, hl.broadcast_operands(ctx, [x, y]))
    return prim


def same_shape_dtype(x, **params) -> ShapedArray:
    return x
