"""The magics that show what jxkernel did: %explain (source, jaxpr, StableHLO and HLO
linked by line), %jxcompiles (the recompilation log), %jxnotes (the compile notes under
cells), %jxguard (the no-recompile guard) and %jxreport (the session's report).
"""
from __future__ import annotations

import ast

from IPython.core import magic_arguments as ma
from IPython.core.error import UsageError
from IPython.core.magic import line_magic, magics_class, no_var_expand

from ...core import compile_record
from ...core.config import config
from ...views.call_explanation import build_explanation
from ...views.compile_report import ReportView
from ..notes import compile_notes
from .. import funcview
from ..display import Note, cell_name
from ..guard import set_guard
from ..program import CellError
from ..report import format_for, report
from ..tracebacks import show_card
from ..widgets.recompiles import GROUPS, RecompileLog
from .base import JxMagicsBase


@magics_class
class InspectionMagics(JxMagicsBase):
    """%explain, %jxcompiles, %jxnotes, %jxguard, %jxreport."""

    # ================================================================== %explain
    @no_var_expand
    @line_magic
    def explain(self, line):
        """f's source, its jaxpr, our StableHLO and XLA's optimized HLO, linked by line.

        %explain f(x, w)        traced as jit(f) would (a plain f: non-array arguments
                                static), lowered with source locations and compiled; per
                                source line: its equations, ops and HLO instructions, with
                                flops and bytes estimated per HLO instruction
                                (views/call_explanation.py)
        In a script: jxkernel.explain(f, x, w).
        """
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

    # ================================================================== the compile log
    @ma.magic_arguments()
    @ma.argument("function", nargs="*", default=None,
                 help="show only this function or cell, or a group: (eager operations), "
                      "(jxkernel functions), (library functions), (all functions)")
    @ma.argument("--clear", action="store_true", help="forget the events so far")
    @ma.argument("--timeline", action="store_true",
                 help="also plot them over time now (else the log's timeline button does)")
    @line_magic
    def jxcompiles(self, line):
        """The recompilation log: every compilation of your functions, why, and how long it
        took (live); eager operations' and jxkernel's or libraries' compilations folded below
        with a count (`%jxcompiles (eager operations)`, `(all functions)` list them)."""
        args = ma.parse_argstring(self.jxcompiles, line)
        if args.clear:
            compile_record.clear()
            for log in list(self.state.logs):
                log.refresh()
            return None
        # a group's name has a space (the folded lines say `%jxcompiles (eager operations)`),
        # typed with or without quotes
        typed = " ".join(args.function).strip().strip("'\"").strip() or None
        function = self._logged_name(typed)
        # one jit's compiles by its function_key: the filter shows the name typed, not the key
        label = f"{typed} ({function.partition('@')[0]})" \
            if function and function != typed and "@" in function else None
        log = RecompileLog(function=function, timeline=args.timeline, label=label)
        self.state.logs.add(log)
        return log

    def _logged_name(self, name):
        """What `%jxcompiles NAME` filters on: the name its compile events carry. A jitted
        function bound to another name (`step = jax.jit(update)`) is logged under its
        function's name; a name neither logged nor defined is an error, not an empty log
        that reads as "no compilations yet"."""
        events = compile_record.compile_events()
        if name is None or name in GROUPS or any(name in (e.function, e.function_key)
                                                 for e in events):
            return name
        value = self.shell.user_ns.get(name)
        if hasattr(value, "_fail_on_recompile"):          # a jitted function: its events' name
            own = {e.function_key for e in events if e.key is value}
            others = {e.function_key for e in events if e.function == value._name} - own
            # a name other jitted functions share (`<lambda>`): this one's events alone
            return own.pop() if len(own) == 1 and others else value._name
        if callable(value):                               # a function not compiled yet
            return name
        logged = sorted({e.function for e in events if e.origin == compile_record.USER})
        what = f"{name!r} is not a function (its type is {type(value).__name__})" if name in \
            self.shell.user_ns else f"{name!r} is not defined"
        raise UsageError(f"%jxcompiles {name}: no compilation of a function named {name!r} is "
                         f"logged, and {what}. Logged so far: {', '.join(logged) or 'none'} "
                         f"(%jxcompiles alone shows all of your functions).")

    @ma.magic_arguments()
    @ma.argument("mode", nargs="?", default=None, choices=compile_notes.MODES,
                 help="recompiles (default): a note under a cell that compiled one of your "
                      "functions again, with what changed and the fix; all: first compiles "
                      "too, and the eager operations and jxkernel's or libraries' "
                      "functions a cell compiled; off: no notes")
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
        args = ma.parse_argstring(self.jxreport, line)
        if args.file is None:
            return ReportView()
        try:
            report(format_for(args.file, args.format), args.file)
        except OSError as e:
            raise UsageError(f"%jxreport: cannot write {args.file!r}: {e}") from None
        count = len(compile_record.compile_events())
        return Note(f"wrote the report of {count} compilation(s) to {args.file}")
