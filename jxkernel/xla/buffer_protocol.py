"""An Array's buffer protocol (`memoryview(x)`, `bytes(x)`, PEP 3118), as JAX's on CPU.

The protocol itself is a C type's (core/_fastpath.c's ArrayBuffer, ArrayImpl's base: a Python
class can export a buffer only from Python 3.12, PEP 688's `__buffer__`, which ArrayImpl
defines where the compiled fast path is off); it calls `host_view` for what to export. The
checks are JAX's (jaxlib's PyArray_bf_getbuffer), in its order, with its BufferError words:

    >>> import jxkernel.numpy as jnp
    >>> memoryview(jnp.arange(3.0)).format
    '=f'
    >>> memoryview(jnp.arange(3.0, dtype=jnp.bfloat16))
    Traceback (most recent call last):
    BufferError: INVALID_ARGUMENT: Buffers of type BF16 are not supported by the Python buffer protocol.

NumPy asks the protocol first when it converts an object (`np.asarray(x)`) and, refused,
clears the error and reads `__array__`: bfloat16, float8, int4 and an Array over several
devices convert as before. The view is the Array's host value's (`_value`, read-only, kept in
`_npy`), which holds jaxlib's own host view of the device buffer: a later `x.delete()` leaves
the view readable, as JAX's external reference does, and a donation goes ahead.
"""
from __future__ import annotations

import numpy as np

from ..core.dtypes import is_string
from .client import platform_of

# jaxlib's PEP 3118 formats (XLA's PEP3118FormatDescriptorForPrimitiveType, as memoryview
# shows them: '=' but for bool); a dtype not here has none (JAX's BufferError)
FORMATS = {"bool": "?", "int8": "=b", "int16": "=h", "int32": "=i", "int64": "=q",
           "uint8": "=B", "uint16": "=H", "uint32": "=I", "uint64": "=Q", "float16": "=e",
           "float32": "=f", "float64": "=d", "complex64": "=Zf", "complex128": "=Zd"}

_WRITABLE, _F_CONTIGUOUS = 0x0001, 0x0058        # PyBUF_WRITABLE, PyBUF_F_CONTIGUOUS


def _error(words: str) -> BufferError:
    return BufferError(f"INVALID_ARGUMENT: {words}")


def xla_type_name(dtype) -> str:
    """XLA's name of a dtype's element type, as jaxlib's messages print it (F32, BF16,
    F8E4M3FN, S4, U8, C64, PRED)."""
    name = getattr(dtype, "name", str(dtype))
    for prefix, short in (("bfloat", "BF"), ("float", "F"), ("uint", "U"), ("int", "S"),
                          ("complex", "C")):
        if name.startswith(prefix):
            return short + name[len(prefix):].replace("_", "").upper()
    return "PRED" if name == "bool" else name.upper()


def host_view(x, flags: int = 0) -> tuple:
    """(x's host value, its format) for a buffer view of `x`, or JAX's BufferError."""
    value, format = x._npy, _FORMAT_OF.get(x.aval.dtype)
    # (NumPy asks on every np.asarray(x): a value read before, on one CPU device, answers at
    # once)
    if value is not None and format is not None and x._sharding is None and \
            not flags & _ASKS_MORE and _on_host(x._buf._sharding._devices[0]):
        return value, format
    if x._buf.is_deleted():
        raise _error("Array is null")
    if is_string(x.dtype):      # (jaxlib's string arrays are no PjRt buffers: its first check)
        raise _error(f"Only local arrays are supported, got BasicStringArray(shape="
                     f"[{','.join(map(str, x.shape))}])")
    devices = x.devices()
    if not all(_on_host(d) for d in devices):
        raise _error("Python buffer protocol is only defined for CPU buffers.")
    if len(devices) != 1:
        raise _error("Python buffer protocol is only defined for buffers with a single shard.")
    if format is None:
        raise _error(f"Buffers of type {xla_type_name(x.dtype)} are not supported by the "
                     f"Python buffer protocol.")
    if flags & _WRITABLE:
        raise _error("XLA buffers are read-only.")
    value = x._value
    if (flags & _F_CONTIGUOUS) == _F_CONTIGUOUS and not value.flags.f_contiguous:
        raise _error("Buffer is not in F-contiguous layout.")
    return value, format


def _on_host(device) -> bool:
    """Whether a device's buffers are host memory (CPU, the NumPy backend), kept per device."""
    known = _HOST.get(device)
    if known is None:
        known = _HOST[device] = platform_of(device) in ("cpu", "numpy")
    return known


_HOST: dict = {}
_FORMAT_OF = {np.dtype(name): format for name, format in FORMATS.items()}
_ASKS_MORE = _WRITABLE | 0x0040             # a writable view, or a Fortran-contiguous one
