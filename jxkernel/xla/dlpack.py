"""DLPack through jaxlib: a capsule as an Array (`from_dlpack`). The other direction, an Array's
buffer as a capsule (`Array.__dlpack__`), is dlpack_export.py's, below array.py; its vocabulary
(`DLDeviceType`, `is_supported_dtype`) is importable from here too.

On CPU both directions share memory, as JAX's do:

    >>> x = jax.device_put(np.arange(3.0, dtype=np.float32))
    >>> np.from_dlpack(x).ctypes.data == x.unsafe_buffer_pointer()
    True
    >>> from_dlpack(np.arange(3, dtype=np.int32))
    Array([0, 1, 2], dtype=int32)

Imported buffers may alias the producer's memory: a later write there shows through, as in
JAX (DLPack before 1.0 cannot mark memory read-only).
"""
from __future__ import annotations

import ctypes

import numpy as np

from ..core import dtypes
from ..core.avals import ShapedArray
from . import client as _client
from .array import Array, host_to_device
from .buffer import _rewrap_buffer, _to_host
from .client import xc
from .dlpack_export import (PLATFORM_OF, SUPPORTED_DTYPES, DLDeviceType,  # noqa: F401
                            device_with_hardware_id, is_supported_dtype)
from .numpy_device import NumpyBuffer, NumpyDevice
from .transfers import _device_of_sharding, put_on_device


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
    if kind not in PLATFORM_OF:
        raise TypeError(f"Array passed to from_dlpack is on unsupported device type "
                        f"(DLDeviceType: {kind}, array: {external}")
    source = device_with_hardware_id(PLATFORM_OF[kind], hardware_id)
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
        return put_on_device(x, device)
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
