"""A library's lowering rule run on the NumPy backend as the operations it emits.

The NumPy backend runs each equation with a NumPy rule, never a lowering rule (those write
StableHLO for XLA), and a library's primitive with neither a NumPy rule nor an impl was
refused there. Many such rules emit little, though, and nothing the NumPy backend cannot
run: some emit no operation at all, their results some of their operands (JAX's
`jaxpr_effects_test.py` marks effects with an `effect_p` whose rule passes the ordered
effect's tokens on and returns no value; `api_test.py`'s returns an operand), and others only
the elementwise operations of `jax._src.lib.mlir.dialects.hlo`'s builders (`hlo.sine(x)`,
`hlo.AddOp(hlo.MulOp(x, y), z)`, as JAX's primitives guide writes one), in place or in the
private function a rule registered with `inline=False` is called as. `run_user_rules`
lowers each such equation alone, into a module it then drops, and puts in its place the
equations of the lax primitives those operations are the lowerings of (`sin`, `mul`, `add`:
computed by their NumPy rules, as XLA computes the operations) or nothing where it forwards,
in the jaxprs its equations hold too (a cond's branches, a scan's body), before NumPy runs
the program. Lowering it also raises the errors JAX's lowering raises of the rule's tokens
("Lowering rule for `effect` needs to set `tokens_out`"), as `lower()` raises them on XLA.

    >>> from jxkernel.extend.core import Primitive
    >>> from jxkernel.interpreters import mlir
    >>> p = Primitive("first_of_two"); _ = p.def_abstract_eval(lambda x, y: x)
    >>> mlir.register_lowering(p, lambda ctx, x, y: [x])
    >>> user_rule_ops(jxkernel.make_jaxpr(p.bind)(1.0, 2.0).eqns[0])   # no ops; operand 0
    ((), (('arg', 0),))
    >>> _ = lowering_rules.pop(p)
"""
from __future__ import annotations

import re

from ..core.ir import Eqn, Jaxpr, Literal, Var, rewrite_param_jaxprs
from ..core.primitive import all_primitives, foreign_primitives, lowering_rules, numpy_rules
from . import effect_tokens as _tokens
from . import stablehlo as hlo
from .lowering import LoweringRuleContext, ModuleContext

# The operations the `hlo` builders emit, each the lowering of one lax primitive (its name),
# with the primitives whose equations carry `accuracy` (None: XLA's default)
_PRIMITIVE_OF = {
    "add": "add", "subtract": "sub", "multiply": "mul", "divide": "div", "remainder": "rem",
    "maximum": "max", "minimum": "min", "power": "pow", "atan2": "atan2", "and": "and",
    "or": "or", "xor": "xor", "not": "not", "negate": "neg", "abs": "abs",
    "exponential": "exp", "exponential_minus_one": "expm1", "log": "log",
    "log_plus_one": "log1p", "logistic": "logistic", "sine": "sin", "cosine": "cos",
    "tan": "tan", "tanh": "tanh", "sqrt": "sqrt", "rsqrt": "rsqrt", "cbrt": "cbrt",
    "floor": "floor", "ceil": "ceil", "sign": "sign"}
_WITH_ACCURACY = frozenset("exp expm1 log log1p logistic sin cos tan tanh sqrt rsqrt cbrt"
                           .split())
# `%3 = stablehlo.sine %arg0 : tensor<f32> loc(...)`: one op of one type (stablehlo.py's short
# form, which every builder's operation takes: operands and result of one type), and
# `%4:2 = func.call @effect(%0, %arg1) : ...`, a rule registered with inline=False
_OP_LINE = re.compile(r"^(%[\w#]+) = stablehlo\.(\w+) (%[\w#]+(?:, %[\w#]+)*) : ")
_CALL_LINE = re.compile(r"^(?:(%\w+)(?::\d+)? = )?func\.call @(.+?)\(([^)]*)\) : ")
# `%2 = "stablehlo.after_all"(%0) : ...`: a token made or joined (mlir.TokenSet.create)
_AFTER_ALL = re.compile(r'^(%[\w#]+) = "stablehlo\.after_all"\(')
_TOKEN = ("token",)          # a reference to an ordered effect's token: no value NumPy reads


def user_rule_ops(eqn) -> tuple | None:
    """What `eqn`'s lowering rule emits, where the NumPy backend can run it: (ops, results),
    each op (lax primitive name, its operands) and each result, as each operand, a reference:
    ('arg', i) the equation's operand i, ('op', j) op j's result. None where `eqn` is not a
    library's primitive without a NumPy rule, or its rule emits another operation (or
    raises). JAX's ValueErrors of a rule that sets no tokens, or another effect's, are raised.
    """
    prim = eqn.primitive
    rule = lowering_rules.get(prim)
    if rule is None or prim not in foreign_primitives or prim in numpy_rules:
        return None
    avals_in, avals_out = [v.aval for v in eqn.invars], [v.aval for v in eqn.outvars]
    module = hlo.Module("numpy_user_rule")
    fn = module.function("main", [hlo.aval_type(a) for a in avals_in])
    ctx = LoweringRuleContext(ModuleContext(module, "cpu"), fn.body, avals_in, avals_out,
                              eqn.source_info, prim.name)
    if eqn.effects:
        ctx.tokens_in = _tokens.tokens_in(ctx, eqn.effects)    # (a token made first)
    start = len(fn.body.lines)
    try:
        outs = rule(ctx, *fn.args, **eqn.params)
    except Exception:        # (a rule that needs what this module lacks emits something else)
        return None
    emitted = fn.body.lines[start:]
    outs = list(outs) if prim.multiple_results else [outs]
    _tokens.take_tokens_out(ctx, prim.name)      # (XLA's lowering raises these too)
    if len(outs) != len(avals_out):
        return None
    refs = {a.name: ("arg", i) for i, a in enumerate(fn.args)}
    refs.update((t.name, _TOKEN) for _, t in ctx.tokens_in.items())
    ops = []
    if not _read(emitted, refs, {f.name: f for f in module.functions}, ops):
        return None
    results = tuple(refs.get(v.name) if isinstance(v, hlo.Value) else None for v in outs)
    return None if None in results or _TOKEN in results else (tuple(ops), results)


def _read(lines, refs: dict, functions: dict, ops: list) -> bool:
    """`lines` (a block's) read into `ops`, each value they make named in `refs`; False at
    an operation the NumPy backend cannot run. A call's function is read likewise, its
    arguments the call's operands."""
    for line in lines:
        found = _OP_LINE.match(line)
        if found:
            name = _PRIMITIVE_OF.get(found.group(2))
            operands = [refs.get(v) for v in found.group(3).split(", ")]
            if not name or None in operands or _TOKEN in operands:
                return False
            refs[found.group(1)] = ("op", len(ops))
            ops.append((name, tuple(operands)))
            continue
        found = _AFTER_ALL.match(line)
        if found:
            refs[found.group(1)] = _TOKEN
            continue
        found = _CALL_LINE.match(line)
        callee = found and functions.get(found.group(2))
        if not callee:
            return False
        given = found.group(3).split(", ") if found.group(3) else []
        inner = {a.name: refs.get(v) for a, v in zip(callee.args, given)}
        if len(given) != len(callee.args) or None in inner.values() or \
                not _read(callee.body.lines[:-1], inner, functions, ops):   # (not its return)
            return False
        outs = [inner.get(v.name) for v in callee.results]
        if None in outs:
            return False
        if len(outs) == 1:
            refs[found.group(1)] = outs[0]
        else:
            refs.update((f"{found.group(1)}#{i}", r) for i, r in enumerate(outs))
    return True


def run_user_rules(jaxpr: Jaxpr, _done=None) -> Jaxpr:
    """`jaxpr` with each equation `user_rule_ops` reads replaced by the equations of its
    operations (none where it forwards operands), in the jaxprs its equations hold too;
    `jaxpr` itself where there are none."""
    if _done is None and not any(p in lowering_rules and p not in numpy_rules
                                 for p in foreign_primitives):
        return jaxpr          # (no library's rule to run: the walk below is skipped)
    done = {} if _done is None else _done
    sub, eqns, changed = {}, [], False
    atom = lambda v: v if type(v) is Literal else sub.get(v, v)
    for eqn in jaxpr.eqns:
        params = {k: rewrite_param_jaxprs(v, run_user_rules, done)
                  for k, v in eqn.params.items()}
        invars = [atom(v) for v in eqn.invars]
        found = user_rule_ops(eqn) if eqn.primitive in foreign_primitives else None
        if found is not None:
            eqns.extend(_equations(eqn, invars, *found, sub))
            changed = True
            continue
        if invars != eqn.invars or any(params[k] is not eqn.params[k] for k in params):
            eqn, changed = eqn.replace(invars=invars, params=params), True
        eqns.append(eqn)
    if not changed:
        return jaxpr
    return Jaxpr(jaxpr.constvars, jaxpr.invars, [atom(v) for v in jaxpr.outvars], eqns)


def _equations(eqn, invars, ops, results, sub) -> list:
    """The equations of `ops` on `invars` (each result typed as its first operand: the
    operations take and give one type); `sub` learns what `eqn`'s results are read as."""
    made, out = [], []
    read = lambda ref: invars[ref[1]] if ref[0] == "arg" else made[ref[1]]
    for name, operands in ops:
        args = [read(r) for r in operands]
        var = Var(args[0].aval)
        params = {"accuracy": None} if name in _WITH_ACCURACY else {}
        out.append(Eqn(args, [var], all_primitives[name], params, eqn.source_info, eqn.mesh))
        made.append(var)
    sub.update((v, read(r)) for v, r in zip(eqn.outvars, results))
    return out
