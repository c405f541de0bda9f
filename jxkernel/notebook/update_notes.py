"""The note under a cell whose line made an updated copy of an array and dropped it:
`x.at[0].set(10)` (or `x.sort()`, which NumPy sorts in place) as a statement of its own. A
learner from NumPy, where `x[0] = 10` changes x, writes it expecting x to change; JAX arrays
are immutable, the call returns the new array, and x stays as it was. JAX says nothing.

    x = jnp.arange(5)
    x.at[0].set(10)     # ⚠ x.at[0].set(10) made a new array, and nothing kept it ...
    x                   # Array([0, 1, 2, 3, 4], dtype=int32)

A cell's last line shows its value (IPython's Out): there the note says so, and x unchanged,
and a copy of no name's array (`jnp.zeros(3).at[1].set(2.)`, a demonstration) is not told.
"""
from __future__ import annotations

import ast
import linecache

from ..numpy import indexing
from ..views.source import is_user_file
from ..views.source_edits import parse_file
from .display import Note, Site, cell_name, source_label

SHARP_BITS = ("https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html"
              "#in-place-updates")
# `.at[idx]`'s methods that return an updated copy (get reads, and is not told)
UPDATES = frozenset({"set", "add", "subtract", "multiply", "mul", "divide", "power", "min",
                     "max", "apply"})


def install() -> None:
    """Have the user's `.at` updates and sorts recorded, for the note: at the extension's load."""
    indexing.record_update_sites = True


def uninstall() -> None:
    indexing.record_update_sites = False


def clear() -> None:
    """Forget the updates made so far: at a cell's start."""
    indexing.update_sites.clear()


def cell_note(told: set | None = None) -> Note | None:
    """The note of the cell that just ran, or None: no `.at` update or `sort` of the user's
    code dropped its result, or only at lines told of before (`told`: (file, line), kept by the loaded
    extension)."""
    sites = [s for s in dict.fromkeys(indexing.update_sites) if is_user_file(s[0])]
    indexing.update_sites.clear()
    if told is not None:
        sites = [s for s in sites if s[:2] not in told]
    dropped = [(s[:2], found) for s in sites if (found := dropped_update(*s)) is not None]
    dropped = list(dict((s, f) for s, f in dropped).items())      # (a line told once)
    if told is not None:
        told.update(s for s, _ in dropped)
    if not dropped:
        return None
    (file, line), (call, shown) = dropped[0]
    more = len(dropped) - 1
    others = f" (and {more} more line{'s' if more > 1 else ''} of this cell)" if more else ""
    # the call as typed (ast.unparse would write 2. as 2.0, and requote strings)
    text = ast.get_source_segment("".join(linecache.getlines(file)), call) or ast.unparse(call)
    receiver = _root(call)
    named = _named(receiver)
    source = linecache.getline(file, line)
    indent = source[:len(source) - len(source.lstrip())]
    what = "returned a new array, shown as the cell's output" if shown else \
        "made a new array, and nothing kept it"
    # the copy goes back under the receiver's name where that is a plain name: x.T, a
    # property, or x[0], an array's row, cannot be assigned to, so those get a name of their own
    kept = named if isinstance(receiver, ast.Name) else "updated"
    how = ("x.sort() returns a sorted copy and leaves x as it was, where NumPy's x.sort() "
           "sorts x in place" if _is_sort(call) else
           "x.at[idx].set(v) (and .add, .multiply, ...) returns an updated copy and leaves x as "
           "it was, where NumPy's x[idx] = v changes x in place")
    return Note(
        f"⚠ {text} {what} (at {source_label(Site(file, line))}){others}"
        + (f": {named} is unchanged" if named else ""),
        body=(f"JAX arrays are immutable: {how} ({SHARP_BITS}). Keep the copy"
              + (f", under {kept}'s name or a new one" if kept == named else ", under a name")
              + f":\n  {indent}{kept} = {text}"),
        kind="info", details=True)


def dropped_update(file: str, line: int, position=None) -> tuple[ast.Call, bool] | None:
    """The `x.at[...].set(...)` or `x.sort()` call that is the whole statement at `line` of
    `file` (its result dropped, or only shown: the cell's last expression, IPython's Out), and
    whether it was shown; None where there is none, or where a copy of no name's array was
    shown (a demonstration, `jnp.zeros(3).at[1].set(2.)`). `position`: where the call that
    ran is ((line, end line, column, end column)), which the statement's call must be."""
    tree = parse_file(file)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and node.lineno <= line <= node.end_lineno and \
                (_is_update(node.value) or _is_sort(node.value)) and \
                (position is None or position == (node.value.lineno, node.value.end_lineno,
                                                  node.value.col_offset,
                                                  node.value.end_col_offset)):
            shown = node is tree.body[-1] and cell_name(file) is not None and \
                not "".join(linecache.getlines(file)).rstrip().endswith(";")
            if shown and _named(_root(node.value)) is None:
                return None
            return node.value, shown
    return None


def _named(node) -> str | None:
    """`node`'s text where it names what holds an array (x, self.w, params['w'], x.T), else
    None (a call's result, an expression)."""
    return ast.unparse(node) if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)) \
        else None


def _receiver(call: ast.Call):
    """x, of `x.at[0].set(10)` or `x.sort()`."""
    return call.func.value if _is_sort(call) else call.func.value.value.value


def _root(call: ast.Call):
    """The array a chain of updates started from: x, of `x.at[0].set(1).at[1].set(2)` (each
    update's copy feeds the next; the last's is the one dropped, and x is what stays as it
    was). A sort's receiver is not looked into: `jnp.sort(x).at[0].set(1)` is a call's copy."""
    receiver = _receiver(call)
    while _is_update(receiver):
        receiver = _receiver(receiver)
    return receiver


def _is_sort(node) -> bool:
    """Whether `node` is a call `<array>.sort(...)` (jxkernel's Array.sort recorded its line:
    a list's sort, in place, records none)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
        node.func.attr == "sort"


def _is_update(node) -> bool:
    """Whether `node` is a call `<array>.at[<index>].<update>(...)`."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
        node.func.attr in UPDATES and isinstance(node.func.value, ast.Subscript) and \
        isinstance(node.func.value.value, ast.Attribute) and node.func.value.value.attr == "at"
