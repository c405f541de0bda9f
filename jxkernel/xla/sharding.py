"""`SingleDeviceSharding`: how an Array on one device is laid out, as `x.sharding` reports
it in JAX. A value object over a jaxlib Device; jxkernel places such arrays by device.

    >>> s = device_put(np.arange(3)).sharding
    >>> s
    SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)
    >>> s.is_fully_replicated, s.num_devices, s.shard_shape((3,))
    (True, 1, (3,))
"""
from __future__ import annotations

from .client import xc


class SingleDeviceSharding:
    """All of an array on one device, in one of its memories (default: its default one)."""
    __slots__ = ("_device", "_memory_kind")

    def __init__(self, device, *, memory_kind: str | None = None):
        if not isinstance(device, xc.Device):
            raise TypeError(f"SingleDeviceSharding's device must be a Device (one of "
                            f"jxkernel.devices()); got {device!r} of type {type(device).__name__}")
        self._device = device
        self._memory_kind = _checked_memory_kind(device, memory_kind)

    memory_kind = property(lambda self: self._memory_kind)
    device_set = property(lambda self: {self._device})
    addressable_devices = device_set
    _device_assignment = property(lambda self: (self._device,))
    num_devices = property(lambda self: 1)
    is_fully_replicated = property(lambda self: True)
    is_fully_addressable = property(lambda self: True)
    has_addressable_devices = property(lambda self: True)

    def devices_indices_map(self, global_shape: tuple) -> dict:
        """Each device's index into an array of `global_shape`: here all of it."""
        return {self._device: (slice(None),) * len(global_shape)}

    addressable_devices_indices_map = devices_indices_map

    def shard_shape(self, global_shape: tuple) -> tuple:
        return tuple(global_shape)

    def is_equivalent_to(self, other, ndim: int) -> bool:
        return (isinstance(other, SingleDeviceSharding) and other._device == self._device
                and other._memory_kind == self._memory_kind)

    def with_memory_kind(self, kind: str) -> SingleDeviceSharding:
        return SingleDeviceSharding(self._device, memory_kind=kind)

    def __eq__(self, other):
        return self.is_equivalent_to(other, 0)

    def __hash__(self):
        return hash((self._device, self._memory_kind))

    def __repr__(self):
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self._memory_kind})"


def _checked_memory_kind(device, kind):
    kinds = [m.kind for m in device.addressable_memories()]
    if kind is None:
        return device.default_memory().kind
    if kind not in kinds:
        raise ValueError(f"Could not find memory addressable by device {device.platform}. Device "
                         f"{device.platform} can address the following memory kinds: "
                         f"{', '.join(kinds)}. Got memory kind: {kind}")
    return kind
