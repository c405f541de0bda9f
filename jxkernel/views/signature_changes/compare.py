"""Two signatures of a jitted function compared: as Changes, each with its fix (explain_changes,
which asks each of this package's modules in turn), and as the compile log's one line
(`explain`, the event's reason) with its count of differences (`distance`; which earlier
signature is the nearest is nearest.py's).
"""
from __future__ import annotations

import dataclasses
import re

from ...core.compile_record import named_repr
from ...core.sharding_types import with_axis_types
from .change import Signature, _root
from .closed_over import COUNTED, _const_changes
from .config_changes import CONTEXT_MESH, _config_changes, _widened_by_x64
from .fixes import PATTERN_SAID, _assignable, pattern_said
from .input_types import _type_changes, _under_another_mesh
from .learner_paths import _EQUINOX_LEAF
from .statics import (_ABSENT, _DEFAULT, _same_static, _static_changes,
                      _static_keyword_changes, _traced_changes)
from .structure import _parent_of, _structure_changes


def explain_changes(old: Signature | None, new: Signature) -> tuple:
    """The Changes from `old` to `new` (empty for a first call), each with its fix.

        >>> import numpy as np
        >>> from jxkernel.core.avals import ShapedArray
        >>> a = ShapedArray((3,), np.float32)
        >>> [str(c) for c in explain_changes(Signature((("x", a),)),
        ...                                  Signature((("x", a.update(shape=(4,))),)))]
        ['x: shape f32[3] -> f32[4]']
    """
    if old is None:
        return ()
    changes = [*_config_changes(old, new)]
    old_static, new_static = dict(old.statics), dict(new.statics)
    old_roots, new_roots = {_root(p) for p, _ in old.named}, {_root(p) for p, _ in new.named}
    flipped = (set(old_static) & new_roots) | (set(new_static) & old_roots)
    changes += _traced_changes(old, new, flipped)
    changes += _static_changes(old_static, new_static, flipped)
    changes += _static_keyword_changes(old, new, flipped)
    before, after = _leaves(old, flipped), _leaves(new, flipped)
    changes += _structure_changes(old, new, flipped, before, after)
    changes += [_held_by_a_class(c, old, new) for c in _type_changes(before, after)]
    consts = list(_const_changes(old.consts, new.consts))
    if changes and [c.path for c in consts] == [COUNTED]:
        # another count of closed-over arrays follows from the change found (an argument
        # left out to an array default is closed over, passed it is traced): jit's key holds
        # no constant, so it caused nothing, and its fix named a `c` of no program, "picked
        # up its new value" where no value changed (keyword_with_an_array_default_passed)
        consts = []
    changes += consts
    if any(c.kind == "config" and c.path == "jax_enable_x64" for c in changes):
        changes = [c for c in changes if not _widened_by_x64(c)]
    if any(c.path == CONTEXT_MESH and "None" not in (c.old, c.new) for c in changes):
        changes = [_under_another_mesh(c) for c in changes]     # no split brings it back
    return tuple(changes)


def _held_by_a_class(change, old, new):
    """`change` of a leaf that a class registered without keys holds (register_pytree_node:
    `p[1]`, as JAX names it), its code written on a name of its own: `p[1] = ...` cannot
    be run on an object that is no list (Pair(a, b)[1] fails), so the array is padded where
    the learner makes the object. A tuple's item, a namedtuple's or dataclass's field, is
    given a new tuple or object (fixes._assignable): `state[0] = ...` raised TypeError,
    `opt.mu = ...` AttributeError or FrozenInstanceError (an Adam state (0.0, 0.0) grown,
    opt_state_tuple_starts_as_floats_fixed: one lowering in JAX 0.10.2)."""
    if f"{change.path} = " not in change.snippet and \
            "# dataclasses.replace(...) for a dataclass" not in change.snippet:
        return change           # (code that sets no entry: no walk of the tree for its holder)
    holder = _parent_of(change.path, old, new)
    field = re.fullmatch(r"(.+)\.([A-Za-z_]\w*)", change.path) if isinstance(holder, type) and \
        (dataclasses.is_dataclass(holder) or hasattr(holder, "_fields")) else None
    if field is not None:
        # a plain template's code was made assignable not knowing the class (fixes._fixed:
        # `p = p._replace(y=...)    # dataclasses.replace(...) for a dataclass`, said to be a
        # pattern for its `...`): written again for the class that holds the field
        obj, name = map(re.escape, field.groups())
        snippet = re.sub(rf"(?m)^{obj} = {obj}\._replace\({name}=(.*)\)    # "
                         r"dataclasses\.replace\(\.\.\.\) for a dataclass$",
                         lambda m: f"{change.path} = {m.group(1)}", change.snippet)
        if snippet != change.snippet:
            change = dataclasses.replace(change, snippet=snippet,
                                         fix=change.fix.removesuffix(PATTERN_SAID))
    if f"{change.path} = " not in change.snippet:
        return change
    # (not a leaf of Equinox's own tuple of the learner's arguments, `dynamic_nodonate['rest']
    # [13]`: learner_paths renames that path `x` afterwards, a whole argument padded)
    if field is not None or holder is tuple and re.search(r"\[\d+\]$", change.path) and \
            not _EQUINOX_LEAF.fullmatch(change.path):
        snippet = _assignable(change.path, change.snippet, holder)
        return dataclasses.replace(change, snippet=snippet, fix=pattern_said(change.fix,
                                                                             snippet))
    if not re.search(r"\[\d+\]$", change.path):
        return change
    kind = holder
    if not isinstance(kind, type) or kind in (list, tuple, dict):
        return change
    snippet = (f"leaf = ...    # {change.path}: the array {kind.__name__} holds there, "
               f"before the {kind.__name__} is made\n" +
               change.snippet.replace(change.path, "leaf"))
    return dataclasses.replace(change, snippet=snippet, fix=pattern_said(change.fix, snippet))


def same_structure(new: Signature):
    """A test of an earlier signature `old`: True where explain_changes(old, `new`) can hold
    no change of the arguments' structure (the same leaf paths, treedef and node types,
    statics passed alike, none static on one side and traced on the other): its changes are
    then those of the configuration, statics and constants (`unstructured_changes`) and of the
    input types, which nearest.py ranks by the types alone, building none of their fixes.
    False where unsure.

        >>> import numpy as np
        >>> from jxkernel.core.avals import ShapedArray
        >>> a = ShapedArray((3,), np.float32)
        >>> same_structure(Signature((("x", a),)))(Signature((("x", a.update(shape=(4,))),)))
        True
    """
    paths = [p for p, _ in new.named]
    roots = {_root(p) for p in paths}
    flipped = any(name in roots for name, _ in new.statics)
    keyword = set(new.by_keyword)

    def test(old: Signature) -> bool:
        if flipped or len(old.named) != len(paths):
            return False
        try:
            return all(p == q for (p, _), q in zip(old.named, paths)) and \
                not any(name in roots for name, _ in old.statics) and \
                set(old.by_keyword) == keyword and old.treedef == new.treedef and \
                old.node_types == new.node_types
        except Exception:  # noqa: BLE001  a treedef that will not compare: explain_changes'
            return False
    return test


def unstructured_changes(old: Signature, new: Signature) -> tuple:
    """explain_changes(old, new) less its input types' changes, for two signatures of the same
    structure (same_structure): the configuration's, the statics' and the constants'."""
    return (*_config_changes(old, new),
            *_static_changes(dict(old.statics), dict(new.statics), set()),
            *_const_changes(old.consts, new.consts))


def _leaves(sig, flipped) -> dict:
    """`sig`'s named avals, but those of the arguments static on one side (_traced_changes')."""
    return {p: a for p, a in sig.named if _root(p) not in flipped}


def explain(old_sig, new_sig, old_tree, new_tree, old_static, new_static,
            structure=()) -> str:
    """Why a new signature missed: against the closest earlier one, per argument path.
    `structure`: the structure Changes found (explain_changes), which name the node that
    changed; the one line says them rather than the two PyTreeDefs."""
    if old_sig is None:
        return "first call"
    reasons = []
    before, after = dict(old_static), dict(new_static)
    for path in [p for p, _ in new_static] + [p for p, _ in old_static if p not in after]:
        old, new = before.get(path, _ABSENT), after.get(path, _ABSENT)
        if old is _ABSENT or new is _ABSENT or not _same_static(old, new):
            reasons.append(f"static {path}: {_DEFAULT if old is _ABSENT else named_repr(old)}"
                           f" -> {_DEFAULT if new is _ABSENT else named_repr(new)}")
    if old_tree != new_tree:
        said = "; ".join(f"{c.path}: {c.old} -> {c.new}" for c in structure)
        reasons.append(f"new pytree structure: {said or f'{old_tree} -> {new_tree}'}")
    else:
        for (path, old), (_, new) in zip(old_sig, new_sig):
            if old != new:
                reasons.append(f"{path}: {_type_change(old, new)}")
    return "; ".join(reasons) or "a changed configuration (x64, backend or device)"


def _type_change(old, new) -> str:
    """How one argument's type changed, for the log's line: its weak type where only that
    changed, else both types; written with their meshes' axes where they print the same
    (split alike over two meshes). A split changed alone is no weak type (f32[8@i,4@j] ->
    f32[8@j,4@i] said "weak_type False -> False")."""
    if old.shape == new.shape and old.dtype == new.dtype and old.weak_type != new.weak_type:
        return f"weak_type {old.weak_type} -> {new.weak_type}"
    before, after = old.str_short(True), new.str_short(True)
    if before == after:
        before, after = with_axis_types(old, short=True), with_axis_types(new, short=True)
    return f"{before} -> {after}"


def distance(old_sig, new_sig, old_tree, new_tree, old_static, new_static) -> int:
    """How many things differ between two signatures, as the log's one line counts them
    (public as `jxkernel.compile_log.distance`). The explainer does not pick the nearest
    earlier signature by it: nearest.py does, by JAX's order (`jax_order`), then
    `change_distance`, which counts the Changes."""
    d = sum(a != b for (_, a), (_, b) in zip(old_static, new_static))
    if old_tree != new_tree:
        return d + 1000
    return d + sum((a.shape != b.shape) + (a.dtype != b.dtype) + (a.weak_type != b.weak_type)
                   for (_, a), (_, b) in zip(old_sig, new_sig))
