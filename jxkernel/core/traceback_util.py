"""jxkernel._src.traceback_util, as jax._src.traceback_util: tracebacks without the frames of
jxkernel (and of the libraries that register themselves), as JAX filters its own.

Libraries built on JAX (Equinox, Flax) register their own files so that an error inside their
transformations ends at the user's lines, and wrap their entry points in `api_boundary`:

    >>> include_filename(PACKAGE_DIR + "numpy/ufuncs.py")
    False
    >>> @api_boundary
    ... def entry(x):
    ...     return 1 / x
    >>> with config.override("jax_traceback_filtering", "quiet_remove_frames"):  # (not IPython's)
    ...     try:
    ...         entry(0)
    ...     except ZeroDivisionError as e:
    ...         print(all(include_frame(f) for f, _ in traceback.walk_tb(e.__traceback__)))
    True

The filtering mode is JAX's option `jax_traceback_filtering` (`JAX_TRACEBACK_FILTERING` at
start-up): "off", "tracebackhide" (mark the
hidden frames with `__tracebackhide__` for IPython and pytest), "remove_frames" (a filtered
traceback, the full one as the cause) and "quiet_remove_frames" (the default outside IPython:
the filtered traceback and a note saying frames were removed).
"""
from __future__ import annotations

import functools
import os
import sys
import threading
import traceback
import types

from .config import config
from .source_info import PACKAGE_DIR

# The paths whose frames filtered tracebacks hide. JAX keeps this list apart from
# source_info_util's, and so does jxkernel (source_info.register_exclusion): this one hides
# frames of an escaping exception, that one chooses the user's line an equation records (the
# standard library is excluded there, never here).
_exclude_paths: list[str] = []


def register_exclusion(path: str) -> None:
    """Hide the frames of files under `path` (a file or a folder) from filtered tracebacks."""
    _exclude_paths.append(os.path.abspath(path))


register_exclusion(PACKAGE_DIR)


def _under(path: str, prefix: str) -> bool:
    path = os.path.abspath(path)
    try:
        return os.path.commonpath([path, prefix]) == prefix
    except ValueError:           # different drives
        return False


def include_filename(filename: str) -> bool:
    """Whether a frame of `filename` stays in filtered tracebacks (it is under no exclusion)."""
    return not any(_under(filename, prefix) for prefix in _exclude_paths)


def include_frame(f: types.FrameType) -> bool:
    """Whether frame `f` stays in filtered tracebacks."""
    return include_filename(f.f_code.co_filename)


def filter_traceback(tb: types.TracebackType | None) -> types.TracebackType | None:
    """A new traceback of the kept frames of `tb`, outermost first (None if none is kept)."""
    out = None
    for f, lineno in reversed(list(traceback.walk_tb(tb))):
        if include_frame(f):
            out = types.TracebackType(out, f, f.f_lasti, lineno)
    return out


# JAX's words after the message of the "remove_frames" cause
_UNFILTERED = ("\n\nThe stack trace below excludes JAX-internal frames.\nThe preceding is the "
               "original exception that occurred, unmodified.\n\n--------------------")


def _with_callers(tb: types.TracebackType) -> types.TracebackType:
    """`tb` with the user's frames that called the boundary put before it, as JAX's cause
    shows them: up to the first run of module-level frames (a REPL's own frames lie above it).
    """
    out, at_module = tb, False
    for f, lineno in traceback.walk_stack(tb.tb_frame.f_back):
        if "importlib._bootstrap" in f.f_code.co_filename:   # (hidden by Python's printing)
            continue
        if at_module and f.f_code.co_name != "<module>":
            break
        if include_frame(f):
            out = types.TracebackType(out, f, f.f_lasti, lineno)
        at_module = at_module or f.f_code.co_name == "<module>"
    return out


class UnfilteredStackTrace(Exception):
    """The cause attached in "remove_frames" mode: the exception with every frame."""


def unfiltered_traceback(exc: BaseException) -> types.TracebackType | None:
    """`exc`'s traceback with jxkernel's frames, as it was before a boundary filtered it (the
    error cards read grad's and tree_map's frames); its own traceback where none did.

    >>> unfiltered_traceback(ValueError()) is None
    True
    """
    return getattr(exc, "_jxkernel_unfiltered_traceback", exc.__traceback__)


_SIMPLIFIED = ("For simplicity, JAX has removed its internal frames from the traceback of the "
               "following exception. Set JAX_TRACEBACK_FILTERING=off to include these.")


class SimplifiedTraceback(Exception):
    def __str__(self):
        return _SIMPLIFIED


def _filtering_mode() -> str:
    mode = str(config.jax_traceback_filtering).lower()
    if mode == "auto":
        ipython = sys.modules.get("IPython")
        in_ipython = ipython is not None and ipython.get_ipython() is not None
        mode = "tracebackhide" if in_ipython else "quiet_remove_frames"
    return mode


def _is_boundary_frame(f) -> bool:
    return f.f_code in _BOUNDARY_CODES


def _under_boundary(e: BaseException) -> bool:
    """Whether an outer api_boundary will see `e` (only the outermost one filters)."""
    tb = e.__traceback__
    f = tb.tb_frame.f_back if tb is not None else None
    while f is not None:
        if _is_boundary_frame(f):
            return True
        f = f.f_back
    return False


def filter_raised(e: BaseException) -> None:
    """What a boundary does to `e`, caught in its except clause, before it re-raises it: its
    traceback filtered in the mode JAX_TRACEBACK_FILTERING names, unless an outer boundary
    will. A hot function is a boundary without a wrapper's frame by calling it (jit's call:
    `except Exception as e: filter_raised(e); raise`) and `register_boundary(its code)`."""
    mode = _filtering_mode()
    if mode == "off" or _under_boundary(e):
        return
    tb = e.__traceback__
    if tb is not None and tb.tb_frame.f_code in _C_CALLS and \
            getattr(e, "_jxkernel_in_c", False) and \
            not any(include_frame(f) for f, _ in traceback.walk_tb(tb)):
        _filter_as_c(e, tb, mode)     # (no learner's code ran under this call)
        return
    if mode == "tracebackhide":
        _hide(tb, tb.tb_frame.f_back if tb is not None else None)
        return
    _check_mode(mode)
    e.with_traceback(filter_traceback(tb))
    _keep_unfiltered(e, tb)
    if tb is not None:
        _filter_at_the_user(tb.tb_frame.f_back, e, _RELINK)
    _tell(e, tb, mode)


def from_jaxs_c_call(e: BaseException) -> BaseException:
    """`e`, raised where JAX's C++ jit call raises it before any Python frame of JAX's (a
    static argument's hash). Where the boundary that filters it (the outermost) is a call
    registered with `c_call` (a jit's, a jnp function's that JAX jits) and no frame of the
    learner's lies below it, every frame of jxkernel's is left out and no note added, as
    JAX's traceback has none of its frames and none of its words. Any other boundary (`.trace`'s,
    grad's, a jit's whose traced function made the call: JAX's Python boundaries) filters it as
    any other error."""
    try:
        e._jxkernel_in_c = True
    except AttributeError:     # (a class with __slots__ and no __dict__)
        pass
    return e


def filter_as_jaxs_c_call(e: BaseException) -> None:
    """What the except clause of a call standing for JAX's C++ jit call, though no boundary,
    does to `e` (from_jaxs_c_call's) before it re-raises it: no frame of jxkernel's left, no
    note, unless an outer boundary will filter it (a trace's: JAX's Python boundary)."""
    mode = _filtering_mode()
    if mode != "off" and not _under_boundary(e):
        _filter_as_c(e, e.__traceback__, mode)


def _filter_as_c(e: BaseException, tb, mode: str) -> None:
    # JAX's C++ call raised it before any Python frame of JAX's: no frame of jxkernel's in
    # any mode (IPython shows the frame that raised even where hidden), and no note
    if mode != "tracebackhide":
        _check_mode(mode)
    e.with_traceback(filter_traceback(tb))
    _keep_unfiltered(e, tb)
    if tb is not None:
        _filter_at_the_user(tb.tb_frame.f_back, e, _RELINK)


def filter_before_raising(e: BaseException, running: types.FrameType) -> None:
    """`e`, about to be raised under `running`, the frame of a function JAX runs as a jit whose
    argument check refuses an argument before the function runs (jnp.square('a'), JAX's jit
    error): filtered as if `running` were a boundary, when it reaches the learner's frame,
    unless an outer boundary will. Only on this error path, where no tracer is set."""
    mode = _filtering_mode()
    f = running
    while f is not None:
        if _is_boundary_frame(f):
            return               # (an outer boundary filters, jnp.square's in a jit's trace)
        f = f.f_back
    if mode == "off":
        return
    if mode == "tracebackhide":
        _hide(e.__traceback__, sys._getframe(1))
        return
    _check_mode(mode)
    _filter_at_the_user(sys._getframe(1), e, _WHOLE)


def leave_out_wrapper(e: BaseException) -> None:
    """Called in the except clause of a wrapper registered with register_wrapper (random's
    out_sharding wrapper, which JAX's samplers have not): the frames of such wrappers leave
    `e`'s traceback when `e` reaches the learner's frame, the rest kept, unless a boundary above
    will filter it (or the mode is "off"). Only on this error path, where no tracer is set."""
    wrapper = sys._getframe(1)
    f = wrapper.f_back
    while f is not None:
        if _is_boundary_frame(f):
            return
        f = f.f_back
    if _filtering_mode() != "off":
        _filter_at_the_user(wrapper, e, _UNWRAP)


def register_wrapper(code: types.CodeType) -> None:
    """Make the frames of `code`, whose except clause calls leave_out_wrapper, ones that
    leave an error's traceback at the learner's frame."""
    _WRAPPERS.add(code)


_WRAPPERS: set = set()


def _check_mode(mode: str) -> None:
    if mode not in ("quiet_remove_frames", "remove_frames"):
        # (the option checks what `update` sets; the environment is read unchecked)
        raise ValueError(f"JAX_TRACEBACK_FILTERING={mode} is not a valid value: use off, "
                         "tracebackhide, remove_frames or quiet_remove_frames.")


def _hide(tb, above) -> None:
    """Mark jxkernel's frames of `tb`, and those from `above` up to the user's frame, hidden
    (IPython and pytest skip them): these join the traceback as the error leaves them (jnp's
    functions above eager dispatch's boundary), so they are marked now, while alive."""
    for f, _ in traceback.walk_tb(tb):
        if not include_frame(f) and f.f_code is not _WRAPPER_CODE:   # (hidden already)
            f.f_locals["__tracebackhide__"] = True
    f = above
    while f is not None and not include_frame(f):
        f.f_locals["__tracebackhide__"] = True
        f = f.f_back


def _keep_unfiltered(e: BaseException, tb) -> None:
    # (not JAX's: jxkernel's error cards read the frames filtering removed, in either mode)
    try:
        e._jxkernel_unfiltered_traceback = tb
    except AttributeError:     # (a class with __slots__ and no __dict__)
        pass


def _tell(e: BaseException, tb, mode: str) -> None:
    """JAX's words on a filtered `e` whose whole traceback was `tb`: its note, or in
    "remove_frames" mode the cause that keeps every frame."""
    if mode == "quiet_remove_frames":
        e.add_note("--------------------\n" + _SIMPLIFIED)
    else:
        full = UnfilteredStackTrace("".join(
            traceback.format_exception_only(type(e), e)).strip() + _UNFILTERED)
        full.with_traceback(_with_callers(tb))
        full.__cause__, full.__context__ = e.__cause__, e.__context__
        e.__cause__, e.__context__ = full, None


def _copied(entries, rest=None):
    """A new traceback of `entries` ((frame, lasti, line), outermost first) before `rest`."""
    for f, lasti, line in reversed(entries):
        rest = types.TracebackType(rest, f, lasti, line)
    return rest


# `.awaited`: (the user's frame, the exception, whether its note is still to come), what this
# thread's one-off trace waits for (see _filter_at_the_user). Per thread, as sys.settrace is:
# another thread's error never unsets a frame's trace whose thread keeps the global one on.
_waiting = threading.local()


def _no_calls_traced(frame, event, arg):
    return None


def _at_the_users_frame(frame, event, arg):
    """The user's frame's first event after an error was filtered, or is to be, below it: if it
    is that error arriving, its traceback goes from this frame straight to the first kept frame
    below. Whatever the event, the trace ends here."""
    awaited, _waiting.awaited = getattr(_waiting, "awaited", None), None
    frame.f_trace = None
    if sys.gettrace() is _no_calls_traced:
        sys.settrace(None)
    if awaited is None or event != "exception" or awaited[0] is not frame or \
            arg[1] is not awaited[1]:
        return None
    e, tb = arg[1], arg[2]
    if tb is None or tb.tb_frame is not frame:
        return None
    below, skipped = tb.tb_next, []
    if awaited[2] is _UNWRAP:       # the wrappers' frames out, the rest kept
        _keep_unfiltered(e, _copied([(t.tb_frame, t.tb_lasti, t.tb_lineno)
                                     for t in _entries(below)]))
        while tb.tb_next is not None:
            if tb.tb_next.tb_frame.f_code in _WRAPPERS:
                tb.tb_next = tb.tb_next.tb_next
            else:
                tb = tb.tb_next
        return None
    if awaited[2] is _WHOLE:  # nothing filtered yet (filter_before_raising): the whole rest
        whole = _copied([(t.tb_frame, t.tb_lasti, t.tb_lineno) for t in _entries(below)])
        tb.tb_next = filter_traceback(below)
        _keep_unfiltered(e, whole)
        _tell(e, _copied([(frame, tb.tb_lasti, tb.tb_lineno)], whole), _filtering_mode())
        return None
    while below is not None and not include_frame(below.tb_frame):
        skipped.append((below.tb_frame, below.tb_lasti, below.tb_lineno))
        below = below.tb_next
    tb.tb_next = below
    # (the error cards' unfiltered traceback: the skipped frames above what the boundary saw)
    _keep_unfiltered(e, _copied(skipped, unfiltered_traceback(e)))
    return None


def _entries(tb):
    while tb is not None:
        yield tb
        tb = tb.tb_next


# what the trace at the learner's frame does to the traceback arriving there: leave out the
# frames below it up to the first kept one; filter the whole of it and add JAX's words; leave
# out the registered wrappers' frames
_RELINK, _WHOLE, _UNWRAP = "relink", "whole", "unwrap"


def _filter_at_the_user(above, e: BaseException, how: str) -> None:
    """Leave out of `e`'s traceback the frames of jxkernel between the user's call and `above`
    (jnp.dot's, lax.dot_general's and bind's above eager dispatch's boundary), which join it as
    `e` leaves them: JAX's note says its frames are gone. A one-off trace on the user's frame
    relinks the traceback when `e` arrives there (with _WHOLE, filters all of it and
    adds JAX's note or cause then; with _UNWRAP, leaves out only the registered wrappers'
    frames); it is set only on an error path, and only where no tracer (a debugger, coverage)
    is."""
    f = above
    while f is not None and not include_frame(f):
        f = f.f_back
    if f is None or (f is above and how is _RELINK) or \
            sys.gettrace() not in (None, _no_calls_traced):
        return
    # (a frame traced before and not reached again yet: e's and its traceback's hold released)
    before = getattr(_waiting, "awaited", None)
    if before is not None and before[0].f_trace is _at_the_users_frame:
        before[0].f_trace = None
    _waiting.awaited = (f, e, how)
    f.f_trace = _at_the_users_frame
    sys.settrace(_no_calls_traced)


def register_boundary(code: types.CodeType, c_call: bool = False) -> None:
    """Make the frames of `code`, whose except clause calls filter_raised, boundaries;
    `c_call`: one standing for JAX's C++ call (see from_jaxs_c_call)."""
    _BOUNDARY_CODES.add(code)
    if c_call:
        _C_CALLS.add(code)


def api_boundary(fun, *, repro_api_name: str | None = None, repro_user_func: bool = False):
    """`fun`, whose exceptions leave with jxkernel's (and registered libraries') frames
    filtered out of their traceback, in the mode JAX_TRACEBACK_FILTERING names. Nested
    boundaries filter once, at the outermost."""

    @functools.wraps(fun)
    def reraise_with_filtered_traceback(*args, **kwargs):
        __tracebackhide__ = True  # noqa: F841  (pytest and IPython hide this frame)
        try:
            return fun(*args, **kwargs)
        except Exception as e:
            # (filter_raised's frame is gone before this one re-raises: nothing of the
            # traceback is held here, no cycle keeps the exception and its frames alive: JAX's
            # test_api_boundary_does_not_add_to_garbage)
            filter_raised(e)
            raise

    return reraise_with_filtered_traceback


# the code object of reraise_with_filtered_traceback, and every boundary's (a frame of one
# marks a boundary)
_WRAPPER_CODE = api_boundary(lambda: None).__code__
_BOUNDARY_CODES = {_WRAPPER_CODE}
_C_CALLS: set = set()


def boundary_inner(fun):
    """The function an api_boundary wraps (grad's grad_f for jax.grad(f)), else `fun` itself:
    its `__wrapped__` names the user's function, and tools reading the wrapper's code need
    what made it.

    >>> boundary_inner(api_boundary(len)) is len
    True
    """
    if getattr(fun, "__code__", None) is not _WRAPPER_CODE:
        return fun
    return fun.__closure__[fun.__code__.co_freevars.index("fun")].cell_contents
