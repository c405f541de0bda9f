"""The card for trees that tree_map cannot pair leaf by leaf: most often a pair passed whole
where its part was meant, `(loss, grads)` from value_and_grad or `(grads, aux)` from
has_aux=True, given to tree_map beside the parameters."""
from __future__ import annotations

import ast
import linecache
import re

from .card import ErrorCard
from .reading import _learners_frames
from .rewrites import _called, _parse_line, _replaced

# which part of a pair has the parameters' structure, and what made such a pair
_PAIRS = {
    1: ("value_and_grad returns (value, gradient)",
        "loss, {name} = jax.value_and_grad(f)(params, ...)"),
    0: ("grad with has_aux=True returns (gradient, aux)",
        "{name}, aux = jax.grad(f, has_aux=True)(params, ...)"),
}


def _is_tree_structure(e) -> bool:
    # the tree utilities attach both structures (tree_util._flatten_rest)
    return isinstance(e, ValueError) and str(e).startswith("pytree structure error") and \
        hasattr(e, "structures")


def _tree_structure_card(exc, where, called_from) -> ErrorCard:
    first, other = exc.structures
    part = _matching_part(first, other)
    name, call, tree = _tree_argument(where, exc.rest_index)
    lines = str(exc).splitlines()
    kind = lines[0].removeprefix("pytree structure error: ").removesuffix(" at key path")
    path = lines[1].strip().partition(" tree")[2] if len(lines) > 1 else ""
    why = (f"tree_map pairs the leaves of its trees one by one, so each tree after the first "
           f"must have the first's structure; these have {kind} "
           f"{f'at {path}' if path else 'at the top'}.")
    if part is not None:
        made, unpack = _PAIRS[part]
        shown = name or "the tree"
        why += (f" {shown.capitalize() if name is None else shown} is a pair whose "
                f"{'second' if part else 'first'} part has the first tree's structure: "
                f"{made}.")
        fix = (f"Pass the part: unpack the pair where it is made "
               f"({unpack.format(name=name or 'grads')}), or give tree_map "
               f"{name or 'it'}[{part}].")
        if call is not None:
            arg = call.args[2 + exc.rest_index]
            taken = ast.Subscript(arg, ast.Constant(part), ast.Load())
            rewrite = (f"{_replaced(tree, arg, taken)}    # [{part}]: the part shaped like "
                       f"the first tree")
        else:
            rewrite = f"# {unpack.format(name='grads')}"
    elif _filtered_state(exc, where) is not None:
        why, fix, rewrite = _filtered_state(exc, where, why)
    else:
        fix = ("Give tree_map trees of one structure: the same keys, lengths and types. The "
               "message names the first place they differ; jax.tree_util.tree_structure(t) "
               "prints each whole. Parameters and gradients of one model match; an optimizer "
               "state made by init(params) matches those params only.")
        a, b = ((ast.unparse(call.args[1]), ast.unparse(call.args[2 + exc.rest_index]))
                if call is not None else ("a", "b"))
        why += _difference(str(exc), *((a, b) if call is not None else
                                       ("the first tree", "the other")))
        rewrite = (f"print(jax.tree_util.tree_structure({a}))\n"
                   f"print(jax.tree_util.tree_structure({b}))    # where they differ")
    return ErrorCard(
        "tree-structure", "tree_map: the trees have different structures",
        why=why, fix=fix, rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/pytrees.html")


# what JAX's message (tree_util._prefix_error's, JAX's words) says differs at the key path
_KEYS = re.compile(r"with \d+ child keys\n    (.*)\nbut .* with \d+ child keys\n    (.*)\n"
                   r"so the symmetric difference on key sets is\n    (.*)")
_TYPES = re.compile(r"subtree of type\n    <class '([\w.]+)'>\nbut .* different type\n"
                    r"    <class '([\w.]+)'>")
_LENGTHS = re.compile(r"(\w+) of length (\d+), but .* of length (\d+)")
_METADATA = re.compile(r"<class '([\w.]+)'>\nwith metadata\n    (.*)\nbut .* with metadata\n"
                       r"    (.*)\n")


def _difference(message: str, a: str, b: str) -> str:
    r"""What differs there, in the trees' names (JAX's message says it below its first line,
    which alone the card shows): `There p has keys b, w and g has w: b is in p alone`.

        >>> _difference("with 2 child keys\n    b w\nbut at ... with 1 child keys\n    w\n"
        ...             "so the symmetric difference on key sets is\n    b", "p", "g")
        ' There p has keys b, w and g has w: b is in p alone.'
    """
    found = _KEYS.search(message)
    if found:
        first, other, diff = (part.split() for part in found.groups())
        alone = [(k, a if k in first else b) for k in diff]
        said = "; ".join(f"{k} is in {who} alone" for k, who in alone)
        return (f" There {a} has keys {', '.join(first) or 'none'} and {b} has "
                f"{', '.join(other) or 'none'}: {said}.")
    found = _TYPES.search(message)
    if found:
        return f" There {a} has a {found.group(1)} and {b} a {found.group(2)}."
    found = _LENGTHS.search(message)
    if found:
        kind, n, m = found.groups()
        return f" There {a} has a {kind} of length {n} and {b} one of length {m}."
    found = _METADATA.search(message)
    if found:
        kind, first, other = found.groups()
        what = "keys" if kind == "dict" else f"{kind}'s metadata"
        return f" There {a}'s {what} are {first} and {b}'s {other}."
    return ""


def _matching_part(first, other):
    """0 or 1: the part of `other`, a pair, whose structure is `first`'s; None otherwise."""
    children = other.children() if other.num_nodes > 1 else []
    if len(children) != 2 or other.node_data() is None or \
            other.node_data()[0] not in (tuple, list):
        return None
    return next((i for i in (1, 0) if children[i] == first), None)


def _tree_argument(where, index):
    """(the name the user passed as the tree that differs, None for an expression; the
    tree_map call; the syntax tree) on the user's line, or (None, None, None)."""
    tree = _parse_line(where)
    for node in ast.walk(tree) if tree is not None else ():
        if _called(node) in ("tree_map", "map") and len(node.args) > 2 + index:
            arg = node.args[2 + index]
            return (arg.id if isinstance(arg, ast.Name) else None), node, tree
    return None, None, None


# an optimizer's update given gradients that are None at a model's non-array fields (Equinox's
# filter_grad / filter_value_and_grad) and a state made from the whole model, with a leaf
# there (Equinox 0.13.8's train_rnn with Optax 0.2.8: `optim.init(model)`, hidden_size an
# int; JAX 0.10.2 raises this ValueError, and runs the page with the state made from
# eqx.filter(model, eqx.is_array))
_NONE_PREFIX = re.compile(r"prefix pytree .* has a subtree of type\s+<class 'NoneType'>", re.S)


def _filtered_state(exc, where, why=""):
    """(why, fix, rewrite) where `where`'s line calls `OPT.update(GRADS, STATE, ...)`, GRADS
    holds None where STATE has a leaf, a learner's line made `STATE = OPT.init(MODEL)` and
    `eqx` is Equinox in the learner's names; else None."""
    tree = _parse_line(where)
    if tree is None or not _NONE_PREFIX.search(str(exc)):
        return None
    update = next((n for n in ast.walk(tree) if isinstance(n, ast.Call) and
                   isinstance(n.func, ast.Attribute) and n.func.attr == "update" and
                   len(n.args) >= 2 and all(isinstance(a, ast.Name) for a in n.args[:2])),
                  None)
    if update is None:
        return None
    optimizer, (grads, state) = ast.unparse(update.func.value), \
        [a.id for a in update.args[:2]]
    made = re.compile(rf"^(\s*){re.escape(state)}\s*=\s*{re.escape(optimizer)}\.init\((\w+)\)"
                      rf"\s*(#.*)?$")
    for frame, _ in reversed(_learners_frames(exc)):
        eqx = frame.f_globals.get("eqx")
        if getattr(eqx, "__name__", None) != "equinox":
            continue
        for line in linecache.getlines(frame.f_code.co_filename):
            found = made.match(line.rstrip("\n"))
            if found:
                model = found.group(2)
                path = why.rpartition(" at ")[2].rstrip(".") or "a field"
                return (
                    why + f" {grads} is None at {path}, a field of {model} that holds no "
                    f"array: Equinox's filtered gradients (filter_grad, filter_value_and_grad) "
                    f"are None there, and {state} was made by {optimizer}.init({model}), "
                    f"with a leaf there.",
                    f"Make {state} from {model}'s arrays alone, as its gradients are: "
                    f"{optimizer}.init(eqx.filter({model}, eqx.is_array)).",
                    f"{state} = {optimizer}.init(eqx.filter({model}, eqx.is_array))    "
                    f"# in place of {optimizer}.init({model})")
    return None
