"""Where a key was reused, in the learner's lines (notebook/notes/key_notes.py's note names
them): the two draws' chains of calls, the user's frames innermost first as random/keys.py
records them, compared from the outermost to the level where they part, or for the same
chain (a loop) the innermost line of the learner's own, past a library's frames (Equinox's
Linear drawing inside the learner's module).
"""
from __future__ import annotations

import os

from ...core.source_info import PACKAGE_DIR, installed_package
from ...views.source_edits import callee_text
from ..display import Site

# the workshop's checks (notebook/workshop/), which call the learner's function twice with one
# key on purpose: a check of dropout's determinism is no reuse of the learner's
_WORKSHOP = os.path.join(PACKAGE_DIR, "notebook", "workshop") + os.sep


class Call(Site):
    """A user's line that drew with a key, or called the function that did: its frame's
    function (`<module>`: a cell's or script's top level) and the function it called there
    (`callee`: the random function's name on the line that drew), and for a line in a
    traced function that function's code object (`code`), and the call's instruction offset
    (`lasti`: two calls on one line are two). `shown`: the callee as the note names it, the
    learner's text of it where it is a library's (`eqx.nn.Linear`, whose frame is Equinox's
    `__call__`)."""
    def __init__(self, file, line, function, callee, code=None, lasti=-1, shown=None):
        super().__init__(file, line)
        self.function, self.callee, self.code, self.lasti = function, callee, code, lasti
        self.shown = shown or callee


def where_reused(first_name, first_calls, name, calls):
    """(first use, reuse) as the lines to name, or None for no reuse of the user's: where the
    two draws' chains of calls part, counted from the outermost (`y1 = dropout(key, x)` and
    `y2 = dropout(key, x)`, where dropout draws), or the line that drew, run again (a loop).
    The same chain called twice by a workshop's check (giving the learner's function one key
    twice, on purpose) is not the user's reuse; called by jax.tree.map (once per leaf), it is."""
    if first_calls == calls and str(calls[-1]).startswith(_WORKSHOP):
        return None
    ours = [c for c in first_calls if type(c) is tuple], [c for c in calls if type(c) is tuple]
    (a, b) = (list(reversed(ours[0])), list(reversed(ours[1])))
    level = next((i for i, (x, y) in enumerate(zip(a, b)) if not _same_call(x, y)), None)
    if level is None:     # the same calls (a loop), or one inside the other: the draws' lines,
        # the innermost of the learner's own (past a library's: Equinox's Linear drawing
        # inside the learner's Block)
        a, b, level = a[_own(a):], b[_own(b):], 0
    sites = []
    for chain, drew in ((a, first_name), (b, name)):
        file, line, function, code, lasti = chain[level]
        inner = chain[level + 1] if level + 1 < len(chain) else None
        callee = drew if inner is None else inner[2]
        shown = callee_text(code, lasti) if inner is not None and \
            installed_package(inner[0]) is not None else None
        if inner is not None and callee in _COMPREHENSIONS and inner[:2] == (file, line):
            shown = callee_text(*inner[3:])     # (the call the comprehension made: `Wrap(wk)`)
        sites.append(Call(file, line, function, callee, code, lasti, shown))
    return tuple(sites)


# the frames Python 3.11 gives a comprehension (3.12 runs it in its function's own)
_COMPREHENSIONS = frozenset({"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"})


def _own(chain) -> int:
    """The index of a draw's chain's innermost frame that is the learner's own (not an
    installed library's), or its last."""
    return max((i for i, c in enumerate(chain) if installed_package(c[0]) is None),
               default=len(chain) - 1)


def _same_call(x, y) -> bool:
    """Whether two entries of draws' chains of calls are one call: its code object itself,
    not an equal one (IPython compiles each statement of a cell apart, and `a = normal(k);
    b = normal(k)` on one line made two equal code objects, calling at the same offset)."""
    if type(x) is not tuple or type(y) is not tuple:
        return x == y
    return x[:3] == y[:3] and x[3] is y[3] and x[4] == y[4]
