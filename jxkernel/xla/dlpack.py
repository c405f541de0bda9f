"""DLPack through jaxlib: an Array's buffer as a capsule, and a capsule as an Array.

On CPU both directions share memory, as JAX's do:

    >>> x = device_put(np.arange(3.0, dtype=np.float32))
    >>> np.from_dlpack(x).ctypes.data == x.unsafe_buffer_pointer()
    True
    >>> from_dlpack(np.arange(3, dtype=np.int32))
    Array([0, 1, 2], dtype=int32)

Imported buffers may alias the producer's memory: a later write there shows through, as in
JAX (DLPack before 1.0 cannot mark memory read-only).
"""
from __future__ import annotations

import ctypes
import enum

import numpy as np

from ..core import dtypes
from ..core.avals import ShapedArray
from . import client as _client
from .array import Array, _rewrap_buffer, _to_host, host_to_device
from .transfers import _device_of_sharding, device_put
from .client import xc
from .numpy_device import NumpyBuffer, NumpyDevice


class DLDeviceType(enum.IntEnum):
    """DLPack's device codes for the platforms jaxlib exchanges buffers with."""
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLROCM = 10


_PLATFORM_OF = {DLDeviceType.kDLCPU: "cpu", DLDeviceType.kDLCUDA: "gpu",
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


# ---------------------------------------------------------------- Array -> capsule
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


def dlpack_device(x: Array) -> tuple:
    """`(DLDeviceType, local hardware id)` of the device holding `x`."""
    x._check_alive()
    if len(x._buf._sharding._devices) != 1:
        raise BufferError("__dlpack__ only supported for unsharded arrays.")
    device = x.device
    if x.platform in ("cpu", "numpy"):          # the NumPy backend's data is host memory
        return DLDeviceType.kDLCPU, 0
    if x.platform != "gpu":
        raise BufferError(f"__dlpack__ device only supported for CPU and GPU, got platform: "
                          f"{x.platform}")
    version = device.client.platform_version
    kind = DLDeviceType.kDLROCM if "rocm" in version else DLDeviceType.kDLCUDA
    return kind, device.local_hardware_id


def to_dlpack(x: Array, *, stream=None, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule of `x`'s buffer: shared memory unless `copy` or another device."""
    if len(x.devices()) != 1:
        raise BufferError(f"to_dlpack can only pack a dlpack tensor from an array on a "
                          f"singular device, but an array with a Sharding over "
                          f"{len(x.devices())} devices was provided.")
    if max_version is not None and tuple(max_version) < MIN_VERSION:
        raise BufferError(f"JAX does not support any version below {MIN_VERSION} but version "
                          f"({max_version}) was requested.")
    x._check_alive()
    if type(x._buf) is NumpyBuffer:         # NumPy's own exchange, on the array it holds
        value = x._buf.value.copy() if copy else x._buf.value
        if not value.flags.writeable and (max_version is None or tuple(max_version) < (1, 0)):
            value = _legacy_alias(value)
        return value.__dlpack__(stream=stream, max_version=max_version,
                                dl_device=dl_device, copy=copy)
    target = _device_of_dl(dl_device) if dl_device else None
    if target is not None and target != x.device:
        if copy is False:
            raise ValueError(f"Specified device={target!r} which requires a copy since the "
                             f"source device is {x.device!r}, however copy=False. Set copy=True "
                             f"or copy=None to perform the requested operation.")
        x = device_put(x, target)
    elif copy:
        x = x.copy()
    # Export a second handle on the same device memory, which the capsule keeps alive: a later
    # x.delete() then drops only x's handle (exporting x's own aborts the process in jaxlib).
    shared = _rewrap_buffer(x._buf, x.aval, x.device)
    return xc._xla.buffer_to_dlpack_managed_tensor(shared, stream=stream)


def _device_of_dl(dl_device):
    kind, hardware_id = dl_device
    try:
        platform = _PLATFORM_OF[kind]
    except KeyError:
        # the standard recommends BufferError for a device the producer cannot serve
        raise BufferError(f"The device specification passed to to_dlpack contains an "
                          f"unsupported device type (DLDeviceType: {kind})") from None
    return _device_with_hardware_id(platform, hardware_id)


def _device_with_hardware_id(platform: str, hardware_id: int):
    return _client.get_backend(platform).client.device_from_local_hardware_id(hardware_id)


# ---------------------------------------------------------------- capsule -> Array
def from_dlpack(external, device=None, copy=None) -> Array:
    """An Array of `external`'s data (any object with `__dlpack__` and `__dlpack_device__`),
    sharing its memory where no copy or transfer is asked, of the canonical dtype."""
    if not (hasattr(external, "__dlpack__") and hasattr(external, "__dlpack_device__")):
        raise TypeError("The array passed to from_dlpack must have __dlpack__ and "
                        "__dlpack_device__ methods.")
    kind, hardware_id = external.__dlpack_device__()
    if type(device) is NumpyDevice or (device is None and kind == DLDeviceType.kDLCPU and
                                       _client.default_backend() == "numpy"):
        # NumPy's own exchange: the Array holds a read-only view of the producer's memory
        value = np.from_dlpack(external, copy=copy)
        aval = ShapedArray(value.shape, value.dtype)
        return _canonical(Array(NumpyBuffer(value, aval), aval))
    if kind not in _PLATFORM_OF:
        raise TypeError(f"Array passed to from_dlpack is on unsupported device type "
                        f"(DLDeviceType: {kind}, array: {external}")
    source = _device_with_hardware_id(_PLATFORM_OF[kind], hardware_id)
    if device is not None and not isinstance(device, xc.Device):
        device = _device_of_sharding(device)        # a one-device sharding, as JAX takes
    if device is not None and device != source and copy is False:
        raise ValueError(f"Specified device={device!r} which requires a copy since the source "
                         f"device is {source!r}, however copy=False. Set copy=True or "
                         f"copy=None to perform the requested operation.")
    stream = _ready_stream(source, kind)
    capsule = external.__dlpack__(stream=stream)
    aval = ShapedArray(*_capsule_shape_dtype(capsule))
    buf = _import_capsule(capsule, source, stream, copy, kind)
    x = _canonical(Array(_rewrap_buffer(buf, aval, source), aval))
    if device is not None and device != source:
        return device_put(x, device)
    return x


def _ready_stream(device, kind):
    """The stream a GPU producer must order its work before (None on CPU, or pinned host)."""
    if kind in (DLDeviceType.kDLCPU, DLDeviceType.kDLCUDAHost):
        return None
    try:
        return device.get_stream_for_external_ready_events()
    except xc.XlaRuntimeError as err:
        if "UNIMPLEMENTED" in str(err):
            return None
        raise


def _import_capsule(capsule, device, stream, copy, kind):
    try:
        return xc._xla.dlpack_managed_tensor_to_buffer(capsule, device, stream, copy, int(kind))
    except xc.XlaRuntimeError as err:
        text = str(err)
        if "is not aligned to" not in text:
            raise
        raise ValueError(f"Specified input which requires a copy since the source data buffer "
                         f"{text[text.index('is not aligned to'):]} However copy=False. Set "
                         f"copy=True or copy=None to perform the requested operation.") from None


def _canonical(x: Array) -> Array:
    """`x` of its canonical dtype (64-bit data becomes 32-bit unless x64 is on), as JAX's."""
    target = dtypes.canonicalize_dtype(x.dtype)
    if target == x.dtype:
        return x
    aval = ShapedArray(x.shape, target)
    return host_to_device(_to_host(x._buf).reshape(x.shape).astype(target), aval, x.device,
                          x.committed)


# DLPack's C structs, read before jaxlib takes the capsule: jaxlib's buffer carries no shape
# or dtype of its own, and the producer's Python object may not speak NumPy's dtypes.
class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_DL_DTYPES = {(0, 8): np.int8, (0, 16): np.int16, (0, 32): np.int32, (0, 64): np.int64,
              (1, 8): np.uint8, (1, 16): np.uint16, (1, 32): np.uint32, (1, 64): np.uint64,
              (2, 16): np.float16, (2, 32): np.float32, (2, 64): np.float64,
              (4, 16): dtypes.bfloat16, (5, 64): np.complex64, (5, 128): np.complex128,
              (6, 8): np.bool_}
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _capsule_shape_dtype(capsule) -> tuple:
    """(shape, dtype) of an unconsumed "dltensor" capsule (a DLManagedTensor)."""
    tensor = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    code = (tensor.dtype.code, tensor.dtype.bits)
    if code not in _DL_DTYPES or tensor.dtype.lanes != 1:
        raise TypeError(f"from_dlpack: DLPack dtype (code, bits, lanes) = "
                        f"{code + (tensor.dtype.lanes,)} has no JAX dtype")
    return tuple(tensor.shape[i] for i in range(tensor.ndim)), np.dtype(_DL_DTYPES[code])
