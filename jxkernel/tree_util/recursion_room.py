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

jxkernel's own pytree calls give back what such a flatten kept where it raised (`after_error`,
below: a plain script keeps working too); the notebook layer gives back what any other flatten
kept (notebook/room_keeper.py).

What stays kept (decided at stop 93; tests/tree_util/test_recursion_room.py holds both):
- A loss within SLACK of the reference taken at import. The import stood some C levels deeper
  than a script's top (9 on 3.11), so there a loss of up to SLACK plus those stays, and a
  giving back leaves those kept (a first 39 levels lost stay; with the next 39 all but 9
  go back): bounded, it never adds up. Exact would need the counter read before every
  flatten (a ctypes read, ~3 % of a tree_leaves, on every trace's good path); the slack is
  what stops a check made from a deeper C stack giving back levels still in use, which would
  let a recursion run past the C stack.
- Whatever a thread other than the main one loses, until that thread ends (a new thread has a
  full counter). The except must lend room with no call (a thread that lost it all cannot even
  call a builtin), so it writes through a ctypes int bound to the counter's address; a thread's
  PyThreadState is made and freed with the thread, and finding it needs calls on the good path.

    >>> r = room()
    >>> r is None or r == room()
    True
"""
from __future__ import annotations

import ctypes
import os
import re
import sys
import threading


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
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(1)
    except RecursionError as e:
        found = _DEPTH_WORDS.search(str(e))
        return int(found[1]) if found else None
    # accepted: the counter stands below a depth of 1, given back more than was lost (a loan
    # of after_error's, say): the limit goes straight back, and the depth is the counter's
    # (with the level the refusal's call would have taken)
    sys.setrecursionlimit(limit)
    return limit - LEVELS.value + 1 if _OWNER == threading.get_ident() else 0


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


# ---------------------------------------------------------------- given back where it raised
#
# jxkernel's own calls of jaxlib's flatten (tree_util's tree_flatten, tree_leaves, ...; jit's
# argument flattening) give back what a flatten that raised kept, in their `except`, which runs
# only on that error: nothing is added where no error is raised. A flatten that kept all the
# room leaves none to call anything with (3.11: in the frame that called it; 3.12 and 3.13:
# anywhere until a C call returns, as Python frames hold no C levels), ctypes' calls and even
# a first comparison of two ints included (PyObject_RichCompare takes a level), so the `except`
# first lends LEND levels without a call or a comparison, by adding to the counter itself
# (`LEVELS`, a ctypes int over the main thread's own field); then `settle` gives back what was
# lost (`after_error`) and takes the loan back whatever happened:
#
#     except BaseException:
#         _room.LEVELS.value += _room.LEND      # (an int's add and a C setter: no level taken)
#         _room.settle()
#         raise
#
# Off the main thread the loan goes to the main thread's counter (the GIL is held: it cannot be
# in use) and comes straight back; after_error gives nothing back there.

LEND = 60           # levels lent for after_error's calls (it takes about 10)
SLACK = 40          # what a healthy stack's checks may differ by: never given back (room_keeper)
GIVEN = [0]         # levels after_error gave back that the notebook's note has not told yet


class _Unwatched:
    """LEVELS where no counter is watched: reads as plenty, so nothing is ever lent."""
    value = 1 << 30


def _main_thread_levels():
    """A ctypes int over the counter `Py_EnterRecursiveCall` takes from in the main thread's
    PyThreadState, found by watching: the one int among its first 64 that an enter lowers by
    one and the leave puts back (3.11 `recursion_remaining`, 3.12 and 3.13
    `c_recursion_remaining`). None off the main thread (another thread's state is freed when
    it ends), without a GIL (another thread's writes would race with the owner's), or where
    not exactly one int moved."""
    if _CALLS is None or threading.current_thread() is not threading.main_thread() or \
            not getattr(sys, "_is_gil_enabled", lambda: True)():
        return None
    state = ctypes.pythonapi.PyThreadState_Get
    state.argtypes, state.restype = [], ctypes.c_void_p
    address = state()
    ints = (ctypes.c_int * 64).from_address(address)
    enter, leave = _CALLS
    before = ints[:]
    enter(b"")
    during = ints[:]
    leave()
    after = ints[:]
    moved = [i for i in range(64) if during[i] == before[i] - 1 and after[i] == before[i]]
    return ctypes.c_int.from_address(address + 4 * moved[0]) if len(moved) == 1 else None


def _spare_by_levels() -> int:
    """spare() read from LEVELS, with no probe or refusal: on 3.12 and 3.13 the C counter itself;
    on 3.11 the frames on the caller's stack less the depth the counter tells (the limit less
    what remains). Differs from spare() by a constant; after_error compares it only with itself.
    (spare() asks `sys.setrecursionlimit(1)` for the depth, which a loan could make shallow
    enough to accept.)"""
    if sys.version_info >= (3, 12):
        return LEVELS.value
    frame, frames = sys._getframe(1), 0
    while frame is not None:
        frames += 1
        frame = frame.f_back
    return frames - (sys.getrecursionlimit() - LEVELS.value)


def watch() -> None:
    """(Re)start watching the main thread's counter; what spare() is now becomes the reference
    the error path compares with (at import, and in a child after fork, where the old main
    thread's state may be gone)."""
    global LEVELS, REFERENCE, _OWNER
    levels = _main_thread_levels()
    LEVELS = _Unwatched() if levels is None else levels
    _OWNER = threading.get_ident() if levels is not None else None
    REFERENCE = _spare_by_levels() if levels is not None else None


def after_error() -> int:
    """In the `except` of a flatten that raised, with LEND levels lent (see above): give back
    what spare() lost since `watch`, only past SLACK (a stack standing a few C levels deeper
    than the import's never gives back room in use). The levels given back: 0 off the main
    thread or where no counter is watched."""
    if _OWNER is None or threading.get_ident() != _OWNER:
        return 0
    lost = REFERENCE - (_spare_by_levels() - LEND)
    if lost <= SLACK:
        return 0
    LEVELS.value += lost
    GIVEN[0] += lost
    return lost


def settle() -> int:
    """The `except`'s second line, once it lent LEND levels (see above): `after_error`, then the
    loan back, whatever happened. The levels given back."""
    try:
        return after_error()
    finally:
        LEVELS.value -= LEND


def take_given() -> int:
    """The levels after_error gave back since the last call (the notebook's note tells them)."""
    given, GIVEN[0] = GIVEN[0], 0
    return given


LEVELS, REFERENCE, _OWNER = _Unwatched(), None, None
watch()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=watch)
