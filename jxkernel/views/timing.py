"""Where a jitted call's time goes: trace, lower, compile, dispatch and device, each with
its spread over runs.

    >>> p = jxkernel.timing.profile(lambda x: x @ x, jnp.ones((64, 64)), runs=5)
    >>> [phase.name for phase in p.phases]
    ['trace', 'lower', 'compile', 'dispatch', 'device']
    >>> len(p.dispatch.samples)
    5

How each phase is measured (the result's notes say so too):

- trace, lower, compile: `compiles` fresh compilations (default: `runs`) through the
  ahead-of-time API, `jit(f).trace(...)`, `.lower()`, `.compile()`, with the compilation
  caches off, so XLA really compiles each time; the three are the compile pipeline's own
  record of them (`Compiled.phases`). With `compiles=0`, the three come from the first call's
  compile event (jxkernel.compile_log), one sample, or are absent if `f` was already
  compiled for these arguments.
- The first call compiles (when needed) and is a warm-up, never a timed run.
- dispatch: from the call until it returns (async dispatch: the device may still work);
  device: from that return until every output leaf is ready (`block_until_ready`).
  Each run blocks before the next starts, so work never piles up in the queue.

The result (`Profile`) renders as a text table (`repr`), an HTML table (`_repr_html_`, no
JavaScript needed) and the JSON MIME bundle `application/vnd.jxkernel.profile+json`:

    {"version": 1,
     "function": "f",                    # the jitted function's name
     "runs": 7,                          # timed calls (dispatch and device samples)
     "compiles": 7,                      # fresh compilations timed (0: see compile_source)
     "compile_source": "fresh" | "first call" | "none",
     "backend": "cpu" | "numpy" | ... | null,   # the outputs' platform (numpy: a trace)
     "first_compile": null | {"trace_s", "lower_s", "compile_s", "cache"},
     "phases": [{"name": "trace" | "lower" | "compile" | "dispatch" | "device",
                 "kind": "compile" | "run",
                 "samples_s": [...],     # seconds, in the order measured
                 "min_s", "median_s", "max_s", "mean_s", "std_s"}],   # null when no samples
     "notes": ["..."]}                   # how it was measured, as the text table says

No IPython here: the plotly chart and `%timeit --phases` are in jxkernel/notebook/.
`tool_jit` marks a view's jit of the user's plain function (views/jit_for_call.py makes one)
as the tool's: profile keeps its compiles out of the log.
"""
from __future__ import annotations

import contextlib
import dataclasses
import html
import statistics
import time
import weakref

from ..core import compile_record
from ..core.config import config
from .rich_view import RichView
from ..transforms.jit import Jitted, jit
from ..tree_util import tree_leaves
from .schema import mime_type

PROFILE_MIME = mime_type("ProfileBundle")
COMPILE_PHASES = ("trace", "lower", "compile")
RUN_PHASES = ("dispatch", "device")


@dataclasses.dataclass(frozen=True)
class Phase:
    """One phase's samples, in seconds.

        >>> Phase("device", (0.001, 0.003, 0.002)).median
        0.002
    """
    name: str
    samples: tuple

    @property
    def kind(self) -> str:
        return "compile" if self.name in COMPILE_PHASES else "run"

    @property
    def seconds(self) -> float | None:
        """The typical value: the median (None without samples)."""
        return self.median

    @property
    def min(self):
        return min(self.samples) if self.samples else None

    @property
    def max(self):
        return max(self.samples) if self.samples else None

    @property
    def median(self):
        return statistics.median(self.samples) if self.samples else None

    @property
    def mean(self):
        return statistics.fmean(self.samples) if self.samples else None

    @property
    def std(self):
        """The sample standard deviation (0.0 for one sample)."""
        if not self.samples:
            return None
        return statistics.stdev(self.samples) if len(self.samples) > 1 else 0.0

    def json(self) -> dict:
        return {"name": self.name, "kind": self.kind, "samples_s": list(self.samples),
                "min_s": self.min, "median_s": self.median, "max_s": self.max,
                "mean_s": self.mean, "std_s": self.std}


def duration(seconds: float | None) -> str:
    """A duration in the unit that suits it.

        >>> duration(0.0000123), duration(0.0123), duration(1.5), duration(None)
        ('12.3 µs', '12.30 ms', '1.500 s', '—')
    """
    if seconds is None:
        return "—"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.3f} s"


_COLUMNS = ("phase", "min", "median", "max", "mean ± std", "n")


@dataclasses.dataclass(frozen=True)
class Profile(RichView):
    """The phases of one jitted call, as `profile` measured them."""
    MIME = PROFILE_MIME
    function: str
    trace: Phase
    lower: Phase
    compile: Phase
    dispatch: Phase
    device: Phase
    compile_source: str                 # "fresh", "first call" or "none"
    first_compile: compile_record.CompileEvent | None
    notes: tuple
    # the platform the outputs are on ("cpu", "numpy"; None: no array output): the views say
    # "traced" for the NumPy backend's fresh compiles, which compile nothing
    backend: str | None = None

    @property
    def phases(self) -> tuple:
        return (self.trace, self.lower, self.compile, self.dispatch, self.device)

    @property
    def runs(self) -> int:
        return len(self.dispatch.samples)

    @property
    def compiles(self) -> int:
        return len(self.trace.samples) if self.compile_source == "fresh" else 0

    def rows(self) -> list:
        """The table's rows as text: phase, min, median, max, mean ± std, n."""
        return [(p.name, duration(p.min), duration(p.median), duration(p.max),
                 f"{duration(p.mean)} ± {duration(p.std)}" if p.samples else "—",
                 str(len(p.samples))) for p in self.phases]

    def title(self) -> str:
        return f"phases of {self.function}: {self.runs} timed run(s)"

    def __repr__(self):
        rows = [_COLUMNS, *self.rows()]
        widths = [max(len(r[i]) for r in rows) for i in range(len(_COLUMNS))]
        lines = [self.title()]
        for row in rows:
            cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
            lines.append("  ".join(cells).rstrip())
        return "\n".join(lines + list(self.notes))

    def _repr_html_(self):
        esc = html.escape
        head = "".join(f"<th style='text-align:{'left' if i == 0 else 'right'}'>{esc(c)}</th>"
                       for i, c in enumerate(_COLUMNS))
        body = "".join("<tr>" + "".join(
            f"<td style='text-align:{'left' if i == 0 else 'right'}'>{esc(c)}</td>"
            for i, c in enumerate(row)) + "</tr>" for row in self.rows())
        notes = "".join(f"<li>{esc(n)}</li>" for n in self.notes)
        return (f"<div class='jx-profile'><b>{esc(self.title())}</b>"
                f"<table style='font-size:12px;font-family:monospace'><tr>{head}</tr>{body}"
                f"</table><ul style='font-size:11px;margin:2px 0'>{notes}</ul></div>")

    def to_json(self) -> dict:
        first = self.first_compile
        return {"version": 1, "function": self.function, "runs": self.runs,
                "compiles": self.compiles, "compile_source": self.compile_source,
                "backend": self.backend, "first_compile": None if first is None else {
                    "trace_s": first.trace_s, "lower_s": first.lower_s,
                    "compile_s": first.compile_s, "cache": first.cache},
                "phases": [p.json() for p in self.phases], "notes": list(self.notes)}



# ------------------------------------------------------------------ measuring
def _check_count(name: str, value, least: int) -> None:
    """`value` must be an int >= least; else a TypeError/ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"profile: {name} must be a whole number (int) of at least {least}; "
                        f"got {name}={value!r} of type {type(value).__name__}. "
                        f"Pass e.g. {name}=10.")
    if value < least:
        raise ValueError(f"profile: {name} must be at least {least}; got {name}={value!r}. "
                         f"Pass e.g. {name}=10.")


def _as_jitted(f) -> Jitted:
    if isinstance(f, Jitted):
        if f._donate_argnums or f._donate_argnames:
            raise ValueError(f"profile: {f._name} donates arguments (donate_argnums/"
                             f"donate_argnames), so a second call with the same arguments "
                             f"fails; profile a jit of the function without donation.")
        return f
    if not callable(f):
        raise TypeError(f"profile: f must be a function or a jitted function; got "
                        f"{type(f).__name__} {f!r}")
    return jit(f)


def _block(tree) -> None:
    for leaf in tree_leaves(tree):
        wait = getattr(leaf, "block_until_ready", None)
        if wait is not None:
            wait()


# the jits a view made of the user's plain function (%timeit --phases's, notebook/funcview.py):
# their compiles are the tool's, as those of the jit profile makes itself
_tool_jits = weakref.WeakSet()


def tool_jit(jitted: Jitted) -> Jitted:
    """`jitted`, a view's jit of the user's plain function, marked as the tool's: profile's
    warm-up compile of it is not logged (nor noted in the cell) as the user's recompile."""
    _tool_jits.add(jitted)
    return jitted


def _warm_up(jitted, args, kwargs, ours: bool):
    """Call once (compiling if needed); (the first compile event of this call or None, the
    platform its outputs are on). `ours`: profile made the jit (of a plain function), so its
    compile is the tool's, not the user's: unlogged, as the user's jit(f) would otherwise be
    told "compiled again (a new jit object)" by each profile of f."""
    events = []
    unsubscribe = compile_record.subscribe(events.append)
    try:
        with compile_record.unlogged(tap=events) if ours else contextlib.nullcontext():
            out = jitted(*args, **kwargs)
        _block(out)
    finally:
        unsubscribe()
    mine = [e for e in events if e.key is jitted]
    return (mine[0] if mine else None), _platform(out)


def _fresh_compile(jitted, args, kwargs) -> tuple:
    """(trace, lower, compile) seconds of one compilation that no cache answers, as the
    compile pipeline recorded them (`Compiled.phases`)."""
    # the measurement's, not the user's: not logged, and traced afresh (a trace the jit holds
    # is not reused inside unlogged(), nor this one kept for the user's calls)
    with config.override("jax_enable_compilation_cache", False), compile_record.unlogged():
        phases = jitted.trace(*args, **kwargs).lower().compile().phases
    return phases.trace_s, phases.lower_s, phases.compile_s


def _timed_run(jitted, args, kwargs) -> tuple:
    """(dispatch, device) seconds of one call: until it returns, then until it is ready."""
    start = time.perf_counter()
    out = jitted(*args, **kwargs)
    returned = time.perf_counter()
    _block(out)
    return returned - start, time.perf_counter() - returned


def _platform(out) -> str | None:
    """The platform the outputs live on ('cpu', 'numpy', ...); None for no array output."""
    for leaf in tree_leaves(out):
        devices = getattr(leaf, "devices", None)
        if devices is not None:
            return next(iter(devices())).platform
    return None


# on the NumPy backend (JupyterLite's) no XLA compiles and NumPy computes as it is called
# (its "compile" phase makes the program that runs the jaxpr with NumPy: nothing compiles)
NUMPY_COMPILE = ("compile is the numpy backend's preparing of the program that runs the jaxpr "
                 "(no XLA there: nothing compiles).")
NUMPY_RUN_NOTE = ("The numpy backend has no async dispatch: it computes the results before the "
                  "call returns, so dispatch holds the computation and device is only the wait "
                  "on results already there.")


def _compile_phases(jitted, args, kwargs, compiles, first, platform):
    """(trace, lower, compile sample tuples, source, note)."""
    if compiles:
        samples = list(zip(*(_fresh_compile(jitted, args, kwargs) for _ in range(compiles))))
        whose = NUMPY_COMPILE if platform == "numpy" else "compile is XLA's time."
        fresh = "trace(s)" if platform == "numpy" else "compilation(s)"
        return (*samples, "fresh",
                f"trace, lower, compile: {compiles} fresh {fresh} of jit({jitted._name}) "
                f"(.trace, .lower, .compile with the caches off); {whose}")
    if first is not None:
        return ((first.trace_s,), (first.lower_s,), (first.compile_s,), "first call",
                "trace, lower, compile: the first call's compilation only (one sample); "
                "pass compiles=N to time N fresh ones.")
    return ((), (), (), "none",
            f"trace, lower, compile: {jitted._name} was already compiled for these arguments; "
            f"pass compiles=N to time N fresh compilations.")


def _first_note(first) -> str:
    if first is None:
        return "The first call found a compiled program (no compilation); it is not timed."
    numpy = first.backend == "numpy"
    where = (f"from the {first.cache} cache" if first.cache != "compiled" else
             "for the numpy backend, no XLA: nothing compiled" if numpy else "XLA compiled it")
    return (f"The first call {'traced' if numpy else 'compiled'} (trace "
            f"{duration(first.trace_s)} · lower "
            f"{duration(first.lower_s)} · compile {duration(first.compile_s)}, {where}); "
            f"it is a warm-up, not part of the run times.")


RUN_NOTE = ("dispatch: until the call returns; device: from then until every output is ready "
            "(block_until_ready on each leaf). Each run waits before the next.")


def profile(f, *args, runs: int = 7, compiles: int | None = None, **kwargs) -> Profile:
    """Time `f(*args, **kwargs)` phase by phase: trace, lower, compile, dispatch, device.

    `f` is a function (it is jitted) or a jitted one (its static arguments kept). `runs`
    timed calls follow one warm-up call; `compiles` fresh compilations (default: `runs`;
    0: the first call's compile event) time trace, lower and compile. Keyword arguments
    named `runs` or `compiles` are taken by profile itself, never passed to `f`.

        >>> p = profile(jnp.sin, jnp.ones(3), runs=3)
        >>> p.runs, p.compile_source
        (3, 'fresh')
    """
    _check_count("runs", runs, 1)
    compiles = runs if compiles is None else compiles
    _check_count("compiles", compiles, 0)
    jitted = _as_jitted(f)
    first, platform = _warm_up(jitted, args, kwargs, ours=jitted is not f or f in _tool_jits)
    trace, lower, comp, source, compile_note = _compile_phases(jitted, args, kwargs, compiles,
                                                               first, platform)
    dispatch, device = zip(*(_timed_run(jitted, args, kwargs) for _ in range(runs)))
    run_note = RUN_NOTE + (" " + NUMPY_RUN_NOTE if platform == "numpy" else "")
    return Profile(jitted._name, Phase("trace", tuple(trace)), Phase("lower", tuple(lower)),
                   Phase("compile", tuple(comp)), Phase("dispatch", dispatch),
                   Phase("device", device), source, first,
                   (compile_note, _first_note(first), run_note), platform)


__all__ = ["profile", "Profile", "Phase", "duration", "PROFILE_MIME"]
