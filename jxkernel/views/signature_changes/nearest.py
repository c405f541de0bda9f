"""Which earlier signature a new one is compared with: the one JAX 0.10.2 names "the closest
previous key" (`nearest`, by `jax_order`), the fewest differences breaking ties
(`change_distance`).
"""
from __future__ import annotations

import re

from .change import _JIT_OPTIONS, Signature
from .compare import explain_changes
from .config_changes import USER_CONTEXTS


def change_distance(old: Signature, new: Signature, changes=None) -> int:
    """How far two signatures are (to pick the nearest earlier one): a changed structure
    weighs more than any number of changed types. `changes`: explain_changes(old, new), where
    the caller has it."""
    changes = explain_changes(old, new) if changes is None else changes
    d = sum(100 if c.kind in ("structure", "traced") else 1
            for c in changes if c.kind not in ("shape", "dtype", "weak_type"))
    before = dict(old.named)
    for path, a in new.named:            # per leaf: shape, dtype and weak type count apart
        b = before.get(path)
        if b is not None:
            d += (a.shape != b.shape) + (a.dtype != b.dtype) + (a.weak_type != b.weak_type)
    return d


def nearest(history, new: Signature):
    """The entry of `history` (Signatures, oldest first) JAX 0.10.2 names as "the closest
    previous key" for `new`: the least jax_order. Where JAX's message would read the same for
    several (it stops at its first kind: {'w': f32[2]} and {'w': f32[3]}, then a key 'b'
    added to the second, both read "a dict of 2 children, before 1"), the one with the fewest
    differences in all, then the latest. None for an empty history."""
    # each pair's changes worked out once, and the distance only where orders tie: a function
    # compiled for n shapes compares the next with all n (a loop over 64 lengths: 4,122
    # explain_changes for 71 compiles, 4.7 s of its 7.9 s, before)
    ranked = []
    for i, old in enumerate(history):
        changes = explain_changes(old, new)
        ranked.append((jax_order(old, new, changes), i, old, changes))
    if not ranked:
        return None
    least = min(order for order, _, _, _ in ranked)
    tied = [(change_distance(old, new, changes), -i, old)
            for order, i, old, changes in ranked if order == least]
    return min(tied, key=lambda e: e[:2])[2]


# JAX's severity of a kind of difference (partial_eval.diff_tracing_cache_keys: the tracing
# context, then the pytree, which holds the statics, then debug info, then the input types)
_PARENT = re.compile(r"(\[[^\]]*\]|\.\w+)$")     # xs[2] -> xs, p.y -> p, p['b'] -> p
_SEVERITY = {"config": 0, "static": 1, "traced": 1, "structure": 1, "shape": 3, "dtype": 3,
             "weak_type": 3}


def jax_order(old: Signature, new: Signature, changes=None) -> tuple:
    """(severity, number of differences, text) as JAX 0.10.2 orders its earlier cache keys to
    name the closest (`min` over partial_eval.diff_tracing_cache_keys): a key differing in
    the tracing context (x64, a context manager) before one differing in the pytree (a
    static value, the structure) before one differing in input types, whatever their counts;
    then fewer differences (types: leaves, each counted once); then the text of JAX's message,
    so that of two lengths one away, f32[3] is named before f32[5] and a static 10 before 2
    ("Static(val=10)" sorts first) -- not the latest. jit options (donate_argnums) are not in
    JAX's tracing key: they do not count. `changes`: explain_changes(old, new), where the
    caller has it."""
    changes = explain_changes(old, new) if changes is None else changes
    changes = [c for c in changes if c.kind in _SEVERITY and
               not (c.kind == "config" and c.path in dict(_JIT_OPTIONS))]
    if not changes:
        return (4, 0, "")
    severity = min(_SEVERITY[c.kind] for c in changes)
    group = [c for c in changes if _SEVERITY[c.kind] == severity]
    if severity == 3:                 # "  * at x, now f32[4] and before f32[3]", in leaf order
        before, lines = dict(old.named), []
        for path, a in new.named:
            b = before.get(path)
            if b is not None and a != b:
                now, was = a.str_short(True), b.str_short(True)
                if a.weak_type != b.weak_type:
                    now, was = f"{now}{{weak_type={a.weak_type}}}", \
                        f"{was}{{weak_type={b.weak_type}}}"
                lines.append(f"  * at {path}, now {now} and before {was}")
        return (3, len(lines), "\n".join(lines))
    if severity == 1:                 # JAX's input path: the statics in argument order
        order = {name: i for i, (name, _) in enumerate(new.statics)}
        lines = [f"  * at {order.get(c.path, len(order)):04d} {c.path}, before "
                 f"{'Static(val=' + c.old + '), so' if c.kind == 'static' else c.old}"
                 for c in group]
        # JAX counts a node whose children differ once (a list two items longer: one
        # difference), where jxkernel has a change per leaf come or gone
        nodes = {_PARENT.sub("", c.path) if c.kind == "structure" else (c.path,)
                 for c in group}
        return (1, len(nodes), "\n".join(sorted(lines)))
    count = sum(abs(int(c.new) - int(c.old)) if c.path == USER_CONTEXTS else 1 for c in group)
    return (0, count, "\n".join(f"  * {c.path} differs: now {c.new} and before {c.old}"
                                 for c in group))
