"""Lowering a while, scan or cond equation whose jaxprs hold hijax values captured from outside.

make_jaxpr and jit stage a loop or cond whose body reads or writes a mutable hijax value made
outside it (a Box) as JAX 0.10.2 does: the value goes in as a const of its type (`a:BoxTy`)
and the body keeps its high equations (box_get, box_set; lax/_cf_bodies.py's trace_fun). When
the enclosing trace is lowered (core/hijax_lower.py, before jit compiles) such an equation is
rebuilt by the loop's or cond's own threading (while_loop.py's _while_threading, scan.py's
_scan_threading, cond.py's _cond_threading): the values' low state is carried through and
they hold the final one after, as JAX's while_p, scan_p and cond_p `to_lojax` do.

    >>> from jxkernel._jax._src.hijax import Box
    >>> b = Box(1.0)
    >>> def body(c):
    ...     b.set(b.get() + 1.0)
    ...     return c + 1
    >>> print(jax.make_jaxpr(lambda x: lax.while_loop(lambda c: c < 3, body, x))(0))  # doctest: +ELLIPSIS
    { lambda a:BoxTy; b:i32[]. let
        c:i32[] = while[
          body_jaxpr={ lambda ; d:BoxTy e:i32[]. let
              f:f32[] = box_get[avals=(ShapedArray(float32[], weak_type=True),)] d
              g:f32[] = add f 1.0:f32[]
              box_set[treedef=PyTreeDef(*)] d g
    ...
          body_nconsts=1
    ...
    >>> int(jax.jit(lambda x: lax.while_loop(lambda c: c < 3, body, x))(0)), float(b.get())
    (3, 4.0)
"""
from __future__ import annotations

from ..core.avals import typeof_rules
from ..core.hijax import hi_value_types
from ..core.hijax_lower import eval_jaxpr_high, high_lowering_rules
from .cond import _cond_threading, cond_p
from .scan import _scan_threading, scan_p
from .while_loop import _while_threading, while_p


def _mutable(x) -> bool:
    """Whether `x` is a mutable hijax value (on the lowering trace: a Box object)."""
    return type(x) in hi_value_types and getattr(typeof_rules[type(x)](x), "has_qdd", False)


def _run(closed, args) -> list:
    """`closed` run on the current trace with its high equations lowered."""
    return eval_jaxpr_high(closed.jaxpr, closed.consts, list(args))


def _split_mutable(args):
    """(the mutable hijax values among `args`, a function putting them back among the rest)."""
    where = [_mutable(x) for x in args]
    values = [x for x, m in zip(args, where) if m]

    def merged(rest):
        rest, held = iter(rest), iter(values)
        return [next(held) if m else next(rest) for m in where]
    return values, [x for x, m in zip(args, where) if not m], merged


def _lower_while(invals, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cond_consts = invals[:cond_nconsts]
    if any(_mutable(x) for x in cond_consts):
        raise NotImplementedError()     # JAX 0.10.2's while_p.to_lojax refuses it, no words
    body_consts, carry = invals[cond_nconsts:cond_nconsts + body_nconsts], \
        invals[cond_nconsts + body_nconsts:]
    values = [x for x in body_consts if _mutable(x)]
    return list(_while_threading(values, lambda c: _run(cond_jaxpr, [*cond_consts, *c])[0],
                                 lambda c: _run(body_jaxpr, [*body_consts, *c]), list(carry)))


def _lower_scan(invals, *, reverse, length, jaxpr, num_consts, num_carry, unroll):
    consts, carry, xs = invals[:num_consts], invals[num_consts:num_consts + num_carry], \
        invals[num_consts + num_carry:]
    values = [x for x in consts if _mutable(x)]

    def step(c, x):
        outs = _run(jaxpr, [*consts, *c, *x])
        return outs[:num_carry], outs[num_carry:]
    carry, ys = _scan_threading(values, step, list(carry), list(xs), length, reverse, unroll)
    return [*carry, *ys]


def _lower_cond(invals, *, branches, **params):
    # the values stay out of the operands: each branch closes over them, and the threading
    # carries their state in and out of the branch taken
    index, args = invals[0], invals[1:]
    values, rest, merged = _split_mutable(args)
    funs = [lambda *ops, b=b: _run(b, merged(ops)) for b in branches]
    names = ("branch 0", *(f"branch{i}" for i in range(1, len(branches))))
    return list(_cond_threading(values, index, funs, tuple(rest), names, 0, "switch branch",
                                params))


high_lowering_rules[while_p] = _lower_while
high_lowering_rules[scan_p] = _lower_scan
high_lowering_rules[cond_p] = _lower_cond
