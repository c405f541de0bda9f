"""A library's lowering rule that emits no operation, run on the NumPy backend.

The NumPy backend runs each equation with a NumPy rule, never a lowering rule (those write
StableHLO for XLA), and a library's primitive with neither a NumPy rule nor an impl was
refused there. Some rules emit nothing, though: lowered alone, their results are some of
their operands as they are, and XLA runs such an equation as a forwarding. JAX's own tests
mark effects so (`jaxpr_effects_test.py`'s `effect_p`, whose rule passes its ordered
effect's tokens on and returns no value), and pass a value through (`api_test.py`'s
`lambda ctx, x, token: [x]`). `forward_lowered` lowers each such equation alone, into a
module it then drops, and makes the forwarding in the jaxpr before NumPy runs it, in the
jaxprs its equations hold too (a cond's branches, a scan's body). Lowering it also raises
the errors JAX's lowering raises of the rule's tokens ("Lowering rule for `effect` needs to
set `tokens_out`"), as `lower()` raises them on XLA.

    >>> from jxkernel.extend.core import Primitive
    >>> from jxkernel.interpreters import mlir
    >>> p = Primitive("first_of_two"); _ = p.def_abstract_eval(lambda x, y: x)
    >>> mlir.register_lowering(p, lambda ctx, x, y: [x])
    >>> forwarding(jxkernel.make_jaxpr(p.bind)(1.0, 2.0).eqns[0])     # its result: operand 0
    (0,)
    >>> _ = lowering_rules.pop(p)
"""
from __future__ import annotations

from ..core.ir import ClosedJaxpr, Jaxpr, Literal
from ..core.primitive import foreign_primitives, lowering_rules, numpy_rules
from . import effect_tokens as _tokens
from . import stablehlo as hlo
from .lowering import LoweringRuleContext, ModuleContext


def forwarding(eqn) -> tuple | None:
    """Per result of `eqn` (a library's primitive without a NumPy rule), the index of the
    operand its lowering rule returns as it is, where the rule emits no operation; else None
    (it emits some, or raises: the NumPy backend cannot run it). JAX's ValueErrors of a rule
    that sets no tokens, or another effect's, are raised."""
    prim = eqn.primitive
    rule = lowering_rules.get(prim)
    if rule is None or prim not in foreign_primitives or prim in numpy_rules:
        return None
    avals_in, avals_out = [v.aval for v in eqn.invars], [v.aval for v in eqn.outvars]
    module = hlo.Module("numpy_forwarding")
    fn = module.function("main", [hlo.aval_type(a) for a in avals_in])
    ctx = LoweringRuleContext(ModuleContext(module, "cpu"), fn.body, avals_in, avals_out,
                              eqn.source_info, prim.name)
    if eqn.effects:
        ctx.tokens_in = _tokens.tokens_in(ctx, eqn.effects)    # (a token made first)
    emitted = len(fn.body.lines)
    try:
        outs = rule(ctx, *fn.args, **eqn.params)
    except Exception:        # (a rule that needs what this module lacks emits something)
        return None
    outs = list(outs) if prim.multiple_results else [outs]
    _tokens.take_tokens_out(ctx, prim.name)      # (XLA's lowering raises these too)
    if len(fn.body.lines) != emitted or len(outs) != len(avals_out):
        return None
    names = [a.name for a in fn.args]
    found = tuple(names.index(v.name) if isinstance(v, hlo.Value) and v.name in names else None
                  for v in outs)
    return None if None in found else found


def forward_lowered(jaxpr: Jaxpr, _done=None) -> Jaxpr:
    """`jaxpr` without the equations `forwarding` finds (their results read as the operands
    they forward), in the jaxprs its equations hold too; `jaxpr` itself where there are none.
    """
    done = {} if _done is None else _done
    sub, eqns, changed = {}, [], False
    atom = lambda v: v if type(v) is Literal else sub.get(v, v)
    for eqn in jaxpr.eqns:
        params = {k: _nested(v, done) for k, v in eqn.params.items()}
        invars = [atom(v) for v in eqn.invars]
        found = forwarding(eqn) if eqn.primitive in foreign_primitives else None
        if found is not None:
            sub.update((out, invars[i]) for out, i in zip(eqn.outvars, found))
            changed = True
            continue
        if invars != eqn.invars or any(params[k] is not eqn.params[k] for k in params):
            eqn, changed = eqn.replace(invars=invars, params=params), True
        eqns.append(eqn)
    if not changed:
        return jaxpr
    return Jaxpr(jaxpr.constvars, jaxpr.invars, [atom(v) for v in jaxpr.outvars], eqns)


def _nested(value, done: dict):
    """A param's value with its jaxprs' forwardings made (each jaxpr once: bodies are shared)."""
    if isinstance(value, ClosedJaxpr):
        if id(value) not in done:
            inner = forward_lowered(value.jaxpr, done)
            done[id(value)] = (value, value if inner is value.jaxpr else
                               ClosedJaxpr(inner, value.consts))
        return done[id(value)][1]
    if isinstance(value, Jaxpr):
        if id(value) not in done:
            done[id(value)] = (value, forward_lowered(value, done))
        return done[id(value)][1]
    if isinstance(value, tuple) and any(isinstance(v, (Jaxpr, ClosedJaxpr)) for v in value):
        parts = [_nested(v, done) for v in value]   # (a namedtuple, as custom_linear_solve's)
        if all(p is v for p, v in zip(parts, value)):
            return value
        return value._make(parts) if hasattr(value, "_make") else tuple(parts)
    return value
