"""The magics: %%jit, %jaxpr/%%jaxpr, %hlo, %timeit/%%timeit, %jxbackend, %jxcompiles,
%jxnotes, %jxtraced, %jxguard, %jxreport, %explain.

Each is documented by its docstring and `magic_arguments` (so `%%jit?` is its help).
"""
from __future__ import annotations

import ast
import re
import time
import weakref

from IPython.core import magic_arguments as ma
from IPython.core.error import UsageError
from IPython.core.magic import (Magics, cell_magic, line_cell_magic, line_magic, magics_class,
                                needs_local_scope, no_var_expand)

from ..core import compile_record
from ..views.recompile_explainer import explanation_text
from ..views.jaxpr_diff import jaxpr_diff, split_expressions
from ..tree_util import tree_leaves
from ..core.config import config
from ..xla import client
from ..xla.array import Array
from . import cell as cellmod
from . import cell_origins, compile_notes, funcview, timeit
from .display import Note, cell_name, show
from .tracebacks import show_card
from .guard import set_guard
from .program import CellError, CellProgram, describe_output, error_view_data

# The widgets (anywidget), the explainer, the phase timing and the session report are imported
# by the magic that shows them: %load_ext and a plain %%jit cell need none of them.

_SHOW = ("jaxpr", "stablehlo", "hlo", "static", "all")


def _names(values) -> list:
    """['a,b', 'c'] -> ['a', 'b', 'c'] (options may repeat or take comma lists)."""
    return [n for v in values or () for n in re.split(r"[,\s]+", v) if n]


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms"


def device_name(device) -> str:
    """'cpu:1': how the selector, %jxbackend and jax_default_device spell a device."""
    return f"{client.platform_of(device)}:{device.id}"


def compile_note(event, label: str, count: int, where: str | None = None) -> Note:
    cached = f" ({event.cache} cache)" if event.cache != "compiled" else ""
    timings = (f"trace {_ms(event.trace_s)} · lower {_ms(event.lower_s)} · compile "
               f"{_ms(event.compile_s)}{cached}")
    if event.reason == "first call":
        return Note(f"⚙ compiled {label} for {where or event.backend}: {timings}", kind="compile")
    return Note(f"⚙ recompiled {label} because {event.reason} (compilation #{count}): {timings}",
                body=explanation_text(event.changes), kind="compile")


@magics_class
class JxMagics(Magics):
    """jxkernel's magics; `state` is the extension's per-shell state."""

    def __init__(self, shell, state):
        super().__init__(shell)
        self.state = state
        self.programs: dict = {}          # (source, options, inputs) -> CellProgram
        self.cells: dict = {}             # cell id (or source) -> (label, last program key)
        self.jit_lines: dict = {}         # %%jit line -> (parsed arguments, --show set)
        self.sources: dict = {}           # (cell, header, transformers) -> (source, visible, info)

    # ================================================================== %%jit
    @ma.magic_arguments()
    @ma.argument("--static", "-s", action="append", metavar="NAMES",
                 help="inputs to treat as static (compile-time Python values), comma-separated "
                      "or repeated; each new value recompiles")
    @ma.argument("--donate", "-d", action="append", metavar="NAMES",
                 help="traced inputs whose buffers the computation may reuse (they are "
                      "deleted afterwards)")
    @ma.argument("--backend", "-b", choices=["cpu", "gpu", "cuda", "tpu"],
                 help="compile and run on this backend (default: the selected one, see "
                      "%%jxbackend)")
    @ma.argument("--quiet", "-q", action="store_true",
                 help="don't report compilations or what print() did")
    @ma.argument("--show", action="append", metavar="WHAT",
                 help="also show: jaxpr, stablehlo, hlo (XLA's optimized HLO), static "
                      "(traced vs static view), all; comma-separated")
    @no_var_expand
    @cell_magic
    def jit(self, line, cell):
        """Run the cell as one jitted function.

        Inputs are the names the cell reads before assigning them (from the notebook's
        namespace); outputs are the names it assigns (written back); the last expression
        is displayed. Arrays and Python numbers are traced (abstract: shape and dtype
        only); other values (functions, strings, ...) are static and must be hashable.
        The compiled cell is cached: a rerun with the same input types reuses it, a new
        shape, dtype or static value recompiles and says why. print() runs only while
        tracing.

        Example::

            %%jit --static n
            y = x * n
            y.sum()
        """
        args, show_what = self._jit_options(line)
        program = self._program(cell, _names(args.static), _names(args.donate), args.backend,
                                args.quiet, header=f"%%jit {line}".rstrip())
        ns = self.shell.user_ns
        arguments = program.arguments(ns)
        try:
            outputs = program.run(ns)
        except CellError as err:
            view = self._cell_view(program, ns, error=error_view_data(err))
            show(view)
            show_card(err)           # the error card, if the error has one (error_cards.py)
            raise err from None      # IPython renders it with CellError._render_traceback_
        last = outputs.pop(cellmod.LAST, None)
        ns.update(outputs)
        if not args.quiet:
            self._report(program, outputs, last)
        if "static" in show_what:
            show(self._cell_view(program, ns, outputs=outputs))
        if show_what & {"jaxpr", "stablehlo", "hlo"}:      # avals only: donated inputs are fine
            self._show_compiled(program.trace(arguments), show_what, program.label)
        return last

    def _jit_options(self, line):
        """(arguments, --show set) of a %%jit line, parsed once per distinct line: a rerun
        of a cell pays a dict lookup, not argparse."""
        parsed = self.jit_lines.get(line)
        if parsed is None:
            args = ma.parse_argstring(self.jit, line)
            show_what = set(_names(args.show))
            unknown = show_what - set(_SHOW)
            if unknown:
                raise UsageError(f"--show takes {', '.join(_SHOW)}; "
                                 f"got {', '.join(sorted(unknown))}")
            if "all" in show_what:
                show_what = {"jaxpr", "stablehlo", "hlo", "static"}
            parsed = self.jit_lines[line] = (args, frozenset(show_what))
        return parsed

    def _analyzed(self, cell, header):
        """(source, visible, CellInfo) of a cell, kept per cell text and IPython's input
        transformers: a rerun skips tokenizing and parsing it again."""
        key = (cell, header, _transformers_key(self.shell))
        found = self.sources.get(key)
        if found is not None:
            return found
        source = self.shell.transform_cell(cell)
        visible = source if header is None else f"{header}\n{source}"
        if header is not None:
            source = "\n" + source
        try:
            info = cellmod.analyze(source)
        except SyntaxError as e:
            who = (header or "%jaxpr").split()[0]
            raise UsageError(f"{who}: the cell is not valid Python: {e}") from None
        found = self.sources[key] = (source, visible, info)
        return found

    def _program(self, cell, static, donate, backend, quiet, header=None) -> CellProgram:
        """The compiled form of a cell (cached). With a `header` (the `%%magic` line), line
        numbers count it, as the notebook shows them: the body starts at line 2."""
        shell = self.shell
        source, visible, info = self._analyzed(cell, header)
        who = (header or "%jaxpr").split()[0]
        ns = shell.user_ns
        for name in static + donate:
            if name not in info.reads:
                raise UsageError(f"{who}: {name!r} is not an input of this cell (inputs: "
                                 f"{', '.join(n for n in info.reads if n in ns) or 'none'})")
        if set(static) & set(donate):
            raise UsageError(f"{who}: an input cannot be both --static and --donate")
        kinds = {}
        for name in info.reads:
            if name in ns:
                kinds[name] = cellmod.classify(ns[name], name in static)
        params = [n for n in kinds if kinds[n] != cellmod.GLOBAL]
        for name in params:
            if kinds[name] == cellmod.STATIC:
                try:
                    hash(ns[name])
                except TypeError:
                    raise UsageError(
                        f"{who}: input {name!r} ({type(ns[name]).__name__}) is static (not an "
                        f"array or number) but unhashable, so it can't be part of the compile "
                        f"cache key. Pass a hashable value (e.g. a tuple instead of a list), or "
                        f"arrays/numbers only.") from None
        # a chosen device (the selector, jax_default_device) pins the cell there; else it runs
        # where jit would run it (its inputs' device), as a plain jit call does
        device = client.default_device() if backend is None and \
            config.jax_default_device is not None else None
        key = (source, tuple(sorted(static)), tuple(sorted(donate)), backend,
               device and device_name(device), tuple((n, kinds[n]) for n in params))
        cell_key = self.state.cell_id or source
        label, last_key = self.cells.get(cell_key, (None, None))
        if label is None:
            label = f"cell[{self.state.prompt_number()}]"
        program = self.programs.get(key)
        if program is None:
            filename = shell.compile.cache(visible, self.state.prompt_number())   # tracebacks
            try:
                program = CellProgram(info, label=label, filename=filename, user_ns=ns,
                                      params=params, kinds=kinds, donate=donate,
                                      backend=backend, device=device)
            except RuntimeError as e:            # e.g. a backend that is not installed
                raise UsageError(f"{who}: {e}") from None
            self.programs[key] = program
            if last_key is not None and not quiet:
                show(Note(f"⚙ {label}: {_why_new(last_key, key)}: compiling it anew",
                          kind="compile"))
        program.visible = visible               # as shown now (--show/--quiet may differ)
        self.cells[cell_key] = (label, key)
        return program

    def _report(self, program, outputs, last):
        if program.events:                   # a cache hit has none: skip the log's scan
            self._report_compiles(program, outputs, last)
        if program.printed:
            show(Note(f"print() ran while tracing {program.label}: it runs once per compilation "
                      f"and shows tracers (shapes and dtypes), not values; a cached rerun prints "
                      f"nothing", body=program.printed.rstrip("\n"), kind="print"))
        elif program.info.prints and not program.traced_now:
            show(Note(f"print() did not run: {program.label} was not traced again (cache hit); "
                      f"print runs only while tracing", kind="info"))

    @staticmethod
    def _report_compiles(program, outputs, last):
        count = sum(1 for e in compile_record.compile_events() if e.key is program.jitted)
        ran_on = next((leaf.device for leaf in tree_leaves([outputs, last])
                       if isinstance(leaf, Array)), None)
        for event in program.events:
            show(compile_note(event, program.label, count,
                              ran_on is not None and device_name(ran_on) or None))

    def _cell_view(self, program, ns, outputs=None, error=None):
        from .widgets.cell_view import CellView  # anywidget: loads on first use
        outputs = outputs or {}
        outs = [{"name": n, "detail": describe_output(outputs[n]) if n in outputs else ""}
                for n in program.info.outputs]
        inputs = program.describe_inputs(ns) + [
            {"name": n, "kind": cellmod.GLOBAL, "detail": "module"}
            for n, k in program.kinds.items() if k == cellmod.GLOBAL]
        return CellView(program.visible, program.label, inputs=inputs, outputs=outs,
                        error=error, positions=program.info.positions)

    def _show_compiled(self, traced, what, title):
        from .widgets.hlo_view import HloView  # anywidget: loads on first use
        from .widgets.jaxpr_viewer import JaxprViewer
        lowered = traced.lower()
        if "jaxpr" in what:
            show(JaxprViewer(traced.jaxpr, title=f"jaxpr of {title}", stablehlo=lowered.as_text))
        if what & {"stablehlo", "hlo"}:
            show(HloView(title, lowered, optimized="hlo" in what,
                         stablehlo="stablehlo" in what))

    # ================================================================== %jaxpr, %hlo
    @no_var_expand
    @line_cell_magic
    def jaxpr(self, line, cell=None):
        """Show the jaxpr of a call, an expression or a cell (traced, not run).

        %jaxpr f(x, 2.0)        the jaxpr of f at these arguments (like make_jaxpr(f)(x, 2.0));
                                non-array arguments are static (a jitted f keeps its own
                                static_argnums); if tracing fails, f's source is shown with
                                the failing line marked (see %jxtraced)
        %jaxpr grad(f)(x)       any transformation
        %jaxpr x * 2 + y        an expression over the namespace's values
        %%jaxpr                 a whole cell, as %%jit would trace it
        %jaxpr --diff f(x) grad(f)(x)
                                two programs aligned, equations added, removed and changed
                                marked (jaxpr_diff.py); a comma may separate them
        """
        from .widgets.jaxpr_viewer import JaxprViewer  # anywidget: loads on first use
        if re.match(r"--diff(\s|$)", line.strip()):
            return self._jaxpr_diff(line.strip()[len("--diff"):], cell)
        text = cell if cell is not None else line.strip()
        if not text.strip():
            raise UsageError("%jaxpr EXPR: e.g. %jaxpr f(x, 2.0) or %jaxpr grad(f)(x)")
        traced, title = self._trace(text, is_cell=cell is not None, show_failure=True)
        return JaxprViewer(traced.jaxpr, title=f"jaxpr of {title}",
                           stablehlo=lambda: traced.lower().as_text())

    def _jaxpr_diff(self, text, cell):
        """%jaxpr --diff EXPR1 EXPR2: both traced as %jaxpr traces one, then aligned."""
        if cell is not None:
            raise UsageError("--diff compares two expressions on the line: %jaxpr --diff f(x) "
                             "grad(f)(x) (not a %%jaxpr cell)")
        try:
            first, second = split_expressions(text)
        except ValueError as e:
            raise UsageError(f"%jaxpr --diff: {e}") from None
        left, _ = self._trace(first, is_cell=False, show_failure=True)
        right, _ = self._trace(second, is_cell=False, show_failure=True)
        return jaxpr_diff(left.jaxpr, right.jaxpr, first, second)

    @no_var_expand
    @line_magic
    def hlo(self, line):
        """The StableHLO we emit, the optimized HLO XLA compiled, and XLA's cost analysis.

        %hlo f(x, 2.0)          non-array arguments are static
        %hlo x @ w + b          an expression over the namespace's values
        """
        from .widgets.hlo_view import HloView  # anywidget: loads on first use
        if not line.strip():
            raise UsageError("%hlo EXPR: e.g. %hlo f(x, 2.0)")
        traced, title = self._trace(line.strip(), is_cell=False)
        return HloView(title, traced.lower())

    def _trace(self, text, is_cell, show_failure=False):
        """(jit(...).trace(...) of `text`, a title): a call `f(args)` traces f as jit(f)
        would (a plain f: non-array arguments static), anything else is traced as a %%jit
        cell would be. With `show_failure`, a call that fails to trace shows f's source
        with the failing line marked (the traced-vs-static view) before the error."""
        call = None if is_cell else self._call(text)
        if call is None:
            program = self._program(text, [], [], None, True,
                                    header="%%jaxpr" if is_cell else None)
            try:
                traced = program.trace(program.arguments(self.shell.user_ns))
            except CellError as err:
                show_card(err)
                raise
            return traced, (program.label if is_cell else text)
        fun, args, kwargs, filename, label = call
        try:
            return self._trace_call(fun, args, kwargs, filename, label), text
        except CellError as err:
            view = funcview.function_view(fun, args, kwargs, error=err) if show_failure else None
            if view is not None:
                show(view)
            show_card(err)
            raise

    @staticmethod
    def _trace_call(fun, args, kwargs, filename, label):
        jitted, dyn_args, dyn_kwargs = funcview.as_jitted(fun, args, kwargs)
        try:
            return jitted.trace(*dyn_args, **dyn_kwargs)
        except Exception as e:  # noqa: BLE001  told at the cell line, like %%jit errors
            bound = funcview.bound_arguments(fun, args, kwargs) or {}
            raise CellError.from_exception(e, label=label, filename=filename, params=list(bound),
                                           user_ns=bound,
                                           static_fix=funcview.static_fix_for(fun)) from None

    @no_var_expand
    @line_magic
    def jxtraced(self, line):
        """Traced vs static for a function call: f's source, each argument marked.

        %jxtraced f(x, 3)       as jit(f) sees this call: traced arguments (abstract: shape
                                and dtype only) with their types, static ones with their
                                values (each new value compiles anew). A jitted f keeps its
                                static_argnums/static_argnames; for a plain f, arguments that
                                are not arrays or numbers are static, as in %jaxpr. When
                                tracing fails, the line is marked with what to do.

        For a %%jit cell: %%jit --show static.
        """
        text = line.strip()
        call = self._call(text) if text else None
        if call is None:
            raise UsageError("%jxtraced takes a call: %jxtraced f(x, 3)")
        fun, args, kwargs, filename, label = call
        try:
            traced, error = self._trace_call(fun, args, kwargs, filename, label), None
        except CellError as err:
            traced, error = None, err
        view = funcview.function_view(fun, args, kwargs, traced=traced, error=error)
        if view is None:
            raise UsageError(f"%jxtraced: the source of {getattr(fun, '__name__', fun)!r} "
                             f"can't be found (a builtin, or defined in a string)")
        return view

    def _call(self, expr):
        """(function, args, kwargs, filename, label) when `expr` is `f(...)`, else None."""
        try:
            tree = ast.parse(expr, mode="eval").body
        except SyntaxError as e:
            raise UsageError(f"not a Python expression: {e}") from None
        if not isinstance(tree, ast.Call) or \
                any(isinstance(a, ast.Starred) for a in tree.args) or \
                any(k.arg is None for k in tree.keywords):
            return None
        ns, count = self.shell.user_ns, self.state.prompt_number()
        filename = self.shell.compile.cache(expr, count)     # so its lines read In[n]

        def ev(node):
            return eval(compile(ast.Expression(node), filename, "eval"), ns)
        try:
            return (ev(tree.func), [ev(a) for a in tree.args],
                    {k.arg: ev(k.value) for k in tree.keywords}, filename, f"In[{count}]")
        except Exception as e:  # noqa: BLE001
            raise CellError.from_exception(e, label=f"In[{count}]", filename=filename) from None

    # ================================================================== %explain
    @no_var_expand
    @line_magic
    def explain(self, line):
        """f's source, its jaxpr, our StableHLO and XLA's optimized HLO, linked by line.

        %explain f(x, w)        traced as jit(f) would (a plain f: non-array arguments
                                static), lowered with source locations and compiled; per
                                source line: its equations, ops and HLO instructions, with
                                flops and bytes estimated per HLO instruction (explainer.py)
        In a script: jxkernel.explain(f, x, w).
        """
        from ..views.explainer import build_explanation  # heavy: loads on first %explain
        text = line.strip()
        call = self._call(text) if text else None
        if call is None:
            raise UsageError(f"%explain takes a call of the function to explain, e.g. "
                             f"%explain f(x, w); got {text!r}")
        fun, args, kwargs, filename, label = call
        if not callable(fun):
            name = ast.unparse(ast.parse(text, mode="eval").body.func)
            raise UsageError(f"%explain {text}: {name} is not a function (it is a "
                             f"{type(fun).__name__}); call the function to explain")
        try:
            return build_explanation(fun, args, kwargs, title=text, label_of=cell_name)
        except Exception as e:  # noqa: BLE001  told at the cell line, like %jaxpr errors
            bound = funcview.bound_arguments(fun, args, kwargs) or {}
            err = CellError.from_exception(e, label=label, filename=filename, params=list(bound),
                                           user_ns=bound, static_fix=funcview.static_fix_for(fun))
        show_card(err)
        raise err

    # ================================================================== %timeit
    @no_var_expand
    @needs_local_scope
    @line_cell_magic
    def timeit(self, line="", cell=None, local_ns=None):
        """IPython's %timeit, made honest for asynchronous arrays.

        Every timed run blocks on the Arrays the statement produced (its last value and
        the names it assigns, any pytree), so the time is the device's, not just the
        time to queue the work. If the first run compiles, it is a warm-up and kept out
        of the measurement (and you are told). All of IPython's options work (-n -r -t
        -c -p -q -o -v). Also:

          --dispatch   time the dispatch alone too (until the call returns, before the
                       result is ready): the difference is async dispatch at work
          --phases     for one call `f(x)`: trace, lower, compile, dispatch and device time
                       apart, each with its spread over -r runs (jxkernel.timing.profile)
        """
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
        warm = self._warm_up(setup, blocked, local_ns)
        if warm and not quiet:
            print(warm)
        option_text = " ".join(f"-{k}" if v == "" else f"-{k} {v}" for k, v in opts.items()
                               if k not in ("o", "v"))
        ipython_timeit = self.state.saved_timeit[0] or self.state.saved_timeit[1]
        if cell is None and "\n" not in blocked.strip():
            result = ipython_timeit(f"{option_text} -o {blocked}", None, local_ns)
        else:
            result = ipython_timeit(f"{option_text} -o {setup if cell is not None else ''}",
                                    blocked, local_ns)
        if result is not None and dispatch:
            result.dispatch = self._dispatch(setup, timed, result, local_ns)
            if not quiet:
                print(f"dispatch only: {result.dispatch} — the time until the statement "
                      f"returns; with async dispatch the device may still be working then. "
                      f"The time above waits for the results (block_until_ready).")
        if "v" in opts:
            self.shell.user_ns[opts["v"]] = result
        return result if "o" in opts else None

    def _warm_up(self, setup, blocked, local_ns) -> str:
        """Run the statement once (compiling what it compiles); say so if it compiled."""
        events = []
        unsubscribe = compile_record.subscribe(events.append)
        start = time.perf_counter()
        try:
            code = compile(f"{setup}\n{blocked}", "<jx-timeit-warmup>", "exec")
            exec(code, self.shell.user_ns, dict(local_ns or {}))
        except SyntaxError:
            return ""
        finally:
            unsubscribe()
        if not events:
            return ""
        took = time.perf_counter() - start
        # the user's functions by name; eager operations and jxkernel's own, counted
        mine = [e for e in events if e.origin == compile_notes.USER]
        which = "; ".join(f"{e.function}: {e.reason}" for e in mine[:3]) or \
            "eager operations or jxkernel's own functions"
        rest = len(events) - min(len(mine), 3) if mine else 0
        more = f" and {rest} more" if rest else ""
        return (f"Compiled on the first run ({which}{more}; {took * 1e3:.1f} ms with the "
                f"compilation). That warm-up run is not part of the timing below.")

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
        from ..views import timing as jx_timing  # loads on first --phases
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

    # ================================================================== backends and log
    @line_magic
    def jxbackend(self, line):
        """%jxbackend            the backend selector
        %jxbackend NAME       switch: cpu, gpu (cuda) or tpu, optionally a device: cpu:1"""
        from .widgets.backend import BackendSelector  # anywidget: loads on first use
        name = line.strip()
        if not name:
            selector = BackendSelector(on_select=self.state.select_device,
                                       current=client.default_device())
            self.state.selectors.add(selector)
            return selector
        try:
            device = self.state.switch_backend(name)
        except ValueError as e:
            raise UsageError(str(e)) from None
        also = f" ({device})" if str(device) != device_name(device) else ""
        return Note(f"jit calls, %%jit cells and eager operations run on "
                    f"{device_name(device)}{also} now")

    @ma.magic_arguments()
    @ma.argument("function", nargs="?", default=None, help="show only this function or cell")
    @ma.argument("--clear", action="store_true", help="forget the events so far")
    @ma.argument("--timeline", action="store_true",
                 help="also plot them over time now (else the log's timeline button does)")
    @line_magic
    def jxcompiles(self, line):
        """The recompilation log: every compilation, why, and how long it took (live)."""
        from .widgets.recompiles import RecompileLog  # anywidget: loads on first use
        args = ma.parse_argstring(self.jxcompiles, line)
        if args.clear:
            compile_record.clear()
            for log in list(self.state.logs):
                log.refresh()
            return None
        log = RecompileLog(function=args.function, timeline=args.timeline)
        self.state.logs.add(log)
        return log

    @ma.magic_arguments()
    @ma.argument("mode", nargs="?", default=None, choices=compile_notes.MODES,
                 help="recompiles (default): a note under a cell that compiled one of your "
                      "functions again, with what changed and the fix; all: first compiles "
                      "too, and the eager operations and jxkernel functions a cell compiled; "
                      "off: no notes")
    @line_magic
    def jxnotes(self, line):
        """The compile notes under cells: %jxnotes all|recompiles|off (without an argument:
        the current choice). Also config.update("jxkernel_compile_notes", ...), or the
        environment variable JXKERNEL_COMPILE_NOTES. A %%jit cell notes its own compiles."""
        args = ma.parse_argstring(self.jxnotes, line)
        if args.mode is not None:
            config.update("jxkernel_compile_notes", args.mode)
        return Note(f"compile notes: {config.jxkernel_compile_notes} (%jxnotes "
                    f"{'|'.join(compile_notes.MODES)})")

    # ================================================================== %jxmemory
    @ma.magic_arguments()
    @ma.argument("--backend", "-b", default=None, metavar="NAME",
                 help="whose arrays: cpu, gpu or tpu (default: the default backend)")
    @line_magic
    def jxmemory(self, line):
        """Live device arrays (jxkernel.live_arrays()) grouped by the cell that created them,
        shape and dtype, with the bytes on each device."""
        args = ma.parse_argstring(self.jxmemory, line)
        if args.backend is not None:
            try:
                client.get_backend(args.backend)
            except (RuntimeError, ValueError) as e:
                raise UsageError(f"%jxmemory --backend {args.backend!r}: {e}") from None
        return cell_origins.cell_memory_report(self.state.origins, args.backend)

    # ================================================================== %jxguard, %jxreport
    @ma.magic_arguments()
    @ma.argument("action", nargs="?", default="status", choices=["on", "off", "status"],
                 help="on: a recompile raises RecompileError instead; off; status (default)")
    @ma.argument("function", nargs="?", default=None,
                 help="a jitted function in the namespace, a %%%%jit cell's label (cell[3]) "
                      "or a function_key; without it: every jitted function")
    @line_magic
    def jxguard(self, line):
        """The no-recompile guard: once a function has compiled, a call that would compile
        it again raises RecompileError at the calling line (what changed, and the fix).
        `with jxkernel.notebook.no_recompile(f):` does it for a block."""
        args = ma.parse_argstring(self.jxguard, line)
        try:
            return set_guard(args.action, args.function, self.shell.user_ns)
        except (ValueError, KeyError, TypeError) as e:
            raise UsageError(f"%jxguard: {e.args[0] if e.args else e}") from None

    @ma.magic_arguments()
    @ma.argument("--format", "-f", choices=["html", "json"], default=None,
                 help="the file's format (default: from its suffix, .json or else html)")
    @ma.argument("file", nargs="?", default=None,
                 help="write the report there; without it, show it")
    @line_magic
    def jxreport(self, line):
        """The session's compilations with what changed and the fix, cache hits and misses
        per function, and timings: shown, or written to FILE as HTML (self-contained,
        readable without JavaScript) or JSON. In a script: jxkernel.compile_report.report()."""
        from ..views.compile_report import ReportView  # loads on first %jxreport
        from .report import format_for, report
        args = ma.parse_argstring(self.jxreport, line)
        if args.file is None:
            return ReportView()
        try:
            report(format_for(args.file, args.format), args.file)
        except OSError as e:
            raise UsageError(f"%jxreport: cannot write {args.file!r}: {e}") from None
        count = len(compile_record.compile_events())
        return Note(f"wrote the report of {count} compilation(s) to {args.file}")


def _transformers_key(shell) -> tuple:
    """Identities of IPython's input transformers: a cell's transformed source holds while
    they are the same."""
    manager = shell.input_transformer_manager
    return tuple(map(id, (*manager.cleanup_transforms, *manager.line_transforms,
                          *manager.token_transformers, *shell.input_transformers_post)))


def _why_new(old, new) -> str:
    """Why a cell needs a new compiled function: its source, options or inputs changed."""
    if old[0] != new[0]:
        return "the cell's source changed"
    if old[1:4] != new[1:4]:
        return "its %%jit options changed"
    if old[4] != new[4]:
        return f"the device changed ({old[4] or 'default'} -> {new[4] or 'default'})"
    before, after = dict(old[5]), dict(new[5])
    changes = [f"{n}: {before.get(n, 'absent')} -> {after.get(n, 'absent')}"
               for n in sorted(set(before) | set(after)) if before.get(n) != after.get(n)]
    return "its inputs changed (" + ", ".join(changes) + ")"


_DEVICE_OPTIONS = ("jax_default_device", "jax_platform_name")


class State:
    """Per-shell state of the extension: what to undo, live logs and selectors."""

    def __init__(self, shell):
        self.shell = shell
        self.magics = None
        self.formatters: list = []
        self.saved_timeit = (None, None)      # IPython's (line, cell) %timeit, restored on unload
        self.saved_config = None              # the device options before the first selection
        self.cell_id = None
        self.cell_count = None                # the running cell's number, as its prompt shows it
        self.logs: weakref.WeakSet = weakref.WeakSet()
        self.selectors: weakref.WeakSet = weakref.WeakSet()
        self.channel = None                   # the JupyterLab extension's comm (comm.Channel)
        self.origins = cell_origins.CellOrigins()   # the cell that made each live array (%jxmemory)
        self.compiles = compile_notes.CellWatch()    # what the running cell compiled (its note)

    def switch_backend(self, name: str):
        """Select the device `name` names, as `%jxbackend NAME` and the JupyterLab extension
        do; returns it. A backend that does not start here, or a device index out of range,
        raises ValueError saying so.

            >>> state.switch_backend("cpu:0")
            CpuDevice(id=0)
        """
        platform, _, index = name.strip().partition(":")
        try:
            devices = client.devices(platform)
        except (RuntimeError, ValueError) as e:
            raise ValueError(str(e)) from None
        if index and not (index.isdigit() and int(index) < len(devices)):
            raise ValueError(f"{platform} has devices 0..{len(devices) - 1}; got {index!r}")
        device = devices[int(index)] if index else devices[0]
        self.select_device(device)
        return device

    def select_device(self, device):
        """Later jit calls, %%jit cells and eager operations compile and run on `device`
        (JAX's jax_default_device: inputs are moved there); jax_platform_name follows, so
        jax.devices() and jax.default_backend() name its backend. Every selector shows it."""
        if self.saved_config is None:
            self.saved_config = {name: config.read(name) for name in _DEVICE_OPTIONS}
        config.update("jax_platform_name", client.platform_of(device))
        config.update("jax_default_device", device)
        for selector in list(self.selectors):
            selector.show(device)
        if self.channel is not None:
            self.channel.push_state()

    def restore_config(self):
        """Unloading gives the device options back as they were."""
        for name, value in (self.saved_config or {}).items():
            config.update(name, value)
        self.saved_config = None

    def prompt_number(self) -> int:
        """The number the running cell's prompt shows (In [7]), for its names (cell[7]).
        IPython counts the cell before running it, so during the cell `execution_count` is
        already the next one; outside a cell it is the next prompt's number.

            >>> state.prompt_number()      # in the cell shown as In [7]
            7
        """
        return self.cell_count if self.cell_count is not None else self.shell.execution_count

    # IPython events
    def pre_run_cell(self, info=None):
        self.cell_id = getattr(info, "cell_id", None)
        # run_cell has counted a cell that stores history already (not one that does not)
        count = self.shell.execution_count
        self.cell_count = count - 1 if getattr(info, "store_history", False) else count
        self.origins.cell_started()
        self.compiles.cell_started()
        if self.channel is not None:
            self.channel.before_cell()

    def post_run_cell(self, result=None):
        self.cell_id = None          # a magic run outside a cell must not reuse the last id
        self.cell_count = None
        self.origins.cell_finished(cell_origins.result_label(result))
        # %%jit cells told their own compiles (JxMagics._report)
        note = self.compiles.cell_finished(
            [p.jitted for p in self.magics.programs.values()] if self.magics else ())
        if note is not None:
            show(note)
        for log in list(self.logs):
            log.refresh()
        if self.channel is not None:
            self.channel.after_cell(result)
