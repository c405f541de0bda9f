"""lax.switch (or lax.cond) branches whose outputs differ from the first branch's in more than
one place: several branches off, several leaves of a pytree off, or one leaf off in both dtype
and shape. JAX's message names the first pair of branches that differs; a fix of that pair
alone fails again on the next, so this card makes every branch agree at once, from what
lax/cond.py attached to the error (`branch_outputs`: each branch's output leaves).

Each leaf is given the dtype all branches' promote to (an int or bool branch cast to the float
one's) and the shape of the first branch (cond's true_fun); a branch written as a lambda on the
line has its value so rewritten in place, leaf by leaf where it returns a tuple, list or dict
written out; a def'd branch has its own `return` rewritten."""
from __future__ import annotations

import ast
import functools
import re

from ...core import dtypes
from .card import ErrorCard
from .control_flow import _branch_shape_return, _is_branch_types
from .returns import _bare, _branch_node, _branches_call, _own_return
from .rewrites import _parse_line

# a key path as JAX writes it (keystr): [0], ['a'], nested [0]['b']
_KEY = re.compile(r"\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]")


def _is_several_off(e) -> bool:
    found = _changes(e) if _is_branch_types(e) else None
    # (one leaf of a pytree off: the pair's card cast or shaped the whole value returned)
    return found is not None and (
        len(found[1]) > 1 or any(len(leaves) > 1 for leaves in found[1].values()) or
        any(both for leaves in found[1].values() for _, _, both in leaves) or
        any(found[0][j][0] for leaves in found[1].values() for j, _, _ in leaves))


def _changes(exc):
    """(each leaf's target (path, shape, dtype), {branch name: [(leaf index, the expression of
    `result` it is to return instead, whether its dtype and shape both differ)]}) for the
    branches that differ from the target, or None where the outputs were not attached or a
    dtype has no promotion (a key's)."""
    outputs = getattr(exc, "branch_outputs", None)
    if not outputs or outputs[0][2] is None:
        return None
    comparable = [leaves for _, _, leaves in outputs if leaves is not None]
    targets = []
    for j, (path, shape, _) in enumerate(outputs[0][2]):
        try:
            dtype = str(functools.reduce(dtypes.promote_types,
                                         [leaves[j][2] for leaves in comparable]))
        except (TypeError, ValueError):
            return None
        targets.append((path, shape, dtype))
    changes = {}
    for name, _, leaves in outputs:
        for j, ((path, shape, dtype), (_, got_shape, got_dtype)) in enumerate(
                zip(targets, leaves or [])):
            if (shape, dtype) == (got_shape, got_dtype):
                continue
            expression = "result"
            if shape != got_shape:
                back = _branch_shape_return(_type(dtype, shape), _type(got_dtype, got_shape))
                expression = back[len("return "):].split("    #")[0] \
                    if back.startswith("return ") else None
            if expression is not None and dtype != got_dtype:
                expression = f"jnp.asarray({expression}, jnp.{dtype})"
            changes.setdefault(name, []).append(
                (j, expression, shape != got_shape and dtype != got_dtype))
    return targets, changes


def _type(dtype, shape) -> str:
    return f"{dtype}[{','.join(map(str, shape))}]"


def _types(leaves) -> str:
    """A branch's output types in words: `float32[3]`, or `float32[3] at [0], int32[2] at
    [1]` for a pytree's leaves."""
    if len(leaves) == 1 and not leaves[0][0]:
        return _type(leaves[0][2], leaves[0][1])
    return ", ".join(f"{_type(dtype, shape)} at {path}" for path, shape, dtype in leaves)


def _leaf_slot(node, path):
    """(the node of the leaf at key path `path` in a returned value written out, a function
    putting a new node there), or None where the value is not written out so far down (a
    call's result, a dataclass)."""
    parent, put = None, None
    rest = path
    while rest:
        key = _KEY.match(rest)
        if key is None:
            return None
        rest = rest[key.end():]
        index, name = key.groups()
        if index is not None and isinstance(node, (ast.Tuple, ast.List)) and \
                not any(isinstance(e, ast.Starred) for e in node.elts) and \
                int(index) < len(node.elts):
            parent, at, field = node, int(index), "elts"
        elif name is not None and isinstance(node, ast.Dict) and None not in node.keys:
            keys = [k.value if isinstance(k, ast.Constant) else None for k in node.keys]
            if keys.count(name) != 1:
                return None
            parent, at, field = node, keys.index(name), "values"
        else:
            return None
        node = getattr(parent, field)[at]
        put = (lambda p, f, a: lambda new: getattr(p, f).__setitem__(a, new))(parent, field, at)
    return node, put


def _rewritten(value, leaves, changes, set_whole) -> bool:
    """`value` (a branch's returned expression, as ast) with each leaf in `changes` rewritten,
    in place (`set_whole` puts a new node for the whole value); False where a leaf is not
    written out in it or cannot be so rewritten (a shape no broadcast, pad or slice gives)."""
    slots = []
    for j, expression, _ in changes:
        slot = _leaf_slot(value, leaves[j][0]) if leaves[j][0] else (value, set_whole)
        if slot is None or expression is None:
            return False
        slots.append((slot, expression))
    for (node, put), expression in slots:
        text = f"({ast.unparse(node)})"
        put(ast.parse(re.sub(r"\bresult\b", lambda _: text, expression), mode="eval").body)
    return True


def _several_card(exc, where, called_from) -> ErrorCard:
    api = str(exc).split()[0]
    outputs = exc.branch_outputs
    targets, changes = _changes(exc)
    functions = {name: fun for name, fun, _ in outputs}
    tree = _parse_line(where)
    call = _branches_call(tree)
    on_line, own, left = [], [], []
    for name, changed in changes.items():
        node = _branch_node(call, name) if call is not None else None
        if isinstance(node, ast.Lambda) and _rewritten(
                node.body, targets, changed, lambda new, n=node: setattr(n, "body", new)):
            on_line.append(name)
            continue
        value = _own_return(exc, functions[name])
        was = ast.unparse(value) if value is not None else None
        holder = ast.Expression(value) if value is not None else None
        if value is not None and _rewritten(value, targets, changed,
                                            lambda new, h=holder: setattr(h, "body", new)):
            own.append(f"# in {name} ({functions[name]}), return {_types(targets)}:\n"
                       f"return {_bare(ast.unparse(holder.body))}    # in place of return "
                       f"{_bare(was)}")
        else:
            # (its value not written out where the card can reach it: each leaf's change
            # in words, `value` standing for what the branch returns)
            left.append(f"# in {name} ({functions[name]}), return {_types(targets)}:" + "".join(
                f"\n#   value{targets[j][0]} -> " + (re.sub(
                    r"\bresult\b", f"value{targets[j][0]}", expression) if expression else
                    f"(computed with the shape {tuple(targets[j][1])})")
                for j, expression, _ in changed))
    # (a branch of another structure: JAX's next error is that one; the card says so now)
    left += [f"# and {name} ({fun}) returns another structure than {outputs[0][0]}: make it "
             f"return {_types(targets)} too" for name, fun, leaves in outputs if leaves is None]
    rewrite = "\n".join(([ast.unparse(tree)] if on_line else []) + own + left)
    names = list(changes)
    mismatch = " and ".join(what for what, differs in (
        ("dtypes", any(t[2] != leaves[j][2] for _, _, leaves in outputs if leaves
                       for j, t in enumerate(targets))),
        ("shapes", any(t[1] != leaves[j][1] for _, _, leaves in outputs if leaves
                       for j, t in enumerate(targets)))) if differs)
    return ErrorCard(
        "branch-types", f"{api}: the branches return different types",
        why=(f"{api} traces every branch into one program and picks one when it runs, so each "
             f"must return the same structure, shapes and dtypes: " + "; ".join(
                 f"{name} returns {_types(leaves) if leaves else 'another structure'}"
                 for name, _, leaves in outputs)
             + "."),
        fix=(f"Make every branch return {_types(targets)}: change {_listed(names)}" +
             (" together" if len(names) > 1 else "") + " (jnp.asarray(..., jnp.<dtype>) for a "
             "dtype; broadcast, pad or slice for a shape)." +
             (" JAX names the first pair that differs; fixing that pair alone fails again on "
              "the next." if len(names) > 1 else "")),
        rewrite=rewrite,
        origin={"api": api, "branches": [[name, fun, _types(leaves) if leaves else
                                          "another structure"]
                                         for name, fun, leaves in outputs],
                "path": None, "mismatch": mismatch, "changed": names},
        docs=f"https://docs.jax.dev/en/latest/_autosummary/jax.lax.{api}.html")


def _listed(names) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
