"""DLPack's vocabulary and the export of one device buffer as a capsule: what `Array.__dlpack__`
and `__dlpack_device__` call. It needs no Array (buffers and devices in, capsules out), so
array.py imports it, on the first exchange; the other direction, a capsule as an Array, is
xla/dlpack.py's.

    >>> dlpack_device(jax.devices("cpu")[:1])
    (<DLDeviceType.kDLCPU: 1>, 0)
"""
from __future__ import annotations

import enum

import numpy as np

from ..core import dtypes
from . import client as _client
from .client import xc


class DLDeviceType(enum.IntEnum):
    """DLPack's device codes for the platforms jaxlib exchanges buffers with."""
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLROCM = 10


PLATFORM_OF = {DLDeviceType.kDLCPU: "cpu", DLDeviceType.kDLCUDA: "gpu",
               DLDeviceType.kDLCUDAHost: "gpu", DLDeviceType.kDLROCM: "gpu"}
MIN_VERSION = (0, 5)
SUPPORTED_DTYPES = frozenset(np.dtype(d) for d in (
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, *dtypes.BFLOAT16_DTYPES, np.float32, np.float64, np.complex64, np.complex128,
    np.bool_))


def is_supported_dtype(dtype) -> bool:
    """Whether DLPack can carry `dtype`.  ``is_supported_dtype('float32')`` is True."""
    if dtype is None:
        raise TypeError(f"Expected a string or dtype-like object; got dtype={dtype}")
    return np.dtype(dtype) in SUPPORTED_DTYPES


def dlpack_device(devices: tuple) -> tuple:
    """`(DLDeviceType, local hardware id)` of the one device in `devices` (a buffer's)."""
    if len(devices) != 1:
        raise BufferError("__dlpack__ only supported for unsharded arrays.")
    device, platform = devices[0], _client.platform_of(devices[0])
    if platform in ("cpu", "numpy"):          # the NumPy backend's data is host memory
        return DLDeviceType.kDLCPU, 0
    if platform != "gpu":
        raise BufferError(f"__dlpack__ device only supported for CPU and GPU, got platform: "
                          f"{platform}")
    version = device.client.platform_version
    kind = DLDeviceType.kDLROCM if "rocm" in version else DLDeviceType.kDLCUDA
    return kind, device.local_hardware_id


def check_exportable(n_devices: int, max_version) -> None:
    """Refuse, as JAX does, an array over several devices or a DLPack version below 0.5."""
    if n_devices != 1:
        raise BufferError(f"to_dlpack can only pack a dlpack tensor from an array on a "
                          f"singular device, but an array with a Sharding over "
                          f"{n_devices} devices was provided.")
    if max_version is not None and tuple(max_version) < MIN_VERSION:
        raise BufferError(f"JAX does not support any version below {MIN_VERSION} but version "
                          f"({max_version}) was requested.")


def export_target(dl_device, source, copy):
    """The device `dl_device` names when it is not `source` (a copy goes there), else None."""
    target = device_of_dl(dl_device) if dl_device else None
    if target is None or target == source:
        return None
    if copy is False:
        raise ValueError(f"Specified device={target!r} which requires a copy since the "
                         f"source device is {source!r}, however copy=False. Set copy=True "
                         f"or copy=None to perform the requested operation.")
    return target


def numpy_capsule(value: np.ndarray, *, stream, max_version, dl_device, copy):
    """The NumPy backend's buffer (`value`) through NumPy's own exchange."""
    value = value.copy() if copy else value
    if not value.flags.writeable and (max_version is None or tuple(max_version) < (1, 0)):
        value = _legacy_alias(value)
    return value.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device,
                            copy=copy)


def buffer_capsule(buf, stream):
    """A capsule of an XLA buffer: give it a handle of its own (the capsule keeps it alive)."""
    return xc._xla.buffer_to_dlpack_managed_tensor(buf, stream=stream)


class _Alias:
    """An __array_interface__ on `owner`'s memory without its read-only mark; holding
    `owner` keeps that memory alive as long as a view of the alias lives."""

    def __init__(self, owner: np.ndarray):
        self.owner = owner
        self.__array_interface__ = dict(owner.__array_interface__,
                                        data=(owner.__array_interface__["data"][0], False))


def _legacy_alias(value: np.ndarray) -> np.ndarray:
    """`value`'s memory as an array that legacy (unversioned) DLPack can export: NumPy
    refuses read-only arrays there, having no flag to say so; XLA's CPU buffers go out the
    same way (the consumer must not write to them, as with JAX's)."""
    return np.asarray(_Alias(value))


def device_of_dl(dl_device):
    """The device of a DLPack `(device type, hardware id)` pair."""
    kind, hardware_id = dl_device
    try:
        platform = PLATFORM_OF[kind]
    except KeyError:
        # the standard recommends BufferError for a device the producer cannot serve
        raise BufferError(f"The device specification passed to to_dlpack contains an "
                          f"unsupported device type (DLDeviceType: {kind})") from None
    return device_with_hardware_id(platform, hardware_id)


def device_with_hardware_id(platform: str, hardware_id: int):
    return _client.get_backend(platform).client.device_from_local_hardware_id(hardware_id)
