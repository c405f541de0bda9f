"""jit's other common calls, f(x, 2.0) and f(batch) of NumPy data: Python scalars and NumPy
arrays among Arrays, each given a buffer on the first Array's device (a scalar's kept per
value; NumPy data is copied at each call, as JAX's jit does). The compiled fast path's `Hit`
calls `scalar_buffer` too.

    >>> scalar_signature([2.0])[0]
    (ShapedArray(float32[], weak_type=True),)
    >>> scalar_signature([np.ones(3, np.float32)])[0]
    (ShapedArray(float32[3]),)
"""
from __future__ import annotations

import math

import numpy as np

from ..core import dtypes
from ..core.avals import python_scalar_aval
from ..core.config import config
from . import client as _client
from .array import host_to_device
from .buffer import _COPY, uncommitted_sharding_for
from .client import xc
from .host_values import _host_value, _python_scalar_to_numpy
from .numpy_device import NumpyBuffer, Placement

# A scalar's (aval, buffer) is kept per (value, type, config, placement), so a repeated
# constant (a step size, a temperature) costs a dict lookup, not a transfer (~5 µs, and more
# where the fresh buffer's first use waits on it). Bounded; cleared whole when full (a loop
# counter makes a new value per call).
_SCALAR_TYPES = (bool, int, float, complex)
_scalar_buffers: dict = {}
_MAX_SCALAR_BUFFERS = 256


def is_host_array(x) -> bool:
    """Whether `x` is NumPy data a jit call takes as it takes a Python scalar: a plain
    ndarray (not a subclass: a masked array is refused elsewhere) of a numeric dtype."""
    return type(x) is np.ndarray and dtypes.is_numeric_kind(x.dtype)


def host_placement(leaves):
    """The placement a call of Arrays, Python scalars and NumPy arrays runs at: the Arrays'
    (all one, on one device), else the default device's. AttributeError where there is none
    such (another kind of leaf, Arrays of two placements or over a mesh: the general path).

    >>> host_placement([2.0]) is host_placement([np.ones(2)])
    True
    """
    where = None
    for a in leaves:
        if type(a) not in _SCALAR_TYPES and not is_host_array(a):
            if where is None:
                where = a._buf._sharding
            elif a._buf._sharding is not where:    # (see placement.signature: no fast path)
                raise AttributeError("Arrays of more than one placement")
    if where is None:
        return _default_placement() if leaves else None
    if len(where._devices) != 1:      # Arrays over a mesh: the general path places the rest
        raise AttributeError("Python scalars or NumPy data beside Arrays over a mesh")
    return where


def scalar_signature(leaves) -> tuple:
    """(avals, placement, buffers) of Arrays, Python scalars and NumPy arrays, as `signature`
    and `buffers` give them for Arrays: a scalar is weakly typed (bool not), NumPy data has
    its canonical dtype, and each has a buffer on the placement's device (`host_placement`).
    Anything else raises AttributeError; a Python int out of its dtype's range
    OverflowError, as a transfer does.

    >>> scalar_signature([2.0])[0]
    (ShapedArray(float32[], weak_type=True),)
    """
    where = host_placement(leaves)
    avals, bufs = [], []
    for a in leaves:
        aval, buf = _scalar(a, where) if type(a) in _SCALAR_TYPES else \
            _host_array(a, where) if type(a) is np.ndarray else (a.aval, a._buf)
        avals.append(aval)
        bufs.append(buf)
    return tuple(avals), where, bufs


def scalar_kinds(leaves) -> tuple:
    """Per leaf what a compiled hit checks: a Python scalar's type, NumPy data's dtype (an
    ndarray of that very dtype object and the aval's shape), None for an Array."""
    return tuple([type(a) if type(a) in _SCALAR_TYPES else a.dtype if is_host_array(a) else None
                  for a in leaves])


def scalar_buffer(x, where, aval=None):
    """The buffer of Python scalar `x` on `where`'s device (kept, as in scalar_signature), or
    of NumPy array `x` of `aval` (its shape, and its dtype canonical: what a compiled hit
    checked)."""
    return _scalar(x, where)[1] if aval is None else _host_buffer(x, aval, where)


def _host_array(x, where) -> tuple:
    """(aval, buffer) of NumPy array `x` copied to `where`'s device, in its canonical dtype
    (float64 data is float32 without x64, as a transfer makes it)."""
    value, aval = _host_value(x)
    return aval, _host_buffer(value, aval, where)


def _host_buffer(x, aval, where):
    """NumPy array `x` (of `aval`'s shape) copied to `where`'s device as `aval`'s dtype."""
    value = x if x.dtype == aval.dtype else x.astype(aval.dtype)
    if config._transfer_guarded:         # (host_to_device checks the guard)
        return host_to_device(value, aval, where._devices[0])._buf
    if type(where) is Placement:                  # a copy, as XLA's transfer makes one
        return NumpyBuffer(np.array(value, aval.dtype), aval, where)
    return xc.batched_device_put(aval, where, [value], [where._devices[0]], True, False, _COPY,
                                 True)


def _scalar(x, where) -> tuple:
    # 0.0 == -0.0 and 1 == 1.0 == True: the sign of a zero and the type are part of the key;
    # a NaN never equals itself, so it is never found
    key = (x, type(x), config._generation, where, math.copysign(1.0, x.real) if not x else 0.0)
    found = _scalar_buffers.get(key) if not config._transfer_guarded else None
    return found if found is not None else _put_scalar(x, where, key)


def _put_scalar(x, where, key) -> tuple:
    """(aval, buffer) of a Python scalar put on `where`'s device, kept under `key` (not a
    NaN's, a complex one's, or one made under a transfer guard, which sees each transfer)."""
    dtype = dtypes.python_scalar_dtype(x)
    aval = python_scalar_aval(type(x), dtype)
    value = _python_scalar_to_numpy(x, dtype)
    if config._transfer_guarded:
        return aval, host_to_device(value, aval, where._devices[0])._buf
    # (host_to_device's transfer written out: a loop counter puts a new scalar on every call)
    found = (aval, NumpyBuffer(value, aval, where)) if type(where) is Placement else \
        (aval, xc.batched_device_put(aval, where, [value], [where._devices[0]], True, False,
                                     _COPY, True))
    if x == x and type(x) is not complex:
        if len(_scalar_buffers) >= _MAX_SCALAR_BUFFERS:
            _scalar_buffers.clear()
        _scalar_buffers[key] = found
    return found


def _default_placement():
    device = _client.default_device()
    placement = _placements.get(device)
    if placement is None:
        # scalars alone: an uncommitted call (xla/placement.call_placement)
        placement = _placements[device] = uncommitted_sharding_for((device,))
    return placement


_placements: dict = {}
