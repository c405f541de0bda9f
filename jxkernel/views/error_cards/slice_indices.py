"""The card for lax.dynamic_slice / dynamic_update_slice given a bare number where they take
one start index (and one size) per axis: `lax.dynamic_slice(x, i, 2)` meets Python's
"object of type 'int' has no len()" (JAX's own words, from len()), a traced `i` "len() of
unsized object", the sizes alone a number "safe_map() argument 2 is shorter than argument 1",
and too few indices for a matrix JAX's "Length of slice indices must
match". The rewrite writes them as tuples, one entry per axis: the axes not named start at
0 and keep their whole size."""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .frame_names import _named_value
from .reading import _user_frame, _user_lines
from .rewrites import _called, _first_call, _parse_line

_NO_LEN = ("object of type 'int' has no len()", "len() of unsized object")
# the start indices a tuple and the sizes a bare number: JAX 0.10.2's zip of the two
_SHORTER = "safe_map() argument 2 is shorter than argument 1"
_LENGTH = re.compile(r"^Length of slice indices must match number of operand dimensions "
                     r"\((\d+) vs \(([\d, ]*)\)\)$")
_CALLS = {"dynamic_slice": (1, 2), "dynamic_update_slice": (2, None)}   # (indices, sizes)


def _is_slice_indices(e) -> bool:
    if isinstance(e, ValueError) and (_LENGTH.match(str(e)) or str(e) == _SHORTER):
        return _call_on_line(e) is not None
    return isinstance(e, TypeError) and str(e) in _NO_LEN and _call_on_line(e) is not None


def _call_on_line(exc):
    tree = _parse_line(_user_lines(exc)[0])
    return None if tree is None else _slice_call(tree)


def _slice_call(tree):
    return _first_call(tree, _CALLS, 3)


def _slice_indices_card(exc, where, called_from) -> ErrorCard:
    tree = _parse_line(where)
    call = _slice_call(tree) if tree is not None else None
    name = _called(call) if call is not None else "dynamic_slice"
    found = _LENGTH.match(str(exc))
    shape = tuple(int(d) for d in found.group(2).split(",") if d.strip()) if found else \
        _operand_shape(exc, call)
    sizes = " and one size per axis (slice_sizes)" if name == "dynamic_slice" else ""
    why = (f"lax.{name} takes one start index per axis of the operand (start_indices){sizes}, "
           f"each written as a sequence, even for one axis: (i,) for a vector, not i.")
    if shape is not None:
        why += f" The operand has shape {shape}: {len(shape)} of each."
    rewrite = _rewrite(tree, call, shape) if call is not None and shape is not None else None
    return ErrorCard(
        "slice-indices", f"lax.{name} takes a tuple of start indices, one per axis",
        why=why,
        fix=("Write the indices (and sizes) as tuples with one entry per axis; for the axes "
             "you do not slice, start at 0 and take the whole size. To slice along one axis "
             "only, lax.dynamic_slice_in_dim(x, i, size, axis=0) takes plain numbers."),
        rewrite=(f"{rewrite}    # one entry per axis" if rewrite else
                 "y = lax.dynamic_slice(x, (i,), (size,))    # a vector: one entry each"),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.lax.dynamic_slice.html")


def _operand_shape(exc, call):
    """The operand's shape, read (never computed) from the user's frame by its name."""
    frame = _user_frame(exc)
    if frame is None or call is None or not isinstance(call.args[0], ast.Name):
        return None
    name = call.args[0].id
    value = _named_value(frame, name)
    shape = getattr(value, "shape", None)
    return tuple(shape) if isinstance(shape, tuple) else None


def _rewrite(tree, call, shape) -> str | None:
    """The call with its indices and sizes as tuples of len(shape) entries: what the user gave
    first, then 0 and the axis's whole size for the rest."""
    where_indices, where_sizes = _CALLS[_called(call)]
    given = _entries(call.args[where_indices])
    if given is None or len(given) > len(shape):
        return None
    starts = given + ["0"] * (len(shape) - len(given))
    call.args[where_indices] = _tuple(starts)
    if where_sizes is not None and len(call.args) > where_sizes:
        sizes = _entries(call.args[where_sizes])
        if sizes is None or len(sizes) > len(shape):
            return None
        rest = [_rest_of(shape[k], starts[k]) for k in range(len(sizes), len(shape))]
        if None in rest:
            return None
        call.args[where_sizes] = _tuple(sizes + rest)
    return ast.unparse(tree)


def _rest_of(size: int, start: str) -> str | None:
    """The size of an axis's slice from `start` (code) to its end: a number start is known
    (1 on an axis of 3: 2); None for a start not written as a number, whose whole size would
    move the start to 0 (dynamic_slice clamps a slice to fit)."""
    if start.isdigit() and int(start) < size:
        return str(size - int(start))
    return None


def _entries(node) -> list | None:
    if isinstance(node, (ast.Tuple, ast.List)):
        return None if any(isinstance(e, ast.Starred) for e in node.elts) else \
            [ast.unparse(e) for e in node.elts]
    return [ast.unparse(node)]


def _tuple(entries):
    return ast.parse(f"({', '.join(entries)}{',' if len(entries) == 1 else ''})",
                     mode="eval").body
