"""`MultiDeviceArray`: an Array with one buffer per device (pmap's results, replicated
values), and the ways to make one from host data.

    >>> x = device_put_sharded([np.float32(i) for i in range(4)], devices())
    >>> x.shape, len(x.devices())
    ((4,), 4)

Either layout keeps the *per-device* aval on the jaxlib buffer, which is what a replicated
executable (num_replicas=N) expects for each parameter. Keeping the single-device class free
of multi-device branches keeps its hot paths as short as they were; code that tests
`type(x) is Array` (eager dispatch) sends a MultiDeviceArray down its general path, which
gathers it with `device_put`.
"""
from __future__ import annotations

import numpy as np

from ..core.avals import ShapedArray
from ..core.config import config
from . import client as _client
from .array import (_COPY, Array, Shard, _frozen, _rewrap_buffer, _to_host, host_to_device,
                    sharding_for)
from .client import xc
from .host_values import _host_value


class MultiDeviceArray(Array):
    """An Array with one buffer per device, stacked (pmap results) or replicated.

    >>> x = device_put_sharded([np.float32(i) for i in range(4)], devices())
    >>> x.shape, len(x.devices())
    ((4,), 4)
    """
    __slots__ = ("_stacked",)

    def __init__(self, buf, aval: ShapedArray, stacked: bool):
        super().__init__(buf, aval)
        self._stacked = stacked

    @property
    def device(self):
        raise ValueError(f"This Array lives on {len(self._buf._sharding._devices)} devices; "
                         f"use .devices() or .addressable_shards, or gather it onto one device "
                         f"with device_put(x, device)")

    @property
    def device_list(self) -> tuple:
        """The devices in shard order (shard i lives on device_list[i])."""
        return tuple(self._buf._sharding._devices)

    @property
    def platform(self) -> str:
        return _client.platform_of(self.device_list[0])

    @property
    def is_fully_replicated(self) -> bool:
        return not self._stacked

    @property
    def sharding(self):
        raise NotImplementedError(
            f"The sharding of an Array on {len(self.device_list)} devices (a pmap result or a "
            f"replicated array) is not modelled by jxkernel yet; use .devices(), .device_list "
            f"or .addressable_shards instead.")

    @property
    def addressable_shards(self) -> list:
        """Per device: its index into the array, and its data as a one-device Array.

        Stacked shards keep a leading axis of size 1 (shape (1, ...)), as JAX's do."""
        self._check_alive()
        shard_aval = ShapedArray((1,) + self.shape[1:] if self._stacked else self.shape,
                                 self.dtype, self.weak_type)
        shards = []
        for i, (buf, device) in enumerate(zip(_client.shard_buffers(self._buf), self.device_list)):
            data = Array(_rewrap_buffer(buf, shard_aval, device), shard_aval)
            if self._stacked:
                index = (slice(i, i + 1),) + (slice(None),) * (self.ndim - 1)
                shards.append(Shard(device, index, 0, data))
            else:
                shards.append(Shard(device, (slice(None),) * self.ndim, i, data))
        return shards

    def _value(self) -> np.ndarray:
        if self._npy is None:
            self._check_alive()
            bufs = _client.shard_buffers(self._buf)
            value = np.stack([_to_host(b) for b in bufs]) if self._stacked else _to_host(bufs[0])
            self._npy = _frozen(value, self.aval.shape)
        return self._npy

    def _rewrap(self, buf) -> Array:
        return MultiDeviceArray(buf, self.aval, self._stacked)

    def _shard_buffers(self) -> list:
        return _client.shard_buffers(self._buf)


# JAX has one concrete class for arrays on one device or many; code that checks
# `type(x).__name__` sees that name here too. `__qualname__` keeps the real one, so the
# class's repr and tracebacks say which implementation it is.
MultiDeviceArray.__name__ = "ArrayImpl"


def device_put_sharded(shards, devices) -> MultiDeviceArray:
    """Shard `i` on `devices[i]`; the result is stacked: shape (len(devices),) + shard shape.

    >>> device_put_sharded([np.zeros(2), np.ones(2)], devices()[:2]).shape
    (2, 2)
    """
    devices = tuple(devices)
    if len(shards) != len(devices):
        raise ValueError(f"device_put_sharded got {len(shards)} shards for {len(devices)} "
                         f"devices; give one shard per device")
    values = [_host_value(s) if not isinstance(s, Array) else (s._value(), s.aval)
              for s in shards]
    aval = values[0][1]
    for i, (v, a) in enumerate(values):
        if (a.shape, a.dtype) != (aval.shape, aval.dtype):
            raise ValueError(f"device_put_sharded: shard {i} is {a.str_short()} but shard 0 is "
                             f"{aval.str_short()}; every shard must have the same shape and dtype")
    return assemble([v for v, _ in values], aval, devices, stacked=True)


def device_put_replicated(x, devices) -> MultiDeviceArray:
    """A copy of `x` on each device, stacked: shape (len(devices),) + x.shape (as JAX's)."""
    value, aval = _host_value(x) if not isinstance(x, Array) else (x._value(), x.aval)
    return assemble([value] * len(devices), aval, tuple(devices), stacked=True)


def replicate(x, devices) -> MultiDeviceArray:
    """`x` on every device, as one replicated Array of x's shape (each shard is all of x)."""
    value, aval = _host_value(x) if not isinstance(x, Array) else (x._value(), x.aval)
    return assemble([value] * len(devices), aval, tuple(devices), stacked=False)


def assemble(values, shard_aval: ShapedArray, devices: tuple, stacked: bool) -> MultiDeviceArray:
    """One Array from per-device host values. Each shard is put on its own device: a
    replicated-sharding batched_device_put would silently copy values[0] everywhere. On the
    NumPy backend's one device: the stack (or the value) as one Array there (host_to_device
    checks the transfer guard)."""
    if devices[0].platform == "numpy":
        value = np.stack(values) if stacked else values[0]
        aval = shard_aval.update(shape=(len(devices),) + shard_aval.shape) if stacked else \
            shard_aval
        return host_to_device(np.asarray(value, shard_aval.dtype), aval, devices[0], True)
    if config._transfer_guarded:
        # loads once a transfer guard is set (config._transfer_guarded)
        from .transfer_guard import check
        for d in devices:
            check("host_to_device", shard_aval, d)
    bufs = [xc.batched_device_put(shard_aval, sharding_for((d,)), [v], [d], True, False, _COPY,
                                  True)
            for v, d in zip(values, devices)]
    buf = xc.ArrayImpl(shard_aval, sharding_for(devices), bufs, committed=True,
                       _skip_checks=True)
    aval = shard_aval.update(shape=(len(devices),) + shard_aval.shape) if stacked else shard_aval
    return MultiDeviceArray(buf, aval, stacked)
