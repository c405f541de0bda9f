"""The calls of the user's own code to a dynamic slice or update whose start, known when the line
ran, XLA moved (lax.dynamic_slice(x, (8,), (4,)) of 10 elements reads from 6): recorded by
dynamic_slices.py's lax functions while `watching`, for the notebook's note under the cell
(notebook/notes/clamped_start_notes.py), which reads `moved` and clears it. Which start XLA uses is
clamped_starts.py's.
"""
from __future__ import annotations

import collections
import os
import sys
from typing import NamedTuple

import numpy as np

from ...core import dtypes
from ...core.source_info import PACKAGE_DIR, is_user_filename
from ...core.symbolic import is_symbolic
from ...core.trace import Tracer
from ...xla.array import Array
from ..shapes import _shape
from .clamped_starts import counted_from_the_end, used_start


class MovedStart(NamedTuple):
    """A call of the user's own code to a dynamic slice or update (`function`: the lax function
    called) whose starts, all known when the line ran (ints, or concrete arrays), XLA moved:
    `asked` as given, `counted` with negative ones counted from the end (JAX's), `used` as
    clamped so the window of `sizes` fits in `shape` (XLA's). `use`: "read" or "update";
    `axis`: the _in_dim functions' own, `keepdims`: dynamic_index_in_dim's (else None)."""
    file: str
    line: int
    function: str
    asked: tuple
    counted: tuple
    used: tuple
    shape: tuple
    sizes: tuple
    use: str
    axis: int | None = None
    keepdims: bool | None = None


# JAX and XLA say nothing of a start they moved
moved: collections.deque = collections.deque(maxlen=16)
# Whether starts are looked at: only while the notebook tells them (its extension loaded),
# since looking at a concrete Array's value waits for it and copies it to the host, and
# finding the user's line costs a few µs, which a script's eager slicing must not pay.
watching = False

# the user's lines that called one of them with a start known only when the program runs (a
# jitted function's argument), while `watching`: (file, line) -> the lax function called. The
# notebook's note of a jitted call's indices (notebook/notes/index_calls.py) tells an index out of
# bounds met there only, named so.
traced_sites: dict = {}

# the frames between the user's call and the record: this module's, the lax functions', and
# the wrapper jax_jitted gives dynamic_index_in_dim and dynamic_update_index_in_dim
_LAX_FILE = os.path.join(PACKAGE_DIR, "lax", "slicing", "dynamic_slices.py")
_CALL_FILES = frozenset({_LAX_FILE, os.path.join(PACKAGE_DIR, "lax", "slicing", "start_watch.py"),
                         os.path.join(PACKAGE_DIR, "transforms", "jit", "namesakes.py")})


def record(operand, start_indices, sizes, allow_negative_indices, use: str) -> None:
    """Adds the call to `moved` where XLA moves a start known when the line ran, and the line
    is the user's own."""
    shape, sizes = tuple(_shape(operand)), tuple(sizes)
    if not all(isinstance(n, (int, np.integer)) for n in shape + sizes):
        return                                      # (a symbolic size: undecided)
    asked = _known_starts(start_indices)
    if asked is None and _traced(start_indices):
        found = _users_call()
        if found is not None:
            frame, called = found
            traced_sites[frame.f_code.co_filename, frame.f_lineno] = called.f_code.co_name
    if asked is None or len(asked) != len(shape):
        return
    allow = ([allow_negative_indices] * len(shape) if isinstance(allow_negative_indices, bool)
             else list(allow_negative_indices))
    counted = tuple(counted_from_the_end(s, d, a) for s, d, a in zip(asked, shape, allow))
    used = tuple(used_start(s, d, n, a) for s, d, n, a in zip(asked, shape, sizes, allow))
    if used == counted:
        return
    found = _users_call()
    if found is None:
        return
    frame, called = found
    if any((m.file, m.line) == (frame.f_code.co_filename, frame.f_lineno) for m in moved):
        return                  # (a line's first: a loop's later calls would push it out)
    name, local = called.f_code.co_name, called.f_locals
    moved.append(MovedStart(frame.f_code.co_filename, frame.f_lineno, name, asked, counted, used,
                            tuple(map(int, shape)), tuple(map(int, sizes)), use,
                            local.get("axis") if "_in_dim" in name else None,
                            local.get("keepdims")))


def _known_start(i) -> int | None:
    """A scalar start's value where it is known without running anything, else None."""
    if isinstance(i, (bool, np.bool_, Tracer)) or is_symbolic(i):
        return None
    if isinstance(i, (int, np.integer)):
        return int(i)
    if isinstance(i, Array) and i.is_deleted():
        return None
    if isinstance(i, (Array, np.ndarray)) and i.ndim == 0 and dtypes.is_int(i.dtype):
        return int(np.asarray(i))
    return None


def _known_starts(start_indices) -> tuple | None:
    """The starts' values, where every one is known, else None."""
    if isinstance(start_indices, Tracer):
        return None
    if isinstance(start_indices, (Array, np.ndarray)):
        if np.ndim(start_indices) != 1 or (isinstance(start_indices, Array)
                                           and start_indices.is_deleted()):
            return None
        start_indices = list(np.asarray(start_indices))
    starts = tuple(_known_start(i) for i in start_indices)
    return None if None in starts else starts


def _traced(start_indices) -> bool:
    """Whether a start is a tracer: known only when the program runs."""
    return isinstance(start_indices, Tracer) or isinstance(start_indices, (list, tuple)) and \
        any(isinstance(i, Tracer) for i in start_indices)


def _users_call():
    """(the user's frame, the frame of the lax function it called), where the call that slices
    is the user's own code's: not where jxkernel's functions slice, nor a library's; else
    None."""
    frame, called = sys._getframe(1), None
    while frame is not None and frame.f_code.co_filename in _CALL_FILES:
        if frame.f_code.co_filename == _LAX_FILE:
            called = frame
        frame = frame.f_back
    if frame is None or called is None or not is_user_filename(frame.f_code.co_filename):
        return None
    return frame, called
