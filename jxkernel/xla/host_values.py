"""Host values as NumPy data of their canonical dtype: what every transfer to a device puts.

    >>> _host_value(2.0)
    (array(2., dtype=float32), ShapedArray(float32[], weak_type=True))
"""
from __future__ import annotations

import functools

import numpy as np

from ..core import dtypes
from ..core.avals import ShapedArray, python_scalar_aval
from ..core.errors import masked_array_error
from ..core.ir import Literal
from ..core.trace import Tracer
from ..core.tracer_errors.escaped import escaped_tracer_error


def to_numpy(x, dtype=None) -> np.ndarray:
    """`x` as NumPy data of its canonical dtype (or of `dtype`)."""
    if dtypes.is_python_scalar(x):
        target = dtype if dtype is not None else dtypes.python_scalar_dtype(x)
        return _python_scalar_to_numpy(x, target)
    value = np.asarray(x)
    if value.dtype == object:
        raise TypeError(f"Cannot convert {type(x).__name__} to an array: it holds Python "
                        f"objects (dtype=object)")
    target = dtypes.canonicalize_dtype(value.dtype if dtype is None else dtype)
    return value if value.dtype == target else value.astype(target)


def _python_scalar_to_numpy(x, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if type(x) is int and dtype in dtypes.INT_DTYPES:
        low, high = _int_range(dtype)
        if not low <= x <= high:
            raise OverflowError(f"Python int {x} too large to convert to {dtype.name}")
    return np.asarray(x, dtype=dtype)


@functools.lru_cache(maxsize=None)
def _int_range(dtype) -> tuple:
    info = dtypes.iinfo(dtype)          # (np.iinfo is built anew on every call: ~1 µs)
    return int(info.min), int(info.max)


@functools.lru_cache(maxsize=4096)
def _aval(shape, dtype) -> ShapedArray:
    return ShapedArray(shape, dtype)        # avals are immutable: one per type is enough


def _host_value(x):
    """(NumPy value, aval) for a host value: NumPy data or a Python scalar (weakly typed)."""
    if type(x) is np.ndarray and dtypes.is_numeric_kind(x.dtype):   # the common case, quickly
        target = dtypes.canonicalize_dtype(x.dtype)
        value = x if x.dtype == target else x.astype(target)
        return value, _aval(value.shape, target)
    if isinstance(x, Tracer):
        if not x._trace.alive:           # leaked from a finished trace: JAX's error for it
            raise escaped_tracer_error(x)
        raise TypeError(f"Cannot put a traced value {x} on a device: it has no value while "
                        f"its function is being transformed")
    if dtypes.is_python_scalar(x):
        dtype = dtypes.python_scalar_dtype(x)
        return _python_scalar_to_numpy(x, dtype), python_scalar_aval(type(x), dtype)
    if type(x) is Literal:      # a weak-typed literal re-bound by eval_jaxpr (dispatch.to_device)
        return np.asarray(x.val, x.aval.dtype), x.aval
    if dtypes.keeps_its_dtype(x):       # a typed literal (_src/literals.py): its own type
        return np.asarray(x, x.aval.dtype), x.aval
    if isinstance(x, np.ma.MaskedArray):         # its mask would be dropped silently
        raise masked_array_error()
    if isinstance(x, (np.ndarray, np.generic)):  # strings, objects, dates: JAX's words
        dtypes.check_valid_dtype(x.dtype)
    value = to_numpy(x)
    return value, ShapedArray(value.shape, value.dtype)
