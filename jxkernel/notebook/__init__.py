"""jxkernel in IPython and Jupyter: `%load_ext jxkernel`.

Registers the magics (`%%jit`, `%jaxpr`, `%hlo`, an honest `%timeit`, `%jxbackend`,
`%jxcompiles`, `%jxnotes`, `%jxtraced`, `%jxmemory`, `%jxguard`, `%jxreport`, `%explain`,
`%jxbugs`), rich displays for Arrays and jaxprs, and, in a Jupyter kernel, the comm target
`jxkernel` of the JupyterLab extension (comm.py), and shows jxkernel's errors without
jxkernel's own frames (tracebacks.py).
A cell that made one of your jitted functions compile again says so under its output, with
what changed and the fix (compile_notes.py; `%jxnotes all|recompiles|off`).
`%jxguard` and `no_recompile(f)` make a recompile an error (guard.py); `%jxreport` and
`report()` export the compilations with what changed and the fix (report.py).
`step(f, *args)` runs f's jaxpr equation by equation (views/stepper.py).
`show_sharding(x)` draws which device holds which block of a sharded array
(views/sharding_view.py); a sharded Array displays that view by itself.
`%explain f(x)` links f's source, jaxpr, StableHLO and optimized HLO by line
(views/call_explanation.py).
Loading twice is harmless; unloading restores IPython's own `%timeit` (and the
device options that `%jxbackend` changed).
This is the only package that imports IPython, ipywidgets and plotly.
"""
from __future__ import annotations

import logging
import sys
import weakref

from .notes import (broadcast_notes, categorical_notes, clamped_start_notes, index_calls,
                    index_notes, update_notes)
from . import comm, display, formatters, timeit, tracebacks
from .guard import no_recompile
from .magics import MAGIC_CLASSES
from .report import report
from .state import State
from ..as_jax import install_as_jax
from ..core import compile_record, told_bugs
from ..core.lazy_names import module_aliases
from ..core.source_info import register_exclusion
from ..views.stepper import step
from ..views.sharding_view import sharding_view

# `jxkernel.notebook.stepper.controls(s)`: the stepper's buttons (ipywidgets, on first use);
# the error cards and the jaxpr diff, documented here for scripts before they moved to views/
module_aliases(__name__, {"stepper": "jxkernel.notebook.widgets.stepper_controls",
                          "error_cards": "jxkernel.views.error_cards",
                          "jaxpr_diff": "jxkernel.views.jaxpr_diff"})

_states: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()     # shell -> State

# every magic the classes define, read from them (a list written here left %jxbugs, added to a
# class, registered after an unload)
_OURS = tuple(sorted({name for cls in MAGIC_CLASSES for kind in ("line", "cell")
                      for name in cls.magics[kind]}))


def load_ipython_extension(shell) -> None:
    if sys.platform == "emscripten":
        # the browser (JupyterLite), where no JAX can exist: `import jax`, the first line of
        # every JAX docs page, gives jxkernel there (docs/teaching.md, "A room with no server")
        install_as_jax()
    if shell in _states:
        return
    state = State(shell)
    manager = shell.magics_manager
    find = getattr(manager, "find", None)        # IPython 9 loads magics lazily: resolve first
    state.saved_timeit = tuple(find(kind, "timeit") if find else manager.magics[kind].get("timeit")
                               for kind in ("line", "cell"))
    state.magics = tuple(cls(shell, state) for cls in MAGIC_CLASSES)
    shell.register_magics(*state.magics)
    state.formatters = formatters.register_formatters(shell)
    timeit.install(shell.user_ns, shell.user_ns_hidden)
    shell.events.register("pre_run_cell", state.pre_run_cell)
    shell.events.register("post_run_cell", state.post_run_cell)
    comm.register(shell, state)          # the JupyterLab extension's target (in a kernel only)
    tracebacks.install(shell)
    tracebacks.install_warnings()
    tracebacks.install_log_names()
    logging.getLogger(compile_record.LOGGER).addFilter(state.log_filter)
    state.keys.install()
    state.gradients.install()
    state.effects.install()
    index_notes.install()
    index_calls.install()
    clamped_start_notes.install()
    update_notes.install()
    broadcast_notes.install()
    categorical_notes.install()
    _exclude_ipythons_frames()
    told_bugs.shown_by = "%jxbugs"      # each bug's warning says what to send with it
    _states[shell] = state


def _exclude_ipythons_frames() -> None:
    """IPython's and ipykernel's frames are not the user's: a call a magic makes for a cell
    (%timeit's warm-up run, a %%jit cell's program) was told as called at IPython's
    run_line_magic in the compile log and its notes; without them, at the cell's line. The
    folders are those the views leave out of a traceback (display.SHELL_DIRS)."""
    for folder in display.SHELL_DIRS:
        if folder not in _excluded_here:
            register_exclusion(folder)
            _excluded_here.add(folder)


_excluded_here: set = set()        # the folders _exclude_ipythons_frames registered


def unload_ipython_extension(shell) -> None:
    state = _states.pop(shell, None)
    if state is None:
        return
    comm.unregister(shell, state)
    state.breakpoints.uninstall()
    state.keys.uninstall()
    state.gradients.uninstall()
    state.effects.uninstall()
    if not _states:
        told_bugs.shown_by = None
        index_notes.uninstall()
        index_calls.uninstall()
        clamped_start_notes.uninstall()
        update_notes.uninstall()
        broadcast_notes.uninstall()
        categorical_notes.uninstall()
    tracebacks.uninstall(shell)
    tracebacks.uninstall_warnings()
    tracebacks.uninstall_log_names()
    logging.getLogger(compile_record.LOGGER).removeFilter(state.log_filter)
    tables = shell.magics_manager.magics
    for kind in ("line", "cell"):
        for name in _OURS:
            if getattr(tables[kind].get(name), "__self__", None) in state.magics:
                del tables[kind][name]
    for kind, saved in zip(("line", "cell"), state.saved_timeit):
        if saved is not None:
            tables[kind]["timeit"] = saved
    formatters.unregister_formatters(state.formatters)
    timeit.uninstall(shell.user_ns, shell.user_ns_hidden)
    for event, callback in (("pre_run_cell", state.pre_run_cell),
                            ("post_run_cell", state.post_run_cell)):
        try:
            shell.events.unregister(event, callback)
        except ValueError:
            pass
    for log in list(state.logs):
        log.close()
    state.restore_config()


def show_sharding(x, sharding=None) -> None:
    """Display which device holds which block of `x` (a sharded Array, or a shape with
    `sharding`), coloured per block, with the mesh's axes, the shard and bytes per device."""
    display.show(sharding_view(x, sharding))


def state_of(shell) -> State | None:
    """The extension's state for `shell` (None when not loaded)."""
    return _states.get(shell)


__all__ = ["load_ipython_extension", "unload_ipython_extension", "state_of", "step", "no_recompile", "report",
           "show_sharding"]
