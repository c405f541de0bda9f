"""What every jnp function does first: check its inputs are arrays, promote their dtypes
(JAX's lattice, weak types included) and ranks, then call lax.

    >>> promote_args("add", jnp.ones(3, jnp.float16), 2.0)   # the weak 2.0 becomes f16
    [Array([1., 1., 1.], dtype=float16), Array(2., dtype=float16)]

Hot paths: an eager `jnp.sin(x)` or `x + y` on arrays that need no promotion returns its
inputs after a type check or two (`_fast`); `x * 2` or `x + 1.0` takes its Python scalar
from a small cache of device constants (`_array_and_scalar`, `scalar_array`); both cost
barely more than the bare lax call. Where an array must change type eagerly (`jnp.sin` of
ints, `ints / 2`), the function runs jitted, so the conversion fuses into the one XLA call
(`fused_when_converting`), as JAX's jit-wrapped functions do.
"""
from __future__ import annotations

import collections
import functools
import inspect
import itertools
import math
import sys
import warnings

import numpy as np

from ..core.config import config
from ..core import dtypes, vma
from ..core import trace as _trace
from ..core.avals import ShapedArray, Token, abstract_token
from ..core.errors import aval_text, float0_error, jax_class_path, masked_array_error
from ..core.interpreter_primitives import typed_scalar
from ..core.source_info import (installed_package, is_jxkernel_file, is_user_filename,
                                user_stacklevel)
from ..core.traceback_util import filter_raised, register_boundary
from ..core.sharding_types import broadcast_sharding, traced_sharding, typed_sharding
from ..core.staging import JaxprTracer, is_ref
from ..core.trace import Tracer, jax_type_text
from ..lax import conversion, shapes
# jnp's modules take it from here, as JAX's from its util
from ..lax.shapes import canonicalize_axis  # noqa: F401
from ..lax import elementwise as lax
from ..transforms.jit import jit
from ..transforms.jit.namesakes import jit_argument_error, traced_before_checked
from ..xla import client as _client
from ..xla import array as _xla_array
from ..xla.array import Array, host_to_device
from ..xla.transfers import put_on_device
from .dtypes import dtype_and_weak, lattice_result_type, to_inexact_dtype

_ARRAYS = (Array, Tracer)
_ARRAY_TYPES = (Array, Tracer, np.ndarray, np.generic)
_SCALAR_TYPES = (bool, int, float, complex)
_INEXACT = dtypes.INEXACT_DTYPES


# the types of Ref-typed tracers (api/state.py adds AbstractRef): no arrays, so the hot paths
# that take any tracer as one leave them to check_arraylike, as JAX's jnp functions check
REF_AVALS: set = set()


def is_arraylike(x) -> bool:
    return (isinstance(x, _ARRAY_TYPES) or isinstance(x, _SCALAR_TYPES) or
            dtypes.keeps_its_dtype(x) or hasattr(x, "__jax_array__") or
            isinstance(getattr(x, "dtype", None), dtypes.ExtendedDType)) and \
        not is_ref(x) and \
        not (isinstance(x, Tracer) and x.aval is abstract_token)
    # (no array, as JAX's jax.Array is not of a Ref's tracer or a token's: jit(jnp.sin)(token)
    # is refused by jnp's check, not by XLA)


def check_arraylike(fun_name: str, *args) -> None:
    """A TypeError naming the function and argument position if one is not an array (in a
    function JAX jits, its jit's error for a string or an object, which JAX raises first;
    elsewhere a string is asarray's error, as JAX's)."""
    for i, arg in enumerate(args):
        # (NumPy data of no JAX type, `np.array([None, 1.0])`: JAX's jit refuses it first,
        # where the promotion's words named jxkernel and its dtypes)
        text = isinstance(arg, np.ndarray) and not dtypes.is_numeric_kind(arg.dtype)
        if not is_arraylike(arg) or text:
            jit_error = jit_argument_error(fun_name)
            if jit_error is not None:
                raise jit_error
            if text:
                continue
            if isinstance(arg, (str, bytes)):
                # JAX's check passes a string (np.isscalar's), and its asarray refuses it
                raise TypeError(f"asarray: expected ArrayLike, got {arg} of type {type(arg)}.")
            # JAX's words alone: the notebook's card says to make it an array
            # (views/error_cards/list_arguments.py)
            shown = jax_type_text(arg)
            if type(arg) is Token and traced_before_checked(fun_name, sys._getframe(1)):
                # (JAX's jit traced it first: its message names jit's tracer)
                shown = f"<class '{jax_class_path(JaxprTracer)}'>"
            error = TypeError(f"{fun_name} requires ndarray or scalar arguments, got "
                              f"{shown} at position {i}.")
            # every position holding a list or tuple, not only the first JAX names: the card
            # makes each an array (jnp.dot([1.0, 2.0], [3.0, 4.0]) with the first alone made
            # one raises again, at position 1)
            error.sequence_positions = tuple(j for j, a in enumerate(args)
                                             if isinstance(a, (list, tuple)))
            # and the sequences themselves: JAX's position counts the check's arguments, not
            # the call's (jnp.full's fill_value is its position 0), and a jnp function called
            # inside another (jax.nn.softmax's max) names its own
            error.sequences = tuple(a for a in args if isinstance(a, (list, tuple)))
            raise error


def passing_text(args) -> tuple:
    """`args` with each string or bytes as 0: what JAX's check_arraylike sees of them (it
    passes text, a scalar to np.isscalar), so that what the function does next refuses the
    text in its own words (jnp.ravel's jit, JAX's dtypes.dtype).

    >>> passing_text(("a", 1.5))
    (0, 1.5)
    """
    return tuple(0 if isinstance(a, (str, bytes)) else a for a in args)


def check_text_args(*args) -> None:
    """JAX's error for a string given where its function asks each argument's dtype before
    any other check refuses it (jnp.power's float0 check, jnp.zeros_like's lax.full_like):
    its dtypes.dtype reads the text as a dtype's name, and np.dtype('a') is |S0, no type of
    JAX's arrays."""
    for arg in args:
        if isinstance(arg, (str, bytes)):
            dtypes.dtype_of_named(arg)


def warn_arraylike(fun_name: str, *args) -> None:
    """JAX's DeprecationWarning where a function that still takes lists and tuples is given
    one (jnp.shape([1, 2]): an error in a later JAX)."""
    for i, arg in enumerate(args):
        if not is_arraylike(arg):
            warnings.warn(f"{fun_name} requires ndarray or scalar arguments, got "
                          f"{jax_type_text(arg)} at position {i}. In a future JAX release this "
                          f"will be an error.", DeprecationWarning, stacklevel=3)
            return


def check_real(fun_name: str, x) -> None:
    """JAX's ValueError for a complex `x` given to a function of real arguments only (the
    special functions: gammaln, expi, hyp1f1, ...)."""
    if dtypes.is_complex(x.dtype):
        raise ValueError(f"{fun_name} does not support complex-valued inputs.")


def check_arraylike_or_none(fun_name: str, *args) -> None:
    for i, arg in enumerate(args):
        if arg is not None and not is_arraylike(arg):
            raise TypeError(f"{fun_name} requires ndarray, scalar, or None arguments, got "
                            f"{type(arg)} at position {i}.")


def _high(x) -> bool:
    """A tracer of a library's high type (core/hijax.py): jnp takes its `__jax_array__`, as
    JAX's ensure_arraylike does (a JAX tracer's `__jax_array__` is its type's)."""
    return isinstance(x, Tracer) and getattr(x.aval, "is_high", False)


def aval_of(x) -> ShapedArray:
    aval = getattr(x, "aval", None)
    if aval is not None and not getattr(aval, "is_high", False):
        return aval
    if type(x) in _SCALAR_TYPES:
        return ShapedArray((), dtypes.python_scalar_dtype(x), type(x) is not bool)
    if hasattr(x, "__jax_array__"):
        return aval_of(x.__jax_array__())
    if isinstance(x, np.ma.MaskedArray):        # its mask would be dropped silently
        raise masked_array_error()
    x = np.asarray(x)
    return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype))


def ensure_array(x):
    """An Array or tracer for `x`. Scalars go through convert_element_type, so that under
    a trace they become literals (as in JAX); NumPy arrays are put on the device."""
    if isinstance(x, _ARRAYS) and not _high(x):
        return x
    if isinstance(getattr(x, "dtype", None), dtypes.ExtendedDType) and hasattr(x, "_base"):
        return x        # typed keys (a KeyArray) as they are: not copied by device_put
    if hasattr(x, "__jax_array__"):
        return ensure_array(x.__jax_array__())
    if type(x) in _SCALAR_TYPES or isinstance(x, np.generic) or dtypes.keeps_its_dtype(x) or (
            isinstance(x, np.ndarray) and not x.shape):
        aval = aval_of(x)     # (not the scalar cache: this value may be handed to the user)
        return conversion._convert_element_type(x, aval.dtype, aval.weak_type)
    return host_array(x) if type(x) is np.ndarray else put_on_device(x)


def concrete_value(x):
    """The NumPy value of `x` where it is known while tracing (an Array, NumPy data, a list,
    a tracer of a known value), else None.

    >>> concrete_value([1, 2])
    array([1, 2])
    >>> _ = jax.jit(lambda x: print(concrete_value(x)))(1.0)     # traced: not known
    None
    """
    if isinstance(x, Tracer):
        v = x.to_concrete_value()
        return None if v is None else np.asarray(v)
    return np.asarray(x)


def host_array(x: np.ndarray) -> Array:
    """NumPy array `x` on the device (its canonical dtype). Under a transformation, one Array
    per `x` until the outermost transformation ends, so an array a traced function closes
    over is one constant of its jaxpr however often it is used: JAX keys its constants by
    id, and canonicalizes each NumPy array once.

    >>> c = np.arange(3.0)
    >>> len(jax.make_jaxpr(lambda x: (x + c, x * c))(jnp.ones(3)).consts)
    1
    """
    trace = _trace._ctx.trace
    if type(trace) is _trace.EvalTrace:
        return put_on_device(x)
    arrays = trace.outer.host_arrays
    if arrays is None:
        arrays = trace.outer.host_arrays = {}
    found = arrays.get(id(x))
    if found is None:    # both ids, so a jaxpr given either has one constvar (core/staging.py)
        found = arrays[id(x)] = (x, put_on_device(x))
        arrays[id(found[1])] = found
    return found[1]


def ensure_arraylike(fun_name: str, *args):
    """check_arraylike, then each arg as an Array/tracer (one value for one arg)."""
    check_arraylike(fun_name, *args)
    if len(args) == 1:
        return ensure_array(args[0])
    return tuple(map(ensure_array, args))


def ensure_arraylike_tuple(fun_name: str, tup) -> list:
    check_arraylike(fun_name, *tup)
    return [ensure_array(x) for x in tup]


# ---------------------------------------------------------------- dtype promotion
def _convert(x, dtype, weak_type: bool, args=()):
    if isinstance(dtype, dtypes.ExtendedDType) and getattr(x, "dtype", None) == dtype:
        return x                     # typed keys of one type: nothing to convert
    if not isinstance(x, _ARRAYS) or _high(x):
        if hasattr(x, "__jax_array__"):
            x = x.__jax_array__()
        elif isinstance(x, np.ndarray) and x.shape:
            x = host_array(x)
        elif type(x) in _CACHED_SCALARS and type(_trace._ctx.trace) is _trace.EvalTrace:
            return scalar_array(x, dtype, weak_type, _device_of(args))
        else:                        # a scalar: staged as a literal, as JAX does
            conversion.refuse_text(x)       # (passed by JAX's check: np.isscalar's)
            _check_python_int(x)
            return conversion._convert_element_type(x, dtype, weak_type)
    aval = x.aval
    if aval.dtype == dtype and aval.weak_type == weak_type:
        return x
    return conversion._convert_element_type(x, dtype, weak_type)


def _check_python_int(x) -> None:
    """A Python int must fit the default int before promotion narrows it (as in JAX)."""
    if type(x) is int:
        info = dtypes.iinfo(dtypes.default_int_dtype())
        if not info.min <= x <= info.max:
            raise OverflowError(f"Python int {x} too large to convert to "
                                f"{dtypes.default_int_dtype().name}")


# Eager `x * 2` or `x + 1.0` needs its Python scalar on the device each time: keep the
# last few such constants there (keyed with the sign of floats, so -0.0 is not 0.0).
# They only ever feed primitives and jitted composites: never return one to the user (it
# could be donated and deleted).
_CACHED_SCALARS = (int, float, bool)
_scalar_cache: dict = {}
_xla_array.held_by_jxkernel.append(lambda: list(_scalar_cache.values()))   # not the user's


def _device_of(args):
    for a in args:
        if type(a) is Array and a._sharding is None:
            return a.device
    return None


def scalar_array(x, dtype, weak_type: bool, device=None):
    """Python scalar `x` as a 0-d Array of `dtype` on `device` (default: the default), cached."""
    t = type(x)
    key = (t, x, dtype, weak_type, t is float and math.copysign(1.0, x) < 0, device)
    out = _scalar_cache.get(key)
    if out is None:
        _check_python_int(x)
        with np.errstate(over="ignore", invalid="ignore"):
            value = np.asarray(x).astype(dtype)
        out = host_to_device(value, ShapedArray((), dtype, weak_type),
                             device or _client.default_device())
        if len(_scalar_cache) >= 256:
            _scalar_cache.clear()
        _scalar_cache[key] = out
    return out


def promote_dtypes(*args) -> list:
    """Convert all args to their common dtype (a weak type if all inputs were weak)."""
    if len(args) < 2:
        return [ensure_array(x) for x in args]
    dtype, weak = lattice_result_type(*args)
    return [_convert(x, dtype, weak, args) for x in args]


@functools.lru_cache(maxsize=None)
def _to_inexact(dtype, named_x64: bool):
    return to_inexact_dtype(dtype)


def promote_dtypes_inexact(*args) -> list:
    """Like promote_dtypes, then to a float/complex type (ints become the default float)."""
    dtype, weak = lattice_result_type(*args)
    dtype = _to_inexact(dtype, config._named_x64)
    return [_convert(x, dtype, weak, args) for x in args]


def promote_dtypes_numeric(*args) -> list:
    """Like promote_dtypes, with bool promoted to int32 (JAX's to_numeric_dtype: int32 even
    in 64-bit mode)."""
    dtype, weak = lattice_result_type(*args)
    if dtype == dtypes.bool_:
        dtype = dtypes.int32
    return [_convert(x, dtype, weak, args) for x in args]


def promote_dtypes_complex(*args) -> list:
    dtype, weak = lattice_result_type(*args)
    if not dtypes.is_complex(dtype):
        dtype = dtypes.complex128 if dtype == dtypes.float64 else dtypes.complex64
    return [_convert(x, dtype, weak, args) for x in args]


# ---------------------------------------------------------------- rank promotion
# The user's lines where an elementwise operation met a column (n, 1) and a vector (n,), n > 1,
# and NumPy's broadcasting made an (n, n) result, while the notebook tells them
# (notebook/notes/broadcast_notes.py): a loss of a model's column of outputs against a vector of
# targets is then a mean over every pair, and JAX says nothing. Each (file, line, where the
# call is: (line, end line, column, end column) or None, the function's name, the operands'
# shapes, {name: shape} of the frame's names holding either shape). Recorded only there: the
# frame walk costs this rare path only, and a script pays one test.
column_sites: collections.deque = collections.deque(maxlen=16)
record_column_sites = False


def _record_column(fun_name: str, shapes) -> None:
    a, b = shapes
    column, vector = (a, b) if len(a) == 2 else (b, a)
    if not (len(column) == 2 and len(vector) == 1 and column[1] == 1 and
            column[0] == vector[0] and isinstance(vector[0], int) and vector[0] > 1):
        return
    # out past jxkernel's frames to the line that asked for the operation: the user's own, not
    # a library's (whose broadcasts are its own business, meant or checked: optax's losses
    # check their operands' shapes first)
    frame = sys._getframe(2)
    while frame is not None and is_jxkernel_file(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None or not is_user_filename(frame.f_code.co_filename) or \
            installed_package(frame.f_code.co_filename):
        return
    code = frame.f_code
    # (one position per 2-byte code unit; columns count UTF-8 bytes, as ast's)
    position = next(itertools.islice(code.co_positions(), frame.f_lasti // 2, None), None)
    names = {**frame.f_globals, **frame.f_locals}
    held = {n: tuple(v.shape) for n, v in names.items()
            if isinstance(getattr(v, "shape", None), tuple) and tuple(v.shape) in (a, b)}
    column_sites.append((code.co_filename, frame.f_lineno,
                         position if position and None not in position else None,
                         fun_name, (tuple(a), tuple(b)), held))


def promote_shapes(fun_name: str, *args) -> list:
    """Give lower-rank args leading size-1 dims (lax broadcasts those and rank-0 operands)."""
    if len(args) < 2:
        return [ensure_array(x) for x in args]
    ranks = [len(aval_of(x).shape) for x in args]
    nonscalar = {r for r in ranks if r}
    if len(nonscalar) < 2:
        return [ensure_array(x) for x in args]
    if config.jax_numpy_rank_promotion != "allow":
        _rank_promotion_warning_or_error(fun_name, [aval_of(x).shape for x in args])
    # shapes that cannot broadcast raise JAX's ValueError here, naming the operands' own
    # shapes (not lax's TypeError about the rank-promoted ones)
    rank = len(shapes.broadcast_shapes(*[aval_of(x).shape for x in args]))
    if record_column_sites and len(args) == 2:
        _record_column(fun_name, [aval_of(x).shape for x in args])
    return [shapes.broadcast_to_rank(x, rank) if r else ensure_array(x)
            for x, r in zip(args, ranks)]


def _rank_promotion_warning_or_error(fun_name: str, shapes) -> None:
    """jax_numpy_rank_promotion='warn' or 'raise': JAX's warning or error, for operands of
    several ranks (Python scalars and rank-0 arrays aside)."""
    shown = " ".join(map(str, shapes))
    if config.jax_numpy_rank_promotion == "warn":
        warnings.warn(f"Following NumPy automatic rank promotion for {fun_name} on shapes "
                      f"{shown}. Set the jax_numpy_rank_promotion config option to 'allow' to "
                      f"disable this warning; for more information, see "
                      f"https://docs.jax.dev/en/latest/rank_promotion_warning.html.",
                      stacklevel=user_stacklevel())
    elif config.jax_numpy_rank_promotion == "raise":
        raise ValueError(f"Operands could not be broadcast together for {fun_name} on shapes "
                         f"{shown} and with the config option jax_numpy_rank_promotion='raise'. "
                         f"For more information, see "
                         f"https://docs.jax.dev/en/latest/rank_promotion_warning.html.")


def _fast(args) -> bool:
    """All args already Arrays/tracers of one dtype and weak type, ranks lax accepts as is
    (one rank, besides rank-0 operands)."""
    a0 = args[0].aval if isinstance(args[0], _ARRAYS) else None
    if a0 is None or type(a0) in REF_AVALS:     # (a Ref's tracer: refused by check_arraylike)
        return False
    rank = len(a0.shape)
    for x in args[1:]:
        if not isinstance(x, _ARRAYS):
            return False
        a = x.aval
        if a.dtype != a0.dtype or a.weak_type != a0.weak_type:
            return False
        if a.shape:
            if rank and len(a.shape) != rank:
                return False
            rank = len(a.shape)
    return True


def _host_data_on_device(args) -> tuple:
    """`args` with each NumPy array of a bool, integer, float or complex dtype and at least
    one axis on the device (`host_array`, as `_convert` puts it); the rest as they are (0-d
    data, another dtype: the general path's)."""
    return tuple([host_array(x) if type(x) is np.ndarray and x.shape and x.dtype.kind in "biufc"
                  else x for x in args])


def _array_and_scalar(args, kind: str):
    """The promoted pair for (Array or tracer, Python scalar) in either order when the
    array's type wins (the common `x * 2`, `x + 1.0`), else None for the general path."""
    if len(args) != 2:
        return None
    x, y = args
    if type(y) in _CACHED_SCALARS and isinstance(x, _ARRAYS):
        arr, s = x, y
    elif type(x) in _CACHED_SCALARS and isinstance(y, _ARRAYS):
        arr, s = y, x
    else:
        return None
    a = arr.aval
    if not (config._named_x64 or dtypes.is_canonical(a.dtype)):
        return None         # an int64 made under enable_x64: the general path narrows it
    if _pair_result(a, s, kind) != (a.dtype, a.weak_type):
        return None
    if type(_trace._ctx.trace) is _trace.EvalTrace:
        sv = scalar_array(s, a.dtype, a.weak_type, _device_of((arr,)))
    else:
        _check_python_int(s)
        sv = conversion._convert_element_type(s, a.dtype, a.weak_type)
    return [arr, sv] if arr is x else [sv, arr]


def _pair_result(a, s, kind):
    """(dtype, weak) of promoting an array of aval `a` with Python scalar `s` (cached)."""
    key = (a.dtype, a.weak_type, type(s), kind, config.jax_enable_x64, config._named_x64,
           config.jax_numpy_dtype_promotion)
    res = _pair_results.get(key)
    if res is None:
        res = _pair_results[key] = _PROMOTE[kind](a, s)
    return res


def _promoted(kind):
    def result(*args):
        dtype, weak = lattice_result_type(*args)
        if kind == "inexact":
            dtype = _to_inexact(dtype, config._named_x64)
        elif kind == "numeric" and dtype == dtypes.bool_:
            dtype = dtypes.int32
        return dtype, weak
    return result


_PROMOTE = {k: _promoted(k) for k in ("plain", "inexact", "numeric")}
_pair_results: dict = {}


def _refuse_keys(fun_name: str, args) -> None:
    """JAX's TypeError for arithmetic on typed PRNG keys (`key + 1`). One operand alone is
    not refused here: as in JAX, the primitive's own dtype check names it (`-k`: "neg does
    not accept dtype key<fry>. ..."), and `+k` is the key."""
    if len(args) > 1 and any(dtypes.extended_scalar_type(getattr(x, "dtype", None))
                             for x in args):
        names = [str(getattr(x, "dtype", None) or dtype_and_weak(x)[0]) for x in args]
        if len(set(names)) == 1:
            return      # keys with keys of their type: the primitive's check names them
        raise TypeError(f"{fun_name} does not accept dtypes {', '.join(names)}.")


def _args_promoter(kind: str, promote, needs_no_promotion=None):
    """promote_args for one `kind` of result: the fast returns (arrays of one dtype for which
    `needs_no_promotion(dtype)` holds, or None for any dtype; array with Python scalar), else
    check_arraylike, `promote` (a promote_dtypes_*) and promote_shapes."""
    def promote_args(fun_name: str, *args) -> list:
        if _fast(args) and (needs_no_promotion is None
                            or needs_no_promotion(args[0].aval.dtype)):
            return list(args)
        if any(type(x) is np.ndarray for x in args):   # NumPy data (a batch, jnp.sin(data)):
            args = _host_data_on_device(args)          # an Array of its canonical dtype first,
            if _fast(args) and (needs_no_promotion is None   # as the general path makes it
                                or needs_no_promotion(args[0].aval.dtype)):
                return list(args)
        _refuse_keys(fun_name, args)
        if any(getattr(x, "dtype", None) == dtypes.float0 for x in args):
            raise float0_error("jnp:" + fun_name)          # (JAX's check_no_float0s)
        try:
            pair = _array_and_scalar(args, kind)
            if pair is not None:
                return pair
            check_arraylike(fun_name, *args)
            return promote_shapes(fun_name, *promote(*args))
        except OverflowError as e:              # a Python int past int32, as JAX words it
            raise overflow_error(_parameters(fun_name), args) or e from None
    promote_args.__name__ = promote_args.__qualname__ = \
        "promote_args" if kind == "plain" else f"promote_args_{kind}"
    return promote_args


# check_arraylike + promote_dtypes(_kind) + promote_shapes, as jnp's binary functions do:
# promote_args("add", x, 2) is [x, 2 as an array of x's dtype]
promote_args = _args_promoter("plain", promote_dtypes)
promote_args_inexact = _args_promoter("inexact", promote_dtypes_inexact,
                                      lambda dtype: dtype in _INEXACT)
promote_args_numeric = _args_promoter("numeric", promote_dtypes_numeric,
                                      lambda dtype: dtype != dtypes.bool_)


def overflow_error(params, args) -> OverflowError | None:
    """JAX's OverflowError for a Python int past the default int given to a jnp function
    (jitted in JAX, its arguments parsed as a jitted computation's: "... whose argument path
    is y"), naming its parameter (`params`: the function's positional parameters' names) at
    the int's position; None where the parameters are not the arguments here, one for one.

        >>> str(overflow_error(("x", "y"), (np.ones(3), 2 ** 40))).split(". ")[1]
        "Got <class 'int'> with value 1099511627776"
    """
    for param, x in zip(params or (), args):
        if type(x) is int and len(params) == len(args):
            info = dtypes.iinfo(dtypes.default_int_dtype())
            if not info.min <= x <= info.max:
                return OverflowError(
                    f"An overflow was encountered while parsing an argument to a jitted "
                    f"computation, whose argument path is {param}. Got {type(x)} with value "
                    f"{x}")
    return None


@functools.lru_cache(maxsize=None)
def _parameters(fun_name: str) -> tuple | None:
    """The positional parameters' names of jnp's function `fun_name` (a ufunc's: its
    function's, numpy/ufuncs.py), or None."""
    fun = getattr(sys.modules.get("jxkernel.numpy.ufuncs"), fun_name, None) or \
        getattr(sys.modules.get("jxkernel.numpy"), fun_name, None)
    try:
        return tuple(p.name for p in inspect.signature(fun).parameters.values()
                     if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    except (TypeError, ValueError):
        return None


def promote_args_complex(fun_name: str, *args) -> list:
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_complex(*args))


# ---------------------------------------------------------------- lax-level helpers
def const(x, value):
    """`value` as a NumPy scalar of x's dtype: a literal when staged, as JAX's lax._const
    (typed: an int64 one stays int64 under jax_explicit_x64_dtypes ALLOW)."""
    return typed_scalar(value, aval_of(x).dtype)


def full(shape, fill_value, dtype=None, weak_type=None, sharding=None):
    """lax.full: `fill_value` broadcast to `shape` (weak if dtype is None and it is weak),
    typed as `sharding` (a NamedSharding over an abstract mesh) where one is given."""
    if weak_type is None:
        weak_type = dtype is None and dtypes.is_weakly_typed(fill_value)
    dtype = dtypes.canonicalize_named(dtype if dtype is not None else aval_of(fill_value).dtype)
    if np.ndim(fill_value) if not isinstance(fill_value, _ARRAYS) else fill_value.ndim:
        raise TypeError(f"full must be called with scalar fill_value, got fill_value.shape "
                        f"{np.shape(fill_value)}.")
    if isinstance(fill_value, Tracer) and \
            (fill_value.aval.dtype, fill_value.aval.weak_type) == (dtype, weak_type):
        fill = fill_value          # already that type: no convert equation, as JAX's
    else:
        fill = conversion._convert_element_type(fill_value, dtype, weak_type)
    return shapes.broadcast(fill, tuple(shape), out_sharding=sharding)


def full_like(x, fill_value, dtype=None, shape=None):
    """lax.full_like: like `x` (its weak type too, unless `dtype` is given; a traced `x`'s
    sharding type too where `shape` is not given, as JAX's: logsumexp's select of the max and
    its zeros needs both split alike)."""
    aval = aval_of(x)
    return vma.vary_like(full(aval.shape if shape is None else shape, fill_value,
                              dtype or aval.dtype, dtype is None and aval.weak_type,
                              traced_sharding(x) if shape is None else None), x)


def broadcast_shapes(*shapes) -> tuple:
    """NumPy's broadcasting of shapes, with JAX's error message."""
    rank = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (rank - len(s)) + tuple(s) for s in shapes]
    out = []
    for sizes in zip(*padded):
        distinct = {d for d in sizes if d != 1}
        if len(distinct) > 1:
            # (raised from lax's TypeError for the shapes with their ranks promoted, as JAX's:
            # a traceback shows it as the cause)
            error = ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes)}")
            error.__cause__ = TypeError(f"broadcast_shapes got incompatible shapes for "
                                        f"broadcasting: {', '.join(map(str, padded))}.")
            raise error
        out.append(distinct.pop() if distinct else 1)
    return tuple(out)


def broadcast_to(x, shape, out_sharding=None):
    """`x` broadcast to `shape` (NumPy's rules), as one broadcast_in_dim (typed as
    `out_sharding`, a NamedSharding, where one is given)."""
    x = ensure_array(x)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    xs = x.aval.shape
    if xs == shape:
        return x
    nlead = len(shape) - len(xs)
    if nlead < 0:       # JAX's lax.broadcast_to's first check and words
        raise ValueError(f"Cannot broadcast to shape with fewer dimensions: arr_shape={xs} "
                         f"shape={shape}")
    if any(d != 1 and d != s for d, s in zip(xs, shape[nlead:])):
        raise ValueError(f"Incompatible types for broadcasting: input type={aval_text(x.aval)} "
                         f"and requested type={aval_text(x.aval.update(shape=shape), False)}")
    # size-1 dims stretch in the broadcast itself, as JAX's lax.broadcast_to leaves them
    return shapes.broadcast_in_dim(x, shape, tuple(range(nlead, len(shape))),
                                   out_sharding=out_sharding)


def broadcast_arrays(*args) -> list:
    """All args broadcast to their common shape (and type, as JAX's: a scalar meeting a
    split array is broadcast split alike, sharding_types.broadcast_sharding)."""
    avals = [aval_of(a) for a in args]
    if all(a.shape == avals[0].shape for a in avals):
        return [ensure_array(a) for a in args]
    shape = broadcast_shapes(*(a.shape for a in avals))
    sharding = broadcast_sharding(avals, shape)
    return [broadcast_to(a, shape, sharding) for a in args]


# ---------------------------------------------------------------- jit for composites
def jnp_jit(fun=None, *, static_argnames=(), inline=False):
    """jit for jnp's composite functions, where JAX jits them. Eagerly, Python scalar
    arguments come from the device constant cache (no host transfer per call), and static
    arguments may be passed by keyword or position.

        >>> @jnp_jit(static_argnames=("decimals",))
        ... def round(a, decimals=0): ...
    """
    if fun is None:
        return functools.partial(jnp_jit, static_argnames=static_argnames, inline=inline)
    static_argnames = (static_argnames,) if isinstance(static_argnames, str) \
        else tuple(static_argnames)
    jitted = jit(fun, static_argnames=static_argnames, inline=inline)
    sig = inspect.signature(fun)
    static_pos = {i for i, p in enumerate(sig.parameters) if p in static_argnames}

    @functools.wraps(fun)
    def call(*args, **kwargs):
        if kwargs and static_argnames:     # statics by position (jit maps keywords by position)
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError as e:          # named as Python names a call's: "sort() got ..."
                raise TypeError(f"{fun.__name__}() {e}") from None
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        if type(_trace._ctx.trace) is _trace.EvalTrace:
            try:
                args = tuple(scalar_array(a, dtypes.python_scalar_dtype(a), type(a) is not bool)
                             if type(a) in _CACHED_SCALARS and i not in static_pos else a
                             for i, a in enumerate(args))
            except OverflowError as e:      # a Python int past int32: JAX's jit's words
                raise overflow_error(tuple(sig.parameters), args) or e from None
        try:            # the jit's traceback boundary, moved out to the learner's call
            return jitted(*args, **kwargs)
        except Exception as e:
            filter_raised(e)
            raise
    register_boundary(call.__code__, c_call=True)     # (JAX's jit of its function)
    call.jitted = jitted
    return call


def converts_array(args, kind: str = "plain", trace_type=_trace.EvalTrace) -> bool:
    """Would promoting `args` ("plain", "inexact" or "numeric") change an array's type?
    Eagerly that is a separate XLA call per conversion, so jnp functions then run as one
    jitted computation instead, as JAX's jit-wrapped ones always do. (Under another trace
    than eval's, tracers count as arrays.)"""
    if _fast(args):
        d = args[0].aval.dtype
        return (kind == "inexact" and d not in _INEXACT) or \
            (kind == "numeric" and d == dtypes.bool_)
    if len(args) == 2 and trace_type is _trace.EvalTrace:   # (array, Python scalar): cached
        x, y = args
        arr, s = (x, y) if type(y) in _CACHED_SCALARS else (y, x)
        if type(s) in _CACHED_SCALARS and isinstance(arr, _ARRAYS):
            a = arr.aval
            if not (config._named_x64 or dtypes.is_canonical(a.dtype)):
                return True     # (narrowed in the jitted call, which warns once, as JAX's)
            return type(arr) is Array and arr._sharding is None and \
                _pair_result(a, s, kind) != (a.dtype, a.weak_type)
    arrays = [a for a in args if isinstance(a, (Array, np.ndarray)) or
              (trace_type is not _trace.EvalTrace and isinstance(a, Tracer))]
    if not arrays:
        return False
    avals = list(map(aval_of, arrays))
    if not config._named_x64 and not all(dtypes.is_canonical(a.dtype) for a in avals):
        return True
    if not all(map(is_arraylike, args)):
        return False        # (the function's own check refuses it, in its jit's words)
    want = _PROMOTE[kind](*args)
    return any((a.dtype, a.weak_type) != want for a in avals)


def _where(condition, x, y):
    """jnp.where's three-argument form: promote, broadcast, select; jitted as JAX's util._where
    (one `jit[name=_where]`). An empty result is x unselected, as JAX's: y's tangent is a
    symbolic zero (the jvp of nanmean of nothing is 0.0, not 0/0: conformance's fuzzer)."""
    check_arraylike("where", condition, x, y)
    if aval_of(condition).dtype != dtypes.bool_:
        condition = lax.ne(condition, const(condition, 0))
    x, y = promote_dtypes(x, y)
    if aval_of(condition).shape:
        condition, x, y = broadcast_arrays(condition, x, y)
    else:
        x, y = broadcast_arrays(x, y)
    return x if 0 in aval_of(x).shape else lax.select(condition, x, y)


_where_jit = jnp_jit(_where)


def where(condition, x, y):
    # checked inside the jit, as JAX's (whose check passes a string on to its jit's error)
    return _where_jit(condition, x, y)


def typed_as_asked(x, sharding) -> bool:
    """Whether the traced `x` already has the type `sharding` (a resolved out_sharding=) asks
    for: its primitive took the out_sharding, so it needs no constraint (JAX's jaxpr shows
    none after `jnp.einsum(..., out_sharding=P('X'))` or `jnp.zeros(..., out_sharding=...)`)."""
    if not isinstance(x, Tracer):
        return False
    typed, got = typed_sharding(sharding, len(x.aval.shape)), x.aval.split
    return typed is not None and got is not None and got.spec == typed.spec and \
        got.mesh.abstract_mesh == typed.mesh.abstract_mesh
