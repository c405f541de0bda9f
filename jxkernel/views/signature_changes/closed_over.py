"""What differs in the constants a traced function closed over (kind "constant"): a value baked
into the program when traced, which a cache hit keeps; and how a signature holds one too large
to compare.
"""
from __future__ import annotations

import numpy as np

from ...core.clipped_text import clipped
from .fixes import _fixed


# the path of a change in how many constants were closed over (compare.py drops it beside
# another change, which it follows from)
COUNTED = "(closed-over constants)"


def _const_changes(old, new):
    """Closed-over constants whose value differs (compared only when both sides know them)."""
    if old is None or new is None:
        return
    if len(old) != len(new):
        yield _fixed(COUNTED, "constant", f"{len(old)} constant(s)",
                     f"{len(new)} constant(s)", name="c")
        return
    for (name, a), (_, b) in zip(old, new):
        if not _same_value(a, b):
            yield _fixed(f"{name} (closed over)", "constant", _value_text(a), _value_text(b),
                         name=name)


_COMPARE_MAX = 1 << 20          # elements: larger constants are compared by identity only


def _same_value(a, b) -> bool:
    if a is b:
        return True
    if getattr(a, "shape", None) != getattr(b, "shape", None) or \
            getattr(a, "dtype", None) != getattr(b, "dtype", None):
        return False
    if int(np.prod(getattr(a, "shape", ()))) > _COMPARE_MAX:
        return True              # too big to read back on every miss: not reported
    return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))


class _Large:
    """A closed-over constant too large to compare by value, as a signature keeps it: its type
    alone (holding the array would keep a device copy per compiled signature alive)."""
    __slots__ = ("shape", "dtype")

    def __init__(self, value):
        self.shape, self.dtype = tuple(value.shape), value.dtype

    def __repr__(self):
        return f"{np.dtype(self.dtype).name}{list(self.shape)}"


def _value_text(value, limit: int = 40) -> str:
    if type(value) is _Large:
        return repr(value)
    text = " ".join(np.array2string(np.asarray(value), threshold=6).split())
    return clipped(text, limit)
