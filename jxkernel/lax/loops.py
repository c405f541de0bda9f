"""Loops: while_loop, scan, and fori_loop / map built on them.

    >>> lax.fori_loop(0, 10, lambda i, acc: acc + i, 0)
    >>> lax.scan(lambda c, x: (c + x, c * x), 0., jnp.arange(3.))

Bodies are traced once into jaxprs (constants hoisted as explicit operands).
`while` lowers to `stablehlo.while`; `scan` lowers through a while loop over an
index that slices its inputs and writes its stacked outputs. scan is
reverse-differentiable (linearize splits its body into a forward scan that
stacks residuals and a scan over them); while_loop is forward-differentiable.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.avals import ShapedArray, get_aval
from ..core.interpret import eval_jaxpr
from ..core.ir import param_printers
from ..core.primitive import (Primitive, abstract_eval_rules, jvp_rules, lowering_rules,
                              transpose_rules)
from ..core.trace import Tracer, set_current_trace
from ..transforms.ad import backward_pass, jvp_jaxpr, transpose_jaxpr
from ..transforms.batching import axis_batching_rules, batch_jaxpr
from ..transforms.partial_eval import partial_eval_jaxpr, partial_eval_rules
from ..transforms.staging import trace_to_jaxpr
from ..tree_util import tree_flatten, tree_unflatten
from ..xla import stablehlo as hlo
from . import _batch_util as bu
from . import _cf_util as cf
from ._ad_util import Zero, add_tangents, instantiate, is_undefined, zeros
from ._lowering import lower_fun
from .conversion import convert_element_type
from .elementwise import add, bitwise_or, lt, select_n, sub
from .shapes import broadcast_in_dim

# ====================================================================== while
while_p = Primitive("while", multiple_results=True)


def while_loop(cond_fun, body_fun, init_val):
    """Repeat `val = body_fun(val)` while `cond_fun(val)`; returns the final `val`."""
    leaves, in_tree = tree_flatten(init_val)
    args_tree = tree_flatten((init_val,))[1]      # the functions take the carry as one argument
    avals = cf.avals_of(leaves)
    for _ in range(2):                   # at most one retrace, to drop a weak type
        body, body_tree = cf.trace_fun(body_fun, args_tree, avals, "while_loop body")
        _check_carry("body_fun", in_tree, avals, body_tree, body.out_avals)
        unified = cf.unify_weak_types(avals, body.out_avals)
        if unified == avals:
            break
        avals = unified
    leaves = [_cast(x, a) for x, a in zip(leaves, avals)]
    cond, cond_tree = cf.trace_fun(cond_fun, args_tree, avals, "while_loop cond")
    out = cond.out_avals
    if len(out) != 1 or out[0].shape or out[0].dtype != dtypes.bool_:
        raise TypeError(f"cond_fun must return a boolean scalar, but got output type(s) "
                        f"[{', '.join(repr(a) for a in out)}].")
    cond_jaxpr, cond_consts = cf.hoist(cond)
    body_jaxpr, body_consts = cf.hoist(body)
    outs = while_p.bind(*cond_consts, *body_consts, *leaves, cond_jaxpr=cond_jaxpr,
                        body_jaxpr=body_jaxpr, cond_nconsts=len(cond_consts),
                        body_nconsts=len(body_consts))
    return tree_unflatten(in_tree, outs)


def _cast(x, aval):
    a = get_aval(x)
    if a.dtype == aval.dtype and a.weak_type == aval.weak_type:
        return x
    from .conversion import _convert_element_type
    return _convert_element_type(x, aval.dtype, aval.weak_type)


def _check_carry(what, in_tree, in_avals, out_tree, out_avals, name="body function"):
    if in_tree != out_tree:
        raise TypeError(f"{name} carry input and carry output must have the same pytree "
                        f"structure, but they differ:\n\nThe input carry has structure "
                        f"{in_tree} but the output carry has structure {out_tree}.")
    diff = cf.describe_mismatch("The input carry", in_tree, in_avals,
                                "the corresponding output carry component", out_tree, out_avals)
    if diff:
        raise TypeError(f"{name} carry input and carry output must have equal types, but they "
                        f"differ:\n\n{diff}\n\nRevise the function so that all output types "
                        f"match the corresponding input types.")


def _while_abstract_eval(*avals, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    return [a for a in body_jaxpr.out_avals]


def _while_lowering(ctx, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cond_consts = list(args[:cond_nconsts])
    body_consts = list(args[cond_nconsts:cond_nconsts + body_nconsts])
    carry = list(args[cond_nconsts + body_nconsts:])
    types = [v.type for v in carry]
    cond_block = ctx.new_block(types)       # consts are captured from the enclosing scope
    cond_block.ret(ctx.lower_jaxpr(cond_jaxpr, cond_consts + cond_block.args, block=cond_block))
    body_block = ctx.new_block(types)
    body_block.ret(ctx.lower_jaxpr(body_jaxpr, body_consts + body_block.args, block=body_block))
    return ctx.op("stablehlo.while", carry, regions=[cond_block, body_block],
                  result_types=types)


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
    pred_batched = pred_dims[0] is not bu.not_mapped
    if pred_batched:                      # examples finish at different times: batch everything
        carry_batched = [True] * len(carry_batched)
    vals = list(vals)
    carry = [bu.bdim_at_front(v, d, size) if b else v
             for v, d, b in zip(vals[nc + nb:], carry_dims, carry_batched)]
    carry_in_dims = [0 if b else None for b in carry_batched]
    body_b, _ = batch_jaxpr(body_jaxpr, axis_data, list(bdims) + carry_in_dims,
                            force_out_batched=carry_batched)
    cond_b, _ = batch_jaxpr(cond_jaxpr, axis_data, list(cdims) + carry_in_dims)
    if not pred_batched:
        outs = while_p.bind(*vals[:nc + nb], *carry, cond_jaxpr=cond_b, body_jaxpr=body_b,
                            cond_nconsts=nc, body_nconsts=nb)
        return outs, carry_in_dims
    # Keep looping while any example's predicate holds; finished examples keep their value.
    cond_any = _any_cond(cond_b)
    body_sel = _select_body(cond_b, body_b, nc, nb)
    outs = while_p.bind(*vals[:nc], *vals[:nc], *vals[nc:nc + nb], *carry, cond_jaxpr=cond_any,
                        body_jaxpr=body_sel, cond_nconsts=nc, body_nconsts=nc + nb)
    return outs, [0] * len(carry)


def _any_cond(cond_b):
    from .reductions import reduce_or

    def f(*args):
        pred, = eval_jaxpr(cond_b.jaxpr, cond_b.consts, *args)
        return [reduce_or(pred, (0,))]
    return trace_to_jaxpr(f, cond_b.in_avals)


def _select_body(cond_b, body_b, nc, nb):
    def f(*args):
        cond_consts, body_consts, carry = args[:nc], args[nc:nc + nb], args[nc + nb:]
        pred, = eval_jaxpr(cond_b.jaxpr, cond_b.consts, *cond_consts, *carry)
        new = eval_jaxpr(body_b.jaxpr, body_b.consts, *body_consts, *carry)
        out = []
        for old, upd in zip(carry, new):
            shape = bu.shape(old)
            which = broadcast_in_dim(pred, shape, (0,)) if len(shape) > 1 else pred
            out.append(select_n(which, old, upd))
        return out
    return trace_to_jaxpr(f, list(cond_b.in_avals[:nc]) + list(body_b.in_avals))


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
    body_new = _permute_inputs(body_jvp, [nb, n_carry, n_bconst_t, n_carry_t], [0, 2, 1, 3])
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


def _permute_inputs(closed, group_sizes, order):
    """`closed` with its input groups (of `group_sizes`) taken in the order `order` gives."""
    starts = np.cumsum([0] + list(group_sizes))
    groups = [list(range(starts[i], starts[i + 1])) for i in range(len(group_sizes))]
    new_positions = [i for g in order for i in groups[g]]
    avals = list(closed.in_avals)

    def f(*args):
        original = [None] * len(args)
        for arg, pos in zip(args, new_positions):
            original[pos] = arg
        return eval_jaxpr(closed.jaxpr, closed.consts, *original)
    return trace_to_jaxpr(f, [avals[i] for i in new_positions])


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
        full_consts = [next(consts) if k else zeros(a) for a, k in zip(body.in_avals[:nb], bconst_keep)]
        full_carry = [next(carry) if k else zeros(a) for a, k in zip(body.in_avals[nb:], carry_keep)]
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
    return dict(cond_jaxpr=trace_to_jaxpr(cond_f, cond_avals),
                body_jaxpr=trace_to_jaxpr(body_f, body_avals), cond_nconsts=nc,
                body_nconsts=sum(bconst_keep))


def _while_transpose(cts, *args, **params):
    raise ValueError("Reverse-mode differentiation does not work for lax.while_loop or "
                     "lax.fori_loop with dynamic start/stop values. Try using lax.scan, or using "
                     "fori_loop with static start/stop.")


abstract_eval_rules[while_p] = _while_abstract_eval
lowering_rules[while_p] = _while_lowering
axis_batching_rules[while_p] = _while_batching
jvp_rules[while_p] = _while_jvp
partial_eval_rules[while_p] = _while_partial_eval
transpose_rules[while_p] = _while_transpose


# ====================================================================== scan
scan_p = Primitive("scan", multiple_results=True)


def scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False):
    """Loop `carry, y = f(carry, x)` over the leading axis of `xs`; returns (carry, stacked ys).

    >>> lax.scan(lambda c, x: (c + x, c), 0, jnp.arange(4))   # (6, [0, 0, 1, 3])
    """
    x_leaves, x_tree = tree_flatten(xs)
    lengths = {get_aval(x).shape[0] if get_aval(x).shape else None for x in x_leaves}
    if None in lengths:
        raise ValueError("scan got value with no leading axis to scan over: "
                         + ", ".join(str(get_aval(x).shape) for x in x_leaves
                                     if not get_aval(x).shape))
    if length is not None:
        length = int(length)
        if lengths and lengths != {length}:
            raise ValueError(f"scan got `length` argument of {length} which disagrees with leading "
                             f"axis sizes {sorted(lengths)}.")
    elif len(lengths) > 1:
        raise ValueError(f"scan got values with different leading axis sizes: "
                         f"{', '.join(str(get_aval(x).shape[0]) for x in x_leaves)}.")
    elif not lengths:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    else:
        length = lengths.pop()
    unroll = length if unroll is True else max(1, int(unroll or 1))
    carry_leaves, carry_tree = tree_flatten(init)
    carry_avals = cf.avals_of(carry_leaves)
    x_avals = [ShapedArray(get_aval(x).shape[1:], get_aval(x).dtype, get_aval(x).weak_type)
               for x in x_leaves]
    in_tree = tree_flatten((init, xs))[1]

    def body(carry, x):
        out = f(carry, x)
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError(f"scan body output must be a pair, got {type(out).__name__}.")
        return tuple(out)
    for _ in range(2):
        closed, out_tree = cf.trace_fun(body, in_tree, carry_avals + x_avals, "scan body")
        if out_tree.num_nodes == 1 or len(out_tree.children()) != 2:
            raise TypeError("scan body output must be a pair (carry, y)")
        carry_out_tree, y_tree = out_tree.children()
        n_carry = len(carry_avals)
        _check_carry("body_fun", carry_tree, carry_avals, carry_out_tree,
                     closed.out_avals[:n_carry], "scan body function")
        unified = cf.unify_weak_types(carry_avals, closed.out_avals[:n_carry])
        if unified == carry_avals:
            break
        carry_avals = unified
    carry_leaves = [_cast(x, a) for x, a in zip(carry_leaves, carry_avals)]
    jaxpr, consts = cf.hoist(closed)
    outs = scan_p.bind(*consts, *carry_leaves, *x_leaves, reverse=bool(reverse), length=length,
                       jaxpr=jaxpr, num_consts=len(consts), num_carry=len(carry_leaves),
                       linear=(False,) * (len(consts) + len(carry_leaves) + len(x_leaves)),
                       unroll=unroll, _split_transpose=False)
    carry_out = tree_unflatten(carry_tree, outs[:len(carry_leaves)])
    ys = tree_unflatten(y_tree, outs[len(carry_leaves):])
    return carry_out, ys


def _scan_abstract_eval(*avals, reverse, length, jaxpr, num_consts, num_carry, linear, unroll,
                        _split_transpose):
    carry = jaxpr.out_avals[:num_carry]
    ys = [cf.broadcast_aval(a, length) for a in jaxpr.out_avals[num_carry:]]
    return list(carry) + ys


def _scan_impl_fun(*args, reverse, length, jaxpr, num_consts, num_carry, linear, unroll,
                   _split_transpose):
    """scan written with while_loop and dynamic slicing: what scan lowers to."""
    from .slicing import dynamic_index_in_dim, dynamic_update_index_in_dim
    consts, init, xs = args[:num_consts], args[num_consts:num_consts + num_carry], \
        args[num_consts + num_carry:]
    y_avals = jaxpr.out_avals[num_carry:]
    ys0 = [zeros(cf.broadcast_aval(a.strip_weak_type(), length)) for a in y_avals]

    def step(i, carry, ys):
        t = sub(np.int32(length - 1), i) if reverse else i
        x = [dynamic_index_in_dim(a, t, 0, keepdims=False) for a in xs]
        outs = eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *consts, *carry, *x)
        new_carry, y = outs[:num_carry], outs[num_carry:]
        ys = [dynamic_update_index_in_dim(acc, _strip(v, acc), t, 0) for acc, v in zip(ys, y)]
        return add(i, np.int32(1)), list(new_carry), ys

    main = length // unroll
    def body(state):
        i, carry, ys = state
        for _ in range(unroll):
            i, carry, ys = step(i, carry, ys)
        return i, carry, ys
    state = (np.int32(0), list(init), ys0)
    if main:
        state = while_loop(lambda s: lt(s[0], np.int32(main * unroll)), body, state)
    i, carry, ys = state
    for _ in range(length - main * unroll):       # the remainder, unrolled
        i, carry, ys = step(i, carry, ys)
    return list(carry) + list(ys)


def _strip(value, acc):
    """A y with its weak type dropped (the stacked buffer is strongly typed)."""
    a = get_aval(value)
    if a.weak_type:
        from .conversion import _convert_element_type
        return _convert_element_type(value, a.dtype, False)
    return value


lowering_rules[scan_p] = lower_fun(_scan_impl_fun, multiple_results=True)
abstract_eval_rules[scan_p] = _scan_abstract_eval
param_printers[scan_p] = lambda p: [(k, v) for k, v in sorted(p.items())
                                    if k not in ("linear", "_split_transpose")]


def _scan_batching(axis_data, vals, dims, *, reverse, length, jaxpr, num_consts, num_carry,
                   linear, unroll, _split_transpose):
    size = axis_data.size
    nc, nk = num_consts, num_carry
    const_dims = list(dims[:nc])
    carry_batched = [d is not bu.not_mapped for d in dims[nc:nc + nk]]
    xs_batched = [d is not bu.not_mapped for d in dims[nc + nk:]]
    x_in_dims = [0 if b else None for b in xs_batched]
    for _ in range(nk + 1):
        _, out_dims = batch_jaxpr(jaxpr, axis_data,
                                  const_dims + [0 if b else None for b in carry_batched] + x_in_dims)
        new = [b or d is not bu.not_mapped for b, d in zip(carry_batched, out_dims[:nk])]
        if new == carry_batched:
            break
        carry_batched = new
    carry_dims = [0 if b else None for b in carry_batched]
    body, out_dims = batch_jaxpr(jaxpr, axis_data, const_dims + carry_dims + x_in_dims,
                                 force_out_batched=carry_batched + [False] * (len(jaxpr.out_avals) - nk))
    vals = list(vals)
    carry = [bu.bdim_at_front(v, d, size) if b else v
             for v, d, b in zip(vals[nc:nc + nk], dims[nc:nc + nk], carry_batched)]
    xs = [bu.move_to(v, d, 1, size) if b else v
          for v, d, b in zip(vals[nc + nk:], dims[nc + nk:], xs_batched)]
    outs = scan_p.bind(*vals[:nc], *carry, *xs, reverse=reverse, length=length, jaxpr=body,
                       num_consts=nc, num_carry=nk, linear=linear, unroll=unroll,
                       _split_transpose=_split_transpose)
    y_dims = [1 if d is not bu.not_mapped else None for d in out_dims[nk:]]
    return outs, carry_dims + y_dims


def _scan_jvp(primals, tangents, *, reverse, length, jaxpr, num_consts, num_carry, linear,
              unroll, _split_transpose):
    nc, nk = num_consts, num_carry
    nz = [type(t) is not Zero for t in tangents]
    const_nz, carry_nz, xs_nz = nz[:nc], nz[nc:nc + nk], nz[nc + nk:]
    for _ in range(nk + 1):
        _, out_nz = jvp_jaxpr(jaxpr, const_nz + carry_nz + xs_nz)
        new = [a or b for a, b in zip(carry_nz, out_nz[:nk])]
        if new == carry_nz:
            break
        carry_nz = new
    n_y = len(jaxpr.out_avals) - nk
    body, out_nz = jvp_jaxpr(jaxpr, const_nz + carry_nz + xs_nz,
                             instantiate=carry_nz + [False] * n_y)
    n_x = len(xs_nz)
    # jvp body inputs: [consts, carry, xs, const_t, carry_t, xs_t] -> scan layout
    # [consts, const_t | carry, carry_t | xs, xs_t]
    body = _permute_inputs(body, [nc, nk, n_x, sum(const_nz), sum(carry_nz), sum(xs_nz)],
                           [0, 3, 1, 4, 2, 5])
    y_nz = out_nz[nk:]
    # outputs: [carry, ys, carry_t, ys_t] -> [carry, carry_t, ys, ys_t]
    body = _permute_outputs(body, [nk, n_y, sum(carry_nz), sum(y_nz)], [0, 2, 1, 3])
    ct = [instantiate(t) for t, n in zip(tangents[:nc], const_nz) if n]
    kt = [instantiate(t) for t, n in zip(tangents[nc:nc + nk], carry_nz) if n]
    xt = [instantiate(t) for t, n in zip(tangents[nc + nk:], xs_nz) if n]
    args = list(primals[:nc]) + ct + list(primals[nc:nc + nk]) + kt + list(primals[nc + nk:]) + xt
    outs = scan_p.bind(*args, reverse=reverse, length=length, jaxpr=body,
                       num_consts=nc + len(ct), num_carry=nk + len(kt),
                       linear=(False,) * len(args), unroll=unroll,
                       _split_transpose=_split_transpose)
    carry, carry_t = outs[:nk], iter(outs[nk:nk + len(kt)])
    ys, ys_t = outs[nk + len(kt):nk + len(kt) + n_y], iter(outs[nk + len(kt) + n_y:])
    out_avals = _scan_abstract_eval(reverse=reverse, length=length, jaxpr=jaxpr, num_consts=nc,
                                    num_carry=nk, linear=linear, unroll=unroll,
                                    _split_transpose=_split_transpose)
    tangent_out = [next(carry_t) if n else Zero(a.strip_weak_type())
                   for n, a in zip(carry_nz, out_avals[:nk])] + \
        [next(ys_t) if n else Zero(a.strip_weak_type()) for n, a in zip(y_nz, out_avals[nk:])]
    return list(carry) + list(ys), tangent_out


def _permute_outputs(closed, group_sizes, order):
    starts = np.cumsum([0] + list(group_sizes))
    groups = [list(range(starts[i], starts[i + 1])) for i in range(len(group_sizes))]

    def f(*args):
        outs = eval_jaxpr(closed.jaxpr, closed.consts, *args)
        return [outs[i] for g in order for i in groups[g]]
    return trace_to_jaxpr(f, closed.in_avals)


def _scan_partial_eval(trace, args, params):
    """Known scan: known carries and ys, plus the residuals stacked as extra ys (a residual
    that is just a known const is passed as a const instead). Unknown scan: consumes them."""
    nc, nk = params["num_consts"], params["num_carry"]
    jaxpr, length = params["jaxpr"], params["length"]
    unknowns = [trace.is_unknown(x) for x in args]
    const_uk, carry_uk, xs_uk = unknowns[:nc], unknowns[nc:nc + nk], unknowns[nc + nk:]
    n_y = len(jaxpr.out_avals) - nk
    for _ in range(nk + 1):
        _, _, out_uk, _ = partial_eval_jaxpr(jaxpr, const_uk + carry_uk + xs_uk)
        new = [a or b for a, b in zip(carry_uk, out_uk[:nk])]
        if new == carry_uk:
            break
        carry_uk = new
    known_body, unknown_body, out_uk, n_res = partial_eval_jaxpr(
        jaxpr, const_uk + carry_uk + xs_uk, instantiate=carry_uk + [False] * n_y)
    y_uk = out_uk[nk:]
    n_known_carry, n_known_y = carry_uk.count(False), y_uk.count(False)
    n_known_consts = const_uk.count(False)
    # residuals the known body merely forwards from its consts are loop-invariant
    forwarded = _forwarded_consts(known_body, n_known_consts, n_known_carry + n_known_y, n_res)
    known_args = [x for x, u in zip(args, unknowns[:nc] + carry_uk + xs_uk) if not u]
    stacked_body = _drop_outputs(known_body, [n_known_carry + n_known_y + i
                                              for i in range(n_res) if forwarded[i] is not None])
    with set_current_trace(trace.parent):
        known_outs = scan_p.bind(*known_args, **dict(
            params, jaxpr=stacked_body, num_consts=n_known_consts, num_carry=n_known_carry,
            linear=(False,) * len(known_args)))
    known_carry = known_outs[:n_known_carry]
    known_ys = known_outs[n_known_carry:n_known_carry + n_known_y]
    stacked_res = iter(known_outs[n_known_carry + n_known_y:])
    known_consts = [x for x, u in zip(args[:nc], const_uk) if not u]
    res_consts, res_xs = [], []
    for i in range(n_res):
        if forwarded[i] is not None:
            res_consts.append((i, known_consts[forwarded[i]]))
        else:
            res_xs.append((i, next(stacked_res)))
    # unknown body inputs: [residuals (in order), uk consts, uk carry, uk xs];
    # as a scan: consts = [const residuals, uk consts], carry = uk carry,
    # xs = [stacked residuals, uk xs]
    order = [i for i, _ in res_consts] + [n_res + j for j in range(const_uk.count(True))] + \
        [n_res + const_uk.count(True) + j for j in range(carry_uk.count(True))] + \
        [i for i, _ in res_xs] + \
        [n_res + const_uk.count(True) + carry_uk.count(True) + j for j in range(xs_uk.count(True))]
    unknown_scan_body = _reorder_inputs(unknown_body, order)
    uk_args = [v for _, v in res_consts] + [x for x, u in zip(args[:nc], const_uk) if u] + \
        [x for x, u in zip(args[nc:nc + nk], carry_uk) if u] + [v for _, v in res_xs] + \
        [x for x, u in zip(args[nc + nk:], xs_uk) if u]
    atoms = [trace.to_atom(x) for x in uk_args]
    new_params = dict(params, jaxpr=unknown_scan_body,
                      num_consts=len(res_consts) + const_uk.count(True),
                      num_carry=carry_uk.count(True),
                      linear=tuple([False] * (len(res_consts)) + [True] * const_uk.count(True) +
                                   [True] * carry_uk.count(True) + [False] * len(res_xs) +
                                   [True] * xs_uk.count(True)))
    out_avals = _scan_abstract_eval(**new_params)
    unknown_outs = trace.add_eqn(atoms, scan_p, new_params, out_avals)
    uk_carry, uk_ys = iter(unknown_outs[:carry_uk.count(True)]), iter(unknown_outs[carry_uk.count(True):])
    kc, ky = iter(known_carry), iter(known_ys)
    return [next(uk_carry) if u else next(kc) for u in carry_uk] + \
        [next(uk_ys) if u else next(ky) for u in y_uk]


def _forwarded_consts(known_body, n_consts, n_outs_before_res, n_res):
    """For each residual: the index of the known const it simply is, else None."""
    jaxpr = known_body.jaxpr
    const_vars = {v: i for i, v in enumerate(jaxpr.invars[:n_consts])}
    res_vars = jaxpr.outvars[n_outs_before_res:n_outs_before_res + n_res]
    return [const_vars.get(v) for v in res_vars]


def _drop_outputs(closed, drop):
    if not drop:
        return closed
    drop = set(drop)

    def f(*args):
        outs = eval_jaxpr(closed.jaxpr, closed.consts, *args)
        return [o for i, o in enumerate(outs) if i not in drop]
    return trace_to_jaxpr(f, closed.in_avals)


def _reorder_inputs(closed, order):
    """A jaxpr whose k-th input is `closed`'s input order[k]."""
    if list(order) == list(range(len(order))):
        return closed
    avals = list(closed.in_avals)

    def f(*args):
        original = [None] * len(args)
        for arg, pos in zip(args, order):
            original[pos] = arg
        return eval_jaxpr(closed.jaxpr, closed.consts, *original)
    return trace_to_jaxpr(f, [avals[i] for i in order])


def _scan_transpose(cts, *args, reverse, length, jaxpr, num_consts, num_carry, linear, unroll,
                    _split_transpose):
    """The transpose of a scan linear in (some consts, the carry, some xs) runs backwards:
    carry = (accumulated const cotangents, carry cotangent), xs = (residual xs, ys
    cotangents), ys = cotangents of the linear xs."""
    nc, nk = num_consts, num_carry
    consts, carry, xs = args[:nc], args[nc:nc + nk], args[nc + nk:]
    const_lin = [is_undefined(c) for c in consts]
    xs_lin = [is_undefined(x) for x in xs]
    # A carry input may be a known value (an instantiated zero tangent): the carry is still
    # linear in the loop; such an input just gets no cotangent.
    res_consts = [c for c, lin in zip(consts, const_lin) if not lin]
    res_xs = [x for x, lin in zip(xs, xs_lin) if not lin]
    ct_carry = [instantiate(c) for c in cts[:nk]]
    ct_ys = [instantiate(c) for c in cts[nk:]]
    lin_const_avals = [c.aval for c, lin in zip(consts, const_lin) if lin]
    ct_consts0 = [zeros(a) for a in lin_const_avals]
    body_in = list(jaxpr.in_avals)
    n_res_c, n_lin_c = len(res_consts), len(lin_const_avals)
    res_x_avals = [a for a, lin in zip(body_in[nc + nk:], xs_lin) if not lin]
    carry_avals = [a.strip_weak_type() for a in jaxpr.out_avals[:nk]]
    y_avals = [a.strip_weak_type() for a in jaxpr.out_avals[nk:]]

    def body_t(*a):
        rc = a[:n_res_c]
        ct_c_acc = a[n_res_c:n_res_c + n_lin_c]
        ct_k = a[n_res_c + n_lin_c:n_res_c + n_lin_c + nk]
        rx = a[n_res_c + n_lin_c + nk:n_res_c + n_lin_c + nk + len(res_x_avals)]
        ct_y = a[n_res_c + n_lin_c + nk + len(res_x_avals):]
        rc_it, rx_it = iter(rc), iter(rx)
        nonlinear = [next(rc_it) for lin in const_lin if not lin] + \
            [next(rx_it) for lin in xs_lin if not lin]
        flags = list(const_lin) + [True] * nk + list(xs_lin)
        cts_in = backward_pass(jaxpr.jaxpr, jaxpr.consts, flags, nonlinear,
                               list(ct_k) + list(ct_y))
        cts_in = [instantiate(c) if type(c) is Zero else c for c in cts_in]
        c_cts = [c for c, lin in zip(cts_in[:nc], const_lin) if lin]
        k_cts = cts_in[nc:nc + nk]
        x_cts = [c for c, lin in zip(cts_in[nc + nk:], xs_lin) if lin]
        new_acc = [add_tangents(acc, c) for acc, c in zip(ct_c_acc, c_cts)]
        return new_acc + list(k_cts) + x_cts
    in_avals = [a for a, lin in zip(body_in[:nc], const_lin) if not lin] + lin_const_avals + \
        carry_avals + res_x_avals + y_avals
    body = trace_to_jaxpr(body_t, in_avals)
    outs = scan_p.bind(*res_consts, *ct_consts0, *ct_carry, *res_xs, *ct_ys, reverse=not reverse,
                       length=length, jaxpr=body, num_consts=n_res_c, num_carry=n_lin_c + nk,
                       linear=(False,) * (n_res_c + n_lin_c + nk + len(res_xs) + len(ct_ys)),
                       unroll=unroll, _split_transpose=_split_transpose)
    ct_consts, ct_init = iter(outs[:n_lin_c]), outs[n_lin_c:n_lin_c + nk]
    ct_xs = iter(outs[n_lin_c + nk:])
    return [next(ct_consts) if lin else None for lin in const_lin] + \
        [ct if is_undefined(c) else None for ct, c in zip(ct_init, carry)] + \
        [next(ct_xs) if lin else None for lin in xs_lin]


axis_batching_rules[scan_p] = _scan_batching
jvp_rules[scan_p] = _scan_jvp
partial_eval_rules[scan_p] = _scan_partial_eval
transpose_rules[scan_p] = _scan_transpose


# ====================================================================== fori_loop, map
def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """`val = body_fun(i, val)` for i in [lower, upper). With static bounds this is a scan (so
    reverse-mode differentiable); with traced bounds a while_loop."""
    lower_c, upper_c = _concrete_int(lower), _concrete_int(upper)
    if lower_c is not None and upper_c is not None:
        dtype = _index_dtype(lower, upper)

        def step(carry, _):
            i, val = carry
            return (add(i, np.array(1, dtype)), body_fun(i, val)), None
        length = max(upper_c - lower_c, 0)
        if length == 0:
            return init_val
        (_, out), _ = scan(step, (np.array(lower_c, dtype), init_val), None, length=length,
                           unroll=unroll or 1)
        return out
    if unroll not in (None, 1):
        raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds are statically known.")
    dtype = _index_dtype(lower, upper)
    lower = convert_element_type(lower, dtype)
    upper = convert_element_type(upper, dtype)

    def cond_fun(state):
        return lt(state[0], state[1])

    def body(state):
        i, hi, val = state
        return add(i, np.array(1, dtype)), hi, body_fun(i, val)
    return while_loop(cond_fun, body, (lower, upper, init_val))[2]


def _concrete_int(x):
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return int(x)
    if isinstance(x, Tracer):
        value = x.to_concrete_value()
        return None if value is None else int(np.asarray(value))
    if hasattr(x, "shape") and not getattr(x, "shape", ()):
        try:
            return int(np.asarray(x))
        except TypeError:
            return None
    return None


def _index_dtype(lower, upper):
    ds = [get_aval(v).dtype for v in (lower, upper) if not isinstance(v, int)]
    return ds[0] if ds else dtypes.canonicalize_dtype(np.int64)


def map(f, xs, *, batch_size=None):
    """[f(x) for x in xs] stacked, as a scan (one compiled body, sequential)."""
    if batch_size is not None:
        from jxkernel.transforms.batching import vmap
        leaves, tree = tree_flatten(xs)
        n = get_aval(leaves[0]).shape[0]
        if n % batch_size:
            raise ValueError(f"lax.map batch_size={batch_size} must divide the leading axis {n}")
        from .shapes import reshape
        grouped = tree_unflatten(tree, [reshape(x, (n // batch_size, batch_size) + get_aval(x).shape[1:])
                                        for x in leaves])
        _, ys = scan(lambda c, x: (c, vmap(f)(x)), (), grouped)
        y_leaves, y_tree = tree_flatten(ys)
        return tree_unflatten(y_tree, [reshape(y, (n,) + get_aval(y).shape[2:]) for y in y_leaves])
    _, ys = scan(lambda c, x: (c, f(x)), (), xs)
    return ys
