"""The dtypes JAX's tests run over, and the tolerances they compare with.

`dtypes.floating`, `dtypes.all_integer`, ...: lists of NumPy scalar types (as JAX's test files
parameterize over them), only those the device under test supports, and without the 64-bit
ones unless x64 is on. `tolerance(dtype, tol)`: a test's tolerance for a dtype, from its own
dict or the default table.

    >>> [np.dtype(d).name for d in dtypes.floating]
    ['float32']
    >>> tolerance(np.float32), tolerance(np.float16, {np.float16: 1e-2})
    (1e-06, 0.01)
"""
import functools

import numpy as np

from ....core import dtypes as _core
from ....core.config import config
from ....tree_util import tree_map
from ...dtypes import finfo


def _types(*dts) -> list:
    """NumPy's scalar types of `dts`, leaving out the narrow ones ml_dtypes would give."""
    return [np.dtype(d).type for d in dts if isinstance(d, np.dtype) or isinstance(d, type)]


_BF16 = _types(*_core.BFLOAT16_DTYPES)
_NARROW_INTS = _types(*(d for d in _core.INTN_DTYPES if d.name in ("int4", "uint4")))


def supported_dtypes() -> set:
    """What the CPU runs (JAX's tests run jxkernel on its CPU client): every dtype but the
    float8s, 64-bit ones only with x64."""
    found = {np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
             np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128,
             *_BF16, *_NARROW_INTS}
    if not config.jax_enable_x64:
        found -= {np.int64, np.uint64, np.float64, np.complex128}
    return found


class _DtypeLists:
    """The lists, read when a test module asks (x64 may be set before that)."""

    def supported(self, candidates) -> list:
        have = supported_dtypes()
        return [d for d in candidates if d in have]

    @functools.cached_property
    def custom_floats(self):
        return self.supported(_BF16 + _types(*_core.FLOAT8_DTYPES, *_core.FLOAT4_DTYPES))

    floating = functools.cached_property(lambda self: self.supported([np.float32, np.float64]))
    all_floating = functools.cached_property(
        lambda self: self.supported([*_BF16, np.float16, np.float32, np.float64]))
    integer = functools.cached_property(lambda self: self.supported([np.int32, np.int64]))
    all_integer = functools.cached_property(
        lambda self: self.supported([np.int8, np.int16, np.int32, np.int64]))
    unsigned = functools.cached_property(lambda self: self.supported([np.uint32, np.uint64]))
    all_unsigned = functools.cached_property(
        lambda self: self.supported([np.uint8, np.uint16, np.uint32, np.uint64]))
    complex = functools.cached_property(
        lambda self: self.supported([np.complex64, np.complex128]))
    boolean = functools.cached_property(lambda self: self.supported([np.bool_]))
    inexact = functools.cached_property(lambda self: self.floating + self.complex)
    all_inexact = functools.cached_property(lambda self: self.all_floating + self.complex)
    numeric = functools.cached_property(
        lambda self: self.floating + self.integer + self.unsigned + self.complex)
    all = functools.cached_property(
        lambda self: self.all_floating + self.all_integer + self.all_unsigned + self.complex
        + self.boolean)


dtypes = _DtypeLists()


def _table(ints, narrow_floats, bf16, f16, f32, f64) -> dict:
    """One tolerance per dtype: `ints` for bools and integers, the rest by float width
    (complex as its parts)."""
    table = {np.dtype(t): ints for t in (np.bool_, np.int8, np.int16, np.int32, np.int64,
                                         np.uint8, np.uint16, np.uint32, np.uint64)}
    table.update({d: ints for d in _core.INTN_DTYPES})
    table.update({d: narrow_floats for d in (*_core.FLOAT8_DTYPES, *_core.FLOAT4_DTYPES)})
    table.update({d: bf16 for d in _core.BFLOAT16_DTYPES})
    table.update({np.dtype(np.float16): f16, np.dtype(np.float32): f32,
                  np.dtype(np.complex64): f32, np.dtype(np.float64): f64,
                  np.dtype(np.complex128): f64})
    return table


# exact for ints; otherwise about a few ulps of each float width (JAX's values: the tests'
# explicit tolerances are written against them)
_DEFAULT = _table(0, 1e-1, 1e-2, 1e-3, 1e-6, 1e-15)
_DEFAULT[np.dtype(_core.float0)] = 0
for _d in _core.FLOAT4_DTYPES + tuple(d for d in _core.FLOAT8_DTYPES if d.name == "float8_e8m0fnu"):
    _DEFAULT[_d] = 1e0          # one or two bits of mantissa: anything within a factor
default_gradient_tolerance = {k: v for k, v in _table(0, 1e-1, 1e-1, 1e-2, 2e-3, 1e-5).items()
                              if v}
for _d in _core.FLOAT4_DTYPES:
    default_gradient_tolerance[_d] = 1e0


def default_tolerance() -> dict:
    return _DEFAULT


def _dtype(x) -> np.dtype:
    """x's dtype; a Python scalar's is JAX's weak default for its kind."""
    if hasattr(x, "dtype"):
        return x.dtype
    if _core.is_python_scalar(x):
        return _core.dtype(type(x), canonicalize=False)      # int: int64, float: float64
    return np.asarray(x).dtype


def tolerance(dtype, tol=None):
    """The tolerance for `dtype`: `tol` itself if a number, its entry if a dict, else the
    default table's."""
    if tol is None:
        tol = {}
    if not isinstance(tol, dict):
        return tol
    tol = {np.dtype(k): v for k, v in tol.items()}
    dtype = _core.canonicalize_dtype(np.dtype(dtype))
    return tol.get(dtype, _DEFAULT[dtype])


def _as_dict(tol) -> dict:
    if isinstance(tol, dict):
        return {np.dtype(k): v for k, v in tol.items()}
    return dict.fromkeys(_DEFAULT, tol or 0)


def join_tolerance(tol1, tol2) -> dict:
    """The looser of two tolerances, dtype by dtype."""
    out = _as_dict(tol1)
    for k, v in _as_dict(tol2).items():
        out[k] = max(v, out.get(k, 0))
    return out


def num_float_bits(dtype) -> int:
    return finfo(_core.canonicalize_dtype(dtype)).bits


def to_default_dtype(value) -> np.ndarray:
    """`value` as an array of JAX's default dtype of its kind (int32/float32/complex64 unless
    x64): NumPy's answers as JAX would type them."""
    value = np.asarray(value)
    default = {"i": _core.default_int_dtype, "u": _core.default_uint_dtype,
               "f": _core.default_float_dtype,
               "c": _core.default_complex_dtype}.get(value.dtype.kind)
    return value.astype(default()) if default else value


def with_jax_dtype_defaults(func, use_defaults=True):
    """`func` whose outputs take JAX's default dtypes (all, or where the pytree
    `use_defaults` says so): a NumPy reference that answers in float64 then answers as JAX."""
    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        result = func(*args, **kwargs)
        if isinstance(use_defaults, bool):
            return tree_map(to_default_dtype, result) if use_defaults else result
        return tree_map(lambda x, use: to_default_dtype(x) if use else x, result, use_defaults)
    return wrapped
