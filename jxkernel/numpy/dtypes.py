"""jnp's dtype API: JAX's promotion lattice (`result_type`, `promote_types`), dtype
predicates, finfo/iinfo (the scalar types, `jnp.float32`..., are in scalar_types.py).

    >>> jnp.result_type(jnp.int8, 2.0), jnp.promote_types(jnp.uint8, jnp.int8)
    (dtype('float32'), dtype('int16'))

The lattice is JAX's (jax/_src/dtypes.py) node for node, including its x32 twist
(uint32 promotes with int32 to int32) and its rules for all-weak and single arguments;
tests/numpy/test_numpy_promotion.py checks every pair against a table recorded from JAX.
"""
from __future__ import annotations

import functools

import numpy as np
from numpy import (character, complexfloating, dtype, e, euler_gamma, flexible,  # noqa: F401
                   floating, generic, get_printoptions, inexact, inf, integer, nan, newaxis,
                   number, pi, printoptions, set_printoptions, signedinteger, unsignedinteger)

from ..core.config import config
from ..core import dtypes as _core
from ..core.avals import ShapedArray
from ..core.dtypes import canonicalize_user_dtype  # noqa: F401  (jnp's functions read it here)

__all__ = [
    "object_", "ComplexWarning",
    "dtype", "generic", "number", "inexact", "floating", "integer", "signedinteger",
    "unsignedinteger", "complexfloating", "character", "flexible",
    "result_type", "promote_types", "can_cast", "issubdtype", "isdtype", "finfo", "iinfo",
    "iscomplexobj", "isrealobj", "isscalar", "ndim", "shape", "size",
    "e", "euler_gamma", "inf", "nan", "pi", "newaxis",
    "printoptions", "set_printoptions", "get_printoptions",
]


# ---------------------------------------------------------------- scalar types as dtypes
class _DtypeClass(type):
    """What makes `jnp.float32` usable as a dtype. Its subclass scalar_types._ScalarMeta adds
    the call that makes an Array; this half lives here for the predicates below to recognise
    it (scalar_types imports creation, which imports this module)."""
    dtype: np.dtype

    @property
    def __numpy_dtype__(cls) -> np.dtype:     # NumPy >= 2.4 protocol: np.dtype(jnp.float32)
        return cls.dtype

    def __hash__(cls):
        return hash(cls.dtype.type)

    def __eq__(cls, other):
        return cls is other or cls.dtype.type == other

    def __ne__(cls, other):
        return not cls == other

    def __instancecheck__(cls, instance):
        return isinstance(instance, cls.dtype.type)


object_ = np.object_                # for dtype checks only, as in JAX
ComplexWarning = np.exceptions.ComplexWarning


# ---------------------------------------------------------------- the lattice
_BOOL, _I8, _I16, _I32, _I64 = _core.bool_, _core.int8, _core.int16, _core.int32, _core.int64
_U8, _U16, _U32, _U64 = _core.uint8, _core.uint16, _core.uint32, _core.uint64
_BF16, _F16, _F32, _F64 = _core.bfloat16, _core.float16, _core.float32, _core.float64
_C64, _C128 = _core.complex64, _core.complex128
_WEAK = (int, float, complex)       # the weak nodes: Python's types stand for them


def _least_upper_bound(x64: bool, *nodes):
    """The join of lattice nodes (dtypes, or int/float/complex for weak types); the lattice
    itself lives in core.dtypes, which the core's own promotion uses too."""
    try:
        return _core._join(x64, *nodes, strict=config.jax_numpy_dtype_promotion == "strict")
    except KeyError:
        bad = next(n for n in nodes if n not in _core._UPPER_BOUNDS[x64])
        hint = _core.ml_dtypes_hint(bad)
        raise ValueError(f"dtype={bad!r} is not a valid dtype for JAX type promotion."
                         + (f" The {hint}" if hint else "")) from None


def _node(d: np.dtype, weak: bool):
    """The lattice node of a (dtype, weak_type): weak types stand for their kind."""
    if not weak or d == _BOOL:
        return d
    return float if d in _core.FLOAT_DTYPES else complex if d in _core.COMPLEX_DTYPES else int


_PY_DTYPES = {bool: np.dtype(bool), int: _I64, float: _F64, complex: _C128}


def dtype_and_weak(x) -> tuple:
    """(canonical dtype, weak_type) of a value or dtype-like, as JAX's promotion sees it."""
    t = type(x)
    if t in _PY_DTYPES:                                  # Python scalars: weak unless bool
        return _core.canonicalize_dtype(_PY_DTYPES[t]), t is not bool
    if t is ShapedArray:
        return x.dtype, x.weak_type
    aval = getattr(x, "aval", None)                      # Array, Tracer, ShapeDtypeStruct
    if aval is not None:
        return aval.dtype, aval.weak_type
    if x is int or x is float or x is complex:           # the Python types stand for weak
        return _core.canonicalize_dtype(_PY_DTYPES[x]), True
    if isinstance(x, (np.ndarray, np.generic)):
        return _core.canonicalize_dtype(x.dtype), False
    if hasattr(x, "__jax_array__"):
        return dtype_and_weak(x.__jax_array__())
    if isinstance(x, type) and not issubclass(x, np.generic) and hasattr(x, "dtype"):
        # jnp.int64 (not NumPy's scalar type): its dtype canonicalized, as JAX's dtype()
        # reads it, even under jax_explicit_x64_dtypes ALLOW (np.int64 is kept there)
        return _core.canonicalize_dtype(x.dtype), False
    if not isinstance(x, (type, str, np.dtype)) and hasattr(x, "dtype"):
        return _core.canonicalize_dtype(x.dtype), False     # JAX's dtype(): quietly
    if isinstance(x, (str, bytes)):           # text, read as a dtype's name ('a' is |S0)
        return _core.dtype_of_named(x), False
    base = next((b for b in t.__mro__[1:] if b in _PY_DTYPES), None)
    if base is not None:          # an IntEnum member: its base type's (tried after NumPy's
        return dtype_and_weak(base(x))        # scalars: np.float64 is a float too)
    return canonicalize_user_dtype(x, "dtype"), False       # a dtype named: JAX's check


def lattice_result_type(*args) -> tuple:
    """(dtype, weak_type) of combining `args` (values or dtypes) under JAX's promotion."""
    return _core.promoted(tuple(map(dtype_and_weak, args)))


_DEFAULT_OF_KIND = {"b": lambda: _BOOL, "i": _core.default_int_dtype,
                    "u": _core.default_uint_dtype, "f": _core.default_float_dtype,
                    "c": _core.default_complex_dtype, "V": _core.default_float_dtype}


def result_type(*args, return_weak_type_flag: bool = False):
    """The dtype NumPy functions give for `args` (arrays, scalars, dtypes), as in JAX.

    >>> jnp.result_type(jnp.float16, 1.0), jnp.result_type(1.0)
    (dtype('float16'), dtype('float32'))
    """
    if not args:
        raise ValueError("at least one array or dtype is required")
    for a in args:
        _check_jax_type(a)
    d, weak = lattice_result_type(*(_core.default_float_dtype() if a is None else a
                                    for a in args))
    if weak:
        d = _DEFAULT_OF_KIND[d.kind]()
    return (d, weak) if return_weak_type_flag else d


def _check_jax_type(x) -> None:
    """JAX's TypeError for NumPy data or a dtype of no JAX type (text, objects, dates,
    records) given to result_type: "Value '<U1' with dtype <U1 is not a valid JAX array type"
    (the core's promotion would name the dtype only, as an unsupported one)."""
    if isinstance(x, (np.ndarray, np.generic, np.dtype)):
        d = x if isinstance(x, np.dtype) else x.dtype
        if not _core.is_numeric_kind(d):
            raise TypeError(f"Value '{x}' with dtype {d} is not a valid JAX array type. "
                            f"Only arrays of numeric types are supported by JAX.")


def safe_to_cast(x, to) -> bool:
    """Whether values of `x` (a value or dtype) keep their meaning as `to`'s dtype: the same
    dtype, or one that promotes to it (JAX's jax._src.dtypes.safe_to_cast; `to` counts as
    strongly typed).

    >>> safe_to_cast(jnp.int16, jnp.float32), safe_to_cast(jnp.float32, jnp.int16)
    (True, False)
    """
    source, target = dtype_and_weak(x)[0], dtype_and_weak(to)[0]
    return source == target or result_type(x, target) == target


def promote_types(a, b) -> np.dtype:
    """The smallest dtype both `a` and `b` safely promote to (JAX's lattice; not
    canonicalized, so int64 survives in 32-bit mode as in JAX).

    >>> jnp.promote_types(jnp.int8, jnp.uint8)
    dtype('int16')
    """
    return np.dtype(_least_upper_bound(config.jax_enable_x64, _promotion_node(a),
                                       _promotion_node(b)))


def _promotion_node(d):
    """`d` as a lattice node; a narrow dtype's name without ml_dtypes says what to install
    (NumPy alone knows no 'bfloat16': where nothing imported ml_dtypes, np.dtype fails)."""
    if any(d is t for t in _WEAK):
        return d
    if isinstance(d, str) and _core.ml_dtypes_hint(d):
        raise ValueError(f"dtype={d!r} is not a valid dtype for JAX type promotion. The "
                         f"{_core.ml_dtypes_hint(d)}")
    return np.dtype(d)


# JAX's table (not a promotion): ints of up to 32 bits and bool become float32 even in
# 64-bit mode; 64-bit ints become float64. int4 and uint4 are in it, int2 and uint2 not (an
# int2's mean stays int2, its sin is refused).
_TO_INEXACT = {**{d: _F32 for d in (_BOOL, _I8, _I16, _I32, _U8, _U16, _U32,
                                    *_core._available(_core.int4, _core.uint4))},
               _I64: _F64, _U64: _F64}


def to_inexact_dtype(d) -> np.dtype:
    """The float dtype sin or mean gives for an input of dtype `d`.

    >>> to_inexact_dtype(jnp.int8), to_inexact_dtype(jnp.bfloat16)
    (dtype('float32'), dtype(bfloat16))
    """
    d = np.dtype(d)
    return _TO_INEXACT.get(d, d)    # not canonicalized, as JAX's: an int64 array made under
                                    # enable_x64 has float64 sines


def itemsize_bits(dtype) -> int:
    """The size of one element of `dtype` in bits: its width, not its bytes (int4 is 4 bits
    though NumPy stores it in a byte; bool is 8, as laid out).

    >>> itemsize_bits(np.int8), itemsize_bits(np.complex64)
    (8, 64)
    """
    if dtype is None:
        raise ValueError("dtype cannot be None.")
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return 8
    if issubdtype(dtype, np.integer):
        return iinfo(dtype).bits
    if issubdtype(dtype, np.complexfloating):
        return 2 * finfo(dtype).bits
    if issubdtype(dtype, np.floating):
        return finfo(dtype).bits
    raise ValueError(f"unexpected input: {dtype=}")


# ---------------------------------------------------------------- predicates
_CUSTOM_FLOATS = {d.type for d in (*_core.BFLOAT16_DTYPES, *_core.NARROW_FLOAT_DTYPES)}
# ml_dtypes' narrow ints derive from np.generic alone: their kinds, as JAX answers them
_INTN_KINDS = {d.type: np.signedinteger if d in _core.SIGNED_DTYPES else np.unsignedinteger
               for d in _core.INTN_DTYPES}


def issubdtype(arg1, arg2) -> bool:
    """np.issubdtype (its parameter names too) that also knows bfloat16 is a floating type
    and accepts jnp's types.

    >>> jnp.issubdtype(jnp.bfloat16, jnp.floating)
    True
    """
    if _core.is_extended(arg2):          # an extended dtype (a typed key's) holds itself only
        return _core.is_extended(arg1) and arg1 == arg2
    a = _core.extended_scalar_type(arg1) or arg1     # a typed key's dtype answers as prng_key
    return _issubdtype(a if isinstance(a, (type, np.dtype)) else np.dtype(a),
                       arg2 if isinstance(arg2, (type, np.dtype)) else np.dtype(arg2))


@functools.lru_cache(maxsize=512)
def _issubdtype(a, b) -> bool:
    a_sc = a if isinstance(a, type) and issubclass(a, np.generic) else np.dtype(a).type
    b_sc = b if isinstance(b, type) and issubclass(b, np.generic) else np.dtype(b).type
    if a_sc in _CUSTOM_FLOATS:
        return b_sc in {a_sc, np.floating, np.inexact, np.number, np.generic}
    if a_sc in _INTN_KINDS:
        return b_sc in {a_sc, _INTN_KINDS[a_sc], np.integer, np.number, np.generic}
    return bool(_core.issubdtype(a_sc, b_sc))


_KINDS = {"bool": {_BOOL}, "signed integer": set(_core.SIGNED_DTYPES),
          "unsigned integer": set(_core.UNSIGNED_DTYPES), "integral": set(_core.INT_DTYPES),
          "real floating": set(_core.FLOAT_DTYPES),
          "complex floating": set(_core.COMPLEX_DTYPES),
          "numeric": set(_core.INT_DTYPES | _core.INEXACT_DTYPES)}


def isdtype(dtype, kind) -> bool:
    """Array API dtype test: `kind` is a name ('real floating', 'integral', ...), a dtype,
    or a tuple of them. ``jnp.isdtype(jnp.int8, ('bool', 'integral'))`` is True."""
    d = np.dtype(dtype)
    options = set()
    for k in kind if isinstance(kind, tuple) else (kind,):
        if isinstance(k, str) and k in _KINDS:
            options |= _KINDS[k]
            continue
        try:
            options.add(np.dtype(k))
        except TypeError as err:
            if isinstance(k, str):
                raise ValueError(f"Unrecognized kind={k!r} expected one of {list(_KINDS)}, or a "
                                 f"compatible input for jnp.dtype()") from None
            raise TypeError(f"Expected kind to be a dtype, string, or tuple; got kind={k!r}") \
                from err
    return d in options


def _as_np_dtype(x):
    if isinstance(x, _DtypeClass):
        return x.dtype
    return x.dtype if hasattr(x, "aval") or isinstance(x, np.ndarray) else x


def finfo(d):
    """Machine limits of a float dtype (bfloat16 included), as ml_dtypes.finfo."""
    return (_core.ml_dtypes or np).finfo(_as_np_dtype(d))    # (NumPy's without ml_dtypes)


def iinfo(d):
    """Machine limits of an integer dtype."""
    return (_core.ml_dtypes or np).iinfo(_as_np_dtype(d))


def can_cast(from_, to, casting="safe") -> bool:
    """np.can_cast, accepting jnp's scalar types and arrays."""
    return np.can_cast(np.dtype(_as_np_dtype(from_)), np.dtype(_as_np_dtype(to)), casting)


# ---------------------------------------------------------------- metadata of array-likes
def _dtype_of(x) -> np.dtype:
    return dtype_and_weak(x)[0]


def iscomplexobj(x) -> bool:
    """True if `x` has a complex dtype (no computation)."""
    if x is None:
        return False
    if getattr(x, "dtype", None) is None and isinstance(x, (list, tuple)):
        # what jnp.asarray(x) would be (its elements may be tracers): complex where one is
        return any(iscomplexobj(e) for e in x)
    if getattr(x, "dtype", None) is None and hasattr(x, "__jax_array__"):
        x = x.__jax_array__()       # a duck-typed array: its value's dtype, as JAX's asarray
    try:
        return np.dtype(getattr(x, "dtype", None) or np.asarray(x).dtype).kind == "c"
    except (TypeError, ValueError):
        return False


def isrealobj(x) -> bool:
    return not iscomplexobj(x)


def isscalar(element) -> bool:
    """True for Python/NumPy scalars and 0-d arrays (as jnp.isscalar)."""
    if np.isscalar(element):
        return True
    if isinstance(element, np.ndarray) or hasattr(element, "aval"):
        return element.ndim == 0
    if hasattr(element, "__jax_array__"):      # its array's (as JAX's asarray(element).ndim)
        return np.ndim(element.__jax_array__()) == 0
    return False


def ndim(a) -> int:
    return len(shape(a))


def shape(a) -> tuple:
    s = getattr(a, "shape", None)
    return tuple(s) if s is not None else np.shape(a)


def size(a, axis=None) -> int:
    s = shape(a)
    return int(np.prod(s)) if axis is None else s[axis]
