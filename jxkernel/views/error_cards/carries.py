"""A loop carry's structure change told in the learner's terms: the loop the line calls (a
fori_loop runs as a scan or a while_loop, its state at loop_carry[1] or [2], which JAX's
message names), the nodes in words ("a tuple", not `<class '...ShapedArray'>`), and the
body's own names in the pattern of its return; and lax.cond / switch branches returning two
structures (a pair and an array), which had no card."""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .returns import _BODY_AT, _learners_def, _loop_argument
from .rewrites import _called, _first_call, _parse_line, _pattern

# where the learner's state sits in the carry of the loop a fori_loop runs as
_FORI_STATE = {"scan": "[1]", "while_loop": "[2]"}
# which parameter of the body is the carry
_CARRY_PARAMETER = {"scan": 0, "while_loop": 0, "fori_loop": 1}


def _as_called(where, loop) -> tuple:
    """(the loop the learner's line calls, the path prefix of its state in the message's
    carry): ("fori_loop", "[1]") for a fori_loop JAX tells of as a scan; else (loop, "")."""
    tree = _parse_line(where)
    calls = [_called(n) for n in ast.walk(tree)] if tree is not None else []
    if loop in _FORI_STATE and "fori_loop" in calls and loop not in calls:
        return "fori_loop", _FORI_STATE[loop]
    return loop, ""


def _in_learners_terms(where, loop, path, came, went, mismatch) -> tuple:
    """(loop, path, came, went) as the learner's line has them: a fori_loop's, its state's
    path without the index of the loop it runs as (`loop_carry[1]` -> the whole state), the
    nodes of a structure in words."""
    loop, strip = _as_called(where, loop)
    if strip and path and path.startswith(strip):
        path = path[len(strip):] or None
    if mismatch == "structure":
        came, went = _node_words(came), _node_words(went)
    return loop, path, came, went


def _loop_body_name(where) -> str | None:
    """The body function's name in the user's `lax.scan(body, ...)`-style call."""
    tree = _parse_line(where)
    call = _first_call(tree, set(_BODY_AT))
    body = _loop_argument(tree, _called(call), _BODY_AT) if call is not None else None
    return ast.unparse(body) if body is not None else None


def _node_words(text) -> str:
    """A pytree node as JAX's message prints it, in words: `<class 'tuple'>` -> "a tuple",
    an abstract array's class (our module's or JAX's) -> "one array", "tuple of length 2" ->
    "a tuple of length 2", "<class 'dict'> with 2 children" -> "a dict with 2 children".

        >>> _node_words("<class 'dict'> with 1 child")
        'a dict with 1 child'
    """
    counted = re.fullmatch(r"(<class '[\w.]+'>) (with \d+ child(?:ren)?)", text)
    if counted:                 # "<class 'dict'> with 2 children" (a dict lost a key)
        return f"{_node_words(counted.group(1))} {counted.group(2)}"
    named = re.fullmatch(r"<class '(?:[\w.]+\.)?(\w+)'>", text)
    if named:
        kind = named.group(1)
        if kind.endswith("ShapedArray"):
            return "one array"
        return "None" if kind == "NoneType" else f"a {kind}"
    if re.match(r"(tuple|list|dict) ", text):
        return f"a {text}"
    return text


def _structure_back(exc, body, loop, leaf, came, went) -> str:
    """The body's return as a pattern keeping the carry's structure, with the names the body
    unpacks its carry into (`x, v = state` -> `return new_x, new_v`), as comments (what each
    new value is, the card cannot know): it wrote `return carry, y` as code, a NameError
    pasted, and a scan's `, y` in a fori_loop's body, which returns the carry alone."""
    ys = ", y" if loop == "scan" else ""
    define = _learners_def(exc, body)
    params = [a.arg for a in define.args.args] if define is not None else []
    at = _CARRY_PARAMETER.get(loop, 0)
    carry = params[at] if len(params) > at else "carry"
    parts = None
    returns = []
    if define is not None:
        for node in ast.walk(define):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                    isinstance(node.targets[0], ast.Tuple) and \
                    isinstance(node.value, ast.Name) and node.value.id == carry and \
                    all(isinstance(e, ast.Name) for e in node.targets[0].elts):
                parts = [e.id for e in node.targets[0].elts]
            if isinstance(node, ast.Return) and node.value is not None:
                returns.append(node.value)
    whole = leaf == "carry"
    new = ", ".join(f"new_{p}" for p in parts) if parts and whole else f"new_{carry}"
    if whole and parts and ys:
        new = f"({new})"
    named = f"{carry if whole else leaf} as it came in, {came}" + (
        f" ({', '.join(parts)})" if parts and whole else "")
    was = f"    # in place of return {ast.unparse(returns[0])}" if len(returns) == 1 else ""
    stack = "; then the value to stack" if ys else ""
    return (f"# in {body}, return {named}, not {went}{stack}:\n" +
            _pattern(f"return {new}{ys}{was}"))


# ------------------------------------------------------------------ branches of two structures
# JAX's text (lax.cond's _check_tree_and_avals): "true_fun output is a <class 'tuple'> but
# false_fun output is a pytree leaf, so their Python types differ." (or the dicts' keys)
_BRANCH_TREES = re.compile(r"^(cond|switch) branch outputs must have the same pytree structure")
_BRANCH_NODES = re.compile(r"\n(.+?) output is (.+?) but (.+?) output is (.+?), so ")


def _is_branch_structure(e) -> bool:
    return isinstance(e, TypeError) and _BRANCH_TREES.match(str(e)) is not None and \
        _BRANCH_NODES.search(str(e)) is not None


def _branch_structure_card(exc, where, called_from) -> ErrorCard:
    """lax.cond or switch given branches of two structures, a pair and an array (`lambda x:
    (x, x)` and `lambda x: x`), or dicts of other keys: no card said so. Words and the
    pattern: which branch's value is missing the card cannot know."""
    text = str(exc)
    api = _BRANCH_TREES.match(text).group(1)
    first, node0, other, node1 = _BRANCH_NODES.search(text).groups()
    node0, node1 = (_branch_words(n) for n in (node0, node1))
    paragraphs = text.split("\n\n")
    funs = dict(re.findall(r"^(.+?) is (.+?)(?: at \S+)?$", paragraphs[1], re.M)) \
        if len(paragraphs) > 1 else {}
    return ErrorCard(
        "branch-types", f"{api}: the branches return different structures",
        why=(f"{api} traces every branch into one program and picks one when it runs, so each "
             f"must return the same structure (tuples of one length, dicts of the same keys), "
             f"shapes and dtypes: {first} returns {node0}, {other} {node1}."),
        fix=(f"Return one structure from every branch: where one branch has a value the other "
             f"has not, give the other a stand-in of its shape and dtype (jnp.zeros_like), or "
             f"return that value outside the {api}."),
        rewrite=(f"# {first} returns {node0}, {other} {node1}: give both one structure\n" +
                 _pattern("jax.lax.cond(pred, lambda x: (x, x), lambda x: (x, jnp.zeros_like(x)), "
                          "x)    # a pair from each")),
        origin={"api": api, "branches": [[first, funs.get(first, first), node0],
                                         [other, funs.get(other, other), node1]],
                "mismatch": "structure"},
        docs=f"https://docs.jax.dev/en/latest/_autosummary/jax.lax.{api}.html")


def _branch_words(text) -> str:
    """A node of a branch's output in words: "a pytree leaf" -> "one array", a dict with
    its keys ("a dict with keys ('a',)")."""
    if text == "a pytree leaf":
        return "one array"
    keyed = re.fullmatch(r"a <class '(\w+)'> with pytree metadata (.+)", text)
    if keyed:
        return f"a {keyed.group(1)} with keys {keyed.group(2)}"
    named = re.fullmatch(r"an? (<class '.+'>)", text)
    return _node_words(named.group(1)) if named else text
