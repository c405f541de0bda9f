"""jxkernel's errors shown at the user's lines: the traceback without jxkernel's own frames
(nor the shell's), as JAX filters its tracebacks.

`%load_ext jxkernel` installs it (IPython's `set_custom_exc`) for the exceptions of
`jxkernel.errors`: a `RecompileError` then ends at the cell line that called the function, a
`ConcretizationTypeError` at the line of the traced function that needed a concrete value.
`JXKERNEL_TRACEBACK_FILTERING=off` (like JAX_TRACEBACK_FILTERING) shows every frame.

An error with a card (views/error_cards/: the user's line, where the offending value came from,
why, the fix and a rewrite) is said once: the card says it, and carries the filtered traceback
with JAX's whole message, folded (`<details>`, one click away); the error output above it is
one line naming the error and the user's line (ipykernel's execute reply keeps the whole
traceback, for nbclient and the like; JupyterLite shows its reply's, after the card: one line
there too, saying so). Cell file names in what is shown (ipykernel's
`/tmp/ipykernel_<pid>/<hash>.py`, IPython's `<ipython-input-3-…>`) read `In[3]`. The handler
also takes every other exception: those that went through jxkernel (JAX's errors with
Python's classes: bad shapes, vmap's inconsistent sizes, an attribute a tracer has not, the
user's own error raised while jit traced the function, ...) end at the user's lines too, as
JAX filters its frames; any other is shown exactly as IPython shows it.

A warning raised at a cell's line (the float64 one of `jnp.array(..., dtype=jnp.float64)`)
names the cell too, `In[15], line 1: UserWarning: ...`, where Python's format printed
ipykernel's temporary file (`/tmp/ipykernel_27401/194225421.py:1: UserWarning: ...`).
"""
from __future__ import annotations

import logging
import os
import re
import sys
import traceback
import types
import weakref
import linecache
import warnings

from .._jax import errors as jx_errors
from ..views.error_cards import card_for
from . import room_keeper
from .display import cell_name, show
from ..views.source import in_filtered_traceback
from ..core import told_bugs
from ..core.source_info import is_jxkernel_file
from .program import CellError

_JX_ERRORS = tuple(getattr(jx_errors, name) for name in jx_errors.__all__)
# a %%jit cell's, %jaxpr's or %explain's CellError too: its card comes with its traceback
# and any other exception: one that went through jxkernel's frames ends at the user's lines, as
# JAX filters every error that passes its API (an AttributeError on a tracer, a KeyError in a
# jitted function showed a dozen of jit.py's frames); others are IPython's, unfiltered
ERRORS = _JX_ERRORS + (CellError, Exception)   # the classes the handler is given
FILTERING = "JXKERNEL_TRACEBACK_FILTERING"


def walk(tb):
    """The traceback entries from `tb` on, outermost first."""
    while tb is not None:
        yield tb
        tb = tb.tb_next


def user_traceback(tb):
    """A traceback of the user's frames of `tb` only (None when there is none): neither
    jxkernel's, the shell's, the standard library's nor a library's that hid its frames with
    traceback_util.register_exclusion (views/source.in_filtered_traceback)."""
    return _rebuilt([t for t in walk(tb) if in_filtered_traceback(t.tb_frame.f_code.co_filename)])


def _rebuilt(entries):
    """A traceback of these entries (walk's), outermost first; None for none."""
    tb = None
    for t in reversed(entries):
        tb = types.TracebackType(tb, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return tb


def through_jxkernel(tb) -> bool:
    """Whether the exception went through a frame of jxkernel's: raised there, or in the
    user's function that jxkernel called (a jitted function's body while tracing)."""
    return any(is_jxkernel_file(t.tb_frame.f_code.co_filename) for t in walk(tb))


RED, RESET = "\x1b[31m", "\x1b[0m"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _show_user_traceback(shell, etype, value, tb, tb_offset=None):
    """IPython's custom exception handler: its usual traceback of the user's frames only,
    or, for an error with a card, one line and the card holding that traceback. Any other
    error that never went through jxkernel (and has no card) is not ours: IPython's own
    traceback, unfiltered. First, the recursion room a failed pytree flatten kept is given
    back (room_keeper.py): without it, showing the error would raise RecursionError too."""
    restored = room_keeper.keeper.before_error()
    if restored is not None:        # what failed for lack of room is not the cell's error
        value, tb = _flattens_error(value)
        etype = type(value)
    _show_traceback(shell, etype, value, tb)
    if restored is not None:
        show(restored)


def show_unshown(shell, error) -> bool:
    """Once room_keeper gave back the recursion room a failed flatten kept: IPython, with too
    little room left to call this module's handler, dropped it (its "Custom TB Handler failed,
    unregistering") and printed only "Unexpected exception formatting exception". The handler
    goes back in and shows the flatten's error (`_flattens_error`). Whether it showed one."""
    if shell in _installed and not shell.custom_exceptions:
        shell.set_custom_exc(ERRORS, _show_user_traceback)
    chain = _context_chain(error)
    if not chain or not installed(shell) or any(id(e) == _shown[0] for e in chain):
        return False
    value, tb = _flattens_error(error)
    _show_traceback(shell, type(value), value, tb)
    return True


def _context_chain(error) -> list:
    """`error`, the exception it was raised while handling, and so on."""
    chain = []
    while error is not None and error not in chain:
        chain.append(error)
        error = error.__context__
    return chain


def _flattens_error(error) -> tuple:
    """(the error, a traceback through the user's lines) to show for a cell whose flatten kept
    the recursion room: the first in `error`'s context chain that is not a RecursionError of
    what then failed for lack of room (IPython's call of this handler, a jit's or grad's
    traceback filtering), else the deepest; and the first traceback of the chain that passes
    through the user's lines (the flatten's own stops at jxkernel's boundary that caught it),
    up to the user's call into jxkernel: what ran below it had no room and failed."""
    chain = _context_chain(error)
    own = next((e for e in chain if not isinstance(e, RecursionError)), chain[-1])
    for e in chain:
        called = list(walk(e.__traceback__))
        cut = next((i for i, t in enumerate(called)
                    if is_jxkernel_file(t.tb_frame.f_code.co_filename)), len(called))
        kept = _rebuilt(called[:cut])
        if user_traceback(kept) is not None:
            return own, kept
    return own, own.__traceback__


_shown = [None]     # id() of the error the handler showed last


def _show_traceback(shell, etype, value, tb) -> None:
    from IPython.core.error import UsageError  # the shell calling us has IPython loaded
    _shown[0] = id(value)
    card = _card(value)
    # IPython says a UsageError (a magic's: %%jit's options, a cell that is not Python) and a
    # SyntaxError in a line of their own; as a traceback they showed IPython's rewrite of the
    # cell, `get_ipython().run_cell_magic('jit', ...)`
    ipythons = isinstance(value, (UsageError, SyntaxError))
    if card is None and (ipythons or not isinstance(value, _JX_ERRORS) and
                         not through_jxkernel(tb)):
        shell.showtraceback((etype, value, tb))
        return
    try:
        _show(shell, etype, value, tb, card)
    except Exception:  # noqa: BLE001  IPython drops a handler that raises: show it plainly
        shell.showtraceback((etype, value, tb))


def _show(shell, etype, value, tb, card) -> None:
    # what IPython's showtraceback records: %tb and %debug read it (the whole traceback)
    sys.last_type, sys.last_value, sys.last_traceback = etype, value, tb
    if sys.version_info >= (3, 12):
        sys.last_exc = value
    if hasattr(value, "_render_traceback_"):          # a %%jit cell's CellError says its own
        stb = value._render_traceback_()
    else:
        stb = shell.InteractiveTB.structured_traceback(etype, value, user_traceback(tb) or tb,
                                                       tb_offset=0)
    stb = [name_cells(line) for line in stb]
    _name_cells_in_message(value)
    if card is None:
        shell._showtraceback(etype, value, stb)
    else:
        card.traceback = _ANSI.sub("", shell.InteractiveTB.stb2text(stb))
        card.message = name_cells(card.message)
        shell._showtraceback(etype, value, _one_line(etype, value, card, stb))
        # ipykernel's execute reply carries the whole traceback (a list); JupyterLite's Pyodide
        # kernel keeps a dict (ename, evalue, traceback) whose traceback is both its reply's
        # and the error output it shows once the cell has run, after the card: one line
        # there, pointing up (the whole traceback showed under the card, said twice)
        last = getattr(shell, "_last_traceback", None)
        if isinstance(last, dict):
            shell._last_traceback = {**last, "traceback": _one_line(etype, value, card, stb,
                                                                    "above")}
        elif hasattr(shell, "_last_traceback"):
            shell._last_traceback = stb
        from IPython.display import display
        display(card)
    if shell.call_pdb:
        shell.debugger(force=True)


def _one_line(etype, value, card, stb, side="below") -> list:
    """The error output beside a card: the error's name and the user's line, and the card
    `side` of it (above in JupyterLite, which shows the error after the cell's displays). A
    CellError's first line says that already; its copy of the message and its "What to do" go,
    the card (and a %%jit cell's traced-vs-static view) say them."""
    if hasattr(value, "_render_traceback_"):
        return stb[:1]
    where = card.where
    at = f" in {where['file']}, line {where['line']}, in {where['function']}" if where else ""
    return [f"{RED}{etype.__name__}{RESET}{at}: explained in the card {side}"]


def _name_cells_in_message(value) -> None:
    """The exception's own message with cells named too: ipykernel's reply carries str(value)
    (nbclient, Colab and `print(e)` show it), and jxkernel's messages name where a function was
    defined ('tracing the function relu at /tmp/ipykernel_15408/2882507008.py:1 for jit')."""
    if value.args and isinstance(value.args[0], str):
        named = name_cells(value.args[0])
        if named != value.args[0]:
            value.args = (named, *value.args[1:])


def name_cells(text: str) -> str:
    """`text` with the file names IPython gives cells ('/tmp/ipykernel_4692/1161316084.py' in
    ipykernel, '<ipython-input-2-…>' in IPython) as the prompt names them: In[2], and
    'In[2], line 3' for 'FILE:3'. JAX's 'FILE:3:8' (a call's column, counted from 0) reads
    'In[2], line 3, column 9', counted from 1 as the notebook's editor counts it (its status
    bar's "Ln 3, Col 9" with the cursor on that character), and a 'line' before the file is
    said once ('created on line FILE:3:8' -> 'created on In[2], line 3, column 9'). A name
    inside a function_key ('f@FILE:1#…', code the user may copy) is left as it is, or the
    key would no longer match."""
    try:
        from IPython import get_ipython
        numbers = get_ipython().compile._filename_map
    except Exception:  # noqa: BLE001  no shell, or one without IPython's compiler
        return text
    present = sorted((name for name in numbers if name in text), key=len, reverse=True)
    if not present:
        return text
    files = "|".join(map(re.escape, present))
    pattern = re.compile(rf"(?<!@)(\bline )?({files})(?::(\d+)(?::(\d+))?)?")

    def named(m) -> str:
        word, file, line, column = m.groups()
        cell = f"In[{numbers[file]}]"
        if line is None:
            return f"{word or ''}{cell}"
        return f"{cell}, line {line}" + (f", column {int(column) + 1}" if column else "")
    return pattern.sub(named, text)


def _card(value):
    """The error card for `value`, or None; a card that fails to build is no card (IPython
    would unregister a handler that raises), is told in one line at the cell and kept in
    core/told_bugs.py (which the tests read), as a note that fails to build is
    (state.State._note): the learner sees JAX's error as it is, and why no card came."""
    try:
        card = card_for(value)
        if card is not None:        # drawn here too: one that fails to draw is no card either
            repr(card), card._repr_html_()
        return card
    except Exception as e:  # noqa: BLE001
        told_bugs.tell(
            f"jxkernel could not make the card for this {type(value).__name__} (it raised "
            f"{type(e).__name__}: {e}). The error is shown as JAX gives it; only the card is "
            "missing.", "the cell", e, at=_cell_line(value))
        return None


def _cell_line(value) -> tuple:
    """("In[3]", 2): the innermost line of a cell that `value` was raised through, ("In[ ]",
    1) where none. (The shell's execution_count, read here, is already the next cell's: the
    warning named In[14] under cell 13.)"""
    found = [(cell_name(frame.f_code.co_filename), line)
             for frame, line in traceback.walk_tb(value.__traceback__)]
    return next((f for f in reversed(found) if f[0] is not None), ("In[ ]", 1))


def installed(shell) -> bool:
    """Whether `shell` shows errors through this module's handler (which shows the cards)."""
    return shell is not None and shell.custom_exceptions == ERRORS


def install(shell) -> bool:
    """Filter jxkernel's errors in `shell`, unless filtering is off or the shell already has
    another custom exception handler (it is kept: there is one per shell)."""
    if os.environ.get(FILTERING, "").lower() in ("off", "0", "false") or shell.custom_exceptions:
        return False
    shell.set_custom_exc(ERRORS, _show_user_traceback)
    _installed.add(shell)
    return True


def uninstall(shell) -> None:
    _installed.discard(shell)
    if shell.custom_exceptions == ERRORS:
        shell.set_custom_exc((), None)


_installed = weakref.WeakSet()     # the shells `install` put the handler in


_plain_formatwarning = warnings.formatwarning


def _cell_formatwarning(message, category, filename, lineno, line=None):
    """Python's warning text, with a cell's file named as the cell (`In[15], line 1`)."""
    cell = cell_name(filename)
    if cell is None:
        return _plain_formatwarning(message, category, filename, lineno, line)
    source = line if line is not None else linecache.getline(filename, lineno)
    text = f"{cell}, line {lineno}: {category.__name__}: {message}\n"
    return text + (f"  {source.strip()}\n" if source and source.strip() else "")


def install_warnings() -> None:
    """Warnings at a cell's line name the cell (warnings.showwarning formats through
    warnings.formatwarning once it is replaced)."""
    global _plain_formatwarning
    if warnings.formatwarning is not _cell_formatwarning:
        _plain_formatwarning = warnings.formatwarning
        warnings.formatwarning = _cell_formatwarning


def uninstall_warnings() -> None:
    if warnings.formatwarning is _cell_formatwarning:
        warnings.formatwarning = _plain_formatwarning


class _CellNamesInLog(logging.Filter):
    """jax_explain_cache_misses's log (`TRACING CACHE MISS at FILE:7 (<module>)`) with a
    cell's file named as the cell, `In[3], line 7`, as the cards and errors name it: in a
    notebook, ipykernel's temporary file means nothing to the learner."""

    def filter(self, record):
        named = name_cells(record.getMessage())
        if named != record.getMessage():
            record.msg, record.args = named, ()
        if getattr(record, "jax_words", None):      # JAX's message alone (compile_notes)
            record.jax_words = name_cells(record.jax_words)
        if record.exc_info and not record.exc_text:
            # a failing host callback's traceback (logged as JAX logs it): the handler prints
            # exc_text when it is set, so the cells' files are named there too
            record.exc_text = name_cells(_FORMATTER.formatException(record.exc_info))
        return True


_FORMATTER = logging.Formatter()
_CELL_NAMES_IN_LOG = _CellNamesInLog()
# the loggers whose text names the user's code: core/compile_record.py's (JAX's own name is
# "jax._src.interpreters.pxla", which jxkernel does not use) and those lax/callbacks.py logs
# a failing callback's traceback to (JAX's names), which runs through the user's cells
_LOGS_NAMING_CODE = ("jxkernel.compile_log", "jax._src.callback", "jax._src.debugging")


def install_log_names() -> None:
    for name in _LOGS_NAMING_CODE:
        logging.getLogger(name).addFilter(_CELL_NAMES_IN_LOG)


def uninstall_log_names() -> None:
    for name in _LOGS_NAMING_CODE:
        logging.getLogger(name).removeFilter(_CELL_NAMES_IN_LOG)


def show_card(exc) -> None:
    """Display `exc`'s card in IPython, if it has one (the `%%jit` and `%jaxpr` magics call
    this for their CellError before raising it). Nothing when this module's exception handler
    is installed: it shows the card when the error reaches it, with the
    traceback folded inside, so that the error is said once."""
    from IPython import get_ipython           # IPython loads with the notebook layer, not before
    if installed(get_ipython()):
        return
    card = card_for(exc)
    if card is not None:
        from IPython.display import display
        display(card)
