"""The asynchronous collectives' start functions, as JAX keeps them in jax._src.lax.parallel
(`psum_start`, `all_gather_start`, `psum_scatter_start`, `all_to_all_start`, `ppermute_start`,
`pbroadcast_start`): each takes its collective's arguments and returns a `Future`, whose
`done()` gives what the collective gives.

    >>> f = jax.vmap(lambda x: psum_start(x, "i").done(), axis_name="i")
    >>> f(jnp.arange(3.0))
    Array([3., 3., 3.], dtype=float32)

Staged into a jaxpr (under jit, in a shard_map body), a start is JAX's pair of equations: the
collective's `*_start` (`psum_invariant_start`, `all_gather_start`, `reduce_scatter_start`,
`all_to_all_start`, `ppermute_start`, ...: the collective's own params) gives a value of type
`AbstractFuture{f32[4]}`, and `done()` stages its `*_done` (`psum_done`, ...), which gives the
collective's result; they lower to a `stablehlo.async_start` whose region is the collective's
own lowering, and a `stablehlo.async_done`, so the work staged in between is free to overlap
it (XLA's scheduler decides). Elsewhere (eagerly, under vmap, jvp or grad, whose traces JAX's
start primitives have no rules for) and where the collective is more than one equation
(`tiled=False` scatters reshape after it: JAX's lowering refuses those), the synchronous
collective is issued at the start and `done()` hands back its value.
"""
from __future__ import annotations

import functools

from ...core.avals import AbstractFuture, get_aval
from ...core.ir import Literal, param_printers
from ...core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules,
                               lowering_rules, own_vma_rules, sharding_typing_rules)
from ...core.sharding_types import abstract_eval
from ...core.staging import JaxprTrace
from ...core.trace import Tracer, current_trace
from ...tree_util import tree_flatten, tree_map
from ...xla.lowering import LoweringRuleContext
from .all_reduce import psum, psum_invariant_p, psum_p, unreduced_psum_p
from .alltoall import all_to_all, all_to_all_p
from .gather_scatter import (all_gather, all_gather_p, all_gather_reduced_p, psum_scatter,
                             reduce_scatter_p, unreduced_reduce_scatter_p)
from .permute import pbroadcast, ppermute, ppermute_p


class Future:
    """A started collective: `done()` gives its result (any pytree of arrays)."""

    def __init__(self, value, done_prim=None):
        self._value, self._done_prim = value, done_prim

    def done(self):
        if self._done_prim is None:        # issued synchronously at the start
            return self._value
        return self._done_prim.bind(self._value)

    def __repr__(self):
        if self._done_prim is not None:
            return f"Future(type={get_aval(self._value).str_short()})"
        return f"Future(type={tree_map(lambda v: get_aval(v).str_short(), self._value)})"


# ------------------------------------------------------------------ start and done primitives
def _start_abstract_eval(sync):
    def rule(x, **params):
        out = abstract_eval(sync, [x], params)      # the collective's type, sharding included
        return AbstractFuture(out[0])
    return rule


def _start_lowering(sync):
    """JAX's _start_lowering: a `stablehlo.async_start` whose region is the collective's own
    lowering, over the region's argument."""
    def rule(ctx, x, **params):
        inner = ctx.avals_out[0].inner_aval
        block = ctx.region_block([x.type])
        inner_ctx = LoweringRuleContext(ctx.module_ctx, block, ctx.avals_in, [inner],
                                        ctx.source_info, ctx.name)
        outs = lowering_rules[sync](inner_ctx, block.args[0], **params)
        block.ret(list(outs) if isinstance(outs, (list, tuple)) else [outs])
        return ctx.op1("stablehlo.async_start", [x], regions=[block])
    return rule


def _done_abstract_eval(x):
    if not isinstance(x, AbstractFuture):
        raise TypeError(f"async done op got {x}, want core.AbstractFuture")     # JAX's words
    return x.inner_aval


def _as_is(in_avals, params, out_avals):
    return out_avals


def _done_lowering(ctx, x):
    return ctx.op1("stablehlo.async_done", [x])


# the synchronous collective's primitive -> its start primitive (JAX's names)
start_prims: dict = {}
for _sync in (psum_p, psum_invariant_p, unreduced_psum_p, all_gather_p, all_gather_reduced_p,
              reduce_scatter_p, unreduced_reduce_scatter_p, all_to_all_p, ppermute_p):
    _p = start_prims[_sync] = Primitive(_sync.name + "_start")
    abstract_eval_rules[_p] = _start_abstract_eval(_sync)
    lowering_rules[_p] = _start_lowering(_sync)
    sharding_typing_rules[_p] = _as_is
    own_vma_rules.add(_p)
    if _sync in param_printers:     # (all_to_all's params as JAX prints them)
        param_printers[_p] = param_printers[_sync]


def _start_batching(sync):
    """Batched (the NumPy backend's shard_map batches its body over the devices), a start is
    its collective, issued at once: its `*_done` hands that value on."""
    def rule(axis_data, vals, dims, **params):
        outs, out_dims = axis_batching_rules[sync](axis_data, vals, dims, **params)
        # (a start gives one value: psum's rule gives a list of one)
        return (outs[0], out_dims[0]) if sync.multiple_results else (outs, out_dims)
    return rule


for _sync, _p in start_prims.items():
    axis_batching_rules[_p] = _start_batching(_sync)


def _done_batching(axis_data, vals, dims):
    return vals[0], dims[0]


def _done_prim(name):
    p = Primitive(name)
    abstract_eval_rules[p] = _done_abstract_eval
    lowering_rules[p] = _done_lowering
    sharding_typing_rules[p] = _as_is
    own_vma_rules.add(p)
    axis_batching_rules[p] = _done_batching
    return p


psum_done_p = _done_prim("psum_done")
all_gather_done_p = _done_prim("all_gather_done")
reduce_scatter_done_p = _done_prim("reduce_scatter_done")
all_to_all_done_p = _done_prim("all_to_all_done")
ppermute_done_p = _done_prim("ppermute_done")
pbroadcast_done_p = _done_prim("pbroadcast_done")


def _staged_start(trace, collective, done_prim, args, kwargs):
    """Stage `collective(*args, **kwargs)` and make its collective equation a start: the
    equation it ends with, when that gives the one result, is taken back and its start
    primitive bound on the same operands instead; else the synchronous result's Future."""
    mark = len(trace.eqns)
    out = collective(*args, **kwargs)
    leaves, _ = tree_flatten(out)
    if len(leaves) != 1 or len(trace.eqns) <= mark:
        return Future(out)
    leaf, eqn = leaves[0], trace.eqns[-1]
    start = start_prims.get(eqn.primitive)
    if start is None or type(leaf) is not trace.tracer_type or leaf._trace is not trace or \
            len(eqn.outvars) != 1 or eqn.outvars[0] is not leaf._var or \
            not isinstance(out, Tracer):
        return Future(out)
    trace.eqns.pop()
    operand, = eqn.invars
    operand = operand.val if type(operand) is Literal else \
        trace.tracer_type(trace, operand.aval, operand)
    return Future(start.bind(operand, **eqn.params), done_prim)


def _start(collective, done_prim):
    @functools.wraps(collective)
    def start(*args, **kwargs):
        trace = current_trace()
        if type(trace) is JaxprTrace:
            return _staged_start(trace, collective, done_prim, args, kwargs)
        return Future(collective(*args, **kwargs))
    start.__name__ = start.__qualname__ = collective.__name__ + "_start"
    start.__doc__ = (f"Start `{collective.__name__}` (same arguments); its Future's `done()` "
                     f"gives the result.")
    return start


psum_start = _start(psum, psum_done_p)
all_gather_start = _start(all_gather, all_gather_done_p)
psum_scatter_start = _start(psum_scatter, reduce_scatter_done_p)
all_to_all_start = _start(all_to_all, all_to_all_done_p)
ppermute_start = _start(ppermute, ppermute_done_p)
pbroadcast_start = _start(pbroadcast, pbroadcast_done_p)
