"""`Array`: the device array users see, wrapping a jaxlib buffer.

    >>> x = jax.device_put(np.arange(3.0))
    >>> x
    Array([0., 1., 2.], dtype=float32)

We wrap jaxlib's `ArrayImpl` rather than patching it, so that `jax` itself can be
imported in the same process (jax patches that class its own way).

Immutability. Data put from NumPy is always *copied* to the device: jaxlib's
zero-copy mode aliases any 64-byte-aligned NumPy buffer, so a later write to the
user's array would show through. (The copy costs the same as aliasing for small
arrays.) The other direction, `np.asarray(x)`, is a zero-copy *read-only* view
where jaxlib allows it (CPU); we cache it in `_npy`.

Several devices. One class for every layout, as JAX's one `ArrayImpl`: an Array holds a
buffer, an aval and, laid out over a mesh (one device or many), its `NamedSharding`, which
says which device holds which block (pmap's results are such Arrays too: pmap is a jit of
shard_map, api/pmap.py). An Array on one device without a mesh has no sharding of its own
(`_sharding` is None: the fast paths test that) and reports its device's SingleDeviceSharding.
What only a mesh layout needs (its blocks, its value assembled) lives in sharded.py as
functions, loaded with the first mesh.

Operators and array methods (`+`, `.sum()`, `.at[]`, ...) are installed by
jxkernel.numpy, which owns their semantics.

This module holds the class and what it needs to exist: the copy of host data onto a device
(`host_to_device`) and back, an Array onto another device (`array_to_device`). Below it,
buffer.py: the one-device buffer beneath an Array (its sharding object, committed or not, its
copies, its data read on the host). Beside it, one job each: transfers.py (`put_on_device`,
`device_get`), put.py (`device_put`: a device's or a mesh's), host_values.py (host data as NumPy
of its canonical dtype) and scalars.py (jit's Python-scalar arguments); their names stay
importable from here (`from jxkernel.xla.array import device_put`), loaded on first use.
array_display.py says how an Array shows itself (JAX's repr, the HTML, a sharded Array's
notebook view), placement.py where a call on Arrays runs and whether its results are committed.
"""
from __future__ import annotations

import sys

import numpy as np

from ..core.config import config
from ..core import deprecations, dtypes
from ..core.avals import ShapedArray, abstract_token, replicated_on, typed_sharding
from ..core.mesh import NamedSharding, PartitionSpec
from ..core.earray import EArray
from ..core.errors import check_bool_conversion, check_integer_conversion, check_scalar_conversion
from ..core.basearray import Array as BaseArray
from ..core.lazy_names import lazy_names
from ..core.monitoring import test_event
from ..core.native import native
from . import array_display, buffer_protocol, client as _client, memory_kinds
from .array_parts import from_parts
from .client import xc
from .deleted import (DELETED, Gone, asked_error, deleted_error, mark, ready_error, wait_error,
                      why_text)
from .buffer import (_COPY, _committed_buffer, _copy_buffer, _frozen, _rewrap_buffer,
                     _to_host, sharding_for, uncommitted_sharding_for)
from .host_values import _host_value
from .layout import Format, Layout, from_pjrt_layout
from .numpy_device import NumpyBuffer, NumpyDevice


# What only an Array over a mesh needs (its blocks, its value assembled from them, a copy of
# each block): xla/sharded.py, which sets this to itself when it loads, with the first mesh and
# so before any Array over one exists (it imports this module: this one cannot import it).
on_mesh = None


class _CNamed(type):
    """ArrayImpl's metaclass: Python's own messages print a class by its C-level name, which
    for JAX's ArrayImpl (a C type) is `jaxlib._jax.ArrayImpl` ("unhashable type:
    'jaxlib._jax.ArrayImpl'", "'jaxlib._jax.ArrayImpl' object is not callable", "for +:
    'jaxlib._jax.ArrayImpl' and 'str'") while its `__name__` is `ArrayImpl`. A Python class
    prints its `__name__`: ours is set to JAX's printed name below, and `__name__` reads the
    part after the last dot, as a C type's does (so `type(x).__name__ == "ArrayImpl"`)."""
    __name__ = property(lambda cls: type.__dict__["__name__"].__get__(cls).rpartition(".")[2])


# The buffer protocol (`memoryview(x)`): a C type's, inherited (core/_fastpath.c's ArrayBuffer,
# which adds no field: the slots below keep their offsets); without the compiled fast path,
# Python 3.12's `__buffer__` (PEP 688), below; on 3.11 without it, none (NumPy reads
# `__array__`).
_ArrayBase = native.ArrayBuffer if native else object


# while a jit or a control-flow body traces (transforms/jit/refs.py's traced, lax/_cf_bodies.py's
# trace_fun), the ids of the arrays whose values its Python read on the host (float(a),
# a.item(), np.asarray(a), a print): each value so read is in the program as a Python number
# or a NumPy constant, though the array is no constant of it (views/outside_values.py's
# in_program)
HOST_READS: list = []

# raw key data that jax.random.split made while the notebook watches for reused keys:
# id(array) -> random/taken_keys.py's entry, whose `indexed` and `looped` mark the keys an
# index or a for loop takes from it (the note tells two `keys[0]` as one key drawn twice);
# empty otherwise, so other arrays pay one test of an empty dict per index or loop
KEY_DATA: dict = {}
# the same for tracers while the notebook watches (they take no weak references, nor
# attributes): [random/taken_keys.py's entry], whose `indexed` and `looped` mark the keys taken
# from a tracer of keys under vmap; empty otherwise, one test per index or loop of a tracer
KEY_TRACERS: list = []


class ArrayImpl(_ArrayBase, metaclass=_CNamed):
    """An immutable array on a device. Reading its value waits for the computation.

    Named as JAX's concrete array class, which user code checks by name
    (`type(x).__name__ == "ArrayImpl"`); `jxkernel.Array` is the abstract type. `_sharding`:
    None on one device (the fast paths), else the NamedSharding of its mesh layout (made by
    sharded.sharded_array, which also puts the layout's Explicit axes in the aval).
    """
    # (the compiled fast path, core/_fastpath.c, fills these four slots of the Arrays it makes)
    # (`__dict__`: user code may set attributes of its own, as on JAX's ArrayImpl; a copy or
    # a result does not carry them)
    __slots__ = ("_buf", "aval", "_npy", "_sharding", "__weakref__", "__dict__")
    __array_priority__ = 100

    def __init__(self, buf, aval: ShapedArray, sharding=None, committed=None,
                 _skip_checks=False):
        if committed is not None:       # JAX's form: (aval, sharding, arrays, committed)
            buf, aval, sharding = from_parts(buf, aval, sharding, committed, _skip_checks,
                                             on_mesh)
        self._buf = buf
        self.aval = aval
        self._npy = None
        self._sharding = sharding

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
        if self._sharding is not None:
            return set(self._sharding.mesh.devices.flat)
        return set(self._buf._sharding._devices)

    @property
    def device(self):
        """The device holding this array, or the sharding of one over several devices (the
        Array API's `device`: what `to_device` takes to place an array alike)."""
        if self._sharding is not None and self._sharding.num_devices != 1:
            return self._sharding
        return self._buf._sharding._devices[0]

    @property
    def committed(self) -> bool:
        return self._buf._committed

    _committed = committed          # JAX's private name for it (its tests read it)

    def _home_device(self):
        """Where values derived from this array go by default."""
        return self._buf._sharding._devices[0]     # (over a mesh: its first device)

    @property
    def platform(self) -> str:
        return _client.platform_of(self._home_device())

    @property
    def addressable_shards(self) -> list:
        """One `Shard` per device of this process: its index into the array, replica id and
        data (mesh order); on one device without a mesh, the whole array."""
        if self._sharding is not None:
            return on_mesh.addressable_shards(self)
        return [Shard(self.device, (slice(None),) * self.ndim, 0, self)]

    def addressable_data(self, index: int) -> Array:
        """Shard `index`'s data (devices in mesh order), as a one-device Array."""
        return self.addressable_shards[index].data

    global_shards = addressable_shards      # (one process: every shard is this one's)

    # older JAX's names, each JAX 0.10.2's AttributeError in its words (which say what to use)
    @property
    def device_buffer(self):
        raise AttributeError("arr.device_buffer has been deprecated. Use arr.addressable_data(0)")

    @property
    def device_buffers(self):
        raise AttributeError("arr.device_buffers has been deprecated. Use [x.data for x in "
                             "arr.addressable_shards]")

    @property
    def _arrays(self) -> list | None:
        """JAX's private per-device list (its tests and some libraries read it): each
        device's data as a one-device Array, in the order of addressable_shards; None once
        deleted (as JAX's)."""
        if self._buf.is_deleted():
            return None
        return [shard.data for shard in self.addressable_shards]

    def on_device_size_in_bytes(self) -> int:
        """The bytes its buffers take on their devices."""
        return self._asked_of_jaxlib("on_device_size_in_bytes")

    @property
    def is_fully_replicated(self) -> bool:
        return self._sharding is None or self._sharding.is_fully_replicated

    @property
    def is_fully_addressable(self) -> bool:
        return True                         # one process: every device is this one's

    @property
    def sharding(self):
        """Its NamedSharding over a mesh; else a SingleDeviceSharding on its device, as JAX
        reports for one device, naming the memory its buffer is in."""
        if self._sharding is not None:
            return self._sharding
        from .sharding import SingleDeviceSharding  # local: a rarely used attribute
        return SingleDeviceSharding(self.device, memory_kind=memory_kinds.buffer_kind(self._buf))

    @property
    def traceback(self):
        """Where it was made: jaxlib's `Traceback` its buffer recorded when created (JAX's
        `Array.traceback`, the frames unfiltered), None when jaxlib's tracebacks were off
        (`_jax.set_tracebacks_enabled(False)`) and on the NumPy backend, which records none:
        `[f.function_name for f in x.traceback.frames]` names the calls that made `x`, the
        innermost first."""
        return getattr(self._buf, "traceback", None)

    @property
    def format(self):
        """Its layout in memory, as its buffer has it, with its sharding (JAX's `Array.format`;
        a deleted array's layout is None; the NumPy backend's arrays are row-major, as XLA's
        CPU default).

            >>> jnp.ones((2, 3)).format.layout
            Layout(major_to_minor=(0, 1), tiling=(), sub_byte_element_size_in_bits=0)
        """
        if self.is_deleted():
            return Format(None, self.sharding)
        pjrt = getattr(self._buf, "_pjrt_layout", None)
        if pjrt is None:        # the NumPy backend's buffer: C order, as XLA's CPU buffers
            return Format(Layout(tuple(range(self.ndim)), ()), self.sharding)
        return Format(from_pjrt_layout(pjrt), self.sharding)

    def _python_block_until_ready(self) -> Array:
        """Wait until the computation producing this array is done; returns self."""
        try:                        # (checked only on failure: this is on every timed loop)
            self._buf.block_until_ready()
            return self
        except Exception:
            if not self._buf.is_deleted():
                raise               # the computation failed: jaxlib's error, as JAX's
        raise wait_error(self._buf)  # deleted: JAX's error and why, outside the handler

    # compiled (core/native.py): the buffer's wait called from C, else the method above
    block_until_ready = native.block_until_ready(_python_block_until_ready) if native else \
        _python_block_until_ready

    def copy_to_host_async(self) -> None:
        """Start copying the data to the host now; a later `np.asarray(x)` waits only for
        what is left of the copy (JAX's method; `jax.copy_to_host_async` calls it on a pytree)."""
        self._check_alive()
        if self._npy is None and self.platform != "cpu":   # a CPU buffer is read in place
            self._buf._copy_single_device_array_to_host_async()

    def is_ready(self) -> bool:
        """True once the value is computed (calls return before that: dispatch is async)."""
        if self._buf.is_deleted():      # (never jaxlib's is_ready of it: xla/deleted.py)
            raise ready_error(self._buf)
        return self._buf.is_ready()

    def is_deleted(self) -> bool:
        return self._buf.is_deleted()

    def delete(self) -> None:
        """Free the device memory now; the Array is unusable afterwards."""
        self._npy = None
        self._buf.delete()
        mark(self, DELETED)

    def unsafe_buffer_pointer(self) -> int:
        return self._asked_of_jaxlib("unsafe_buffer_pointer")

    def _asked_of_jaxlib(self, method: str):
        """Its jaxlib buffer's answer to `method`, as JAX's (which calls it): deleted, jaxlib's
        error then why (a donated one's size is still known); the NumPy backend's buffer
        the same. (Only for methods that raise on a deleted buffer, never
        one that crashes: docs/contributing.md, "When a worker crashes".)"""
        raw = self._buf.deleted_buf if type(self._buf) is Gone else self._buf
        if type(raw) is not xc.ArrayImpl:
            if raw.is_deleted() and (error := asked_error(method, self._buf)) is not None:
                raise error
            return getattr(raw, method)()
        try:
            return getattr(raw, method)()
        except Exception as e:          # noqa: BLE001  (jaxlib's, re-raised with why)
            if not raw.is_deleted():
                raise
            said = str(e)
            error = type(e)
        raise error(f"{said}{' ' if said.endswith('.') else '. '}{why_text(self._buf)}")

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule of this array's buffer (shared memory unless a copy is asked)."""
        # DLPack's export loads on the first exchange (it needs no Array: dlpack_export.py)
        from . import dlpack_export as dl
        dl.check_exportable(len(self.devices()), max_version)
        self._check_alive()
        if type(self._buf) is NumpyBuffer:         # NumPy's own exchange, on the array it holds
            return dl.numpy_capsule(self._buf.value, stream=stream, max_version=max_version,
                                    dl_device=dl_device, copy=copy)
        target = dl.export_target(dl_device, self.device, copy)
        x = (array_to_device(self, target, False) if target is not None else
             self.copy() if copy else self)
        # A second handle on the same device memory, which the capsule keeps alive: a later
        # x.delete() then drops only x's handle (exporting x's own aborts the process in jaxlib).
        return dl.buffer_capsule(_rewrap_buffer(x._buf, x.aval, x.device), stream)

    def __dlpack_device__(self) -> tuple:
        """`(DLDeviceType, device id)`: ``(<DLDeviceType.kDLCPU: 1>, 0)`` on CPU."""
        # DLPack's export loads on the first exchange (it needs no Array: dlpack_export.py)
        from .dlpack_export import dlpack_device
        self._check_alive()
        return dlpack_device(self._buf._sharding._devices)

    @property
    def __cuda_array_interface__(self) -> dict:
        """CUDA's array interface of a one-device GPU Array (what CuPy and Numba read); on
        another device JAX's AttributeError, so `hasattr` is False there."""
        if len(self.devices()) != 1:
            raise ValueError("__cuda_array_interface__() is supported only for unsharded "
                             "arrays.")
        self._check_alive()
        if self.device.platform != "gpu" or type(self._buf) is NumpyBuffer:
            raise AttributeError("__cuda_array_interface__ is only defined for GPU buffers.")
        return self._buf._arrays[0].__cuda_array_interface__

    def _check_alive(self):
        if self._buf.is_deleted():      # JAX's RuntimeError, then why (xla/deleted.py)
            raise deleted_error(self.aval, self._buf)

    # JAX's private names for these (its tests read them): the check, the host copy kept
    # (None until read), one device's copy of a fully replicated array
    _check_if_deleted = _check_alive
    _npy_value = property(lambda self: self._npy)

    def _fully_replicated_shard(self) -> Array:
        if not self.is_fully_replicated:
            raise ValueError(f"_fully_replicated_shard: this array is split over "
                             f"{self._sharding!r}; only a fully replicated one has a whole copy")
        return self.addressable_data(0)

    # ---------------------------------------------------------------- values
    @property
    def _value(self) -> np.ndarray:
        """The data as a read-only NumPy array (waits for the computation); a property, as
        JAX's ArrayImpl._value (code written for JAX reads `x._value`)."""
        if HOST_READS:                  # a jit tracing: its Python read this array's values
            HOST_READS[-1].add(id(self))
        if self._npy is None:
            self._check_alive()
            if self._sharding is not None:          # assembled from its blocks
                self._npy = on_mesh.assembled_value(self)
            else:
                self._npy = _frozen(_to_host(self._buf), self.aval.shape)
        return self._npy

    def __array__(self, dtype=None, copy=None):
        value = self._value
        if dtype is not None and np.dtype(dtype) != value.dtype:
            if copy is False:
                raise ValueError(f"Converting {self.aval.str_short(True)} to {np.dtype(dtype)} "
                                 f"needs a copy, but copy=False was requested")
            return value.astype(dtype)
        return value.copy() if copy else value

    # The buffer protocol's host value and format (core/_fastpath.c's ArrayBuffer calls it):
    # JAX's checks and BufferErrors, xla/buffer_protocol.py
    _buffer_host = buffer_protocol.host_view

    if native is None and sys.version_info >= (3, 12):
        def __buffer__(self, flags):    # (PEP 688: the view is NumPy's, its format NumPy's)
            return memoryview(buffer_protocol.host_view(self, flags)[0])

    def tolist(self):
        return self._value.tolist()

    def tobytes(self, order="C") -> bytes:
        """The elements' bytes, as NumPy's `tobytes` (order 'C' or 'F')."""
        return self._value.tobytes(order)

    def item(self, *args):
        return self._value.item(*args)

    # Python's conversions, checked as JAX's Array checks them (core/errors.py): a 0-d array
    # (of integers, for an index) alone, where NumPy takes any one element
    def __float__(self):
        check_scalar_conversion(self.aval)
        return float(self._value)

    def __int__(self):
        check_scalar_conversion(self.aval)
        return int(self._value)

    def __complex__(self):
        check_scalar_conversion(self.aval)
        return complex(self._value)

    def __bool__(self):
        check_bool_conversion(self.aval)
        return bool(self._value)

    def __index__(self):
        check_integer_conversion(self.aval)
        return int(self._value)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        """Rows along the first axis, as Arrays on the same device (a host round trip).
        A 0-d array refuses at `iter(x)`, as JAX's and NumPy's do (`np.iterable(x)` is False:
        matplotlib's `ax.scatter(*params)` asks it of each coordinate)."""
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        if KEY_DATA and id(self) in KEY_DATA:
            return KEY_DATA[id(self)].looped(self, self._rows())
        return self._rows()

    def _rows(self):
        row_aval = ShapedArray(self.shape[1:], self.dtype, self.weak_type)
        sharding = self._sharding
        if type(sharding) is NamedSharding and sharding.mesh.size > 1 and \
                sharding.is_fully_replicated:
            # rows of a value replicated over a mesh stay replicated there, committed, as
            # JAX's (P() over Auto axes, P(None, ...) over Explicit ones, the row's type too)
            row_sharding = replicated_on(sharding.mesh, len(row_aval.shape))
            row_aval = row_aval.update(sharding=typed_sharding(row_sharding, row_aval.ndim))
            for row in self._value:
                yield on_mesh.put(np.asarray(row), row_aval, row_sharding)
            return
        device = self._home_device()
        # rows of a committed array on one device stay committed; those of one split over a
        # mesh come through the host, uncommitted (JAX's device_put of each)
        committed = self.committed and (type(sharding) is not NamedSharding or
                                         sharding.mesh.size == 1)
        for row in self._value:
            yield host_to_device(np.asarray(row), row_aval, device, committed)

    # unhashable as JAX's (not a collections.abc.Hashable: `isinstance(x, Hashable)` is how
    # libraries tell a static value); a jit's static argument says why (jit/args.py)
    __hash__ = None

    @property
    def __numpy_dtype__(self):
        """NumPy 2.4's dtype protocol (`np.dtype(x)`): JAX's deprecation warning, then the
        array's dtype."""
        deprecations.warn("jax-array-numpy-dtype",
                          "Implicit conversion of an array to a dtype is deprecated; rather than "
                          "dtype=arr use dtype=arr.dtype. In the future this will result in an "
                          "error.", stacklevel=2, error_class=TypeError)
        return self.dtype

    def __reduce__(self):
        # its weak type too (JAX pickles `weak_type` with the value): jnp.array(4.0) comes
        # back weakly typed
        if self.weak_type:
            return _unpickle, (np.array(self._value), True)
        return _unpickle, (np.array(self._value),)

    def copy(self) -> Array:
        """A new Array with its own buffer(s), on the same device(s)."""
        self._check_alive()
        if self._sharding is not None and on_mesh.is_token_buffer(self):
            return on_mesh.token_over(self, self._sharding)     # (no data: device to device)
        if self._sharding is not None:              # each device's block put anew
            return on_mesh.put(self._value, self.aval, self._sharding)
        return self._rewrap(_copy_buffer(self._buf, self._buf._sharding))

    def clone(self) -> Array:
        """A new Array over the same buffer(s), as jaxlib's ArrayImpl.clone (a PyTorch habit
        that works in JAX): deleting or donating one deletes both; copy() makes new ones."""
        self._check_alive()
        return Array(self._buf, self.aval, self._sharding)

    def _rewrap(self, buf) -> Array:
        return Array(buf, self.aval, self._sharding)

    def __copy__(self):
        return self.copy()   # a new buffer, as JAX's (copy.copy(x) is jnp.copy(x) there)

    def __deepcopy__(self, memo):
        return self.copy()

    def __format__(self, spec):
        if self._sharding is not None and self._sharding.spec.unreduced:
            return repr(self)           # (JAX's: no one value to format)
        # an array's value takes no format spec: NumPy's TypeError, as JAX 0.10.2's
        # (f"{jnp.ones(2):.2f}" raises there, and jax.debug.print("{:.2f}", v) fails in the
        # callback: printing the array without the digits asked hid that)
        return format(self._value, spec) if self.ndim == 0 or spec else str(self)

    # ---------------------------------------------------------------- display
    # JAX's repr, the HTML and a sharded Array's notebook view: array_display.py
    __repr__ = array_display.array_repr
    __str__ = array_display.array_str
    _repr_html_ = array_display.array_html
    _repr_mimebundle_ = property(array_display.repr_mimebundle)
    _sharded_bundle = array_display.sharded_bundle


# (type's own setter: the C-level name Python's messages print; __name__ still 'ArrayImpl')
type.__dict__["__name__"].__set__(ArrayImpl, "jaxlib._jax.ArrayImpl")
Array = ArrayImpl          # the name the rest of jxkernel imports
BaseArray.register(ArrayImpl)


held_by_jxkernel: list = []    # -> Arrays jxkernel keeps, no user's (views/memory.py)
# what a notebook watch holds for a while and can let go of now (the key-reuse note's draws
# not yet read: notebook/notes/key_notes.py): each called before the live arrays are listed
# (views/memory.py), so that an array only it held is gone, as it is from JAX's list
let_go_before_listing: list = []


def sharded_array(buf, aval: ShapedArray, sharding) -> ArrayImpl:
    """The Array of a buffer over `sharding`'s mesh (its Explicit axes in the aval's type;
    a token's carrier keeps the token type, which has no sharding, as JAX's)."""
    if aval is abstract_token:      # (replicated, P(): it has no dimension to name)
        return ArrayImpl(buf, aval, NamedSharding(sharding.mesh, PartitionSpec())
                         if type(sharding) is NamedSharding else sharding)
    typed = typed_sharding(sharding, len(aval.shape))
    if typed != aval.split:
        aval = aval.update(sharding=typed)
    if typed is None and type(sharding) is NamedSharding:   # (its type names the mesh)
        aval = aval.over_mesh(sharding.mesh)
    return ArrayImpl(buf, aval, sharding)


def is_sharded(x) -> bool:
    """Whether `x` is an Array laid out over a mesh (one device or many)."""
    return type(x) is ArrayImpl and x._sharding is not None


def is_plain(x) -> bool:
    """Whether `x` is an Array on one device without a mesh: its buffer's sharding object says
    where it is (the placement the fast paths compare by identity)."""
    return type(x) is ArrayImpl and x._sharding is None


# The types whose buffers executables take as they are: Array, and typed keys (random/keys.py
# adds KeyArray: its buffer is its key data's), for jit's fast paths.
ARRAY_TYPES: set = set()


# What a transformation's call path needs of Arrays, kept here so that nothing outside xla/
# reads their fields. jit's cache-hit path calls both on every call (~50 ns each).
def buffers(arrays) -> list:
    """The jaxlib buffers of Arrays, as `Executable.call_buffers` takes them."""
    return [a._buf for a in arrays]


ARRAY_TYPES.update((Array, EArray))   # EArray: other extended dtypes' arrays (data's buffer)


class Shard:
    """One device's part of an Array: `device`, `index` (slices into it), `data`."""
    __slots__ = ("device", "index", "replica_id", "data")

    def __init__(self, device, index, replica_id, data):
        self.device, self.index, self.replica_id, self.data = device, index, replica_id, data

    def __repr__(self):
        return (f"Shard(device={self.device!r}, index={self.index}, "
                f"replica_id={self.replica_id}, data={self.data})")


# ---------------------------------------------------------------- transfers
def host_to_device(value: np.ndarray, aval: ShapedArray, device, committed=False) -> Array:
    """Put NumPy data (already of `aval`'s dtype) on `device` as an Array (a copy); committed
    to it where the caller named the device (`device_put(x, device)`), as JAX's."""
    if config._transfer_guarded:
        # loads once a transfer guard is set (config._transfer_guarded)
        from .transfer_guard import check
        check("host_to_device", aval, device)
    if aval.dtype in dtypes.NO_ARRAY_DTYPES:
        dtypes.check_has_arrays(aval.dtype, "jnp.array")
    test_event("batched_device_put")       # (JAX's event, counted by jtu.count_device_put)
    sharding = sharding_for((device,)) if committed else uncommitted_sharding_for((device,))
    if type(device) is NumpyDevice:               # a copy, as XLA's transfer makes one
        return Array(NumpyBuffer(np.array(value, aval.dtype), aval, sharding), aval)
    buf = xc.batched_device_put(aval, sharding, [value], [device], committed, False, _COPY, True)
    return Array(buf, aval)


def array_to_device(x: Array, device, copy: bool) -> Array:
    """`x` on `device` (None: where it is), committed there where a device is named; the same
    Array where nothing moves and no copy is asked, as JAX's `device_put`."""
    if device is None and not copy:             # itself, as JAX's (deleted or not)
        return x
    x._check_alive()
    if x._sharding is not None and on_mesh.is_token_buffer(x):
        # a token's carrier: one device's copied (it has no host value), where none is
        # named to the default device, as JAX's device_put of a Token under set_mesh
        one = uncommitted_sharding_for((_client.default_device(),)) if device is None \
            else sharding_for((device,))
        return Array(_copy_buffer(x._buf._arrays[0], one), x.aval)
    if x._sharding is not None:                 # over a mesh: gathered onto one device
        if device is None:
            return x.copy() if copy else x      # split over a mesh: it stays so
        # (its type then splits nothing: one device's, over no mesh, as JAX's)
        aval = x.aval if x.aval.split is None else x.aval.update(sharding=None)
        return host_to_device(x._value, aval, device, committed=True)
    if device is None or device == x.device and x._buf._committed:
        return x.copy() if copy else x
    if device == x.device and not copy:     # committed now, where it is: the same data
        return Array(_committed_buffer(x._buf), x.aval)
    if config._transfer_guarded:
        # loads once a transfer guard is set (config._transfer_guarded)
        from .transfer_guard import check
        check("device_to_device", x.aval, device)
    buf = _copy_buffer(x._buf, sharding_for((device,)))
    return Array(buf if buf._committed else _committed_buffer(buf), x.aval)


def _unpickle(value: np.ndarray, weak_type: bool = False) -> Array:
    """A pickled Array back: its value on the default device (as `device_put(value)` puts it),
    weakly typed if it was."""
    value, aval = _host_value(value)
    if weak_type:
        aval = ShapedArray(aval.shape, aval.dtype, True)
    return host_to_device(value, aval, _client.default_device())


# The names that moved to the modules beside this one (module doc), loaded on first use: they
# import this module, so it cannot import them at load
__getattr__, __dir__ = lazy_names(__name__, globals(), {
    **{name: ("jxkernel.xla.transfers", name) for name in ("device_get",)},
    **{name: ("jxkernel.xla.put", name) for name in ("device_put",)},
    **{name: ("jxkernel.xla.host_values", name) for name in ("to_numpy",)},
    **{name: ("jxkernel.xla.scalars", name) for name in (
        "_scalar_buffers", "scalar_buffer", "scalar_kinds", "scalar_signature")},
})
