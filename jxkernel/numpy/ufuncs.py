"""Elementwise functions: NumPy's names over lax primitives, with JAX's type promotion
(ints become floats for sin, Python scalars are weak, `add` on bools is `or`, ...).

    >>> jnp.sin(jnp.arange(3))                       # int input: float result
    Array([0.       , 0.84147096, 0.9092974 ], dtype=float32)
    >>> jnp.add(jnp.ones(2, jnp.float16), 1.0).dtype # the Python scalar does not widen
    dtype('float16')

Each composite (floor_divide, remainder, hypot, logaddexp, ...) follows JAX's formula step
by step (jax/_src/numpy/ufuncs.py) and is wrapped in `jit` exactly where JAX wraps it:
eagerly it then runs as one XLA computation (so XLA's rewrites, hence the last bits, are
JAX's), and staged it prints as JAX's jaxpr does (`jit[name=floor_divide ...]`, or inlined
for `jit(inline=True)`). One-primitive functions bind directly: that is the hot path.
The array operators (`x + y`, `x // y`, ...) call these functions (see array_methods.py).
"""
from __future__ import annotations

import functools
import inspect
import operator
import sys

import numpy as np

from .. import lax
from ..lax.elementwise import _ACCURACY_PRIMITIVES, _mul_params
from ..core import dtypes as _core
from ..core import trace as _trace
from ..core.interpreter_primitives import typed_scalar
from ..core.traceback_util import filter_raised, register_boundary
from ..core.staging import is_ref
from ..core.trace import Tracer
from ..transforms.ad import jvp
from ..transforms.batching import BatchTrace as _BatchTrace
from ..xla.array import Array
from ..transforms.custom_derivatives import custom_jvp
from ..transforms.jit.args import leaf_aval
from ..transforms.jit.namesakes import (jax_alias, jax_jitted, jit_argument_error, running_function,
                                       runs_jitted)
from ..tree_util import keystr, tree_flatten_with_path
from .creation import array, asarray
from .dtypes import finfo, iscomplexobj
from .util import (_ARRAYS, REF_AVALS, aval_of, broadcast_arrays, check_arraylike,
                   check_text_args, converts_array, ensure_array, ensure_arraylike, full_like,
                   jnp_jit, passing_text,
                   promote_args, promote_args_inexact, promote_args_numeric, promote_dtypes,
                   promote_dtypes_inexact, promote_dtypes_numeric, promote_shapes)
from .util import where as _where

__all__ = [
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder", "mod",
    "fmod", "divmod", "power", "pow", "float_power", "negative", "positive", "abs", "absolute",
    "fabs", "sign", "sqrt", "cbrt", "square", "reciprocal", "exp", "exp2", "expm1", "log",
    "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2",
    "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "asin", "acos", "atan", "atan2",
    "asinh", "acosh", "atanh", "deg2rad", "rad2deg", "degrees", "radians", "hypot", "maximum",
    "minimum", "fmax", "fmin", "floor", "ceil", "trunc", "rint", "round", "around", "isnan",
    "isinf", "isfinite", "isposinf", "isneginf", "isclose", "allclose", "array_equal",
    "array_equiv", "nan_to_num", "sinc", "heaviside", "logaddexp", "logaddexp2", "copysign",
    "nextafter", "spacing", "signbit", "ldexp", "frexp", "modf", "gcd", "lcm", "bitwise_and",
    "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_invert", "invert", "left_shift",
    "right_shift", "bitwise_left_shift", "bitwise_right_shift", "bitwise_count", "logical_and",
    "logical_or", "logical_xor", "logical_not", "equal", "not_equal", "less", "less_equal",
    "greater", "greater_equal", "real", "imag", "conj", "conjugate", "angle", "iscomplex",
    "isreal", "clip", "i0",
]

_INEXACT = _core.INEXACT_DTYPES
_BOOL = _core.bool_
_INT_OF_BITS = {16: np.dtype(np.int16), 32: np.dtype(np.int32), 64: np.dtype(np.int64)}
_PY_TYPE_OF_KIND = {"b": bool, "i": int, "u": int, "f": float, "c": complex, "V": float}


def fused_when_converting(kind: str = "plain"):
    """Decorator for one-primitive jnp functions: eagerly or under vmap, when promotion would
    convert an array, call the function jitted (inline), so the conversion fuses into one
    program as in JAX's jitted ones, where XLA makes convert(p) / broadcast(y) of a bool p
    select(p, 1/y, 0): 0 / 0 of bools is 0, not nan (under vmap: conformance's fuzzer, seed
    95036)."""
    def deco(fn):
        jitted = jnp_jit(fn, inline=True)

        @functools.wraps(fn)
        def call(*args):
            t = type(_trace._ctx.trace)
            if (t is _trace.EvalTrace or t is _BatchTrace) and converts_array(args, kind, t):
                return jitted(*args)
            return fn(*args)
        return call
    return deco


def _const(x, value):
    """`value` shaped like a scalar of x's type, as JAX's lax._const: a Python scalar (weak)
    if x is a weakly typed scalar of the default width, else a NumPy scalar of x's dtype."""
    aval = aval_of(x)
    if aval.weak_type and not aval.shape:
        v = _PY_TYPE_OF_KIND[aval.dtype.kind](value)
        if aval.dtype == _core.python_scalar_dtype(v):
            return v
    return typed_scalar(value, aval.dtype)


def _strong(x, value):
    """`value` as a NumPy scalar of x's dtype, never weak (JAX's _constant_like)."""
    return typed_scalar(value, aval_of(x).dtype)


def _dtype(x) -> np.dtype:
    return aval_of(x).dtype


def _rem(x, y):
    """lax.rem, refusing complex operands as JAX's rem does (XLA cannot compile them)."""
    d = _dtype(x)
    if d in _core.COMPLEX_DTYPES:
        raise TypeError(f"rem does not accept dtype {d.name} at position 0. Accepted dtypes at "
                        f"position 0 are subtypes of integer, floating.")
    return lax.rem(x, y)


def _to_bool(x):
    return x if _dtype(x) == _BOOL else lax.ne(x, _const(x, 0))


def _named(name, doc):
    def deco(fn):
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = doc
        # a code object of its own, named so: tracebacks and Python's arity errors say `sin`,
        # and _wrong_arity finds the function by its frame's code (the ufuncs share one)
        fn.__code__ = fn.__code__.replace(co_name=name, co_qualname=name)
        return fn
    return deco


def _one_argument(x, /):
    pass


def _wrong_arity(args) -> TypeError:
    """The error of the one-argument function JAX jits that calls this, called with `args`:
    JAX's jit reads the arguments before the call fails, so a leaf no jit takes gets the jit's
    error (named by its path, args[i]: no signature names it), else Python's own words. The
    function is the caller's frame's (an alias such as `acos` runs a copy of `arccos`'s code
    named so: jax_alias), so each name's error names it, as JAX's do.

    >>> jnp.acos(1, 2)
    Traceback (most recent call last):
    TypeError: acos() takes 1 positional argument but 2 were given
    """
    frame = sys._getframe(1)
    fn = running_function(frame.f_code.co_name, frame, 1)[0]
    for i, arg in enumerate(args):
        for path, leaf in tree_flatten_with_path(arg)[0]:
            try:
                leaf_aval(leaf, lambda: f"args[{i}]{keystr(path)}", fn)
            except TypeError as e:
                if getattr(e, "value", None) is leaf:     # (jit_args.not_an_array's)
                    return e
            except Exception:   # (a big int's OverflowError: not the jit's first check)
                pass
    return TypeError(f"{fn.__name__}() takes 1 positional argument but {len(args)} were given")


_ONE_ARGUMENT = inspect.signature(_one_argument)


# ---------------------------------------------------------------- unary, float results
def _unary_inexact(name, prim, doc):
    # (the primitives with lax's accuracy= carry it, None, in every equation, as JAX's)
    params = {"accuracy": None} if prim in _ACCURACY_PRIMITIVES else {}

    def promoted(x):
        return prim.bind(*promote_args_inexact(name, x), **params)
    promoted.__name__ = name
    fused = jnp_jit(promoted, inline=True)       # convert + op as one XLA call, eagerly

    @_named(name, doc)
    def fn(x, /, *more):
        # (`more`: a call with more arguments fails as JAX's jit fails it, `_wrong_arity`;
        # an empty tuple costs the common call nothing measurable)
        try:         # a traceback boundary, as JAX's jitted jnp.sin is (jnp.sin('a')): no frame
            if more:                  # of its own, nothing paid where nothing is raised
                raise _wrong_arity((x, *more))
            if isinstance(x, _ARRAYS):
                aval = x.aval
                if aval.dtype in _INEXACT and type(aval) not in REF_AVALS:   # hot path
                    return prim.bind(x, **params)
                if type(x) is Array and x._sharding is None and \
                        type(_trace._ctx.trace) is _trace.EvalTrace:
                    return fused(x)
            elif is_ref(x):
                return fused(x)   # (as JAX's jitted jnp.sin: the jit traces a Ref as a tracer)
            return promoted(x)
        except Exception as e:
            filter_raised(e)
            raise
    register_boundary(fn.__code__)
    fn.__signature__ = _ONE_ARGUMENT        # (x, /), as JAX's, for jit and help()
    return jax_jitted(fn, inline=True)      # JAX's jnp.sin is a jit object (`export(jnp.sin)`)


exp = _unary_inexact("exp", lax.exp_p, "e**x elementwise (ints promote to float).")
exp2 = _unary_inexact("exp2", lax.exp2_p, "2**x elementwise.")
expm1 = _unary_inexact("expm1", lax.expm1_p, "exp(x) - 1, accurate near 0.")
log = _unary_inexact("log", lax.log_p, "Natural logarithm.\n\n    >>> jnp.log(1)\n    "
                     "Array(0., dtype=float32, weak_type=True)")
log1p = _unary_inexact("log1p", lax.log1p_p, "log(1 + x), accurate near 0.")
sin = _unary_inexact("sin", lax.sin_p, "Sine.\n\n    >>> jnp.sin(0.0)\n    "
                     "Array(0., dtype=float32, weak_type=True)")
cos = _unary_inexact("cos", lax.cos_p, "Cosine.")
tan = _unary_inexact("tan", lax.tan_p, "Tangent.")
arcsin = _unary_inexact("arcsin", lax.asin_p, "Inverse sine.")
arccos = _unary_inexact("arccos", lax.acos_p, "Inverse cosine.")
arctan = _unary_inexact("arctan", lax.atan_p, "Inverse tangent.")
sinh = _unary_inexact("sinh", lax.sinh_p, "Hyperbolic sine.")
cosh = _unary_inexact("cosh", lax.cosh_p, "Hyperbolic cosine.")
tanh = _unary_inexact("tanh", lax.tanh_p, "Hyperbolic tangent.")
arcsinh = _unary_inexact("arcsinh", lax.asinh_p, "Inverse hyperbolic sine.")
arctanh = _unary_inexact("arctanh", lax.atanh_p, "Inverse hyperbolic tangent.")
sqrt = _unary_inexact("sqrt", lax.sqrt_p, "Square root.\n\n    >>> jnp.sqrt(4)\n    "
                      "Array(2., dtype=float32, weak_type=True)")
cbrt = _unary_inexact("cbrt", lax.cbrt_p, "Cube root (real inputs).")
# the Array API's names: jit objects of their own in JAX, named so (`export(jnp.acos)`)
asin, acos, atan = (jax_alias(f, n, inline=True) for f, n in
                    ((arcsin, "asin"), (arccos, "acos"), (arctan, "atan")))
asinh, atanh = jax_alias(arcsinh, "asinh", inline=True), jax_alias(arctanh, "atanh", inline=True)


@jax_jitted
@jnp_jit
def arccosh(x, /):
    """Inverse hyperbolic cosine (complex results on the principal branch, as NumPy)."""
    out = lax.acosh(*promote_args_inexact("arccosh", x))
    if _core.is_complex(out.dtype):
        real = lax.real(out)         # (once: its JVP is one `real` equation, as JAX's)
        out = _where(lax.lt(real, _const(real, 0)), lax.neg(out), out)
    return out


# JAX's acosh, atan2 and around are jits of their own calling these (arccosh is no inline
# jit in JAX): a wrong call's error names them (a copy of the wrapper, as jax_alias makes,
# would fail inside the original, under its name)
@jax_jitted
@jnp_jit(inline=True)
def acosh(x, /):
    """Alias of `arccosh`."""
    return arccosh(x)


@jax_jitted
@jnp_jit(inline=True)
def log2(x, /):
    """Base-2 logarithm: log(x) / log(2), as JAX computes it."""
    x, = promote_args_inexact("log2", x)
    if _core.is_complex(x.dtype):
        r = lax.log(x)
        re, im = lax.real(r), lax.imag(r)
        ln2 = lax.log(_strong(re, 2))
        return lax.complex(lax.div(re, ln2), lax.div(im, ln2))
    return lax.div(lax.log(x), lax.log(_strong(x, 2)))


@jax_jitted
@jnp_jit(inline=True)
def log10(x, /):
    """Base-10 logarithm: log(x) * (1 / log(10)), as JAX computes it."""
    x, = promote_args_inexact("log10", x)
    inv_ln10 = np.array(0.4342944819032518, dtype=finfo(x.dtype).dtype)[()]
    if _core.is_complex(x.dtype):
        r = lax.log(x)
        return lax.complex(lax.mul(lax.real(r), inv_ln10), lax.mul(lax.imag(r), inv_ln10))
    return lax.mul(lax.log(x), inv_ln10)


@jax_jitted(inline=True)
def deg2rad(x, /):
    """Degrees to radians."""
    x, = promote_args_inexact("deg2rad", x)
    return lax.mul(x, _const(x, np.pi / 180))


@jax_jitted(inline=True)
def rad2deg(x, /):
    """Radians to degrees."""
    x, = promote_args_inexact("rad2deg", x)
    return lax.mul(x, _const(x, 180 / np.pi))


# (plain functions calling the jitted ones, as JAX's: only those are jit objects there)
def degrees(x, /):
    """rad2deg."""
    return rad2deg(x)


def radians(x, /):
    """deg2rad."""
    return deg2rad(x)


@jax_jitted(inline=True)
def reciprocal(x, /):
    """1 / x (ints promote to float)."""
    x, = promote_dtypes_inexact(ensure_arraylike("reciprocal", x))
    return lax.integer_pow(x, -1)


@jax_jitted
@jnp_jit
def sinc(x, /):
    """sin(pi x) / (pi x), with sinc(0) = 1 (and its derivatives at 0 exact, as in JAX)."""
    x, = promote_dtypes_inexact(ensure_arraylike("sinc", x))
    eq_zero = lax.eq(x, _const(x, 0))
    pi_x = lax.mul(_const(x, np.pi), x)
    safe_pi_x = _where(eq_zero, _const(x, 1), pi_x)
    return _where(eq_zero, _sinc_maclaurin(0, pi_x), lax.div(lax.sin(safe_pi_x), safe_pi_x))


def _sinc_maclaurin(k, x):
    """The k-th derivative of sin(x)/x at 0, shaped like x; its JVP is the (k+1)-th."""
    if k % 2:
        return lax.mul(x, _const(x, 0))
    return lax.add(lax.mul(x, _const(x, 0)), _const(x, (-1) ** (k // 2) / (k + 1)))


def _sinc_maclaurin_jvp(k, primals, tangents):
    (x,), (t,) = primals, tangents
    return _sinc_maclaurin(k, x), lax.mul(_sinc_maclaurin(k + 1, x), t)


_sinc_maclaurin = custom_jvp(_sinc_maclaurin, nondiff_argnums=(0,))
_sinc_maclaurin.defjvp(_sinc_maclaurin_jvp)


@jax_jitted
@jnp_jit
def i0(x):
    """The modified Bessel function of the first kind, order 0: exp(|x|) * i0e(|x|).

    >>> jnp.i0(jnp.array([0., 1.]))
    Array([1.0000001, 1.266066 ], dtype=float32)
    """
    x, = promote_args_inexact("i0", x)
    if not _core.is_float(x.dtype):
        raise ValueError(f"Unsupported input type to jax.numpy.i0: {x.dtype}")
    return _i0(x)


@custom_jvp
def _i0(x):
    abs_x = lax.abs(x)
    return lax.mul(lax.exp(abs_x), lax.bessel_i0e(abs_x))


@_i0.defjvp
def _i0_jvp(primals, tangents):
    # JAX's: the derivative is 0 at x = 0 (exp(|x|) alone would give 1 there)
    out, t_out = jvp(_i0.fun, primals, tangents)
    return out, _where(lax.eq(primals[0], _const(primals[0], 0)), _const(t_out, 0), t_out)


# ---------------------------------------------------------------- unary, same type
def negative(x, /):
    """-x."""
    if isinstance(x, _ARRAYS):
        return lax.neg_p.bind(x)
    return lax.neg(*promote_args("negative", x))


@jax_jitted(inline=True)
def positive(x, /):
    """+x (a copy-free identity)."""
    return ensure_array(*promote_args("positive", x))


@jax_jitted(inline=True)
def sign(x, /):
    """-1, 0 or 1 by the sign of x (x / |x| for complex)."""
    return lax.sign(*promote_args("sign", x))


@jax_jitted(inline=True)
def absolute(x, /):
    """|x| (complex inputs give the real magnitude; bools and unsigned pass through).

    >>> jnp.abs(jnp.array([-1, 2]))
    Array([1, 2], dtype=int32)
    """
    x = ensure_arraylike("absolute", x)
    d = x.aval.dtype
    return x if d == _BOOL or _core.is_unsigned(d) else lax.abs_p.bind(x)


abs = jax_alias(absolute, "abs", inline=True)


@jax_jitted(inline=True)
def fabs(x, /):
    """|x| as a float (complex inputs are an error, as in NumPy)."""
    x = ensure_arraylike("fabs", x)
    if _core.is_complex(x.dtype):
        raise TypeError("ufunc 'fabs' does not support complex dtypes")
    return lax.abs(*promote_args_inexact("fabs", x))


@jax_jitted(inline=True)
def square(x, /):
    """x * x (bools promote to int)."""
    x, = promote_dtypes_numeric(ensure_arraylike("square", x))
    return lax.square(x)


@jax_jitted(inline=True)
def floor(x, /):
    """Round down (ints and bools pass through)."""
    x = ensure_arraylike("floor", x)
    if not _core.is_inexact(x.dtype):
        return x
    return lax.floor(*promote_args_inexact("floor", x))


@jax_jitted(inline=True)
def ceil(x, /):
    """Round up (ints and bools pass through)."""
    x = ensure_arraylike("ceil", x)
    if not _core.is_inexact(x.dtype):
        return x
    return lax.ceil(*promote_args_inexact("ceil", x))


@jax_jitted
@jnp_jit
def trunc(x, /):
    """Round towards zero."""
    x = ensure_arraylike("trunc", x)
    if not _core.is_inexact(x.dtype):
        return x
    return _where(lax.lt(x, _const(x, 0)), ceil(x), floor(x))


@jax_jitted
@jnp_jit
def rint(x, /):
    """Round to the nearest integer, ties to even (ints become the default float)."""
    x = ensure_arraylike("rint", x)
    if not _core.is_inexact(x.dtype):
        return lax.convert_element_type(x, _core.default_float_dtype())
    if _core.is_complex(x.dtype):
        return lax.complex(rint(lax.real(x)), rint(lax.imag(x)))
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


@jax_jitted
@jnp_jit(static_argnames="decimals")
def round(a, decimals: int = 0, out=None):
    """Round to `decimals` decimal places, ties to even (as np.round).

    >>> jnp.round(jnp.array([0.5, 1.5, 2.5]))
    Array([0., 2., 2.], dtype=float32)
    """
    a = ensure_arraylike("round", a)
    decimals = operator.index(decimals)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.round is not supported.")
    dtype = a.dtype
    if _core.is_int(dtype):
        if decimals < 0:
            raise NotImplementedError("integer np.round not implemented for decimals < 0")
        return a

    def round_float(x):
        if decimals == 0:
            return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)
        x = lax.convert_element_type(x, np.float32) if dtype == np.float16 else x
        factor = _const(x, 10 ** decimals)
        r = lax.div(lax.round(lax.mul(x, factor), lax.RoundingMethod.TO_NEAREST_EVEN), factor)
        return lax.convert_element_type(r, dtype) if dtype == np.float16 else r

    if decimals > np.log10(finfo(dtype).max):
        return a
    if _core.is_complex(dtype):
        return lax.complex(round_float(lax.real(a)), round_float(lax.imag(a)))
    return round_float(a)


@jax_jitted
@jnp_jit(static_argnames="decimals")
def around(a, decimals: int = 0, out=None):
    """Alias of `round`: a jit of its own around round's, as JAX's (its jaxpr nests them)."""
    return round(a, decimals, out)


@jax_jitted(inline=True)
def invert(x, /):
    """Bitwise not (logical not for bools)."""
    return lax.bitwise_not(*promote_args("invert", x))


bitwise_not = jax_alias(invert, "bitwise_not", inline=True)
bitwise_invert = jax_alias(invert, "bitwise_invert", inline=True)


@jax_jitted(inline=True)
def logical_not(x, /):
    return lax.bitwise_not(*map(_to_bool, promote_args("logical_not", x)))


@jax_jitted
@jnp_jit
def bitwise_count(x, /):
    """Number of 1 bits in |x|, as uint8."""
    x, = promote_args_numeric("bitwise_count", x)
    return lax.convert_element_type(lax.population_count(absolute(x)), np.uint8)


# ---------------------------------------------------------------- complex parts
@jax_jitted(inline=True)
def real(val, /):
    """The real part (the input itself for real dtypes)."""
    val = ensure_arraylike("real", val)
    return lax.real(val) if _core.is_complex(val.dtype) else val


@jax_jitted(inline=True)
def imag(val, /):
    """The imaginary part (zeros for real dtypes)."""
    val = ensure_arraylike("imag", val)
    return lax.imag(val) if _core.is_complex(val.dtype) else full_like(val, 0)


@jax_jitted(inline=True)
def conjugate(x, /):
    """The complex conjugate (the input itself for real dtypes)."""
    x = ensure_arraylike("conjugate", x)
    return lax.conj(x) if _core.is_complex(x.dtype) else x


def conj(x, /):
    """conjugate (a plain function, as JAX's)."""
    return conjugate(x)


@jax_jitted
@jnp_jit(static_argnames="deg")
def angle(z, deg: bool = False):
    """The counterclockwise angle of complex z from the positive real axis."""
    z = ensure_arraylike("angle", z)
    re, im = real(z), imag(z)
    dtype = re.dtype
    if not _core.is_inexact(dtype) or (_core.is_float(z.dtype) and z.ndim == 0):
        dtype = _core.default_float_dtype()
        re = lax.convert_element_type(re, dtype)
        im = lax.convert_element_type(im, dtype)
    out = lax.atan2(im, re)
    return degrees(out) if deg else out


@jax_jitted
@jnp_jit
def iscomplex(x):
    i = imag(x)
    return lax.ne(i, _const(i, 0))


@jax_jitted
@jnp_jit
def isreal(x):
    i = imag(x)
    return lax.eq(i, _const(i, 0))


# ---------------------------------------------------------------- predicates
def _bool_like(x, value):
    return full_like(x, value, dtype=_BOOL)


@jax_jitted(inline=True)
def isfinite(x, /):
    x = ensure_arraylike("isfinite", x)
    if _core.is_float(x.dtype):
        return lax.is_finite(x)
    if _core.is_complex(x.dtype):
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    return _bool_like(x, True)


@jax_jitted
@jnp_jit
def isinf(x, /):
    x = ensure_arraylike("isinf", x)
    if _core.is_float(x.dtype):
        return lax.eq(lax.abs(x), _strong(x, np.inf))
    if _core.is_complex(x.dtype):
        re, im = lax.real(x), lax.imag(x)
        return lax.bitwise_or(lax.eq(lax.abs(re), _strong(re, np.inf)),
                              lax.eq(lax.abs(im), _strong(im, np.inf)))
    return _bool_like(x, False)


def _isposneginf(infinity, x, out):
    if out is not None:
        raise NotImplementedError("The 'out' argument to isneginf/isposinf is not supported.")
    if _core.is_float(x.dtype):
        return lax.eq(x, _strong(x, infinity))
    if _core.is_complex(x.dtype):
        raise ValueError("isposinf/isneginf are not well defined for complex types")
    return _bool_like(x, False)


def isposinf(x, /, out=None):
    return _isposneginf(np.inf, ensure_arraylike("isposinf", x), out)


def isneginf(x, /, out=None):
    return _isposneginf(-np.inf, ensure_arraylike("isneginf", x), out)


@jax_jitted(inline=True)
def isnan(x, /):
    """True where x is NaN (x != x)."""
    x = ensure_arraylike("isnan", x)
    if _typed_keys(x):                 # keys are never NaN (JAX's jnp.array_equal on keys)
        return lax.full(x.shape, False, _BOOL)
    return lax.ne(x, x)


@jax_jitted
@jnp_jit
def signbit(x, /):
    """True where the sign bit is set (also for -0.0 and -nan)."""
    x, = promote_args("signbit", x)
    dtype = x.dtype
    if _core.is_int(dtype):
        return lax.lt(x, _const(x, 0))
    if dtype == _BOOL:
        return _bool_like(x, False)
    if not _core.is_float(dtype):
        raise ValueError(f"jax.numpy.signbit is not well defined for {dtype}")
    info = finfo(dtype)
    if info.bits not in _INT_OF_BITS:
        raise NotImplementedError("jax.numpy.signbit only supports 16, 32, and 64-bit types.")
    int_type = _INT_OF_BITS[info.bits]
    bits = lax.bitcast_convert_type(x, int_type)
    shift = typed_scalar(info.nexp + info.nmant, int_type)   # (int64 kept under ALLOW)
    return lax.convert_element_type(lax.shift_right_arithmetic(bits, shift), np.bool_)


# ---------------------------------------------------------------- binary arithmetic
def add(x, y, /):
    """x + y (logical or for bools).

    >>> jnp.add(jnp.arange(3), 1.5)        # a weak float beats ints: the result stays weak
    Array([1.5, 2.5, 3.5], dtype=float32, weak_type=True)
    """
    x, y = promote_args("add", x, y)
    return lax.add_p.bind(x, y) if x.aval.dtype != _BOOL else lax.or_p.bind(x, y)


def subtract(x, y, /):
    """x - y."""
    return lax.sub_p.bind(*promote_args("subtract", x, y))


def multiply(x, y, /):
    """x * y (logical and for bools)."""
    x, y = promote_args("multiply", x, y)
    return (lax.mul_p.bind(x, y, **_mul_params()) if x.aval.dtype != _BOOL
            else lax.and_p.bind(x, y))


@jax_jitted(inline=True)
@fused_when_converting("inexact")
def true_divide(x1, x2, /):
    """x1 / x2, always a float division (ints promote to float).

    >>> jnp.divide(jnp.arange(3), 2)
    Array([0. , 0.5, 1. ], dtype=float32)
    """
    return lax.div_p.bind(*promote_args_inexact("true_divide", x1, x2))


def divide(x1, x2, /):
    """true_divide (a plain function, as JAX's; `x / y` calls true_divide)."""
    return true_divide(x1, x2)


@jax_jitted
@jnp_jit
def floor_divide(x1, x2, /):
    """x1 // x2, rounding towards -inf (NumPy's semantics, also for floats)."""
    x1, x2 = promote_args_numeric("floor_divide", x1, x2)
    dtype = x1.dtype
    if _core.is_unsigned(dtype):
        return lax.div(x1, x2)
    if _core.is_int(dtype):
        quotient = lax.div(x1, x2)
        select = lax.bitwise_and(lax.ne(lax.sign(x1), lax.sign(x2)),
                                 lax.ne(_rem(x1, x2), _const(x1, 0)))
        # quotient - 1 as JAX writes it: jnp's subtract, so a weak quotient stays weak
        return _where(select, subtract(quotient, 1), quotient)
    if _core.is_complex(dtype):
        raise TypeError("floor_divide does not support complex-valued inputs")
    return _float_divmod(x1, x2)[0]


@jax_jitted
@jnp_jit
def divmod(x1, x2, /):
    """(x1 // x2, x1 % x2)."""
    x1, x2 = promote_args_numeric("divmod", x1, x2)
    if _core.is_int(x1.dtype):
        return floor_divide(x1, x2), remainder(x1, x2)
    return _float_divmod(x1, x2)


def _float_divmod(x1, x2):
    mod = _rem(x1, x2)
    x1_corrected = _where(lax.eq(x2, _const(x2, 0)), x1, lax.sub(x1, mod))
    div = lax.div(x1_corrected, x2)
    ind = lax.bitwise_and(lax.ne(mod, _const(mod, 0)), lax.ne(lax.sign(x2), lax.sign(mod)))
    mod = lax.select(ind, lax.add(mod, x2), mod)
    div = lax.select(ind, lax.sub(div, _const(div, 1.0)), div)
    return lax.round(div), mod


@jax_jitted
@jnp_jit
def remainder(x1, x2, /):
    """x1 % x2 with the sign of x2 (NumPy's semantics); x % 0 is 0 for ints."""
    x1, x2 = promote_args_numeric("remainder", x1, x2)
    zero = _strong(x1, 0)
    if _core.is_int(x2.dtype):
        x2 = _where(lax.eq(x2, _const(x2, 0)), full_like(x2, 1), x2)
    trunc_mod = _rem(x1, x2)
    trunc_mod_not_zero = lax.ne(trunc_mod, zero)
    do_plus = lax.bitwise_and(lax.ne(lax.lt(trunc_mod, zero), lax.lt(x2, zero)),
                              trunc_mod_not_zero)
    return lax.select(do_plus, lax.add(trunc_mod, x2), trunc_mod)


def mod(x1, x2, /):
    """remainder (a plain function, as JAX's)."""
    return remainder(x1, x2)


@jax_jitted
@jnp_jit
def fmod(x1, x2, /):
    """C's fmod: the remainder with the sign of x1; x % 0 is 0 for ints."""
    check_arraylike("fmod", x1, x2)
    if _core.is_int(promote_dtypes(x1, x2)[0].dtype):
        x2 = _where(lax.eq(x2, _const(x2, 0)), full_like(x2, 1), x2)
    return _rem(*promote_args_numeric("fmod", x1, x2))


def power(x1, x2, /):
    """x1 ** x2. A concrete integer exponent uses lax.integer_pow (repeated multiplication);
    integer bases with array exponents use exponentiation by squaring, as JAX does.

    >>> jnp.power(2, 3), jnp.power(2.0, 0.5)
    (Array(8, dtype=int32, weak_type=True), Array(1.4142135, dtype=float32, weak_type=True))
    """
    check_text_args(x1, x2)            # (JAX's float0 check asks a string's dtype first)
    # a dtype's name passes both checks, as JAX's: its promotion or its jit _power refuses it
    check_arraylike("power", *passing_text((x1, x2)))
    key = _typed_keys(x1, x2)
    if key:     # JAX's error: it asks NumPy about the dtype, which knows no key type
        np.dtype(key)
    if hasattr(x1, "__jax_array__"):
        x1 = x1.__jax_array__()
    if hasattr(x2, "__jax_array__"):
        x2 = x2.__jax_array__()
    concrete = x2.to_concrete_value() if isinstance(x2, Tracer) else x2
    if concrete is not None:
        try:
            n = operator.index(concrete)
        except TypeError:
            pass
        else:
            x1, = promote_dtypes_numeric(x1)
            # (an int to a negative power: integer_pow's own abstract evaluation refuses it)
            return lax.integer_pow(x1, n)
    return _power(x1, x2)


def pow(x1, x2, /):
    """Alias of `power` (a function of its own, as JAX's: a wrong call's error says pow)."""
    return power(x1, x2)


@runs_jitted
def _power(x1, x2):
    if isinstance(x1, (str, bytes)) or isinstance(x2, (str, bytes)):
        raise jit_argument_error("_power")      # (JAX's _power is a jit: its error for text)
    x1, x2 = promote_shapes("power", x1, x2)
    x1_, x2_ = promote_args_numeric("power", x1, x2)
    if _core.is_int(x1_.dtype) or x1_.dtype == _BOOL:
        return _pow_int_int(x1_, x2_)
    if _core.is_inexact(x1.dtype) and _core.is_int(x2.dtype):
        # pow(float, int), as JAX binds it: its derivative is 0 where the exponent is 0
        return lax.pow(x1, x2)
    return lax.pow(x1_, x2_)


def _pow_int_int(x1, x2):
    """Exponentiation by squaring over the 6 low bits of the exponent, as JAX."""
    zero, one = _strong(x2, 0), _strong(x2, 1)
    acc = _where(lax.bitwise_and(lax.eq(x1, zero), lax.ne(x2, zero)), zero, one)
    for _ in range(6):
        acc = _where(lax.ne(lax.bitwise_and(x2, one), zero), lax.mul(acc, x1), acc)
        x1 = lax.mul(x1, x1)
        x2 = lax.shift_right_logical(x2, one)
    return acc


@jax_jitted(inline=True)
@fused_when_converting("inexact")
def float_power(x, y, /):
    """x ** y computed in floating point."""
    return lax.pow(*promote_args_inexact("float_power", x, y))


@jax_jitted(inline=True)
@fused_when_converting("inexact")
def arctan2(x1, x2, /):
    """The angle of the point (x2, x1), in (-pi, pi]."""
    return lax.atan2(*promote_args_inexact("arctan2", x1, x2))


@jax_jitted
@jnp_jit(inline=True)
def atan2(x1, x2, /):
    """Alias of `arctan2` (see acosh)."""
    return arctan2(x1, x2)


def maximum(x, y, /):
    """Elementwise maximum (NaN if either is NaN)."""
    return lax.max_p.bind(*promote_args("maximum", x, y))


def minimum(x, y, /):
    """Elementwise minimum (NaN if either is NaN)."""
    return lax.min_p.bind(*promote_args("minimum", x, y))


@jax_jitted
@jnp_jit
def fmax(x1, x2):
    """Elementwise maximum ignoring NaNs."""
    mask = logical_or(greater(x1, x2), isnan(x2))
    return _where(mask, x1, x2)


@jax_jitted
@jnp_jit
def fmin(x1, x2):
    """Elementwise minimum ignoring NaNs."""
    mask = logical_or(less(x1, x2), isnan(x2))
    return _where(mask, x1, x2)


@jax_jitted(inline=True)
@fused_when_converting("inexact")
def nextafter(x, y, /):
    """The next representable float after x towards y."""
    return lax.nextafter(*promote_args_inexact("nextafter", x, y))


@jax_jitted(inline=True)
def spacing(x, /):
    """Distance from x to the next float away from zero."""
    arr, = promote_args_inexact("spacing", x)
    if _core.is_complex(arr.dtype):
        raise ValueError("jnp.spacing is not defined for complex inputs.")
    inf = _const(arr, np.inf)
    if arr.dtype == np.float16:
        return lax.sub(lax.nextafter(arr, full_like(arr, inf)), arr)
    result = lax.sub(lax.nextafter(arr, copysign(inf, arr)), arr)
    tiny = finfo(arr.dtype).smallest_subnormal
    return _where(lax.eq(result, _const(result, 0)), copysign(tiny, arr), result)


@jax_jitted
@jnp_jit
def copysign(x1, x2, /):
    """|x1| with the sign of x2."""
    x1, x2 = promote_args_inexact("copysign", x1, x2)
    if _core.is_complex(x1.dtype):
        raise TypeError("copysign does not support complex-valued inputs")
    return _where(signbit(x2), lax.neg(lax.abs(x1)), lax.abs(x1))


@jax_jitted
@jnp_jit
def heaviside(x1, x2, /):
    """0 where x1 < 0, 1 where x1 > 0, x2 where x1 == 0."""
    x1, x2 = promote_dtypes_inexact(*ensure_arraylike("heaviside", x1, x2))
    zero = _const(x1, 0)
    return _where(lax.lt(x1, zero), zero,
                  _where(lax.gt(x1, zero), _const(x1, 1), _where(lax.ne(x1, x1), x1, x2)))


@jax_jitted
@jnp_jit
def hypot(x1, x2, /):
    """sqrt(x1**2 + x2**2) without overflow, as JAX computes it."""
    x1, x2 = promote_args_inexact("hypot", x1, x2)
    if _core.is_complex(x1.dtype):
        raise ValueError("jnp.hypot is not well defined for complex-valued inputs. Please "
                         "convert to real values first, such as by using abs(x)")
    x1, x2 = lax.abs(x1), lax.abs(x2)
    idx_inf = lax.bitwise_or(isposinf(x1), isposinf(x2))
    x1, x2 = maximum(x1, x2), minimum(x1, x2)
    # (JAX's equations: `x1 == 0` twice, the outer where's first, and a broadcast ones array)
    is_zero = lax.eq(x1, _const(x1, 0))
    safe = _where(lax.eq(x1, _const(x1, 0)), lax.full_like(x1, 1), x1)
    x = _where(is_zero, x1,
               lax.mul(x1, lax.sqrt(lax.add(_const(x1, 1), lax.square(lax.div(x2, safe))))))
    return _where(idx_inf, _const(x, np.inf), x)


def _wrap_between(x, a):
    a, two_a, zero = _const(x, a), _const(x, 2 * a), _const(x, 0)
    rem = _rem(lax.add(x, a), two_a)
    rem = lax.select(lax.lt(rem, zero), lax.add(rem, two_a), rem)
    return lax.sub(rem, a)


def _replace_inf(x):
    re = lax.real(x) if _core.is_complex(_dtype(x)) else x
    return lax.select(lax.eq(re, _const(re, np.inf)), full_like(x, 0), x)


@custom_jvp
def _logaddexp(x1, x2):
    """lax_other.logaddexp: max + log1p(exp(-|x1 - x2|)), with JAX's JVP rule."""
    amax = lax.max(x1, x2)
    if _core.is_float(x1.dtype):
        delta = lax.sub(x1, x2)
        return lax.select(lax.ne(delta, delta), lax.add(x1, x2),
                          lax.add(amax, lax.log1p(lax.exp(lax.neg(lax.abs(delta))))))
    if not _core.is_complex(x1.dtype):
        raise ValueError(f"logaddexp requires floating-point or complex inputs; got {x1.dtype}")
    delta = lax.sub(lax.add(x1, x2), lax.mul(amax, _const(amax, 2)))
    out = lax.add(amax, lax.log1p(lax.exp(delta)))
    return lax.complex(lax.real(out), _wrap_between(lax.imag(out), np.pi))


@_logaddexp.defjvp
def _logaddexp_jvp(primals, tangents):
    (x1, x2), (t1, t2) = primals, tangents
    out = _logaddexp(x1, x2)
    return out, lax.add(lax.mul(t1, lax.exp(lax.sub(_replace_inf(x1), _replace_inf(out)))),
                        lax.mul(t2, lax.exp(lax.sub(_replace_inf(x2), _replace_inf(out)))))


@custom_jvp
def _logaddexp2(x1, x2):
    amax = lax.max(x1, x2)
    invln2 = _const(amax, 1 / np.log(2))
    if _core.is_float(x1.dtype):
        delta = lax.sub(x1, x2)
        return lax.select(lax.ne(delta, delta), lax.add(x1, x2),
                          lax.add(amax, lax.mul(invln2, lax.log1p(
                              lax.exp2(lax.neg(lax.abs(delta)))))))
    if not _core.is_complex(x1.dtype):
        raise ValueError(f"logaddexp2 requires floating-point or complex inputs; got {x1.dtype}")
    delta = lax.sub(lax.add(x1, x2), lax.mul(amax, _const(amax, 2)))
    out = lax.add(amax, lax.mul(invln2, lax.log1p(lax.exp2(delta))))
    return lax.complex(lax.real(out), _wrap_between(lax.imag(out), np.pi / np.log(2)))


@_logaddexp2.defjvp
def _logaddexp2_jvp(primals, tangents):
    (x1, x2), (t1, t2) = primals, tangents
    out = _logaddexp2(x1, x2)
    return out, lax.add(lax.mul(t1, lax.exp2(lax.sub(_replace_inf(x1), _replace_inf(out)))),
                        lax.mul(t2, lax.exp2(lax.sub(_replace_inf(x2), _replace_inf(out)))))


# JAX's lax_other.logaddexp(2) are these custom_jvp functions: a jaxpr names them so
_logaddexp.fun.__name__ = "logaddexp"
_logaddexp2.fun.__name__ = "logaddexp2"


@jnp_jit(inline=True)
def logaddexp(x1, x2, /):
    """log(exp(x1) + exp(x2)) without overflow: max + log1p(exp(-|x1 - x2|)).

    >>> jnp.logaddexp(1000.0, 1000.0)
    Array(1000.6932, dtype=float32, weak_type=True)
    """
    return _logaddexp(*promote_args_inexact("logaddexp", x1, x2))


@jnp_jit(inline=True)
def logaddexp2(x1, x2, /):
    """log2(2**x1 + 2**x2) without overflow."""
    return _logaddexp2(*promote_args_inexact("logaddexp2", x1, x2))


# ---------------------------------------------------------------- float decomposition
def _normalize_float(x):
    info = finfo(_dtype(x))
    int_type = _INT_OF_BITS[info.bits]
    cond = lax.lt(lax.abs(x), _const(x, info.tiny))
    x1 = _where(cond, lax.mul(x, _const(x, 1 << info.nmant)), x)
    x2 = _where(cond, int_type.type(-info.nmant), int_type.type(0))
    return lax.bitcast_convert_type(x1, int_type), x2


@jax_jitted
@jnp_jit
def frexp(x, /):
    """(mantissa, exponent) with x == mantissa * 2**exponent and 0.5 <= |mantissa| < 1."""
    x, = promote_dtypes_inexact(ensure_arraylike("frexp", x))
    if _core.is_complex(x.dtype):
        raise TypeError("frexp does not support complex-valued inputs")
    return _frexp(x)


@custom_jvp
def _frexp(x):
    dtype = x.dtype
    info = finfo(dtype)
    mask = (1 << info.nexp) - 1
    bias = 1 - info.minexp
    x1, x2 = _normalize_float(x)
    it = x1.dtype.type
    x2 = lax.add(x2, lax.add(lax.sub(lax.bitwise_and(
        lax.shift_right_arithmetic(x1, it(info.nmant)), it(mask)), it(bias)), it(1)))
    x1 = lax.bitwise_and(x1, it(~(mask << info.nmant)))
    x1 = lax.bitwise_or(x1, it((bias - 1) << info.nmant))
    x1 = lax.bitcast_convert_type(x1, dtype)
    cond = lax.bitwise_or(lax.bitwise_or(isinf(x), isnan(x)), lax.eq(x, _const(x, 0)))
    x2 = _where(cond, it(0), x2)
    return _where(cond, x, x1), lax.convert_element_type(x2, np.int32)


@_frexp.defjvp
def _frexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    m, e = frexp(x)
    mdot = lax.mul(t, lax.exp2(lax.neg(lax.convert_element_type(e, t.dtype))))
    # JAX gives e a float0 tangent; our custom_jvp checker rejects float0, so int zeros.
    return (m, e), (mdot, full_like(e, 0))


@jax_jitted
@jnp_jit
def ldexp(x1, x2, /):
    """x1 * 2**x2 (x2 integer)."""
    x1, x2 = ensure_arraylike("ldexp", x1, x2)
    if _core.is_complex(x1.dtype) or _core.is_inexact(x2.dtype):
        raise ValueError(f"ldexp not supported for input types {(x1.dtype, x2.dtype)}")
    x1, = promote_args_inexact("ldexp", x1)
    x2 = lax.convert_element_type(x2, x1.dtype)
    m, e = frexp(x1)
    # jnp's add, as JAX's `+`: x1 and x2 broadcast here (rank promotion included), and the
    # `where`s below take m and x1 to the shape of e
    e = lax.convert_element_type(add(lax.convert_element_type(e, x2.dtype), x2), x1.dtype)
    positive_e = lax.gt(e, _const(e, 0))
    m = _where(positive_e, lax.mul(m, _const(m, 2)), m)
    e = _where(positive_e, lax.sub(e, _const(e, 1)), e)
    x = lax.mul(m, power(_const(m, 2), lax.convert_element_type(e, m.dtype)))
    return _where(lax.bitwise_or(isinf(x1), lax.eq(x1, _const(x1, 0))), x1, x)


@jax_jitted
@jnp_jit
def modf(x, /, out=None):
    """(fractional part, integral part), both with the sign of x."""
    x, = promote_dtypes_inexact(ensure_arraylike("modf", x))
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.modf is not supported.")
    whole = _where(lax.ge(x, _const(x, 0)), floor(x), ceil(x))
    return lax.sub(x, whole), whole


# ---------------------------------------------------------------- integers and bits
@jax_jitted
@jnp_jit
def gcd(x1, x2):
    """Greatest common divisor (Euclid's algorithm in a while_loop, as JAX)."""
    x1, x2 = ensure_arraylike("gcd", x1, x2)
    x1, x2 = promote_dtypes(x1, x2)
    if not _core.is_int(x1.dtype):
        raise ValueError("Arguments to jax.numpy.gcd must be integers.")
    x1, x2 = broadcast_arrays(x1, x2)
    a, b = absolute(x1), absolute(x2)
    while_loop = getattr(lax, "while_loop", None)

    def body(carry):
        a, b = carry
        zero = _const(b, 0)
        nz = lax.ne(b, zero)
        safe_b = _where(nz, b, _const(b, 1))
        return _where(nz, b, a), _where(nz, _rem(a, safe_b), zero)

    def any_nonzero(carry):
        b = carry[1]
        return lax.reduce_or(lax.ne(b, _const(b, 0)), tuple(range(b.ndim)))

    if while_loop is not None:
        return while_loop(any_nonzero, body, (a, b))[0]
    # No lax.while_loop yet: unroll Euclid's worst case (consecutive Fibonacci numbers).
    for _ in range(_EUCLID_STEPS[np.dtype(a.dtype).itemsize]):
        a, b = body((a, b))
    return a


_EUCLID_STEPS = {1: 12, 2: 24, 4: 47, 8: 93}


@jax_jitted
@jnp_jit
def lcm(x1, x2):
    """Least common multiple."""
    x1, x2 = ensure_arraylike("lcm", x1, x2)
    x1, x2 = promote_dtypes(x1, x2)
    x1, x2 = absolute(x1), absolute(x2)
    if not _core.is_int(x1.dtype):
        raise ValueError("Arguments to jax.numpy.lcm must be integers.")
    d = gcd(x1, x2)
    return _where(lax.eq(d, _const(d, 0)), _const(d, 0), multiply(x1, floor_divide(x2, d)))


def bitwise_and(x, y, /):
    return lax.and_p.bind(*promote_args("bitwise_and", x, y))


def bitwise_or(x, y, /):
    return lax.or_p.bind(*promote_args("bitwise_or", x, y))


def bitwise_xor(x, y, /):
    return lax.xor_p.bind(*promote_args("bitwise_xor", x, y))


@jax_jitted(inline=True)
def left_shift(x, y, /):
    """x << y."""
    return lax.shift_left(*promote_args_numeric("left_shift", x, y))


@jax_jitted(inline=True)
def right_shift(x1, x2, /):
    """x1 >> x2 (arithmetic for signed ints, logical for unsigned but uint2 and uint4)."""
    x1, x2 = promote_args_numeric("right_shift", x1, x2)
    # JAX asks NumPy's issubdtype, which does not count ml_dtypes' uint2/uint4 as unsigned:
    # they shift arithmetically, copying the top bit (uint4 15 >> 1 is 15), as in JAX 0.10.2
    logical = _core.is_unsigned(x1.dtype) and x1.dtype not in _core.INTN_DTYPES
    fn = lax.shift_right_logical if logical else lax.shift_right_arithmetic
    return fn(x1, x2)


bitwise_left_shift = jax_alias(left_shift, "bitwise_left_shift", inline=True)
bitwise_right_shift = jax_alias(right_shift, "bitwise_right_shift", inline=True)


def logical_and(x, y, /):
    return lax.bitwise_and(*map(_to_bool, promote_args("logical_and", x, y)))


def logical_or(x, y, /):
    return lax.bitwise_or(*map(_to_bool, promote_args("logical_or", x, y)))


def logical_xor(x, y, /):
    return lax.bitwise_xor(*map(_to_bool, promote_args("logical_xor", x, y)))


# ---------------------------------------------------------------- comparisons
def _typed_keys(*xs):
    """The key dtype among `xs` (typed PRNG keys), else None: it compares keys (random/)."""
    for x in xs:
        if _core.extended_scalar_type(getattr(x, "dtype", None)):
            return x.dtype
    return None


def _keys_only(name, x, y):
    """Keys compare with keys only: JAX's error for a key against a number (`k == 1`)."""
    if not all(_typed_keys(a) for a in (x, y)):
        promote_args(name, x, y)        # (raises "equal does not accept dtypes key<fry>, ...")


@jax_jitted(inline=True)
def equal(x, y, /):
    """x == y elementwise (typed PRNG keys compare their key data, as in JAX)."""
    if _typed_keys(x, y):
        _keys_only("equal", x, y)
        if not hasattr(_typed_keys(x, y), "keys_equal"):     # another extended dtype: lax's
            return lax.eq_p.bind(x, y)
        return _typed_keys(x, y).keys_equal(x, y)
    return lax.eq_p.bind(*promote_args("equal", x, y))


@jax_jitted(inline=True)
def not_equal(x, y, /):
    """x != y elementwise."""
    if _typed_keys(x, y):
        _keys_only("not_equal", x, y)
        if not hasattr(_typed_keys(x, y), "keys_equal"):     # another extended dtype: lax's
            return lax.ne_p.bind(x, y)
        return lax.bitwise_not(_typed_keys(x, y).keys_equal(x, y))
    return lax.ne_p.bind(*promote_args("not_equal", x, y))


def _ordered(name, symbol, prim, lax_fn):
    @_named(name, f"x {symbol} y elementwise (complex numbers compare lexicographically).")
    def fn(x, y, /):
        try:      # a traceback boundary, as JAX's jitted jnp.less is (no frame of its own)
            x, y = promote_args(name, x, y)
            if x.aval.dtype in _core.COMPLEX_DTYPES:
                return lax.select(lax.eq(lax.real(x), lax.real(y)),
                                  lax_fn(lax.imag(x), lax.imag(y)),
                                  lax_fn(lax.real(x), lax.real(y)))
            return prim.bind(x, y)
        except Exception as e:
            filter_raised(e)
            raise
    register_boundary(fn.__code__)
    return jax_jitted(fn, inline=True)


less = _ordered("less", "<", lax.lt_p, lax.lt)
less_equal = _ordered("less_equal", "<=", lax.le_p, lax.le)
greater = _ordered("greater", ">", lax.gt_p, lax.gt)
greater_equal = _ordered("greater_equal", ">=", lax.ge_p, lax.ge)


def _all(x):
    return lax.reduce_and(x, tuple(range(x.ndim)))


@jax_jitted
@jnp_jit(static_argnames="equal_nan")
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
    """|a - b| <= atol + rtol * |b| elementwise (and a == b, for infinities)."""
    a, b = promote_args("isclose", a, b)
    if _typed_keys(a, b):              # keys: equal or not (JAX's isclose on keys)
        return _typed_keys(a, b).keys_equal(a, b)
    a, b = promote_args_inexact("isclose", a, b)
    dtype = a.dtype
    if _core.is_complex(dtype):
        dtype = np.array(0, dtype).real.dtype
    rtol = lax.convert_element_type(rtol, dtype)
    atol = lax.convert_element_type(atol, dtype)
    both_nan = logical_and(isnan(a), isnan(b))
    check_fin = isfinite(b)
    in_range = lax.le(lax.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, lax.abs(b))))
    out = logical_or(lax.eq(a, b), logical_and(check_fin, in_range))
    return logical_or(out, both_nan) if equal_nan else out


@jax_jitted
@jnp_jit(static_argnames="equal_nan")
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
    """True if all elements are isclose."""
    check_arraylike("allclose", a, b)
    return _all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan: bool = False):
    """True if both have the same shape and elements."""
    a1, a2 = asarray(a1), asarray(a2)
    if a1.shape != a2.shape:
        return array(False, dtype=_BOOL)
    eq = equal(a1, a2)
    if equal_nan:
        eq = logical_or(eq, logical_and(isnan(a1), isnan(a2)))
    return _all(eq)


def array_equiv(a1, a2):
    """True if both broadcast to one shape and are equal elementwise."""
    a1, a2 = asarray(a1), asarray(a2)
    try:
        eq = equal(a1, a2)
    except (ValueError, TypeError):
        return array(False)
    return _all(eq)


@jax_jitted
@jnp_jit
def nan_to_num(x, copy: bool = True, nan=0.0, posinf=None, neginf=None):
    """NaN -> `nan`, +inf -> `posinf` (dtype max), -inf -> `neginf` (dtype min)."""
    del copy
    x = ensure_arraylike("nan_to_num", x)
    dtype = x.dtype
    if not _core.is_inexact(dtype):
        return x
    if _core.is_complex(dtype):
        return lax.complex(nan_to_num(lax.real(x), nan=nan, posinf=posinf, neginf=neginf),
                           nan_to_num(lax.imag(x), nan=nan, posinf=posinf, neginf=neginf))
    info = finfo(dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = _where(isnan(x), asarray(nan, dtype=dtype), x)
    out = _where(isposinf(out), asarray(posinf, dtype=dtype), out)
    return _where(isneginf(out), asarray(neginf, dtype=dtype), out)


# ---------------------------------------------------------------- clip
def _clip(arr, min, max):
    if min is not None:
        arr = maximum(min, arr)
    if max is not None:
        arr = minimum(max, arr)
    return ensure_array(arr)


_clip.__name__ = _clip.__qualname__ = "clip"   # jit[name=clip] and jit errors, as in JAX
_clip = jnp_jit(_clip)


@jax_jitted
def clip(arr=None, /, min=None, max=None):
    """`arr` limited to [min, max] (either may be None). JAX 0.10's signature: NumPy's old
    `a_min`/`a_max` keywords are a TypeError there, as here.

    >>> jnp.clip(jnp.arange(5), 1, 3)
    Array([1, 1, 2, 3, 3], dtype=int32)
    """
    if arr is None:
        raise ValueError("No input was provided to the clip function.")
    check_arraylike("clip", arr)
    if any(iscomplexobj(t) for t in (arr, min, max)):
        raise ValueError("Clip received a complex value either through the input or the "
                         "min/max keywords. Complex values have no ordering and cannot be "
                         "clipped. Please convert to a real value or array by taking the real "
                         "or imaginary components via jax.numpy.real/imag respectively.")
    return _clip(arr, min, max)
