"""`Array`: the device array users see, wrapping a jaxlib buffer.

    >>> x = device_put(np.arange(3.0))
    >>> x
    Array([0., 1., 2.], dtype=float32)

We wrap jaxlib's `ArrayImpl` rather than patching it, so that `jax` itself can be
imported in the same process (jax patches that class its own way).

Immutability. Data put from NumPy is always *copied* to the device: jaxlib's
zero-copy mode aliases any 64-byte-aligned NumPy buffer, so a later write to the
user's array would show through. (The copy costs the same as aliasing for small
arrays.) The other direction, `np.asarray(x)`, is a zero-copy *read-only* view
where jaxlib allows it (CPU); we cache it in `_npy`.

Several devices. An `Array` lives on one device. A `MultiDeviceArray` (a subclass)
holds one buffer per device, in one of two layouts:

- stacked (what pmap returns): shard `i` is `x[i]`, the leading axis is the device
  axis, so `x.shape == (n_devices,) + shard_shape`;
- replicated: every shard holds the whole value, `x.shape == shard_shape`.

Either way the jaxlib buffer carries the *per-device* aval, which is what a
replicated executable (num_replicas=N) expects for each parameter. Keeping the
single-device class free of multi-device branches keeps its hot paths as short
as they were; code that tests `type(x) is Array` (eager dispatch) sends a
MultiDeviceArray down its general path, which gathers it with `device_put`.

Operators and array methods (`+`, `.sum()`, `.at[]`, ...) are installed by
jxkernel.numpy, which owns their semantics.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..core.config import config
from ..core import dtypes
from ..core.avals import ShapedArray, python_scalar_aval
from ..core.basearray import Array as BaseArray
from ..core.mesh import NamedSharding, PartitionSpec
from ..core.trace import Tracer
from . import client as _client
from .client import xc
from .numpy_device import PLACEMENT, NumpyBuffer, NumpyDevice, unsupported


@functools.lru_cache(maxsize=None)
def sharding_for(devices: tuple):
    """A sharding object for a buffer on `devices`, replicated; needs no Python hooks."""
    if type(devices[0]) is NumpyDevice:
        if len(devices) > 1:
            raise unsupported("an Array over several devices", "the numpy backend has one")
        return PLACEMENT
    return xc.GSPMDSharding(xc.DeviceList(devices), xc.HloSharding.replicate())


# How a sharded Array shows itself in a notebook (the value, then which device holds which
# block): a view above this layer, registered by the package root (install_array_display), as
# core reaches xla through install_eval_hook. Unset: its text alone.
array_display = None


def install_array_display(show) -> None:
    """`show(x) -> MIME bundle` for a sharded Array's `_repr_mimebundle_`."""
    global array_display
    array_display = show


class DeletedArrayError(RuntimeError):
    """An Array was used after it was donated to a computation or deleted."""


class ArrayImpl:
    """An immutable array on a device. Reading its value waits for the computation.

    Named as JAX's concrete array class, which user code checks by name
    (`type(x).__name__ == "ArrayImpl"`); `jxkernel.Array` is the abstract type.
    """
    __slots__ = ("_buf", "aval", "_npy", "__weakref__")
    __array_priority__ = 100

    def __init__(self, buf, aval: ShapedArray):
        self._buf = buf
        self.aval = aval
        self._npy = None

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)
    nbytes = property(lambda self: self.aval.size * self.aval.dtype.itemsize)
    itemsize = property(lambda self: self.aval.dtype.itemsize)

    # ---------------------------------------------------------------- devices
    def devices(self) -> set:
        """The set of devices holding this array's data."""
        return set(self._buf._sharding._devices)

    @property
    def device(self):
        return self._buf._sharding._devices[0]

    @property
    def committed(self) -> bool:
        return self._buf._committed

    def _home_device(self):
        """Where values derived from this array go by default."""
        return self._buf._sharding._devices[0]

    @property
    def platform(self) -> str:
        return _client.platform_of(self.device)

    @property
    def addressable_shards(self) -> list:
        """One `Shard` per device; here the whole array on its one device."""
        return [Shard(self.device, (slice(None),) * self.ndim, 0, self)]

    @property
    def is_fully_replicated(self) -> bool:
        return True

    @property
    def is_fully_addressable(self) -> bool:
        return True                         # one process: every device is this one's

    @property
    def sharding(self):
        """A SingleDeviceSharding on this array's device, as JAX reports for one device."""
        from .sharding import SingleDeviceSharding  # local: a rarely used attribute
        return SingleDeviceSharding(self.device)

    def block_until_ready(self) -> Array:
        """Wait until the computation producing this array is done; returns self."""
        try:                        # (checked only on failure: this is on every timed loop)
            self._buf.block_until_ready()
            return self
        except Exception:
            if not self._buf.is_deleted():
                raise               # the computation failed: jaxlib's error, as JAX's
        self._check_alive()         # deleted: our error, outside the handler (nothing chained)

    def copy_to_host_async(self) -> None:
        """Start copying the data to the host now; a later `np.asarray(x)` waits only for
        what is left of the copy (JAX's method; `jax.copy_to_host_async` calls it on a pytree)."""
        self._check_alive()
        if self._npy is None and self.platform != "cpu":   # a CPU buffer is read in place
            bufs = _client.shard_buffers(self._buf) if isinstance(self, MultiDeviceArray) \
                else [self._buf]
            for buf in bufs:
                buf._copy_single_device_array_to_host_async()

    def is_ready(self) -> bool:
        """True once the value is computed (calls return before that: dispatch is async)."""
        self._check_alive()
        return self._buf.is_ready()

    def is_deleted(self) -> bool:
        return self._buf.is_deleted()

    def delete(self) -> None:
        """Free the device memory now; the Array is unusable afterwards."""
        self._npy = None
        self._buf.delete()

    def unsafe_buffer_pointer(self) -> int:
        self._check_alive()
        return self._buf.unsafe_buffer_pointer()

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule of this array's buffer (shared memory unless a copy is asked)."""
        # DLPack exchange loads when first used
        from .dlpack import to_dlpack
        return to_dlpack(self, stream=stream, max_version=max_version, dl_device=dl_device,
                         copy=copy)

    def __dlpack_device__(self) -> tuple:
        """`(DLDeviceType, device id)`: ``(<DLDeviceType.kDLCPU: 1>, 0)`` on CPU."""
        # DLPack exchange loads when first used
        from .dlpack import dlpack_device
        return dlpack_device(self)

    def _check_alive(self):
        if self._buf.is_deleted():
            raise DeletedArrayError(
                f"Array has been deleted with shape={self.aval.str_short()}: it was donated to a "
                f"computation (donate_argnums) or .delete() was called. Use the computation's "
                f"result instead, or do not donate this argument.")

    # ---------------------------------------------------------------- values
    def _value(self) -> np.ndarray:
        """The data as a read-only NumPy array (waits for the computation)."""
        if self._npy is None:
            self._check_alive()
            self._npy = _frozen(_to_host(self._buf), self.aval.shape)
        return self._npy

    def __array__(self, dtype=None, copy=None):
        value = self._value()
        if dtype is not None and np.dtype(dtype) != value.dtype:
            if copy is False:
                raise ValueError(f"Converting {self.aval.str_short()} to {np.dtype(dtype)} "
                                 f"needs a copy, but copy=False was requested")
            return value.astype(dtype)
        return value.copy() if copy else value

    def tolist(self):
        return self._value().tolist()

    def item(self, *args):
        return self._value().item(*args)

    def __float__(self):
        return float(self._scalar("float"))

    def __int__(self):
        return int(self._scalar("int"))

    def __complex__(self):
        return complex(self._scalar("complex"))

    def __bool__(self):
        if self.aval.size != 1:
            raise ValueError(f"The truth value of an array with {self.aval.size} elements is "
                             f"ambiguous (shape {self.shape}). Use a.any() or a.all().")
        return bool(self._scalar("bool"))

    def __index__(self):
        if not dtypes.is_int(self.dtype):
            raise TypeError(f"Only integer arrays can be used as an index; got "
                            f"{self.aval.str_short()}")
        return int(self._scalar("index"))

    def _scalar(self, what):
        if self.aval.size != 1:
            raise TypeError(f"Only arrays of one element can be converted to Python scalars "
                            f"(by {what}()); got shape {self.shape}")
        return self._value().reshape(()).item()

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        """Rows along the first axis, as Arrays on the same device (a host round trip)."""
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        row_aval = ShapedArray(self.shape[1:], self.dtype, self.weak_type)
        device = self._home_device()
        for row in self._value():
            yield host_to_device(np.asarray(row), row_aval, device)

    def __hash__(self):
        raise TypeError("unhashable type: 'Array'. Arrays cannot be dict keys or static "
                        "arguments; use a tuple of Python scalars (tuple(x.tolist())) instead.")

    def __reduce__(self):
        return device_put, (np.array(self._value()),)

    def copy(self) -> Array:
        """A new Array with its own buffer(s), on the same device(s)."""
        self._check_alive()
        return self._rewrap(_copy_buffer(self._buf, self._buf._sharding))

    def _rewrap(self, buf) -> Array:
        return Array(buf, self.aval)

    def __copy__(self):
        return self          # immutable: sharing is safe

    def __deepcopy__(self, memo):
        return self.copy()

    def __format__(self, spec):
        return format(self._value(), spec) if self.ndim == 0 else str(self)

    # ---------------------------------------------------------------- display
    def __repr__(self):
        # JAX's layout exactly (jax/_src/array.py), so printed output matches JAX's.
        if self._buf.is_deleted():
            return f"Array(<deleted>, shape={self.shape}, dtype={self.dtype.name})"
        prefix = "Array("
        weak = ", weak_type=True" if self.weak_type else ""
        dtype_text = f"dtype={self.dtype.name}{weak})"
        line_width = np.get_printoptions()["linewidth"]
        if self.size == 0:
            body = f"[], shape={self.shape}"
        else:
            body = np.array2string(self._value(), prefix=prefix, suffix=",", separator=", ",
                                   max_line_width=line_width)
        last_line = len(body) - body.rfind("\n") + 1
        sep = " " * len(prefix) if last_line + len(dtype_text) + 1 > line_width else " "
        return f"{prefix}{body},{sep}{dtype_text}"

    def __str__(self):
        return str(self._value())

    def _repr_html_(self):
        import html
        device = ", ".join(str(d) for d in sorted(self.devices(), key=lambda d: d.id))
        head = (f"<b>Array</b> <code>{self.aval.str_short()}</code> "
                f"<span style='color:#666'>{self.dtype.name}"
                f"{' (weak)' if self.weak_type else ''} on {html.escape(device)}</span>")
        if self._buf.is_deleted():
            return f"<div>{head}<br><i>deleted (donated)</i></div>"
        with np.printoptions(threshold=200, edgeitems=3, linewidth=100):
            body = html.escape(np.array2string(self._value(), separator=", "))
        return f"<div>{head}<pre style='margin:2px 0'>{body}</pre></div>"


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


Array = ArrayImpl          # the name the rest of jxkernel imports
BaseArray.register(ArrayImpl)


# What a transformation's call path needs of Arrays, kept here so that nothing outside xla/
# reads their fields. jit's cache-hit path calls both on every call (~50 ns each).
def signature(arrays) -> tuple:
    """(avals, placement) of Arrays, for a cache key: their types, and a hashable token of
    where the first one lives (one per device; None for no arrays). A non-Array raises
    AttributeError.

    >>> signature([device_put(1.0)])[0]
    (ShapedArray(float32[], weak_type=True),)
    """
    return tuple([a.aval for a in arrays]), arrays[0]._buf._sharding if arrays else None


def buffers(arrays) -> list:
    """The jaxlib buffers of Arrays, as `Executable.call_buffers` takes them."""
    return [a._buf for a in arrays]


# jit's other common call, f(x, 2.0): Python scalars among Arrays. A scalar's (aval, buffer)
# is kept per (value, type, config, placement), so a repeated constant (a step size, a
# temperature) costs a dict lookup, not a transfer (~5 µs, and more where the fresh buffer's
# first use waits on it). Bounded; cleared whole when full (a loop counter makes a new value
# per call).
_SCALAR_TYPES = (bool, int, float, complex)
_scalar_buffers: dict = {}
_MAX_SCALAR_BUFFERS = 256


def scalar_signature(leaves) -> tuple:
    """(avals, placement, buffers) of Arrays and Python scalars, as `signature` and `buffers`
    give them for Arrays: a scalar is weakly typed (bool not) and has a buffer on the first
    Array's device (the default device with scalars alone). Anything else raises
    AttributeError; a Python int out of its dtype's range OverflowError, as a transfer does.

    >>> scalar_signature([2.0])[0]
    (ShapedArray(float32[], weak_type=True),)
    """
    where = None
    for a in leaves:
        if type(a) not in _SCALAR_TYPES:
            where = a._buf._sharding
            break
    else:
        where = _default_placement() if leaves else None
    avals, bufs = [], []
    for a in leaves:
        aval, buf = _scalar(a, where) if type(a) in _SCALAR_TYPES else (a.aval, a._buf)
        avals.append(aval)
        bufs.append(buf)
    return tuple(avals), where, bufs


def scalar_kinds(leaves) -> tuple:
    """Per leaf its Python scalar type, or None for an Array: what a compiled hit checks."""
    return tuple([type(a) if type(a) in _SCALAR_TYPES else None for a in leaves])


def scalar_buffer(x, where):
    """The buffer of Python scalar `x` on `where`'s device (kept, as in scalar_signature)."""
    return _scalar(x, where)[1]


def _scalar(x, where) -> tuple:
    # 0.0 == -0.0 and 1 == 1.0 == True: the sign of a zero and the type are part of the key;
    # a NaN never equals itself, so it is never found
    key = (x, type(x), config._generation, where, math.copysign(1.0, x.real) if not x else 0.0)
    found = _scalar_buffers.get(key) if not config._transfer_guarded else None
    return found if found is not None else _put_scalar(x, where, key)


def _put_scalar(x, where, key) -> tuple:
    """(aval, buffer) of a Python scalar put on `where`'s device, kept under `key` (not a
    NaN's, a complex one's, or one made under a transfer guard, which sees each transfer)."""
    dtype = dtypes.python_scalar_dtype(x)
    aval = python_scalar_aval(type(x), dtype)
    value = _python_scalar_to_numpy(x, dtype)
    if config._transfer_guarded:
        return aval, host_to_device(value, aval, where._devices[0])._buf
    # (host_to_device's transfer written out: a loop counter puts a new scalar on every call)
    found = (aval, NumpyBuffer(value, aval)) if where is PLACEMENT else \
        (aval, xc.batched_device_put(aval, where, [value], [where._devices[0]], True, False,
                                     _COPY, True))
    if x == x and type(x) is not complex:
        if len(_scalar_buffers) >= _MAX_SCALAR_BUFFERS:
            _scalar_buffers.clear()
        _scalar_buffers[key] = found
    return found


def _default_placement():
    device = _client.default_device()
    placement = _placements.get(device)
    if placement is None:
        placement = _placements[device] = sharding_for((device,))
    return placement


_placements: dict = {}


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


# JAX has one concrete class for arrays on one device or many; code that checks
# `type(x).__name__` sees that name here too. `__qualname__` keeps the real one, so the
# class's repr and tracebacks say which implementation it is.
MultiDeviceArray.__name__ = "ArrayImpl"


class Shard:
    """One device's part of an Array: `device`, `index` (slices into it), `data`."""
    __slots__ = ("device", "index", "replica_id", "data")

    def __init__(self, device, index, replica_id, data):
        self.device, self.index, self.replica_id, self.data = device, index, replica_id, data

    def __repr__(self):
        return (f"Shard(device={self.device!r}, index={self.index}, "
                f"replica_id={self.replica_id}, data={self.data})")


def _rewrap_buffer(buf, aval, device):  # (XLA's shards only: the NumPy backend has one device)
    """A one-device jaxlib buffer given our aval (jaxlib's shard buffers carry none)."""
    return xc.ArrayImpl(aval, sharding_for((device,)), [buf], committed=True, _skip_checks=True)


def _copy_buffer(buf, sharding):
    """A copy of `buf`'s data on `sharding`'s devices (one buffer per device)."""
    if sharding is PLACEMENT:           # to the NumPy backend (from it, or from XLA's)
        return NumpyBuffer(np.array(_to_host(buf)), buf.aval)
    if type(buf) is NumpyBuffer:        # from the NumPy backend to an XLA device
        return xc.batched_device_put(buf.aval, sharding, [buf.value], list(sharding._devices),
                                     True, False, _COPY, True)
    return xc.batched_copy_array_to_devices_with_sharding(
        [buf], [sharding._devices], [sharding], [xc.ArrayCopySemantics.ALWAYS_COPY])[0]


# ---------------------------------------------------------------- transfers
# Copy host data during the call: never alias the caller's NumPy memory (see module doc).
_COPY = xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL if xc is not None else None


def host_to_device(value: np.ndarray, aval: ShapedArray, device) -> Array:
    """Put NumPy data (already of `aval`'s dtype) on `device` as an Array (a copy)."""
    if config._transfer_guarded:
        # loads once a transfer guard is set (config._transfer_guarded)
        from .transfer_guard import check
        check("host_to_device", aval, device)
    if aval.dtype in dtypes.NO_ARRAY_DTYPES:
        dtypes.check_has_arrays(aval.dtype, "jnp.array")
    if type(device) is NumpyDevice:               # a copy, as XLA's transfer makes one
        return Array(NumpyBuffer(np.array(value, aval.dtype), aval), aval)
    buf = xc.batched_device_put(aval, sharding_for((device,)), [value], [device], True, False,
                                _COPY, True)
    return Array(buf, aval)


def to_numpy(x, dtype=None) -> np.ndarray:
    """`x` as NumPy data of its canonical dtype (or of `dtype`)."""
    if dtypes.is_python_scalar(x):
        target = dtype if dtype is not None else dtypes.python_scalar_dtype(x)
        return _python_scalar_to_numpy(x, target)
    value = np.asarray(x)
    if value.dtype == object:
        raise TypeError(f"Cannot convert {type(x).__name__} to an array: it holds Python "
                        f"objects (dtype=object)")
    target = dtypes.canonicalize_dtype(value.dtype if dtype is None else dtype)
    return value if value.dtype == target else value.astype(target)


def _python_scalar_to_numpy(x, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if type(x) is int and dtype in dtypes.INT_DTYPES:
        low, high = _int_range(dtype)
        if not low <= x <= high:
            raise OverflowError(f"Python int {x} too large to convert to {dtype.name}")
    return np.asarray(x, dtype=dtype)


@functools.lru_cache(maxsize=None)
def _int_range(dtype) -> tuple:
    info = dtypes.iinfo(dtype)          # (np.iinfo is built anew on every call: ~1 µs)
    return int(info.min), int(info.max)


@functools.lru_cache(maxsize=4096)
def _aval(shape, dtype) -> ShapedArray:
    return ShapedArray(shape, dtype)        # avals are immutable: one per type is enough


def _host_value(x):
    """(NumPy value, aval) for a host value: NumPy data or a Python scalar (weakly typed)."""
    if type(x) is np.ndarray and x.dtype.kind != "O":          # the common case, quickly
        target = dtypes.canonicalize_dtype(x.dtype)
        value = x if x.dtype == target else x.astype(target)
        return value, _aval(value.shape, target)
    if isinstance(x, Tracer):
        raise TypeError(f"Cannot put a traced value {x} on a device: it has no value while "
                        f"its function is being transformed")
    if dtypes.is_python_scalar(x):
        dtype = dtypes.python_scalar_dtype(x)
        return _python_scalar_to_numpy(x, dtype), python_scalar_aval(type(x), dtype)
    value = to_numpy(x)
    return value, ShapedArray(value.shape, value.dtype)


def device_put(x, device=None, *, copy=False) -> Array:
    """`x` (an Array, NumPy data or a Python scalar) as an Array on `device`.

    >>> device_put(1.0)
    Array(1., dtype=float32, weak_type=True)
    >>> device_put(np.arange(3), jxkernel.devices()[1]).device      # needs 2 devices
    CpuDevice(id=1)
    """
    if device is not None and not isinstance(device, _DEVICE_TYPES):
        if _is_named(device):                  # split over a mesh: xla/sharded.py
            # loads with the first mesh or sharded Array: `import jxkernel` needs neither
            from .sharded import device_put as put_on_mesh
            return put_on_mesh(x, device)
        device = _device_of_sharding(device)
    if isinstance(x, Array):
        return _array_to_device(x, device, copy)
    if device is None:
        device = _client.default_device()
    value, aval = _host_value(x)
    return host_to_device(value, aval, device)


_DEVICE_TYPES = (NumpyDevice,) if xc is None else (NumpyDevice, xc.Device)


def _is_named(sharding) -> bool:
    return isinstance(sharding, (NamedSharding, PartitionSpec))


def _device_of_sharding(sharding):
    """The device a SingleDeviceSharding names (JAX's device_put takes shardings too)."""
    # loads with the first mesh or sharded Array: `import jxkernel` needs neither
    from .sharding import SingleDeviceSharding
    if not isinstance(sharding, SingleDeviceSharding):
        raise TypeError(f"device_put's device must be a Device (one of jxkernel.devices()) or a "
                        f"SingleDeviceSharding; got {sharding!r} of type "
                        f"{type(sharding).__name__}")
    if sharding.memory_kind != sharding._device.default_memory().kind:
        raise NotImplementedError(f"device_put to memory kind {sharding.memory_kind!r}: "
                                  f"jxkernel places arrays in each device's default memory "
                                  f"only; use {sharding.with_memory_kind(None)!r}")
    return sharding._device


def _array_to_device(x: Array, device, copy: bool) -> Array:
    x._check_alive()
    if type(x) is not Array:                    # several devices: gather onto one
        if device is None and getattr(x, "_sharding", None) is not None:
            return x.copy() if copy else x      # split over a mesh: it stays so
        device = device if device is not None else x._home_device()
        return host_to_device(x._value(), x.aval, device)
    if device is None or device == x.device:
        return x.copy() if copy else x
    if config._transfer_guarded:
        # loads once a transfer guard is set (config._transfer_guarded)
        from .transfer_guard import check
        check("device_to_device", x.aval, device)
    buf = _copy_buffer(x._buf, sharding_for((device,)))
    return Array(buf, x.aval)


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
    replicated-sharding batched_device_put would silently copy values[0] everywhere."""
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


def device_get(tree):
    """Arrays in `tree` (nested lists, tuples, dicts) as NumPy arrays; other leaves unchanged.

    >>> device_get({"a": device_put(1.0)})
    {'a': array(1., dtype=float32)}
    """
    if isinstance(tree, Array):
        return tree._value()
    if isinstance(tree, (list, tuple)) and not hasattr(tree, "_fields"):
        return type(tree)(device_get(t) for t in tree)
    if isinstance(tree, tuple):                                  # a namedtuple
        return type(tree)(*(device_get(t) for t in tree))
    if isinstance(tree, dict):
        return type(tree)((k, device_get(v)) for k, v in tree.items())
    return tree
