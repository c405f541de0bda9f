"""`device_put`, the one door for placing a value: on a device (xla/transfers.py) or laid out
over a mesh (xla/sharded.py). It stands above both, so that neither imports the other.

    >>> device_put(1.0)
    Array(1., dtype=float32, weak_type=True)
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.avals import MemorySpace, Token, get_aval
from ..core.mesh import NamedSharding, PartitionSpec
from ..core.physical import wrap_physical
from . import string_arrays
from .array import Array, host_to_device
from .layout import check_put_format, sharding_of_format, xla_layout_text
from .numpy_device import unsupported
from .relayout import relayout
from .transfers import put_on_device, typed_data


def device_put(x, device=None, *, copy=False, name: str = "x") -> Array:
    """`x` (an Array, NumPy data or a Python scalar) as an Array on `device`: a Device, a
    sharding (one device's, or a NamedSharding or P over a mesh), a Format, or None. `name`:
    what errors call `x` (a pytree's leaf: "x['w']").

    >>> device_put(1.0)
    Array(1., dtype=float32, weak_type=True)
    >>> device_put(np.arange(3), jax.devices()[1]).device      # needs 2 devices
    CpuDevice(id=1)
    """
    if type(x) is Token:                # a new Token around a copy of its carrier, as JAX's
        return Token(device_put(x._buf, device, copy=True))
    if getattr(x, "dtype", None) == dtypes.float0 and isinstance(x, np.ndarray):
        # an integer's tangent holds nothing and has no device type: zeros on the host, as
        # JAX's device_put gives them
        return np.zeros(x.shape, dtypes.float0)
    data = typed_data(x)
    if data is not None:                # a typed key: its data moves (a Format reads its rank)
        return wrap_physical(x.aval, device_put(data, device, copy=copy))
    if type(device).__name__ == "Format":            # jax.experimental.layout.Format
        aval = get_aval(x)
        check_put_format(device, aval)
        text = xla_layout_text(device.layout, aval)
        if text is not None:        # another layout than row-major: put, then laid out so
            return _laid_out(x, device, text, copy, name)
        device = sharding_of_format(device, len(aval.shape))
    if isinstance(device, MemorySpace):
        x, device = _in_space(x, device, copy)
    if hasattr(device, "_as_mesh_sharding"):        # a GSPMDSharding: its tiling as a mesh's
        device = device._as_mesh_sharding()
    strings = type(getattr(x, "dtype", None)) is dtypes.StringDType
    if strings:                         # NumPy's StringDType: on CPU devices alone, committed
        value, aval, first = string_arrays.checked(x, device)
        if not isinstance(device, NamedSharding):
            return host_to_device(value, aval, first, True)
    if isinstance(device, (NamedSharding, PartitionSpec)):
        # split over a mesh: loads with the first mesh, which `import jxkernel` does not need
        from .sharded import device_put as put_on_mesh, put as put_blocks
        if strings:                     # (each device's block, as numbers' are)
            device.check_shape(aval.shape)
            return put_blocks(value, aval, device)
        return put_on_mesh(x, device)
    return put_on_device(x, device, copy=copy)


def _in_space(x, space, copy: bool):
    """(x as an Array, its sharding in `space`'s memory): JAX's device_put to a memory space
    keeps `x` where it is (on the default device, for host data) and commits it there, in
    that memory (`.sharding.memory_kind` 'device'). jxkernel's arrays live in each device's
    default memory only: Host's (JAX's 'pinned_host') is refused, as a Sharding of that
    memory kind is."""
    if space is not MemorySpace.Device:
        raise NotImplementedError(
            f"device_put to jax.memory.Space.{space.name}: jxkernel places arrays in each device's "
            f"default memory only (JAX's MemorySpace.Device); use jax.memory.Space.Device")
    x = x if isinstance(x, Array) else put_on_device(x, None, copy=copy)
    return x, x.sharding.with_memory_kind("device")


def _laid_out(x, fmt, text: str, copy: bool, name: str) -> Array:
    """device_put of `x` to a Format whose layout is not row-major (XLA's `text` of it): `x`
    itself where it is committed and laid out so already (and no copy is asked), else put as
    its sharding says and its buffer copied into that layout (xla/relayout.py), as JAX's
    identity jit with out_shardings=fmt gives it."""
    if not copy and isinstance(x, Array) and x._buf._committed and x.format == fmt:
        return x
    put = device_put(x, fmt.sharding, copy=copy)
    if type(put.device).__name__ == "NumpyDevice":
        raise unsupported(
            f"device_put of {name} ({put.aval.str_short()}) to {fmt!r}: a layout other than "
            f"row-major (major_to_minor={tuple(range(put.ndim))})",
            "put it row-major instead (device_put(x, fmt.sharding): the same values, laid "
            "out in memory as every array there is), or run under JAX_PLATFORMS=cpu, where "
            "XLA lays buffers out")
    share = put.aval if put._sharding is None else \
        put.aval.update(shape=put._sharding.shard_shape(put.aval.shape), sharding=None)
    moved = relayout(put._buf, text, share)
    return type(put)(moved, put.aval, put._sharding)
