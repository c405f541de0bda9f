"""A function of the learner's read back from its source, its one `return` rewritten: a
loop body's carry cast or broadcast back to the type it came in with, a lax.cond branch's value
cast or reshaped, a loop's start given the body's dtype on the learner's call (the loop-carry
and branch-types cards wrote `return new_carry.astype(...)` and `return result...`, names the
learner's code has not)."""
from __future__ import annotations

import ast
import inspect
import re
import textwrap

from .reading import _user_frame
from .rewrites import _parse_line, _pattern, _replaced


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
    if value is None:
        return None
    if loop == "scan":
        if not (isinstance(value, ast.Tuple) and len(value.elts) == 2):
            return None
        carry = value.elts[0]
    else:
        carry = value
    if path:
        index = re.fullmatch(r"\[(\d+)\]", path)
        if not (index and isinstance(carry, ast.Tuple) and int(index.group(1)) < len(carry.elts)):
            return None
        carry = carry.elts[int(index.group(1))]
    was, made = (_bare(text) for text in (
        ast.unparse(value), _replaced(ast.Expression(value), carry, make(carry))))
    return f"return {made}    # in place of return {was}"


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


def _init_as(where, loop, dtype) -> str | None:
    """The user's loop call with its start made `dtype` (`lax.scan(body, 0, xs)` ->
    `lax.scan(body, jnp.asarray(0, jnp.float32), xs)`), or None."""
    tree = _parse_line(where)
    at, keyword = _INIT_AT.get(loop, (None, None))
    for call in ast.walk(tree) if tree is not None and at is not None else ():
        if isinstance(call, ast.Call) and ast.unparse(call.func).split(".")[-1] == loop:
            start = call.args[at] if len(call.args) > at else next(
                (k.value for k in call.keywords if k.arg == keyword), None)
            if start is None:
                return None
            made = f"jnp.asarray({ast.unparse(start)}, jnp.{dtype})"
            return _replaced(tree, start, made)
    return None


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
