"""The compiling magics: %%jit (a cell as one jitted function), %jaxpr / %%jaxpr (with
--diff), %hlo and %jxtraced (traced vs static).

Each is documented by its docstring and `magic_arguments` (so `%%jit?` is its help).
"""
from __future__ import annotations

import re

from IPython.core import magic_arguments as ma
from IPython.core.error import UsageError
from IPython.core.magic import cell_magic, line_cell_magic, line_magic, magics_class, no_var_expand

from ...core import compile_record, miss_words
from ...core.config import config
from ...tree_util import tree_leaves
from ...views.jaxpr_diff import jaxpr_diff, split_expressions
from ...views.recompile_explainer import explanation_text
from ...xla import client
from ...xla.array import Array
from .. import cell as cellmod
from .. import funcview
from ..notes import print_notes
from ..display import Note, show
from ..program import CellError, CellProgram, describe_output, error_view_data
from ..tracebacks import show_card
from ..widgets.cell_view import CellView
from ..widgets.hlo_view import HloView
from ..widgets.jaxpr_viewer import JaxprViewer
from .base import JxMagicsBase, magic_line

# The widgets (anywidget) are imported by the magic that shows them: %load_ext and a plain
# %%jit cell need none of them.

_SHOW = ("jaxpr", "stablehlo", "hlo", "static", "all")


def _names(values) -> list:
    """['a,b', 'c'] -> ['a', 'b', 'c'] (options may repeat or take comma lists)."""
    return [n for v in values or () for n in re.split(r"[,\s]+", v) if n]


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms"


def compile_note(event, label: str, count: int, where: str | None = None) -> Note:
    """A %%jit cell's note of its own compile; on the NumPy backend, which compiles nothing,
    of its trace (miss_words): "⚙ traced cell[3] again because ... (cache miss #2)"."""
    numpy = not miss_words.compiles(event.backend)
    cached = f" ({event.cache} cache)" if event.cache != "compiled" else ""
    timings = (f"trace {_ms(event.trace_s)} · lower {_ms(event.lower_s)} · "
               f"{miss_words.last_phase(event.backend)} {_ms(event.compile_s)}{cached}")
    if event.reason == "first call":
        return Note(f"⚙ {miss_words.did(event.backend)} {label} for {where or event.backend}: "
                    f"{timings}", kind="compile")
    again = f"traced {label} again" if numpy else f"recompiled {label}"
    nth = f"cache miss #{count}" if numpy else f"compilation #{count}"
    return Note(f"⚙ {again} because {event.reason} ({nth}): {timings}",
                body=explanation_text(event.said_changes), kind="compile")


@magics_class
class JitMagics(JxMagicsBase):
    """%%jit, %jaxpr, %hlo, %jxtraced; keeps each cell's compiled program."""

    def __init__(self, shell, state):
        super().__init__(shell, state)
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
            show_card(err)           # the error card, if the error has one (views/error_cards/)
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

    def _analyzed(self, cell, header, line=1):
        """(source, visible, CellInfo) of a cell, kept per cell text and IPython's input
        transformers: a rerun skips tokenizing and parsing it again. `line`: the cell's line
        a line magic's expression stands on (its lines are named by the cell's)."""
        key = (cell, header, line, _transformers_key(self.shell))
        found = self.sources.get(key)
        if found is not None:
            return found
        source = self.shell.transform_cell(cell)
        visible = source if header is None else f"{header}\n{source}"
        if header is not None:
            source = "\n" + source
        elif line > 1:                    # (blank lines above it: the cell's other lines)
            source = visible = "\n" * (line - 1) + source
        try:
            info = cellmod.analyze(source)
        except SyntaxError as e:
            who = (header or "%jaxpr").split()[0]
            raise UsageError(f"{who}: the cell is not valid Python: "
                             f"{_syntax_error_at(e, self.state.prompt_number())}") from None
        found = self.sources[key] = (source, visible, info)
        return found

    def _program(self, cell, static, donate, backend, quiet, header=None,
                 line=1) -> CellProgram:
        """The compiled form of a cell (cached). With a `header` (the `%%magic` line), line
        numbers count it, as the notebook shows them: the body starts at line 2; a line
        magic's expression on the cell's `line`."""
        shell = self.shell
        source, visible, info = self._analyzed(cell, header, line)
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
        cell_key = self.state.cell_id or source
        label, last_key = self.cells.get(cell_key, (None, None))
        if label is None:
            label = f"cell[{self.state.prompt_number()}]"
        # a program is its cell's: the same text in another cell (JupyterLab's cells have
        # ids) is traced anew there and named by that cell, as another cell's code is under
        # JAX; it named its lines by the first cell's
        key = (source, tuple(sorted(static)), tuple(sorted(donate)), backend,
               device and client.device_name(device), tuple((n, kinds[n]) for n in params), label)
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
                # (the NumPy backend compiles nothing: it traces the cell anew)
                platform = backend or (client.platform_of(device) if device is not None else
                                       client.default_backend())
                anew = "compiling" if miss_words.compiles(platform) else "tracing"
                show(Note(f"⚙ {label}: {_why_new(last_key, key)}: {anew} it anew",
                          kind="compile"))
        program.visible = visible               # as shown now (--show/--quiet may differ)
        self.cells[cell_key] = (label, key)
        return program

    def _report(self, program, outputs, last):
        if program.events:                   # a cache hit has none: skip the log's scan
            self._report_compiles(program, outputs, last)
        print_notes.clear()                  # (this cell's prints are told here, not twice)
        if program.printed:
            # (on the NumPy backend, which compiles nothing: once per trace)
            per = "trace" if miss_words.any_numpy(program.events) else "compilation"
            show(Note(f"print() ran while tracing {program.label}: it runs once per {per} "
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
                              ran_on is not None and client.device_name(ran_on) or None))

    def _cell_view(self, program, ns, outputs=None, error=None):
        outputs = outputs or {}
        outs = [{"name": n, "detail": describe_output(outputs[n]) if n in outputs else ""}
                for n in program.info.outputs]
        inputs = program.describe_inputs(ns) + [
            {"name": n, "kind": cellmod.GLOBAL, "detail": "module"}
            for n, k in program.kinds.items() if k == cellmod.GLOBAL]
        return CellView(program.visible, program.label, inputs=inputs, outputs=outs,
                        error=error, positions=program.info.positions)

    def _show_compiled(self, traced, what, title):
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
            line = 1 if is_cell else magic_line(self.state.prompt_number())
            program = self._program(text, [], [], None, True,
                                    header="%%jaxpr" if is_cell else None, line=line)
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


def _syntax_error_at(e: SyntaxError, prompt: int) -> str:
    """A SyntaxError of a cell said as IPython says one: the cell and its line (counting the
    %%jit line, as the notebook numbers them), the line and a caret, not ast's "(<unknown>,
    line 3)", the name of no file the learner has.

        >>> _syntax_error_at(SyntaxError("invalid syntax", ("<unknown>", 3, 8, "b = a +\\n")), 7)
        'invalid syntax, at In[7], line 3:\\n    b = a +\\n           ^'
    """
    where = f"{e.msg}, at In[{prompt}], line {e.lineno}"
    text = (e.text or "").rstrip()
    if not text:
        return where
    stripped = text.lstrip()
    caret = "" if not e.offset else "\n    " + " " * max(0, e.offset - 1 - (len(text) - len(stripped))) + "^"
    return f"{where}:\n    {stripped}{caret}"

