"""%timeit / %%timeit: IPython's, made honest for asynchronous arrays (it blocks on the
results, keeps a compiling first run out, says so where the timed runs compile too, and with
--phases times trace, lower, compile, dispatch and device apart).
"""
from __future__ import annotations

import ast
import collections
import re
import time

from IPython.core.error import UsageError
from IPython.core.magic import line_cell_magic, magics_class, needs_local_scope, no_var_expand
from IPython.core.magics.execution import TimeitTemplateFiller

from ...core import compile_record, miss_words
from ..notes import compile_notes, gradient_calls
from .. import funcview, timeit
from ..display import show, source_label
from ...views import timing as jx_timing
from ...xla import client
from .base import JxMagicsBase

# The phase timing (views/timing.py) is imported by %timeit --phases, which shows it.


def _dispatch_meaning() -> str:
    """What --dispatch's second time is beside the first, on the backend that ran it."""
    if client.default_backend() == "numpy":     # NumPy computes each result as it is asked
        return ("the time until the statement returns. The numpy backend has no async "
                "dispatch: it computes the results before returning, so this is the time "
                "above too, give or take the noise.")
    return ("the time until the statement returns; with async dispatch the device may still be "
            "working then. The time above waits for the results (block_until_ready).")


def waited_line(timed: str) -> str:
    """The line under a %timeit that waited for Arrays its statement did not wait for
    itself: JAX's own %timeit does not wait, so it counts the work only as far as calls
    queue up behind earlier ones. Measured in JupyterLab under JAX 0.10.2 on the CPU:
    `%timeit f(x)` of a jitted x @ x @ x on f32[1500,1500] took 16.3 µs per loop and
    `%timeit f(x).block_until_ready()` 346 ms; a jitted 100-step scan over f32[1000] 28.7 µs
    (waited for here: 393 µs); but benchmarking.md's `f_jit(x_jax)` on f32[1000,1000] took
    103 ms unblocked, 112 ms blocked (its calls queued behind each other). '' where the
    statement waits itself. Said on the numpy backend too, which computes before returning:
    the same line under JAX would not.

        >>> print(waited_line("f(x)"))     # doctest: +ELLIPSIS
        jxkernel waited for each run's result; JAX's %timeit does not (a jitted call ...
    """
    if "block_until_ready" in timed:
        return ""
    code = timed.strip()
    # jax.block_until_ready, not the method: it takes any pytree (a train step's tuple of
    # loss, model and state has no .block_until_ready(); checked under JAX 0.10.2)
    blocked = f"`%timeit jax.block_until_ready({code})`" if "\n" not in code and "=" not in code \
        else "`jax.block_until_ready(...)` around its result"
    return (f"jxkernel waited for each run's result; JAX's %timeit does not (a jitted call "
            f"returns once its work is queued), so its number counts the work only where "
            f"calls queue up behind earlier ones and can be far below this one: there, write "
            f"{blocked}.")


def _users(event) -> bool:
    """Whether a compile is of the learner's code: theirs by the compile notes' rule, or a
    function defined in the timed statement itself (`%timeit jax.jit(lambda v: v + 1)(x)`:
    its lambda is defined in the code %timeit compiles, `<magic-timeit>`, warm-up and timed)."""
    return compile_notes.kind_of(event) == compile_notes.USER or \
        (event.source or "").startswith("<magic-timeit>")


def calibration_runs(loops: int) -> int:
    """How many times IPython's %timeit ran the statement to choose its loop count (no -n):
    10**i loops for i = 0, 1, ... until a try takes 0.2 s, the last try's count kept
    (IPython/core/magics/execution.py), so 1 + 10 + ... + loops calls.

        >>> calibration_runs(1), calibration_runs(100)
        (1, 111)
    """
    return sum(10 ** i for i in range(len(str(loops)))) if loops >= 1 else 0


def compiled_in_timing(events, result, calibrated: bool = False) -> str:
    """The line under a %timeit whose timed runs compiled (after the warm-up): the time above
    includes compiling, and why (a jit made anew in the statement compiles on every call, in
    JAX 0.10.2 too: three calls of `jax.jit(lambda v: v + 1)(x)` log three compiles, where
    `jax.jit(f)` of one `def f` logs one; tests/data/timeit_compiles_cases.py). '' when
    nothing compiled, or for compiles inlined into another program (no compile of their own).

        >>> compiled_in_timing([], None)
        ''
    """
    compiles = [e for e in events if e.inlined_into is None]
    if not compiles:
        return ""
    runs = result.loops * result.repeat if result is not None else None
    mine = [e for e in compiles if _users(e)]
    named = "; ".join(dict.fromkeys(f"{e.function}: {compile_notes.short_reason(e)}" for e in mine[:3])) or \
        "eager operations, or jxkernel's or libraries' own functions"
    over = f" over {runs:,} timed run(s)" if runs else ""
    if runs and calibrated:
        # without -n, IPython ran the statement to choose the loop count too, and those runs
        # compiled as the timed ones do: 160 compiles "over 7 timed runs" of a statement
        # compiling 20 per run were 8 runs' (JAX 0.10.2's IPython %timeit compiles as many)
        extra = calibration_runs(result.loops)
        over = (f" over {runs + extra:,} run(s) of the statement: {runs:,} timed, {extra:,} "
                f"by %timeit's choice of the loop count")
    # the NumPy backend compiles nothing: its misses trace (miss_words)
    numpy = miss_words.any_numpy(compiles)
    does, doing = ("traces", "tracing") if numpy else ("compiles", "compiling")
    fix = (f"A jit made anew in the statement (jax.jit(lambda ...) or jax.jit(g) of a function "
           f"defined there) {does} on every call: make it once before %timeit and time the "
           f"call of that.")
    # made anew inside a function the statement calls (JAX 101's `%timeit
    # g_inner_jitted_partial(10, 20)`, its jit(partial(...)) made in g's loop): no jit of
    # the statement's to make once before %timeit
    inside = [e.call_site for e in mine if getattr(e.call_site, "file", None) and
              not e.call_site.file.startswith("<magic-timeit>") and
              getattr(e.call_site, "function", "").isidentifier()]
    if mine and len(inside) == len(mine):
        where = list(dict.fromkeys(f"{c.function} (at {source_label(c)})" for c in inside))
        fix = (f"A jit made anew inside {' and '.join(where[:2])} {does} on every call: "
               f"make it once, outside {'those functions' if len(where) > 1 else 'it'}, and "
               f"call that there.")
    return (f"The timed runs {'traced' if numpy else 'compiled'} too "
            f"({miss_words.misses(len(compiles), numpy, 'compile(s)')}{over}: {named}), so the "
            f"time above includes {doing}. {fix}")


@magics_class
class TimingMagics(JxMagicsBase):
    _warm_events = ()       # the compile events of the latest %timeit's warm-up run
    """%timeit and %%timeit (IPython's own, saved in the state, does the timing)."""

    # ================================================================== %timeit
    @no_var_expand
    @needs_local_scope
    @line_cell_magic
    def timeit(self, line="", cell=None, local_ns=None):
        """IPython's %timeit, made honest for asynchronous arrays.

        Every timed run blocks on the Arrays the statement produced (its last value and
        the names it assigns, any pytree), so the time is the device's, not just the
        time to queue the work. If the first run compiles, it is a warm-up and kept out
        of the measurement (and you are told); if the timed runs compile too (a jit made
        anew in the statement), you are told that the time includes compiling. All of IPython's options work (-n -r -t
        -c -p -q -o -v). Also:

          --dispatch   time the dispatch alone too (until the call returns, before the
                       result is ready): the difference is async dispatch at work
          --phases     for one call `f(x)`: trace, lower, compile, dispatch and device time
                       apart, each with its spread over -r runs (jxkernel.timing.profile)
        """
        # the notebook's watches are paused while timing: a call looked at (the NaN note's
        # record, the index checks: core/watches.py) waits for its values and leaves the fast
        # paths, and the time would be the looking's
        with gradient_calls.paused():
            return self._timeit(line, cell, local_ns)

    def _timeit(self, line, cell, local_ns):
        dispatch = bool(re.search(r"(^|\s)--dispatch(\s|$)", line))
        line = re.sub(r"(^|\s)--dispatch(?=\s|$)", " ", line, count=1)
        phases = bool(re.search(r"(^|\s)--phases(\s|$)", line))
        line = re.sub(r"(^|\s)--phases(?=\s|$)", " ", line, count=1)
        opts, stmt = self.parse_options(line, "n:r:tcp:qov:", posix=False, strict=False,
                                        preserve_non_opts=True)
        if phases:
            return self._phases(opts, stmt, cell)
        if not stmt.strip() and cell is None:
            return None
        setup, timed = ("pass", stmt) if cell is None else (stmt or "pass", cell)
        timed = self.shell.transform_cell(timed)
        setup = self.shell.transform_cell(setup)
        try:
            blocked = timeit.blocking_source(timed)
        except SyntaxError:
            blocked = timed         # IPython's timeit reports the syntax error itself
        quiet = "q" in opts
        one_line = cell is None and "\n" not in blocked.strip()
        # the setup IPython's timeit is given below ("pass" its own for a line)
        warm = self._warm_up("pass" if one_line else setup if cell is not None else "",
                             blocked, local_ns)
        if warm and not quiet:
            print(warm)
        option_text = " ".join(f"-{k}" if v == "" else f"-{k} {v}" for k, v in opts.items()
                               if k not in ("o", "v"))
        ipython_timeit = self.state.saved_timeit[0] or self.state.saved_timeit[1]
        waited = timeit.waited
        timed_compiles = []
        unsubscribe = compile_record.subscribe(timed_compiles.append)
        try:
            if one_line:
                result = ipython_timeit(f"{option_text} -o {blocked}", None, local_ns)
            else:
                result = ipython_timeit(f"{option_text} -o {setup if cell is not None else ''}",
                                        blocked, local_ns)
        finally:
            unsubscribe()
        said = compiled_in_timing(timed_compiles, result, calibrated="n" not in opts)
        # the warm-up is jxkernel's run, not IPython's (JAX's %timeit makes none): a compile
        # it made that the timed runs make again on each run is one run's more than JAX logs
        # for the cell (jit-compilation's loops: 160 + 20), so the cell's note leaves it out;
        # its line above tells it, and a compile of the first run alone stays counted
        again = {(e.function, e.source) for e in timed_compiles}
        self.state.compiles.left_out.update(
            e.seq for e in self._warm_events if (e.function, e.source) in again)
        if said and not quiet:
            print(said)
        if result is not None and not quiet and timeit.waited > waited:
            said = waited_line(timed)
            if said:
                print(said)
        if result is not None and dispatch:
            result.dispatch = self._dispatch(setup, timed, result, local_ns)
            if not quiet:
                print(f"dispatch only: {result.dispatch} — {_dispatch_meaning()}")
        if "v" in opts:
            self.shell.user_ns[opts["v"]] = result
        return result if "o" in opts else None

    def _warm_up(self, setup, blocked, local_ns) -> str:
        """Run the statement once (compiling what it compiles); say so if it compiled.

        It runs the very code IPython's %timeit times (its template filled by its own
        TimeitTemplateFiller, compiled as `<magic-timeit>`), run once: a lambda jitted in the
        statement is then the same code in the warm-up and in the timed runs, so each timed
        compile is told as what it is, a new jit object of that code (compiled apart, the
        first timed one read as a "first call": "3 compiles" under the time, "2 recompiles"
        in the cell's note, for one cause)."""
        events = self._warm_events = []
        unsubscribe = compile_record.subscribe(events.append)
        start = time.perf_counter()
        try:
            code = self._timed_code(setup, blocked)
            glob = self.shell.user_ns if not local_ns else {**self.shell.user_ns, **local_ns}
            inner = {}
            exec(code, glob, inner)
            inner["inner"](range(1), time.perf_counter)
        except SyntaxError:
            return ""
        finally:
            unsubscribe()
        if not events:
            return ""
        took = time.perf_counter() - start
        # the user's functions by name (a lambda in the statement too, defined in the warm-up's
        # own code); eager operations, jxkernel's and libraries', counted
        mine = [e for e in events if _users(e)]
        # one entry per function and reason, with its count: a jit made anew 20 times in one
        # run said "f: a new jit object; f: a new jit object and 17 more"
        groups = collections.Counter(f"{e.function}: {compile_notes.short_reason(e)}"
                                     for e in mine)
        shown = list(groups.items())[:3]
        which = "; ".join(k + (f" ×{n}" if n > 1 else "") for k, n in shown) or \
            "eager operations, or jxkernel's or libraries' own functions"
        rest = len(events) - sum(n for _, n in shown) if mine else 0
        more = f" and {rest} more" if rest else ""
        # (on the NumPy backend nothing compiles: the first run traced, miss_words)
        numpy = miss_words.any_numpy(events)
        return (f"{'Traced' if numpy else 'Compiled'} on the first run ({which}{more}; "
                f"{took * 1e3:.1f} ms with the {'trace' if numpy else 'compilation'}). That "
                f"warm-up run is not part of the timing below.")

    def _timed_code(self, setup, blocked):
        """The code object IPython's %timeit compiles for `setup` and `blocked` (its template,
        IPython/core/magics/execution.py), compiled the same way, so equal to it."""
        parse, transform = self.shell.compile.ast_parse, self.shell.transform_ast
        template = ast.parse("def inner(_it, _timer):\n    setup\n    _t0 = _timer()\n"
                             "    for _i in _it:\n        stmt\n    _t1 = _timer()\n"
                             "    return _t1 - _t0\n")
        code = self.shell.transform_cell                     # IPython's timeit's `transform`
        filled = TimeitTemplateFiller(transform(parse(code(setup))),
                                      transform(parse(code(blocked))))
        return self.shell.compile(ast.fix_missing_locations(filled.visit(template)),
                                  "<magic-timeit>", "exec")

    def _dispatch(self, setup, timed, blocked_result, local_ns):
        from IPython.core.magics.execution import TimeitResult
        ns = self.shell.user_ns if not local_ns else {**self.shell.user_ns, **local_ns}
        inner = timeit.dispatch_timer(setup, timed, ns)
        number, repeat = blocked_result.loops, blocked_result.repeat
        runs = timeit.measure(inner, number, repeat)
        return TimeitResult(number, repeat, min(runs) / number, max(runs) / number, runs, 0.0,
                            blocked_result._precision)

    # ================================================================== %timeit --phases
    def _phases(self, opts, stmt, cell):
        """jxkernel.timing.profile of the call `stmt`: a table (and in a Jupyter kernel, a
        plotly chart); -r runs, -q quiet, -o returns the Profile, -v NAME stores it."""
        if cell is not None:
            raise UsageError("--phases times one call written on the magic's line: "
                             "%timeit --phases f(x)")
        if "n" in opts:
            raise UsageError(f"--phases times one call per run; use -r RUNS, not -n {opts['n']}")
        runs = str(opts.get("r", "7"))
        if not runs.isdigit() or int(runs) < 1:
            raise UsageError(f"%timeit --phases: -r is the number of timed runs, a whole number "
                             f"of at least 1; got -r {runs!r}")
        call = self._call(stmt.strip()) if stmt.strip() else None
        if call is None:
            raise UsageError(f"%timeit --phases takes a call such as f(x, 3); got {stmt.strip()!r}")
        fun, args, kwargs, _, _ = call
        jitted, args, kwargs = funcview.as_jitted(fun, args, kwargs)
        result = jx_timing.profile(jitted, *args, runs=int(runs), **kwargs)
        if "q" not in opts:
            show(result)
            chart = timeit.phase_chart(result) if getattr(self.shell, "kernel", None) else None
            if chart is not None:
                show(chart)
        if "v" in opts:
            self.shell.user_ns[opts["v"]] = result
        return result if "o" in opts else None
