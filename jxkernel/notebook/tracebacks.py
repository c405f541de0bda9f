"""jxkernel's errors shown at the user's lines: the traceback without jxkernel's own frames
(nor the shell's), as JAX filters its tracebacks.

`%load_ext jxkernel` installs it (IPython's `set_custom_exc`) for the exceptions of
`jxkernel.errors`: a `RecompileError` then ends at the cell line that called the function, a
`ConcretizationTypeError` at the line of the traced function that needed a concrete value.
`JXKERNEL_TRACEBACK_FILTERING=off` (like JAX_TRACEBACK_FILTERING) shows every frame.

After the traceback comes the error card (error_cards.py) where there is one: the user's
line, where the offending value came from and a suggested rewrite. The handler also takes
ValueError and TypeError: those jxkernel raises (JAX's errors with those classes: bad shapes,
vmap's inconsistent sizes, a loop carry changing type, rank promotion refused, ...) end at the
user's lines too, as JAX filters its frames; any other ValueError or TypeError is shown
exactly as IPython shows it.
"""
from __future__ import annotations

import os
import types

from .. import errors as jx_errors
from .display import JXKERNEL_DIR, is_user_file
from .error_cards import card_for

_JX_ERRORS = tuple(getattr(jx_errors, name) for name in jx_errors.__all__)
ERRORS = _JX_ERRORS + (ValueError, TypeError)       # the classes the handler is given
FILTERING = "JXKERNEL_TRACEBACK_FILTERING"

def walk(tb):
    """The traceback entries from `tb` on, outermost first."""
    while tb is not None:
        yield tb
        tb = tb.tb_next


def user_traceback(tb):
    """A traceback of the user's frames of `tb` only (None when there is none)."""
    kept = [t for t in walk(tb) if is_user_file(t.tb_frame.f_code.co_filename)]
    filtered = None
    for t in reversed(kept):
        filtered = types.TracebackType(filtered, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return filtered


def raised_by_jxkernel(tb) -> bool:
    """Whether the innermost frame of `tb`, where the exception was raised, is jxkernel's."""
    last = None
    for last in walk(tb):
        pass
    return last is not None and last.tb_frame.f_code.co_filename.startswith(JXKERNEL_DIR)


def _show_user_traceback(shell, etype, value, tb, tb_offset=None):
    """IPython's custom exception handler: its usual traceback of the user's frames only,
    then the error card. A ValueError or TypeError that jxkernel did not raise (and has no
    card) is not ours: IPython's own traceback, unfiltered."""
    card = _card(value)
    if card is None and not isinstance(value, _JX_ERRORS) and not raised_by_jxkernel(tb):
        shell.showtraceback((etype, value, tb))
        return
    shell.showtraceback((etype, value, user_traceback(tb) or tb), tb_offset=0)
    if card is not None:
        from IPython.display import display
        display(card)


def _card(value):
    """The error card for `value`, or None; a card that fails to build is no card (IPython
    would unregister a handler that raises)."""
    try:
        return card_for(value)
    except Exception:  # noqa: BLE001
        return None


def install(shell) -> bool:
    """Filter jxkernel's errors in `shell`, unless filtering is off or the shell already has
    another custom exception handler (it is kept: there is one per shell)."""
    if os.environ.get(FILTERING, "").lower() in ("off", "0", "false") or shell.custom_exceptions:
        return False
    shell.set_custom_exc(ERRORS, _show_user_traceback)
    return True


def uninstall(shell) -> None:
    if shell.custom_exceptions == ERRORS:
        shell.set_custom_exc((), None)
