"""What the notebook watches of the programs a user's jit compiles: its cache entry asks
`watch_of` once, and while the watch is `on` the entry's calls leave the fast paths and are
given to it (transforms/jit/function.py's `_call`).

A watch comes from two places: what a trace noted as it ran (`watched`: a gradient taken
inside the jitted function, notebook/gradient_calls.py), and the makers the loaded extension
adds to `makers` (notebook/index_calls.py: the indices a program reads at run time). A
program watched for both is given to both (`Watches`).

A watch has `on` (a property), `made_fast(jitted, entry)` (a call put on the fast paths while
paused), `before_donating(leaves)` (the inputs of a donating call, kept: host copies or None)
and `called(jitted, entry, leaves, outs)`.
"""
from __future__ import annotations

import weakref

# a program (ClosedJaxpr) -> what a watch of the notebook's noted while it was traced (a
# gradient taken inside a jit: notebook/gradient_calls.py); core/staging.py adds to it
watched: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

# while True (notebook/gradient_calls.paused: %timeit's runs), the makers' watches are off
paused = False

# what makes a watch of a program a user's jit compiled: (ClosedJaxpr) -> a watch or None;
# the notebook's extension adds its makers as it loads and takes them away as it unloads
makers: list = []


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

    def made_fast(self, jitted, entry) -> None:
        for w in self:
            w.made_fast(jitted, entry)

    def before_donating(self, leaves) -> list | None:
        """The first kept copy of the inputs that a watch that is on makes (each keeps to its
        own bound; a watch given more than it keeps, past its bound, looks at none)."""
        return next((kept for w in self if w.on
                     for kept in [w.before_donating(leaves)] if kept is not None), None)

    def called(self, jitted, entry, leaves, outs) -> None:
        for w in self:
            if w.on:
                w.called(jitted, entry, leaves, outs)
