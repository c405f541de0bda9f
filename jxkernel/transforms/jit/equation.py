"""A jitted call inside another transformation (grad, vmap, an enclosing jit's trace, a loop
body): the function is traced once per signature and place, and the call becomes one `jit`
equation (primitive.py's jit_p) that the surrounding trace handles as any primitive's.

    >>> jxkernel.make_jaxpr(lambda x: jxkernel.jit(jnp.sin)(x) * 2)(1.0).eqns[0].primitive
    jit

Split from function.py, whose PjitFunction calls it as its `_bind` method; the eager call's
caches and compile are function.py's, the primitive's rules primitive.py's.
"""
from __future__ import annotations

from ...core import vma
from ...core.config import config
from ...core.device_assignment import GIVEN_AS_CONSTRAINTS
from ...core.trace import Tracer
from ...tree_util import tree_unflatten
from ...xla import client as _client
from . import high as jit_high, refs as jit_refs
from .cache import NOWHERE, compiled_trace
from .high import staged_high
from .pinned import pin_params
from .primitive import eqn_params, jit_p, traced_inside, traced_under


def bind_equation(jitted, leaves, treedef, statics, avals, dyn_args, dyn_kwargs):
    """`jitted` called inside another transformation: one `jit` equation the current trace
    handles (its trace kept per signature and place in `jitted._traces`), bound here; its
    method `_bind`, which high.py calls for a jit closing over hijax values."""
    # Where the call is belongs to its trace, as in JAX: the named axes around it (axis_size
    # is read at trace time); in a check_vma shard_map body, the manual axes it types (pvary).
    signature = (treedef, avals, statics, config._trace_state)
    key = signature + vma.trace_place()
    found = jitted._traces.get(key)
    if found is None:
        given = jitted._pinned is None and not (jitted._in_shardings is jitted._out_shardings
                                                is None)
        if given:
            from .sharded import constrained_trace   # loads with the first mesh
            closed, out_tree = constrained_trace(jitted, treedef, statics, avals, dyn_args,
                                                  dyn_kwargs)   # shardings kept as constraints
        else:
            closed, out_tree = key[4:] == NOWHERE and \
                compiled_trace(jitted._cache, signature) or \
                traced_inside(jitted, treedef, statics, avals, dyn_args, dyn_kwargs)[:2]
        jaxpr, consts = jit_high.operands_of(closed)
        if given:               # (its constraints are "jit inside jit" in JAX's device error)
            GIVEN_AS_CONSTRAINTS.add(jaxpr.jaxpr)
        found = (jaxpr, consts, out_tree, closed)
        traced_under(jitted, jaxpr, closed, lambda: jitted._miss(      # (why: for the log)
            treedef, statics, avals, dyn_args, dyn_kwargs, _client.default_device()),
            leaves=leaves)
        if not any(isinstance(c, Tracer) and c._trace.alive for c in consts):  # (die with it)
            jitted._traces[key] = found
    jaxpr, consts, out_tree, closed = staged_high(*found)   # (hijax: high.py)
    refs = jit_refs.ref_positions(leaves)
    arrays = jit_refs.without_refs(leaves, refs)
    if refs:          # (what a custom_vjp's bwd writes for a stand-in residual: refs.py)
        jit_refs.stand_for(closed, leaves)
    if refs or jit_refs.uses_refs(closed):       # the Refs' values here, written back after
        consts = jit_refs.values_for(consts, leaves)
    donated = (False,) * len(consts) + jit_refs.without_refs(
        jitted._donated_leaves(dyn_args, dyn_kwargs) or (False,) * len(leaves), refs)
    outs = jit_p.bind(*consts, *arrays, **eqn_params(
        jaxpr, len(consts) + len(arrays), donated, jitted._name, jitted._keep_unused,
        jitted._inline, pin=pin_params(jitted, dyn_args, refs, len(consts), out_tree, jaxpr)))
    return tree_unflatten(out_tree, jit_refs.write_back(closed, outs, leaves))
