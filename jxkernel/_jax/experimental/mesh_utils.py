"""jxkernel.experimental.mesh_utils, as jax.experimental.mesh_utils: arrays of devices in the
shape of a logical mesh, for `jax.sharding.Mesh`.

    >>> create_device_mesh((1,)).shape
    (1,)
    >>> create_hybrid_device_mesh((1,), (1,), process_is_granule=True).shape
    (1,)

On CPUs the devices keep `jax.devices()`'s order, on GPUs they are sorted by id, as JAX does;
JAX lays TPU meshes along the chips' torus, which jxkernel does not model (it keeps the order).
"""
from __future__ import annotations

import collections
import math

import numpy as np

from ... import devices as all_devices   # calling it starts the runtime, importing it does not

# device_kind -> handler(mesh_shape, devices, contiguous_submeshes=...) returning a mesh or None
device_kind_handler_dict: dict = {}


def _axis_sizes(mesh_shape) -> tuple:
    try:
        sizes = tuple(int(n) for n in mesh_shape)
    except (TypeError, ValueError):
        raise ValueError(f"`mesh_shape` passed to `create_device_mesh` should be a sequence of "
                         f"ints. Got {mesh_shape}") from None
    if any(n != m for n, m in zip(sizes, mesh_shape)):
        raise ValueError(f"`mesh_shape` passed to `create_device_mesh` should be a sequence of "
                         f"ints. Got {mesh_shape}")
    return sizes


def create_device_mesh(mesh_shape, devices=None, *, contiguous_submeshes: bool = False,
                       allow_split_physical_axes: bool = False) -> np.ndarray:
    """`devices` (default: all of them) as an array of shape `mesh_shape`."""
    devices = list(all_devices() if devices is None else devices)
    shape = _axis_sizes(mesh_shape)
    if math.prod(shape) != len(devices):
        raise ValueError(f"Number of devices {len(devices)} must equal the product of "
                         f"mesh_shape {shape}")
    handler = device_kind_handler_dict.get(getattr(devices[-1], "device_kind", None))
    if handler is not None:
        found = handler(shape, devices, contiguous_submeshes=contiguous_submeshes)
        if found is not None:
            return found
    if getattr(devices[-1], "platform", None) == "gpu":
        devices = sorted(devices, key=lambda d: d.id)
    out = np.empty(len(devices), dtype=object)
    out[:] = devices
    return out.reshape(shape)


def create_hybrid_device_mesh(mesh_shape, dcn_mesh_shape, devices=None, *,
                              process_is_granule: bool = False,
                              should_sort_granules_by_key: bool = True,
                              allow_split_physical_axes: bool = False) -> np.ndarray:
    """A mesh of `dcn_mesh_shape` blocks (one per slice, or per process with
    `process_is_granule`), each a `mesh_shape` mesh of that granule's devices; the result's
    shape is the two shapes multiplied axis by axis."""
    devices = list(all_devices() if devices is None else devices)
    attr = "process_index" if process_is_granule else "slice_index"
    if not all(hasattr(d, attr) for d in devices):
        raise ValueError(f"create_hybrid_device_mesh: some devices have no {attr}; pass "
                         f"process_is_granule=True to group devices by process.")
    groups = collections.defaultdict(list)
    for d in devices:
        groups[getattr(d, attr)].append(d)
    granules = [groups[k] for k in sorted(groups)] if should_sort_granules_by_key \
        else list(groups.values())
    dcn_shape = _axis_sizes(dcn_mesh_shape)
    if math.prod(dcn_shape) != len(granules):
        raise ValueError(f"Number of slices {len(granules)} must equal the product of "
                         f"dcn_mesh_shape {dcn_shape}")
    meshes = [create_device_mesh(mesh_shape, g) for g in granules]
    order = np.arange(len(granules)).reshape(dcn_shape)
    blocks = np.empty(order.shape, dtype=object)
    for index in np.ndindex(order.shape):
        blocks[index] = meshes[order[index]]
    return np.block(blocks.tolist())
