"""Exports over several devices, as JAX 0.10.2's: the mesh size a module was partitioned for
(`Exported.nr_devices`), each input's and output's sharding over the mesh's AbstractMesh (no
devices: the export runs on any mesh of that shape), and what a call checks and adds.

    >>> from jxkernel.export import export
    >>> from jxkernel.sharding import Mesh, NamedSharding, PartitionSpec as P
    >>> mesh = Mesh(jax.devices(), ("a",))                                   # 8 devices
    >>> exp = export(jax.jit(lambda x: x * 2, in_shardings=NamedSharding(mesh, P("a"))))(
    ...     np.arange(8))
    >>> exp.nr_devices, exp.in_shardings_jax(mesh)
    (8, (NamedSharding(mesh=Mesh('a': 8, axis_types=(Auto,)), spec=P('a',), memory_kind=device),))

A jit with in_shardings/out_shardings, arguments split over a mesh, or a shard_map or sharding
constraint inside, is lowered over the mesh that `jit(f).trace(x).lower()` partitions it over:
`main`'s arguments and results carry `sdy.sharding` attributes where a sharding was given
(None, JAX's unspecified, where not), the module `mhlo.num_partitions = <mesh size>`.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.avals import typed_sharding
from ..core.mesh import AbstractMesh, AbstractMeshOnlyError, Mesh, NamedSharding, \
    PartitionSpec, mesh_of_devices, on_context_mesh, set_mesh
from ..transforms.jit.pinned import one_device_given
from ..transforms.jit.primitive import any_sharded
from ..xla import client as _client
from ..xla import stablehlo as hlo
from ..xla.lowering import NeedsMesh
from ..xla.sharding import sdy_attrs, sdy_sharding


class Layout(NamedTuple):
    """How an exported program is partitioned: the `mesh` it is lowered over, and per input
    and output the NamedSharding given (None: left to XLA). `mesh` None: a program on one
    device, whose committed arguments and SingleDeviceShardings are its shardings over an
    empty AbstractMesh (JAX's `sdy.mesh @empty_mesh`)."""
    mesh: Mesh | None
    in_shardings: tuple
    out_shardings: tuple


def lowered_with_layout(traced, lower) -> tuple:
    """(lower(layout), layout): `lower` is called with None for a program on one device and
    with its Layout for one partitioned over a mesh, found as `traced.lower()` finds it
    (shardings given to jit, arguments split over a mesh, or a constraint inside: NeedsMesh)."""
    layout = _layout(traced) if traced.jitted._sharded or any_sharded(traced._leaves) else \
        _one_device_layout(traced)
    try:
        return lower(layout), layout
    except NeedsMesh as e:
        if layout is not None and layout.mesh is not None:
            raise
        if not (on_context_mesh() and traced.jitted._device is None):
            # a constraint inside: the jit is partitioned over its mesh from now on, as
            # traced.lower() marks it
            traced.jitted._sharded, traced.jitted._constraint_mesh = True, e.mesh
    layout = _layout(traced)
    return lower(layout), layout


def _layout(traced) -> Layout:
    """The mesh and shardings `traced.lower()` partitions it with, its module not lowered:
    the export lowers its own (a symbolic shape read as a value lowers there alone)."""
    from ..transforms.jit.sharded import stage_partitioning     # (jit over a mesh loads late)
    try:
        partitioning = stage_partitioning(traced, lower=False)
    except AbstractMeshOnlyError as e:
        # only shardings over an AbstractMesh, and no mesh set: JAX exports for its platforms
        # without devices; jxkernel lowers over a stand-in mesh of this process's first
        # devices (the module names mesh positions only, and the Exported's shardings are
        # over the AbstractMesh still)
        with set_mesh(_stand_in(e)):
            partitioning = stage_partitioning(traced, lower=False)
    # an output given none whose type is split over Explicit axes: that sharding, as JAX
    # records (its out_shardings resolved from the avals)
    outs = [s if s is not None or a.split is None else typed_sharding(a.split, a.ndim)
            for s, a in zip(partitioning.given_out_shardings, traced.jaxpr.out_avals)]
    return Layout(partitioning.mesh, tuple(partitioning.user_shardings), tuple(outs))


def _stand_in(error: AbstractMeshOnlyError) -> Mesh:
    abstract = error.abstract
    devices = _client.devices()
    if len(devices) < abstract.size:
        raise ValueError(f"{error} (jxkernel lowers such an export over this process's "
                         f"devices, and it has {len(devices)}, fewer than the mesh's "
                         f"{abstract.size}: set a mesh of the devices to export for with "
                         f"jax.set_mesh)") from None
    return mesh_of_devices(abstract, devices[:abstract.size])


def _one_device_layout(traced) -> Layout | None:
    """A program on one device: each committed Array argument, and each SingleDeviceSharding
    a pinned jit was given (a `device=` jit: every one), is a sharding over the empty
    AbstractMesh (JAX's: jit.pinned.one_device_given); None if none."""
    given = one_device_given(traced)
    if given is None:
        return None
    jaxpr = traced.jaxpr
    return Layout(None, *(tuple(_empty(len(a.shape)) if g else None for g, a in zip(flags, avals))
                          for flags, avals in zip(given, (jaxpr.in_avals, jaxpr.out_avals))))


def _empty(ndim: int) -> NamedSharding:
    return NamedSharding(AbstractMesh((), ()), PartitionSpec(*[None] * ndim),
                         memory_kind="device")


# ------------------------------------------------------------------ the exported module
def module_attrs(module: hlo.Module, layout: Layout | None, jaxpr) -> tuple[list, list]:
    """(argument attributes, result attributes) of `main`: `sdy.sharding = ...` where a
    sharding was given; declares `@mesh` in `module` (`@empty_mesh` for one device)."""
    if layout is None:
        return [None] * len(jaxpr.invars), [None] * len(jaxpr.outvars)
    if layout.mesh is None:
        given = tuple([s is not None for s in shardings]
                      for shardings in (layout.in_shardings, layout.out_shardings))
        return hlo.on_empty_mesh(module, jaxpr.invars, [None] * len(jaxpr.invars), jaxpr.outvars,
                             given)
    return sdy_attrs(module, layout.mesh, jaxpr.invars, [None] * len(jaxpr.invars),
                     layout.in_shardings, jaxpr.outvars, layout.out_shardings)


def nr_devices(layout: Layout | None) -> int:
    return 1 if layout is None or layout.mesh is None else layout.mesh.size


def named_shardings(layout: Layout | None, n_in: int, n_out: int) -> tuple[tuple, tuple]:
    """What `Exported._in_named_shardings`/`_out_named_shardings` hold: each given sharding
    over its mesh's AbstractMesh (JAX's to_named_sharding_with_abstract_mesh), else None."""
    if layout is None:
        return (None,) * n_in, (None,) * n_out
    if layout.mesh is None:                 # (over the empty AbstractMesh already)
        return layout.in_shardings, layout.out_shardings
    return tuple(map(abstract, layout.in_shardings)), tuple(map(abstract, layout.out_shardings))


def typed_avals(avals, shardings) -> tuple:
    """`avals` typed by the exported shardings over Explicit axes (`float32[8@x,2]`), as
    JAX's Exported.in_avals/out_avals are; over Auto axes as they are."""
    return tuple(a if s is None else a.update(sharding=typed_sharding(s, len(a.shape)))
                 for a, s in zip(avals, shardings))


def abstract(sharding: NamedSharding | None) -> NamedSharding | None:
    """`sharding` over its mesh's axes only (no devices), memory kind kept."""
    if sharding is None:
        return None
    return NamedSharding(sharding.mesh.abstract_mesh, sharding.spec,
                         memory_kind=sharding.memory_kind)


# ------------------------------------------------------------------ Exported.in_shardings_jax
def shardings_jax(named: tuple, mesh) -> tuple:
    """The exported shardings over `mesh` (a Mesh or AbstractMesh of the export's axes), for
    jit or device_put; None stays None (JAX's _get_named_sharding)."""
    return tuple(_over(s, mesh) for s in named)


def _over(sharding: NamedSharding | None, mesh) -> NamedSharding | None:
    if sharding is None or mesh is None:
        return sharding
    if not isinstance(mesh, (Mesh, AbstractMesh)):
        raise TypeError(f"in_shardings_jax/out_shardings_jax: mesh must be a jax.sharding.Mesh "
                        f"or AbstractMesh; got {mesh!r} of type {type(mesh).__name__}")
    new, old = mesh.abstract_mesh, sharding.mesh
    if (new.axis_sizes, new.axis_names, new.axis_types) != \
            (old.axis_sizes, old.axis_names, old.axis_types):
        raise ValueError(f"NamedSharding new mesh {mesh} does not match the mesh used for "
                         f"export {old}.")
    return sharding.update(mesh=mesh)


def vjp_shardings(primal, mesh) -> dict:
    """jit's in_shardings/out_shardings for the VJP of `primal`, exported over `mesh` (JAX's
    _get_vjp_fun): nothing where no sharding was given (a shard_map inside still partitions
    it over its mesh)."""
    named_in, named_out = primal._in_named_shardings, primal._out_named_shardings
    if mesh is None or not any(named_in + named_out):
        return {}
    return {"in_shardings": shardings_jax(named_in + named_out, mesh),
            "out_shardings": shardings_jax(named_in, mesh)}


# ------------------------------------------------------------------ calling
def check_devices(ctx, exported) -> None:
    """JAX's error for an Exported over N devices called in a program over another number
    (one exported for a single device may be called anywhere)."""
    here = nr_devices_of(ctx.module_ctx)
    if exported.nr_devices not in (1, here):
        raise ValueError(f"Function {exported.fun_name} was exported for {exported.nr_devices} "
                         f"devices and is called in a context with {here} devices, which is "
                         f"not allowed.")


def nr_devices_of(module_ctx) -> int:
    return 1 if module_ctx.mesh is None else module_ctx.mesh.size


def constrained(ctx, values, avals, shardings) -> list:
    """`values` constrained to the exported `shardings` (JAX's wrap_with_sharding: the
    caller's partitioner then lays them out as the export was)."""
    mesh = ctx.module_ctx.mesh
    if mesh is None or not any(shardings):
        return list(values)
    # an export for one device called over a larger mesh: its shardings (over a mesh of one
    # device) lay nothing out there, and JAX allows the call (check_devices); JAX writes
    # their specs against the caller's mesh by axis name, jxkernel leaves the layout to the
    # caller's partitioner (the values are the same)
    return [x if s is None or s.mesh.empty or s.mesh.size == 1 < mesh.size else ctx.op1(
                "sdy.sharding_constraint", [x],
                {"sharding": sdy_sharding(ctx.module_ctx.module, mesh, s, len(a.shape))},
                result_type=hlo.aval_type(a))
            for x, a, s in zip(values, avals, shardings)]
