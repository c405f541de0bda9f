"""Which earlier signature a new one is compared with: the one JAX 0.10.2 names "the closest
previous key" (`nearest`, by `jax_order`), the fewest differences breaking ties
(`change_distance`).
"""
from __future__ import annotations

import re

from .change import _JIT_OPTIONS, Signature
from .compare import explain_changes, same_structure, unstructured_changes
from .config_changes import USER_CONTEXTS
from .fixes import unfixed
from .input_types import _mesh_alone


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
    # explain_changes for 71 compiles, 4.7 s of its 7.9 s, before). No fix is built for any
    # of them (unfixed: the caller explains the nearest alone, with its fixes), and one of
    # the same structure makes no Change of its input types, which are ranked by the types
    # alone (nearest was 17% of test_recompile_corpus.py's profiled time, before)
    ranked, same = [], same_structure(new) if history else None
    with unfixed():
        for i, old in enumerate(history):
            if same(old):
                changes = unstructured_changes(old, new)
                ranked.append((_order_with_types(old, new, changes), i, old, changes))
            else:
                changes = explain_changes(old, new)
                ranked.append((jax_order(old, new, changes), i, old, changes))
    if not ranked:
        return None
    least = min(order for order, _, _, _ in ranked)
    tied = [(change_distance(old, new, changes), -i, old)
            for order, i, old, changes in ranked if order == least]
    return min(tied, key=lambda e: e[:2])[2]


def _order_with_types(old: Signature, new: Signature, changes) -> tuple:
    """jax_order(old, new) of two signatures of the same structure, from their `changes` less
    the input types' (unstructured_changes): theirs where one counts (a configuration's or a
    static's outranks any type's), else the types' order, or none (4) where no leaf's type
    differs but in the mesh it is typed on (as _type_changes, which makes no Change of those)."""
    if any(_counted(c) for c in changes):
        return jax_order(old, new, changes)
    before = dict(old.named)
    if any(a != before[p] and not _mesh_alone(a, before[p]) for p, a in dict(new.named).items()):
        return _type_order(old, new)
    return (4, 0, "")


# JAX's severity of a kind of difference (partial_eval.diff_tracing_cache_keys: the tracing
# context, then the pytree, which holds the statics, then debug info, then the input types)
_PARENT = re.compile(r"(\[[^\]]*\]|\.\w+)$")     # xs[2] -> xs, p.y -> p, p['b'] -> p
_SEVERITY = {"config": 0, "static": 1, "traced": 1, "structure": 1, "shape": 3, "dtype": 3,
             "weak_type": 3}


def _counted(change) -> bool:
    """Whether JAX's order counts `change`: a kind its tracing key holds (jit options are not
    in it)."""
    return change.kind in _SEVERITY and not (change.kind == "config" and
                                             change.path in _OPTION_NAMES)


_OPTION_NAMES = frozenset(name for name, _ in _JIT_OPTIONS)


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
    changes = [c for c in changes if _counted(c)]
    if not changes:
        return (4, 0, "")
    severity = min(_SEVERITY[c.kind] for c in changes)
    group = [c for c in changes if _SEVERITY[c.kind] == severity]
    if severity == 3:
        return _type_order(old, new)
    if severity == 1:                 # JAX's input path: the statics in argument order
        order = {name: i for i, (name, _) in enumerate(new.statics)}
        moved = [c for c in group if _keyword_move(c)]
        lines = [f"  * at {order.get(c.path, len(order)):04d} {c.path}, before "
                 f"{'Static(val=' + c.old + '), so' if c.kind == 'static' else c.old}"
                 for c in group if c not in moved]
        # JAX counts a node whose children differ once (a list two items longer: one
        # difference), where jxkernel has a change per leaf come or gone
        nodes = {_PARENT.sub("", c.path) if c.kind == "structure" else (c.path,)
                 for c in group if c not in moved}
        if moved:
            lines.append(_keyword_line(old, new))
        return (1, len(nodes) + 2 * bool(moved), "\n".join(sorted(lines)))
    count = sum(abs(int(c.new) - int(c.old)) if c.path == USER_CONTEXTS else 1 for c in group)
    return (0, count, "\n".join(f"  * {c.path} differs: now {c.new} and before {c.old}"
                                 for c in group))


def _keyword_move(change) -> bool:
    """Whether `change` is arguments come by keyword in one call, by position in the other."""
    return change.kind == "structure" and {change.old, change.new} == {"by keyword",
                                                                      "by position"}


def _keyword_line(old: Signature, new: Signature) -> str:
    """jax_order's line for arguments moved between position and keyword. JAX 0.10.2 tells
    them as two differences, the positional tuple's length first ("  * at input path [0], now
    tuple of length 0 and before tuple of length 1"), so that of f(x, scale=s) and f(x, s),
    f(x=x, scale=s) is nearest the first (one length away, "x" moved) and not the second
    ("scale, x" moved, as the latest). Written to sort before the lines of any path: JAX's
    "[0]," sorts before the paths under it."""
    try:
        now, was = (len(s.treedef.children()[0].children()) for s in (new, old))
    except (AttributeError, IndexError, TypeError, ValueError):
        now = was = 0
    return f"  * at (0), now tuple of length {now} and before tuple of length {was}"


def _type_order(old: Signature, new: Signature) -> tuple:
    """jax_order's (3, how many leaves, text) for a difference in input types: "  * at x, now
    f32[4] and before f32[3]", in leaf order."""
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
