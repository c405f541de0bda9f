"""Moving values between the host and devices: `device_put` (host data, an Array to another
device, or a mesh through xla/sharded.py) and `device_get`.

    >>> device_put(1.0)
    Array(1., dtype=float32, weak_type=True)
"""
from __future__ import annotations

import numpy as np

from ..core.config import config
from ..core.physical import is_extended, wrap_physical
from ..core.mesh import NamedSharding, PartitionSpec
from . import client as _client
from .array import Array, _copy_buffer, host_to_device, sharding_for
from .client import xc
from .host_values import _host_value
from .numpy_device import NumpyBuffer, NumpyDevice


def device_put(x, device=None, *, copy=False) -> Array:
    """`x` (an Array, NumPy data or a Python scalar) as an Array on `device`.

    >>> device_put(1.0)
    Array(1., dtype=float32, weak_type=True)
    >>> device_put(np.arange(3), jxkernel.devices()[1]).device      # needs 2 devices
    CpuDevice(id=1)
    """
    if type(x) is not Array and is_extended(getattr(x, "aval", None)) and hasattr(x, "_base"):
        # typed keys (or any extended dtype's values): their data moves, and they stay of
        # their type (random/keys.py, core/earray.py)
        return wrap_physical(x.aval, device_put(x._base, device, copy=copy))
    if type(device).__name__ == "Format":            # jax.experimental.layout.Format
        device = _sharding_of_format(device, np.ndim(x))
    if device is not None and not isinstance(device, _DEVICE_TYPES):
        if _is_named(device):                  # split over a mesh: xla/sharded.py
            # loads with the first mesh or sharded Array: `import jxkernel` needs neither
            from .sharded import device_put as put_on_mesh
            return put_on_mesh(x, device)
        device = _device_of_sharding(device)
    if isinstance(x, Array):
        return _array_to_device(x, device, copy)
    value, aval = _host_value(x)
    if device is None:                  # uncommitted: free to move where it is used (JAX's)
        return host_to_device(value, aval, _client.default_device())
    return host_to_device(value, aval, device, committed=True)


_DEVICE_TYPES = (NumpyDevice,) if xc is None else (NumpyDevice, xc.Device)


def _is_named(sharding) -> bool:
    return isinstance(sharding, (NamedSharding, PartitionSpec))


def _sharding_of_format(fmt, ndim: int):
    """A Format's sharding, where its layout is the one jxkernel's arrays have: none given, or
    row-major without tiling (Orbax restores each shard with `Format(layout, sharding)`)."""
    layout = fmt.layout
    row_major = tuple(range(ndim))
    if layout is not None and (tuple(getattr(layout, "major_to_minor", ())) != row_major or
                               getattr(layout, "tiling", None)):
        raise NotImplementedError(f"device_put to {fmt!r}: jxkernel's arrays are row-major "
                                  f"(major_to_minor={row_major}); another layout is not "
                                  f"supported")
    return fmt.sharding


def _device_of_sharding(sharding):
    """The device a SingleDeviceSharding names (JAX's device_put takes shardings too)."""
    # loads with the first mesh or sharded Array: `import jxkernel` needs neither
    from .sharding import SingleDeviceSharding
    if not isinstance(sharding, SingleDeviceSharding):
        raise TypeError(f"device_put's device must be a Device (one of jxkernel.devices()) or a "
                        f"SingleDeviceSharding; got {sharding!r} of type "
                        f"{type(sharding).__name__}")
    if sharding.memory_kind != sharding._device.default_memory().kind:
        raise NotImplementedError(f"device_put to memory kind {sharding.memory_kind!r}: "
                                  f"jxkernel places arrays in each device's default memory "
                                  f"only; use {sharding.with_memory_kind(None)!r}")
    return sharding._device


def _array_to_device(x: Array, device, copy: bool) -> Array:
    if device is None and not copy:             # itself, as JAX's (deleted or not)
        return x
    x._check_alive()
    if x._sharding is not None:                 # over a mesh: gathered onto one device
        if device is None:
            return x.copy() if copy else x      # split over a mesh: it stays so
        device = device if device is not None else x._home_device()
        return host_to_device(x._value(), x.aval, device, committed=True)
    if device is None or device == x.device and x._buf._committed:
        return x.copy() if copy else x
    if device == x.device and not copy:     # committed now, where it is: the same data
        return Array(_committed_buffer(x._buf), x.aval)
    if config._transfer_guarded:
        # loads once a transfer guard is set (config._transfer_guarded)
        from .transfer_guard import check
        check("device_to_device", x.aval, device)
    buf = _copy_buffer(x._buf, sharding_for((device,)))
    return Array(buf if buf._committed else _committed_buffer(buf), x.aval)


def _committed_buffer(buf):
    """`buf`'s data, not copied, as a buffer committed to its device."""
    if type(buf) is NumpyBuffer:
        return NumpyBuffer(buf.value, buf.aval, buf._sharding._devices[0].placement)
    return xc.ArrayImpl(buf.aval, sharding_for(tuple(buf._sharding._devices)),
                        [buf], committed=True, _skip_checks=True)


def device_get(tree):
    """Arrays in `tree` (nested lists, tuples, dicts) as NumPy arrays; other leaves unchanged.

    >>> device_get({"a": device_put(1.0)})
    {'a': array(1., dtype=float32)}
    """
    if isinstance(tree, Array):
        return tree._value()
    if isinstance(tree, (list, tuple)) and not hasattr(tree, "_fields"):
        return type(tree)(device_get(t) for t in tree)
    if isinstance(tree, tuple):                                  # a namedtuple
        return type(tree)(*(device_get(t) for t in tree))
    if isinstance(tree, dict):
        return type(tree)((k, device_get(v)) for k, v in tree.items())
    return tree
