"""Shardings as this client's devices and XLA see them: `SingleDeviceSharding` (all of an
array on one device, what `x.sharding` reports for one), `make_mesh` (a mesh of the client's
devices), and the conversions of a NamedSharding to and from XLA's HloSharding and the Shardy
text of a partitioned module. The mesh and sharding values themselves (`Mesh`, `AxisType`,
`PartitionSpec`, `NamedSharding`) are plain Python, in core/mesh.py; arrays split over a mesh
live in xla/sharded.py.

    >>> s = jax.device_put(np.arange(3)).sharding
    >>> s
    SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)
    >>> s.is_fully_replicated, s.num_devices, s.shard_shape((3,))
    (True, 1, (3,))
    >>> NamedSharding(Mesh(np.array(jax.devices()[:1]), ('x',)), P('x')).shard_shape((4,))
    (4,)
"""
from __future__ import annotations

import functools
import importlib
import math

import numpy as np

from ..core.avals import abstract_token
from ..core.mesh import (
    AbstractMesh,
    IndivisibleError,
    check_tiles_divide,
    common_devices_indices_map,
    AxisType,
    Mesh,
    NamedSharding,
    UNCONSTRAINED,
    PartitionSpec,
    checked_axis_types,
    checked_memory_kind,
    concrete_mesh,
    jaxlib_forms,
    tiling,
)
from . import client
from .numpy_device import NumpyDevice
from .client import xc
from .op_shardings import (are_hlo_shardings_equal, get_num_ways_dim_sharded,
                           is_hlo_sharding_replicated, op_sharding_to_indices)
from .sdy_array import SdyArray, SdyDim, named_sharding_to_sdy_sharding
from .stablehlo import sdy_mesh_attr


class SingleDeviceSharding:
    """All of an array on one device, in one of its memories (default: its default one)."""
    __slots__ = ("_device", "_memory_kind")

    def __init__(self, device, *, memory_kind: str | None = None):
        if not isinstance(device, NumpyDevice) and not isinstance(device, xc.Device):
            raise TypeError(f"SingleDeviceSharding's device must be a Device (one of "
                            f"jxkernel.devices()); got {device!r} of type {type(device).__name__}")
        self._device = device
        self._memory_kind = checked_memory_kind(device, memory_kind)

    memory_kind = property(lambda self: self._memory_kind)
    device_set = property(lambda self: {self._device})
    addressable_devices = device_set
    _device_assignment = property(lambda self: (self._device,))
    # the one device is always this process's (a SingleDeviceSharding is made of a local one);
    # Orbax's reads walk it to know which shards to load here
    _addressable_device_assignment = _device_assignment
    num_devices = property(lambda self: 1)
    is_fully_replicated = property(lambda self: True)
    is_fully_addressable = property(lambda self: True)
    has_addressable_devices = property(lambda self: True)

    def devices_indices_map(self, global_shape: tuple) -> dict:
        """Each device's index into an array of `global_shape`: here all of it."""
        return {self._device: (slice(None),) * len(global_shape)}

    addressable_devices_indices_map = devices_indices_map

    def shard_shape(self, global_shape: tuple) -> tuple:
        return tuple(global_shape)

    def is_equivalent_to(self, other, ndim: int) -> bool:
        return (isinstance(other, SingleDeviceSharding) and other._device == self._device
                and other._memory_kind == self._memory_kind)

    def with_memory_kind(self, kind: str) -> SingleDeviceSharding:
        return SingleDeviceSharding(self._device, memory_kind=kind)

    def __eq__(self, other):
        return self.is_equivalent_to(other, 0)

    def __hash__(self):
        return hash((self._device, self._memory_kind))

    def __repr__(self):
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self._memory_kind})"

    def _to_sdy_sharding(self, num_dimensions: int, modify_wrt_axis_types: bool = False):
        """Shardy's view (sdy_array.py), as JAX's: no mesh, every dimension closed.

            >>> jax.device_put(1.0).sharding._to_sdy_sharding(2)
            SdyArray([{}, {}])
        """
        return SdyArray(mesh_shape=None,
                        dim_shardings=(SdyDim(axes=(), is_open=False),) * num_dimensions)


class GSPMDSharding:
    """An array laid out over `devices` as XLA's HloSharding says, as JAX's GSPMDSharding
    (what jax.debug.inspect_array_sharding reports inside a jit on one device: replicated).

        >>> GSPMDSharding(jax.devices(), xc.HloSharding.replicate())
        GSPMDSharding({replicated}, memory_kind=device)
    """
    __slots__ = ("_devices", "_hlo_sharding", "_memory_kind")

    def __init__(self, devices, hlo_sharding, *, memory_kind: str | None = None):
        if isinstance(hlo_sharding, xc.OpSharding):     # (its proto, as JAX takes it)
            hlo_sharding = xc.HloSharding.from_proto(hlo_sharding)
        self._devices, self._hlo_sharding = tuple(devices), hlo_sharding
        self._memory_kind = checked_memory_kind(self._devices[0], memory_kind)

    @classmethod
    def get_replicated(cls, device_assignment, *,
                       memory_kind: str | None = None) -> GSPMDSharding:
        """Every device of `device_assignment` holding the whole array (JAX's)."""
        return cls(tuple(device_assignment), replicated_hlo(), memory_kind=memory_kind)

    memory_kind = property(lambda self: self._memory_kind)
    device_set = property(lambda self: set(self._devices))
    _device_assignment = property(lambda self: self._devices)
    num_devices = property(lambda self: len(self._devices))
    is_fully_replicated = property(lambda self: is_hlo_sharding_replicated(self._hlo_sharding))

    def _to_xla_hlo_sharding(self, num_dimensions: int):
        return self._hlo_sharding

    def _to_sdy_sharding(self, num_dimensions: int,
                         modify_wrt_axis_types: bool = False) -> SdyArray:
        """Shardy's view (sdy_array.py): a replicated HloSharding over the empty mesh; a tiled
        one whose tile assignment is an iota over an AbstractMesh of its axis sizes named
        `_axis_<k>` (JAX's); else JAX's TypeError."""
        hlo = self._hlo_sharding
        if getattr(hlo, "tuple_elements", lambda: ())():
            raise TypeError(f"Cannot convert GSPMDSharding {hlo} into SdyArray.")
        if is_hlo_sharding_replicated(hlo):
            return named_sharding_to_sdy_sharding(
                NamedSharding(AbstractMesh((), ()), PartitionSpec()), num_dimensions)
        if hlo.is_tiled() and hlo.is_tile_assignment_iota():
            sizes = tuple(hlo.get_axis_sizes())
            mesh = AbstractMesh(sizes, tuple(f"_axis_{i}" for i in range(len(sizes))))
            spec = spec_from_hlo(hlo, mesh, num_dimensions)
            return named_sharding_to_sdy_sharding(
                NamedSharding(mesh, spec, memory_kind=self.memory_kind), num_dimensions)
        raise TypeError(f"Cannot convert GSPMDSharding {hlo} into SdyArray.")

    def devices_indices_map(self, global_shape) -> dict:
        """Each device's index (a tuple of slices) into an array of `global_shape` (kept:
        core/mesh.py's common_devices_indices_map)."""
        return common_devices_indices_map(self, tuple(global_shape))

    def _devices_indices_map(self, shape: tuple) -> dict:
        self.shard_shape(shape)
        return dict(zip(self._devices, op_sharding_to_indices(self._hlo_sharding, shape,
                                                              len(self._devices))))

    def shard_shape(self, global_shape) -> tuple:
        """The shape of each device's block of an array of `global_shape`."""
        global_shape = tuple(global_shape)
        if is_hlo_sharding_replicated(self._hlo_sharding):
            return global_shape
        tiles, _ = get_num_ways_dim_sharded(self._hlo_sharding)
        if len(tiles) != len(global_shape):
            raise ValueError(f"Sharding {self!r} is only valid for values of rank "
                             f"{len(tiles)}, but was applied to a value of rank "
                             f"{len(global_shape)}")
        check_tiles_divide(self, global_shape, tiles)
        return tuple(size // n for size, n in zip(global_shape, tiles))

    def is_equivalent_to(self, other, ndim: int) -> bool:
        """Whether `other` lays an `ndim`-d array out alike: the same devices in the same
        order, the same memory and equal HloShardings (any two replicated ones are)."""
        to_hlo = getattr(other, "_to_xla_hlo_sharding", None)
        return to_hlo is not None and tuple(other._device_assignment) == self._devices and \
            other.memory_kind == self._memory_kind and \
            are_hlo_shardings_equal(self._hlo_sharding, to_hlo(ndim))

    def _as_mesh_sharding(self):
        return as_mesh_sharding(self)

    def __eq__(self, other):
        return isinstance(other, GSPMDSharding) and other._devices == self._devices and \
            other._memory_kind == self._memory_kind and \
            _hlo_key(other._hlo_sharding) == _hlo_key(self._hlo_sharding)

    def __hash__(self):
        return hash((self._devices, self._memory_kind, _hlo_key(self._hlo_sharding)))

    def __repr__(self):
        return f"GSPMDSharding({self._hlo_sharding!r}, memory_kind={self._memory_kind})"

    def __reduce__(self):
        # jaxlib's HloSharding pickles as its OpSharding proto, as JAX's GSPMDSharding does
        hlo = self._hlo_sharding
        proto = hlo if isinstance(hlo, _Replicated) else hlo.to_proto()
        return _unpickle_gspmd_sharding, (self._devices, proto, self._memory_kind)


def _unpickle_gspmd_sharding(devices, proto, memory_kind):
    hlo = proto if isinstance(proto, _Replicated) else xc.HloSharding.from_proto(proto)
    return GSPMDSharding(devices, hlo, memory_kind=memory_kind)


def as_mesh_sharding(sharding):
    """A GSPMDSharding as the sharding jxkernel places and partitions by: its HloSharding's
    tiling as a NamedSharding over a mesh of its devices in tile order, an Auto axis per
    dimension split in more than one (`_axis_<k>`, as JAX names them lowering one; the
    replicated last tile dimension's unnamed by the spec); another sharding as it is.

        >>> as_mesh_sharding(GSPMDSharding(jax.devices()[:2],
        ...                                xc.HloSharding.from_string("{devices=[2,1]<=[2]}")))
        NamedSharding(mesh=Mesh('_axis_0': 2, axis_types=(Auto,)), spec=P('_axis_0', None), memory_kind=device)
    """
    if not isinstance(sharding, GSPMDSharding):
        return sharding
    hlo, devices, kind = sharding._hlo_sharding, sharding._devices, sharding.memory_kind
    if hlo.is_replicated():
        mesh = Mesh(np.array(devices, dtype=object), ("_axis_0",), (AxisType.Auto,))
        return NamedSharding(mesh, PartitionSpec(), memory_kind=kind)
    if not hlo.is_tiled() or hlo.subgroup_types():
        raise NotImplementedError(
            f"{sharding!r}: jxkernel lays arrays out by a tiling of their devices, replicated "
            f"over the last tile dimension or not; this HloSharding is not one (maximal, "
            f"manual, unreduced or a tuple): use a NamedSharding over a Mesh")
    dims = list(hlo.tile_assignment_dimensions())
    grid = [devices[i] for i in hlo.tile_assignment_devices()]
    split = [d for d in dims if d > 1]
    names = iter(f"_axis_{k}" for k in range(len(split)))
    parts = [next(names) if d > 1 else None for d in dims]
    if not split:                       # one tile: the whole array on its device
        split, parts = [1], ["_axis_0"]
    mesh = Mesh(np.array(grid, dtype=object).reshape(split),
                tuple(f"_axis_{k}" for k in range(len(split))), (AxisType.Auto,) * len(split))
    tiled = parts[:-1] if hlo.replicate_on_last_tile_dim() else parts
    return NamedSharding(mesh, PartitionSpec(*tiled), memory_kind=kind)


# ------------------------------------------------------------------ meshes of this client's devices
def make_mesh(axis_shapes, axis_names, axis_types=None, *, devices=None) -> Mesh:
    """A mesh of the first prod(axis_shapes) devices; axes are Explicit unless told (as JAX's).

    >>> make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)
    Mesh(axis_sizes=(4, 2), axis_names=('x', 'y'), axis_types=(Auto, Auto))
    """
    # one name may come as a string (`make_mesh((8,), 'model')`, in Flax's key concepts):
    # Mesh reads it as one name, and refuses a length mismatch in JAX's words
    if not all(isinstance(s, (int, np.integer)) for s in axis_shapes):
        raise ValueError(f"`axis_shapes` passed to `make_mesh` should be a sequence of ints. "
                         f"Got {axis_shapes}")
    shape = tuple(int(s) for s in axis_shapes)
    names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
    devices = list(devices) if devices is not None else client.devices()
    if math.prod(shape) > len(devices):
        raise ValueError(f"Number of devices {len(devices)} must be >= the product of mesh_shape "
                         f"{shape}")
    grid = np.array(devices[:math.prod(shape)], dtype=object).reshape(shape)
    return Mesh(grid, names, checked_axis_types(axis_types, names, AxisType.Explicit))


Sharding = (SingleDeviceSharding, NamedSharding, GSPMDSharding)
# their public home, as JAX's messages name them (`<class 'jax.sharding.NamedSharding'>`)
SingleDeviceSharding.__module__ = NamedSharding.__module__ = "jxkernel.sharding"


# ------------------------------------------------------------------ XLA's HloSharding
def inspect_sharding_key(callback) -> bytes:
    """The backend_config naming `callback` (called with an HloSharding) to the custom call
    compiler.INSPECT_SHARDING_TARGET; the caller keeps `callback` alive until the program is
    compiled."""
    return xc.encode_inspect_sharding_callback(callback)


def replicated_hlo():
    """XLA's replicated HloSharding (a stand-in that prints and compares as one where jaxlib
    is not installed: the NumPy backend's programs on one device)."""
    return xc.HloSharding.replicate() if xc is not None else _Replicated()


class _Replicated:
    def is_replicated(self) -> bool:
        return True

    def __repr__(self):
        return "{replicated}"


_types_context = None        # the MLIR context tensor_types' types live in, made once


def tensor_types(type_texts) -> list:
    """jaxlib's MLIR `RankedTensorType` of each StableHLO type text ("tensor<8x4xf32>"), as
    JAX hands a custom_partitioning `sharding_rule` callable its operands' and results' types
    (`.shape`, `.rank`, `.element_type`).

    >>> [(list(t.shape), str(t.element_type)) for t in tensor_types(["tensor<8x4xf32>"])]
    [([8, 4], 'f32')]
    """
    global _types_context
    ir = importlib.import_module("jaxlib.mlir.ir")     # (jaxlib's bindings: lowering needs none)
    if _types_context is None:
        _types_context = ir.Context()
    return [ir.RankedTensorType(ir.Type.parse(t, context=_types_context)) for t in type_texts]


def register_custom_partitioner(name: str, propagate, partition, infer) -> None:
    """XLA's partitioner of the custom call `name` calls back into Python: `propagate` and
    `infer` (GSPMD's propagation), `partition` (the per-device program), with XLA's Shapes
    and HloShardings (custom_partitioning's; the op may be side-effecting and replicated)."""
    if xc is not None:              # (without jaxlib no program is partitioned)
        xc.register_custom_call_partitioner(name, propagate, partition, infer,
                                            can_side_effecting_have_replicated_sharding=True)


def tuple_hlo_sharding(shape, shardings):
    """The HloSharding of a tuple-shaped value, from its elements'."""
    return xc.HloSharding.tuple_sharding(shape, list(shardings))


@functools.lru_cache(maxsize=1024)
def hlo_sharding(sharding: NamedSharding, ndim: int):
    """`sharding` as XLA's HloSharding of an `ndim`-d array over device positions 0..N-1
    (mesh order): NamedSharding's `_to_xla_hlo_sharding`, as JAX's method.

        >>> import jxkernel as jax
        >>> mesh = Mesh(np.array(jax.devices()[:2]).reshape(2, 1), ('x', 'y'))
        >>> NamedSharding(mesh, PartitionSpec('x'))._to_xla_hlo_sharding(2)
        {devices=[2,1]<=[2]}
    """
    if sharding.spec.unreduced:
        return _unreduced_hlo_sharding(sharding.mesh, sharding.spec._axes(ndim),
                                       sharding.spec.unreduced)
    return _hlo_sharding(sharding.mesh, sharding.spec._axes(ndim))


# what NamedSharding._to_xla_hlo_sharding (core/mesh.py) calls: its class sits below xla/, and
# core holds no jaxlib (GSPMDSharding, defined above, has its own inside)
jaxlib_forms["hlo"] = hlo_sharding


def _unreduced_hlo_sharding(mesh: Mesh, axes: tuple, unreduced):
    """XLA's HloSharding of an array split over `axes` and unreduced over the mesh axes
    `unreduced` (each device holds a summand of its block): the tiles, then one subgroup
    dimension of the unreduced axes, then one of the axes left (replicas), as XLA prints it:
    `{devices=[4,1,2]<=[8] last_tile_dims={unreduced}}`."""
    sizes = mesh.shape
    used = [a for dim_axes in axes for a in dim_axes]
    summed = [a for a in mesh.axis_names if a in unreduced]
    rest = [a for a in mesh.axis_names if a not in used and a not in unreduced]
    order = [mesh.axis_names.index(a) for a in used + summed + rest]
    positions = np.arange(mesh.size).reshape(mesh.axis_sizes).transpose(order).reshape(-1)
    dims = [math.prod(sizes[a] for a in dim_axes) for dim_axes in axes]
    dims.append(math.prod(sizes[a] for a in summed))
    kinds = ["unreduced"]
    if rest:
        dims.append(math.prod(sizes[a] for a in rest))
        kinds.append("replicated")
    return xc.HloSharding.from_string(
        f"{{devices=[{','.join(map(str, dims))}]{','.join(map(str, positions.tolist()))} "
        f"last_tile_dims={{{', '.join(kinds)}}}}}")


def _hlo_sharding(mesh: Mesh, axes: tuple):
    """XLA's HloSharding of an array whose dimensions are split over `axes` (per dimension)."""
    tiled = tiling(mesh, axes)
    if tiled is None:
        return xc.HloSharding.replicate()
    dims, positions, replicated = tiled
    # JAX's iota tile assignment: mesh positions transposed to the spec's axes, then the rest
    used, names = [a for dim_axes in axes for a in dim_axes], list(mesh.axis_names)
    perm = [names.index(a) for a in used] + [i for i, a in enumerate(names) if a not in used]
    return xc.HloSharding.iota_tile(dims=list(dims), reshape_dims=list(mesh.axis_sizes),
        transpose_perm=perm, subgroup_types=[xc.OpSharding.Type.REPLICATED] if replicated else [])


def _hlo_key(hlo) -> tuple:
    """A comparable form of an HloSharding (its printed forms differ for equal shardings)."""
    if hlo.is_replicated():
        return ("replicated",)
    dims = list(hlo.tile_assignment_dimensions())
    devices = list(hlo.tile_assignment_devices())
    replicate = hlo.replicate_on_last_tile_dim()
    if replicate and dims[-1] == 1:
        dims, replicate = dims[:-1], False
    return tuple(dims), tuple(devices), replicate


def spec_from_hlo(hlo, mesh: Mesh, ndim: int) -> PartitionSpec:
    """The PartitionSpec over `mesh` that XLA's `hlo` sharding of an `ndim`-d array is.

    Tried in order: each dimension split over unused mesh axes (in mesh order) whose sizes
    multiply to its tile count; the first whose HloSharding matches wins."""
    if hlo.is_replicated():
        return PartitionSpec()
    target = _hlo_key(hlo)
    dims, devices, replicate = target if len(target) == 3 else ((), (), False)
    unsplit = dims[ndim:len(dims) - replicate]
    if unsplit and all(d == 1 for d in unsplit):
        # a key array's program result: its physical array's trailing (key data) dimensions,
        # never split, tiled once each ({devices=[8,1]} of a key<fry>[8] in jit(pmap(bits)))
        target = (dims[:ndim] + dims[len(dims) - replicate:], devices, replicate)
    tiles = target[0][:ndim]
    sizes = mesh.shape
    for axes in _candidate_axes(list(tiles), list(mesh.axis_names), sizes):
        if _hlo_key(_hlo_sharding(mesh, axes)) == target:
            return _spec_of_axes(axes)
    raise NotImplementedError(f"XLA chose the sharding {hlo} for a {ndim}-d result, which is not "
                              f"expressible over the mesh {mesh} as a PartitionSpec")


def _candidate_axes(tiles, free, sizes):
    """Every assignment of distinct mesh axes (ordered) to dimensions matching `tiles`."""
    if not tiles:
        yield ()
        return
    for first in _ordered_products(tiles[0], free, sizes):
        rest = [a for a in free if a not in first]
        for tail in _candidate_axes(tiles[1:], rest, sizes):
            yield (first,) + tail


def _ordered_products(target, free, sizes):
    """Ordered tuples of distinct axes from `free` whose sizes multiply to `target`."""
    if target == 1:
        yield ()
    for a in free:
        if sizes[a] > 1 and target % sizes[a] == 0:
            for tail in _ordered_products(target // sizes[a], [b for b in free if b != a], sizes):
                yield (a,) + tail


def _spec_of_axes(axes) -> PartitionSpec:
    """P(...) for per-dimension axis tuples, trailing unsplit dimensions dropped (as JAX)."""
    parts = [None if not a else a[0] if len(a) == 1 else a for a in axes]
    while parts and parts[-1] is None:
        parts.pop()
    return PartitionSpec(*parts)


# ------------------------------------------------------------------ Shardy text
def sdy_mesh_line(mesh: Mesh, name: str = "mesh") -> str:
    """`sdy.mesh @mesh = <["x"=4, "y"=2]> {stablehlo.mesh = ...}`: device i of the mesh is
    partition i (the device assignment is the mesh's devices in order), so no device_ids are
    needed; the axes again in the attribute JAX's modules carry (stablehlo.sdy_mesh_attr)."""
    axes = ", ".join(f'"{n}"={s}' for n, s in zip(mesh.axis_names, mesh.axis_sizes))
    return f"sdy.mesh @{name} = <[{axes}]> " + \
        sdy_mesh_attr(list(zip(mesh.axis_names, mesh.axis_sizes)))


def sdy_dims(sharding: NamedSharding, ndim: int, name: str = "mesh", typed=False) -> str:
    """`<@mesh, [{"x"}, {}]>`: per dimension the mesh axes splitting it, major first, `{?}`
    where P.UNCONSTRAINED leaves it open to propagation (and the axes it is unreduced over:
    `unreduced={"y"}`). `typed`: the sharding a value's type says; over a mesh with Auto axes
    every dimension is open to them and the Explicit axes it does not name are replicated
    (`replicated={"x"}`), as JAX's lower_with_sharding_in_types (modify_wrt_axis_types)."""
    mixed = typed and bool(sharding.mesh.auto_axes)
    open_ = [mixed or p is UNCONSTRAINED for p in sharding.spec.partitions] + [mixed] * ndim
    dims = ", ".join("{" + ", ".join(f'"{a}"' for a in axes) + (", ?" if axes else "?") * o + "}"
                     for axes, o in zip(sharding.spec._axes(ndim), open_))
    used = {a for axes in sharding.spec._axes(ndim) for a in axes} | set(sharding.spec.unreduced)
    replicated = ", ".join(f'"{a}"' for a in sharding.mesh.explicit_axes if a not in used) \
        if mixed else ""
    unreduced = ", ".join(f'"{a}"' for a in sharding.mesh.axis_names
                          if a in sharding.spec.unreduced)
    return f"<@{name}, [{dims}]" + (f", replicated={{{replicated}}}" if replicated else "") + \
        (f", unreduced={{{unreduced}}}>" if unreduced else ">")


def sdy_sharding(module, home: Mesh, sharding: NamedSharding, ndim: int, typed=False) -> str:
    """`#sdy.sharding<@mesh, [...]>` for a value of a module partitioned over `home` (`typed`:
    the sharding its type says, see sdy_dims). A sharding over another mesh of the same
    devices in the same order (an abstract mesh inside jit naming them otherwise:
    use_abstract_mesh) names a mesh declared next to `@mesh`, as `@mesh_1`."""
    mesh = sharding.mesh
    if isinstance(mesh, AbstractMesh):      # JAX's _abstract_to_concrete_mesh: home's devices
        mesh = concrete_mesh(mesh, home)
    if mesh._ids != home._ids and sorted(mesh._ids) != sorted(home._ids):
        raise ValueError(f"Received incompatible devices for jitted computation: the sharding "
                         f"{sharding!r} is over a different mesh than the computation's "
                         f"{home}; use one mesh for every sharding of one jit")
    return f"#sdy.sharding{sdy_dims(sharding, ndim, mesh_symbol(module, home, mesh), typed)}"


def mesh_symbol(module, home: Mesh, mesh: Mesh) -> str:
    """The name `mesh` has in a module partitioned over `home` (the same devices): "mesh"
    for `home`'s axes, else another mesh declared next to it ("mesh_1"), which names its
    devices' places in `home` (`device_ids=[...]`) where their order differs (a device_put
    between two meshes of the same devices: XLA moves the blocks between them)."""
    same_order = getattr(mesh, "_ids", home._ids) == home._ids
    if same_order and (mesh.axis_names, mesh.axis_sizes) == (home.axis_names, home.axis_sizes):
        return "mesh"
    declared = [line for line in module.symbols if line.startswith("sdy.mesh @")]
    line = sdy_mesh_line(mesh, f"mesh_{len(declared)}")
    if not same_order:
        places = [home._ids.index(i) for i in mesh._ids]
        line = line.replace("]> ", f"], device_ids=[{', '.join(map(str, places))}]> ", 1)
    tail = line.split(" = ", 1)[1]
    found = next((d for d in declared if d.split(" = ", 1)[1] == tail), None)
    if found is None:
        module.symbols.append(line)
        found = line
    return found.split()[1][1:]


def sdy_attrs(module, mesh: Mesh, in_vars, arg_attrs, arg_shardings, out_vars, result_shardings):
    """(argument attributes, result attributes) of a module partitioned over `mesh`; declares
    the mesh in `module`. A None sharding leaves that value to XLA's propagation; a token
    has none (it has no data to split: XLA refuses one there, and JAX gives it none)."""
    module.symbols.append(sdy_mesh_line(mesh))

    def attr(base, sharding, var):
        if sharding is None or var.aval is abstract_token:
            return base
        text = f"sdy.sharding = {sdy_sharding(module, mesh, sharding, len(var.aval.shape))}"
        return text if base is None else f"{base}, {text}"
    arg_shardings = arg_shardings or [None] * len(in_vars)
    result_shardings = result_shardings or [None] * len(out_vars)
    # a result's sharding with an UNCONSTRAINED dimension (a type's over Auto axes) is no
    # attribute, as JAX's (contains_unconstrained): the constraint its value ends with says it
    return ([attr(b, s, v) for b, s, v in zip(arg_attrs, arg_shardings, in_vars)],
            [attr(None, None if s is not None and UNCONSTRAINED in s.spec.partitions else s, v)
             for s, v in zip(result_shardings, out_vars)])
