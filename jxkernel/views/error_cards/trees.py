"""The cards of tree_map: trees it cannot pair leaf by leaf (most often a pair passed whole
where its part was meant, `(loss, grads)` from value_and_grad, `(grads, aux)` from
has_aux=True or `(updates, state)` from an optimizer's update, given beside the parameters;
what made the pair is read from the line that bound it, else from its value; a name unpacked
from grad's result in another order than it comes, told where it was unpacked), and a function
given another number of trees than it takes arguments (`jax.tree.map(lambda p, g: p - lr * g,
params)`)."""
from __future__ import annotations

import ast
import linecache
import re
import types

from ...tree_util import tree_leaves, tree_structure
from .autodiff_calls import misbound_gradient, misbound_on_line, unused, with_aux
from .card import ErrorCard
from .frame_names import _named_value
from .optimizers import is_optax_state
from .reading import _learners_frames, _user_frame, _user_lines
from .rewrites import _bound_above, _called, _parse_line, _replaced

# which part of a pair has the parameters' structure, and what made such a pair
_PAIRS = {1: "value_and_grad returns (value, gradient)",
          0: "grad with has_aux=True returns (gradient, aux)"}
_UPDATE = "an optimizer's update returns (updates, new state)"


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
        arg = call.args[2 + exc.rest_index] if call is not None else None
        if call is None:    # inside a library's function (Optax's apply_updates): the name
            name, arg, tree = _pair_passed(where, _user_frame(exc), first, part)
        made, unpack = _pair_made(where, name, part, _user_frame(exc))
        shown = name or "the tree"
        why += (f" {shown.capitalize() if name is None else shown} is a pair whose "
                f"{'second' if part else 'first'} part has the first tree's structure"
                f"{f': {made}' if made else ''}.")
        fix = ("Pass the part: unpack the pair where it is made"
               + (f" ({unpack})" if unpack else "")
               + f", or give {'tree_map ' if call is not None else ''}{name or 'it'}[{part}].")
        if unpack and where:        # unpacked where it is made: the state kept too
            rewrite = f"{unpack}    # above: {name} the part\n{where['code']}"
        elif arg is not None:
            taken = ast.Subscript(arg, ast.Constant(part), ast.Load())
            rewrite = (f"{_replaced(tree, arg, taken)}    # [{part}]: the part shaped like "
                       f"the first tree")
        else:
            rewrite = f"# {unpack or f'the pair unpacked where it is made, its [{part}] passed'}"
    elif (misbound := _misbound(where, name if call is not None else None)) is not None:
        why += _difference(str(exc), *_tree_names(call, exc)) + misbound[1]
        fix, rewrite = misbound[2:]
    elif _filtered_state(exc, where) is not None:
        why, fix, rewrite = _filtered_state(exc, where, why)
    else:
        fix = ("Give tree_map trees of one structure: the same keys, lengths and types. The "
               "message names the first place they differ; jax.tree_util.tree_structure(t) "
               "prints each whole. Parameters and gradients of one model match; an optimizer "
               "state made by init(params) matches those params only.")
        a, b = _tree_names(call, exc)
        why += _difference(str(exc), a, b)
        shown = [f"print(jax.tree_util.tree_structure({t}))" for t in (a, b)]
        if call is None and _user_frame(exc) is not None:
            # a library's tree_map (Optax's apply_updates): its trees by the names of the
            # user's line that hold them
            frame = _user_frame(exc)
            named = [_named_tree(where, frame, s) for s in exc.structures]
            shown = [f"print(jax.tree_util.tree_structure({n}))" if n else f"# {line}"
                     for n, line in zip(named, shown)]
        rewrite = f"{shown[0]}\n{shown[1]}    # where they differ"
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
        return f" There {a} has {_kind(found.group(1))} and {b} {_kind(found.group(2))}."
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


def _misbound(where, name):
    """misbound_gradient's (title, why, fix, rewrite) for `name`, or for the first name of the
    user's line it holds for (`name` None: the trees were passed to a library's function)."""
    return misbound_gradient(where, name) if name is not None else misbound_on_line(where)


def _tree_names(call, exc) -> tuple:
    """The two trees as the card names them: the tree_map call's arguments on the user's
    line, else "the first tree" and "the other"."""
    if call is None:
        return "the first tree", "the other"
    return ast.unparse(call.args[1]), ast.unparse(call.args[2 + exc.rest_index])


def _named_tree(where, frame, structure) -> str | None:
    """The first name on the user's line whose value has `structure`, or None."""
    tree = _parse_line(where)
    for node in ast.walk(tree) if tree is not None else ():
        value = _named_value(frame, node.id) if isinstance(node, ast.Name) else None
        if value is not None and not callable(value) and \
                not isinstance(value, types.ModuleType) and _structure_of(value) == structure:
            return node.id
    return None


def _structure_of(value):
    """tree_structure(value), None where it cannot be flattened."""
    try:
        return tree_structure(value)
    except Exception:       # noqa: BLE001 -- a value no tree holds is no match
        return None


def _kind(path: str) -> str:
    """A class JAX's message names, in a learner's words: 'jaxlib._jax.ArrayImpl' is an array,
    a tracer's class a traced array (a leaf each), other classes by their own name.

        >>> _kind("jaxlib._jax.ArrayImpl"), _kind("dict")
        ('an array (a leaf)', 'a dict')
    """
    name = path.rpartition(".")[2]
    if name == "ArrayImpl":
        return "an array (a leaf)"
    if name.endswith("Tracer"):
        return "a traced array (a leaf)"
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _matching_part(first, other):
    """0 or 1: the part of `other`, a pair, whose structure is `first`'s; None otherwise."""
    children = other.children() if other.num_nodes > 1 else []
    if len(children) != 2 or other.node_data() is None or \
            other.node_data()[0] not in (tuple, list):
        return None
    return next((i for i in (1, 0) if children[i] == first), None)


def _pair_passed(where, frame, first, part) -> tuple:
    """(the name on the user's line bound to a pair whose [part] has `first`'s structure, its
    node, the line's syntax tree), or (None, None, None)."""
    tree = _parse_line(where)
    for node in ast.walk(tree) if tree is not None and frame is not None else ():
        value = _named_value(frame, node.id) if isinstance(node, ast.Name) else None
        if isinstance(value, (tuple, list)) and len(value) == 2 and \
                tree_structure(value[part]) == first:
            return node.id, node, tree
    return None, None, None


def _pair_made(where, name, part, frame) -> tuple:
    """(what made the pair, in words; the line unpacking it where it was made, or None), read
    from the statement of the user's cell (or file) that bound `name` above its line: grad's
    or value_and_grad's call, or an optimizer's update, which returns (updates, new state).
    Bound in another cell, the pair's value tells: a number and a tree (value_and_grad's), a
    tree and Optax's state (update's). The card told every first-part pair as has_aux's, where
    Optax's update had made it."""
    bound = _bound_above(where, name)
    call = bound.value if bound is not None else None
    if call is None:
        return _pair_valued(_named_value(frame, name) if name and frame else None, part), None
    made = _called(call.func) if isinstance(call.func, ast.Call) else None
    aux = made == "grad" and with_aux(call.func)
    if (made, part) == ("value_and_grad", 1) and with_aux(call.func):
        words = "value_and_grad with has_aux=True returns ((value, aux), gradient)"
        targets = f"({unused('loss', bound)}, {unused('aux', bound)}), {name}"
    elif (made, part) == ("value_and_grad", 1) or (aux and part == 0):
        words, targets = _PAIRS[part], (f"{unused('loss', bound)}, {name}" if part else
                                        f"{name}, {unused('aux', bound)}")
    elif _called(call) == "update" and part == 0:
        state = ast.unparse(call.args[1]) if len(call.args) > 1 else "opt_state"
        words, targets = _UPDATE, f"{name}, {state}"
    else:
        return "", None
    return words, f"{targets} = {ast.unparse(call)}"


def _pair_valued(value, part) -> str:
    """What made a pair, read from its value: value_and_grad's (a number, then the tree),
    an optimizer's update (the tree, then Optax's state); "" otherwise."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        return ""
    if part == 1 and getattr(value[0], "shape", None) == ():
        return _PAIRS[1]
    return _UPDATE if part == 0 and is_optax_state(value[1]) else ""


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


# ------------------------------------------------- a function of another number of trees
# Python's TypeError as tree_map calls f: fewer trees than parameters, or more
_MISSING = re.compile(r"^(\S+)\(\) missing (\d+) required positional arguments?: (.+)$")
_TOO_MANY = re.compile(r"^(\S+)\(\) takes (\d+) positional arguments? but (\d+) (?:was|were) "
                       r"given$")


def is_tree_map(call) -> bool:
    """Whether `call` is tree_map's (`jax.tree.map`, `jax.tree_util.tree_map`, `tree_map`), not
    lax.map's or Python's map."""
    name = ast.unparse(call.func) if isinstance(call, ast.Call) else ""
    return name.endswith("tree_map") or name.endswith("tree.map")


def _tree_map_call(e):
    """(the message's match, the tree_map call, the line's tree, the user's frame) where the
    function given to tree_map on the user's line took another number of arguments; None
    otherwise."""
    found = isinstance(e, TypeError) and (_MISSING.match(str(e)) or _TOO_MANY.match(str(e)))
    where, _ = _user_lines(e) if found else (None, None)
    tree = _parse_line(where)
    call = next((n for n in ast.walk(tree) if is_tree_map(n) and len(n.args) >= 2),
                None) if tree is not None else None
    if call is None:
        return None
    function = call.args[0]
    short = found.group(1).rsplit(".", 1)[-1]
    if not (isinstance(function, ast.Lambda) and short == "<lambda>" or
            ast.unparse(function).split(".")[-1] == short):
        return None
    return found, call, tree, _user_frame(e)


def _is_tree_map_arguments(e) -> bool:
    return _tree_map_call(e) is not None


def _tree_map_arguments_card(exc, where, called_from) -> ErrorCard:
    found, call, tree, frame = _tree_map_call(exc)
    name, first = found.group(1).rsplit(".", 1)[-1], ast.unparse(call.args[1])
    trees = len(call.args) - 1
    takes = trees + int(found.group(2)) if found.re is _MISSING else int(found.group(2))
    why = (f"jax.tree.map(f, tree, *rest) calls f once per leaf of tree, with that leaf and "
           f"the leaf at the same place in each tree of rest: f is given as many arguments as "
           f"there are trees. Here {trees} tree{'s' * (trees != 1)} for {name}, which takes "
           f"{takes}.")
    if found.re is _MISSING:
        fix = (f"Give one tree per parameter of {name}, each of the structure of {first} (the "
               f"gradients beside the parameters: jax.tree.map(lambda p, g: p - lr * g, "
               f"params, grads)).")
        others = _trees_like(frame, call, takes - trees)
        if others:
            new = ast.Call(call.func, call.args + [ast.Name(n) for n in others], call.keywords)
            rewrite = (f"{_replaced(tree, call, new)}    # {', '.join(others)}: of the "
                       f"structure of {first}, if {'those are' if len(others) > 1 else 'that is'}"
                       f" the tree{'s' * (len(others) > 1)} meant")
        else:
            rewrite = (f"# jax.tree.map({ast.unparse(call.args[0])}, {first}, ...): "
                       f"{takes - trees} more tree{'s' * (takes - trees != 1)} of the "
                       f"structure of {first}")
    else:
        fix = (f"Write {name} to take {trees} arguments, a leaf of each tree in their order, "
               f"or give it {takes} tree{'s' * (takes != 1)}.")
        rewrite = f"# {name} is given one leaf of each of the {trees} trees"
    return ErrorCard(
        "tree-map-arguments", f"tree_map gives {name} one leaf of each tree: {trees} "
                              f"tree{'s' * (trees != 1)}, {takes} parameter{'s' * (takes != 1)}",
        why=why, fix=fix, rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.tree.map.html")


def _trees_like(frame, call, count) -> list:
    """The `count` names of the user's frame (none private) whose values are trees of arrays
    with the structure of the call's first tree (a name of that frame), none given to the call
    already, where exactly `count` are: `grads` beside `params`; [] otherwise (never a guess
    among more)."""
    node = call.args[1]
    first = _named_value(frame, node.id) if isinstance(node, ast.Name) and frame else None
    if first is None or not tree_leaves(first):
        return []
    names = {**frame.f_globals, **frame.f_locals}
    given = {a.id for a in call.args if isinstance(a, ast.Name)}
    given_values = [names.get(n) for n in given]
    shape = tree_structure(first)
    found = [n for n, v in names.items() if not n.startswith("_") and n not in given and
             not any(v is g for g in given_values) and _tree_of_arrays(v) and
             tree_structure(v) == shape]
    return found if len(found) == count else []


def _tree_of_arrays(value) -> bool:
    """Whether `value` is a dict, list or tuple whose leaves are all arrays (not a module,
    class or function of the user's namespace)."""
    if not isinstance(value, (dict, list, tuple)):
        return False
    leaves = tree_leaves(value)
    return bool(leaves) and all(hasattr(leaf, "shape") and hasattr(leaf, "dtype")
                                for leaf in leaves)
