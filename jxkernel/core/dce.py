"""Dead-code elimination: the equations of a jaxpr whose results nothing reads, dropped.

jit lowers its jaxpr without them, as JAX's jit does when `keep_unused` is False (JAX's
`pe.dce_jaxpr`): `jit(grad(f))` then shows no forward value that grad throws away.

    >>> jaxpr = make_jaxpr(grad(lambda x: jnp.sin(x) * 2))(1.0).jaxpr
    >>> [e.primitive.name for e in jaxpr.eqns]
    ['sin', 'cos', 'mul', 'mul', 'mul']
    >>> [e.primitive.name for e in dce_jaxpr(jaxpr).eqns]
    ['cos', 'mul', 'mul']

Kept whatever it reads: equations with effects (debug callbacks, io_callback, a side-effecting
FFI call, or such an equation inside a nested jaxpr) and those without results (checks,
`dce_sink`). `dce_jaxpr` keeps nested jaxprs whole and all inputs, so the calling convention
is the jaxpr's. For lowering, as JAX's jit, more goes: `prune_unused_inputs` drops the inputs
nothing reads (JAX's kept_var_idx), and `prune_calls=True` has each jit and shard_map
equation take only the operands its body reads (`prune_rules`) and each cond, scan and custom
rule compute only the results read (`dce_rules`, JAX's dce rules). `dce_jaxpr_outputs` is
JAX's `pe.dce_jaxpr`: the outputs asked for, through every nested jaxpr a rule prunes.
"""
from __future__ import annotations

from .ir import ClosedJaxpr, Jaxpr, Var, jaxpr_params
from .lru import TRACES, WeakLRU
from .primitive import dceable_effects, foreign_primitives, side_effecting


# primitive -> rule(eqn) -> the equation taking only the operands its body reads (or `eqn`
# itself): jit's and shard_map's, registered beside them. dce_jaxpr(prune_calls=True) applies
# them, so a program's input only a nested call's unused argument is not read either (JAX's
# dce rules of pjit and shard_map).
prune_rules: dict = {}

# primitive -> rule(used_outputs, eqn) -> (used_inputs, the equation computing only the used
# outputs, or None): JAX's dce_rules, registered beside their primitives (cond, scan, jit,
# checkpoint, custom_jvp/vjp). dce_jaxpr_outputs applies them, so a loop or a branch inside
# keeps only what its used results need (a checkpoint's recomputation: no primal `sin`).
dce_rules: dict = {}

# the primitives of dce_rules whose rule keeps its body's effectful equations (jit's): an
# effectful equation of one is pruned by it too, dropping the operands nothing reads (an
# effect on an input then names the one left, as JAX's pjit dce rule); another effectful
# equation stays whole
effect_aware_dce: set = set()


def dce_jaxpr(jaxpr: Jaxpr, prune_calls: bool = False) -> Jaxpr:
    """`jaxpr` without its dead equations (the same object when it has none); `prune_calls`:
    its calls (`prune_rules`) taking only the operands their bodies read, and its loops,
    branches and custom rules (`dce_rules`) computing only the results read, as JAX's jit
    lowers (a custom_vjp fwd with `optimize_remat` whose residuals go unread runs as its
    primal function)."""
    live = {v for v in jaxpr.outvars if isinstance(v, Var)}
    kept, changed = [], False
    for eqn in reversed(jaxpr.eqns):
        used_outs = [v in live for v in eqn.outvars]
        effect = _has_effect(eqn)
        if any(used_outs) or effect:
            rule = prune_rules.get(eqn.primitive) if prune_calls else None
            if rule is not None:
                eqn, was = rule(eqn), eqn
                changed = changed or eqn is not was
            elif prune_calls and not effect and eqn.primitive in dce_rules:
                eqn, changed = dce_rules[eqn.primitive](used_outs, eqn)[1], True
            kept.append(eqn)
            live.update(v for v in eqn.invars if isinstance(v, Var))
    if len(kept) == len(jaxpr.eqns) and not changed:
        return jaxpr
    return Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars, kept[::-1])


def dce_jaxpr_outputs(jaxpr: Jaxpr, used_outputs, instantiate=False) -> tuple[Jaxpr, list]:
    """JAX's `pe.dce_jaxpr`: (`jaxpr` keeping only the outputs `used_outputs` flags (a bool or
    one per output) and what they need, taking only the inputs they read or `instantiate`
    keeps (a bool or one per input); which inputs it takes). Nested jaxprs are pruned too,
    by their primitive's `dce_rules`.

        >>> j = make_jaxpr(lambda x, y: (jnp.sin(x), y * 2))(1.0, 2.0).jaxpr
        >>> pruned, used = dce_jaxpr_outputs(j, [True, False]); used
        [True, False]
        >>> [e.primitive.name for e in pruned.eqns]
        ['sin']
    """
    if isinstance(used_outputs, bool):
        used_outputs = [used_outputs] * len(jaxpr.outvars)
    if isinstance(instantiate, bool):
        instantiate = [instantiate] * len(jaxpr.invars)
    outvars = [v for v, used in zip(jaxpr.outvars, used_outputs) if used]
    live = {v for v in outvars if isinstance(v, Var)}
    kept = []
    for eqn in reversed(jaxpr.eqns):
        used_outs = [v in live for v in eqn.outvars]
        effect = _has_effect(eqn)
        if not any(used_outs) and not effect:
            continue
        operands, rule = eqn.invars, dce_rules.get(eqn.primitive)
        # (an effectful equation stays whole unless its rule keeps effects: others need not)
        if rule is None or (effect and eqn.primitive not in effect_aware_dce):
            used_ins = [True] * len(operands)
        else:
            used_ins, pruned = rule(used_outs, eqn)
            if pruned is None and effect:
                used_ins = [True] * len(operands)
            else:
                eqn = pruned
        if eqn is not None:
            kept.append(eqn)
        live.update(v for v, u in zip(operands, used_ins) if u and isinstance(v, Var))
    used_inputs = [v in live or bool(keep) for v, keep in zip(jaxpr.invars, instantiate)]
    invars = [v for v, used in zip(jaxpr.invars, used_inputs) if used]
    return Jaxpr(jaxpr.constvars, invars, outvars, kept[::-1]), used_inputs


_closed_dce = WeakLRU(TRACES)   # (ClosedJaxpr, (used, instantiate)) -> dce_closed_outputs'


def dce_closed_outputs(closed: ClosedJaxpr, used_outputs, instantiate=False):
    """dce_jaxpr_outputs of a ClosedJaxpr, its consts kept: (ClosedJaxpr, used inputs); the
    same ClosedJaxpr each time for the same jaxpr and flags (`closed` itself when nothing
    goes), so that what a jit or eager call caches on the jaxpr is found again."""
    n_in, n_out = len(closed.jaxpr.invars), len(closed.jaxpr.outvars)
    used_outputs = (used_outputs,) * n_out if isinstance(used_outputs, bool) else \
        tuple(used_outputs)
    instantiate = (instantiate,) * n_in if isinstance(instantiate, bool) else tuple(instantiate)
    key = (closed, (used_outputs, instantiate))
    found = _closed_dce.get(key)
    if found is None:
        jaxpr, used = dce_jaxpr_outputs(closed.jaxpr, used_outputs, instantiate)
        same = all(used) and all(used_outputs) and len(jaxpr.eqns) == len(closed.jaxpr.eqns)
        # (None for "closed itself": an entry holding its own key would never go)
        found = _closed_dce[key] = (None if same else ClosedJaxpr(jaxpr, closed.consts), used)
    pruned, used = found
    return (closed if pruned is None else pruned), used


def pruned_body(body: Jaxpr) -> tuple[Jaxpr, tuple | None]:
    """(a call's `body` without its dead code and the invars nothing reads, the kept invars'
    indices), or (`body`, None) where it reads them all: what a prune rule gives its call.

        >>> pruned_body(make_jaxpr(lambda x, y: (jnp.sin(x), y + 1)[1])(1.0, 2.0).jaxpr)[1]
        (1,)
    """
    n = len(body.constvars)
    pruned, kept = prune_unused_inputs(dce_jaxpr(body, prune_calls=True), keep=range(n))
    return (body, None) if kept is None else (pruned, tuple(i - n for i in kept[n:]))


def prune_unused_inputs(jaxpr: Jaxpr, keep=()) -> tuple[Jaxpr, tuple | None]:
    """(`jaxpr` without the inputs nothing reads, the kept ones' indices among constvars +
    invars), as JAX's jit prunes a program's arguments unless keep_unused (pxla's
    prune_unused_inputs); (`jaxpr`, None) when every input is read. `keep`: indices kept
    anyway (a Ref's input, whose final value the program returns).

        >>> prune_unused_inputs(make_jaxpr(lambda x, y: x * 2)(1.0, 2.0).jaxpr)[1]
        (0,)
    """
    read = {v for e in jaxpr.eqns for v in e.invars if isinstance(v, Var)}
    read.update(v for v in jaxpr.outvars if isinstance(v, Var))
    inputs = jaxpr.constvars + jaxpr.invars
    kept = tuple(i for i, v in enumerate(inputs) if v in read or i in keep)
    if len(kept) == len(inputs):
        return jaxpr, None
    n = len(jaxpr.constvars)
    return Jaxpr([inputs[i] for i in kept if i < n], [inputs[i] for i in kept if i >= n],
                 jaxpr.outvars, jaxpr.eqns), kept


def _has_effect(eqn) -> bool:
    # an equation without results: jxkernel's own primitive's stands for an effect it does
    # not type (debug_print's); a library's, or a call's whose body has none, is dead code,
    # as JAX's without effects
    inner = jaxpr_params(eqn.params)        # (read once: asked of every equation)
    if not eqn.outvars and eqn.primitive not in foreign_primitives and not inner:
        return True
    effects = eqn.effects
    return ((bool(effects) and bool(dceable_effects.filter_not_in(effects)))
            or eqn.primitive in side_effecting
            or bool(eqn.params.get("has_side_effect"))
            or any(_any_effect(j.jaxpr if isinstance(j, ClosedJaxpr) else j) for j in inner))


def _any_effect(jaxpr: Jaxpr) -> bool:
    return any(_has_effect(eqn) for eqn in jaxpr.eqns)


def dce_closed(closed: ClosedJaxpr) -> ClosedJaxpr:
    """`closed` without its dead equations and without the consts nothing then reads (a Ref
    its `ref_writes` names stays): a linearization keeps only the residuals its tangents use,
    as JAX's linearize DCEs its linear jaxpr (`saved_residuals(nn.softmax, x)`: three, not
    the mask of reduce_max whose tangent stop_gradient drops).

        >>> c = make_jaxpr(lambda x: (jnp.sin(x), 2.0)[1])(1.0)
        >>> dce_closed(c).eqns
        []
    """
    jaxpr = dce_jaxpr(closed.jaxpr)
    read = {v for e in jaxpr.eqns for v in e.invars if isinstance(v, Var)}
    read.update(v for v in jaxpr.outvars if isinstance(v, Var))
    keep = [i for i, v in enumerate(jaxpr.constvars) if v in read or i in closed.ref_writes]
    if jaxpr is closed.jaxpr and len(keep) == len(jaxpr.constvars):
        return closed
    new_index = {old: new for new, old in enumerate(keep)}
    pruned = Jaxpr([jaxpr.constvars[i] for i in keep], jaxpr.invars, jaxpr.outvars, jaxpr.eqns)
    return ClosedJaxpr(pruned, [closed.consts[i] for i in keep],
                       tuple(new_index[i] for i in closed.ref_writes))
