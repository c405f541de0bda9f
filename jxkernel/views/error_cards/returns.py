"""A function of the learner's read back from its source, its one `return` rewritten: a
loop body's carry cast or broadcast back to the type it came in with, a lax.cond branch's value
cast or reshaped, a loop's start given the body's dtype on the learner's call (the loop-carry
and branch-types cards wrote `return new_carry.astype(...)` and `return result...`, names the
learner's code has not); a lax.cond or lax.switch branch written as a lambda on the line,
its value so rewritten in place; and which of a carry's two dtypes is the one likely meant."""
from __future__ import annotations

import ast
import inspect
import re
import textwrap

import numpy as np

from ...core import dtypes
from .reading import _user_frame
from .rewrites import _called, _first_call, _parse_line, _pattern, _replaced


# where each loop takes its start: (position, keyword)
_INIT_AT = {"scan": (1, "init"), "while_loop": (2, "init_val"), "fori_loop": (3, "init_val")}


def _learners_def(exc, name):
    """The def of the learner's function `name` (looked up where the error was raised), as
    ast; None for a lambda or a function whose source cannot be read."""
    frame = _user_frame(exc)
    names = {} if frame is None else {**frame.f_globals, **frame.f_locals}
    found = names.get(name) if name.isidentifier() else None
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(found))) if found else None
    except (OSError, TypeError, SyntaxError):
        return None
    define = tree.body[0] if tree is not None and tree.body else None
    return define if isinstance(define, ast.FunctionDef) and define.name == name else None


def _own_return(exc, name):
    """The expression the learner's function `name` (looked up where the error was raised)
    returns, when its source has one plain `return` and no function inside; else None."""
    define = _learners_def(exc, name)
    if define is None or any(isinstance(n, (ast.FunctionDef, ast.Lambda))
                             for n in ast.walk(define) if n is not define):
        return None
    returns = [n for n in ast.walk(define) if isinstance(n, ast.Return)]
    if len(returns) != 1 or returns[0].value is None:
        return None
    return returns[0].value


def _carry_back(exc, body, loop, path, make) -> str | None:
    """`body`'s own return with its carry (or the carry's leaf at `path`, `[1]`) rewritten by
    `make` (its source -> new source), read from the function's source: `return c + x, x` ->
    `return (c + x).astype(jnp.int32), x`. It wrote `return new_carry.astype(...), y` and
    `value = value.astype(...)`, names the learner's body has not. None where the body has not
    one plain return of the carry."""
    value = _own_return(exc, body)
    carry = _carry_node(value, loop, path)
    if carry is None:
        return None
    was, made = (_bare(text) for text in (
        ast.unparse(value), _replaced(ast.Expression(value), carry, make(carry))))
    return f"return {made}    # in place of return {was}"


# where each loop takes its body: (position, keyword)
_BODY_AT = {"scan": (0, "f"), "while_loop": (1, "body_fun"), "fori_loop": (2, "body_fun")}


def _lambda_carry_back(where, loop, path, make) -> str | None:
    """The user's loop line with its lambda body's carry (or the carry's leaf at `path`)
    rewritten by `make`, as `_carry_back` does a def's return (the card gave a pattern,
    `return new_carry.astype(...)`, which a lambda has no place for). None where the body
    is no lambda written on the line.

        >>> _lambda_carry_back({"code": "c = lax.fori_loop(0, 3, lambda i, c: c * 1.5, c0)"},
        ...                    "fori_loop", None, lambda n: _cast(n, "int32"))
        'c = lax.fori_loop(0, 3, lambda i, c: (c * 1.5).astype(jnp.int32), c0)'
    """
    tree = _parse_line(where)
    body = _loop_argument(tree, loop, _BODY_AT)
    carry = _carry_node(body.body, loop, path) if isinstance(body, ast.Lambda) else None
    return _replaced(tree, carry, make(carry)) if carry is not None else None


def _loop_argument(tree, loop, where_taken):
    """What the line's first call of `loop` passes where `where_taken` ({loop: (position,
    keyword)}: _INIT_AT, _BODY_AT) says that loop takes it; None where it passes nothing there.

        >>> ast.unparse(_loop_argument(ast.parse("lax.scan(f, init=c0, xs=xs)"), "scan", _INIT_AT))
        'c0'
    """
    at, keyword = where_taken.get(loop, (None, None))
    call = _first_call(tree, {loop}) if at is not None else None
    if call is None:
        return None
    return call.args[at] if len(call.args) > at else next(
        (k.value for k in call.keywords if k.arg == keyword), None)


def _carry_node(value, loop, path):
    """The node of the carry (or of its leaf at `path`, `[1]`) in what a loop's body returns
    (scan's body: the pair (carry, y)); None where it is not written out there."""
    if value is None:
        return None
    if loop == "scan":
        if not (isinstance(value, ast.Tuple) and len(value.elts) == 2):
            return None
        value = value.elts[0]
    if path:
        index = re.fullmatch(r"\[(\d+)\]", path)
        if not (index and isinstance(value, ast.Tuple) and int(index.group(1)) < len(value.elts)):
            return None
        value = value.elts[int(index.group(1))]
    return value


def _bare(text) -> str:
    """A returned tuple's text without the parentheses ast.unparse puts around it."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return text
    return text[1:-1] if isinstance(node, ast.Tuple) and text.startswith("(") and \
        text.endswith(")") and node.elts else text


def _cast(node, dtype) -> str:
    text = ast.unparse(node)
    simple = isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))
    return f"{text if simple else f'({text})'}.astype(jnp.{dtype})"


def _init_as(where, loop, dtype, path=None) -> str | None:
    """The user's loop call with its start made `dtype` (`lax.scan(body, 0, xs)` ->
    `lax.scan(body, jnp.asarray(0, jnp.float32), xs)`), or its leaf at `path` (`[0]`) where
    the start is a tuple written there; None otherwise."""
    tree = _parse_line(where)
    start = _loop_argument(tree, loop, _INIT_AT)
    index = re.fullmatch(r"\[(\d+)\]", path or "[]")
    if path and index and isinstance(start, (ast.Tuple, ast.List)) and \
            int(index.group(1)) < len(start.elts):
        start = start.elts[int(index.group(1))]
    elif path:
        return None
    if start is None:
        return None
    return _replaced(tree, start, f"jnp.asarray({ast.unparse(start)}, jnp.{dtype})")


def _branch_back(exc, function, make, otherwise) -> str:
    """The branch `function`'s own return rewritten by `make` (its value's source, bracketed
    where it is an operation -> the new value), read from its source (`return x[:2]` ->
    `return jnp.broadcast_to(x[:2], (3, 2))`): it wrote `return result...`, a name the
    learner's branch has not; `otherwise` as the pattern where the source has not one plain
    return."""
    value = _own_return(exc, function)
    if value is None:
        return _pattern(otherwise)
    text = ast.unparse(value)
    simple = isinstance(value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant))
    return f"return {make(text if simple else f'({text})')}    # in place of return {text}"


def _lambda_branches_cast(where, names, dtype) -> str | None:
    """The user's `lax.cond(p, lambda x: x, lambda x: 0, v)` line with each branch in `names`
    (true_fun, false_fun), where it is a lambda written there, returning `dtype`:
    `lambda x: jnp.asarray(0, jnp.float32)` (its result may be a Python number, which has no
    .astype: the card's `return result.astype(...)` had no `result` or `return` to paste
    into a lambda). None where a branch named is no lambda of the line.

        >>> _lambda_branches_cast({"code": "y = lax.cond(p, lambda x: x, lambda x: 0, v)"},
        ...                       ["false_fun"], "float32")
        'y = lax.cond(p, lambda x: x, lambda x: jnp.asarray(0, jnp.float32), v)'
    """
    return _lambda_branches_wrapped(where, {n: f"jnp.asarray(result, jnp.{dtype})"
                                            for n in names})


# how many positional arguments a call of cond (pred and two branches) or switch (index
# and the list of branches) has at least
_BRANCHES_END = {"cond": 3, "switch": 2}


def _lambda_branches_wrapped(where, wraps) -> str | None:
    """The user's lax.cond (lax.switch) line with the lambda of each branch in `wraps`
    ({"false_fun": "jnp.broadcast_to(result, (3, 2))"}; a switch's by JAX's names, "branch 0",
    "branch2") returning its expression, `result` standing for the lambda's body; None where
    a branch named is no lambda written on the line (a switch's in the list it is given).

        >>> _lambda_branches_wrapped({"code": "lax.cond(p, lambda v: v, lambda v: v[:1], x)"},
        ...                          {"false_fun": "jnp.broadcast_to(result, (3, 2))"})
        'lax.cond(p, lambda v: v, lambda v: jnp.broadcast_to(v[:1], (3, 2)), x)'
        >>> _lambda_branches_wrapped({"code": "lax.switch(i, [lambda: 1.0, lambda: 0])"},
        ...                          {"branch1": "jnp.asarray(result, jnp.float32)"})
        'lax.switch(i, [lambda: 1.0, lambda: jnp.asarray(0, jnp.float32)])'
    """
    tree = _parse_line(where)
    call = _branches_call(tree)
    if call is None or not wraps:
        return None
    branches = [(_branch_node(call, n), template) for n, template in wraps.items()]
    if not all(isinstance(b, ast.Lambda) for b, _ in branches):
        return None
    for branch, template in branches:
        body = f"({ast.unparse(branch.body)})"
        branch.body = ast.parse(re.sub(r"\bresult\b", lambda _: body, template),
                                mode="eval").body
    return ast.unparse(tree)


def _branches_call(tree):
    """The call of lax.cond or lax.switch in the user's parsed line (one given its branches
    positionally), or None."""
    return next((node for node in ast.walk(tree) if isinstance(node, ast.Call) and
                 len(node.args) >= _BRANCHES_END.get(_called(node), len(node.args) + 1)),
                None) if tree is not None else None


def _branch_node(call, name):
    """The node of the branch JAX's message names in the user's cond or switch call: cond's
    true_fun and false_fun, an entry of the list or tuple a switch is given ("branch 0",
    "branch1": JAX's words, spaced as it spaces them); None where it is no such node."""
    if _called(call) == "cond":
        at = {"true_fun": 1, "false_fun": 2}.get(name)
        return call.args[at] if at is not None else None
    index = re.fullmatch(r"branch ?(\d+)", name)
    listed = call.args[1]
    if index is None or not isinstance(listed, (ast.List, ast.Tuple)) or \
            int(index.group(1)) >= len(listed.elts):
        return None
    return listed.elts[int(index.group(1))]


def _widened(dtype_in, dtype_out) -> bool:
    """Whether the body's dtype is the one both promote to (an int carry made float by
    `c + 0.5` or `c / 2`): what its arithmetic computes, so the carry's likely meaning; a
    carry the body narrowed (a float made int by .astype, argmax) keeps its own dtype."""
    try:
        return dtype_in != dtype_out and \
            dtypes.promote_types(dtype_in, dtype_out) == np.dtype(dtype_out)
    except (TypeError, ValueError):     # (a key's dtype, an extended one: no promotion)
        return False
