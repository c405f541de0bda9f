"""checkpoint (remat): recompute a function's intermediates in the backward pass instead of
storing them.

    >>> grad(checkpoint(lambda x: jnp.sin(jnp.sin(x))))(1.0)    # same value, fewer residuals

The function becomes one `checkpoint` equation. When it is linearized, only its
inputs are kept as residuals; the staged (unknown) part re-runs the forward
computation from them, so transposition recomputes what it needs.
"""
from __future__ import annotations

import functools

from ..core.avals import get_aval
from ..core.interpret import eval_jaxpr
from ..core.ir import param_printers
from ..core.primitive import (Primitive, abstract_eval_rules, impl_rules, jvp_rules,
                              lowering_rules, transpose_rules)
from ..core.trace import _ctx, eval_trace, set_current_trace
from ..lax._ad_util import Zero, instantiate, is_undefined
from ..tree_util import tree_flatten, tree_unflatten
from .ad import jvp_jaxpr, transpose_jaxpr
from .batching import axis_batching_rules, batch_jaxpr
from .partial_eval import partial_eval_jaxpr, partial_eval_rules
from .staging import convert_constvars_to_invars, trace_to_jaxpr

remat_p = Primitive("checkpoint", multiple_results=True)


def checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=()):
    """`fun` whose intermediates are recomputed, not stored, when differentiated."""
    static_argnums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    def remat_fun(*args):
        if _ctx.trace is eval_trace:
            return fun(*args)
        static = {i: args[i] for i in static_argnums}
        dyn = [a for i, a in enumerate(args) if i not in static]
        leaves, in_tree = tree_flatten(tuple(dyn))
        out_trees = []

        def flat(*xs):
            it = iter(tree_unflatten(in_tree, xs))
            full = [static[i] if i in static else next(it) for i in range(len(args))]
            out_leaves, out_tree = tree_flatten(fun(*full))
            out_trees.append(out_tree)
            return out_leaves
        closed = trace_to_jaxpr(flat, [get_aval(x) for x in leaves])
        jaxpr, consts = convert_constvars_to_invars(closed)
        outs = remat_p.bind(*consts, *leaves, jaxpr=jaxpr, prevent_cse=prevent_cse,
                            differentiated=False, policy=policy)
        return tree_unflatten(out_trees[0], outs)
    return remat_fun


remat = checkpoint


def _remat_lowering(ctx, *args, jaxpr, prevent_cse, differentiated, policy):
    if prevent_cse and differentiated and args:
        # keep XLA from merging the recomputation with the original forward pass
        args = ctx.op("stablehlo.optimization_barrier", list(args),
                      result_types=[a.type for a in args])
    return ctx.lower_jaxpr(jaxpr, list(args))


def _remat_jvp(primals, tangents, *, jaxpr, prevent_cse, differentiated, policy):
    nonzeros = [type(t) is not Zero for t in tangents]
    new_jaxpr, out_nonzeros = jvp_jaxpr(jaxpr, nonzeros)
    nz = [t for t in tangents if type(t) is not Zero]
    outs = remat_p.bind(*primals, *nz, jaxpr=new_jaxpr, prevent_cse=prevent_cse,
                        differentiated=True, policy=policy)
    n = len(jaxpr.out_avals)
    rest = iter(outs[n:])
    return outs[:n], [next(rest) if z else Zero(a) for z, a in zip(out_nonzeros, jaxpr.out_avals)]


def _remat_partial_eval(trace, args, params):
    """Known outputs are computed now; the unknown part is staged as a checkpoint equation that
    takes the known *inputs* (not intermediate residuals) and recomputes from them."""
    unknowns = [trace.is_unknown(x) for x in args]
    jaxpr = params["jaxpr"]
    known_jaxpr, unknown_jaxpr, out_unknowns, n_res = partial_eval_jaxpr(jaxpr, unknowns)
    known_args = [x for x, u in zip(args, unknowns) if not u]
    n_known_out = len(known_jaxpr.out_avals) - n_res
    with set_current_trace(trace.parent):
        known_outs = remat_p.bind(*known_args, **dict(params, jaxpr=known_jaxpr))[:n_known_out]
    unknown_avals = [a for a, u in zip(jaxpr.in_avals, unknowns) if u]

    def recompute(*xs):
        known, unknown = xs[:len(known_args)], xs[len(known_args):]
        residuals = eval_jaxpr(known_jaxpr.jaxpr, known_jaxpr.consts, *known)[n_known_out:]
        return eval_jaxpr(unknown_jaxpr.jaxpr, unknown_jaxpr.consts, *residuals, *unknown)
    recompute_jaxpr = trace_to_jaxpr(recompute, [get_aval(x) for x in known_args] + unknown_avals)
    atoms = [trace.to_atom(x) for x in known_args] + \
        [trace.to_atom(x) for x, u in zip(args, unknowns) if u]
    unknown_outs = iter(trace.add_eqn(atoms, remat_p, dict(params, jaxpr=recompute_jaxpr,
                                                           differentiated=True),
                                      recompute_jaxpr.out_avals))
    known_iter = iter(known_outs)
    return [next(unknown_outs) if u else next(known_iter) for u in out_unknowns]


def _remat_transpose(cts, *args, jaxpr, prevent_cse, differentiated, policy):
    linear = [is_undefined(a) for a in args]
    nonlinear = [a for a in args if not is_undefined(a)]
    transposed = transpose_jaxpr(jaxpr, linear)
    outs = iter(remat_p.bind(*nonlinear, *[instantiate(c) for c in cts], jaxpr=transposed,
                             prevent_cse=prevent_cse, differentiated=True, policy=policy))
    return [next(outs) if lin else None for lin in linear]


def _remat_batching(axis_data, vals, dims, *, jaxpr, **params):
    batched, out_dims = batch_jaxpr(jaxpr, axis_data, dims)
    return remat_p.bind(*vals, jaxpr=batched, **params), out_dims


abstract_eval_rules[remat_p] = lambda *avals, jaxpr, **_: jaxpr.out_avals
impl_rules[remat_p] = lambda *args, jaxpr, **_: eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args)
lowering_rules[remat_p] = _remat_lowering
jvp_rules[remat_p] = _remat_jvp
transpose_rules[remat_p] = _remat_transpose
partial_eval_rules[remat_p] = _remat_partial_eval
axis_batching_rules[remat_p] = _remat_batching
param_printers[remat_p] = lambda p: [("jaxpr", p["jaxpr"]), ("prevent_cse", p["prevent_cse"]),
                                     ("differentiated", p["differentiated"]),
                                     ("policy", p["policy"])]
