"""Find the user's line that is running: the innermost frame outside jxkernel.

Equations record it, so a printed jaxpr, an error or the notebook can point
at the line of user code (a cell line, in a notebook) that made them.
"""
from __future__ import annotations

import functools
import inspect
import itertools
import os
import sys
import sysconfig
import traceback
import types
from typing import Any, NamedTuple

from .config import config
from .lru import Bounded


class NameStack(tuple):
    """An equation's name stack (`eqn.source_info.name_stack`): the tuple of its entries,
    printed by `str` as JAX prints a name stack, the text lowering writes into locations.

    >>> str(NameStack(("vmap(", "foo")))
    'vmap(foo)'
    """
    __slots__ = ()

    def __str__(self) -> str:
        return stack_text(self)


class SourceInfo(NamedTuple):
    """Where user code created an equation.

    `code` and `lasti` (the frame's code object and instruction offset) are kept so that the
    column and qualified name, needed only when printed, cost nothing at trace time.
    `caller` is the SourceInfo of the user's frame that called this one, up to the function
    being traced (JAX's traceback, which each trace_to_jaxpr cuts there): the frames an
    UnexpectedTracerError lists as "the final 5 stack frames" when the value was created.
    `name_stack` is JAX's name stack of the equation, relative to the jaxpr holding it: the
    transformations and scopes it was made under, outermost first (`("transpose(", "jvp(")`;
    a transformation ends in "(", see source_info.stack_text), which lowering writes into each
    op's location (`jit(f)/transpose(jvp())/mul`).

    >>> str(SourceInfo("m.py", 3, "g"))       # no code object: no column
    'm.py:3 (g)'
    """
    file: str
    line: int
    function: str
    code: Any = None
    lasti: int = -1
    name_stack: tuple = NameStack()
    caller: Any = None

    @property
    def column(self) -> int | None:
        """The 0-based column where the running expression starts (Python 3.11's positions)."""
        if self.code is None or self.lasti < 0:
            return None
        return next(itertools.islice(self.code.co_positions(), self.lasti // 2, None))[2]

    @property
    def traceback(self) -> Traceback:
        """JAX's `eqn.source_info.traceback`: this line and its callers up to the function
        being traced (the frames `caller` records), innermost first."""
        codes, lastis = [], []
        info = self
        while info is not None:
            if info.code is not None:
                codes.append(info.code)
                lastis.append(info.lasti)
            info = info.caller
        return Traceback(tuple(codes), tuple(lastis))

    def __str__(self):
        # JAX's form: the qualified name, and the column unless it is 0 (or unknown)
        name = self.code.co_qualname if self.code is not None else self.function
        column = self.column
        where = f"{self.line}:{column}" if column else f"{self.line}"
        return f"{self.file}:{where} ({name})"


def positions(code, lasti: int) -> tuple:
    """(start line, end line, start column, end column) of the expression running at
    instruction offset `lasti` of `code` (Python's co_positions; a part unknown is None)."""
    if lasti < 0:
        return (code.co_firstlineno, None, None, None)
    return next(itertools.islice(code.co_positions(), lasti // 2, None),
                (code.co_firstlineno, None, None, None))


class TracebackFrame(NamedTuple):
    """A frame of a Traceback, as jaxlib's `Frame`."""
    file_name: str
    function_name: str
    function_start_line: int
    line_num: int

    def __str__(self):
        return f"{self.function_name};{self.file_name}:{self.line_num}"


class Traceback:
    """The frames that made an equation, innermost first, as jaxlib's `Traceback` that JAX's
    equations hold (`eqn.source_info.traceback`): `raw_frames()` gives their code objects and
    instruction offsets, `frames` them as jaxlib's Frames read, and `tb + outer` the frames of a
    traceback and then those of the one it was called under (JAX's sum, used for an equation of
    an inner jaxpr). jxkernel keeps the user's frames only, up to the function being traced."""
    __slots__ = ("_codes", "_lastis")

    def __init__(self, codes: tuple = (), lastis: tuple = ()):
        self._codes, self._lastis = tuple(codes), tuple(lastis)

    def raw_frames(self) -> tuple[list, list]:
        return list(self._codes), list(self._lastis)

    @property
    def frames(self) -> list:
        """Each frame as jaxlib's Frame reads: file_name, function_name,
        function_start_line, line_num."""
        return [TracebackFrame(c.co_filename, c.co_name, c.co_firstlineno,
                               positions(c, i)[0] or 0)
                for c, i in zip(self._codes, self._lastis)]

    def __add__(self, other: Traceback) -> Traceback:
        return Traceback(self._codes + other._codes, self._lastis + other._lastis)

    def __eq__(self, other) -> bool:
        return isinstance(other, Traceback) and self._lastis == other._lastis and \
            len(self._codes) == len(other._codes) and \
            all(a is b for a, b in zip(self._codes, other._codes))

    def __hash__(self) -> int:
        return hash((tuple(map(id, self._codes)), self._lastis))

    def __len__(self) -> int:
        return len(self._codes)

    def __str__(self) -> str:
        return "\n".join(f"{c.co_filename}:{positions(c, i)[0]} ({c.co_name})"
                         for c, i in zip(self._codes, self._lastis))

    code_addr2line = staticmethod(lambda code, lasti: positions(code, lasti)[0])
    code_addr2location = staticmethod(
        lambda code, lasti: (lambda p: (p[0], p[2], p[1], p[3]))(positions(code, lasti)))

    @staticmethod
    def get_traceback() -> Traceback:
        """The user's frames running now, innermost first (not jxkernel's or the standard
        library's)."""
        codes, lastis = [], []
        frame = sys._getframe(1)
        while frame is not None:
            if is_user_filename(frame.f_code.co_filename):
                codes.append(frame.f_code)
                lastis.append(frame.f_lasti)
            frame = frame.f_back
        return Traceback(tuple(codes), tuple(lastis))


_texts = Bounded(4096)      # name stack -> its text


def stack_text(stack: tuple) -> str:
    """A name stack as JAX prints it: scopes joined by "/", each transformation wrapping the
    scope inside it (`("jit(f)", "transpose(", "jvp(")` -> `jit(f)/transpose(jvp())`).

    >>> stack_text(("vmap(", "jvp(", "jit(g)", "cond"))
    'vmap(jvp(jit(g)))/cond'
    """
    text = _texts.get(stack)
    if text is None:
        scopes: list = []
        for entry in reversed(stack):
            if entry[-1:] == "(":
                if scopes:
                    scopes[-1] = f"{entry}{scopes[-1]})"
                else:
                    scopes.append(f"{entry})")
            else:
                scopes.append(entry)
        text = _texts[stack] = "/".join(reversed(scopes))
    return text


# jxkernel's own folder, ending in a separator: a file beside it ("jxkernel_notes.py", a
# "jxkernel_extra/" package) is not inside it. The one definition every layer reads.
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def is_jxkernel_file(filename: str) -> bool:
    """Whether `filename` is one of jxkernel's own source files (the narrow question: the
    standard library, registered libraries and the shell are someone else's, not ours).

    >>> is_jxkernel_file(PACKAGE_DIR + "numpy/ufuncs.py"), is_jxkernel_file("train.py")
    (True, False)
    """
    return filename.startswith(PACKAGE_DIR)


def real_jax():
    """The real JAX where it is imported beside jxkernel (`import jax`, or a library's, in a
    kernel without jxkernel's alias): sys.modules' `jax`, a module with a file outside
    jxkernel (the alias's `jax` names jxkernel's own __init__.py: as_jax._jax_module). Else
    None."""
    module = sys.modules.get("jax")
    path = getattr(module, "__file__", None)
    return module if isinstance(path, str) and not is_jxkernel_file(os.path.abspath(path)) \
        else None


# the standard library, as JAX's source_info_util has it (sysconfig's, and where os lives)
_STDLIB_DIRS = tuple({os.path.join(sysconfig.get_path("stdlib"), ""),
                      os.path.dirname(os.__file__) + os.sep})
# More folders or files whose frames are not the user's line. JAX keeps this list apart from
# traceback_util's, and so does jxkernel: this one chooses the line an equation records (the
# standard library is never that line, but stays in a traceback), traceback_util's hides
# frames from an escaping exception's traceback. The notebook registers IPython's folders
# here only: a magic's compile is called at the cell's line, yet IPython's frames of an error
# are IPython's to show or hide.
_excluded: list = []
# Bounded, since a notebook makes new code objects at every run of a cell (8192: every line a
# long session traces, many times over). Never keyed by code objects themselves: two of them
# compare equal when only their files differ (the same function typed into two cells), and
# the second cell's equations then named the first cell's file.
_is_user = Bounded(8192)       # file name -> whether it is the user's
_infos = Bounded(8192)         # (id(code), lasti) -> SourceInfo, which keeps that code alive


def is_user_filename(filename: str) -> bool:
    """Whether a frame of `filename` can be the user's line an equation records (JAX's
    `source_info_util.is_user_filename`): not jxkernel's, the standard library's or under a
    `register_exclusion`.

    >>> is_user_filename("train.py"), is_user_filename(os.__file__)
    (True, False)
    """
    known = _is_user.get(filename)
    if known is None:
        # "<jx-...>": code jxkernel compiles itself (%timeit --dispatch's timer,
        # `<jx-dispatch>`), which the compilations log would name as the user's line
        known = _is_user[filename] = not (
            is_jxkernel_file(filename) or filename.startswith(_STDLIB_DIRS)
            or is_registered_exclusion(filename) or filename.startswith("<jx-"))
    return known


def is_registered_exclusion(filename: str) -> bool:
    """Whether `filename` is under a path given to `register_exclusion` (a library's own files:
    never the user's line, though not jxkernel's). The views ask this apart from
    is_user_filename, as they keep installed packages the standard library's folder may hold.

    >>> is_registered_exclusion("train.py")
    False
    """
    return filename.startswith(tuple(_excluded))


def register_exclusion(path: str) -> None:
    """Treat frames of files under `path` as not the user's (libraries over jxkernel register
    their own files, so equations point at the line that called the library)."""
    _excluded.append(os.path.abspath(path))
    _is_user.clear()
    _packages.clear()
    _infos.clear()


# Where installed packages live: a file under one of these folders is a package's (pip's,
# conda's, Debian's), never the learner's own, unless the kernel's folder holds it (below).
_INSTALLED = ("site-packages", "dist-packages")
_packages = Bounded(8192)      # (working directory, file name) -> installed_package's answer


def installed_package(filename: str) -> str | None:
    """The installed package whose file `filename` is ("treescope" for a file under
    .../site-packages/treescope/), or the folder a library registered with register_exclusion
    from outside site-packages; None for the learner's file, jxkernel's and the standard
    library's. A package the kernel's working directory holds, the same file at the same
    path under it or under its src/ (the learner's own project, installed with `pip install .`
    and not editable), is the learner's: None. An editable install's files are the project's
    own already, outside site-packages.

        >>> [installed_package(f) for f in ("/v/site-packages/optax/alias.py", "train.py")]
        ['optax', None]
    """
    cwd = os.getcwd()
    key = (cwd, filename)
    if key in _packages:
        return _packages[key]
    found = None
    if not (is_jxkernel_file(filename) or filename.startswith(_STDLIB_DIRS)):
        parts = os.path.normpath(filename).split(os.sep)
        at = max((i for i, part in enumerate(parts) if part in _INSTALLED), default=None)
        if at is not None and at + 1 < len(parts):
            inside = parts[at + 1:]
            mine = any(os.path.isfile(os.path.join(cwd, *top, *inside)) for top in ((), ("src",)))
            found = None if mine else os.path.splitext(inside[0])[0]
        elif is_registered_exclusion(filename):
            root = max((p for p in _excluded if filename.startswith(p)), key=len)
            found = os.path.splitext(os.path.basename(root))[0]     # its module or folder
    _packages[key] = found
    return found


# the file IPython's %timeit compiles the timed statement as (its warm-up here too)
TIMEIT_FILE = "<magic-timeit>"


def staged_line(info: SourceInfo | None) -> tuple | None:
    """(file, line) of the user's line an equation records, where it records one: a failed
    host callback's (CallbackError.staged_at), which a card fixes there, not at the call.

        >>> staged_line(SourceInfo("train.py", 3, "loss")), staged_line(None)
        (('train.py', 3), None)
    """
    return None if info is None or isinstance(info, OutsideSourceInfo) else (info.file, info.line)


def learner_source_info(skip: int = 1) -> SourceInfo | None:
    """user_source_info that passes over installed packages' frames too: the learner's own
    innermost line (a cell's, a file of theirs) that called into a library, where
    user_source_info finds the library's (nnx.jit's call of its jitted function, in Flax's
    compilation.py, which registers no exclusion). The code IPython's %timeit compiles of
    the learner's statement (`<magic-timeit>`, which JAX's log names) is passed over too: the
    line the learner knows is the cell's that ran the magic. None when no frame is the
    learner's."""
    frame = learner_frame(sys._getframe(skip))
    return None if frame is None else _frame_info(frame, None)


def learner_frame(frame):
    """The learner's innermost frame from `frame` outward (learner_source_info's: not
    jxkernel's, an installed package's or %timeit's), or None."""
    while frame is not None:
        name = frame.f_code.co_filename
        if is_user_filename(name) and installed_package(name) is None and name != TIMEIT_FILE:
            return frame
        frame = frame.f_back
    return None


def user_source_info(skip: int = 1) -> SourceInfo | None:
    """SourceInfo of the innermost frame (above `skip` frames) that is not jxkernel's."""
    frame = sys._getframe(skip)
    while frame is not None:
        if is_user_filename(frame.f_code.co_filename):
            return _frame_info(frame, None)
        frame = frame.f_back
    return None


# JAX's tracer errors list jax_tracer_error_num_traceback_frames frames (5 by default): the
# line and its callers. At least 5 are kept, so the default's listing stays whole when the
# option is lowered and raised again after tracing. An op's location (`Lowered.compiler_ir()`,
# xla/lowering.py) names these too, where JAX's name up to 100 (its
# jax_traceback_in_locations_limit): keeping 100 made tracing 16 calls deep half as slow
# again (slower than JAX's), so a deeper location asks for the option raised while tracing.
_MIN_FRAMES = 5


def traced_source_info(skip: int = 1) -> SourceInfo | None:
    """user_source_info with its callers (`SourceInfo.caller`): the user's frames above it up
    to the function being traced, where a trace boundary (trace_to_jaxpr) stops the walk, as
    JAX's TracebackScope cuts the traceback each trace_to_jaxpr records."""
    # called for every equation traced, walking ~15 frames: the cache's own get first (a
    # call of is_user_filename per frame was a tenth of tracing a small grad)
    known = _is_user.get
    frame = sys._getframe(skip)
    boundary, outside = trace_boundary[0], False
    while frame is not None:
        user = known(frame.f_code.co_filename)
        if user or (user is None and is_user_filename(frame.f_code.co_filename)):
            break
        if frame.f_code is boundary:     # (an identity test: hashing a code object is slow)
            outside = True
        frame = frame.f_back
    if frame is None:
        return None
    users = [frame]
    above = frame.f_back
    most = max(_MIN_FRAMES, config.jax_tracer_error_num_traceback_frames)
    for _ in range(32 + most):      # a bounded walk: a trace with no boundary above it
        # (by id: hashing a code object hashes its bytecode and consts, nested code objects
        # too: a test module's or pytest's code made this walk a tenth of tracing)
        if above is None or id(above.f_code) in _boundary_ids or len(users) >= most:
            break
        user = known(above.f_code.co_filename)
        if user or (user is None and is_user_filename(above.f_code.co_filename)):
            users.append(above)
        above = above.f_back
    info = None
    for user in reversed(users):    # outermost first: each line keyed by its caller's
        info = _frame_info(user, info)
    if outside:         # made by jxkernel's code the trace runs (jit(jnp.sin)'s, a fori_loop's
        # counter): its line is the caller's, outside the trace; its traceback has none
        return _outside_info(info)
    return info


class OutsideSourceInfo(SourceInfo):
    """The SourceInfo of an equation jxkernel's own code made inside a trace with no frame of
    the user's between (the body of `jit(jnp.sin)`, a fori_loop's counter): it names the
    line that called the traced function, as jxkernel prints it, but its traceback has no
    frame of the user's, as JAX's, whose traceback of it ends where the trace began (so an
    op's location, or a profile, names that line once: from the equation holding it)."""
    __slots__ = ()

    @property
    def traceback(self) -> Traceback:
        return Traceback()


def _outside_info(info: SourceInfo) -> SourceInfo:
    # (keyed by the SourceInfo's id: the entry holds it, so the id stays its own)
    key = (id(info), "outside")
    found = _infos.get(key)
    if found is None or found[0] is not info:
        found = _infos[key] = (info, OutsideSourceInfo(*info))
    return found[1]


def _frame_info(frame, caller: SourceInfo | None) -> SourceInfo:
    # keyed by instruction, not line: two calls on one line differ in column. The ids are
    # unique while the entry lives: its SourceInfo holds the code object and its caller.
    code = frame.f_code
    key = (id(code), frame.f_lasti) if caller is None else (id(code), frame.f_lasti, id(caller))
    info = _infos.get(key)
    if info is None:
        info = _infos[key] = SourceInfo(code.co_filename, frame.f_lineno, code.co_name,
                                        code, frame.f_lasti, NameStack(), caller)
    return info


def creation_frames(info: SourceInfo, count: int = 5) -> list:
    """The last `count` user frames that made an equation, outermost first (JAX's
    `source_info_util.summarize(info, num_frames=count)`, as lines)."""
    frames = []
    while info is not None and len(frames) < count:
        frames.append(info)
        info = info.caller
    return frames[::-1]


# the wrapper every traceback_util.api_boundary puts around an entry point (jax.jit,
# checkpoint, ...): a frame of it stands between that entry point and its caller
_BOUNDARY = (PACKAGE_DIR + os.path.join("core", "traceback_util.py"),
             "reraise_with_filtered_traceback")


def caller_frame(skip: int = 1):
    """The frame `skip` levels above the caller, not counting api_boundary wrappers: for
    `jax.checkpoint(f, policy="...")` the user's line, though checkpoint is a boundary.

        >>> def where(): return caller_frame(1).f_code.co_name
        >>> def asks(): return where()
        >>> asks()
        'asks'
    """
    frame = sys._getframe(skip + 1)
    while (frame.f_code.co_filename, frame.f_code.co_name) == _BOUNDARY:
        frame = frame.f_back
    return frame


def made_by_user(skip: int = 1) -> bool:
    """Whether the frame `skip` levels above the caller is the user's (not jxkernel's, the
    standard library's or a registered library's): `jax.jit(jnp.sum)` in a cell makes a jit of
    the user's, though jnp.sum is defined inside jxkernel; jnp's own `@jit`s are not."""
    return is_user_filename(caller_frame(skip + 1).f_code.co_filename)


def user_stacklevel() -> int:
    """The `stacklevel` that makes the caller's `warnings.warn` point at the user's line (the
    innermost frame not jxkernel's), not at ours."""
    frame, level = sys._getframe(1), 1
    while frame is not None and not is_user_filename(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level if frame is not None else 1


def innermost_function(fun):
    """What `fun` calls in the end: through partials and every wrapper's __wrapped__, as JAX's
    fun_sourceinfo looks through them.

        >>> def f(x): return x
        >>> innermost_function(functools.partial(functools.wraps(f)(lambda x: f(x)))) is f
        True
    """
    while isinstance(fun, functools.partial):
        fun = fun.func
    try:
        return inspect.unwrap(fun)
    except ValueError:                  # a cycle of __wrapped__: the outermost is all we know
        return fun


def function_source_info(fun) -> SourceInfo | None:
    """Where a Python function was defined: through partials and every wrapper (a hessian is
    jacfwd's wrapper of jacrev's of the user's function), as JAX's fun_sourceinfo."""
    code = getattr(innermost_function(fun), "__code__", None)
    if code is None:
        return None
    return SourceInfo(code.co_filename, code.co_firstlineno, code.co_name)


# code objects that begin a trace (core/staging.trace_to_jaxpr registers its own): JAX cuts the
# traceback at each of its trace_to_jaxpr, and so does traced_call_site at these
trace_boundaries: set = set()
_boundary_ids: set = set()      # their ids (each code object kept alive by the set above)
# staging's trace_to_jaxpr's code (set there): traced_source_info tests frames against it by
# identity, once per frame of every equation traced
trace_boundary: list = [None]


def add_trace_boundary(code) -> None:
    """Register `code` as beginning a trace (in trace_boundaries)."""
    trace_boundaries.add(code)
    _boundary_ids.add(id(code))


def traced_call_site(skip: int = 1) -> str:
    """Where JAX's explain_cache_misses says a trace was asked for: "file:line:column
    (qualname)" (no column where it is 0) of the innermost user frame, looking no further out
    than the trace being recorded (a trace jxkernel asks for inside a jit's trace, with no
    user frame between, is "" there, as JAX's).

        >>> traced_call_site()          # typed in a cell  # doctest: +SKIP
        '<ipython-input-3-…>:1:4 (<module>)'
    """
    frame = sys._getframe(skip)
    while frame is not None and id(frame.f_code) not in _boundary_ids:
        code = frame.f_code
        if is_user_filename(code.co_filename):
            return str(SourceInfo(code.co_filename, frame.f_lineno, code.co_name, code,
                                  frame.f_lasti))
        frame = frame.f_back
    return ""


def users_function(fun) -> SourceInfo | None:
    """Where `fun` (through wrappers) was defined, if in the user's code (not jxkernel's or
    the standard library's): JAX's explain_cache_misses tells only of those."""
    info = function_source_info(fun)
    return info if info is not None and is_user_filename(info.file) else None


class JaxStackTraceBeforeTransformation(Exception):
    """The cause an error gets when it is raised running an equation a transformation made
    (JAX's, of `jax._src.source_info_util`): its traceback is the user's frames that made the
    equation, before grad or vmap rewrote it, so the error points at the user's line."""


_BEFORE_TRANSFORMATION = (
    "The preceding stack trace is the source of the JAX operation that, once transformed by "
    "JAX, triggered the following exception.\n\n--------------------")


def has_user_context(e: BaseException | None) -> bool:
    """Whether `e`, or a cause of it, is already a JaxStackTraceBeforeTransformation."""
    while e is not None:
        if isinstance(e, JaxStackTraceBeforeTransformation):
            return True
        e = e.__cause__
    return False


def add_user_context(e: BaseException, info: SourceInfo | None) -> None:
    """Make `e`'s cause a JaxStackTraceBeforeTransformation whose traceback is the user's
    frames `info` records (the equation's line and its callers), as JAX's user_context does
    for an error raised running an equation; `e`'s own cause and context move onto it. Not
    twice (the innermost equation's wins), nor without a frame of the user's.

        >>> e = FloatingPointError("invalid value (nan) encountered in mul")
        >>> add_user_context(e, SourceInfo("train.py", 3, "loss"))
        >>> [(f.f_code.co_filename, n) for f, n in traceback.walk_tb(e.__cause__.__traceback__)]
        [('train.py', 3)]
    """
    if info is None or has_user_context(e):
        return
    tb = user_traceback(info)
    text = "".join(traceback.format_exception_only(type(e), e)).strip()
    cause = JaxStackTraceBeforeTransformation(f"{text}\n\n{_BEFORE_TRANSFORMATION}")
    cause.__cause__, cause.__context__ = e.__cause__, e.__context__
    cause.__suppress_context__ = e.__suppress_context__
    e.__cause__, e.__context__ = cause.with_traceback(tb), None


def user_traceback(info: SourceInfo) -> types.TracebackType | None:
    """A traceback of `info`'s frames, outermost first, as Python prints one: each the frame
    of a stand-in compiled at that file and named as that function (none of the user's code
    runs), at that line."""
    tb = None
    for frame_info in reversed(creation_frames(info, 1 << 30)):     # built innermost first
        name = frame_info.code.co_qualname if frame_info.code is not None else \
            frame_info.function
        # (offset 0, a real instruction of a code without positions: Python's traceback then
        # takes tb_lineno and draws no column markers; -1 sent IPython's `executing` into an
        # endless search for an instruction before it, hanging a notebook's error display)
        first = frame_info.code.co_firstlineno if frame_info.code is not None else None
        tb = types.TracebackType(tb, _stand_in_frame(frame_info.file, frame_info.function,
                                                     name, frame_info.line, first),
                                 0, frame_info.line)
    return tb


def _line_only(units: int, delta: int) -> bytes:
    """A location table (CPython 3.11-3.13's format) putting each of `units` code units on
    the line `delta` below the code's first, with no columns: entries of up to 8 units, kind
    13 (no columns), the first moving `delta` lines (a signed varint), the rest none. Python's
    traceback then draws no column markers, and the frame's f_lineno is that line (IPython's
    traceback in a kernel read it, and stopped at an assertion on None)."""
    table = bytearray()
    while units > 0:
        n = min(8, units)
        table.append(0x80 | 13 << 3 | n - 1)
        value = -delta << 1 | 1 if delta < 0 else delta << 1
        while value >= 0x40:
            table.append(0x40 | value & 0x3F)
            value >>= 6
        table.append(value)
        units, delta = units - n, 0
    return bytes(table)


def _stand_in_frame(file: str, function: str, qualname: str, line: int,
                    first: int | None = None) -> types.FrameType:
    """A frame of code at `file` named `function`, at `line` (its code starting at `first`,
    the function's `def`, as IPython's traceback reads the function's lines from there): a
    generator's, left suspended, so it holds no caller (its f_back is None) and no reference
    cycle keeps it."""
    code = compile("def stand_in():\n    yield sys._getframe()\n", file, "exec")
    scope = {"sys": sys}
    exec(code, scope)
    code = scope.pop("stand_in").__code__
    line = max(line or 1, 1)
    first = line if first is None or not 1 <= first <= line else first
    body = code.replace(co_name=function, co_qualname=qualname, co_firstlineno=first,
                        co_linetable=_line_only(len(code.co_code) // 2, line - first))
    return next(types.FunctionType(body, {"sys": sys})())
