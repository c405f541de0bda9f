"""The compile record: every compilation (a jit cache miss, a pmap, an eager operation's
program), the subscribers told of each, the cache-hit counts, and the recompile guard.

    >>> import jxkernel, jxkernel.numpy as jnp
    >>> f = jxkernel.jit(lambda x: x * 2)
    >>> _ = f(jnp.ones(3)), f(jnp.ones(4))
    >>> [e.reason for e in jxkernel.compile_events() if e.key is f]
    ['first call', 'x: f32[3] -> f32[4]']

It sits low, so that jit, pmap, shard_map and the runtime publish to it without importing
what explains them: on a jit cache miss the call path publishes a `Miss` (what was compiled,
with its phases), and the explainer installed by the see-inside layer (jxkernel/views/
recompile_explainer.py, `install_explainer`) says why, comparing it with the signatures compiled
before. Anyone may subscribe (the notebook's recompilation widget does);
`config.update("jax_log_compiles", True)` logs each event as it happens (logger
"jxkernel.compile_log", WARNING).
"""
from __future__ import annotations

import contextlib
import bisect
import dataclasses
import functools
import logging
import operator
import os
import re
import sys
import threading
import time
import traceback
import types
import weakref

from .clipped_text import clipped
from . import miss_words, told_bugs
from .config import config
from .errors import RecompileError
from .logging_config import DISPATCH, PARTIAL_EVAL, PXLA, jax_logger_enabled, to_jax_loggers
from .source_info import (PACKAGE_DIR, TIMEIT_FILE, SourceInfo, installed_package,
                          is_jxkernel_file, is_user_filename, learner_source_info,
                          user_source_info)

# Who a compile belongs to. JAX's explain_cache_misses leaves its own functions' misses out;
# so do the notebook's notes, and the counts keep the user's functions apart from the rest.
USER = "user"                 # a function the user defined (in a cell or their own files)
INTERNAL = "internal"         # a function defined inside jxkernel's package, or a library's
                              # registered as excluded (the user can't change its
                              # static_argnums): told at the user's call that ran it
EAGER = "eager"               # one operation run outside jit, compiled for its operand types
                              # and params: a primitive, an eager shard_map's equation, a jit
                              # that vmap or grad rewrote
ORIGINS = (USER, INTERNAL, EAGER)
# Whose a compile is, as the learner is told (whose()): USER, INTERNAL or EAGER as its origin,
# or LIBRARY, an installed package's function (CompileEvent.package) or a registered library's.
# `origin` stays what JAX's log goes by (it logs a miss of treescope's jit as the user's).
LIBRARY = "library"
EAGER_SUFFIX = " (eager)"     # an eager operation's event: "sin (eager)" (xla/dispatch.py)


def origin_of(source: str | None, made_by_user: bool = False) -> str:
    """USER for a jit the user's code made (`made_by_user`, whatever it jits: jit(jnp.sum) in
    a cell); else INTERNAL when `source` ("file:line" where the function was defined) is no
    user's file (source_info.is_user_filename: jxkernel's, the standard library's, or a
    library's that registered itself with register_exclusion, as Flax and Equinox do, whose
    own `@jit`s JAX's explain_cache_misses leaves out too), else USER.

        >>> from jxkernel.core.source_info import PACKAGE_DIR
        >>> origin_of(PACKAGE_DIR + "random/samplers.py:40"), origin_of("<ipython-input-3>:1")
        ('internal', 'user')
    """
    if made_by_user or not source:
        return USER
    return USER if is_user_filename(source.rpartition(":")[0] or source) else INTERNAL


class _HeldWeakly:
    """A dataclass field held weakly where its value allows it (a jitted function): the log
    keeps its last MAX_EVENTS events, and a strong key would keep each dropped function, its
    caches and its executables alive with them (issue 45). Read after the function is gone,
    it is None; its id stays (`key_id` for `key`)."""

    def __set_name__(self, owner, name):
        self.slot, self.id_name = "_" + name, name + "_id"

    def __get__(self, obj, owner=None):
        if obj is None:
            return None                  # the field's default
        return obj.__dict__[self.slot]()

    def __set__(self, obj, value):
        try:
            held = weakref.ref(value) if value is not None else _none
        except TypeError:                # a string, an object(): held as is
            held = lambda: value         # noqa: E731
        obj.__dict__[self.slot] = held
        obj.__dict__[self.id_name] = None if value is None else id(value)


def _none():
    return None


@dataclasses.dataclass(frozen=True)
class CompileEvent:
    """One compilation: which function, for which signature, why, and the time it took."""
    function: str                 # the jitted function's name (or a notebook cell's)
    source: str | None            # "file:line" where it was defined
    signature: tuple              # ((path, "f32[3]" or "static 3"), ...)
    reason: str                   # "first call", "x: f32[3] -> f32[4]", "static n: 3 -> 4", ...
    phases: object                # xla.Phases: the pipeline's seconds per phase, and cache
    backend: str
    timestamp: float = dataclasses.field(default_factory=time.time)
    key: object = _HeldWeakly()   # identity of the jitted callable (for grouping), held weakly
    seq: int = 0                  # position in the log, set by record(): 1, 2, 3, ... never reused
    changes: tuple = ()           # the structured `reason`: Change(path, kind, old, new, fix, ...)
    origin: str | None = None     # USER, INTERNAL or EAGER; None: from `source` (origin_of)
    call_site: object = None      # the user's line whose call compiled it (SourceInfo; record())
    nth: int = 0                  # the how-many-th logged compile of this function (record())
    # a miss of JAX's tracing cache (what jax_explain_cache_misses logs); False for a compile
    # that reused the function's trace under a transformation (jit(f) traced under grad, then
    # called), which JAX compiles without a tracing miss
    miss: bool = True
    # a tracing miss that compiled nothing of its own: a jitted function traced anew inside
    # another traced function (grad(inner) inside jit(outer), a scan body), its program
    # inlined into that one's; what it was inlined into ("jit(outer)"), else None
    inlined_into: str | None = None
    # a jitted callable object's (jax.jit(Model())): where its class's __call__ was defined
    # ("file:line"); its `source` is None, as JAX knows no file of it (its log: "<unknown>")
    call_source: str | None = None
    # and its class's name ("Model"): JAX names the jit itself "<unnamed function>"
    call_class: str | None = None
    # a first call at a call site where a function never seen before was traced already: JAX's
    # "but seen another function defined on the same line; maybe ... re-defined repeatedly?"
    same_site: bool = False
    # JAX's own lines for the difference, where jxkernel computes them as JAX does (a
    # different input pytree's, from tree_util.equality_errors_pytreedef), for the log
    jax_lines: tuple = ()
    # where the trace that missed was made, if not at this call: eval_shape's, .trace's or
    # .lower's line, whose trace a later call compiled, as JAX's log names it ("file:line:col
    # (qualname)", "" inside make_jaxpr's trace); JAX logs the miss there
    traced_at: str | None = None
    # its tracing miss and the trace's time were logged when that trace was made (eval_shape,
    # `.trace`, `.lower`: trace_missed), as JAX logs them there; its compile logs the rest
    logged_at_trace: bool = False
    # and its lowering's lines ("Compiling jit(f) ...", the MLIR conversion) at `.lower()`,
    # as JAX logs them there (log_lowering); its compile logs XLA's line only
    logged_at_lowering: bool = False
    # lowered by jax.export, which compiles nothing: logged as JAX logs an export, the trace's
    # and the lowering's lines without XLA's (`jit(f)`'s call compiles it later)
    exported: bool = False
    # a program lowered before compiled for another device, nothing else changed: JAX's
    # lowering cache holds it (keyed on the arguments' shardings, committed or not, not on
    # their device), so JAX logs XLA's line alone, no "Compiling jit(f)" (the explainer sets it)
    lowering_reused: bool = False
    # whose compile it is, where an installed package's: its name ("treescope", "optax"), set
    # by record() (package_of); None for the learner's, jxkernel's or an eager operation
    package: str | None = None
    # the learner's innermost line that called into a library whose line `call_site` is
    # (nnx.jit's step called in a cell: call_site is Flax's compilation.py:852, as JAX's log
    # names it); None where call_site is the learner's already (record())
    learner_site: object = None
    # a library's jit that compiles the learner's function, passed among its static arguments
    # (eqx.filter_jit jits Equinox's fun_wrapped, the learner's make_step in `static`): where
    # that function was defined ("<ipython-input-3>:33"), which makes it the learner's compile
    # (learners_function, whose); None for any other
    learner_function: str | None = None
    # the paths of the learner's arguments for the library's (("dynamic_nodonate['rest'][13]",
    # "x"), ...) where the mapping is certain: what the notes say; JAX's log keeps the library's
    learner_paths: tuple = ()
    # and its changes said so (the argument `x`, not "dynamic_nodonate['rest'][13]"; a value
    # that is not an array, `n`, not Equinox's whole `static`), with fixes that work under
    # Equinox; the notes tell these where learner_function is set (said_changes)
    learner_changes: tuple = ()
    # the program this miss traced (a ClosedJaxpr), held weakly as `key` is (the jit's cache
    # keeps it while its program lives): what the key-reuse note reads; None where nothing
    # was traced for it (a compile reusing a trace under a transformation keeps its own)
    jaxpr: object = _HeldWeakly()

    def __post_init__(self):
        if self.origin is None:
            object.__setattr__(self, "origin", origin_of(self.source))

    @property
    def again(self) -> bool:
        """Whether this compiles a function that compiled before: a second compile or later
        in the log, a miss explained by what changed (also once the log was cleared), or a
        new jit object of code that compiled already (a jit made anew in a loop)."""
        changes = self.said_changes
        return self.nth > 1 or (self.reason != "first call" and bool(changes)) or \
            any(getattr(c, "kind", None) in ("fresh_jit", "fresh_body") for c in changes)

    @property
    def said_changes(self) -> tuple:
        """The changes the notes tell: learner_changes for a library's jit of the learner's
        function (eqx.filter_jit's, in the learner's names), else `changes`; their fixes'
        cost of a new key said where the event stands (miss_words.fixes_said: "traces anew"
        on the NumPy backend and in eval_shape's trace, which compile nothing)."""
        return miss_words.fixes_said(
            self, self.learner_changes if self.learner_function is not None else self.changes)

    @property
    def library(self) -> bool:
        """Whether it compiled a function of a library registered as not the user's
        (source_info.register_exclusion, as Flax and Equinox register theirs): origin
        INTERNAL, defined outside jxkernel."""
        return self.origin == INTERNAL and bool(self.source) and \
            not is_jxkernel_file(self.source)

    @property
    def learners_line(self):
        """The learner's line whose call compiled it (SourceInfo, or None): learner_site where
        the call was a library's line, else call_site."""
        return self.learner_site if self.learner_site is not None else self.call_site

    @property
    def function_key(self) -> str:
        """A string naming this jitted function for as long as it lives: "f@file.py:3#1402"."""
        text = function_key(self.function, self.source)
        return text if self.key_id is None else f"{text}#{self.key_id}"

    @property
    def compiled(self) -> bool:
        """Whether a program was compiled (False: a retrace inlined into another's program)."""
        return self.inlined_into is None

    trace_s = property(lambda self: self.phases.trace_s)
    lower_s = property(lambda self: self.phases.lower_s)
    compile_s = property(lambda self: self.phases.compile_s)
    cache = property(lambda self: self.phases.cache)     # "compiled", "disk" or "memory"
    total_s = property(lambda self: self.phases.total_s)

    def __str__(self):
        sig = signature_text(self.signature)
        if not self.compiled:
            return (f"Tracing {self.function}({sig}) because {self.reason}: inside "
                    f"{self.inlined_into} (nothing compiled of its own)")
        return (f"Compiling {self.function}({sig}) because {self.reason}: trace "
                f"{self.trace_s * 1e3:.1f} ms, lower {self.lower_s * 1e3:.1f} ms, compile "
                f"{self.compile_s * 1e3:.1f} ms ({self.cache})")


def package_of(event: CompileEvent, call_site=None) -> str | None:
    """The installed package whose compile `event` is: the package its function was defined in
    (source_info.installed_package: treescope's summaries, Optax's helpers), unless the
    learner's own line called it, `call_site` (`step = jax.jit(model.apply)` in a cell, called
    there: the arguments are the learner's to pad or make static, whoever wrote the function).
    A registered library's (origin INTERNAL) stays the library's whoever called it, as JAX
    leaves its misses out. None for the learner's, jxkernel's, an eager operation, or a
    library's jit of the learner's function (CompileEvent.learner_function: eqx.filter_jit's).

        >>> e = CompileEvent("f", "/v/site-packages/t/s.py:9", (), "", None, "")
        >>> package_of(e), package_of(e, SourceInfo("<ipython-input-3>", 1, "<module>"))
        ('t', None)
    """
    defined = event.source or event.call_source
    if event.origin == EAGER or not defined or event.learner_function is not None:
        return None
    package = installed_package(defined.rpartition(":")[0] or defined)
    site = getattr(call_site, "file", None)
    if package and event.origin == USER and site and is_user_filename(site) and \
            installed_package(site) is None:
        return None
    return package


def whose(event: CompileEvent) -> str:
    """Whose compile `event` is, the one answer the compile notes, %jxcompiles and the status
    bar's count give: USER, the learner's (a function defined in a cell or a file of theirs,
    or a jit of an installed package's function that the learner's line called); LIBRARY, an
    installed package's (treescope's summaries under nnx.display, Optax's helpers, called by
    the package's own lines: CompileEvent.package, package_of) or a registered library's;
    INTERNAL, jxkernel's own; EAGER. A library's jit whose static arguments hold a function
    of the learner's compiles the learner's code (eqx.filter_jit's: Equinox jits its own
    fun_wrapped, passing the learner's function in `static`; learners_function): USER, so a
    recompile of the learner's train step is noted as theirs.

        >>> [whose(CompileEvent("f", "<ipython-input-3>:1", (), "", None, "", package=p))
        ...  for p in ("t", None)]
        ['library', 'user']
    """
    if event.origin == EAGER:
        return EAGER
    if event.learner_function is not None:
        return USER
    return LIBRARY if event.package is not None or event.library else event.origin


def learners_function(statics):
    """The function of the learner's (defined in a cell or a file of theirs, not an installed
    package's) among the values of a jit's static arguments, `statics` ((name, value, ...)
    tuples; searched through tuples and lists, a few levels deep, as Equinox nests it: static
    = (static_fun, static_first, static_rest), static_fun = (leaves, treedef)), else None.
    A library that jits its own wrapper and passes the learner's function as a static
    argument compiles the learner's code: the compile is the learner's (whose).

        >>> def step(x): return x
        >>> learners_function((("static", ((step,), "treedef")),)) is step
        True
        >>> print(learners_function((("n", 3),)))
        None
    """
    found = [None]

    def visit(value, depth):
        if found[0] is not None or depth > 4:
            return
        if isinstance(value, (tuple, list)):
            for item in value[:64]:           # a static tuple of many numbers: not a function's
                visit(item, depth + 1)
            return
        code = getattr(getattr(value, "__func__", value), "__code__", None)
        filename = getattr(code, "co_filename", None)
        if filename and is_user_filename(filename) and installed_package(filename) is None:
            found[0] = value

    for static in statics:
        visit(static[1], 0)
    return found[0]


def function_key(function: str, source: str | None, key=None) -> str:
    """The protocol's name for a jitted function: name, where it was defined and, since two
    functions may share both (a redefined cell), the identity of the jitted object.

        >>> function_key("f", "a.py:3", None)
        'f@a.py:3'
    """
    text = f"{function}@{source or '?'}"
    return text if key is None else f"{text}#{id(key)}"


def signature_text(signature) -> str:
    """A CompileEvent's signature as written: "x: f32[3], n: static 2"."""
    return ", ".join(f"{path}: {aval}" for path, aval in signature)


_events: list[CompileEvent] = []
# the newest kept event of each function, and of each (function, key_id): record_compiled's
# last signature of a function, found without reading the kept events newest first (up to
# MAX_EVENTS, on every compile); an event leaves them as it leaves _events
_newest: dict = {}
_newest_by_key: dict = {}
_hits: dict = {}                      # key -> cache hits (counted cheaply on the hit path)
_counts: dict = {}                    # function name -> compiles logged (events without a key)
_key_counts: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # key -> compiles logged
_subscribers: list = []
_lock = threading.Lock()
_seq = 0                              # the last seq handed out (clear() keeps counting)
# JAX's compile lines and jax_explain_cache_misses write here, as JAX logs (the name users
# filter on)
LOGGER = "jxkernel.compile_log"
_logger = logging.getLogger(LOGGER)


def _jax_logger_of(line: str) -> str:
    """The JAX logger a compile line is JAX's on (core/logging_config.py)."""
    if line.startswith("Compiling "):
        return PXLA
    return PARTIAL_EVAL if line.startswith("TRACING CACHE MISS") else DISPATCH


def _enabled(level: int) -> bool:
    """Whether a compile line of `level` is logged anywhere: on jxkernel's logger, or to a
    handler of JAX's loggers (a handler on "jax", jax_debug_log_modules, jax_logging_level)."""
    return _logger.isEnabledFor(level) or any(
        jax_logger_enabled(name, level) for name in (DISPATCH, PXLA, PARTIAL_EVAL))


def _log(level: int, line: str, extra=None, owner=None) -> None:
    """A compile line logged on "jxkernel.compile_log" and handed to the handlers of JAX's
    logger of it (jax._src.dispatch, ...), once each: JAX's logging options work on it.
    A TRACING CACHE MISS logged inside a held trace (misses_held) waits for that trace's own
    miss; `owner`: the key of the event whose miss `line` is (a held trace's, logged after
    its trace: the misses it held follow it)."""
    frames = getattr(_held, "frames", None)
    if frames:
        if not line.startswith("TRACING CACHE MISS"):
            _settle(frames)
        elif owner is not None and any(f.key is owner and not f.open for f in frames):
            while True:                 # (closed holds above it: what its trace met)
                frame = frames.pop()
                if frame.key is owner and not frame.open:
                    break
                _emit(frames, frame.lines)
            _emit(frames, [(level, line, extra)] + frame.lines)
            return
        else:
            _settle(frames)
            if frames:
                _emit(frames, [(level, line, extra)])
                return
    _write(level, line, extra)


def _write(level: int, line: str, extra=None) -> None:
    if _logger.isEnabledFor(level):
        _logger.log(level, "%s", line, extra=extra)
    to_jax_loggers(_jax_logger_of(line), level, line, extra)
MAX_EVENTS = 10_000


# JAX explains a trace's tracing-cache miss before it traces (a jit's, a loop body's): its
# TRACING CACHE MISS comes before those of what the trace meets (a jit called inside it, a
# scan body, a cond branch, a checkpointed function, a shard_map body); jxkernel explains it
# after the trace (at the compile, or the body's record). A held trace (misses_held) keeps
# the misses logged inside it (`lines`) until its own miss is logged (its `owner` key), then
# gives both, in that order, to the trace around it, or to the log; a hold whose trace logs
# no miss of its own (a trace reused, a library's function) lets its lines out at the next
# line logged, or the next hold
_held = threading.local()


class _Hold:
    __slots__ = ("key", "lines", "open", "redo")

    def __init__(self, key):
        self.key, self.lines, self.open, self.redo = key, [], True, False


def _emit(frames, lines) -> None:
    """`lines` to the innermost hold (dropped in a trace made again: `redo`), else logged."""
    if frames:
        if not frames[-1].redo:
            frames[-1].lines.extend(lines)
        return
    for level, line, extra in lines:
        _write(level, line, extra)


def _settle(frames) -> None:
    """The closed holds on top (their trace over, their own miss not logged): their lines
    to the hold around them, or to the log."""
    while frames and not frames[-1].open:
        _emit(frames, frames.pop().lines)


@contextlib.contextmanager
def misses_held(key):
    """Around a trace whose miss is logged after it, of `key` (the jitted function, a loop
    body: its event's key): the misses logged inside wait for `key`'s own (JAX's order), also
    across the traces made before that miss is logged (the program's lowering traces loops
    of its own). The same jit traced again at once (its first trace met a mesh:
    jit/sharded.py traces it for one) logs nothing of its own: the first trace logged it
    (JAX traces once)."""
    if not config.jax_explain_cache_misses:      # (nothing to hold)
        yield
        return
    frames = getattr(_held, "frames", None)
    if frames is None:
        frames = _held.frames = []
    while frames and not frames[-1].open and not frames[-1].lines and frames[-1].key is not key:
        frames.pop()                # (held nothing: gone; one that did waits for its miss)
    if frames and not frames[-1].open and frames[-1].key is key:
        hold = frames[-1]
        hold.open = hold.redo = True
        try:
            yield
        finally:
            hold.open = hold.redo = False
        return
    hold = _Hold(key)
    frames.append(hold)
    try:
        yield
    finally:
        hold.open = False


def traced_held(jitted, *args):
    """`jitted._trace(*args)` in a hold of `jitted`'s misses (misses_held)."""
    with misses_held(jitted):
        return jitted._trace(*args)


def release_held() -> None:
    """Log what the closed holds on top held (a trace that raised: its miss logged first)."""
    frames = getattr(_held, "frames", None)
    if frames:
        _settle(frames)


_unlogged = threading.local()


@contextlib.contextmanager
def unlogged(tap: list | None = None):
    """Compilations made inside are not logged: a tool's own (the timing profile compiles
    a program afresh to measure compiling), not the user's. `tap`, a list, gets their events
    (the tool reads its own compile's phases; no subscriber or explainer sees them)."""
    _unlogged.depth = getattr(_unlogged, "depth", 0) + 1
    outer, _unlogged.tap = getattr(_unlogged, "tap", None), tap
    try:
        yield
    finally:
        _unlogged.depth -= 1
        _unlogged.tap = outer


def logged() -> bool:
    """Whether compilations made now are logged (not inside `unlogged()`)."""
    return not getattr(_unlogged, "depth", 0)


def record(event: CompileEvent, counted_as=None) -> CompileEvent:
    """Log `event` (numbered: the logged copy's `seq` is set) and tell the subscribers;
    `counted_as`: what its `nth` counts compiles of, where not its `key` (a jit's caches,
    shared by every jit of its function and options)."""
    global _seq
    if getattr(_unlogged, "depth", 0):
        if _unlogged.tap is not None:
            _unlogged.tap.append(event)
        return event
    call_site = event.call_site or user_source_info()
    # JAX's log names the call's line as call_site does; the notes name the learner's
    learner_site = event.learner_site
    site_file = getattr(call_site, "file", None) or ""
    if learner_site is None and (installed_package(site_file) or site_file == TIMEIT_FILE):
        learner_site = learner_source_info()
    package = event.package or package_of(event, call_site)
    with _lock:
        _seq += 1
        nth = _count(event, counted_as)
        event = dataclasses.replace(event, seq=_seq, call_site=call_site, nth=nth,
                                    learner_site=learner_site, package=package)
        _events.append(event)
        _newest[event.function] = _newest_by_key[(event.function, event.key_id)] = event
        if hasattr(event.key, "_fail_on_recompile"):      # so the switch can be set by key
            _known[event.function_key] = event.key
        if len(_events) > MAX_EVENTS:
            for old in _events[: len(_events) - MAX_EVENTS]:
                # (the oldest: where one is its function's newest, none of it is left)
                if _newest.get(old.function) is old:
                    del _newest[old.function]
                if _newest_by_key.get((old.function, old.key_id)) is old:
                    del _newest_by_key[(old.function, old.key_id)]
            del _events[: len(_events) - MAX_EVENTS]
        subscribers = list(_subscribers)
    # in JAX's order: the tracing miss, then the trace's and the compile's lines, the
    # persistent cache's (held back by xla/disk_cache.py's cache_lines_held) before the last
    if not event.logged_at_trace:
        _log_miss(event, call_site if event.traced_at is None else event.traced_at)
    _log_phases(event, getattr(event.phases, "log_cache_lines", None))
    for callback in subscribers:
        try:
            callback(event)
        except Exception as e:             # a broken subscriber must not break compiling
            print(f"jxkernel: compile-event subscriber {callback!r} raised {e!r}", file=sys.stderr)
    return event


def _log_miss(event: CompileEvent, site) -> None:
    """jax_explain_cache_misses's message for `event`, logged at `site`; as JAX's, none for a
    miss of its own functions or of an eager operation (not the user's), nor for a jit that
    says it is JAX's own (`_logs_no_miss`: pmap's jit of `_fun`, whose function is defined in
    JAX's api.py, though its event is the user's in the notebook's notes). The record's
    `jax_words` is JAX's message alone, without jxkernel's fixes: what a notebook whose compile
    notes tell the fixes shows (notebook/tracebacks.py), so that they are not said twice."""
    if config.jax_explain_cache_misses and _explainer is not None and event.origin == USER \
            and not getattr(event.key, "_logs_no_miss", False):
        try:
            _log(logging.WARNING, _explainer.explain_miss(event, site), extra={
                "jax_words": _explainer.explain_miss(event, site, own=False)},
                owner=event.key)
        except Exception as e:
            _explainer_failed("writing the cache-miss log", e)


def _log_phases(event: CompileEvent, log_cache_lines=None) -> None:
    """JAX's lines for a compile, in JAX's words (dispatch.log_elapsed_time, pxla's
    "Compiling ..."): at WARNING with `jax_log_compiles` on, else DEBUG, as JAX logs them.
    The "Compiling" line also says why (the reason the notebook's notes give). Through
    logging: with no handler set, Python's last resort prints WARNINGs on stderr.
    `log_cache_lines` logs the persistent cache's lines, which JAX logs as XLA compiles:
    before "Finished XLA compilation".

        >>> e = CompileEvent("f", "a.py:1", (("x", "f32[3]"),), "first call", None, "cpu")
        >>> _phase_lines(e)[0]
        'Compiling jit(f) with global shapes and types (x: f32[3]) because first call'
    """
    level = logging.WARNING if config.jax_log_compiles else logging.DEBUG
    lines = _phase_lines(event) if _enabled(level) else []
    last = lines.pop() if lines and event.compiled else None     # "Finished XLA compilation"
    for line in lines:
        _log(level, line)
    if log_cache_lines is not None:
        log_cache_lines()
    if last is not None:
        _log(level, last)


def _phase_lines(event: CompileEvent) -> list:
    # a pmap's or shard_map's event is named with its wrapper already ("pmap(f)"); an eager
    # operation's program is a jit to JAX: "Compiling jit(multiply)", "Finished tracing
    # multiply for jit" (its event is "multiply (eager)": xla/dispatch.py)
    function = event.function[:-len(EAGER_SUFFIX)] if event.origin == EAGER and \
        event.function.endswith(EAGER_SUFFIX) else event.function
    name = function if function.endswith(")") else f"jit({function})"
    phases = event.phases
    seconds = (lambda s: f"{s or 0.0:.9f}") if phases is not None else (lambda s: "?")
    lines = []
    if event.miss and getattr(phases, "trace_s", 0) and not event.logged_at_trace:
        lines.append(_traced_line(event, seconds, function))   # traced anew, here (JAX
                                                               # logs each trace)
    if not event.compiled:                        # inlined into another program
        return lines
    if not event.logged_at_lowering and not event.lowering_reused:
        lines += [f"Compiling {name} with global shapes and types "
                  f"({signature_text(event.signature)}) because {event.reason}",
                  f"Finished jaxpr to MLIR module conversion {name} in "
                  f"{seconds(getattr(phases, 'lower_s', 0))} sec"]
    if event.exported:
        return lines
    lines += [f"Finished XLA compilation of {name} in "
              f"{seconds(getattr(phases, 'compile_s', 0))} sec"
              + (f" ({event.cache} cache)" if getattr(phases, "cache", "compiled")
                 not in ("compiled", None) else "")]
    return lines


def _traced_line(event: CompileEvent, seconds, function=None) -> str:
    return (f"Finished tracing {function or event.function} for jit in "
            f"{seconds(getattr(event.phases, 'trace_s', 0))} sec")


def log_traced(function: str, seconds: float) -> None:
    """JAX's "Finished tracing f for jit" where a trace the user asked for is logged without
    a compile event: make_jaxpr's (each call, JAX's jit(f).trace), and a jit object's first
    lookup of a trace another made (eval_shape's, make_jaxpr's, another jit of f's), whose
    lookup JAX times and logs as a trace. None inside `unlogged()` (a tool's own work).

        >>> log_traced("f", 0.001)     # at WARNING with jax_log_compiles on, else DEBUG
    """
    level = logging.WARNING if config.jax_log_compiles else logging.DEBUG
    if logged() and _enabled(level):
        _log(level, f"Finished tracing {function} for jit in {seconds:.9f} sec")


# call sites a never-seen function was traced at (JAX's
# partial_eval.callsites_with_tracing_cache_miss), "file:line:column (qualname)" as JAX writes
_miss_sites: set = set()


def seen_miss_site(call_site: str) -> bool:
    """Whether a function never seen before was traced at `call_site` already (JAX's hint that
    the function may be re-defined repeatedly); the site is remembered for later calls.

        >>> seen_miss_site("<cell>:3:4 (<module>)"), seen_miss_site("<cell>:3:4 (<module>)")
        (False, True)
    """
    with _lock:
        seen = call_site in _miss_sites
        _miss_sites.add(call_site)
    return seen


# JAX's words for a never-seen function traced where another was (partial_eval.explain)
SAME_SITE_HINT = ["  but seen another function defined on the same line; maybe the function is",
                  "  being re-defined repeatedly, preventing caching?"]


def log_trace_miss(function: str, source: str, call_site: str, difference: str = "",
                   fun_id: int | None = None) -> None:
    """With jax_explain_cache_misses on, log a trace of the user's function that compiles
    nothing of its own, in JAX's words: jax.checkpoint traces its function, and JAX logs each
    trace it makes of it and of what it derives (its JVP, its transpose), which are traces of
    new function objects ("never seen function") to JAX. Not a CompileEvent: the notebook's
    notes tell compiles, and these compile nothing. `difference` is JAX's explanation against
    the nearest earlier trace of the same function, "" where there is none; `fun_id`, the id
    of the function object traced, which JAX writes after a function never seen (" id=140...").

        >>> log_trace_miss("layer", "<cell>:1", "<cell>:3 (f)")   # logged, when the flag is on
    """
    if not config.jax_explain_cache_misses:
        return
    lines = [f"TRACING CACHE MISS at {call_site}:"]
    if difference:
        lines += [f"  for {function} defined at {source}",
                  "  all previously seen cache keys differ. For the closest previous key:",
                  f"  {difference}"]
    else:
        ident = "" if fun_id is None else f" id={fun_id}"
        lines += ["  never seen function:", f"    {function}{ident} defined at {source}"]
        if seen_miss_site(call_site):
            lines += SAME_SITE_HINT
    _log(logging.WARNING, "\n".join(lines))


def trace_difference(keys, key, names) -> str:
    """JAX's explanation of a trace of a function against the nearest of its earlier `keys`
    (partial_eval.diff_tracing_cache_keys, its first kind of difference), "" for none. A key
    is (statics, how many arguments, input treedef, input avals, *tracing context); `names()`
    gives a name per input aval ("x", "params['w']").

        >>> trace_difference({}, ((), 1, None, ()), list)
        ''
    """
    if not keys:
        return ""
    return min((_key_difference(key, k, names) for k in keys.keys()), key=lambda d: d[:2])[2]


def _key_difference(new, old, names) -> tuple:
    """(JAX's severity, how many differ, JAX's text) for two trace keys."""
    if new[4:] != old[4:]:
        return 0, 1, "Tracing context doesn't match, e.g. due to config or context manager."
    if new[:3] != old[:3]:
        return 1, 1, "different input pytree:"
    lines = [f"  * at {n}, now {_type(a)} and before {_type(b)}"
             for n, a, b in zip(names(), new[3], old[3]) if a != b]
    return 3, len(lines), "\n".join(["different input types:"] + lines)


def _type(aval) -> str:
    """JAX's text for a type in its cache-miss log: "f32[3]", "f32[]{weak_type=True}"."""
    weak = getattr(aval, "weak_type", False)
    return aval.str_short(True) + ("{weak_type=True}" if weak else "")


def _count(event, counted_as=None) -> int:
    """How many compiles of `event`'s function are logged, this one included (under _lock; a
    retrace that compiled nothing counts none)."""
    step = 1 if event.compiled else 0
    key = counted_as if counted_as is not None else event.key
    try:
        table, name = (_key_counts, key) if key is not None else (_counts, event.function)
        table[name] = table.get(name, 0) + step
    except TypeError:                 # a key that can't be weakly referenced: by its name
        table, name = _counts, event.function_key
        table[name] = table.get(name, 0) + step
    return table[name]


def record_compiled(function: str, signature: tuple, phases, backend: str, key=None,
                    reason: str | None = None, origin: str | None = None,
                    statics: tuple = (), jaxpr=None) -> CompileEvent:
    """Log a compilation that is not a jit cache miss: a pmap, a shard_map or a transformed
    jit run eagerly, an ahead-of-time `.lower().compile()`. The reason (unless given) is what
    changed since `function`'s last logged signature:

        >>> from jxkernel.xla.compiler import Phases
        >>> k = object()                   # the pmap's identity: its events apart from others'
        >>> record_compiled("pmap(f)", (("args[0]", "f32[4,3]"),), Phases(), "cpu", k).reason
        'first call'
        >>> record_compiled("pmap(f)", (("args[0]", "f32[4,5]"),), Phases(), "cpu", k).reason
        'args[0]: f32[4,3] -> f32[4,5]'

    `statics` are the (name, value) pairs it was specialised on besides the operand types (an
    eager primitive's params: a slice's bounds), written into the signature as jit writes its
    static arguments, so a new value is told as what changed. `jaxpr`: the program compiled
    (an eager scan's one equation, its body inside), held weakly as jit's events hold theirs,
    for the subscribers told of the event (the key note reads the body's draws).
    """
    signature = tuple(signature) + tuple((str(n), f"static {_short(v)}") for n, v in statics)
    # each static's hash (a cache key's part, so hashable): a value unequal to the last one
    # compiled, but written the same (a second Exported of one function), is told apart
    hashes = tuple((str(n), _hash(v)) for n, v in statics)
    if reason is None:
        with _lock:
            # (the newest event with this key's id is the newest of this key where it holds
            # the key still: another object of that id came after that key was gone)
            found = _newest.get(function) if key is None else \
                _newest_by_key.get((function, id(key)))
            last = found.signature if found is not None and (key is None or found.key is key) \
                else None
            last_hashes = _static_hashes.get(function)
        if last is None:
            reason = "first call"
        elif len(last) != len(signature):
            reason = f"{len(last)} arguments -> {len(signature)}"
        else:
            reason = ", ".join(f"{path}: {old} -> {new}" for (path, old), (_, new)
                               in zip(last, signature) if old != new) or \
                _unequal_statics(last_hashes, hashes) or "the same signature compiled again " \
                "(its cached executable was dropped, or another transformation)"
    if statics:
        with _lock:
            _static_hashes[function] = hashes
    return record(CompileEvent(function, None, tuple(signature), reason, phases, backend,
                               key=key, origin=origin, jaxpr=jaxpr))


# a function's statics as last compiled (record_compiled): (name, hash of its value) pairs
_static_hashes: dict = {}


def _hash(value):
    try:
        return hash(value)
    except TypeError:                 # (not a cache key's part: told by its text only)
        return None


def _unequal_statics(last, now) -> str:
    """The reason for statics written as before but not equal to them (their hashes differ),
    "" if none is: the program is compiled per value.

        >>> _unequal_statics((("exported", 1),), (("exported", 2),))
        'exported: not equal to the value compiled before, though written the same'
    """
    names = [n for (n, old), (_, new) in zip(last or (), now)
             if old is not None and new is not None and old != new]
    return ", ".join(f"{n}: not equal to the value compiled before, though written the same"
                     for n in names)


# a terminal's color codes: a jaxpr's repr has them where JAX colors (a notebook's kernel)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def named_callable(value) -> bool:
    """A function object of a class keeping object's own repr (jax.nn.relu, a custom_jvp):
    its repr names jxkernel's module and an address, its name is what the learner wrote."""
    return type(value).__repr__ is object.__repr__ and callable(value) and \
        isinstance(getattr(value, "__name__", None), str)


def named_function(value) -> bool:
    """A def at a module's top level (jax.nn.gelu, the learner's `def act`): its name is
    its own, its repr's address tells a learner nothing. Not a lambda nor a def made inside
    a function (`<locals>`), two of which may share a name, their addresses telling them
    apart."""
    return isinstance(value, types.FunctionType) and value.__name__ != "<lambda>" and \
        "<locals>" not in value.__qualname__


def named_repr(value) -> str:
    """A static value as the notes write it: its repr, but a function object of a class
    keeping object's own repr by its class and name, and a top-level def by its name.

        >>> class custom_jvp:            # jax.nn.relu's class, say
        ...     __name__ = "relu"
        ...     def __call__(self, x): return x
        >>> named_repr(3), named_repr(custom_jvp()), named_repr(named_repr)
        ('3', '<custom_jvp function relu>', '<function named_repr>')
    """
    if named_callable(value):
        return f"<{type(value).__name__} function {value.__name__}>"
    if named_function(value):
        return f"<function {value.__qualname__}>"
    return repr(value)


def _short(value, limit: int = 60) -> str:
    """A parameter's value for a signature: its repr on one line (named_repr's), without
    color codes (an eager scan's jaxpr, colored in a notebook, wrote them into the log), cut
    at `limit` (a jaxpr parameter would fill the log)."""
    try:
        text = " ".join(_ANSI.sub("", named_repr(value)).split())
    except Exception as e:  # noqa: BLE001  a broken __repr__ must not break compiling
        text = f"<{type(value).__name__}: repr failed: {e!r}>"
    return clipped(text, limit)


def compile_events(function: str | None = None) -> list[CompileEvent]:
    """The compile events so far (optionally only those of `function`), oldest first."""
    with _lock:
        events = list(_events)
    return [e for e in events if function is None or e.function == function]


def events_since(seq: int) -> list[CompileEvent]:
    """The kept events whose `seq` is at least `seq`, oldest first.

        >>> events_since(last_seq() + 1)       # nothing newer than the latest
        []
    """
    with _lock:
        # the kept events are in order of seq (each appended with the next): the first of
        # them at `seq` or later is found by bisection, not by reading all (up to
        # MAX_EVENTS, at every notebook cell's end)
        return _events[bisect.bisect_left(_events, seq, key=_seq_of):]


_seq_of = operator.attrgetter("seq")


def last_seq() -> int:
    """The seq of the latest event ever recorded (0 before the first)."""
    return _seq


def subscribe(callback) -> callable:
    """Call `callback(event)` on every compile event; returns a function that unsubscribes."""
    with _lock:
        _subscribers.append(callback)

    def unsubscribe():
        with _lock:
            if callback in _subscribers:
                _subscribers.remove(callback)
    return unsubscribe


def clear() -> None:
    with _lock:
        _cleared.update((e.function, e.source) for e in _events if e.compiled)
        _events.clear()
        _newest.clear()
        _newest_by_key.clear()
        _hits.clear()
        _counts.clear()
        _key_counts.clear()


# the functions that compiled before the log was cleared (%jxcompiles --clear), which it no
# longer shows, by name and where they were defined (jits of one function share its count)
_cleared: set = set()


def compiled_before_clear(event: CompileEvent) -> bool:
    """Whether `event`'s function compiled before the log was cleared."""
    return (event.function, event.source) in _cleared


_known: weakref.WeakValueDictionary = weakref.WeakValueDictionary()   # function_key -> jitted


class FunctionKey(str):
    """A function_key as fail_on_recompile returns it: the key itself (equal to it, what
    fail_on_recompile(KEY) and %jxguard take, what print() prints), but shown as a cell's
    last line by the function's name and where it was defined, not by the file IPython gave
    its cell ('/tmp/ipykernel_4692/1161316084.py') and an object's id.

        >>> FunctionKey("f@/tmp/a.py:3#1402")
        <function_key of f, defined at a.py:3>
    """
    __slots__ = ()

    def __repr__(self):
        where = getattr(_explainer, "where_of", None)     # the views name cells: In[2], line 1
        if where is None:
            source = self.partition("@")[2].rpartition("#")[0] or self.partition("@")[2]
            file, _, line = source.rpartition(":")
            place = f"{file.rpartition('/')[2]}:{line}" if file else source or "?"
        else:
            place = where(self)
        return f"<function_key of {self.partition('@')[0] or self}, defined at {place}>"


def fail_on_recompile(function, enabled: bool = True) -> str:
    """Make a RE-compilation of `function` an error: once it has compiled, a call whose
    signature misses its cache raises `RecompileError` (naming the old and new signature and
    why) instead of compiling. `function` is a jitted function or the `function_key` of one
    of its compile events. Returns its function_key (a FunctionKey: shown by name and place).
    The error says it "would recompile" ("would trace again" on the NumPy backend, which
    compiles nothing).

        >>> import jxkernel, jxkernel.numpy as jnp
        >>> f = jxkernel.jit(lambda x: x * 2)
        >>> _ = f(jnp.ones(3)); _ = fail_on_recompile(f)
        >>> f(jnp.ones(4))                        # doctest: +ELLIPSIS
        Traceback (most recent call last):
        jxkernel.core.errors.RecompileError: jit(<lambda>) would ... because
        x: f32[3] -> f32[4], ...
    """
    if not isinstance(enabled, bool):
        raise TypeError(f"fail_on_recompile: `enabled` must be True or False, got {enabled!r}")
    if isinstance(function, str):
        target = _known.get(function)
        if target is None:
            raise KeyError(f"fail_on_recompile: no live jitted function has function_key "
                           f"{function!r} (a key comes from a compile event of the function; "
                           f"it may have been deleted)")
    else:
        target = function
        if not hasattr(target, "_fail_on_recompile"):
            raise TypeError(f"fail_on_recompile: `function` must be a jitted function "
                            f"(jit(f)) or a compile event's function_key string, got "
                            f"{type(function).__name__} {function!r}")
    target._fail_on_recompile = enabled
    key = FunctionKey(target.function_key)
    _known[key] = target
    return key


def failing_on_recompile() -> list[str]:
    """The function_keys of the live jitted functions whose fail-on-recompile switch is on."""
    return sorted(FunctionKey(key) for key, jitted in list(_known.items())
                  if jitted._fail_on_recompile)


def cache_hits(key) -> int:
    """Cache hits of jitted function `key` (what CompileEvent.key holds) so far."""
    count = getattr(key, "cache_hits", None)
    return count() if count is not None else _hits.get(key, 0)


# ------------------------------------------------------------------ a jit cache miss
@dataclasses.dataclass(frozen=True)
class Miss:
    """A jit cache miss as the call path saw it, before anyone explains it: the jitted
    function, a readable name and an aval per input leaf, the pytree structure, the static
    (name, value) pairs, the device, the closed-over constants (None: not traced yet), and
    `history`, the list of what its earlier compiles were specialised on (kept with the
    jit's caches, so that clearing them forgets it; only the explainer reads or fills it)."""
    jitted: object
    names: tuple
    avals: tuple
    treedef: object
    statics: tuple
    device: object
    consts: tuple | None
    history: list
    committed: tuple = ()     # the positions of the leaves committed to a device (jit's key)
    host_reads: frozenset | None = None   # ids of arrays whose values the trace read (refs.py)
    arg_names: tuple = ()     # each positional argument's name (one with no leaves has no other)
    jaxpr: object = None      # the ClosedJaxpr traced (CompileEvent.jaxpr), where one was
    numbers: frozenset = frozenset()   # the positions of the leaves given as Python numbers


_explainer = None       # what says why a Miss compiled (jxkernel/views/recompile_explainer.py)


def install_explainer(explainer) -> None:
    """Let `explainer` (an object with `compiled(miss, phases, backend) -> CompileEvent`,
    `refusal(miss) -> RecompileError` and `explain_miss(event, call_site, own) -> str`) explain each
    jit cache miss, as `core` reaches `xla` through install_eval_hook."""
    global _explainer
    _explainer = explainer


def forget_traces(fun) -> None:
    """`fun`'s traces forgotten by the explainer too (JAX's `jit(fun).clear_cache()` evicts
    them from its tracing cache, whichever jit of `fun` made them): its next miss is "never
    seen function", as JAX's."""
    if _explainer is not None:
        _explainer.forget_function(fun)


def compiled(miss: Miss, phases, backend: str, traced: bool = True,
             traced_at=None, event: CompileEvent | None = None,
             exported: bool = False) -> CompileEvent:
    """Log the compilation of a jit cache miss, with why it happened (`traced`: False where
    it reused the function's trace under a transformation: no tracing miss; `traced_at`: the
    user's line of the earlier trace it compiles, eval_shape's or .lower's, None: this call's;
    jit/primitive.traced_at). `event`: that earlier trace's, explained and its miss logged
    when it was made (trace_missed): recorded now with this compile's phases. `exported`:
    jax.export lowered it, compiling nothing (CompileEvent.exported)."""
    if event is not None and traced:
        return record(dataclasses.replace(event, phases=phases, backend=backend,
                                          timestamp=time.time(), exported=exported,
                                          jaxpr=miss.jaxpr),
                      counted_as=miss.history)
    if _explainer is not None:
        try:
            event = _with_learners_function(
                _explainer.compiled(miss, phases, backend, traced, traced_at), miss)
        except Exception as e:
            _explainer_failed("explaining a compile", e)
        else:
            # counted per function and options, as the caches are: `jit(f)` made anew after
            # an earlier one was dropped continues its count (compile #2, not #1)
            return record(dataclasses.replace(event, exported=exported, jaxpr=miss.jaxpr),
                          counted_as=miss.history)
    # a failed explainer, or while jxkernel/__init__.py loads, before the explainer is in:
    # pmap's plain reason (the statics too: without them a new static value read as "2
    # arguments -> 1" against the explained signature before it)
    return record_compiled(miss.jitted._name, _plain_signature(miss), phases, backend,
                           key=miss.jitted, statics=tuple((n, v) for n, v, _ in miss.statics))


def _with_learners_function(event: CompileEvent, miss: Miss) -> CompileEvent:
    """`event` with its learner_function set where it compiles a library's function (an
    installed package's or a registered library's) whose static arguments hold the learner's
    (learners_function: eqx.filter_jit's fun_wrapped holding make_step)."""
    source = event.source or ""
    if event.origin == EAGER or not source or event.learner_function is not None or not (
            event.library or installed_package(source.rpartition(":")[0] or source)):
        return event
    fun = learners_function(miss.statics)
    code = getattr(getattr(fun, "__func__", fun), "__code__", None)
    if code is None:
        return event
    return dataclasses.replace(event, learner_function=f"{code.co_filename}:{code.co_firstlineno}")


def trace_missed(miss: Miss, phases, backend: str, traced_at) -> CompileEvent | None:
    """A jitted function's trace made now at `traced_at` (the user's line: eval_shape's,
    `.trace`'s, `.lower`'s), compiled later if at all: the event its compile will record
    (`compiled(..., event=...)`), explained now against what was traced before (its signature
    joins them, as JAX's tracing cache holds it), and its miss and trace logged now, where JAX
    logs them; None without an explainer, or inside `unlogged()`."""
    if _explainer is None or not logged():
        return None
    try:
        event = _with_learners_function(
            _explainer.compiled(miss, phases, backend, True, traced_at), miss)
    except Exception as e:
        _explainer_failed("explaining a trace", e)
        return None
    event = dataclasses.replace(event, call_site=None, logged_at_trace=True)
    level = logging.WARNING if config.jax_log_compiles else logging.DEBUG
    _log_miss(event, traced_at)
    if event.miss and getattr(phases, "trace_s", 0) and _enabled(level):
        _log(level, _traced_line(event, lambda s: f"{s or 0.0:.9f}"))
    return event


def log_lowering(event: CompileEvent) -> CompileEvent:
    """`event` (trace_missed's) lowered now, at `.lower()`: its "Compiling jit(f) ..." and
    MLIR conversion lines logged here, as JAX logs them (its phases hold the lowering's
    seconds); the event its compile records then, which logs XLA's line only."""
    event = dataclasses.replace(event, logged_at_lowering=True)
    level = logging.WARNING if config.jax_log_compiles else logging.DEBUG
    if _enabled(level):
        for line in _phase_lines(dataclasses.replace(event, logged_at_lowering=False,
                                                     logged_at_trace=True))[:-1]:
            _log(level, line)
    return event


# reason of the lines an export of a trace made before logs (log_export_lowering)
EXPORT_LOWERING = "exported: its trace reused, lowered again for jax.export (nothing compiles)"


def log_export_lowering(miss: Miss, phases) -> None:
    """`miss`'s trace, made before (a call of the jit traced it), lowered now by jax.export
    (`phases`: the lowering's seconds): the "Compiling jit(f) ..." and MLIR conversion lines
    JAX logs there (its lowering for an export is not a call's), and no event: nothing is
    traced or compiled."""
    if logged():
        log_lowering(CompileEvent(miss.jitted._name, None, _plain_signature(miss),
                                  EXPORT_LOWERING, phases, "", miss=False))


def traced_under_transformation(miss: Miss, seen: list, under_vmap: bool = False,
                                inside: str | None = None) -> tuple:
    """(reason, changes, signature, JAX's lines for a different input pytree) of a jitted
    function traced anew under grad, vmap or
    linearize (a miss of JAX's tracing cache, which JAX logs as one), against what it compiled
    and, in `seen`, what it was traced for under a transformation before (the new signature
    joins `seen`); `under_vmap`: its inputs are rows vmap gives it (the fix is on vmap's);
    `inside`: the traced function it is traced into ("scan(body)"), None at top level."""
    if _explainer is not None:
        try:
            return _explainer.traced_under_transformation(miss, seen, under_vmap, inside)
        except Exception as e:
            _explainer_failed("explaining a retrace", e)
    return "first call" if not seen else "a new signature", (), _plain_signature(miss), ()


def traced_outside(miss: Miss) -> None:
    """A jitted function's trace made outside its calls (make_jaxpr's, a jit's trace in JAX):
    what a later compile of it is explained against, as JAX's tracing cache holds it."""
    if _explainer is not None and logged():
        try:
            _explainer.traced_outside(miss)
        except Exception as e:
            _explainer_failed("recording a trace", e)


def body_traced(fun, in_tree, in_avals, what: str, source, promoted: tuple = (),
                closed=None, host_reads=None) -> None:
    """A control-flow body or branch (`fun`, traced for `what`: "scan body", "cond branch",
    ...) missed its trace cache (lax/_cf_bodies.trace_fun) and was traced: the explainer logs it
    as a retrace, with why, where `fun` is the user's (`source`, where it was defined, outside
    jxkernel), as JAX's jax_explain_cache_misses logs its bodies' misses. `promoted`: the
    loop traced it again with its weakly typed carries promoted (lax/_cf_bodies.settle_carry):
    the carry's types the body returned before; () otherwise.
    `closed`: its trace (a ClosedJaxpr), `host_reads`: the ids of the arrays whose values its
    Python read, which tell what the trace holds of the values it read from outside."""
    if _explainer is not None and logged():
        try:
            _explainer.body_traced(fun, in_tree, in_avals, what, source, promoted, closed,
                                   host_reads)
        except Exception as e:
            _explainer_failed(f"explaining a {what}'s retrace", e)


def traced_inside(event: CompileEvent, consts, host_reads) -> None:
    """A jitted function of the user's traced inside another's trace (`event`, its
    inlined_into that trace): what it read from outside, which that program keeps, and its
    own later calls and other jits calling it reuse (JAX's trace cache too)."""
    if _explainer is not None and logged():
        try:
            _explainer.traced_inside(event, consts, host_reads)
        except Exception as e:
            _explainer_failed("noting what a jit traced inside another read", e)


def _explainer_failed(doing: str, error: Exception) -> None:
    """The explainer is a view: its bug must not fail the user's call that compiled (nor be
    silent). The compile is logged with its plain reason, and a warning says what broke and
    where in jxkernel (for the report: the program that compiled may be hard to make again)."""
    told_bugs.tell(f"jxkernel's recompile explainer raised {error!r}{_raised_at(error)} while "
                   f"{doing}; the user's call goes on and the compile is logged without its "
                   "reason.", "the program that compiled", error)


def _raised_at(error: Exception) -> str:
    """' (at jxkernel/views/recompile_explainer.py:158, in _signature)': the innermost frame
    of jxkernel's that `error` passed through, or ''."""
    ours = [(frame.f_code, line) for frame, line in traceback.walk_tb(error.__traceback__)
            if is_jxkernel_file(frame.f_code.co_filename)]
    if not ours:
        return ""
    code, line = ours[-1]
    path = os.path.relpath(code.co_filename, os.path.dirname(PACKAGE_DIR.rstrip(os.sep)))
    return f" (at {path.replace(os.sep, '/')}:{line}, in {code.co_name})"


def refuse(miss: Miss) -> None:
    """fail_on_recompile is on and `miss` is a new signature: raise RecompileError, naming
    the old and new signatures, what changed and the fix."""
    if _explainer is not None:
        raise _explainer.refusal(miss)
    raise RecompileError(miss.jitted._name, miss.jitted.function_key, "(not recorded)",
                         signature_text(_plain_signature(miss)), "a new signature",
                         user_source_info())


def _plain_signature(miss: Miss) -> tuple:
    """(name, type) per input leaf, written as the explainer's signatures are (weak types
    marked): the fallback's reason compares it with theirs."""
    return tuple((n, a.str_short(True) + (" (weak)" if a.weak_type else ""))
                 for n, a in zip(miss.names, miss.avals))


# ------------------------------------------------------------------ the guard
_fail_on_any = False                  # no_recompile(): every jitted function refuses to recompile


def fail_on_any_recompile(enabled: bool) -> bool:
    """Turn the guard for every jitted function on or off; returns the previous setting."""
    global _fail_on_any
    if not isinstance(enabled, bool):
        raise TypeError(f"fail_on_any_recompile: `enabled` must be True or False, got "
                        f"{enabled!r}")
    before, _fail_on_any = _fail_on_any, enabled
    return before


def failing_on_any_recompile() -> bool:
    """Whether every jitted function refuses to recompile now (no_recompile(), %jxguard on)."""
    return _fail_on_any


class no_recompile:
    """Within the block (or each call of the decorated function) a RE-compilation raises
    `RecompileError` at the caller's line instead of compiling; afterwards the previous
    setting is back, also when the block raised. No function: every jitted function.

        >>> import jxkernel, jxkernel.numpy as jnp
        >>> f = jxkernel.jit(lambda x: x + 2); _ = f(jnp.ones(3))
        >>> with no_recompile(f):                 # doctest: +ELLIPSIS
        ...     f(jnp.ones(4))                    # a new shape
        Traceback (most recent call last):
        jxkernel.core.errors.RecompileError: jit(<lambda>) would ... because
        x: f32[3] -> f32[4], ...
        >>> @no_recompile()
        ... def train(): ...
    """

    def __init__(self, function=None):
        if function is not None and not isinstance(function, str) and \
                not hasattr(function, "_fail_on_recompile"):
            raise TypeError(f"no_recompile: `function` must be a jitted function (jit(f)), a "
                            f"compile event's function_key, or nothing (every jitted "
                            f"function); got {type(function).__name__} {function!r}")
        if isinstance(function, str) and _known.get(function) is None:
            raise KeyError(f"no_recompile: no live jitted function has function_key "
                           f"{function!r}")
        self.function = function
        self._saved: list = []        # one previous setting per entered block (nesting works)

    def __enter__(self):
        if self.function is None:
            self._saved.append(fail_on_any_recompile(True))
        else:
            target = self.function if not isinstance(self.function, str) else \
                _known[self.function]
            self._saved.append((target, target._fail_on_recompile))
            fail_on_recompile(target, True)
        return self

    def __exit__(self, *exc):
        saved = self._saved.pop()
        if self.function is None:
            fail_on_any_recompile(saved)
        else:
            target, before = saved
            fail_on_recompile(target, before)
        return False

    def __call__(self, fun):
        """As a decorator: the guard is on during each call of `fun`."""
        if not callable(fun):
            raise TypeError(f"no_recompile(...) decorates a function; got {fun!r}")

        @functools.wraps(fun)
        def guarded(*args, **kwargs):
            with self:
                return fun(*args, **kwargs)
        return guarded
