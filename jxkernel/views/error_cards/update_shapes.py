"""The card for an `.at[idx]` update given a value of a shape that does not fit what idx
selects: `x.at[:, 0].set(v)` with x of shape (2, 3) and v of shape (3,) (a column has 2
entries), `x.at[0].set(jnp.ones((1, 3)))`, `x.at[:].set(x.T)`. JAX's message names dtypes and
shapes only ("Incompatible types for broadcasting: input type=float32[3] and requested
type=float32[2]", or "Cannot broadcast to shape with fewer dimensions"), not which is the
value and which the selection. Where the value holds as many numbers as the selection, the
rewrite gives it the selection's shape (`.T` for a matrix transposed, else a reshape); where it
does not, the card says which of x's rows or columns has the value's length, and writes no
guess.

    x.at[0].set(jnp.ones((1, 3)))  ->  x.at[0].set(jnp.ones((1, 3)).reshape(3))
"""
from __future__ import annotations

import ast
import math
import re

from .card import ErrorCard
from .frame_names import _named_value
from .reading import _user_frame, _user_lines
from .rewrites import _operand, _parse_line, _replaced

_INCOMPATIBLE = re.compile(r"^Incompatible types for broadcasting: input type=\w+\[([\d,]*)\] "
                           r"and requested type=\w+\[([\d,]*)\]$")
_FEWER = re.compile(r"^Cannot broadcast to shape with fewer dimensions: arr_shape=(\([\d, ]*\))"
                    r" shape=(\([\d, ]*\))$")
# `.at[idx]`'s methods that put a value in (notebook/notes/update_notes.py's UPDATES but apply)
_UPDATES = frozenset({"set", "add", "subtract", "multiply", "mul", "divide", "power", "min",
                      "max"})


def _shapes(exc):
    """(the value's shape, the selection's shape) JAX's message names, or None."""
    found = _INCOMPATIBLE.match(str(exc))
    if found:
        return tuple(tuple(int(d) for d in g.split(",") if d) for g in found.groups())
    found = _FEWER.match(str(exc))
    return tuple(ast.literal_eval(g) for g in found.groups()) if found else None


def _update_call(tree):
    """The line's `<x>.at[<idx>].<update>(value)` call, or None."""
    for call in ast.walk(tree) if tree is not None else ():
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                call.func.attr in _UPDATES and len(call.args) == 1 and \
                isinstance(call.func.value, ast.Subscript) and \
                isinstance(call.func.value.value, ast.Attribute) and \
                call.func.value.value.attr == "at":
            return call
    return None


def _is_update_shape(e) -> bool:
    if not isinstance(e, ValueError) or _shapes(e) is None:
        return False
    where, _ = _user_lines(e)
    return _update_call(_parse_line(where)) is not None


def _update_shape_card(exc, where, called_from) -> ErrorCard:
    value_shape, selected = _shapes(exc)
    tree = _parse_line(where)
    call = _update_call(tree)
    target, index, given = call.func.value.value.value, call.func.value.slice, call.args[0]
    x, idx, value = (_source_of(where, node) for node in (target, index, given))
    selection = f"{x}.at[{idx}]"
    rewrite, why_more = "", ""
    if math.prod(value_shape) == math.prod(selected) and not isinstance(given, ast.List):
        transposed = len(selected) == 2 and value_shape == selected[::-1]
        fitted = (ast.unparse(given.value) if isinstance(given, ast.Attribute) and
                  given.attr == "T" else f"{_operand(given)}.T") if transposed else \
            f"{_operand(given)}.reshape({', '.join(map(str, selected)) or '()'})"
        new = ast.Call(call.func, [ast.parse(fitted, mode="eval").body], call.keywords)
        how = "transposed" if transposed else "reshaped"
        rewrite = f"{_replaced(tree, call, new)}    # the value {how} to {selected}"
    else:
        frame = _user_frame(exc)
        shape = getattr(_named_value(frame, target.id), "shape", None) \
            if frame is not None and isinstance(target, ast.Name) else None
        why_more = _whose_length(x, shape, value_shape, selected)
    return ErrorCard(
        "update-shape", f"{selection} selects shape {selected}, and the value has shape "
                        f"{value_shape}",
        why=(f"{selection}.{call.func.attr}(v) puts v into the entries [{idx}] selects, so v "
             f"must broadcast to their shape, {selected}: the same shape, or sizes of 1 and "
             f"fewer dimensions (counted from the right; a scalar fits any). {value} has "
             f"shape {value_shape}." + why_more),
        fix=("Give the value the selection's shape (v.reshape(...), v.T, v[:, None]), or "
             "select the entries the value is for (print x.shape, and x[idx].shape for the "
             "selection)."),
        rewrite=rewrite or f"# {selection}: shape {selected}; {value}: shape {value_shape}",
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


def _source_of(where, node) -> str:
    """`node`'s code as the learner typed it (`x.at[:, 0]`, not ast's `x.at[(:, 0)]`)."""
    return ast.get_source_segment(where["code"], node) or ast.unparse(node)


def _whose_length(x, shape, value_shape, selected) -> str:
    """Which of a matrix x's rows or columns has the vector value's length, where the
    selection (an entry, a row or a column) has not: " A row of x has 3 entries (x.at[i],
    x.at[i, :]); a column, x.at[:, j], has 2."; "" otherwise."""
    if not (isinstance(shape, tuple) and len(shape) == 2 and len(value_shape) == 1 and
            len(selected) <= 1 and shape[0] != shape[1]):
        return ""
    n = value_shape[0]
    if n == shape[1]:
        return (f" A row of {x} has {n} entries ({x}.at[i], {x}.at[i, :]); a column, "
                f"{x}.at[:, j], has {shape[0]}.")
    if n == shape[0]:
        return (f" A column of {x} has {n} entries ({x}.at[:, j]); a row, {x}.at[i], has "
                f"{shape[1]}.")
    return ""
