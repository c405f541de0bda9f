"""What the notebook watches of the programs a user's jit compiles: its cache entry asks
`watch_of` once, and while the watch is `on` the calls its schedule looks at leave the fast
paths and are given to it (transforms/jit/function.py's `_call`). A loop run eagerly, and a
jitted program a transformation runs eagerly, are watched the same way (`Eager`).

A watch comes from two places: what a trace noted as it ran (`watched`: a gradient taken
inside the jitted function, notebook/notes/gradient_calls.py), and the makers the loaded
extension adds to `makers` (notebook/notes/index_calls.py: the indices a program reads at run
time). A program watched for both is given to both (`Watches`).

A watch has `on` (a property), `before_donating(leaves)` (the inputs of a donating call,
kept: host copies or None) and `called(jitted, entry, leaves, outs)`.

Looking at a call costs far more than the call (the general path, a check run, values
copied: 50-200 µs against a small step's 15 µs), so a watched program's calls are not all
looked at: each cell's first FIRST are, and after them one in so many, so that looking
takes about SHARE of the loop's time (`Schedule`; every one where the option
`jxkernel_watched_calls` is 'all'). The others take the fast paths, which
leave one when the entry's `hits` reach its `look_at` (transforms/jit/function.py, and
core/_fastpath.c's hit_run). A loop of a large model looks at each call; a loop of 15 µs
steps at about one in a few hundred once it has run a while.
"""
from __future__ import annotations

import sys
import time
import weakref

from .config import config

# a program (ClosedJaxpr) -> what a watch of the notebook's noted while it was traced (a
# gradient taken inside a jit: notebook/notes/gradient_calls.py); core/staging.py adds to it
watched: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

# while True (notebook/notes/gradient_calls.paused: %timeit's runs), the makers' watches are
# off
paused = False

# what makes a watch of a program a user's jit compiled: (ClosedJaxpr) -> a watch or None;
# the notebook's extension adds its makers as it loads and takes them away as it unloads
makers: list = []


# an entry's `look_at` while nothing looks at its calls (an unwatched program, a paused watch)
NEVER = sys.maxsize
# the first calls of a watched program each cell looks at, all of them
FIRST = 8
# after them, about this share of a loop's time goes to looking
SHARE = 0.05

# the cache entries of watched programs: each cell's first calls are looked at again
scheduled: weakref.WeakSet = weakref.WeakSet()


class Schedule:
    """When a watched program's calls are looked at: how many calls to let by on the fast
    paths after each one looked at (`after`), from what looking costs and how often calls
    come; none in a cell looked at in `full`.

    >>> s = Schedule()
    >>> [s.after(hits=n, cost=0.0001, now=n * 0.00001) for n in range(1, 12)][-4:]
    [0, 1, 3, 7]
    """
    __slots__ = ("looked", "hits", "time", "stride", "full", "full_next")

    def __init__(self):
        self.full = self.full_next = False
        self.restart(cell=False)

    def restart(self, cell: bool) -> None:
        """Begin again with FIRST calls looked at: at a `cell`'s start (looked at in full
        where `full_next` asked), or as a pause ends (a cell in full going on so)."""
        self.looked, self.hits, self.time, self.stride = 0, 0, 0.0, 0
        if cell:
            self.full, self.full_next = self.full_next, False

    def after(self, hits: int, cost: float, now: float) -> int:
        """The calls to let by after the one looked at now (its entry's `hits` counting it),
        whose looking took `cost` seconds more than a call on the fast paths would."""
        # (the calls since the last one looked at: those let by, and this one where `hits`
        # counts it, as an entry's own does and its twin's, which counts fast calls alone,
        # does not: a rate off by one call)
        calls, took = max(hits - self.hits, 1), now - self.time
        self.looked += 1
        self.hits, self.time = hits, now
        if self.full or self.looked <= FIRST or took <= 0 or \
                config.jxkernel_watched_calls == "all":
            self.stride = 0
            return 0
        # looking at one call in stride + 1 costs `cost` per (stride + 1) calls of
        # took / calls seconds each: at most SHARE of them, growing by at most twice plus one
        # (a loop's speed is measured again as it goes)
        wanted = int(cost / (SHARE * took / calls))
        self.stride = min(wanted, 2 * self.stride + 1)
        return self.stride


def looked(jitted, entry, on: bool, kept, outs, since: float) -> None:
    """A call of a watched program that took jit's general path (`_call`; `jitted` an Eager
    program's name, or None for a loop's): given to the watch where it is `on` (`kept`: its
    inputs, `outs`: its results), and the entry's next call to look at set from what this
    one cost, the time from `since` (when the call's Python began, plus its program's run)."""
    if on:
        entry.watch.called(jitted, entry, kept, outs)
    schedule(entry, on, time.perf_counter() - since)


def schedule(entry, on: bool, cost: float) -> None:
    """Set when `entry`'s next call leaves the fast paths to be looked at, after one that was
    (`on`: looked at, costing `cost` seconds more than a fast call), or that a paused watch
    let by (NEVER, until `look_again`)."""
    scheduled.add(entry)
    if not on:
        entry.look_at = NEVER
        return
    if entry.schedule is None:
        entry.schedule = Schedule()
    entry.look_at = entry.hits + entry.schedule.after(entry.hits, cost, time.perf_counter())


def let_by(entry) -> bool:
    """Whether calls of `entry` went by unlooked at since the last one looked at (asked
    while a watch looks at a call, before `schedule`)."""
    return entry.schedule is not None and entry.schedule.stride > 0


def in_full_next(entry) -> None:
    """Look at every call of `entry` in the next cell: a watch found that what it looks for
    happened in a call it let by (a NaN first made there: run again, the first is found)."""
    if entry.schedule is not None:
        entry.schedule.full_next = True


def look_again(cell: bool = True) -> None:
    """Look at the next calls of every watched program, FIRST of them before letting any by
    (all of them where `in_full_next` asked): at a `cell`'s start, and as a pause (%timeit's)
    ends (`cell` False)."""
    for entry in list(scheduled):
        entry.look_at = 0
        if entry.schedule is not None:
            entry.schedule.restart(cell)


class Eager:
    """A program run eagerly that a maker watches, in place of jit's cache entry: a loop or
    branch of the learner's outside jit (`lax.fori_loop(0, n, body, x)` at a cell's top: one
    primitive, its body a jaxpr), which xla/dispatch.py runs on its general path, or a jitted
    function's program that a transformation runs eagerly (`jax.vmap(get)(x, idx)`:
    transforms/jit/primitive.py). Its calls are counted in `hits` and looked at on the same
    schedule."""
    __slots__ = ("watch", "jaxpr", "name", "hits", "look_at", "schedule", "__weakref__")
    donated = False

    def __init__(self, watch, jaxpr, name: str | None = None):
        # (`jaxpr`: its program, which the gradient record runs again; `name`: a jitted
        # function's, run by a transformation eagerly, as an eager vmap runs its batched
        # program; None: a loop of the learner's, its body run here)
        self.watch, self.jaxpr, self.name = watch, jaxpr, name
        self.hits, self.look_at, self.schedule = 0, 0, None

    def called(self, leaves, outs, since: float) -> None:
        """A call run (its operands and results), looked at where its schedule says, the
        watch `on`: `since`, when its program's run ended."""
        due, self.hits = self.hits >= self.look_at, self.hits + 1
        if due:
            looked(self.name, self, self.watch.on, leaves, outs, since)


def eager(cache, key, closed_of, name: str | None = None) -> Eager | None:
    """The Eager of a program run eagerly, kept in `cache` (an LRU) under `key`, or None:
    `closed_of()` gives no program (a primitive with no body) or nothing watches it. The
    program is made on the key's first call alone."""
    found = cache.get(key, cache)          # (the cache itself: not asked yet)
    if found is cache:
        closed = closed_of()
        watch = None if closed is None else watch_of(closed, user_jit=True)
        found = cache[key] = None if watch is None else Eager(watch, closed, name)
    return found


# every call looked at from now on ('all'), or sampled again: the next ones looked at
config.watch("jxkernel_watched_calls", lambda old, new: look_again(cell=False))


def watch_of(closed, user_jit: bool):
    """The watch of a program jit compiled (`user_jit`: a user's jit, or a library's, not
    jxkernel's own), or None: nothing watches it."""
    found = [w for w in (watched.get(closed),
                         *(make(closed) for make in (makers if user_jit else ())))
             if w is not None]
    return None if not found else found[0] if len(found) == 1 else Watches(found)


class Watches(tuple):
    """Two watches of one program (a gradient taken inside, indices read): each is given the
    calls while it is on."""

    @property
    def on(self) -> bool:
        return any(w.on for w in self)

    def before_donating(self, leaves) -> list | None:
        """The first kept copy of the inputs that a watch that is on makes (each keeps to its
        own bound; a watch given more than it keeps, past its bound, looks at none)."""
        return next((kept for w in self if w.on
                     for kept in [w.before_donating(leaves)] if kept is not None), None)

    def called(self, jitted, entry, leaves, outs) -> None:
        for w in self:
            if w.on:
                w.called(jitted, entry, leaves, outs)
