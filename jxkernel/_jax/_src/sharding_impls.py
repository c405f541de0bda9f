"""jxkernel._src.sharding_impls, as jax._src.sharding_impls: the mesh and sharding classes
(core/mesh.py) where libraries and reprs find JAX's.

    >>> set_mesh.__module__
    'jxkernel._src.sharding_impls'
"""
import itertools
import math

import numpy as np

from ...core.mesh import (  # noqa: F401
    IndivisibleError,
    AbstractMesh,
    Mesh,
    NamedSharding,
    UNSPECIFIED,
    PartitionSpec,
    UnspecifiedValue,
    set_mesh,
)
from ...api.sharding import (SingleDeviceSharding, get_abstract_mesh,  # noqa: F401
                             make_single_device_sharding, use_abstract_mesh)
from ...xla.client import xc
from ...xla.sharding import GSPMDSharding  # noqa: E402,F401 (XLA's HloSharding over devices)
# a NamedSharding's HloSharding, cached on (sharding, ndim) as JAX's (cache_info, cache_clear)
from ...xla.sharding import hlo_sharding as named_sharding_to_xla_hlo_sharding  # noqa: F401


def parse_flatten_op_sharding(hlo_sharding, mesh) -> list:
    """The PartitionSpecs over `mesh` (a Mesh or AbstractMesh) of an XLA sharding (an
    HloSharding or OpSharding; a tuple sharding gives one per element) whose devices are the
    mesh's places, in its flat order; each dimension's entry is the tuple of the mesh axes
    that split it, major first.

        >>> mesh = AbstractMesh((2, 4), ('x', 'y'))
        >>> parse_flatten_op_sharding(xc.HloSharding.from_string("{devices=[4,2]<=[2,4]T(1,0)}"), mesh)
        [P('y', 'x')]
    """
    if isinstance(hlo_sharding, xc.OpSharding):
        hlo_sharding = xc.HloSharding.from_proto(hlo_sharding)
    if hlo_sharding.tuple_elements():
        return [spec for element in hlo_sharding.tuple_elements()
                for spec in parse_flatten_op_sharding(element, mesh)]
    sizes = dict(zip(mesh.axis_names, mesh.axis_sizes))
    if hlo_sharding.is_replicated() or \
            (hlo_sharding.is_maximal() and math.prod(sizes.values()) == 1):
        return [PartitionSpec()]
    if not hlo_sharding.is_tiled():
        raise NotImplementedError(f"parse_flatten_op_sharding: {hlo_sharding} is neither "
                                  f"replicated nor tiled, so it names no mesh axes")
    if len(hlo_sharding.subgroup_types()) > 1:
        raise NotImplementedError(f"parse_flatten_op_sharding: {hlo_sharding} has more than "
                                  f"one subgroup kind")
    order = _mesh_axis_order(mesh, list(hlo_sharding.tile_assignment_devices()))
    tiles = list(hlo_sharding.tile_assignment_dimensions())
    partitions = []
    for pieces in tiles:
        axes = []
        while pieces > 1:         # the next mesh axes in the devices' order split this one
            axis = next(order)
            if pieces % sizes[axis]:
                raise IndivisibleError(f"shape={tiles} is incompatible with mesh_shape="
                                       f"{sizes}: dim_size={pieces} is not divisible by "
                                       f"axis_size={sizes[axis]}.")
            pieces //= sizes[axis]
            axes.append(axis)
        partitions.append(tuple(axes))
    if hlo_sharding.replicate_on_last_tile_dim():
        partitions = partitions[:-1]
    while partitions and partitions[-1] == ():
        partitions.pop()
    return [PartitionSpec(*partitions)]


def _mesh_axis_order(mesh, devices: list):
    """An iterator over the mesh axes (those of size above 1), major first, in the order that
    lists the mesh's places as `devices` does: the transpose of the mesh's flat order that
    gives it."""
    names = [n for n, s in zip(mesh.axis_names, mesh.axis_sizes) if s > 1]
    shape = [s for s in mesh.axis_sizes if s > 1]
    places = np.arange(math.prod(shape)).reshape(shape)
    for order in itertools.permutations(range(len(shape))):
        if places.transpose(order).ravel().tolist() == devices:
            return iter([names[i] for i in order])
    axes = dict(zip(mesh.axis_names, mesh.axis_sizes))
    raise NotImplementedError(f"parse_flatten_op_sharding: the devices {devices} are no "
                              f"transpose of the mesh {axes}'s places")


def array_mapping_to_axis_resources(array_mapping) -> PartitionSpec:
    """The PartitionSpec of a {mesh axis: array dimension} mapping (JAX's: the axes of one
    dimension in the mapping's order, None for a dimension none maps to).

        >>> array_mapping_to_axis_resources({'x': 0, 'y': 0, 'z': 2})
        P(('x', 'y'), None, 'z')
    """
    if not array_mapping:
        return PartitionSpec()
    by_dim: dict = {}
    for axis, index in array_mapping.items():
        by_dim.setdefault(index, []).append(axis)
    return PartitionSpec(*[None if not (axes := by_dim.get(i)) else
                           axes[0] if len(axes) == 1 else tuple(axes)
                           for i in range(max(by_dim) + 1)])
