"""Arrays split over a mesh of devices, and programs XLA partitions over that mesh.

    >>> mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))     # 8 devices
    >>> x = device_put(np.arange(8.0), NamedSharding(mesh, P('x')))
    >>> x.addressable_shards[2].index, x.addressable_shards[2].data
    ((slice(2, 4, None),), Array([2., 3.], dtype=float32))

An Array over a mesh is one jaxlib buffer whose aval is the *global* type and whose sharding
is `GSPMDSharding(mesh devices, HloSharding)`; jaxlib keeps one shard buffer per device (in mesh
order). A jit with shardings (given, or carried by its arguments) is lowered with Shardy's
`sdy.sharding` attributes and compiled with one partition per mesh device; XLA's partitioner
chooses what it was not told, and the results come back as Arrays over the mesh whose shardings are
read from the executable (`get_output_shardings`). An eager operation on such an Array is
such a program of one equation, so it runs sharded too.
"""
from __future__ import annotations

import functools
import re
import sys

import numpy as np

from ..core.config import config
from ..core.dtypes import float0
from ..core.physical import is_extended, physical_aval, wrap_physical
from ..core.avals import ShapedArray, ShapeDtypeStruct, Token, abstract_token
from .memory_kinds import results_in_memory, typed_in
from ..core.device_assignment import check_device_assignment
from ..core.ir import ClosedJaxpr, Jaxpr, Var
from ..core.lru import LRU, PROGRAMS
from ..core.avals import explicit_axes, replicated_on
from ..core.mesh import (UNCONSTRAINED, Mesh, NamedSharding, PartitionSpec, asked_on,
                         bare_spec_error, check_type_divides, eager_mesh, get_mesh,
                         local_devices, named_as_asked, resolve)
from ..core.sharding_types import check_context_mesh, current_override
from ..core.errors import UnexpectedTracerError
from ..core.trace import Tracer
from ..core.watches import NEVER
from . import array
from . import client as _client
from . import dispatch as _dispatch
from . import pipeline
# (this module loads with the first mesh, so the guards' small module loads with it)
from . import transfer_guard
from .array import Array, Shard, is_sharded, sharded_array
from .buffer import _COPY, _copy_buffer, _frozen, _rewrap_buffer, _to_host, sharding_for
from .host_values import _host_value
from .layout import AutoLayout, sharding_of_format
from .transfers import float0_as_bools, put_on_device  # (its device_put is the mesh's)
from .client import xc
from .executable import Executable, _result_handler, float0_result, result_aval
from . import numpy_sharded
from .numpy_device import NumpyBuffer, NumpyDevice, NumpyShardedBuffer
from .result_shardings import carried_meshes, output_shardings
from .sharding import SingleDeviceSharding, hlo_sharding, spec_from_hlo


@functools.lru_cache(maxsize=1024)
def gspmd_sharding(sharding: NamedSharding, ndim: int):
    """jaxlib's sharding object for an `ndim`-d array laid out as `sharding` says."""
    return xc.GSPMDSharding(xc.DeviceList(sharding.mesh._flat_devices),
                            hlo_sharding(sharding, ndim), memory_kind=sharding.memory_kind)


def addressable_shards(x: Array) -> list:
    """Per device of this process (mesh order): its index into `x`, replica id and data
    (`Array.addressable_shards` over a mesh)."""
    x._check_alive()
    sharding, shape = x._sharding, x.shape
    aval = ShapedArray(sharding.shard_shape(shape), x.dtype, x.weak_type)
    return [Shard(d, index, r, Array(b if type(b) is NumpyBuffer else _rewrap_buffer(b, aval, d),
                                     aval))
            for (d, index, r), b in zip(_local_blocks(sharding, shape),
                                        _client.shard_buffers(x._buf))]


def assembled_value(x: Array) -> np.ndarray:
    """The global value of `x`, read-only, assembled on the host from one copy of each block
    (this process must hold every block, as in JAX)."""
    sharding, shape = x._sharding, x.shape
    if sharding.spec.unreduced:
        # (JAX's class and first words; each device holds a summand, not a block)
        raise NotImplementedError(
            f"device_indices_map doesn't work with unreduced: an Array typed unreduced over "
            f"{sorted(sharding.spec.unreduced)} ({sharding!r}) is a sum of per-device "
            f"summands, with no one value to fetch. Reshard it first "
            f"(jax.sharding.reshard(x, P(...)) without unreduced) to read its value, or read "
            f"the summands in x.addressable_shards")
    if type(x._buf) is NumpyShardedBuffer:      # the NumPy backend keeps the global value
        return _frozen(x._buf.value, shape)
    blocks = {}
    for (_, index, _), b in zip(_local_blocks(sharding, shape), _client.shard_buffers(x._buf)):
        blocks.setdefault(_index_key(index), (index, b))
    if len(blocks) < len({_index_key(i) for i in sharding.devices_indices_map(shape).values()}):
        raise RuntimeError(
            "Fetching value for `jax.Array` that spans non-addressable (non process "
            "local) devices is not possible. You can use `jax.experimental."
            "multihost_utils.process_allgather` to print the global array or use "
            "`.addressable_shards` method of jax.Array to inspect the addressable "
            "(process local) shards.")
    value = np.empty(shape, x.dtype)
    for index, b in blocks.values():
        value[index] = _to_host(b).reshape(sharding.shard_shape(shape))
    return _frozen(value, shape)


def _local_blocks(sharding: NamedSharding, shape) -> list:
    """(device, index, replica id) for this process's devices in mesh order: the order of the
    per-device buffers jaxlib keeps for a buffer over the whole mesh."""
    indices = sharding.devices_indices_map(shape)
    mine = set(local_devices(sharding.mesh._flat_devices))
    return [(d, indices[d], r) for d, r in zip(sharding.mesh._flat_devices,
                                                sharding.replica_ids(len(shape))) if d in mine]


def _index_key(index) -> tuple:
    return tuple((s.start, s.stop) for s in index)


def _data(x):
    """Typed keys' data (split as the keys are), any other value as it is."""
    return x._base if hasattr(x, "_base") and is_extended(getattr(x, "aval", None)) else x


def _held(x):
    """A Ref's value (api/state.py: a jit's Ref argument runs where its Array lives), any
    other leaf as it is."""
    return x._value if type(x).__name__ == "Ref" and getattr(type(x), "is_array_ref", False) \
        else x


def any_sharded(leaves) -> bool:
    """Whether a leaf is split over a mesh: an Array over one (typed keys: their data; a Ref:
    its value's), or (for `.lower`) a ShapeDtypeStruct given a NamedSharding."""
    for leaf in leaves:
        leaf = _data(_held(leaf))
        if is_sharded(leaf) or type(leaf) is ShapeDtypeStruct and \
                isinstance(leaf.sharding, NamedSharding):
            return True
    return False


def _own_sharding(leaf):
    """The NamedSharding a leaf carries (an Array's over a mesh, a ShapeDtypeStruct's), or
    None."""
    leaf = _held(leaf)
    if is_sharded(leaf):
        return leaf._sharding
    if _data(leaf) is not leaf:       # typed keys: their data's, on the keys' axes
        return _key_sharding(leaf)
    found = getattr(leaf, "sharding", None) if type(leaf) is ShapeDtypeStruct else None
    return found if isinstance(found, NamedSharding) else None


# ------------------------------------------------------------------ putting data on a mesh
def put(value: np.ndarray, aval: ShapedArray, sharding: NamedSharding) -> Array:
    """Host data of `aval`'s dtype as an Array over the mesh: each device gets its block (a
    copy)."""
    if config._transfer_guarded:                      # implicit (jit's NumPy arguments) or not
        transfer_guard.check("host_to_device", aval, None, sharding)
    if type(sharding.mesh._flat_devices[0]) is NumpyDevice:    # the NumPy backend's devices
        return sharded_array(numpy_sharded.put(value, aval, sharding), aval, sharding)
    indices = sharding.addressable_devices_indices_map(aval.shape)
    block = ShapedArray(sharding.shard_shape(aval.shape), aval.dtype, aval.weak_type)
    bufs = [_put_block(block, np.ascontiguousarray(value[i]), d) for d, i in indices.items()]
    return _assemble(bufs, aval, sharding)


def _put_block(block: ShapedArray, value: np.ndarray, device):
    """A copy of one device's block of host data on `device`."""
    if type(device) is NumpyDevice:
        return NumpyBuffer(np.array(value, block.dtype), block, device.placement)
    return xc.batched_device_put(block, sharding_for((device,)), [value], [device], True, False,
                                 _COPY, True)


def _assemble(bufs, aval, sharding) -> Array:
    """One Array over the mesh of per-device buffers given in mesh order (no copy; on the
    NumPy backend the global value is assembled from them)."""
    if type(bufs[0]) is NumpyBuffer:
        return sharded_array(numpy_sharded.assemble(bufs, aval, sharding), aval, sharding)
    buf = xc.ArrayImpl(aval, gspmd_sharding(sharding, len(aval.shape)), bufs, committed=True,
                       _skip_checks=True)
    return sharded_array(buf, aval, sharding)


def device_put(x, sharding, asked=None) -> Array:
    """`x` (host data or an Array) laid out as `sharding` (a NamedSharding or a P under a mesh).
    `asked`: the sharding the user gave, which errors name (xla/put.py places a value with
    its device-memory twin, then moves it into the memory kind asked), else `sharding`.

    >>> device_put(np.zeros((8, 2)), NamedSharding(mesh, P('x'))).sharding.spec
    P('x',)
    """
    sharding = resolve(sharding)
    devices = sharding._devices("is_fully_addressable")      # an AbstractMesh has none
    if sharding.memory_kind != devices[0].default_memory().kind:
        # (xla/put.py, the one door, moves a value into another memory after placing it
        # with the default memory's sharding: a caller here names a device's memory only)
        raise ValueError(f"placing a value in memory kind {sharding.memory_kind!r} here: "
                         f"this path places in device memory only; use "
                         f"jax.device_put(x, {sharding!r})")
    if is_extended(getattr(x, "aval", None)) and hasattr(x, "_base"):
        # typed keys (any extended dtype's values): their data laid out so (the element axes
        # unsplit), and of their type still
        return wrap_physical(x.aval, device_put(x._base, sharding))
    if is_token_buffer(x) and not (is_sharded(x) and x._sharding == sharding):
        return token_over(x, sharding)
    if is_sharded(x):
        x._check_alive()
        if x._sharding == sharding:
            return x
        value, aval = None, x.aval                # moved on the devices (_relayout)
    elif isinstance(x, Array):
        x._check_alive()
        value, aval = x._value, x.aval
    else:
        value, aval = _host_value(x)
    if len(sharding.spec) <= len(aval.shape):      # (a rank error: check_shape's words)
        check_type_divides(aval.shape, sharding)    # the type's check first, as JAX's
    shown = sharding if asked is None else resolve(asked)
    try:
        shown.check_shape(aval.shape)
    except ValueError as e:
        if type(e) is not ValueError:        # IndivisibleError stays as it is, as in JAX
            raise
        raise ValueError(f"One of device_put args is incompatible with its sharding annotation "
                         f"{shown!r}: {e}") from None
    if is_sharded(x):
        if x._sharding.mesh == sharding.mesh or _same_devices(x._sharding.mesh, sharding.mesh):
            return _relayout(x, sharding)
        value = x._value
        if _same_numpy_devices(x._sharding.mesh, sharding.mesh) and not sharding.spec.unreduced:
            # blocks moved between the NumPy backend's devices, no host transfer: JAX's
            # device_put between meshes of the same devices passes the host_to_device guard
            return sharded_array(numpy_sharded.put(value, aval, sharding), aval, sharding)
    if sharding.spec.unreduced:
        # XLA splits a value into unreduced summands (as JAX, an identity program whose
        # result has that sharding): placed replicated first
        whole = NamedSharding(sharding.mesh, PartitionSpec(), memory_kind=sharding.memory_kind)
        return _relayout(put(value, aval, whole), sharding)
    return put(value, aval, sharding)


def is_token_buffer(x) -> bool:
    """Whether `x` is a token's carrier on XLA's devices (a token-shaped buffer, which has no
    host value; the NumPy backend's is an empty bool array, placed as any other)."""
    return getattr(x, "aval", None) is abstract_token and type(x._buf) is xc.ArrayImpl


def token_over(x: Array, sharding: NamedSharding) -> Array:
    """A token's carrier on every device of `sharding`'s mesh: copies of one device's (a
    token has no data to lay out, and XLA moves a token buffer between devices only, never
    to the host), as JAX's device_put of a Token made before set_mesh gives."""
    x._check_alive()
    one = x._buf._arrays[0] if is_sharded(x) else x._buf
    return _assemble([_copy_buffer(one, sharding_for((d,))) for d in sharding.mesh._flat_devices],
                     x.aval, sharding)


def _same_devices(a: Mesh, b: Mesh) -> bool:
    """Whether two meshes hold the same XLA devices (in any order; the NumPy backend's
    blocks move through the host)."""
    return a._platform == b._platform != "numpy" and a.size == b.size and \
        sorted(a._ids) == sorted(b._ids)


def _same_numpy_devices(a: Mesh, b: Mesh) -> bool:
    """Whether two meshes hold the same NumPy-backend devices (in any order)."""
    return a._platform == b._platform == "numpy" and sorted(a._ids) == sorted(b._ids)


def _relayout(x: Array, sharding: NamedSharding) -> Array:
    """`x` laid out as `sharding` over the same mesh (or a mesh of the same devices in
    another order), moved between devices by XLA (an identity program whose result is given
    that sharding), without a trip to the host, as JAX's device_put between them."""
    key = ("relayout", x.aval, x._sharding, sharding)
    exe = _eager.get(key)
    if exe is None:
        v = Var(x.aval)
        exe = _eager[key] = compile_partitioned(ClosedJaxpr(Jaxpr([], [v], [v], []), []),
                                                "device_put", sharding.mesh, [x._sharding],
                                                [sharding])
    x._check_alive()
    buf = x._buf if x._sharding.mesh._ids == sharding.mesh._ids else \
        _in_order_of(x, sharding.mesh)
    return exe.call_buffers([buf])[0]


def _in_order_of(x: Array, mesh: Mesh):
    """`x`'s jaxlib array with its blocks listed in the order of `mesh`'s devices (the same
    devices as its own mesh's, in another order), its layout said over them: what a program
    partitioned over `mesh` takes (it is handed one block per device, in its order)."""
    own = x._sharding.mesh
    by_id = dict(zip(own._ids, _client.shard_buffers(x._buf)))
    proto = hlo_sharding(x._sharding, len(x.shape)).to_proto()
    places = list(proto.tile_assignment_devices)
    if places:          # (positions in `own`'s order, as positions in `mesh`'s)
        del proto.tile_assignment_devices[:]
        proto.tile_assignment_devices.extend(mesh._ids.index(own._ids[i]) for i in places)
    layout = xc.GSPMDSharding(xc.DeviceList(mesh._flat_devices), xc.HloSharding.from_proto(proto))
    return xc.ArrayImpl(x.aval, layout, [by_id[i] for i in mesh._ids], committed=True,
                        _skip_checks=True)


def _format_sharding(fmt, ndim: int):
    """make_array_from_callback's sharding of a Format (a compiled program's output_formats
    give one): its layout is jxkernel's row-major one (xla/put.py), never Layout.AUTO."""
    if fmt.layout is AutoLayout:
        raise TypeError("`Layout.AUTO` cannot be used in place of a device-local layout when "
                        f"calling `jax.make_array_from_callback`. Got {fmt}")
    if fmt.sharding is None:
        raise TypeError("sharding should be an instance of `jax.sharding`. Got None of type "
                        "<class 'NoneType'>")
    return sharding_of_format(fmt, ndim)


def make_array_from_callback(shape, sharding, data_callback, dtype=None) -> Array:
    """An array of `shape` laid out as `sharding`, each device's block `data_callback(index)`.

    >>> make_array_from_callback((8,), NamedSharding(mesh, P('x')), lambda i: np.arange(8.)[i])
    Array([0., 1., 2., 3., 4., 5., 6., 7.], dtype=float32)
    """
    shape = tuple(shape)
    data_callback = _untraced(data_callback)
    if type(sharding).__name__ == "Format":     # a Format: its sharding, with JAX's errors
        sharding = _format_sharding(sharding, len(shape))
    if isinstance(sharding, PartitionSpec):     # (JAX's takes none, under set_mesh too)
        raise bare_spec_error(sharding, "make_array_from_callback")
    if is_extended(ShapedArray((), dtype)) if dtype is not None else False:
        return _over_data(shape, sharding, dtype, lambda data_sharding: make_array_from_callback(
            shape + _element_shape(dtype), data_sharding,
            lambda i: data_callback(i[:len(shape)])._base))
    if isinstance(sharding, SingleDeviceSharding):
        value = np.asarray(data_callback((slice(None),) * len(shape)), dtype=dtype)
        return put_on_device(value, sharding._device)
    indices = sharding.addressable_devices_indices_map(shape)     # this process's blocks
    made = {d: data_callback(i) for d, i in indices.items()}
    first = next(iter(made.values()))
    if is_extended(getattr(first, "aval", None)):     # typed keys: of their dtype, as above
        return make_array_from_callback(shape, sharding, lambda i: made[
            next(d for d, j in indices.items() if j == i)], dtype=first.dtype)
    blocks = {d: _host_value(np.asarray(x, dtype=dtype)) for d, x in made.items()}
    aval = ShapedArray(shape, next(iter(blocks.values()))[1].dtype)
    expected = sharding.shard_shape(shape)
    bufs = []
    for d, (value, block) in blocks.items():
        if value.shape != expected:
            raise _shard_shape_error(expected, value.shape, aval, sharding,
                                     f" (data_callback({indices[d]}) for device {d})")
        bufs.append(_put_block(block, value, d))
    return _assemble(bufs, aval, sharding)


def _untraced(data_callback):
    """`data_callback`, raising JAX's UnexpectedTracerError where it gives a traced value
    (make_array_from_callback called inside jit or another trace)."""
    def checked(index):
        value = data_callback(index)
        if isinstance(value, Tracer):
            raise UnexpectedTracerError(
                "jax.make_array_from_callback cannot be called within a traced context.")
        return value
    return checked


def _shard_shape_error(expected, got, aval, sharding, where="") -> ValueError:
    """JAX's error for a block whose shape is not the sharding's shard shape."""
    return ValueError(f"Expected shard shape {expected} doesn't match the single device array "
                      f"shape {got}. Shape of Array is {aval.dtype.name}"
                      f"[{','.join(map(str, aval.shape))}] with sharding {sharding!r}{where}")


def _check_single_device_arrays(arrays, dtype) -> None:
    """JAX's checks of make_array_from_single_device_arrays' `arrays` and `dtype`."""
    if not isinstance(arrays, (list, tuple)):
        raise TypeError(f"jax.make_array_from_single_device_arrays `arrays` argument must be a "
                        f"list or tuple, but got {type(arrays)}.")
    traced = {type(a) for a in arrays if isinstance(a, Tracer)}
    if traced:
        raise ValueError(f"jax.make_array_from_single_device_arrays requires a list of "
                         f"concrete arrays as input, but got types {traced}")
    for a in arrays:
        if is_extended(getattr(a, "aval", None)):      # typed keys: their data is checked
            continue
        if type(a) is not Array:
            raise TypeError(f"Unsupported type for elements in `arrays`: {type(a)}")
        if len(a._buf._sharding._devices) != 1:
            raise ValueError(f"When making an array from single-device arrays the input arrays "
                             f"must have one shard each. An argument array had "
                             f"{len(a._buf._sharding._devices)} shard(s).")
    if not arrays and dtype is None:
        raise ValueError("If the Array has no addressable shards, `dtype` must be provided via "
                         "the `dtype` argument to `jax.make_array_from_single_device_arrays`.")
    if dtype is not None and arrays and np.dtype(dtype) != arrays[0].dtype:
        raise ValueError(f"If `dtype` is provided to `jax.make_array_from_single_device_arrays`, "
                         f"it must match the dtype of the addressable shards. Got "
                         f"dtype={np.dtype(dtype)} and shard dtype={arrays[0].dtype}`.")


def make_array_from_single_device_arrays(shape, sharding, arrays, *, dtype=None) -> Array:
    """A global array of `shape` from one single-device Array per device of `sharding` (any
    order: each is matched by its device); no data is copied. `dtype`, where given, must be
    the arrays' (it names the dtype where this process holds none of them).

    >>> y = device_put(np.arange(8.0), NamedSharding(mesh, P('x')))
    >>> shards = [s.data for s in y.addressable_shards]
    >>> make_array_from_single_device_arrays((8,), y.sharding, shards)
    Array([0., 1., 2., 3., 4., 5., 6., 7.], dtype=float32)
    """
    shape = tuple(shape)
    if isinstance(sharding, PartitionSpec):     # (JAX's takes none, under set_mesh too)
        raise bare_spec_error(sharding, "make_array_from_single_device_arrays")
    _check_single_device_arrays(arrays, dtype)
    if arrays and is_extended(getattr(arrays[0], "aval", None)):   # typed keys: their data's
        dtype = arrays[0].dtype
        return _over_data(shape, sharding, dtype, lambda data_sharding:
                          make_array_from_single_device_arrays(
                              shape + _element_shape(dtype), data_sharding,
                              [a._base for a in arrays]))
    by_device = {a.device: a for a in arrays}
    if isinstance(sharding, SingleDeviceSharding):
        # all of it on one device: that device's array is the global one (Orbax and the
        # tensorstore restore build one-device arrays this way)
        if len(arrays) != 1 or sharding._device not in by_device or arrays[0].shape != shape:
            raise ValueError(f"make_array_from_single_device_arrays needs one array of shape "
                             f"{shape} on {sharding._device} for {sharding!r}; got "
                             f"{[(a.shape, a.device) for a in arrays]}")
        return arrays[0]
    devices = local_devices(sharding.mesh._flat_devices)      # this process's, in mesh order
    if len(arrays) != len(devices):
        raise ValueError(f"Expected {len(devices)} per-device arrays (this is how many devices "
                         f"are addressable by the sharding), but got {len(arrays)}")
    missing = [d for d in devices if d not in by_device]
    if missing:
        raise ValueError(f"make_array_from_single_device_arrays needs one array per device of "
                         f"the sharding ({len(devices)}); got {len(arrays)}, missing "
                         f"{missing}")
    expected = sharding.shard_shape(shape)
    first = by_device[devices[0]]
    for d in devices:
        a = by_device[d]
        if a.shape != expected:
            raise _shard_shape_error(expected, a.shape, ShapedArray(shape, first.dtype),
                                     sharding)
        if a.dtype != first.dtype:
            raise ValueError(f"make_array_from_single_device_arrays: the array on {d} is "
                             f"{a.aval.str_short(True)}, but the sharding's shard is "
                             f"{first.aval.update(shape=expected).str_short(True)}")
    aval = ShapedArray(shape, first.dtype)
    return _assemble([by_device[d]._buf for d in devices], aval, sharding)


def _element_shape(dtype) -> tuple:
    """The trailing axes of one element's data of extended dtype `dtype` ((2,): a key)."""
    return tuple(physical_aval(ShapedArray((), dtype)).shape)


def _over_data(shape, sharding, dtype, make_data):
    """An array of extended `dtype` (typed keys) whose data `make_data(data_sharding)` makes:
    the data laid out as the array is, its element axes whole (as JAX's rules for keys)."""
    aval = ShapedArray(shape, dtype, sharding=sharding if isinstance(sharding, NamedSharding)
                       else None)
    data_sharding = physical_aval(aval).split or sharding
    return wrap_physical(ShapedArray(shape, dtype), make_data(data_sharding))


# ------------------------------------------------------------------ partitioned programs
class ShardedExecutable(Executable):
    """A program XLA partitioned over a mesh: one partition per device, results sharded.
    `out_shardings`: per result the one asked for, or None (read from the executable: the
    one XLA chose, named as in `user_shardings` where they agree, see output_shardings)."""

    def __init__(self, loaded, out_avals, devices, name, donated, *, mesh: Mesh, out_shardings,
                 user_shardings, arg_avals, out_meshes=None, kept=None):
        super().__init__(loaded, out_avals, devices, name, donated, kept=kept)
        if self.donated:    # those XLA reuses alone: it may decline a donor (JAX deletes those)
            self.donated = reused_arguments(loaded, self.donated)
        # results are Arrays over the mesh even on one device (JAX's NamedSharding): through
        # _finish, never the one-device shortcut of Executable.call_buffers
        self._simple = False
        # typed keys' results are their uint32 data here (core/physical.py), keys again after
        self._physical = [result_aval(a) for a in self.out_avals]
        asked = [asked_on(mesh, s) for s in out_shardings]
        chosen = output_shardings(loaded, mesh, self._physical, user_shardings, arg_avals,
                                  asked, out_meshes)
        self.mesh = mesh
        self.out_shardings = [given or named_as_asked(s, c, len(a.shape), a.split)
                              for given, s, c, a
                              in zip(asked, out_shardings, chosen, self._physical)]
        self.out_shardings = results_in_memory(asked, self.out_shardings, self.out_avals)
        # (and typed as where it is: an out_sharding's memory kind sets its memory space)
        # (a logical result typed as its physical one stays that object: _finish tests it)
        self.out_avals, self._physical = map(list, zip(*[
            (t, t) if a is p else (a, typed_in(p, s.memory_kind))
            for a, p, s in zip(self.out_avals, self._physical, self.out_shardings)
            for t in (typed_in(p, s.memory_kind),)])) if self.out_avals else ([], [])
        self.handlers = [_result_handler(a, gspmd_sharding(s, len(a.shape)))
                         for a, s in zip(self._physical, self.out_shardings)]
        self._wrap = _keep

    _ran = False        # (once run: key results' data as JAX's C++ path hands it, below)

    def _finish(self, bufs, outs) -> list:
        outs = super()._finish(bufs, outs)          # donation and the in-flight throttle
        first, self._ran = not self._ran, True
        return [sharded_array(o, p, s) if a is p else float0_result(a) if a.dtype == float0
                else wrap_physical(a, sharded_array(o, p, numpy_sharded.key_data_sharding(s, p, first)))
                for o, a, p, s in zip(outs, self.out_avals, self._physical, self.out_shardings)]


# an entry of a compiled module's input_output_alias: "{0}: (2, {}, may-alias)" (parameter 2)
_ALIAS = re.compile(r"\{[\d, ]*\}: \((\d+), \{[\d, ]*\}, (?:may|must)-alias\)")


def reused_arguments(loaded, donated) -> tuple:
    """The `donated` arguments whose buffers XLA's compiled program reuses for results (its
    module's input_output_alias): a donor it found no use for stays alive, as JAX's runtime
    leaves it (a partitioned program's donors are XLA's to take or not: lowering.set_up_donors)."""
    header = loaded.get_hlo_text().split("\n", 1)[0]
    reused = {int(p) for p in _ALIAS.findall(header)}
    return tuple(i for i in donated if i in reused)


def _keep(buf, aval):
    return buf


class _SpmdEntry:
    """A compiled sharded signature: executable, input shardings, constants placed once."""
    __slots__ = ("exe", "in_shardings", "const_bufs", "out_tree", "jaxpr", "text", "hits",
                 "lowered")
    twin = None                       # (jit.cache.Entry's: one program serves every call)
    look_at = NEVER                   # (as jit.cache.Entry's: no watch looks at its calls)

    def __init__(self, exe, in_shardings, const_bufs, out_tree, jaxpr, text, lowered=None):
        self.exe, self.in_shardings, self.const_bufs = exe, in_shardings, const_bufs
        self.out_tree, self.jaxpr, self.text, self.hits = out_tree, jaxpr, text, 0
        self.lowered = lowered        # what it was compiled from (a jit's Partitioning)

    def arguments(self, leaves) -> list:
        """The buffers to run on: constants, then each argument laid out as compiled for (one
        the program does not take left as it is: its executable drops it)."""
        kept, c = self.exe.kept, len(self.const_bufs)
        return list(self.const_bufs) + [
            x if kept is not None and c + i not in kept else to_argument(x, s)
            for i, (x, s) in enumerate(zip(leaves, self.in_shardings))]


def chosen_inputs(exe, mesh, in_shardings, open_in, in_avals, n_consts) -> list:
    """`in_shardings` with each open argument's (`open_in`) the layout XLA chose for its
    parameter (read from the executable, as NamedShardings over `mesh`; replicated where the
    program does not take it). A layout no PartitionSpec over `mesh` says raises
    NotImplementedError, as an output's does."""
    protos = exe.loaded.get_parameter_shardings()
    if protos is None:                     # one partition: every layout is alike
        return list(in_shardings)
    kept = list(exe.kept) if exe.kept is not None else list(range(n_consts + len(in_shardings)))
    by_param = dict(zip(kept, protos))
    out = []
    for i, (s, free, aval) in enumerate(zip(in_shardings, open_in, in_avals)):
        op = by_param.get(n_consts + i) if free else None
        if op is None:
            out.append(s)
            continue
        out.append(NamedSharding(mesh, spec_from_hlo(xc.HloSharding.from_proto(op), mesh,
                                                     len(aval.shape))))
    return out


def lower_partitioned(closed, name, mesh, arg_shardings, out_shardings, donated=(),
                      locations=False, result_names=None, arg_names=None,
                      keep_unused=True, platforms=None, layouts=None) -> pipeline.Module:
    """`closed` lowered for partitioning over `mesh`. `arg_shardings` covers the constants
    then the arguments; a None output is XLA's choice. `locations`: each op's source line
    too (explain reads it back from the compiled HLO); the names and `platforms` as
    `pipeline.lower`'s, as is `layouts` (jit's, per argument and result)."""
    return pipeline.lower(closed.jaxpr, mesh._flat_devices, name=name, donated=donated or None,
                          layouts=layouts,
                          mesh=mesh, arg_shardings=arg_shardings,
                          result_shardings=out_shardings, locations=locations,
                          result_names=result_names, arg_names=arg_names,
                          keep_unused=keep_unused, platforms=platforms)


def compile_lowered(module, closed, name, mesh, out_shardings, user_shardings,
                    trace_s=0.0, carrying=None, compiler_options=None) -> tuple:
    """(ShardedExecutable, Phases) of a module from lower_partitioned. `user_shardings`:
    the arguments' own or given shardings (None where neither), which name the results'
    shardings where they agree (see output_shardings); `carrying`: per argument the mesh of
    its own sharding (an Array sharded over it) or None (default: the user shardings')."""
    if carrying is None:
        carrying = [getattr(s, "mesh", None) for s in user_shardings]
    return pipeline.compile(module, f"jit({name})", trace_s=trace_s,
                            compiler_options=compiler_options,
                            executable=ShardedExecutable, mesh=mesh, out_shardings=out_shardings,
                            user_shardings=user_shardings,
                            arg_avals=[v.aval for v in closed.jaxpr.invars],
                            out_meshes=carried_meshes(closed.jaxpr, carrying))


def typed_outputs(out_avals, out_shardings, mesh=None) -> list:
    """Each output's given sharding, else the one its type says (Explicit axes; its unsplit
    dimensions open to a mesh's Auto axes, _open_to_auto), else None (XLA's choice); over a
    `mesh` with Explicit axes (an eager operation under set_mesh), else replicated, P(): JAX
    types such a result (`jnp.sin` of a NumPy array) over the empty mesh, laid out so."""
    outs = [s if s is not None or a.split is None else _open_to_auto(a.split, len(a.shape))
            for a, s in zip(out_avals, out_shardings)]
    if mesh is None or not explicit_axes(mesh):
        return outs
    whole = NamedSharding(mesh, PartitionSpec())
    return [s if s is not None else _open_to_auto(whole, len(a.shape))
            for a, s in zip(out_avals, outs)]


def _open_to_auto(typed: NamedSharding, ndim: int) -> NamedSharding:
    """A result's type as its sharding: over a mesh with Auto axes its unsplit dimensions
    are left to XLA (P.UNCONSTRAINED), which may split them over those axes (JAX's
    _concretize_abstract_out_shardings): f32[8@x,2] of x split over (x, y) stays P('x', 'y')."""
    if not typed.mesh.auto_axes:
        return typed
    parts = typed.spec.partitions + (None,) * (ndim - len(typed.spec))
    return NamedSharding(typed.mesh, PartitionSpec(*[UNCONSTRAINED if p is None else p
                                                     for p in parts]))


def compile_partitioned(closed, name, mesh, arg_shardings, out_shardings, carrying=None,
                        context=False):
    """The ShardedExecutable of `closed` over `mesh` (no constants, nothing donated);
    `context`: run there for set_mesh (its untyped results typed as JAX's over that mesh)."""
    out_shardings = typed_outputs(closed.jaxpr.out_avals, out_shardings,
                                  mesh if context else None)
    module = lower_partitioned(closed, name, mesh, arg_shardings, out_shardings)
    return compile_lowered(module, closed, name, mesh, out_shardings, arg_shardings,
                           carrying=carrying)[0]


def _key_sharding(keys):
    found = _own_sharding(keys._base)
    return found if found is None else \
        NamedSharding(found.mesh, PartitionSpec(*found.spec.partitions[:len(keys.shape)]))


def to_argument(x, sharding: NamedSharding):
    """The jaxlib buffer of `x` laid out as `sharding` (moved there if it is not)."""
    if _data(x) is not x:
        return to_argument(x._base, sharding)      # (the key-data axes unsplit)
    if is_sharded(x) and (x._sharding is sharding or x._sharding == sharding or
                                    x._sharding.is_equivalent_to(sharding, x.ndim)):
        x._check_alive()
        return x._buf
    return device_put(float0_as_bools(x), sharding)._buf


def _carried(x) -> Mesh | None:
    """The mesh an operand's type carries: an Array's over a mesh, else None."""
    return x._sharding.mesh if is_sharded(x) else None


def _mesh_of(shardings) -> Mesh | None:
    for s in shardings:
        if isinstance(s, NamedSharding):
            return s.mesh
    return None


# ------------------------------------------------------------------ eager operations
_eager = LRU(PROGRAMS)   # (prim or jaxpr, params, avals, shardings) -> ShardedExecutable


def _operand_shardings(args, mesh=None) -> tuple:
    """Each operand's sharding: its own if it is split over a mesh; else that of a split
    operand of its shape (`y + jnp.arange(y.size).reshape(y.shape)`: each device gets its
    block, as XLA's propagation lays out JAX's unspecified argument, not a whole copy per
    device: 8 copies of a 256 MB array on 8 CPU devices); else replicated."""
    shardings = [_own_sharding(a) if not is_sharded(a) else a._sharding
                 for a in args]
    replicated = NamedSharding(_mesh_of(shardings) or mesh, PartitionSpec())
    if None not in shardings:
        return tuple(shardings)
    by_shape = {a.shape: s for a, s in zip(args, shardings)
                if s is not None and is_sharded(a) and _data(a) is a}
    return tuple(s if s is not None else
                 by_shape.get(a.shape, replicated) if isinstance(a, Array) and _data(a) is a
                 and a.shape else replicated for a, s in zip(args, shardings))


def _avals(args) -> tuple:
    return tuple(a.aval if isinstance(a, Array) or _data(a) is not a else _host_value(a)[1]
                 for a in args)


def _carriers(args) -> list:
    """The operands as programs take them: a Token as its carrier (an Array of the token
    type, as dispatch's one-device path and jit pass it)."""
    return [a._buf if type(a) is Token else a for a in args]


def apply_primitive(prim, args, params):
    """Run `prim` on operands of which some are Arrays over a mesh: partitioned over their
    mesh; or, none being so, over the mesh set_mesh set (as JAX runs eager operations)."""
    args = _carriers(args)
    # (no operand over a mesh: set_mesh's, as the abstract mesh in context names it: a
    # backward pass runs auto_axes' equations under their Auto mesh, JAX's eqn.ctx)
    context = None if any(is_sharded(a) for a in args) else eager_mesh()
    shardings, avals = _operand_shardings(args, context), _avals(args)
    key = (prim, tuple(params.items()), avals, shardings, current_override(), context)
    # (before the cache: one program serves operands on a mesh under set_mesh of another)
    check_context_mesh(prim, [(getattr(getattr(a, "sharding", None), "mesh", None), v)
                              for a, v in zip(args, avals)])
    exe = _eager.get(key)
    if exe is None:
        jaxpr = _dispatch.primitive_jaxpr(prim, avals, params)
        mesh = shardings[0].mesh if shardings else context
        check_device_assignment(jaxpr.out_avals, mesh.size)
        exe = _eager[key] = compile_partitioned(ClosedJaxpr(jaxpr, []), prim.name, mesh,
                                                list(shardings), [None] * len(jaxpr.outvars),
                                                [_carried(a) for a in args],
                                                context is not None)
    outs = exe.call_buffers([to_argument(a, s) for a, s in zip(args, shardings)])
    return outs if prim.multiple_results else outs[0]


def run_jaxpr(closed, name, args, mesh=None, on_compile=None) -> list:
    """Run a closed jaxpr (a jit equation a transformation rewrote) partitioned over the mesh
    of its sharded operands, or over `mesh` (that of a sharding constraint inside).
    `on_compile(avals, shardings, phases, platform)` is called when it compiles."""
    args = _carriers(args)
    shardings, avals = _operand_shardings(args, mesh), _avals(args)
    key = (closed, avals, shardings)
    exe = _eager.get(key)
    if exe is None:
        n = len(closed.consts)
        mesh = shardings[0].mesh if shardings else mesh      # (no operands: `mesh` itself)
        replicated = NamedSharding(mesh, PartitionSpec())
        arg_shardings = [replicated] * n + list(shardings)
        out_shardings = typed_outputs(closed.jaxpr.out_avals, [None] * len(closed.jaxpr.outvars),
                                      mesh)
        module = lower_partitioned(closed, name, mesh, arg_shardings, out_shardings)
        exe, phases = compile_lowered(module, closed, name, mesh, out_shardings,
                                      list(shardings),
                                      carrying=[_carried(a) for a in args])
        _eager[key] = exe
        exe.const_bufs = [to_argument(c, replicated) for c in closed.consts]
        if on_compile is not None:      # the caller logs it (compile_log is above xla)
            on_compile(avals, shardings, phases, _client.platform_of(mesh._flat_devices[0]))
    return exe.call_buffers(exe.const_bufs + [to_argument(a, s) for a, s in zip(args, shardings)])


_dispatch.sharded_apply = apply_primitive
_dispatch.sharded_run_jaxpr = run_jaxpr
array.on_mesh = sys.modules[__name__]    # (Array's methods over a mesh: xla/array.py)
