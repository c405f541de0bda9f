"""The session's magics: %jxbackend (which device jit calls, %%jit cells and eager
operations run on), %jxmemory (the live arrays, by the cell that made them) and %jxbugs (the
bugs of jxkernel's own told in this session, for a report).
"""
from __future__ import annotations

from IPython.core import magic_arguments as ma
from IPython.core.error import UsageError
from IPython.core.magic import line_magic, magics_class

from ...api.environment_info import issues_address, print_environment_info
from ...core import told_bugs
from ...xla import client
from .. import cell_origins
from ..display import Note
from ..tracebacks import name_cells
from ..widgets.backend import BackendSelector
from .base import JxMagicsBase


@magics_class
class SessionMagics(JxMagicsBase):
    """%jxbackend, %jxmemory, %jxbugs."""

    # ================================================================== %jxbackend
    @line_magic
    def jxbackend(self, line):
        """%jxbackend            the backend selector
        %jxbackend NAME       switch: cpu, gpu (cuda) or tpu, optionally a device: cpu:1"""
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
        also = f" ({device})" if str(device) != client.device_name(device) else ""
        return Note(f"jit calls, %%jit cells and eager operations run on "
                    f"{client.device_name(device)}{also} now")

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

    # ================================================================== %jxbugs
    @line_magic
    def jxbugs(self, line):
        """The bugs of jxkernel's own told in this session (a card, note or explanation of
        ours that raised while your code ran as written), each with its traceback, and the
        versions: the text to send with a report, at the address it names."""
        bugs = list(told_bugs.told)
        if not bugs:
            return Note("jxkernel has told no bug of its own in this session.")
        where = issues_address()
        kept = f" (the last {len(bugs)})" if bugs[0].serial > 0 else ""
        title = (f"{len(bugs)} bug(s) of jxkernel's own told in this session{kept}: please "
                 f"report them{' at ' + where if where else ''}, with the cells that ran and "
                 "this text")
        body = "\n\n".join(f"{bug.message}\n{name_cells(bug.traceback)}" for bug in bugs)
        return Note(title, f"{body}\n{print_environment_info(return_string=True)}", "warn",
                    details=True)
