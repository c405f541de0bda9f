"""Lowering high jaxprs (core/hijax.py) to low ones, as JAX's `pe.lower_jaxpr`: the jaxpr runs
again on a new trace, each high equation by its primitive's `to_lojax` over the high values
(Python objects holding the new trace's tracers), every other equation bound again. jit calls
`lower_jaxpr` on each trace it makes (transforms/jit/function.py), so nothing high reaches XLA.

    >>> from jxkernel import make_jaxpr
    >>> lower_jaxpr(make_jaxpr(jnp.sin)(1.0)).jaxpr.eqns[0].primitive
    sin
"""
from __future__ import annotations

import itertools
import weakref

from .avals import AbstractValue, hi_value_types, typeof_rules
from .hijax import AvalQDD, HiPrimitive, eqn_is_high, is_high_aval
from .interpret import read_atom
from .ir import ClosedJaxpr, Jaxpr
from .name_stack import replay, replaying
from .staging import JaxprTrace, high_jaxprs
from .trace import Tracer, _ctx, new_trace


# what traces a body that may capture a concrete mutable high value (a hijax Variable made
# outside it): where nothing stages the loop (eagerly, or lowering a staged one), the loop
# catches CapturedHighValues and threads the values' state through its carry
# (lax/_cf_bodies.py's holding_high), as JAX threads such state
THREADING = {"scan body", "while_loop body", "cond branch", "switch branch"}


class CapturedHighValues(NotImplementedError):
    """Raised by lower_jaxpr for a body (of a loop in THREADING) that captured concrete
    mutable high values (`values`), whose state the loop then carries."""

    def __init__(self, values):
        super().__init__(f"mutable high values captured: {values}")
        self.values = values


def captured_mutable(closed) -> list:
    """The mutable hijax values `closed` captured from outside (its consts): concrete ones (a
    Box made outside) and tracers of an enclosing trace (a Box made in make_jaxpr's)."""
    return [c for c in closed.consts if type(c) in hi_value_types and
            getattr(typeof_rules[type(c)](c), "has_qdd", False) or
            isinstance(c, Tracer) and getattr(c.aval, "has_qdd", False)]


def lower_jaxpr(closed, in_qdds=None, final_qdds=None, what="jit"):
    """The low ClosedJaxpr of a high one, as JAX's `pe.lower_jaxpr`: each high input becomes
    its low values (`lo_ty`, or `lo_ty_qdd` of its initial quasi-dynamic data `in_qdds[i]`),
    each high equation runs its `to_lojax`, and each mutable input's final low values
    (`read_loval` of `final_qdds[i]`) follow the outputs.

    `closed` is returned as it is unless its trace staged something high.
    """
    jaxpr = closed.jaxpr
    if closed not in high_jaxprs:       # (a trace that staged nothing high: itself, at once)
        return closed
    in_qdds = list(in_qdds) if in_qdds is not None else [None] * len(jaxpr.invars)
    final_qdds = list(final_qdds) if final_qdds is not None else [None] * len(jaxpr.invars)
    in_types = [AvalQDD(v.aval, q) if q is not None else v.aval
                for v, q in zip(jaxpr.invars, in_qdds)]
    lo_avals = [t for aval in in_types for t in _lo_types(aval)]
    captured = [c for c in closed.consts if type(c) in hi_value_types and
                getattr(typeof_rules[type(c)](c), "has_qdd", False)]
    if captured and what in THREADING:
        raise CapturedHighValues(captured)
    if captured and what == "while_loop cond":
        # JAX 0.10.2 threads a captured value's state through a loop's body only; a cond_fun
        # that reads one is refused, by a NotImplementedError with no message
        raise NotImplementedError()
    for c in closed.consts:
        if type(c) in hi_value_types or isinstance(c, Tracer) and is_high_aval(c.aval):
            raise NotImplementedError(
                f"jxkernel does not lower a hijax value captured from outside the function "
                f"traced for {what} "
                f"({typeof_rules[type(c)](c) if type(c) in hi_value_types else c}), whose "
                f"state JAX threads through: " + ("pass it to the jit as an argument" if
                what == "jit" else "carry its value through as an operand instead"))

    def run(*lo_args):
        it = iter(lo_args)
        args = []
        for aval in in_types:
            n = len(_lo_types(aval))
            lo = list(itertools.islice(it, n))
            if isinstance(aval, AvalQDD):
                args.append(aval.new_from_loval(*lo))
            elif is_high_aval(aval):
                args.append(aval.raise_val(*lo))
            else:
                args.append(lo[0])
        env = dict(zip(jaxpr.constvars, closed.consts))
        env.update(zip(jaxpr.invars, args))
        outer, names = replaying.source_info, _ctx.names
        try:
            for eqn in jaxpr.eqns:
                replay(eqn.source_info, outer, names)
                _run_low(eqn, env)
        finally:
            replay(None, outer, names)
        lo_outs = []
        for v in jaxpr.outvars:
            val = read_atom(env, v)
            aval = v.aval
            if isinstance(aval, AbstractValue) and getattr(aval, "has_qdd", False):
                raise NotImplementedError("a mutable high value cannot be an output of a "
                                          "compiled program (JAX's lowering refuses it too)")
            lo_outs.extend(aval.lower_val(val) if is_high_aval(aval) else [val])
        for aval, final, x in zip(in_types, final_qdds, args):
            if isinstance(aval, AvalQDD):
                lo_outs.extend(aval.aval.read_loval(final, x))
        return lo_outs

    with new_trace(JaxprTrace, None, None) as trace:
        trace.requires_low = True      # HiPrimitives bound in to_lojax rules: their to_lojax
        lowered = trace.to_jaxpr(run(*[trace.new_arg(a) for a in lo_avals]))
    return ClosedJaxpr(Jaxpr(lowered.jaxpr.constvars, lowered.jaxpr.invars,
                             lowered.jaxpr.outvars, lowered.jaxpr.eqns), lowered.consts,
                       lowered.ref_writes)


# a control-flow primitive -> how an equation of it whose jaxprs hold high values is lowered:
# rule(operands, **params) -> results, run on the lowering trace (lax/_cf_high.py: a loop or
# cond whose body reads or writes a hijax value captured from outside, staged high by
# make_jaxpr or jit, threads its state through, as JAX's while_p/scan_p/cond_p.to_lojax)
high_lowering_rules: dict = {}


# the high jaxpr of a jit equation staged by make_jaxpr -> the low jaxpr jit traced it to (with
# the same constants), which lowering binds in its place (transforms/jit/function.py's _bind)
low_of: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _lo_types(aval) -> list:
    return list(aval.lo_ty()) if is_high_aval(aval) or isinstance(aval, AvalQDD) else [aval]


def _lower_call(eqn, invals):
    """A call equation whose inner jaxpr is high (a jit inside a jit): inlined, its high
    equations lowered as the outer ones are (JAX lowers jit's jaxpr through jit_p.to_lojax)."""
    inner = eqn.params.get("jaxpr")
    if eqn.primitive.name not in ("jit", "pjit", "closed_call", "core_call") or inner is None:
        raise NotImplementedError(
            f"jxkernel does not lower high types through '{eqn.primitive}' (hijax values "
            f"inside {eqn.primitive}'s body)")
    low = low_of.get(inner)
    if low is not None:     # a jit make_jaxpr staged high (transforms/jit/function.py): its twin
        return eqn.primitive.bind(*invals, **dict(eqn.params, jaxpr=low))
    if isinstance(inner, ClosedJaxpr):
        return eval_jaxpr_high(inner.jaxpr, inner.consts, invals)
    return eval_jaxpr_high(inner, [], invals)


def eval_jaxpr_high(jaxpr, consts, args) -> list:
    """Run `jaxpr` on the current trace, each high equation by its `to_lojax`."""
    env = dict(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))
    for eqn in jaxpr.eqns:
        _run_low(eqn, env)
    return [read_atom(env, v) for v in jaxpr.outvars]


def _run_low(eqn, env) -> None:
    """Run one equation on the current trace, a high one by its `to_lojax` (a call holding
    high equations by its lowered jaxpr); its results into `env`."""
    invals = [read_atom(env, a) for a in eqn.invars]
    if isinstance(eqn.primitive, HiPrimitive):
        outs = eqn.primitive.to_lojax(*invals, **eqn.params)
    elif eqn_is_high(eqn):
        rule = high_lowering_rules.get(eqn.primitive)
        outs = rule(invals, **eqn.params) if rule is not None else _lower_call(eqn, invals)
    else:
        outs = eqn.primitive.bind(*invals, **eqn.params)
    env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
