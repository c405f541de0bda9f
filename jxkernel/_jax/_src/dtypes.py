"""jxkernel._src.dtypes, as jax._src.dtypes: the names libraries take from JAX's private dtypes
module (`jax.dtypes`'s, and the base class of extended dtypes).

    >>> supports_inf(jnp.float32), supports_inf(jnp.int32), supports_inf(jnp.float8_e4m3fn)
    (True, False, False)
    >>> to_numeric_dtype(bool), to_floating_dtype(np.complex64), default_types["f"]()
    (dtype('int32'), dtype('float32'), dtype('float32'))
"""
import numpy as np

from ...core.dtypes import ExtendedDType, extended, prng_key  # noqa: F401
from ...core import dtypes as _core
from ...core.dtypes import (TypePromotionError, dtype, is_python_scalar,  # noqa: F401
                          is_weakly_typed, promote_types)
from ...core.dtypes import (default_complex_dtype, default_float_dtype,  # noqa: F401
                            default_int_dtype, default_uint_dtype)
from ..dtypes import (canonicalize_dtype, finfo, float0, iinfo, issubdtype,  # noqa: F401
                      itemsize_bits, result_type, scalar_type_of)
from .. import dtypes as _public
from ...numpy.dtypes import safe_to_cast  # noqa: F401

# a dtype: NumPy's, or an extended dtype (typed keys')
DType = np.dtype | ExtendedDType


def __getattr__(name):
    """bfloat16 (ml_dtypes' scalar type, as JAX's) comes from jxkernel.dtypes, which says what
    to install where ml_dtypes is absent."""
    if name == "bfloat16":
        return _public.bfloat16
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


# JAX's table: the integers and bool become float32, the 64-bit ones float64, whatever the x64
# mode (jnp's own promotion, numpy/util.py, canonicalizes after)
_TO_INEXACT = {np.dtype(np.bool_): np.dtype(np.float32),
               **{d: np.dtype(np.float32) for d in _core.INTN_DTYPES if d.name in ("int4", "uint4")},
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


def canonicalize_value(x):
    """`x` as JAX holds it: NumPy data at its canonical dtype (int64 to int32 without x64);
    Arrays, tracers and Python scalars as they are."""
    if isinstance(x, (np.ndarray, np.generic)):
        return np.asarray(x, canonicalize_dtype(x.dtype))
    return x
