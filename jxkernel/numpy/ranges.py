"""Evenly spaced numbers (NumPy's function_base): linspace, logspace, geomspace, computed as
JAX computes them. arange, NumPy's multiarray function, stays in creation.py.

    >>> jnp.logspace(0, 2, 3)
    Array([  1.,  10., 100.], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from .. import lax
from ..core import dtypes as _core
from ..core.interpreter_primitives import typed_scalar
from ..lax.transfer import place
from . import ufuncs, util
from .creation import _check_device, _concrete_int, asarray, empty, full
from .dtypes import canonicalize_user_dtype, result_type, to_inexact_dtype

__all__ = ["linspace", "logspace", "geomspace"]


def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype=None, axis: int = 0, *, device=None):
    """`num` evenly spaced values from start to stop (stop included if endpoint), computed
    as JAX does: start * (1 - t) + stop * t.

    >>> jnp.linspace(0, 1, 5)
    Array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
    """
    num = _concrete_int(num, "'num' argument of jnp.linspace")
    axis = _concrete_int(axis, "'axis' argument of jnp.linspace")
    if device is not None:
        _check_device(device)
    out = _linspace(start, stop, num, endpoint, retstep, dtype, axis)
    if device is not None:
        out = (place(out[0], device), out[1]) if retstep else place(out, device)
    return out


@util.jnp_jit(static_argnames=("num", "endpoint", "retstep", "dtype", "axis"))
def _linspace(start, stop, num, endpoint, retstep, dtype, axis):
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    start, stop = util.ensure_arraylike("linspace", start, stop)
    if dtype is None:
        dtype = to_inexact_dtype(result_type(start, stop))
    else:
        dtype = canonicalize_user_dtype(dtype, "linspace")
    cdtype = to_inexact_dtype(dtype)
    start = lax.convert_element_type(start, cdtype)
    stop = lax.convert_element_type(stop, cdtype)
    bounds = list(util.broadcast_shapes(start.shape, stop.shape))
    bstart, bstop = util.broadcast_to(start, bounds), util.broadcast_to(stop, bounds)
    axis = len(bounds) + axis + 1 if axis < 0 else axis
    bounds.insert(axis, 1)
    div = num - 1 if endpoint else num
    if num > 1:
        # (of the broadcast bounds: start and stop may differ in rank, as jnp broadcasts them)
        delta = lax.div(lax.sub(bstop, bstart), _scalar(div, cdtype))
        iota_shape = [1] * len(bounds)
        iota_shape[axis] = div
        real = _real_dtype(cdtype)
        step = lax.div(lax.reshape(lax.iota(real, div), tuple(iota_shape)), _scalar(div, real))
        step = lax.convert_element_type(step, cdtype)
        one = _scalar(1, cdtype)
        out = lax.add(lax.mul(lax.reshape(bstart, tuple(bounds)), lax.sub(one, step)),
                      lax.mul(lax.reshape(bstop, tuple(bounds)), step))
        if endpoint:
            out = lax.concatenate([out, lax.expand_dims(bstop, (axis,))], axis)
    elif num == 1:
        delta = asarray(np.nan if endpoint else lax.sub(bstop, bstart), dtype=cdtype)
        out = lax.reshape(bstart, tuple(bounds))
    else:
        bounds[axis] = 0
        delta = full((), np.nan, cdtype)
        out = empty(bounds, dtype)
    if _core.is_int(dtype) and not _core.is_int(out.dtype):
        out = lax.floor(out)
    out = lax.convert_element_type(out, dtype)
    return (out, delta) if retstep else out


def _scalar(value, dtype):
    """`value` as a scalar constant of `dtype` (a 64-bit one under ALLOW too: typed_scalar)."""
    return typed_scalar(value, dtype)


def _real_dtype(d):
    return {_core.complex64: _core.float32, _core.complex128: _core.float64}.get(d, d)


def _log_endpoints(name, start, stop, dtype):
    """(start, stop) in the computation dtype, the result dtype and the computation dtype, in
    JAX's order for logspace/geomspace (the dtype before the arraylike check)."""
    if dtype is None:
        dtype = to_inexact_dtype(result_type(start, stop))
    else:
        dtype = canonicalize_user_dtype(dtype, name)
    cdtype = to_inexact_dtype(dtype)
    start, stop = util.ensure_arraylike(name, start, stop)
    return (lax.convert_element_type(start, cdtype), lax.convert_element_type(stop, cdtype),
            dtype, cdtype)


def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10.0, dtype=None,
             axis: int = 0):
    """base ** linspace(start, stop, num)."""
    num = _concrete_int(num, "'num' argument of jnp.logspace")
    axis = _concrete_int(axis, "'axis' argument of jnp.logspace")
    return _logspace(start, stop, num, endpoint, base, dtype, axis)


@util.jnp_jit(static_argnames=("num", "endpoint", "dtype", "axis"))
def _logspace(start, stop, num, endpoint, base, dtype, axis):
    start, stop, dtype, cdtype = _log_endpoints("logspace", start, stop, dtype)
    lin = linspace(start, stop, num, endpoint=endpoint, axis=axis)
    return lax.convert_element_type(ufuncs.power(base, lin), dtype)


def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None, axis: int = 0):
    """Numbers spaced evenly on a log scale (a geometric progression) from start to stop."""
    num = _concrete_int(num, "'num' argument of jnp.geomspace")
    axis = _concrete_int(axis, "'axis' argument of jnp.geomspace")
    return _geomspace(start, stop, num, endpoint, dtype, axis)


@util.jnp_jit(static_argnames=("num", "endpoint", "dtype", "axis"))
def _geomspace(start, stop, num, endpoint, dtype, axis):
    start, stop, dtype, cdtype = _log_endpoints("geomspace", start, stop, dtype)
    sign = ufuncs.sign(start)
    res = ufuncs.multiply(sign, logspace(ufuncs.log10(ufuncs.divide(start, sign)),
                                         ufuncs.log10(ufuncs.divide(stop, sign)), num,
                                         endpoint=endpoint, base=10.0, dtype=cdtype, axis=0))
    axis = util.canonicalize_axis(axis, res.ndim)
    if axis != 0:
        res = lax.transpose(res, (*range(1, axis + 1), 0, *range(axis + 1, res.ndim)))
    return lax.convert_element_type(res, dtype)
