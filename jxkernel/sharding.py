"""jxkernel.sharding, as jax.sharding, for arrays on one device: `x.sharding` is a
`SingleDeviceSharding`, and device_put accepts one in place of a device.

    >>> from jxkernel.sharding import SingleDeviceSharding
    >>> jxkernel.device_put(1.0, SingleDeviceSharding(jxkernel.devices()[0])).sharding
    SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)
"""
from .xla.sharding import SingleDeviceSharding  # noqa: F401
