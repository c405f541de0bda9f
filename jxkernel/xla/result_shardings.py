"""The shardings a partitioned program's results report, as JAX names them (pxla's
maybe_recover_user_shardings and _gspmd_to_named_sharding): read from the executable, then
named after the first argument's sharding where a result is laid out alike and its type
carries that mesh, else over the mesh its type carries.

    >>> from jxkernel.sharding import Mesh, NamedSharding, PartitionSpec as P
    >>> mesh1 = Mesh(np.array(jax.devices()[:1]), ('x',))   # one device: every layout is alike
    >>> x = jax.device_put(np.arange(4.0), NamedSharding(mesh1, P('x')))
    >>> jax.jit(lambda a: a * 2)(x).sharding.spec
    P('x',)

A result's type carries a mesh in JAX (`aval.sharding.mesh`) when it is computed from an
Array sharded by its own sharding, comes out of a shard_map, or is typed over Explicit axes;
jxkernel's types carry only the last, so `carried_meshes` follows the jaxpr's data flow.
"""
from __future__ import annotations

import numpy as np

from ..core.avals import MemorySpace, mem_space_to_kind
from ..core.ir import Var
from ..core.mesh import Mesh, NamedSharding, PartitionSpec
from .client import xc
from .sharding import _hlo_key, hlo_sharding, spec_from_hlo


def output_shardings(loaded, mesh, out_avals, user_shardings, in_avals, given=None,
                     carried=None) -> list:
    """The results' NamedShardings, read from the executable (`given`, per result a sharding
    asked for or None, is taken as it is). As JAX recovers them (pxla's
    maybe_recover_user_shardings): when an argument has a sharding of its own or given, the
    first argument's (replicated if it has none) is what a result reports if it is laid out
    alike, has the same rank and its type carries that sharding's mesh; any other result is
    named over the mesh its type carries, else over `mesh`. `carried`: per result that mesh
    or None (see carried_meshes). On one device every layout is alike, so such results keep
    the first argument's spec, P('x') included."""
    given = given or [None] * len(out_avals)
    carried = carried or [mesh] * len(out_avals)
    first = first_sharding(mesh, user_shardings, in_avals)
    protos = loaded.get_output_shardings()
    if protos is None:                     # one partition (a mesh of one device): replicated
        protos = [None] * len(out_avals)
    out = []
    for op, aval, asked, cm in zip(protos, out_avals, given, carried):
        ndim = len(aval.shape)
        if asked is not None:
            out.append(asked)
            continue
        hlo = None if op is None else xc.HloSharding.from_proto(op)
        if reports_first(first, aval, cm, lambda f: hlo is None or
                         _hlo_key(hlo_sharding(f, ndim)) == _hlo_key(hlo)):
            out.append(first[0])
            continue
        named = _concrete(cm, mesh)
        out.append(NamedSharding(named, PartitionSpec() if hlo is None else
                                 _with_unit_splits(spec_from_hlo(hlo, named, ndim), aval)))
    return out


def _with_unit_splits(spec: PartitionSpec, aval) -> PartitionSpec:
    """`spec` (read from XLA's layout) with the dimensions the result's type splits over mesh
    axes of size 1 alone, which no layout shows (JAX's result is typed so: P('x', None) over
    an Explicit 'x' of size 1)."""
    typed = aval.split
    if typed is None or not any(s == 1 for s in typed.mesh.axis_sizes):
        return spec
    sizes = dict(zip(typed.mesh.axis_names, typed.mesh.axis_sizes))
    parts = list(spec.partitions) + [None] * (len(aval.shape) - len(spec.partitions))
    changed = False
    for d, p in enumerate(typed.spec.partitions[:len(parts)]):
        axes = () if p is None else (p,) if isinstance(p, str) else tuple(p)
        if axes and parts[d] is None and all(sizes.get(a) == 1 for a in axes):
            parts[d], changed = p, True
    return PartitionSpec(*parts, unreduced=spec.unreduced, reduced=spec.reduced) \
        if changed else spec


def first_sharding(mesh, user_shardings, in_avals):
    """(the first argument's sharding, its rank) when an argument has a sharding of its own
    or given (the first's: replicated if it has none), else None: what results laid out alike
    report, as JAX's maybe_recover_user_shardings names them."""
    if not (any(s is not None for s in user_shardings) and in_avals):
        return None
    return user_shardings[0] or NamedSharding(mesh, PartitionSpec()), len(in_avals[0].shape)


def reports_first(first, aval, carried, alike) -> bool:
    """Whether a result of type `aval` whose type carries the mesh `carried` reports `first`
    (first_sharding's answer): the same rank and memory kind (a device argument's sharding is
    not a host result's: that one is named from its layout, P() on one device, as JAX's),
    that sharding's mesh, and laid out alike (`alike(sharding)`, asked last: the caller's
    comparison of layouts)."""
    if first is None or carried is None:
        return False
    sharding, first_ndim = first
    space = getattr(aval, "memory_space", MemorySpace.Device)
    kind = "device" if space in (MemorySpace.Device, MemorySpace.Any) else \
        mem_space_to_kind(space)
    return first_ndim == len(aval.shape) and (sharding.memory_kind or "device") == kind and \
        getattr(carried, "abstract_mesh", carried) == \
        getattr(sharding.mesh, "abstract_mesh", sharding.mesh) and alike(sharding)


def _concrete(carried, mesh: Mesh) -> Mesh:
    """The mesh a result's type carries, over the program's devices (`mesh`'s, in order), as
    JAX's _abstract_to_concrete_mesh; `mesh` itself for none or one with manual axes."""
    if carried is None or carried == mesh or carried.manual_axes or \
            getattr(carried, "size", 0) != mesh.size:
        return mesh
    made = Mesh(np.array(mesh._flat_devices, dtype=object).reshape(carried.axis_sizes),
                carried.axis_names, carried.axis_types)
    return carried if made == carried else made


def carried_meshes(jaxpr, meshes) -> list:
    """Per output of `jaxpr`, the mesh its type carries in JAX, or None: that of an input
    sharded by its own sharding (`meshes`, per invar, None for others: not one laid out by
    jit's in_shardings) that it is computed from (through an exported call, where the
    Exported records the output's sharding), of the shard_map it comes out of, or of
    the sharding in its type (Explicit axes)."""
    marked = {v: m for v, m in zip(jaxpr.invars, meshes) if m is not None}
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "shard_map":
            marked.update(dict.fromkeys(eqn.outvars, eqn.params["mesh"]))
            continue
        if eqn.primitive.name == "call_exported":
            # JAX types its results by the shardings the Exported records, so an output with
            # none carries no mesh (XLA's layout named alone: P('x',), not P('x', None))
            m = next((marked[v] for v in eqn.invars if type(v) is Var and v in marked), None)
            recorded = eqn.params["exported"]._out_named_shardings
            marked.update({v: m for v, s in zip(eqn.outvars, recorded)
                           if m is not None and s is not None})
            continue
        inner = getattr(eqn.params.get("jaxpr"), "jaxpr", None)
        if eqn.primitive.name == "jit" and inner is not None:   # (jit(pmap(f)): a shard_map inside)
            found = carried_meshes(inner, [marked.get(v) if type(v) is Var else None
                                           for v in eqn.invars])
            marked.update({v: m for v, m in zip(eqn.outvars, found) if m is not None})
            continue
        m = next((marked[v] for v in eqn.invars if type(v) is Var and v in marked), None)
        if m is not None:
            marked.update(dict.fromkeys(eqn.outvars, m))
    return [marked.get(v) if type(v) is Var and v in marked else
            getattr(v.aval.split, "mesh", None) for v in jaxpr.outvars]
