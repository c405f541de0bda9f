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
_MAKERS = ("array", "asarray")


def _is_ragged(e) -> bool:
    if isinstance(e, ValueError) and _INHOMOGENEOUS.match(str(e)):
        return True
    # lax.concatenate's words reach a user who called jnp.array on their line, not concatenate
    if not (isinstance(e, TypeError) and _CONCATENATE.match(str(e))):
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
