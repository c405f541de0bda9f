"""jnp's scalar types: `jnp.float32` and its kin are dtypes (np.dtype(jnp.float32), dtype=
arguments, isinstance checks) and, called, make Arrays, as in JAX.

    >>> jnp.float32(2), jnp.int8([1, 2])
    (Array(2., dtype=float32), Array([1, 2], dtype=int8))
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes as _core
from .creation import asarray
from .dtypes import _DtypeClass

__all__ = [
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "bfloat16", "float16", "float32", "float64", "complex64", "complex128", "int_", "uint",
    "float_", "complex_", "single", "double", "csingle", "cdouble", "float8_e4m3fn",
    "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz", "float8_e3m4",
    "float8_e4m3", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn",
    "int1", "int2", "int4", "uint1", "uint2", "uint4",
]


class _ScalarMeta(_DtypeClass):
    """What `jnp.float32` is: usable as a dtype, and calling it makes a 0-d (or n-d) Array."""

    def __call__(cls, x):
        return asarray(x, dtype=cls.dtype)


def _scalar_type(np_type) -> _ScalarMeta:
    name = np.dtype(np_type).name
    t = _ScalarMeta(name if name != "bool" else "bool_", (object,), {"dtype": np.dtype(np_type)})
    t.__module__ = "jxkernel.numpy"
    t.__doc__ = f"A jxkernel scalar constructor of type {name}: returns an Array, as in JAX."
    return t


bool_ = _scalar_type(np.bool_)
int8, int16, int32, int64 = map(_scalar_type, (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = map(_scalar_type, (np.uint8, np.uint16, np.uint32, np.uint64))
# the narrow types (bfloat16, the float8s, ...), ml_dtypes': JAX 0.10.2 names them all; XLA's
# CPU backend runs the float8s, float4 and the 2- and 4-bit ints, but neither it nor JAX's has
# arrays of the 6-bit floats or 1-bit ints. Without ml_dtypes they are left out (jnp's
# __getattr__ then says what to install).
_NARROW = {n: _scalar_type(getattr(_core, n)) for n in _core.NARROW_DTYPE_NAMES
           if isinstance(getattr(_core, n), np.dtype)}
globals().update(_NARROW)
__all__ = [n for n in __all__ if n not in _core.NARROW_DTYPE_NAMES or n in _NARROW]
float16 = _scalar_type(np.float16)
float32 = single = _scalar_type(np.float32)
float64 = double = _scalar_type(np.float64)
complex64 = csingle = _scalar_type(np.complex64)
complex128 = cdouble = _scalar_type(np.complex128)
int_, uint, float_, complex_ = int64, uint64, float64, complex128
