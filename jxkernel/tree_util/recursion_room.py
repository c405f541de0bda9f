"""The recursion room a pytree flatten keeps when it raises: counted, and given back.

jaxlib's C++ flatten (0.10.2, under JAX as here) calls `Py_EnterRecursiveCall` at each level
of a tree and skips `Py_LeaveRecursiveCall` when an error unwinds past that level. A flatten
that raises L levels down keeps L calls of room for good; a dict that holds itself keeps all
of them, and from then on nearly every call in that thread raises RecursionError (JAX's own
kernel too: docs/contributing.md, "When a worker crashes").

`room()` counts what is left of the counter `Py_EnterRecursiveCall` uses: on 3.11 the one that
Python frames share, on 3.12 and 3.13 the C counter (Python frames have their own there, which
a plain recursion would measure instead). `give_back(n)` leaves it n times. Python 3.14 checks
the C stack's own depth and has no counter to lose (python/cpython#133079 removed it), and
ctypes reaches no counter on PyPy or in the browser (where no jaxlib runs either): `room()` is
None there.

    >>> r = room()
    >>> r is None or r == room()
    True
"""
from __future__ import annotations

import ctypes
import re
import sys


def _counter_calls():
    """(Py_EnterRecursiveCall, Py_LeaveRecursiveCall) through ctypes, or None where there is
    no counter to read (see the module's docstring)."""
    api = getattr(ctypes, "pythonapi", None)
    if (sys.implementation.name != "cpython" or not (3, 11) <= sys.version_info[:2] < (3, 14)
            or sys.platform == "emscripten" or api is None):
        return None
    # pythonapi is a PyDLL: the GIL stays held and a failed enter raises its RecursionError
    enter, leave = api.Py_EnterRecursiveCall, api.Py_LeaveRecursiveCall
    enter.argtypes, enter.restype = [ctypes.c_char_p], ctypes.c_int
    leave.argtypes, leave.restype = [], None
    return enter, leave


_CALLS = _counter_calls()


def room() -> int | None:
    """How many more `Py_EnterRecursiveCall`s this thread can make before RecursionError
    (None: no counter, see above). Enters until refused, then leaves as many: exact, and
    about 0.15 ms on 3.11 (limit 1,000), 2 ms on 3.13 (its C limit, 10,000)."""
    if _CALLS is None:
        return None
    enter, leave = _CALLS
    n = 0
    try:
        while True:
            enter(b"")
            n += 1
    # (at the very edge ctypes may refuse while converting the argument, before the call)
    except (RecursionError, ctypes.ArgumentError):
        pass
    for _ in range(n):
        leave()
    return n


def spare(probe: bool = True) -> int | None:
    """A number that stays the same wherever on a healthy stack it is asked (within a few: C
    code that calls back into Python takes a level), whatever limit `sys.setrecursionlimit`
    sets, and falls by what a failed flatten kept. On 3.11, where Python frames take from the
    same counter, the frames on the caller's stack less the interpreter's depth, which one
    call tells (`_depth`); on 3.12 and 3.13 `room()` of the C counter, whose limit is fixed
    when Python is built, counted by its probe (`probe=False`: None there instead).

        >>> def deeper(): return spare()
        >>> s = spare()
        >>> s is None or abs(deeper() - s) <= 2
        True
    """
    if _CALLS is None or sys.version_info >= (3, 12):
        return room() if probe else None
    frame, frames = sys._getframe(1), 0
    while frame is not None:
        frames += 1
        frame = frame.f_back
    depth = _depth()
    # no level left even to ask: the depth is the limit, within the one level asking takes
    return frames - (sys.getrecursionlimit() if depth is None else depth)


def _depth() -> int | None:
    """The interpreter's recursion depth (3.11): `sys.setrecursionlimit(1)` refuses, naming it
    (a limit at or below the depth is refused before anything is set). None where no level is
    left to make that call."""
    try:
        sys.setrecursionlimit(1)
    except RecursionError as e:
        found = _DEPTH_WORDS.search(str(e))
        return int(found[1]) if found else None
    raise AssertionError("sys.setrecursionlimit(1) was accepted")      # (never: depth >= 2)


_DEPTH_WORDS = re.compile(r"at the recursion depth (\d+)")


def spare_exceeds(level: int) -> bool | None:
    """Whether `spare()` exceeds `level`, cheaply (None: no counter). On 3.12 and 3.13, where
    spare() probes 1,500 or 10,000 levels one ctypes call each (0.3 and 2 ms, at every cell's
    end), `isinstance` against tuples nested `level` + 8 deep: it takes a C level per tuple
    (Python's own check), 2 ns each, and raises RecursionError where they run out. False
    where that falls within the 8 and a few: spare() then says exactly."""
    if _CALLS is None:
        return None
    if sys.version_info < (3, 12):
        return spare() > level
    try:
        return isinstance(0, _nested(level + 8))
    except RecursionError:
        return False


_NESTED = [(int,), 0]       # tuples nested that deep around (int,): the deepest made so far


def _nested(depth: int) -> tuple:
    """(int,) inside `depth` tuples, from the deepest made so far (made deeper once)."""
    tree, made = _NESTED
    for _ in range(depth - made):
        tree = (tree,)
    if depth > made:
        _NESTED[:] = tree, depth
        return tree
    for _ in range(made - depth):
        tree = tree[0]
    return tree


def give_back(n: int) -> None:
    """Leave the counter `n` times: the room a failed flatten kept (measured by `spare()`)."""
    if _CALLS is not None:
        for _ in range(n):
            _CALLS[1]()
