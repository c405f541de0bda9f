"""Colocated Python serialization, as JAX's `colocated_python.serialization`: callables and
their input/output specs pickled with cloudpickle (optional, as in JAX: without it
`_serialize`/`_deserialize` raise ModuleNotFoundError), meshes, device lists and shardings by
their devices' ids, found again among the CPU devices where they are unpickled.

    >>> mesh = Mesh(tuple(jxkernel.devices()), ("x",))
    >>> _deserialize(_serialize(mesh)) == mesh
    True

Not for storage: what `_serialize` writes is read back at once by the same jxkernel, in a
process of the same tenant (what it unpickles is trusted), as JAX says of its own.
"""
from __future__ import annotations

import base64
import collections
import functools
import io
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

try:
    import cloudpickle
except ImportError:
    cloudpickle = None

from ...core.avals import ShapeDtypeStruct
from ...core.mesh import Mesh, NamedSharding, PartitionSpec
from ...tree_util import PyTreeDef
from ...xla import client as xb     # JAX's xla_bridge here: local_devices() and backends()
from ...xla.client import DeviceList
from ...xla.sharding import SingleDeviceSharding

__all__ = ["DeviceList"]


class _CommonObjectState(threading.local):
    """The objects seen so far in one `_serialize()` or `_deserialize()`: an object equal to
    one already written (a mesh every sharding of a tree holds) is written as its index."""

    def __init__(self):
        self.common_obj_index: dict[Any, int] | None = None     # while serializing
        self.common_obj: list[Any] | None = None                # while deserializing


_common_obj_state = _CommonObjectState()


def _wrapped_unreduce_func_with_new_common_obj(common_obj_id, unreduce_func, unreduce_args):
    """Unreduces a new common object."""
    assert _common_obj_state.common_obj is not None
    obj = unreduce_func(*unreduce_args)
    assert len(_common_obj_state.common_obj) == common_obj_id, (
        f"Expected {common_obj_id} common objects, but got"
        f" {len(_common_obj_state.common_obj)}. This can happen if serialization"
        " and deserialization of objects happened in different orders.")
    _common_obj_state.common_obj.append(obj)
    return obj


def _wrapped_unreduce_func_with_existing_common_obj(common_obj_id):
    """Unreduces a common object that has already appeared."""
    assert _common_obj_state.common_obj is not None
    return _common_obj_state.common_obj[common_obj_id]


def _make_reduce_func_with_common_obj(reduce_func: Callable[[Any], tuple[Any, Any]]):
    """`reduce_func` writing each distinct (equal) object once, then its index."""

    @functools.wraps(reduce_func)
    def wrapped_reduce_func(obj):
        assert _common_obj_state.common_obj_index is not None
        common_obj_id = _common_obj_state.common_obj_index.get(obj)
        if common_obj_id is None:
            unreduced_func, unreduced_args = reduce_func(obj)
            common_obj_id = len(_common_obj_state.common_obj_index)
            _common_obj_state.common_obj_index[obj] = common_obj_id
            return _wrapped_unreduce_func_with_new_common_obj, (
                common_obj_id, unreduced_func, unreduced_args)
        return _wrapped_unreduce_func_with_existing_common_obj, (common_obj_id,)

    return wrapped_reduce_func


def _all_devices(backend) -> list:
    # xla.client's backends hold jaxlib's client (JAX's xb.backends() gives the clients)
    return list(getattr(backend, "client", backend)._get_all_devices())


_cpu_device_map_cache: dict = {}


def _get_cpu_device_map() -> dict[int, Any]:
    """Device id -> CPU device: the default backend's CPU devices, else every started
    backend's (cached, as JAX's `util.cache(max_size=None)`; `cache_clear` empties it)."""
    if None in _cpu_device_map_cache:
        return _cpu_device_map_cache[None]
    cpu_device_map: dict[int, Any] = {}
    for d in xb.local_devices()[0].client._get_all_devices():
        if d.device_kind == "cpu":
            if d.id in cpu_device_map:
                raise ValueError(f"Multiple CPU devices with id {d.id} found:"
                                 f" {cpu_device_map[d.id]} and {d}")
            cpu_device_map[d.id] = d
    if not cpu_device_map:
        for backend in xb.backends().values():
            for d in _all_devices(backend):
                if d.device_kind == "cpu":
                    if d.id in cpu_device_map:
                        raise ValueError(f"Multiple CPU devices with id {d.id} found:"
                                         f" {cpu_device_map[d.id]} and {d}")
                    cpu_device_map[d.id] = d
    _cpu_device_map_cache[None] = cpu_device_map
    return cpu_device_map


_get_cpu_device_map.cache_clear = _cpu_device_map_cache.clear


def _lookup_cpu_device(cpu_device_map: dict, device_id: int):
    """The CPU device with id `device_id`."""
    d = cpu_device_map.get(device_id)
    if d is None:
        raise ValueError(f"Invalid device ID {device_id}. Device list must contain only CPU"
                         " devices.")
    return d


@_make_reduce_func_with_common_obj
def _reduce_mesh(mesh: Mesh):
    mesh_device_ids = np.vectorize(lambda d: d.id, otypes=[int])(mesh.devices)
    return _unreduce_mesh, (mesh_device_ids, mesh.axis_names, mesh.axis_types)


def _unreduce_mesh(mesh_device_ids: np.ndarray, axis_names, axis_types) -> Mesh:
    cpu_device_map = _get_cpu_device_map()
    mesh_devices = np.vectorize(functools.partial(_lookup_cpu_device, cpu_device_map),
                                otypes=[object])(mesh_device_ids)
    return Mesh(mesh_devices, axis_names, axis_types)


@_make_reduce_func_with_common_obj
def _reduce_named_sharding(sharding: NamedSharding):
    assert isinstance(sharding.mesh, Mesh), "Only Mesh is supported"
    reduced_mesh = _reduce_mesh(sharding.mesh)
    return _unreduce_named_sharding, (reduced_mesh, sharding.spec, sharding.memory_kind)


def _unreduce_named_sharding(reduced_mesh, spec, memory_kind) -> NamedSharding:
    mesh = reduced_mesh[0](*reduced_mesh[1])
    return NamedSharding(mesh, spec, memory_kind=memory_kind)


@_make_reduce_func_with_common_obj
def _reduce_device_list(device_list):
    return _unreduce_device_list, ([d.id for d in device_list],)


def _unreduce_device_list(device_ids: Sequence[int]):
    cpu_device_map = _get_cpu_device_map()
    return DeviceList(tuple(_lookup_cpu_device(cpu_device_map, i) for i in device_ids))


@_make_reduce_func_with_common_obj
def _reduce_single_device_sharding(sharding: SingleDeviceSharding):
    return _unreduce_single_device_sharding, (next(iter(sharding.device_set)).id,
                                              sharding.memory_kind)


def _unreduce_single_device_sharding(device_id: int, memory_kind: str | None):
    device = _lookup_cpu_device(_get_cpu_device_map(), device_id)
    return SingleDeviceSharding(device, memory_kind=memory_kind)


def _require_cloudpickle() -> None:
    if cloudpickle is None:
        raise ModuleNotFoundError('No module named "cloudpickle"')


def _serialize(obj: Any) -> bytes:
    """Serializes callables and input/output spec objects (colocated_python's own use only:
    see the module's docstring). Raises ModuleNotFoundError without cloudpickle."""
    _require_cloudpickle()
    table = {Mesh: _reduce_mesh, NamedSharding: _reduce_named_sharding,
             SingleDeviceSharding: _reduce_single_device_sharding}
    if DeviceList is not tuple:         # (without jaxlib a device list is a plain tuple)
        table[DeviceList] = _reduce_device_list

    class _CustomPickler(cloudpickle.Pickler):
        dispatch_table = collections.ChainMap(table, cloudpickle.CloudPickler.dispatch_table)
        dispatch = dispatch_table

    assert _common_obj_state.common_obj_index is None, "_serialize() expects no recursive calls"
    _common_obj_state.common_obj_index = {}
    try:
        with io.BytesIO() as file:
            _CustomPickler(file).dump(obj)
            return file.getvalue()
    finally:
        _common_obj_state.common_obj_index = None


def _deserialize(serialized: bytes) -> Any:
    """Deserializes what `_serialize` wrote. Raises ModuleNotFoundError without cloudpickle."""
    _require_cloudpickle()
    assert _common_obj_state.common_obj is None, "_deserialize() expects no recursive calls"
    _common_obj_state.common_obj = []
    try:
        return cloudpickle.loads(serialized)
    finally:
        _common_obj_state.common_obj = None


def _make_specs_for_serialized_specs(devices) -> ShapeDtypeStruct:
    """The spec of serialized specs: a replicated string scalar on `devices`."""
    mesh = Mesh(tuple(devices), ("x",))
    return ShapeDtypeStruct(shape=(), dtype=np.dtypes.StringDType(),
                            sharding=NamedSharding(mesh, PartitionSpec()))


def _serialize_specs(specs_treedef: PyTreeDef, specs_leaves: tuple, devices) -> np.ndarray:
    """Output specs as a base64 string scalar. JAX makes it a string jax.Array replicated on
    the devices' hosts, for the controller to read back; jxkernel's Arrays hold no strings, and
    the colocated host is this process, so the scalar stays a NumPy array here."""
    if not hasattr(np.dtypes, "StringDType"):
        raise TypeError("Serializing Colocated Python requires StringDType. Please use"
                        " numpy to 2.0.0 or later, or explicitly provide an output spec"
                        " function.")
    s_bytes = _serialize((specs_treedef, specs_leaves))
    return np.array(base64.b64encode(s_bytes).decode("ascii"), dtype=np.dtypes.StringDType())


def _deserialize_specs(serialized_specs) -> tuple[PyTreeDef, tuple]:
    """The (treedef, leaves) of specs `_serialize_specs` wrote."""
    data = serialized_specs
    if hasattr(data, "addressable_shards"):     # JAX's form, a string Array
        data = data.addressable_shards[0].data
    return _deserialize(base64.b64decode(np.asarray(data).item().encode("ascii")))
