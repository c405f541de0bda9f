"""jxkernel._src.dtypes, as jax._src.dtypes: the names libraries take from JAX's private dtypes
module (`jax.dtypes`'s, and the base class of extended dtypes).

    >>> supports_inf(jnp.float32), supports_inf(jnp.int32), supports_inf(jnp.float8_e4m3fn)
    (True, False, False)
    >>> to_numeric_dtype(bool), to_floating_dtype(np.complex64), default_types["f"]()
    (dtype('int32'), dtype('float32'), dtype('float32'))
"""
import dataclasses
import types

import numpy as np

from ...core.dtypes import ExtendedDType, extended, prng_key  # noqa: F401
from ...core import dtypes as _core
from ...core.dtypes import TypePromotionError, is_python_scalar, is_weakly_typed  # noqa: F401
from ...core.dtypes import (canonicalize_user_dtype, default_complex_dtype,  # noqa: F401
                            default_float_dtype, default_int_dtype, default_uint_dtype)
from ..dtypes import (canonicalize_dtype, finfo, float0, iinfo, issubdtype,  # noqa: F401
                      itemsize_bits, result_type, scalar_type_of)
from .. import dtypes as _public
# (jnp's promote_types: Python's int, float and complex as weak types, as JAX's)
from ...numpy.dtypes import isdtype, promote_types, safe_to_cast  # noqa: F401
from ...core.avals import AbstractValue
from . import literals

# a dtype: NumPy's, or an extended dtype (typed keys')
DType = np.dtype | ExtendedDType


def __getattr__(name):
    """The narrow dtypes' scalar types (bfloat16, float8_e4m3fn, int4, ...: ml_dtypes', as
    JAX's), or what to install where ml_dtypes is absent."""
    narrow = getattr(_core, name, None) if name in _core.NARROW_DTYPE_NAMES else None
    if isinstance(narrow, np.dtype):
        return narrow.type
    raise _core.missing_narrow_attribute(__name__, name)


# NumPy's scalar types under JAX's names for the 64-bit defaults
bool_, int_, uint, float_, complex_ = np.bool_, np.int64, np.uint64, np.float64, np.complex128


def dtype(x):
    """The dtype of a value or dtype-like, canonicalized, as JAX's: typed values, Arrays and
    avals keep theirs; a dtype named (np.dtype, str, NumPy scalar type) is narrowed without
    x64 as jax_explicit_x64_dtypes says (WARN: with JAX's warning; ERROR: ValueError; ALLOW:
    kept).

    >>> dtype(3), dtype(np.float16), dtype(jnp.ones(2))
    (dtype('int32'), dtype('float16'), dtype('float32'))
    """
    return _core.dtype_of_named(x)


# ---------------------------------------------------------------- JAX's promotion lattice
# its nodes in JAX's order (its promotion tables iterate them): the dtypes, then the weak types
_weak_types = [int, float, complex]
_CUSTOM_FLOAT_ORDER = ("float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4",
                       "float8_e4m3", "float8_e8m0fnu", "float8_e4m3b11fnuz", "float8_e4m3fn",
                       "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "bfloat16")
_custom_float_dtypes = [d for d in (getattr(_core, n) for n in _CUSTOM_FLOAT_ORDER)
                        if isinstance(d, np.dtype)]
_jax_types = [np.dtype(bool),
              *[d for d in _core.INTN_DTYPES if d in _core.UNSIGNED_DTYPES],
              *map(np.dtype, ("uint8", "uint16", "uint32", "uint64")),
              *[d for d in _core.INTN_DTYPES if d in _core.SIGNED_DTYPES],
              *map(np.dtype, ("int8", "int16", "int32", "int64")),
              *_custom_float_dtypes, *map(np.dtype, ("float16", "float32", "float64",
                                                     "complex64", "complex128"))]


def _jax_type(dtype, weak_type: bool):
    """The lattice node of (dtype, weak_type): the dtype, or for a weak one its Python type
    (int, float or complex; bool stays bool)."""
    if not weak_type or dtype == np.bool_:
        return dtype
    return float if dtype in _custom_float_dtypes else type(dtype.type(0).item())


def _dtype_and_weaktype(value) -> tuple:
    """(dtype, weak_type) of a value or type: Python's int, float and complex are weak."""
    return dtype(value), any(value is t for t in _weak_types) or is_weakly_typed(value)


def lattice_result_type(*args) -> tuple:
    """(dtype, weak_type) of JAX's promotion of `args` (jnp's result_type without the weak
    result made the default dtype).

    >>> lattice_result_type(np.int8, 2.0)
    (dtype('float32'), True)
    """
    return _core.result_type(*args)


def check_and_canonicalize_user_dtype(dtype, fun_name=None):
    """A dtype argument checked and canonicalized, as jnp's functions take theirs (extended
    dtypes as they are)."""
    if _core.is_extended(dtype) or _core.extended_scalar_type(dtype):
        return dtype
    return canonicalize_user_dtype(dtype, fun_name or "")


class primal_tangent_dtype_scalar(extended):
    """The scalar class of primal_tangent_dtype's dtypes (never instantiated)."""


@dataclasses.dataclass(frozen=True)
class PrimalTangentDType(ExtendedDType):
    """An extended dtype held as `primal_dtype` whose tangents are `tangent_dtype` (an int8
    with bfloat16 gradients): made by primal_tangent_dtype."""
    primal_dtype: np.dtype
    tangent_dtype: np.dtype
    name: str
    type = primal_tangent_dtype_scalar

    def __repr__(self):
        return self.name

    @property
    def _rules(self):
        # each element is one primal_dtype value; conversions to and from it are free
        return types.SimpleNamespace(
            physical_element_aval=lambda dtype: types.SimpleNamespace(shape=(),
                                                                      dtype=self.primal_dtype),
            tangent_dtype=lambda dtype: self.tangent_dtype, allow_conversion=True)


def primal_tangent_dtype(primal_dtype, tangent_dtype, name=None) -> PrimalTangentDType:
    """A dtype that holds `primal_dtype` values and differentiates as `tangent_dtype`.

    >>> primal_tangent_dtype(np.int8, np.float32)
    PrimalTangentDType{i8/f32}
    """
    primal_dtype, tangent_dtype = dtype(primal_dtype), dtype(tangent_dtype)
    name = name or f"PrimalTangentDType{{{_short_name(primal_dtype)}/{_short_name(tangent_dtype)}}}"
    return PrimalTangentDType(primal_dtype, tangent_dtype, name)


def _short_name(dtype) -> str:
    """JAX's short dtype name: i8, bf16, c64."""
    return str(dtype) if _core.is_extended(dtype) else \
        dtype.name.replace("float", "f").replace("uint", "u").replace("int", "i") \
        .replace("complex", "c")


def supports_inf(dtype) -> bool:
    """Whether `dtype` has infinities (floats and complex do, but not the float8 formats
    without them, such as float8_e4m3fn)."""
    if not issubdtype(dtype, np.inexact):
        return False
    return bool(np.isinf(np.array(np.inf, dtype)))      # NaN in the formats without infinity


# the default dtype of each kind ('b', 'i', 'u', 'f', 'c'), in the current x64 mode
default_types = {"b": lambda: np.dtype(bool), "i": default_int_dtype, "u": default_uint_dtype,
                 "f": default_float_dtype, "c": default_complex_dtype}

# a Python scalar's dtype before canonicalization (int: int64, also without x64)
python_scalar_types_to_dtypes = {bool: np.dtype(bool), int: np.dtype(np.int64),
                                 float: np.dtype(np.float64), complex: np.dtype(np.complex128)}
# the Python scalar types whose values are weakly typed
_weak_types = [int, float, complex]

# the 8-bit floats, in JAX's order (JAX's tests sample cases from this list: the order picks
# which)
_float8_dtypes = list(_core._available(_core.float8_e3m4, _core.float8_e4m3,
                                    _core.float8_e8m0fnu, _core.float8_e4m3b11fnuz,
                                    _core.float8_e4m3fn, _core.float8_e4m3fnuz,
                                    _core.float8_e5m2, _core.float8_e5m2fnuz))


# JAX's table: the integers and bool become float32, the 64-bit ones float64, whatever the x64
# mode (jnp's own promotion, numpy/util.py, canonicalizes after)
_TO_INEXACT = {np.dtype(np.bool_): np.dtype(np.float32),
               **{d: np.dtype(np.float32) for d in _core.INTN_DTYPES
                  if d.name in ("int4", "uint4")},
               **{np.dtype(t): np.dtype(np.float32) for t in (np.int8, np.uint8, np.int16,
                                                              np.uint16, np.int32, np.uint32)},
               np.dtype(np.int64): np.dtype(np.float64), np.dtype(np.uint64): np.dtype(np.float64)}


def to_inexact_dtype(dtype) -> np.dtype:
    """The float dtype an integer or bool promotes to; inexact dtypes stay."""
    dtype = np.dtype(dtype)
    return _TO_INEXACT.get(dtype, dtype)


def to_complex_dtype(dtype) -> np.dtype:
    """complex128 for 64-bit floats (and what promotes to them), else complex64."""
    wide = to_inexact_dtype(dtype) in (np.dtype(np.float64), np.dtype(np.complex128))
    return np.dtype(np.complex128 if wide else np.complex64)


def to_numeric_dtype(dtype) -> np.dtype:
    """bool becomes int32; every other dtype stays (JAX: int32 even with x64)."""
    dtype = np.dtype(dtype)
    return np.dtype(np.int32) if dtype == np.bool_ else dtype


def to_floating_dtype(dtype) -> np.dtype:
    """The real floating dtype of `dtype`'s inexact promotion (complex64 -> float32)."""
    return finfo(to_inexact_dtype(dtype)).dtype


# type -> how canonicalize_value holds its values (register_canonicalize_value_handler)
canonicalize_value_handlers: dict = {}


def register_canonicalize_value_handler(type_, handler) -> None:
    """Have canonicalize_value give `handler(x)` for values of exactly `type_` (None: `x` as it
    is), as JAX's rule for a runtime type of its own (JAX's tests register one).

    >>> register_canonicalize_value_handler(range, None)
    >>> canonicalize_value(range(2))
    range(0, 2)
    """
    canonicalize_value_handlers[type_] = handler or (lambda x: x)


class InvalidInputException(TypeError):
    """What canonicalize_value raises for a value that is no JAX type (a str, a list)."""


def canonicalize_value(x):
    """`x` as JAX holds it: Python scalars as typed scalars and NumPy data as TypedNdArrays,
    at their canonical dtypes (int64 to int32 without x64); typed values, Arrays and tracers
    as they are.

    >>> canonicalize_value(2.5), canonicalize_value(np.arange(2, dtype=np.int64))
    (TypedFloat(2.5, dtype=float32), TypedNdArray([0, 1], dtype=int32))
    """
    if type(x) in canonicalize_value_handlers:
        return canonicalize_value_handlers[type(x)](x)
    if isinstance(x, _TYPED_VALUES) or type(x) is bool:
        return x
    if type(x) in _TYPED_SCALAR_OF:
        return _TYPED_SCALAR_OF[type(x)](x, _core.python_scalar_dtype(x))
    if isinstance(x, (np.ndarray, np.generic)):
        keep = x.dtype == float0 or _core.is_extended(x.dtype)    # float0 has no narrower form
        return literals.TypedNdArray(
            np.asarray(x, x.dtype if keep else canonicalize_dtype(x.dtype)))
    if isinstance(getattr(x, "aval", None), AbstractValue):       # Arrays, tracers
        return x
    raise InvalidInputException(f"Argument '{x}' of type {type(x)} is not a valid JAX type.")


_TYPED_VALUES = (*literals.typed_scalar_types, literals.TypedNdArray)
_TYPED_SCALAR_OF = {int: literals.TypedInt, float: literals.TypedFloat,
                    complex: literals.TypedComplex}
