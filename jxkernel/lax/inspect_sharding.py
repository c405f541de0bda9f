"""jax.debug.inspect_array_sharding: call back with the sharding of a value, as early as it is
known. Eagerly that is the Array's own sharding; inside a jit on one device it is known when
the program is lowered (replicated: a GSPMDSharding); inside a jit partitioned over a mesh
XLA chooses it, and calls back while it compiles, through jaxlib's `InspectSharding` custom
call (JAX's design, jax/_src/debugging.py), with the NamedSharding over the jit's mesh.

    >>> jax.debug.inspect_array_sharding(jnp.zeros(2), callback=print)
    SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)

A program compiled once calls back once: later calls run the executable (as JAX's).
"""
from __future__ import annotations

from ..core.ir import param_printers
from ..core.mesh import NamedSharding, PartitionSpec
from ..core.primitive import (
    Primitive,
    abstract_eval_rules,
    batching_rules,
    impl_rules,
    jvp_rules,
    lowering_rules,
    numpy_lowering_rules,
    numpy_rules,
    transpose_rules,
)
from ..tree_util import tree_map
from ..xla import numpy_sharded
from ..xla import stablehlo as hlo
from ..xla.compiler import INSPECT_SHARDING_TARGET
from ..xla.sharding import GSPMDSharding, inspect_sharding_key, replicated_hlo, spec_from_hlo
from .callbacks import _masked

inspect_sharding_p = Primitive("inspect_sharding", multiple_results=True)


def inspect_array_sharding(value, *, callback) -> None:
    """Call `callback` with the sharding of each array of the pytree `value`: at once outside
    jit, when a jit is lowered (one device) or compiled (partitioned over a mesh) inside one."""
    tree_map(lambda x: inspect_sharding_p.bind(x, callback=callback), value)


def _impl(value, *, callback):
    callback(value.sharding)
    return []


def _abstract_eval(aval, *, callback):
    return []         # (no results: dead-code elimination keeps it, as an effect)


def _jvp(primals, tangents, *, callback):
    return inspect_sharding_p.bind(*primals, callback=callback), []


def _batching(vals, dims, *, callback):
    """Under vmap, the sharding of the whole batched value (JAX's rule)."""
    inspect_sharding_p.bind(vals[0], callback=callback)
    return [], []


def _lowering(ctx, value, *, callback):
    """On one device: call back now, replicated. Over a mesh: a custom call XLA's partitioner
    calls back from with the HloSharding it chose, named over the jit's mesh (a shard_map
    body's values, manual there, as P())."""
    mesh = ctx.module_ctx.mesh
    if mesh is None:
        callback(GSPMDSharding(ctx.module_ctx.devices, replicated_hlo()))
        return []
    ndim = len(ctx.avals_in[0].shape)

    def chosen(hlo_sharding):
        spec = PartitionSpec() if hlo_sharding.is_manual() else \
            spec_from_hlo(hlo_sharding, mesh, ndim)
        callback(NamedSharding(mesh, spec))
    ctx.module_ctx.add_keepalive(chosen)        # (XLA holds only its address, until compiled)
    key = "".join(f"\\{b:02X}" for b in inspect_sharding_key(chosen))
    ctx.op("stablehlo.custom_call", [value],
           {"call_target_name": f'"{INSPECT_SHARDING_TARGET}"', "has_side_effect": "true",
            "backend_config": f'"{key}"', "api_version": hlo.i32_attr(1)},
           result_types=[hlo.aval_type(ctx.avals_in[0])])
    return []


def _numpy_lowering(params, devices) -> None:
    """The NumPy backend's program on one device: as XLA's on one device, replicated, told
    when it is lowered (its run does nothing: numpy_rules)."""
    params["callback"](GSPMDSharding(devices, replicated_hlo()))


def _numpy_mesh_lowering(params, mesh, layout) -> None:
    """The NumPy backend's program over a mesh of several devices: the NamedSharding over the
    jit's mesh of the layout XLA's partitioner would choose (numpy_sharded's guess from the
    arguments' shardings: an elementwise value keeps its operand's, anything unknown is
    replicated), told when the program is made, as XLA tells it while compiling."""
    params["callback"](NamedSharding(mesh, PartitionSpec() if layout is None else
                                     numpy_sharded.spec_of(layout)))


abstract_eval_rules[inspect_sharding_p] = _abstract_eval
impl_rules[inspect_sharding_p] = _impl
jvp_rules[inspect_sharding_p] = _jvp
transpose_rules[inspect_sharding_p] = lambda cts, *args, **params: [None] * len(args)
batching_rules[inspect_sharding_p] = _batching
lowering_rules[inspect_sharding_p] = _lowering
numpy_lowering_rules[inspect_sharding_p] = _numpy_lowering
numpy_rules[inspect_sharding_p] = lambda value, *, callback: []
numpy_sharded.mesh_lowering_rules[inspect_sharding_p] = _numpy_mesh_lowering
param_printers[inspect_sharding_p] = lambda p: [("callback", _masked(p["callback"]))]
