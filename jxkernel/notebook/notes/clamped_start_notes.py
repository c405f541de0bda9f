"""The note under a cell whose code called lax.dynamic_slice, dynamic_update_slice or one of
their _in_dim forms with a start known when the line ran that XLA moved: JAX counts a negative
start from the end once, then XLA clamps the start so the whole window fits, and says nothing,
so the learner reads (or writes) a window somewhere else than they placed it, and no error.

    x = jnp.arange(10)
    lax.dynamic_slice(x, (8,), (4,))    # ⚠ lax.dynamic_slice moved its start (8,) to (6,)
                                        # (at In[4]:2): ..., so it read [6:10], and raised nothing

Which start XLA uses is lax/slicing/clamped_starts.py's; the calls are recorded by
lax/slicing/start_watch.py while the extension is loaded.
"""
from __future__ import annotations

import ast
import linecache
from typing import NamedTuple

from ...lax.slicing import start_watch
from ...views.source import is_user_file
from ...views.source_edits import parse_file, segment
from ..display import Note, Site, more_lines, not_told, source_label

SHARP_BITS = ("https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html"
              "#out-of-bounds-indexing")


def install() -> None:
    """Have the dynamic slices' starts looked at, for the note: at the extension's load."""
    start_watch.watching = True


def uninstall() -> None:
    start_watch.watching = False


def clear() -> None:
    """Forget the starts moved so far: at a cell's start."""
    start_watch.moved.clear()


def cell_note(told: set | None = None) -> Note | None:
    """The note of the cell that just ran, or None: no start of the user's code moved, or only
    at lines told of before (`told`: (file, line), kept by the loaded extension)."""
    moved = not_told([m for m in start_watch.moved if is_user_file(m.file)], told)
    start_watch.moved.clear()
    if not moved:
        return None
    m, others = moved[0], more_lines(moved)
    word = "index" if "index_in_dim" in m.function else "start"
    axes = [a for a, (c, u) in enumerate(zip(m.counted, m.used)) if c != u]
    did = "read" if m.use == "read" else "wrote the update at"
    title = (f"⚠ lax.{m.function} moved its {word} {_starts(m, m.asked)} to "
             f"{_starts(m, m.used)} (at {source_label(Site(m.file, m.line))}){others}: "
             f"{'; '.join(_why(m, a) for a in axes)}, so it {did} "
             f"{window(m.used, m.sizes, m.shape)}, and raised nothing")
    clamps = ("XLA clamps each start of a dynamic slice or update into [0, size - window], so "
              "that the whole window lies in the operand, after JAX counts a negative start from "
              "the end once (start + size); neither JAX nor XLA raises, since code running on an "
              f"accelerator cannot ({SHARP_BITS}). ")
    where = f"at {_starts(m, m.counted)}" + (" (counted from the end)"
                                              if m.counted != m.asked else "")
    within = ", ".join(f"at most {m.shape[a] - m.sizes[a]} on axis {a}" for a in axes)
    names = written(m)
    if m.use == "read":
        body = (clamps + f"To read the window {where}, with zeros where it lies outside the "
                "operand, pad the operand first" + ("" if names.found else " (x: your operand)")
                + ":\n    " + fix(m, names) + "\n"
                "(jnp.pad's constant_values= for another fill value). Or keep each start from 0 "
                f"to size - window: {within}.")
    else:
        body = (clamps + "So the whole update was written, moved back inside the operand, over "
                f"elements you did not aim it at. To write it {where}, dropping what lies "
                "outside the operand, pad the operand, update, and slice the padding off" +
                ("" if names.found else " (x: your operand, u: your update)") +
                ":\n    " + fix(m, names) + "\nOr keep each start from 0 "
                f"to size - window: {within}.")
    return Note(title, body=body, kind="info", details=True)


def _starts(m, starts: tuple) -> str:
    """The starts as the call took them: a tuple, or the one start of an _in_dim function."""
    return str(starts[m.axis]) if m.axis is not None else str(tuple(starts))


def _why(m, axis: int) -> str:
    """Why XLA moved the start on `axis`."""
    asked, counted, d, n = m.asked[axis], m.counted[axis], m.shape[axis], m.sizes[axis]
    counting = f"{asked} counted from the end is {counted}, and " if counted != asked else ""
    if counted > d - n:
        return counting + f"a window of {n} on axis {axis} (size {d}) starts at {d - n} at most"
    return counting + f"a window on axis {axis} (size {d}) starts at 0 at least"


def window(starts, sizes, shape) -> str:
    """The window of `sizes` at `starts` in index notation, ':' for a whole axis.

    >>> window((6, 0), (4, 3), (10, 3))
    '[6:10, :]'
    """
    return "[" + ", ".join(":" if s == 0 and n == d else f"{s}:{s + n}"
                           for s, n, d in zip(starts, sizes, shape)) + "]"


def padding(m) -> tuple:
    """The (before, after) padding of each axis that makes the window fit where it was placed
    (each start counted from the end, not clamped)."""
    return tuple((max(0, -c), max(0, c + n - d)) if c != u else (0, 0)
                 for c, u, n, d in zip(m.counted, m.used, m.sizes, m.shape))


class Written(NamedTuple):
    """How the learner's line wrote the call: the function, the operand, the update."""
    function: str
    operand: str = "x"
    update: str = "u"
    found: bool = False


# an operand or update written longer than this is named x or u in the fix, said so
_LONGEST = 40


def written(m) -> Written:
    """The learner's own text for the function, operand and update of the call at m's line,
    where the line holds one call of m.function with them as its first arguments, each on one
    line and short; else the names x and u (the note then says what they stand for).

        >>> import linecache; linecache.cache["<c>"] = (0, None, ["w = lax.dynamic_slice("
        ...     "xs[0], (8,), (4,))\\n"], "<c>")
        >>> m = start_watch.MovedStart("<c>", 1, "dynamic_slice", (8,), (8,), (6,), (10,),
        ...                            (4,), "read")
        >>> written(m)
        Written(function='lax.dynamic_slice', operand='xs[0]', update='u', found=True)
    """
    default = Written(f"lax.{m.function}")
    tree = parse_file(m.file)
    count = 2 if m.use == "update" else 1
    calls = [c for c in ast.walk(tree) if isinstance(c, ast.Call) and
             c.lineno <= m.line <= c.end_lineno and _last_name(c.func) == m.function
             ] if tree is not None else []
    if len(calls) != 1 or len(calls[0].args) < count or \
            any(isinstance(a, ast.Starred) for a in calls[0].args[:count]):
        return default
    source = "".join(linecache.getlines(m.file))
    texts = [segment(source, n) for n in (calls[0].func, *calls[0].args[:count])]
    if any("\n" in t or len(t) > _LONGEST for t in texts):
        return default
    return Written(*texts, "u", True) if count == 1 else Written(*texts, True)


def _last_name(node) -> str | None:
    return node.attr if isinstance(node, ast.Attribute) else \
        node.id if isinstance(node, ast.Name) else None


def fix(m, names: Written | None = None) -> str:
    """The learner's call, rewritten on the operand padded so the window fits where it was
    placed (an update's result sliced back to the operand's shape); the operand and update as
    `names` writes them (x and u where not given)."""
    names = names or Written(f"lax.{m.function}")
    pad = padding(m)
    starts = tuple(c + b for c, (b, _) in zip(m.counted, pad))
    start = starts[m.axis] if m.axis is not None else None
    u = names.update
    padded = f"jnp.pad({names.operand}, {pad})"
    call = {
        "dynamic_slice": lambda: f"{padded}, {starts}, {m.sizes}",
        "dynamic_slice_in_dim": lambda: f"{padded}, {start}, {m.sizes[m.axis]}, axis={m.axis}",
        "dynamic_index_in_dim": lambda: f"{padded}, {start}, axis={m.axis}"
        + (", keepdims=False" if m.keepdims is False else ""),
        "dynamic_update_slice": lambda: f"{padded}, {u}, {starts}",
        "dynamic_update_slice_in_dim": lambda: f"{padded}, {u}, {start}, axis={m.axis}",
        "dynamic_update_index_in_dim": lambda: f"{padded}, {u}, {start}, axis={m.axis}",
    }[m.function]()
    text = f"{names.function}({call})"
    if m.use == "update":        # the operand's own elements: the padding sliced off
        text += "[" + ", ".join(":" if b == a == 0 else f"{b}:{b + d}"
                                for (b, a), d in zip(pad, m.shape)) + "]"
    return text
