"""JAX's form of the ArrayImpl constructor, `ArrayImpl(aval, sharding, arrays, committed=)`
(jax._src.array): an Array of type `aval` laid out as `sharding` from one single-device
Array per addressable device of it (any order: each is placed by its device), with JAX's
checks and ValueErrors. jxkernel's own form, `ArrayImpl(buf, aval, sharding)`, wraps a
buffer (xla/array.py); that constructor hands JAX's form here.

    >>> import numpy as np, jxkernel as jax
    >>> from jxkernel._src import array, core
    >>> x = array.ArrayImpl(core.ShapedArray((3,), np.float32), jax.sharding.SingleDeviceSharding(
    ...     jax.devices()[0]), [jax.device_put(np.arange(3.0, dtype=np.float32))], committed=True)
    >>> x.tolist(), x.committed
    ([0.0, 1.0, 2.0], True)
"""
from __future__ import annotations

from .buffer import _committed_buffer
from .client import xc
from .numpy_device import NumpyBuffer, NumpyShardedBuffer


def _device_id(a) -> int:
    return a.device.id


def from_parts(aval, sharding, arrays, committed: bool, skip_checks: bool, sharded) -> tuple:
    """(buffer, aval, mesh sharding or None) of the Array JAX's `ArrayImpl(aval, sharding,
    arrays, committed, _skip_checks)` makes; `sharded`: xla/sharded.py, which assembles an
    Array over a mesh (None before the first mesh, when there is no such sharding)."""
    arrays = list(arrays)
    if not skip_checks:
        _check(arrays, sharding, aval)
    if len(arrays) == 1 and len(sharding.device_set) == 1 and not hasattr(sharding, "mesh"):
        out = arrays[0]
    else:
        out = sharded.make_array_from_single_device_arrays(aval.shape, sharding, arrays,
                                                           dtype=aval.dtype)
    buf = out._buf
    if committed and not out.committed:
        buf = _committed_buffer(buf)
    elif not committed and out.committed:
        buf = _uncommitted(buf)
    return buf, out.aval, out._sharding


def _check(arrays, sharding, aval) -> None:
    """JAX's `_check_and_rearrange` and `_validate_shape_and_dtype_for_per_device_arrays`."""
    addressable = sharding.addressable_devices
    if len(arrays) != len(addressable):
        raise ValueError(f"Expected {len(addressable)} per-device arrays (this is how many "
                         f"devices are addressable by the sharding), but got {len(arrays)}")
    ids = {_device_id(a) for a in arrays}
    if len(ids) != len(arrays):
        raise ValueError("When making an array from single-device arrays, the input arrays"
                         " must be from distinct devices, but got device IDs"
                         f" {[_device_id(a) for a in arrays]}")
    wanted = {d.id for d in addressable}
    if ids ^ wanted:
        msg = "Addressable devices and per-device arrays devices do not match."
        if wanted - ids:
            msg += (f" Sharding contains devices {wanted - ids} that are not present in "
                    "per-device arrays.")
        if ids - wanted:
            msg += (f" Per-device arrays contain devices {ids - wanted} that are not present "
                    "in the sharding.")
        raise ValueError(msg)
    expected = sharding.shard_shape(aval.shape)
    for a in arrays:
        if a.dtype != aval.dtype:
            raise ValueError("Input buffers to `Array` must have matching dtypes. "
                             f"Got {a.dtype}, expected {aval.dtype} for buffer: {a}")
        if a.shape != expected:
            raise ValueError(f"Expected shard shape {expected} doesn't match the single "
                             f"device array shape {a.shape}. Shape of Array is "
                             f"{aval.str_short()} with sharding {sharding}")


def _uncommitted(buf):
    """`buf`'s data, not copied, as a buffer not committed to its devices (JAX's
    `committed=False`). The NumPy backend's one-device buffer says it by its placement, the
    device's uncommitted one; its buffer over a mesh by its flag (jit refuses it, as JAX)."""
    if type(buf) is NumpyBuffer:
        return NumpyBuffer(buf.value, buf.aval, buf._sharding._devices[0].uncommitted)
    if type(buf) is NumpyShardedBuffer:
        return NumpyShardedBuffer(buf.value, buf.aval, buf._sharding, buf._arrays,
                                  committed=False)
    return xc.ArrayImpl(buf.aval, buf._sharding, buf._arrays, committed=False,
                        _skip_checks=True)
