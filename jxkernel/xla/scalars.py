"""jit's other common call, f(x, 2.0): Python scalars among Arrays, each given a buffer on
the first Array's device, kept per value (the compiled fast path's `Hit` calls
`scalar_buffer` too).

    >>> scalar_signature([2.0])[0]
    (ShapedArray(float32[], weak_type=True),)
"""
from __future__ import annotations

import math

from ..core import dtypes
from ..core.avals import python_scalar_aval
from ..core.config import config
from . import client as _client
from .array import host_to_device
from .buffer import _COPY, uncommitted_sharding_for
from .client import xc
from .host_values import _python_scalar_to_numpy
from .numpy_device import NumpyBuffer, Placement

# A scalar's (aval, buffer) is kept per (value, type, config, placement), so a repeated
# constant (a step size, a temperature) costs a dict lookup, not a transfer (~5 µs, and more
# where the fresh buffer's first use waits on it). Bounded; cleared whole when full (a loop
# counter makes a new value per call).
_SCALAR_TYPES = (bool, int, float, complex)
_scalar_buffers: dict = {}
_MAX_SCALAR_BUFFERS = 256


def scalar_signature(leaves) -> tuple:
    """(avals, placement, buffers) of Arrays and Python scalars, as `signature` and `buffers`
    give them for Arrays: a scalar is weakly typed (bool not) and has a buffer on the first
    Array's device (the default device with scalars alone). Anything else raises
    AttributeError; a Python int out of its dtype's range OverflowError, as a transfer does.

    >>> scalar_signature([2.0])[0]
    (ShapedArray(float32[], weak_type=True),)
    """
    where = None
    for a in leaves:
        if type(a) not in _SCALAR_TYPES:
            if where is None:
                where = a._buf._sharding
            elif a._buf._sharding is not where:    # (see placement.signature: no fast path)
                raise AttributeError("Arrays of more than one placement")
    if where is None:
        where = _default_placement() if leaves else None
    elif len(where._devices) != 1:      # Arrays over a mesh: the general path places scalars
        raise AttributeError("Python scalars beside Arrays over a mesh")
    avals, bufs = [], []
    for a in leaves:
        aval, buf = _scalar(a, where) if type(a) in _SCALAR_TYPES else (a.aval, a._buf)
        avals.append(aval)
        bufs.append(buf)
    return tuple(avals), where, bufs


def scalar_kinds(leaves) -> tuple:
    """Per leaf its Python scalar type, or None for an Array: what a compiled hit checks."""
    return tuple([type(a) if type(a) in _SCALAR_TYPES else None for a in leaves])


def scalar_buffer(x, where):
    """The buffer of Python scalar `x` on `where`'s device (kept, as in scalar_signature)."""
    return _scalar(x, where)[1]


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
