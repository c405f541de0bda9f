"""The note under a cell whose `breakpoint()` did not stop. ipykernel hands Python's
breakpoint() to debugpy, JupyterLab's visual debugger; while that debugger is off the call
returns at once, with no prompt (under JAX's own kernel too), so the pdb session JAX's
debugging page shows ("Enters PDB breakpoint!", with jax_disable_jit) never comes.
`pdb.set_trace()` stops there and reads its commands from the cell's input box.

    jax.config.update("jax_disable_jit", True)
    def f(x):
        y = jnp.log(x)
        if jnp.isnan(y):
            breakpoint()      # ⚠ breakpoint() did not stop ...: import pdb; pdb.set_trace()
        return y
"""
from __future__ import annotations

import sys

from ..display import Note, Site, source_label


class BreakpointWatch:
    """Wraps the kernel's breakpoint hook (debugpy's) to note the calls that went nowhere."""

    _HOOK = "debugpy_breakpointhook"     # what ipykernel's debugpy installs as sys.breakpointhook

    def __init__(self, shell):
        self.shell = shell
        self.missed = []            # (file, line) of the cell's breakpoint() calls that ran on
        self.wrapped = None         # the hook this one stands in front of

    def cell_started(self) -> None:
        self.missed.clear()
        hook = sys.breakpointhook
        # wrapped at each cell, not at load: ipykernel may install debugpy's hook after the
        # extension loads, and a hook someone else set since is left to them
        if hook is not self._noting and getattr(hook, "__name__", "") == self._HOOK:
            self.wrapped = hook
            sys.breakpointhook = self._noting

    def uninstall(self) -> None:
        if sys.breakpointhook is self._noting:
            sys.breakpointhook = self.wrapped

    def _debugger_on(self) -> bool:
        debugger = getattr(getattr(self.shell, "kernel", None), "debugger", None)
        return bool(getattr(debugger, "is_started", False))

    def _noting(self, *args, **kwargs):
        if not self._debugger_on():
            caller = sys._getframe(1)     # breakpoint() is a builtin: its caller's frame
            self.missed.append((caller.f_code.co_filename, caller.f_lineno))
        return self.wrapped(*args, **kwargs)

    def cell_note(self) -> Note | None:
        """The note of the cell that just ran, or None: no breakpoint() call went nowhere."""
        if not self.missed:
            return None
        file, line = self.missed[0]
        times = len(self.missed)
        ran = "once" if times == 1 else f"{times} times"
        return Note(
            f"⚠ breakpoint() did not stop (at {source_label(Site(file, line))}, ran {ran}): "
            f"in a Jupyter kernel it goes to JupyterLab's visual debugger, which is off",
            body=("ipykernel hands Python's breakpoint() to debugpy, the visual debugger's; "
                  "while that debugger is off the call returns at once (in JAX's own kernel "
                  "too). To stop there and type pdb's commands (p y, c) in the cell's input "
                  "box, in place of breakpoint():\n"
                  "  import pdb; pdb.set_trace()\n"
                  "Inside jit (jax_disable_jit off), jax.debug.breakpoint() stops with the "
                  "values the program computed."),
            kind="info", details=True)

