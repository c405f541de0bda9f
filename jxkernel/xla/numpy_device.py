"""The NumPy backend's device and buffers: platform "numpy", one device, data in NumPy arrays.

Where jaxlib cannot run (Pyodide in a browser, a venv without it), or with
``JAX_PLATFORMS=numpy``, an Array's buffer is a `NumpyBuffer` (a read-only ndarray) on the one
`NumpyDevice`, and programs run through `eval_jaxpr_numpy` (numpy_backend.py). The buffer
answers what Array and the call paths ask of a jaxlib buffer (`_sharding._devices`,
`is_deleted`, `block_until_ready`, ...), so Array, jit's caches and eager dispatch serve both
backends unchanged. Nothing here imports jaxlib.

    >>> NUMPY_DEVICE, NUMPY_DEVICE.platform
    (NumpyDevice(id=0), 'numpy')
"""
from __future__ import annotations

import weakref

import numpy as np


class _Memory:
    """A device's one memory space (JAX's `Device.default_memory()`)."""
    kind = "device"

    def __repr__(self):
        return "Memory(kind=device)"


class NumpyDevice:
    """The NumPy backend's one device: the host, computing with NumPy."""
    platform = "numpy"
    device_kind = "numpy"
    id = 0
    process_index = 0
    host_id = 0
    local_hardware_id = None
    slice_index = 0
    _memory = _Memory()

    @property
    def client(self):
        return CLIENT

    def default_memory(self):
        return self._memory

    def addressable_memories(self) -> list:
        return [self._memory]

    def memory_stats(self):
        return None                        # as XLA's CPU devices: no allocator statistics

    def __repr__(self):
        return "NumpyDevice(id=0)"

    def __str__(self):
        return "numpy:0"

    def __reduce__(self):
        return _the_device, ()


def _the_device():
    return NUMPY_DEVICE


class Placement:
    """Where a NumpyBuffer lives (a jaxlib buffer's `_sharding`): one per device, compared
    by identity on jit's and eager dispatch's cache-hit paths."""
    __slots__ = ("_devices",)

    def __init__(self, device):
        self._devices = (device,)

    def __repr__(self):
        return f"Placement({self._devices[0]!r})"


class NumpyBuffer:
    """An Array's data on the NumPy backend: a read-only ndarray, deletable (donation)."""
    __slots__ = ("value", "aval", "_sharding", "__weakref__")
    _committed = True

    def __init__(self, value: np.ndarray, aval, placement=None):
        if value.flags.writeable:
            value.flags.writeable = False   # Arrays are immutable; their views are read-only
        self.value, self.aval = value, aval
        self._sharding = placement or PLACEMENT
        _live.add(self)

    def is_deleted(self) -> bool:
        return self.value is None

    def delete(self) -> None:
        self.value = None

    def is_ready(self) -> bool:
        return True                         # NumPy computes before it returns

    def block_until_ready(self):
        return self

    def on_device_size_in_bytes(self) -> int:
        return 0 if self.value is None else self.value.nbytes

    def unsafe_buffer_pointer(self) -> int:
        return self.value.ctypes.data

    def _single_device_array_to_np_array_did_copy(self):
        return self.value, False            # what xla/array._to_host reads

    def _copy_single_device_array_to_host_async(self) -> None:
        pass                                # already on the host


class NumpyClient:
    """What `xla.client.Backend` and the views read of a PJRT client."""
    platform = "numpy"
    platform_version = f"numpy {np.__version__}"

    def local_devices(self) -> list:
        return [NUMPY_DEVICE]

    devices = local_devices

    def process_index(self) -> int:
        return 0

    def live_arrays(self) -> list:
        return [b for b in list(_live) if b.value is not None]


_live: weakref.WeakSet = weakref.WeakSet()      # for jax.live_arrays and %jxmemory
NUMPY_DEVICE = NumpyDevice()
PLACEMENT = Placement(NUMPY_DEVICE)
CLIENT = NumpyClient()


def unsupported(what: str, instead: str) -> NotImplementedError:
    """The error for what the NumPy backend cannot do: names the backend, and what to use.

        >>> str(unsupported("jax.export", "export under JAX_PLATFORMS=cpu"))[:50]
        "jax.export is not available on the 'numpy' backend"
    """
    return NotImplementedError(f"{what} is not available on the 'numpy' backend (jaxprs run "
                               f"with NumPy, without XLA); {instead}")
