"""`device_put`, the one door for placing a value: on a device (xla/transfers.py) or laid out
over a mesh (xla/sharded.py). It stands above both, so that neither imports the other.

    >>> device_put(1.0)
    Array(1., dtype=float32, weak_type=True)
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.avals import MemorySpace, Token, get_aval, mem_space_to_kind
from ..core.mesh import NamedSharding, PartitionSpec, eager_mesh, on_context_mesh
from ..core.physical import wrap_physical
from . import memory_kinds, string_arrays
from .array import Array, host_to_device
from .layout import check_put_format, sharding_of_format, xla_layout_text
from .numpy_device import unsupported
from .relayout import relayout
from .transfers import put_on_device, typed_data


def device_put(x, device=None, *, copy=False, name: str = "x") -> Array:
    """`x` (an Array, NumPy data or a Python scalar) as an Array on `device`: a Device, a
    sharding (one device's, or a NamedSharding or P over a mesh), a memory space, a Format, or
    None. A sharding's memory kind (`memory_kind="pinned_host"`) or a memory space
    (jax.memory.Space.Host) places it in that memory of its devices (xla/memory_kinds.py).

    >>> device_put(np.ones(2), jax.memory.Space.Host).sharding.memory_kind
    'pinned_host'
    """
    if isinstance(device, MemorySpace):
        if device is MemorySpace.Any:
            raise ValueError("device_put to jax.memory.Space.Any: it names no memory; "
                             "use jax.memory.Space.Device or jax.memory.Space.Host")
        # JAX's: kept on the device (or sharding) it is on, committed, in that memory
        x = x if isinstance(x, Array) else _placed(x, None, copy, name)
        device = _space_sharding(x).with_memory_kind(mem_space_to_kind(device))
    kind = getattr(device, "memory_kind", None)
    if kind is not None and kind != memory_kinds.DEFAULT and type(device).__name__ != "Format":
        if isinstance(x, Array) and memory_kinds.kind_of(x) == kind and not copy and \
                x._buf._committed and x.sharding == device:
            return x
        return memory_kinds.in_memory(
            _placed(x, device.with_memory_kind(memory_kinds.DEFAULT), copy, name, device), kind)
    out = _placed(x, device, copy, name)
    if not isinstance(out, Array):
        return out
    kind = memory_kinds.kind_of(out)
    if device is not None and kind != memory_kinds.DEFAULT:
        # a host Array put on a Device or a sharding of device memory: moved there
        return memory_kinds.in_memory(out, memory_kinds.DEFAULT)
    typed = memory_kinds.typed_in(out.aval, kind)
    # (a host Array's data laid out anew keeps its type: retyped as where it now is)
    return out if typed is out.aval else type(out)(out._buf, typed, out._sharding)


def _space_sharding(x: Array):
    """The sharding a put of `x` into a memory space keeps (its memory kind aside): JAX runs
    that put as a program, whose result is named from its layout as jit's are: over
    set_mesh's mesh for an uncommitted `x` (replicated), P() over a mesh of one device."""
    if not x.committed and on_context_mesh():
        return NamedSharding(eager_mesh(), PartitionSpec())
    s = x.sharding
    if isinstance(s, NamedSharding) and s.mesh.size == 1 and s.spec != PartitionSpec():
        return NamedSharding(s.mesh, PartitionSpec(), memory_kind=s.memory_kind)
    return s


def _placed(x, device, copy: bool, name: str, asked=None) -> Array:
    """device_put's placing of `x` on `device` (no memory space: device_put moves it into
    one after). `name`: what errors call `x` (a pytree's leaf: "x['w']"); `asked`: the
    sharding in another memory kind that `device` places for, which errors name.

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
        return put_on_mesh(x, device, asked)
    return put_on_device(x, device, copy=copy)


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
