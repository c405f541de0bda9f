"""A one-device buffer beneath an Array, jaxlib's or the NumPy backend's: its sharding object
(one per device, committed or not: `sharding_for`, `uncommitted_sharding_for`), its data read
on the host (`_to_host`, a read-only view where it can be), and its copies (to another device
or backend, or committed where it is). It needs no Array: array.py builds on it.

    >>> sharding_for((jax.devices()[0],)) is sharding_for((jax.devices()[0],))
    True
"""
from __future__ import annotations

import functools

import numpy as np

from ..core.avals import AbstractToken
from ..core.config import config
from .client import xc
from .numpy_device import NumpyBuffer, NumpyDevice, Placement, unsupported


@functools.lru_cache(maxsize=None)
def sharding_for(devices: tuple):
    """A sharding object for a buffer on `devices`, replicated; needs no Python hooks."""
    if type(devices[0]) is NumpyDevice:
        if len(devices) > 1:     # (an Array over several is laid out on a mesh: sharded.py)
            raise unsupported("an Array over several devices", "lay it out on a mesh")
        return devices[0].placement
    return xc.GSPMDSharding(xc.DeviceList(devices), xc.HloSharding.replicate())


@functools.lru_cache(maxsize=None)
def uncommitted_sharding_for(devices: tuple):
    """The sharding object of an uncommitted buffer on `devices` (one made without naming a
    device): the same placement as `sharding_for`'s, another object, so that the hot paths'
    identity test of a buffer's `_sharding` tells committed from uncommitted too (where a
    call runs, and whether its results are committed, depends on both: `call_placement`)."""
    if type(devices[0]) is NumpyDevice:
        sharding_for(devices)               # (its checks)
        return devices[0].uncommitted
    return xc.GSPMDSharding(xc.DeviceList(devices), xc.HloSharding.replicate())


# Copy host data during the call: never alias the caller's NumPy memory (array.py's module doc).
_COPY = xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL if xc is not None else None


def _to_host(buf) -> np.ndarray:
    """A one-device buffer's data as NumPy (waits for it): a zero-copy view on CPU.

    The buffer protocol first: jaxlib's `_single_device_array_to_np_array_did_copy` tries
    `import jax` twice on each new buffer (~45 µs when jax is not installed; a real JAX
    installed beside jxkernel is kept out: client._KeepRealJaxOut). It is the
    fallback for what the protocol refuses: bfloat16 (BufferError), non-CPU buffers."""
    if config._transfer_guarded:
        from .transfer_guard import check_read  # loaded once a guard is set
        check_read(buf)
    try:
        return np.asarray(memoryview(buf))
    except (BufferError, TypeError, ValueError):
        return buf._single_device_array_to_np_array_did_copy()[0]


def _frozen(value: np.ndarray, shape) -> np.ndarray:
    """`value` made read-only and given `shape` (a shard's buffer may lack a unit axis)."""
    if value.shape != shape:
        value = value.reshape(shape)
    if value.flags.writeable:
        value.flags.writeable = False
    return value


def _rewrap_buffer(buf, aval, device):   # (XLA's shards: the NumPy backend's are its own)
    """A one-device jaxlib buffer given our aval (jaxlib's shard buffers carry none)."""
    return xc.ArrayImpl(aval, sharding_for((device,)), [buf], committed=True, _skip_checks=True)


def _copy_buffer(buf, sharding):
    """A copy of `buf`'s data on `sharding`'s devices (one buffer per device)."""
    if type(sharding) is Placement:     # to the NumPy backend (from it, or from XLA's)
        if type(buf) is NumpyBuffer and isinstance(buf.aval, AbstractToken):
            return NumpyBuffer(buf.value, buf.aval, sharding)   # (no data: none to read)
        return NumpyBuffer(np.array(_to_host(buf)), buf.aval, sharding)
    if type(buf) is NumpyBuffer:        # from the NumPy backend to an XLA device
        return xc.batched_device_put(buf.aval, sharding, [buf.value], list(sharding._devices),
                                     True, False, _COPY, True)
    return xc.batched_copy_array_to_devices_with_sharding(
        [buf], [sharding._devices], [sharding], [xc.ArrayCopySemantics.ALWAYS_COPY])[0]


def _committed_buffer(buf):
    """`buf`'s data, not copied, as a buffer committed to its device."""
    if type(buf) is NumpyBuffer:
        return NumpyBuffer(buf.value, buf.aval, buf._sharding._devices[0].placement)
    return xc.ArrayImpl(buf.aval, sharding_for(tuple(buf._sharding._devices)),
                        [buf], committed=True, _skip_checks=True)
