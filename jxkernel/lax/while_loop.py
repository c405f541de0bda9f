"""while_loop: repeat a traced body while a traced predicate holds.

    >>> lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.), (0, 1.))
    (Array(3, dtype=int32, weak_type=True), Array(8., dtype=float32, weak_type=True))

cond and body are traced once into jaxprs (constants hoisted as explicit
operands) and lowered to `stablehlo.while`. Forward-differentiable; under
linearization the known carries run in a loop of their own and the unknown ones
in a loop that recomputes them (a loop keeps no per-iteration residuals), so
reverse mode stops at transposition with JAX's error.
"""
from __future__ import annotations

import numpy as np

from ..core.traceback_util import api_boundary
from ..core import dtypes, sharding_types
from ..core.dce import dce_jaxpr
from ..core.ir import ClosedJaxpr, check_effects, control_flow_allowed_effects
from ..core.avals import ShapedArray
from ..core.errors import ConcretizationTypeError
from ..core.interpret import eval_jaxpr
from ..core.numpy_eval import eval_closed_jaxpr_numpy
from ..core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules, jvp_rules,
                              lowering_rules, numpy_rules, partial_eval_rules,
                              sharding_typing_rules, transpose_rules)
from ..core.trace import set_current_trace
from ..transforms.ad import jvp_jaxpr
from ..transforms.batching import batch_jaxpr
from ..core.partial_eval import partial_eval_jaxpr
from ..core.staging import trace_to_jaxpr
from ..tree_util import tree_flatten, tree_unflatten
from ..xla.lowering import TOKEN, LoweringRuleContext, effect_token, has_ordered_effect
from . import _lowering
from ..transforms import batch_util as bu
from . import _cf_python as python
from . import _cf_refs as cr
from . import _cf_bodies as cf
from ..transforms.ad_util import Zero, instantiate, zeros
from .io_effects import check_batched_while
from .reductions import reduce_or_p
from .tokens import eager_tokens


while_p = Primitive("while", multiple_results=True)


@api_boundary
def while_loop(cond_fun, body_fun, init_val):
    """Repeat `val = body_fun(val)` while `cond_fun(val)`; returns the final `val`."""
    if not (callable(body_fun) and callable(cond_fun)):
        raise TypeError("lax.while_loop: body_fun and cond_fun arguments should be callable.")
    if python.disabled():
        try:
            return python.while_loop(cond_fun, body_fun, init_val)
        except ConcretizationTypeError:
            pass                        # a traced condition (under vmap): the loop is traced
    leaves, in_tree = tree_flatten(init_val)
    args_tree = tree_flatten((init_val,))[1]      # the functions take the carry as one argument
    avals = cf.avals_of(leaves)
    # cond traced, then body, at the carry's types; a weak carry the body promotes: both
    # again at the promoted types (JAX 0.10.2's order and count, which a print in cond shows)
    returned = ()
    for attempt in range(3):             # retrace while weak carries settle (JAX's rule)
        cond, cond_tree = cf.trace_fun(cond_fun, args_tree, avals, "while_loop cond",
                                       promoted=returned)
        try:
            body, body_tree = cf.trace_fun(body_fun, args_tree, avals, "while_loop body",
                                           promoted=returned)
        except cf.CapturedHighValues as e:      # hijax values captured: their state carried
            return _while_threading(e.values, cond_fun, body_fun, init_val)
        _check_cond_output(cond, cond_tree)
        settled = cf.settle_carry(avals, body.out_avals) if body_tree == in_tree else avals
        if settled == avals or attempt == 2:
            break
        avals, returned = settled, tuple(body.out_avals)
    cf.check_carry(body_fun, in_tree, avals, body_tree, body.out_avals,
                   "while_loop body function")
    check_effects([cond.jaxpr, body.jaxpr], control_flow_allowed_effects, "`while`")
    given, leaves = leaves, [cf.cast_like(x, a) for x, a in zip(leaves, avals)]
    refs = cr.written_refs([body])
    if refs:                            # Refs written in the body: carried, written back after
        # (cond_fun reads a Ref's value from before the loop, as in JAX 0.10.2: it is a const)
        # (cond_fun and body_fun are not run again: their traces are, cr.discharged)
        test, step = cr.discharged(cond, [], cond_tree), cr.discharged(body, refs, body_tree)
        out, values = while_loop(
            lambda carry: test(tree_flatten(carry[0])[0], [])[0],
            lambda carry: step(tree_flatten(carry[0])[0], carry[1]),
            (init_val, cr.ref_values(refs)))
        cr.write_refs(refs, values)
        return out
    cond_jaxpr, cond_consts = cf.hoist(cond)
    body_jaxpr, body_consts = cf.hoist(body)
    outs = eager_tokens(while_p.bind(*cond_consts, *body_consts, *leaves, cond_jaxpr=cond_jaxpr,
                                     body_jaxpr=body_jaxpr, cond_nconsts=len(cond_consts),
                                     body_nconsts=len(body_consts)))
    same = cf.forwarded_carries(body.jaxpr, 0, len(leaves), unused_by=cond.jaxpr)
    return tree_unflatten(in_tree, [g if s else o for g, o, s in zip(given, outs, same)])


def _check_cond_output(cond, cond_tree):
    """cond_fun's result must be one boolean scalar (JAX's words), checked as JAX checks it:
    after cond and body are traced, before the carry's types are compared."""
    if cond_tree.num_nodes != 1 or cond_tree.num_leaves != 1:
        raise TypeError(f"cond_fun must return a boolean scalar, but got pytree {cond_tree}.")
    out = cond.out_avals
    if len(out) != 1 or out[0].shape or out[0].dtype != dtypes.bool_:
        raise TypeError(f"cond_fun must return a boolean scalar, but got output type(s) "
                        f"[{', '.join(repr(a) for a in out)}].")


def _while_threading(values, cond_fun, body_fun, init_val):
    """while_loop whose body captured the concrete mutable high values `values`: their low
    state is carried beside the loop's (lax/_cf_bodies.py's holding_high), and they hold the
    final one after, as JAX threads them (scan's _scan_threading)."""
    def body(carry):
        return cf.holding_high(values, carry[1], lambda: body_fun(carry[0]))
    out, state = while_loop(lambda carry: cond_fun(carry[0]), body,
                            (init_val, cf.high_state(values)))
    cf.set_high_state(values, state)
    return out


def _while_abstract_eval(*avals, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    return [a for a in body_jaxpr.out_avals]


def _while_lowering(ctx, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    cond_consts = list(args[:nc])
    body_consts = list(args[nc:nc + nb])
    carry = list(args[nc + nb:])
    types = [v.type for v in carry]
    # a predicate per element (vmap's, as JAX's): loop while one holds, and the body changes
    # only the elements whose predicate holds (the predicate again in the body, named
    # `while/body_pred`, as JAX's lowering names it)
    pred_jaxpr = cond_jaxpr if cond_jaxpr.out_avals[0].shape else None
    # ordered effects in the loop stay in order with the block's: its token is carried too
    threaded = has_ordered_effect(body_jaxpr) or has_ordered_effect(cond_jaxpr)
    if threaded:
        carry, types = carry + [effect_token(ctx)], types + [TOKEN]
    n = len(types) - threaded
    # named `while/cond/lt` and `while/body/sin`, as JAX's while lowering names them
    cond_block = ctx.new_block(types)       # consts are captured from the enclosing scope
    pred = ctx.lower_jaxpr(cond_jaxpr, cond_consts + cond_block.args[:n], block=cond_block,
                           scope="while/cond")
    if pred_jaxpr is not None:              # whether one holds: named after the while
        pred = [_any(ctx.with_block(cond_block), pred[0], pred_jaxpr.out_avals[0])]
    cond_block.ret(pred)
    body_block = ctx.new_block(types)
    body_block.effect_token = body_block.args[-1] if threaded else None
    outs = ctx.lower_jaxpr(body_jaxpr, body_consts + body_block.args[:n], block=body_block,
                           scope="while/body")
    if pred_jaxpr is not None:
        outs = _select_changed(ctx.with_block(body_block), pred_jaxpr, cond_consts,
                               body_block.args[:n], outs, body_jaxpr.out_avals)
    body_block.ret(outs + [body_block.effect_token] * threaded)
    outs = ctx.op("stablehlo.while", carry, regions=[cond_block, body_block],
                  result_types=types)
    if threaded:
        ctx.block.effect_token = outs[-1]
    return outs[:n]


def _while_batching(axis_data, vals, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts,
                    body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    size = axis_data.size
    cdims, bdims, carry_dims = dims[:nc], dims[nc:nc + nb], list(dims[nc + nb:])
    carry_batched = [d is not bu.not_mapped for d in carry_dims]
    for _ in range(len(carry_batched) + 1):          # fixed point: what the body batches
        _, out_dims = batch_jaxpr(body_jaxpr, axis_data,
                                  list(bdims) + [0 if b else None for b in carry_batched])
        new = [b or d is not bu.not_mapped for b, d in zip(carry_batched, out_dims)]
        if new == carry_batched:
            break
        carry_batched = new
    _, pred_dims = batch_jaxpr(cond_jaxpr, axis_data,
                               list(cdims) + [0 if b else None for b in carry_batched])
    # a predicate batched here, or one already batched by an inner vmap (bool[k], k a prefix
    # of every carry's shape), keeps its batch dimensions: every carry is batched at 0 in
    # front of them, as JAX 0.10.2's batching rule does (its while takes a predicate of any
    # shape that prefixes the carries', looping while one holds; lowering selects per element)
    pred_batched = pred_dims[0] is not bu.not_mapped or bool(cond_jaxpr.out_avals[0].shape)
    if pred_batched:                      # examples finish at different times: batch everything
        check_batched_while(cond_jaxpr, body_jaxpr)
        carry_batched = [True] * len(carry_batched)
    vals = list(vals)
    carry = [bu.bdim_at_front(v, d, size, axis_data.explicit_mesh_axis) if b else v
             for v, d, b in zip(vals[nc + nb:], carry_dims, carry_batched)]
    carry_in_dims = [0 if b else None for b in carry_batched]
    body_b, _ = batch_jaxpr(body_jaxpr, axis_data, list(bdims) + carry_in_dims,
                            force_out_batched=carry_batched)
    cond_b, _ = batch_jaxpr(cond_jaxpr, axis_data, list(cdims) + carry_in_dims,
                            force_out_batched=[pred_batched])
    outs = while_p.bind(*vals[:nc + nb], *carry, cond_jaxpr=cond_b, body_jaxpr=body_b,
                        cond_nconsts=nc, body_nconsts=nb)
    return outs, carry_in_dims


def _any(ctx, pred, aval):
    """Whether one element of `pred` (of type `aval`) holds: reduce_or's lowering, located
    at `ctx`'s equation (the while)."""
    one = LoweringRuleContext(ctx.module_ctx, ctx.block, [aval], [ShapedArray((), np.bool_)],
                              ctx.source_info, ctx.name)
    return lowering_rules[reduce_or_p](one, pred, axes=tuple(range(len(aval.shape))))


def _select_changed(ctx, pred_jaxpr, cond_consts, carry, new, avals) -> list:
    """In the body's block: each carry's new value where its element's predicate (of
    `pred_jaxpr`, a prefix of each carry's shape) holds, its old one elsewhere (JAX's
    `_pred_bcast_select_hlo`); the selects are named after the while, as JAX's."""
    pred, = ctx.lower_jaxpr(pred_jaxpr, cond_consts + list(carry), scope="while/body_pred")
    k = len(pred_jaxpr.out_avals[0].shape)
    out = []
    for old, upd, aval in zip(carry, new, avals):
        which = pred if len(aval.shape) == k else \
            _lowering.broadcast_in_dim(ctx, pred, aval.shape, np.bool_, tuple(range(k)))
        out.append(_lowering.select(ctx, which, upd, old, aval))
    return out


def _while_jvp(primals, tangents, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    bconst_nz = [type(t) is not Zero for t in tangents[nc:nc + nb]]
    carry_nz = [type(t) is not Zero for t in tangents[nc + nb:]]
    for _ in range(len(carry_nz) + 1):
        _, out_nz = jvp_jaxpr(body_jaxpr, bconst_nz + carry_nz)
        new = [a or b for a, b in zip(carry_nz, out_nz)]
        if new == carry_nz:
            break
        carry_nz = new
    body_jvp, _ = jvp_jaxpr(body_jaxpr, bconst_nz + carry_nz, instantiate=carry_nz)
    n_bconst_t = sum(bconst_nz)
    n_carry = len(carry_nz)
    n_carry_t = sum(carry_nz)
    # body_jvp takes [bconsts, carry, bconst tangents, carry tangents]; the while wants
    # [bconsts, bconst tangents] as consts and [carry, carry tangents] as carry.
    body_new = cf.permute_inputs(body_jvp, [nb, n_carry, n_bconst_t, n_carry_t], [0, 2, 1, 3])
    cond_new = cf.with_extra_leading_inputs(cond_jaxpr, [a.strip_weak_type() for a, nz in zip(
        body_jaxpr.in_avals[nb:], carry_nz) if nz], nc + n_carry)
    bconst_t = [instantiate(t) for t, nz in zip(tangents[nc:nc + nb], bconst_nz) if nz]
    carry_t = [instantiate(t) for t, nz in zip(tangents[nc + nb:], carry_nz) if nz]
    outs = while_p.bind(*primals[:nc], *primals[nc:nc + nb], *bconst_t, *primals[nc + nb:],
                        *carry_t, cond_jaxpr=cond_new, body_jaxpr=body_new, cond_nconsts=nc,
                        body_nconsts=nb + n_bconst_t)
    rest = iter(outs[n_carry:])
    return outs[:n_carry], [next(rest) if nz else Zero(a.strip_weak_type())
                            for nz, a in zip(carry_nz, body_jaxpr.out_avals)]


def _while_partial_eval(trace, args, params):
    """Known carries are computed by a while of their own; the unknown ones by a while that
    recomputes the known part alongside (a loop has no per-iteration residuals to keep)."""
    nc, nb = params["cond_nconsts"], params["body_nconsts"]
    unknowns = [trace.is_unknown(x) for x in args]
    carry_uk = unknowns[nc + nb:]
    if not any(carry_uk) and not any(unknowns[nc:nc + nb]):
        return trace.stage_whole(while_p, args, params)
    body = params["body_jaxpr"]
    for _ in range(len(carry_uk) + 1):
        _, _, out_uk, _ = partial_eval_jaxpr(body, unknowns[nc:nc + nb] + carry_uk)
        new = [a or b for a, b in zip(carry_uk, out_uk)]
        if new == carry_uk:
            break
        carry_uk = new
    if any(unknowns[:nc]) or any(trace.is_unknown(x) for x, uk in zip(args[nc + nb:], carry_uk)
                                 if not uk):
        return trace.stage_whole(while_p, args, params)
    known = _known_while(params, [not u for u in unknowns[nc:nc + nb]], [not u for u in carry_uk])
    known_args = [x for x, u in zip(args[:nc], unknowns[:nc])] + \
        [x for x, u in zip(args[nc:nc + nb], unknowns[nc:nc + nb]) if not u] + \
        [x for x, u in zip(args[nc + nb:], carry_uk) if not u]
    with set_current_trace(trace.parent):
        known_outs = while_p.bind(*known_args, **known)
    whole = trace.stage_whole(while_p, list(args), params)
    known_iter = iter(known_outs)
    return [w if uk else next(known_iter) for w, uk in zip(whole, carry_uk)]


def _known_while(params, bconst_keep, carry_keep):
    """Params of the while that computes only the kept (known) carries."""
    nb = params["body_nconsts"]
    body = params["body_jaxpr"]
    cond = params["cond_jaxpr"]
    nc = params["cond_nconsts"]
    n_carry = len(carry_keep)

    def body_f(*args):
        consts = iter(args[:sum(bconst_keep)])
        carry = iter(args[sum(bconst_keep):])
        full_consts = [next(consts) if k else zeros(a)
                       for a, k in zip(body.in_avals[:nb], bconst_keep)]
        full_carry = [next(carry) if k else zeros(a)
                      for a, k in zip(body.in_avals[nb:], carry_keep)]
        outs = eval_jaxpr(body.jaxpr, body.consts, *full_consts, *full_carry)
        return [o for o, k in zip(outs, carry_keep) if k]

    def cond_f(*args):
        consts, carry = args[:nc], iter(args[nc:])
        full = [next(carry) if k else zeros(a) for a, k in zip(cond.in_avals[nc:], carry_keep)]
        return eval_jaxpr(cond.jaxpr, cond.consts, *consts, *full)
    body_avals = [a for a, k in zip(body.in_avals[:nb], bconst_keep) if k] + \
        [a for a, k in zip(body.in_avals[nb:], carry_keep) if k]
    cond_avals = list(cond.in_avals[:nc]) + [a for a, k in zip(cond.in_avals[nc:], carry_keep) if k]
    del n_carry
    # the body without what fed only the unknown carries (a custom_vjp's custom_lin there,
    # linear in the tangents, is not run: JAX's known loop takes the known part of the body)
    known_body = trace_to_jaxpr(body_f, body_avals)
    pruned = dce_jaxpr(known_body.jaxpr)
    if pruned is not known_body.jaxpr:
        known_body = ClosedJaxpr(pruned, known_body.consts)
    return dict(cond_jaxpr=trace_to_jaxpr(cond_f, cond_avals),
                body_jaxpr=known_body, cond_nconsts=nc, body_nconsts=sum(bconst_keep))


def _while_transpose(cts, *args, **params):
    raise ValueError("Reverse-mode differentiation does not work for lax.while_loop or "
                     "lax.fori_loop with dynamic start/stop values. Try using lax.scan, or using "
                     "fori_loop with static start/stop.")


abstract_eval_rules[while_p] = _while_abstract_eval
lowering_rules[while_p] = _while_lowering


def _while_numpy(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cond_consts, body_consts = args[:cond_nconsts], args[cond_nconsts:cond_nconsts + body_nconsts]
    carry = list(args[cond_nconsts + body_nconsts:])
    while True:
        pred = np.asarray(eval_closed_jaxpr_numpy(cond_jaxpr, *cond_consts, *carry)[0])
        if not pred.any():
            return carry
        new = eval_closed_jaxpr_numpy(body_jaxpr, *body_consts, *carry)
        if not pred.shape:
            carry = new
        else:                              # a predicate per element (vmap's): those change
            # the predicate again after the body, on the old carry, as XLA's lowering
            # (`while/body_pred`): a debug.print in the cond prints twice per step, as JAX's
            pred = np.asarray(eval_closed_jaxpr_numpy(cond_jaxpr, *cond_consts, *carry)[0])
            carry = [np.where(pred.reshape(pred.shape + (1,) * (np.ndim(n) - pred.ndim)), n, c)
                     for n, c in zip(new, carry)]


numpy_rules[while_p] = _while_numpy
axis_batching_rules[while_p] = _while_batching
jvp_rules[while_p] = _while_jvp
partial_eval_rules[while_p] = _while_partial_eval
transpose_rules[while_p] = _while_transpose
sharding_typing_rules[while_p] = sharding_types.call_typing
