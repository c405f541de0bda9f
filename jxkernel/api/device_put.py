"""device_put over pytrees (JAX's `jax.device_put`: each leaf onto a Device, a Sharding or a
PartitionSpec, traced as one `device_put` equation), and the two calls built on moving data:
`make_array_from_process_local_data` (a global Array from this process's data) and
`copy_to_host_async` (the way back, started early). Re-exported by jxkernel/__init__ (the
two on first use). The single array's move is xla/put.py's; the equation, lax/transfer.py's.
"""
from __future__ import annotations

import numpy as np

from ..core import mesh as _mesh
from ..core.mesh import PartitionSpec
from ..core.trace import Tracer, current_trace
from ..transforms.api_util import flatten_axes
from ..tree_util import (broadcast_prefix, keystr, tree_flatten, tree_flatten_with_path,
                         tree_unflatten)
from ..lax import transfer as _transfer
from ..xla import put as _put
from ..xla import transfers as _transfers
from ..xla import client as _client

__all__ = ["copy_to_host_async", "device_put", "make_array_from_process_local_data"]


def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
    """`x` (an array, a scalar, or a pytree of them) as Arrays on `device`: a Device, a
    Sharding, a PartitionSpec under set_mesh, or a pytree prefix of `x` holding those.
    `src` says where `x` is (the same kinds; by default where each leaf is), which the
    equation records and its transpose moves a cotangent back to. `may_alias=False` copies;
    `donate` may reuse the input (never both True); each flag a bool or a pytree prefix of
    `x` of them, as JAX's.

    >>> device_put({"a": 1.0, "b": np.ones(2)})
    {'a': Array(1., dtype=float32, weak_type=True), 'b': Array([1., 1.], dtype=float32)}
    """
    leaves, tree = tree_flatten(x)
    device_leaves = tree_flatten(device)[0]
    _refused_in_eager_body(device_leaves)
    if src is None and type(donate) is bool and (may_alias is None or type(may_alias) is bool) \
            and len(leaves) == 1 and leaves[0] is x and not isinstance(x, Tracer) and \
            (device is None or len(device_leaves) == 1 and device_leaves[0] is device):
        # the common call: one value, one target (a pytree of them is flatten_axes' to
        # match, below), no source named
        semantics = _transfer.copy_semantics_of(False, donate, may_alias)
        _transfers.check_put_target(device)
        out = _put.device_put(x, device, copy=semantics != _transfer.ArrayCopySemantics.REUSE_INPUT)
        _donated(x, device, semantics)
        return out
    # each an entry for every leaf, or a pytree prefix of `x` of them (JAX's errors, in its
    # order); a bare PartitionSpec is a NamedSharding over the mesh in context (JAX's
    # pspec_to_sharding: outside set_mesh, its error)
    targets = flatten_axes("device_put device", tree, device)
    srcs = flatten_axes("device_put source", tree, src)
    targets, srcs = ([_mesh.resolve(d) if isinstance(d, PartitionSpec) else d for d in places]
                     for places in (targets, srcs))
    donates = flatten_axes("device_put donate", tree, donate)
    aliases = flatten_axes("device_put may_alias", tree, may_alias)
    semantics = [_transfer.copy_semantics_of(False, d, m) for d, m in zip(donates, aliases)]
    for d in targets:                   # each leaf's, traced or not, as JAX checks them
        _transfers.check_put_target(d)
    if any(isinstance(leaf, Tracer) for leaf in leaves):
        # traced: one device_put equation for all the leaves, as JAX binds it
        outs = _transfer.device_put_p.bind(
            *leaves, devices=tuple(targets),
            srcs=tuple(_transfer.source_of(leaf) if s is None else s
                       for leaf, s in zip(leaves, srcs)),
            copy_semantics=tuple(semantics))
        return tree_unflatten(tree, outs)
    # (what errors call each leaf: named only where one goes to a Format, which may refuse it)
    names = [f"x{keystr(path)}" for path, _ in tree_flatten_with_path(x)[0]] if any(
        type(d).__name__ == "Format" for d in targets) else ["x"] * len(leaves)
    outs = [_put.device_put(leaf, d, copy=c != _transfer.ArrayCopySemantics.REUSE_INPUT,
                            name=name)
            for leaf, d, c, name in zip(leaves, targets, semantics, names)]
    for leaf, d, c in zip(leaves, targets, semantics):
        _donated(leaf, d, c)
    return tree_unflatten(tree, outs)


def _donated(x, target, semantics) -> None:
    """Delete a donated Array that JAX reshards by a jit donating it: one split over a mesh
    put onto the same devices in another order (dispatch.py's
    `_different_device_order_reshard`); JAX's other moves keep it."""
    if semantics != _transfer.ArrayCopySemantics.DONATE_INPUT or \
            not isinstance(target, _mesh.NamedSharding) or target.num_devices < 2:
        return
    own = getattr(x, "sharding", None)
    if isinstance(own, _mesh.NamedSharding) and not x.is_deleted() and \
            tuple(own._device_assignment) != tuple(target._device_assignment) and \
            set(own._device_assignment) == set(target._device_assignment):
        x.delete()


def _refused_in_eager_body(devices) -> None:
    """A device named in a shard_map body run eagerly: JAX's error (where JAX binds
    device_put_p even for a constant, jxkernel places one at once; the body's trace says)."""
    refuse = getattr(current_trace(), "refuse_device_put", None)
    if refuse is not None:
        refuse(devices)


def make_array_from_process_local_data(sharding, local_data, global_shape=None):
    """A global Array laid out as `sharding` from the data this process holds (any pytree of
    arrays, with `sharding` and `global_shape` as prefixes). In a single-process run the
    local data is the whole array: `global_shape`, if given, must be its shape.

    >>> make_array_from_process_local_data(jxkernel.devices()[0], np.arange(3.0))
    Array([0., 1., 2.], dtype=float32)
    """
    leaves = tree_flatten(local_data)[0]
    shapes = broadcast_prefix(global_shape, local_data,
                              is_leaf=lambda s: s is None or isinstance(s, tuple))
    if _client.process_count() > 1:
        raise NotImplementedError(
            "make_array_from_process_local_data over several processes is not supported by "
            "jxkernel yet: build the array with jax.make_array_from_callback (each process "
            "answers for its devices' blocks)")
    for shape, data in zip(shapes, leaves):
        if shape is not None and tuple(shape) != np.shape(data):
            raise ValueError(f"When calling `make_array_from_process_local_data` on a single "
                             f"process, global_shape should be None or equal to "
                             f"local_data.shape.Got global_shape={tuple(shape)} and "
                             f"local_data.shape={np.shape(data)}.")
    return device_put(local_data, sharding)


def copy_to_host_async(x):
    """Start copying every Array in the pytree `x` to the host (leaves without a
    `copy_to_host_async` method are left alone); returns `x`. A later `np.asarray` of a leaf
    then waits only for what is left of its copy."""
    for leaf in tree_flatten(x)[0]:
        copy = getattr(leaf, "copy_to_host_async", None)
        if copy is not None:
            copy()
    return x
