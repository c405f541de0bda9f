"""The card for a ragged array: jnp.array given rows of different lengths (lists, NumPy's
"inhomogeneous shape" ValueError) or Arrays of different shapes (JAX stacks those with
lax.concatenate, whose TypeError it is). Arrays are rectangles; the rewrite pads a written-out
list's short rows, else keeps the rows as a list of arrays (a pytree jit and grad take)."""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .reading import _user_lines
from .rewrites import _first_call, _parse_line, _pattern, _replaced

_INHOMOGENEOUS = re.compile(r"^setting an array element with a sequence\. The requested array "
                            r"has an inhomogeneous shape after (\d+) dimensions?\. The detected "
                            r"shape was (\(.*\)) \+ inhomogeneous part\.$")
_CONCATENATE = re.compile(r"^Cannot concatenate arrays with shapes that differ in dimensions "
                          r"other than the one being concatenated: concatenating along "
                          r"dimension 0 for shapes (.*)\.$")
# the list's entries of several ranks (`jnp.array([x, 1])`): JAX joins them as rows of one
# more axis each, and its words are concatenate's, of those rows' shapes
_RANKS = re.compile(r"^Cannot concatenate arrays with different numbers of dimensions: got "
                    r"(.*)\.$")
_MAKERS = ("array", "asarray")


def _is_ragged(e) -> bool:
    if isinstance(e, ValueError) and _INHOMOGENEOUS.match(str(e)):
        return True
    # lax.concatenate's words reach a user who called jnp.array on their line, not concatenate
    if not (isinstance(e, TypeError) and (_CONCATENATE.match(str(e)) or
                                          _RANKS.match(str(e)))):
        return False
    tree = _parse_line(_user_lines(e)[0])
    return tree is not None and _maker_call(tree) is not None


def _ragged_card(exc, where, called_from) -> ErrorCard:
    tree = _parse_line(where)
    call = _maker_call(tree) if tree is not None else None
    rows = _literal_rows(call)
    found = _INHOMOGENEOUS.match(str(exc))
    if rows is not None:
        lengths = ", ".join(str(len(r)) for r in rows)
        shown = f"rows of lengths {lengths}"
    elif found is not None:
        shown = (f"lists whose lengths differ after {found.group(1)} "
                 f"dimension{'s' if found.group(1) != '1' else ''} (the shape up to there: "
                 f"{found.group(2)})")
    elif _RANKS.match(str(exc)):
        return _ranks_card(exc, tree, call)
    else:
        shown = f"arrays of shapes {_CONCATENATE.match(str(exc)).group(1).replace('(1, ', '(')}"
    why = (f"An array is a rectangle: every row has the same length (and every entry of a "
           f"row the same shape). jnp.array was given {shown}, which no one shape holds; "
           f"NumPy refuses them too.")
    fix = ("Pad the short rows to one length with a value that leaves your result as it is "
           "(0 for a sum, -inf for a max) and keep a mask of the real entries; or keep the "
           "rows as a list of arrays, one per row: jit, grad, vmap's in_axes and tree_map "
           "all take lists.")
    if rows is not None:
        width = max(len(r) for r in rows)
        padded = [list(r) + [0] * (width - len(r)) for r in rows]
        mask = [[True] * len(r) + [False] * (width - len(r)) for r in rows]
        made = ast.unparse(call.func)
        rewrite = (f"{_replaced(tree, call.args[0], repr(padded))}    # padded with 0\n"
                   f"mask = {made}({mask})    # True where an entry is real")
    elif call is not None and call.args:
        rows_code = ast.unparse(call.args[0])
        rewrite = (f"{_replaced(tree, call, f'[jnp.asarray(row) for row in {rows_code}]')}"
                   f"    # a list of arrays, one per row")
    else:
        rewrite = _pattern("rows = [jnp.asarray(row) for row in rows]    # a list of arrays, "
                           "one per row")
    return ErrorCard("ragged-array", "jnp.array was given rows of different lengths",
                     why=why, fix=fix, rewrite=rewrite, docs=None)


def _entry_shapes(message) -> list:
    """The list's entries' own shapes, from JAX's rows of one more axis: "(1, 6), (1,)" ->
    ["(6,)", "()"]."""
    rows = re.findall(r"\(1,\s*([^()]*)\)", _RANKS.match(message).group(1))
    return [f"({r.strip()},)" if r.strip() and "," not in r else f"({r.strip()})" for r in rows]


def _ranks_card(exc, tree, call) -> ErrorCard:
    """jnp.array of a list whose entries have several ranks: a vector and a number most often,
    the number meant to go on the end (jnp.concatenate of the vector and the number made a
    vector of one), or rows of one shape meant."""
    shapes = _entry_shapes(str(exc))
    entries = call.args[0].elts if call is not None and call.args and \
        isinstance(call.args[0], (ast.List, ast.Tuple)) else []
    numbers = [isinstance(e, ast.Constant) and type(e.value) in (int, float) for e in entries]
    vectors = [s.count(",") == 1 and s.endswith(",)") for s in shapes]
    if entries and len(entries) == len(shapes) and any(numbers) and \
            all(n or v for n, v in zip(numbers, vectors)):
        joined = "[" + ", ".join(f"jnp.array([{ast.unparse(e)}])" if n else ast.unparse(e)
                                 for e, n in zip(entries, numbers)) + "]"
        rewrite = (f"{_replaced(tree, call, f'jnp.concatenate({joined})')}    # one vector, "
                   f"the numbers as vectors of one")
    else:
        rewrite = _pattern("jnp.array([a, b])    # a and b of one shape: rows of a new axis")
    return ErrorCard(
        "ragged-array", f"jnp.array was given entries of shapes {', '.join(shapes)}",
        why=("jnp.array makes each entry of a list one row of a new first axis, so every entry "
             "must have one shape (NumPy refuses these too); JAX's words are the rows' join."),
        fix=("To put numbers on the end of a vector, join them: jnp.concatenate with each "
             "number as a vector of one (or jnp.append(x, v)); to make rows, give entries of one "
             "shape."),
        rewrite=rewrite, docs=None)


def _maker_call(tree):
    return _first_call(tree, _MAKERS, 1)


def _literal_rows(call):
    """The rows of jnp.array's first argument when it is written out as a list of lists of
    numbers (two levels: a matrix with short rows); else None."""
    if call is None:
        return None
    try:
        rows = ast.literal_eval(call.args[0])
    except (ValueError, TypeError, SyntaxError):
        return None
    if isinstance(rows, (list, tuple)) and rows and \
            all(isinstance(r, (list, tuple)) and
                all(type(v) in (int, float, bool) for v in r) for r in rows):
        return rows
    return None
