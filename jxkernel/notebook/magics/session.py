"""The session's magics: %jxbackend (which device jit calls, %%jit cells and eager
operations run on) and %jxmemory (the live arrays, by the cell that made them).
"""
from __future__ import annotations

from IPython.core import magic_arguments as ma
from IPython.core.error import UsageError
from IPython.core.magic import line_magic, magics_class

from ...xla import client
from .. import cell_origins
from ..display import Note
from ..widgets.backend import BackendSelector
from .base import JxMagicsBase


@magics_class
class SessionMagics(JxMagicsBase):
    """%jxbackend, %jxmemory."""

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
