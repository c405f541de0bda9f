"""Where a call runs and whether its results are committed, as JAX decides (`call_placement`),
and the placement tokens jit's and eager dispatch's hot paths compare (`signature`,
`all_placed`): an Array's buffer has one of two sharding objects per device, committed
(`buffer.sharding_for`) or not (`buffer.uncommitted_sharding_for`).

    >>> call_placement([jnp.ones(3)])
    (CpuDevice(id=0), False)
"""
from __future__ import annotations

from ..core.basearray import OverData
from . import client as _client
from .array import Array
from .buffer import sharding_for, uncommitted_sharding_for


def signature(arrays) -> tuple:
    """(avals, placement) of Arrays, for a cache key: their types, and a hashable token of
    where they live (the first one's sharding object, one per device and kind, committed or
    not; MIXED where one-device Arrays do not share it, None for no arrays). A non-Array
    raises AttributeError. (A sharded jit's fast path checks each layout itself.)

    >>> signature([jax.device_put(1.0)])[0]
    (ShapedArray(float32[], weak_type=True),)
    """
    if not arrays:
        return (), None
    where = arrays[0]._buf._sharding
    if type(arrays[0]) is Array and arrays[0]._sharding is None:    # (one device, no mesh)
        for a in arrays:
            if a._buf._sharding is not where and type(a) is Array and a._sharding is None:
                where = MIXED
    return tuple([a.aval for a in arrays]), where


# The placement token of Arrays on several devices, or of both kinds: no fast path holds a
# program under it (the call's placement needs call_placement's look at each one)
MIXED = "mixed placement"


def all_placed(bufs, where) -> bool:
    """Whether every buffer's sharding object is `where` (the fast paths' placement test)."""
    for b in bufs:
        if b._sharding is not where:
            return False
    return True


def found_for(table, key, where):
    """`table[key]` (a jit's fast dict) if its program runs where `where` says, else None:
    where real JAX is imported too, it makes the two sharding objects of one device equal,
    and a key must not find the other kind's program (results committed or not)."""
    entry = table.get(key)
    if entry is None or where is None or getattr(entry.exe, "_sharding", where) is where:
        return entry                # (a sharded jit's entry checks its layouts itself)
    return None


def placement_of(device, committed: bool):
    """The sharding object of a one-device buffer on `device`, committed or not."""
    return sharding_for((device,)) if committed else uncommitted_sharding_for((device,))


def call_device(leaves):
    """Where a call on `leaves` runs when nothing else decides (`call_placement`'s device)."""
    return call_placement(leaves)[0]


def call_placement(leaves, what=None) -> tuple:
    """(device, committed): where a call on `leaves` runs and whether its results are
    committed, as JAX decides: on the device of its committed Arrays, committed; with none,
    on the default device (`jax.default_device`'s where chosen), uncommitted. Arrays committed
    to two devices raise JAX's ValueError; `what() -> (function name, leaf names)` names them
    in it (default: "<unnamed>", "args[i]")."""
    device = None
    for x in leaves:
        if type(x) is not Array:
            x = placed_data(x)
        if x is not None and x._buf._committed:
            if device is None:
                device = x._buf._sharding._devices[0]
            elif x._buf._sharding._devices[0] != device:
                raise incompatible_devices_error(leaves, what)
    if device is None:
        return _client.default_device(), False
    return device, True


def placed_data(x):
    """`x`'s one-device Array: `x` itself, or the data of a typed key (an array of an extended
    dtype) on one device, whose placement is the key's (JAX's computation follows a key's
    data: `random.normal` of a key put on device 1 runs there); None for anything else."""
    if type(x) is Array:
        return x
    base = x._base if isinstance(x, OverData) else None
    return base if type(base) is Array else None


def incompatible_devices_error(leaves, what=None) -> ValueError:
    """JAX's error for a call on Arrays committed to different devices (jax/_src/stages.py's
    `_device_assignment_mismatch_error`): the first two such Arrays named."""
    name, names = what() if what is not None else \
        ("<unnamed>", [f"args[{i}]" for i in range(len(leaves))])
    committed = [(n, x) for n, x in zip(names, leaves)
                 if placed_data(x) is not None and placed_data(x)._buf._committed]
    first = committed[0][1].device
    second = next(i for i, (_, x) in enumerate(committed) if x.device != first)
    # (JAX's dtype names here are long ones: float32[3], not f32[3])
    shown = [f"argument {n} of {name} with shape {x.dtype.name}[{','.join(map(str, x.shape))}] "
             f"and with device ids [{x.device.id}] on platform {x.device.platform.upper()}"
             for n, x in (committed[0], committed[second])]
    return ValueError(f"Received incompatible devices for jitted computation. Got {shown[0]} "
                      f"and {shown[1]}")
