"""The NumPy backend's devices and buffers: platform "numpy", data in NumPy arrays.

Where jaxlib cannot run (Pyodide in a browser, a venv without it), or with
``JAX_PLATFORMS=numpy``, an Array's buffer is a `NumpyBuffer` (a read-only ndarray) on a
`NumpyDevice`, and programs run through `eval_jaxpr_numpy` (numpy_backend.py). The buffer
answers what Array and the call paths ask of a jaxlib buffer (`_sharding._devices`,
`is_deleted`, `block_until_ready`, ...), so Array, jit's caches and eager dispatch serve both
backends unchanged. Nothing here imports jaxlib.

There is one device unless several are asked for as on XLA's CPU (`jax_num_cpu_devices`, or
`XLA_FLAGS=--xla_force_host_platform_device_count=N`; `device_count`): they are simulated
alike, all the host. An Array over a mesh of them is a `NumpyShardedBuffer`: its global value
and one NumpyBuffer per device holding that device's block (numpy_sharded.py).

    >>> NUMPY_DEVICE, NUMPY_DEVICE.platform
    (NumpyDevice(id=0), 'numpy')
"""
from __future__ import annotations

import os
import re
import weakref

import numpy as np

from ..core.avals import AbstractToken
from ..core.dtypes import BFLOAT16_DTYPES, finfo


class _Memory:
    """A device's memory space (JAX's `Device.default_memory()` is the "device" one)."""

    def __init__(self, kind: str):
        self.kind = kind

    def __repr__(self):
        return f"Memory(kind={self.kind})"


class NumpyDevice:
    """A NumPy backend's device: the host, computing with NumPy (`id` 0 unless several are
    simulated). `placement` and `uncommitted`: the Placements of its committed and
    uncommitted buffers."""
    platform = "numpy"
    device_kind = "numpy"
    process_index = 0
    host_id = 0
    local_hardware_id = None
    slice_index = 0
    _memory = _Memory("device")
    # the kinds XLA's CPU device addresses, as the device this one stands in for: an Array
    # put in a host one is a buffer whose Placement names that kind (xla/memory_kinds.py)
    _memories = (_memory, _Memory("pinned_host"), _Memory("unpinned_host"))

    def __init__(self, id: int = 0):
        self.id = id
        self.usage = Usage()
        self.placement = Placement(self)
        # an uncommitted buffer's (another object: the hot paths' identity test tells them apart)
        self.uncommitted = Placement(self)
        self._in_memory = {"device": self.placement}

    def placement_in(self, kind: str) -> Placement:
        """The Placement of a committed buffer in this device's `kind` memory."""
        found = self._in_memory.get(kind)
        if found is None:
            found = self._in_memory[kind] = Placement(self, memory_kind=kind)
        return found

    @property
    def client(self):
        return CLIENT

    def default_memory(self):
        return self._memory

    def addressable_memories(self) -> list:
        return list(self._memories)

    def memory_stats(self) -> dict:
        """The device's allocator statistics, in the shape of XLA's `Device.memory_stats()`
        (its key names; a key it cannot fill left out, as XLA leaves out a limit it lacks):

            >>> sorted(NUMPY_DEVICE.memory_stats())
            ['bytes_in_use', 'largest_alloc_size', 'num_allocs', 'peak_bytes_in_use']
        """
        return self.usage.stats()

    def __repr__(self):
        return f"NumpyDevice(id={self.id})"

    def __str__(self):
        return f"numpy:{self.id}"

    def __reduce__(self):
        return _the_device, (self.id,)


def _the_device(id=0):
    return NUMPY_DEVICE if id == 0 else _DEVICES[id]


class Usage:
    """A NumPy device's allocator count: the bytes of the ndarrays its live buffers hold, each
    ndarray once however many buffers hold it (a commit re-wraps its buffer's ndarray), their
    peak since the process started or `reset_peak`, how many were held and the largest.

    The keys are four of jaxlib's (py_device.cc: num_allocs, bytes_in_use, peak_bytes_in_use,
    largest_alloc_size); its reservation keys (bytes_reserved, largest_free_block_bytes) are
    left out: NumPy keeps no pool. There is no limit to report (`bytes_limit` is left out, as
    jaxlib leaves it out where the allocator has none): the ndarrays are the host's memory,
    which NumPy grows until the host refuses. Under Pyodide that is the WebAssembly heap, and
    its declared maximum is not a truthful limit either: the interpreter, the packages and every
    Python object share it with the arrays, and the browser may refuse to grow it well before
    that maximum.

    Views are not told apart from copies: an ndarray that views another's memory (a program's
    reshape or slice, a block of a mesh array) counts its own bytes, as XLA would allocate
    a buffer for it. Temporaries inside a running program are NumPy's, not buffers: not counted.
    """
    __slots__ = ("in_use", "peak", "allocs", "largest", "_held")

    def __init__(self):
        self.in_use = self.peak = self.allocs = self.largest = 0
        self._held: dict = {}               # id(ndarray) -> how many live buffers hold it

    def hold(self, value: np.ndarray) -> None:
        """A buffer now holds `value` (kept alive by it: its id is not reused meanwhile)."""
        key = id(value)
        held = self._held.get(key, 0)
        self._held[key] = held + 1
        if held:
            return
        n = value.nbytes
        self.in_use += n
        self.allocs += 1
        if self.in_use > self.peak:
            self.peak = self.in_use
        if n > self.largest:
            self.largest = n

    def release(self, value: np.ndarray) -> None:
        """A buffer that held `value` was deleted, donated or collected."""
        key = id(value)
        held = self._held.pop(key)
        if held > 1:
            self._held[key] = held - 1
        else:
            self.in_use -= value.nbytes

    def reset_peak(self) -> None:
        self.peak = self.in_use

    def stats(self) -> dict:
        return {"num_allocs": self.allocs, "bytes_in_use": self.in_use,
                "peak_bytes_in_use": self.peak, "largest_alloc_size": self.largest}


def reset_peak() -> None:
    """Start every NumPy device's peak again from the bytes it holds now (to measure a step).

        >>> x = jnp.ones(1000); del x; reset_peak()
        >>> s = NUMPY_DEVICE.memory_stats(); s["peak_bytes_in_use"] == s["bytes_in_use"]
        True
    """
    for device in _DEVICES:
        device.usage.reset_peak()


class Placement:
    """Where a NumpyBuffer lives (a jaxlib buffer's `_sharding`): one per device (two: the
    committed and the uncommitted), compared by identity on jit's and eager dispatch's
    cache-hit paths; a NumpyShardedBuffer's names every device of its mesh."""
    __slots__ = ("_devices", "_memory_kind")

    def __init__(self, *devices, memory_kind: str = "device"):
        # (`_memory_kind`: the memory it is in, under jaxlib's sharding attribute's name)
        self._devices, self._memory_kind = devices, memory_kind

    def __repr__(self):
        return f"Placement({', '.join(map(repr, self._devices))})"


# XLA's CPU computations read subnormal floats as zero and write zero for them (the CPU's
# DAZ and FTZ modes, which NumPy leaves off): log(1e-40) is -inf there, sign(1e-40) is 0.
# bfloat16 as float32 (its exponent range), which XLA's CPU computes it in
_TINY = {np.dtype(np.float32): finfo(np.float32).tiny,
         np.dtype(np.float64): finfo(np.float64).tiny,
         **{d: d.type(finfo(np.float32).tiny) for d in BFLOAT16_DTYPES}}
_PARTS = {np.dtype(np.complex64): np.dtype(np.float32),
          np.dtype(np.complex128): np.dtype(np.float64)}


def flush_subnormals(value: np.ndarray) -> np.ndarray:
    """`value` with its subnormal float32/float64/bfloat16 parts made zeros of their sign, as
    XLA's CPU reads and writes them (other dtypes, and arrays with none, come back as they are).

        >>> flush_subnormals(np.array([1e-40, -1e-40, 1.0], np.float32))
        array([ 0., -0.,  1.], dtype=float32)
    """
    tiny = _TINY.get(value.dtype)
    if tiny is None:
        part = _PARTS.get(value.dtype)
        if part is None or not value.size:
            return value
        flushed = flush_subnormals(np.ascontiguousarray(value).view(part))   # (re, im) pairs
        return flushed.view(value.dtype).reshape(value.shape)
    # (zeros too: they stay zeros of their sign); NaN compares False, and ml_dtypes before 0.7
    # warns "invalid value encountered in less" for a bfloat16 NaN where NumPy's floats do not
    with np.errstate(invalid="ignore"):
        small = np.abs(value) < tiny
    if not small.any():
        return value
    return np.where(small, np.copysign(value.dtype.type(0), value), value)


class NumpyBuffer:
    """An Array's data on the NumPy backend: a read-only ndarray, deletable (donation).
    `flushed`: the value has no subnormals (a program's result); otherwise `operand()`
    makes, once, the value a computation reads (flush_subnormals). Its device's `Usage`
    counts the value while the buffer holds it (`counted`: not a mesh array's `whole`, whose
    value the blocks already count)."""
    __slots__ = ("value", "aval", "_sharding", "_operand", "_usage", "__weakref__")
    # committed to the device unless put without naming it (xla/placement.call_placement)
    _committed = property(lambda self: self._sharding is not self._sharding._devices[0].uncommitted)

    def __init__(self, value: np.ndarray, aval, placement=None, flushed=False, counted=True):
        if value.flags.writeable:
            value.flags.writeable = False   # Arrays are immutable; their views are read-only
        self.value, self.aval = value, aval
        self._operand = value if flushed else None
        self._sharding = placement = placement or PLACEMENT
        self._usage = usage = placement._devices[0].usage if counted else None
        if usage is not None:
            usage.hold(value)
        _live.add(self)

    def __del__(self):
        # collected without a delete(): its device's count lets go of the value
        usage = getattr(self, "_usage", None)          # (None too where __init__ failed)
        if usage is not None and self.value is not None:
            usage.release(self.value)

    def operand(self) -> np.ndarray:
        """The value as XLA's CPU computations read it (subnormals as zeros); kept once made."""
        found = self._operand
        if found is None:
            found = self._operand = flush_subnormals(self.value)
        return found

    def platform(self) -> str:
        return "numpy"

    def is_deleted(self) -> bool:
        return self.value is None

    def delete(self) -> None:
        if self._usage is not None and self.value is not None:
            self._usage.release(self.value)
        self.value = self._operand = None

    def is_ready(self) -> bool:
        return True                         # NumPy computes before it returns

    def block_until_ready(self):
        if self.value is None:              # as jaxlib's buffers (Array raises its own error)
            raise RuntimeError("BlockHostUntilReady() called on a deleted or donated buffer")
        return self

    def on_device_size_in_bytes(self) -> int:
        # donated, its size is still known, as a jaxlib buffer's (a .delete()d one's is asked
        # of no buffer: Array raises jaxlib's error first)
        if self.value is None:
            return int(np.prod(self.aval.shape)) * np.dtype(self.aval.dtype).itemsize
        return self.value.nbytes

    def unsafe_buffer_pointer(self) -> int:
        return self.value.ctypes.data

    def _single_device_array_to_np_array_did_copy(self):
        if isinstance(self.aval, AbstractToken):       # jaxlib's refusal, as JAX raises it
            raise RuntimeError("INVALID_ARGUMENT: Cannot convert a token-shape buffer to a "
                               "numpy array.")
        return self.value, False            # what xla/buffer._to_host reads

    def _copy_single_device_array_to_host_async(self) -> None:
        pass                                # already on the host


class NumpyShardedBuffer:
    """An Array's data over a mesh of NumPy devices: `value`, the global value (read-only),
    and `_arrays`, one NumpyBuffer per mesh device (mesh order) holding that device's block,
    as a jaxlib array over a mesh keeps one buffer per device (`client.shard_buffers`).
    Programs read the global value (numpy_sharded.py says why). `_committed`: laid out on a
    mesh, committed as JAX's are, unless JAX's `ArrayImpl(..., committed=False)` made it."""
    __slots__ = ("value", "aval", "_sharding", "_arrays", "_whole", "_committed", "__weakref__")

    def __init__(self, value: np.ndarray, aval, placement, blocks, committed=True):
        if value.flags.writeable:
            value.flags.writeable = False
        self.value, self.aval, self._sharding, self._arrays = value, aval, placement, blocks
        self._whole, self._committed = None, committed
        _live.add(self)                     # (jax.live_arrays finds the Array over the mesh)

    def whole(self) -> NumpyBuffer:
        """The global value as one NumpyBuffer (what a program reads; its flushed operand is
        made once)."""
        if self._whole is None:
            self._whole = NumpyBuffer(self.value, self.aval, NUMPY_DEVICE.placement,
                                      counted=False)
            _live.discard(self._whole)      # (not an array of the user's: its blocks are)
        return self._whole

    def platform(self) -> str:
        return "numpy"

    def is_deleted(self) -> bool:
        return self.value is None

    def delete(self) -> None:
        self.value = self._whole = None
        for b in self._arrays:
            b.delete()

    def is_ready(self) -> bool:
        return True

    def block_until_ready(self):
        if self.value is None:
            raise RuntimeError("BlockHostUntilReady() called on a deleted or donated buffer")
        return self

    def on_device_size_in_bytes(self) -> int:
        return sum(b.on_device_size_in_bytes() for b in self._arrays)

    def _single_device_array_to_np_array_did_copy(self):
        return self.value, False

    def _copy_single_device_array_to_host_async(self) -> None:
        pass


def _flag_count() -> int | None:
    """N of `--xla_force_host_platform_device_count=N` in XLA_FLAGS, or None."""
    found = re.findall(r"--xla_force_host_platform_device_count=(\d+)",
                       os.environ.get("XLA_FLAGS", ""))
    return int(found[-1]) if found else None


def device_count(configured) -> int:
    """How many devices the NumPy backend simulates: `configured` (jax_num_cpu_devices, i.e.
    JXKERNEL_CPU_DEVICES) if set, else XLA_FLAGS's --xla_force_host_platform_device_count,
    else one. The NumPy backend stands in for XLA's CPU where jaxlib cannot run (JupyterLite),
    so it honors the knobs a JAX user sets for simulated CPU devices, in JAX's order (the
    config option overrides the flag): a notebook written for XLA's CPU devices (the
    workshop's 09_parallelism sets jax_num_cpu_devices) runs unchanged.

        >>> device_count(4), device_count(-1)       # (XLA_FLAGS unset; -1: JAX's default)
        (4, 1)
    """
    n = configured if configured is not None and int(configured) > 0 else _flag_count()
    n = int(n) if n is not None else 1
    return n if n > 0 else 1           # (JAX's -1 and 0: the default)


class NumpyClient:
    """What `xla.client.Backend` and the views read of a PJRT client."""
    platform = "numpy"
    platform_version = f"numpy {np.__version__}"

    def __init__(self):
        self._devices = [NUMPY_DEVICE]

    def start(self, n: int) -> None:
        """Simulate `n` devices (when the backend starts: xla/client.py)."""
        _DEVICES.extend(NumpyDevice(i) for i in range(len(_DEVICES), n))
        self._devices = _DEVICES[:n]

    def local_devices(self) -> list:
        return list(self._devices)

    devices = local_devices

    def _get_all_devices(self) -> list:
        """Every device of every process, as jaxlib's client's (colocated_python's
        serialization reads devices by id there): one process, so the local ones."""
        return list(self._devices)

    def process_index(self) -> int:
        return 0

    def live_arrays(self) -> list:
        return [b for b in list(_live) if b.value is not None]

    def live_executables(self) -> list:
        """The programs made for this backend and still held (by a jit's cache, a Compiled),
        as jaxlib's client's: freed ones leave it."""
        return list(LIVE_EXECUTABLES)

    def compile_and_load(self, *args, **kwargs):
        """jaxlib's client compiles an MLIR module (StableHLO) with XLA; there is no compiler
        here (autodidax compiles its own module so: its learner gets this, not an
        AttributeError)."""
        raise unsupported("compiling an MLIR module (StableHLO) with XLA (the client's "
                          "compile_and_load)", "run the program with jax.jit, whose jaxpr "
                          "NumPy runs, or compile under JAX_PLATFORMS=cpu")

    compile = compile_and_load


_live: weakref.WeakSet = weakref.WeakSet()      # for jax.live_arrays and %jxmemory


def holds_value(array: np.ndarray) -> bool:
    """Whether `array` is the value a live NumPy-backend buffer holds (what jax.device_get and
    np.asarray give there, without a copy): an error card tells a learner's write into it as
    a write into a JAX array's memory, as on XLA's CPU.

        >>> holds_value(np.ones(3))
        False
    """
    return any(buffer.value is array for buffer in list(_live))


LIVE_EXECUTABLES: weakref.WeakSet = weakref.WeakSet()   # numpy_backend's, as they are made
NUMPY_DEVICE = NumpyDevice()
_DEVICES = [NUMPY_DEVICE]                       # every one made (by id), simulated or not
PLACEMENT = NUMPY_DEVICE.placement
UNCOMMITTED_PLACEMENT = NUMPY_DEVICE.uncommitted
CLIENT = NumpyClient()


def unsupported(what: str, instead: str) -> NotImplementedError:
    """The error for what the NumPy backend cannot do: names the backend, and what to use.

        >>> str(unsupported("jax.export", "export under JAX_PLATFORMS=cpu"))[:50]
        "jax.export is not available on the 'numpy' backend"
    """
    return NotImplementedError(f"{what} is not available on the 'numpy' backend (jaxprs run "
                               f"with NumPy, without XLA); {instead}")
