"""The note under a cell whose line met a column (n, 1) and a vector (n,) in one elementwise
operation: NumPy's broadcasting lines shapes up from the right, so the two make an (n, n)
matrix, every entry of one beside every entry of the other. A model's outputs as a column
against a vector of targets (`((pred - y) ** 2).mean()`) so gives a mean over every pair, a
loss that trains to the wrong answer, and JAX, as NumPy, says nothing (its knob,
jax_numpy_rank_promotion='raise', refuses every rank promotion, wanted ones too).

    pred = model(x)               # (4, 1)
    ((pred - y) ** 2).mean()      # ⚠ pred - y broadcast a column (4, 1) and a vector (4,)
                                  #   into a (4, 4) matrix ... pred[:, 0] - y

A line that broadcasts on purpose says so (`x[:, None] - x`, `jnp.newaxis`, `reshape`,
`expand_dims`, `outer`), and gets no note.
"""
from __future__ import annotations

import ast
import linecache

from ...numpy import util
from ...views.source import is_user_file
from ...views.source_edits import parse_file
from ..display import Note, Site, more_lines, source_label

PROMOTION = "https://docs.jax.dev/en/latest/rank_promotion_warning.html"
# words of a line that broadcasts on purpose
# (a column made on an earlier line is not read: `y = y.reshape(-1, 1)` of targets, beside
# predictions (n,), is the very mistake, sklearn's habit)
_ON_PURPOSE = ("None", "newaxis", "expand_dims", "reshape", "outer", "broadcast", "atleast_2d")


def install() -> None:
    """Have the columns met by vectors recorded, for the note: at the extension's load."""
    util.record_column_sites = True


def uninstall() -> None:
    util.record_column_sites = False


def clear() -> None:
    """Forget the sites recorded so far: at a cell's start."""
    util.column_sites.clear()


def cell_note(told: set | None = None) -> Note | None:
    """The note of the cell that just ran, or None: no line of the user's met a column and a
    vector, or only lines told of before (`told`: (file, line), kept by the extension)."""
    sites = [s for s in util.column_sites if is_user_file(s[0])]
    util.column_sites.clear()
    found = {}
    for file, line, position, name, shapes, held in sites:
        if (file, line) in found or told is not None and (file, line) in told:
            continue
        said = _operands(file, position, shapes, held)
        if said is not None:
            found[(file, line)] = said
    if told is not None:
        told.update(found)
    if not found:
        return None
    (file, line), (text, column, vector, fixed) = next(iter(found.items()))
    n = vector[0]
    others = more_lines(list(found)[1:])
    fix = (f" If you meant them entry by entry, give them one shape:\n  {fixed}" if fixed else
           " If you meant them entry by entry, give them one shape: the column's x[:, 0] "
           "(shape (n,)), or the vector's y[:, None] (shape (n, 1)).")
    return Note(
        f"⚠ {text} broadcast a column {column} and a vector {vector} into a ({n}, {n}) "
        f"matrix (at {source_label(Site(file, line))}){others}",
        body=(f"Broadcasting lines shapes up from the right: against the column {column}, "
              f"the vector {vector} is read as a row (1, {n}), and each repeats along the "
              f"other's axis of size 1, so every entry of one meets every entry of the other. "
              f"A mean or a sum of it mixes all {n * n} pairs (a loss so computed trains "
              f"toward another answer), and JAX, as NumPy, says nothing ({PROMOTION})." + fix +
              "\nTo have JAX refuse such operations, wanted ones too: "
              "jax.config.update('jax_numpy_rank_promotion', 'raise') ('warn' warns once per "
              "operation and shapes, at JAX's own line, which Python shows once)."),
        kind="info", details=True)


def _operands(file, position, shapes, held):
    """(the operation's text as typed, the column's shape, the vector's, the line rewritten
    entry by entry or "") of the call at `position` in `file`; None where the line broadcasts
    on purpose, or where no call is found there."""
    node = _node_at(file, position)
    if node is None:
        return None
    source = "".join(linecache.getlines(file))
    text = ast.get_source_segment(source, node) or ast.unparse(node)
    if any(word in text for word in _ON_PURPOSE):
        return None
    a, b = shapes
    column, vector = (a, b) if len(a) == 2 else (b, a)
    col = vec = None
    if isinstance(node, (ast.BinOp, ast.Compare)):       # the shapes in the operands' order
        pair = (node.left, node.right if isinstance(node, ast.BinOp) else node.comparators[0])
        col, vec = pair if len(a) == 2 else pair[::-1]
    elif isinstance(node, ast.Call):    # jnp.subtract(a, b), a library's loss(pred, y): names
        named = {held.get(arg.id): arg for arg in node.args if isinstance(arg, ast.Name)}
        col, vec = named.get(column), named.get(vector)
        if (col is None or vec is None) and len(node.args) == 2 and not held:
            col, vec = node.args if len(a) == 2 else node.args[::-1]
    return text, column, vector, _entry_by_entry(file, node, col, vec, vector[0])


def _entry_by_entry(file, node, col, vec, n) -> str:
    """The user's line with the column made a vector (`pred[:, 0] - y`), the vector made a
    column said in its comment; "" where the operands are not on the operation's one line."""
    if col is None or vec is None or not all(
            part.lineno == part.end_lineno == node.lineno for part in (node, col, vec)):
        return ""
    raw = linecache.getline(file, node.lineno).rstrip("\n").encode()   # (UTF-8 columns)

    def with_axis(part, index):
        text = raw[part.col_offset:part.end_col_offset].decode()
        if not isinstance(part, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
            text = f"({text})"
        return (raw[:part.col_offset].decode() + f"{text}[{index}]" +
                raw[part.end_col_offset:].decode())
    vector = with_axis(col, ":, 0")
    columns = with_axis(vec, ":, None").strip()
    return f"{vector}    # both ({n},); or {columns}, both ({n}, 1)"


def _node_at(file, position):
    """The expression at `position` ((line, end line, column, end column)) of `file`: a
    BinOp, a comparison or a call; None where none is there."""
    tree = parse_file(file)
    if tree is None or position is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.BinOp, ast.Compare, ast.Call)) and \
                (node.lineno, node.end_lineno, node.col_offset, node.end_col_offset) == position:
            return node
    return None
