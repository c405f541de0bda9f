"""The extension's per-shell state: what to undo on unload, the cell running now, live logs
and selectors, the device chosen, and IPython's pre/post_run_cell events.
"""
from __future__ import annotations

import sys
import weakref

from ..core import told_bugs, watches
from ..core.config import config
from ..xla import client
from .notes import (breakpoint_notes, broadcast_notes, categorical_notes, clamped_start_notes,
                    compile_notes, effect_notes, index_calls, index_notes, key_notes,
                    layout_notes, nan_notes, print_notes, update_notes)
from . import cell_origins, room_keeper, tracebacks
from .display import show

_DEVICE_OPTIONS = ("jax_default_device", "jax_platform_name")


class PromptCounter:
    """The running cell's prompt number (In [7]) at pre_run_cell, whatever IPython's version.

    IPython 9 since ipython/ipython#15088 (merged December 2025; 9.18 here) counts a cell
    before running it: pre_run_cell sees `execution_count` at the next prompt's number
    already. The IPython of Colab (7.34) and of Pyodide, so JupyterLite (8.23), count it
    after: there pre_run_cell sees the cell's own number. Each finished cell says which: its
    ExecutionResult's `execution_count` is its number in both, and the count seen as it began
    (at loading, for the cell that ran `%load_ext`) is that number or the next. Before any
    cell finished (the extension loaded at start-up) the first cell tells it: the count seen
    at loading was the next prompt's, and the first cell sees that or one more.

        >>> counter = PromptCounter(shell)   # IPython 7.34, execution_count 7  # doctest: +SKIP
        >>> counter.cell_started(info)       # the cell In [7]  # doctest: +SKIP
        7
    """

    def __init__(self, shell):
        self.shell = shell
        self.seen = getattr(shell, "execution_count", None)   # at loading, then at each cell
        self.counts_first = None              # None until a cell told it

    def cell_started(self, info=None) -> int:
        count = self.shell.execution_count
        counted = count
        if getattr(info, "store_history", False):   # a cell that does not store is not counted
            first = self.counts_first
            if first is None:
                first = self.seen is not None and count == self.seen + 1
            counted = count - 1 if first else count
        self.seen = count
        return counted

    def cell_finished(self, result=None) -> None:
        """The first cell that finishes telling it decides, once (a cell run inside another,
        `shell.run_cell` in a cell, finishes first and tells it right; its outer cell would not)."""
        number = getattr(result, "execution_count", None)
        info = getattr(result, "info", None)
        if (self.counts_first is None and number is not None and self.seen is not None
                and getattr(info, "store_history", False) and self.seen - number in (0, 1)):
            self.counts_first = self.seen == number + 1


class State:
    """Per-shell state of the extension: what to undo, live logs and selectors."""

    def __init__(self, shell):
        self.shell = shell
        self.magics: tuple = ()              # an instance of each magic class (magics/)
        self.formatters: list = []
        self.saved_timeit = (None, None)      # IPython's (line, cell) %timeit, restored on unload
        self.saved_config = None              # the device options before the first selection
        self.cell_id = None
        self.cell_count = None                # the running cell's number, as its prompt shows it
        self.counter = PromptCounter(shell)   # which IPython counts a cell before running it
        self.logs: weakref.WeakSet = weakref.WeakSet()
        self.selectors: weakref.WeakSet = weakref.WeakSet()
        self.channel = None                   # the JupyterLab extension's comm (comm.Channel)
        self.origins = cell_origins.CellOrigins()   # the cell that made each live array (%jxmemory)
        self.compiles = compile_notes.CellWatch()    # what the running cell compiled (its note)
        # jax_explain_cache_misses's log without the fixes the note tells (compile_log's)
        self.log_filter = compile_notes.FixesInTheNote(self.compiles)
        self.effects = effect_notes.TraceEffectsWatch()   # side effects run at a trace alone
        self.breakpoints = breakpoint_notes.BreakpointWatch(shell)   # breakpoint()s that ran on
        self.fast_paths = layout_notes.FastPathWatch()    # the cell that turned them off
        self.prints_told: set = set()         # print lines whose tracer a note told (once each)
        self.indices_told: set = set()        # lines whose index out of bounds a note told
        self.starts_told: set = set()         # lines whose dynamic slice's moved start too
        self.updates_told: set = set()        # lines whose dropped .at update a note told
        self.columns_told: set = set()        # lines whose column met a vector, told
        self.probabilities_told: set = set()  # lines that gave categorical probabilities
        self.keys = key_notes.KeyReuseWatch()  # the keys drawn with, for a key reused
        self.gradients = nan_notes.NanGradientWatch()   # gradients holding NaN, outside jit
        self.gradients_told: set = set()      # lines whose NaN gradient a note told

    def switch_backend(self, name: str):
        """Select the device `name` names, as `%jxbackend NAME` and the JupyterLab extension
        do; returns it. A backend that does not start here, or a device index out of range,
        raises ValueError saying so.

            >>> state.switch_backend("cpu:0")     # (in a kernel: it moves its work)  # doctest: +SKIP
            CpuDevice(id=0)
        """
        platform, _, index = name.strip().partition(":")
        platform = platform.lower()           # `%jxbackend GPU` too (JAX's names are lower case)
        try:
            client.canonical_platform(platform)   # a name no backend has: the names there are
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
        During a cell IPython 9's `execution_count` is the next one already, older IPythons'
        the cell's own (PromptCounter tells which). In the cell that loaded the extension,
        which began before pre_run_cell was registered, the running cell's result says it
        (IPython 7 to 9 hold it in `displayhook.exec_result` while its code runs); outside a
        cell it is the next prompt's.

            >>> state.prompt_number()      # in the cell shown as In [7]  # doctest: +SKIP
            7
        """
        if self.cell_count is not None:
            return self.cell_count
        running = getattr(getattr(self.shell, "displayhook", None), "exec_result", None)
        number = getattr(running, "execution_count", None)
        return number if number is not None else self.shell.execution_count

    @staticmethod
    def _note(result, what: str, make, *args):
        """make(*args): the note of one kind of the cell that gave `result`, or None. A bug in
        making it is told as a RuntimeWarning at the cell, and the cell's other notes go on
        (IPython would print its "Error in callback" traceback of our code and drop them)."""
        try:
            return make(*args)
        except Exception as e:  # noqa: BLE001  (a note is help: never the cell's failure)
            told_bugs.tell(
                f"jxkernel could not make the cell's {what} note (it raised "
                f"{type(e).__name__}: {e}). The cell ran as written; only that note is "
                "missing.", "the cell", e,
                at=(f"In[{getattr(result, 'execution_count', None) or ' '}]", 1))
            return None

    # IPython events
    def pre_run_cell(self, info=None):
        room_keeper.keeper.cell_started()
        self.cell_id = getattr(info, "cell_id", None)
        self.cell_count = self.counter.cell_started(info)
        self.origins.cell_started()
        self.compiles.cell_started()
        print_notes.clear()
        index_notes.clear()
        index_calls.clear()
        watches.look_again()          # (each cell's first calls of a watched program)
        clamped_start_notes.clear()
        update_notes.clear()
        broadcast_notes.clear()
        categorical_notes.clear()
        self.keys.cell_started()
        self.gradients.cell_started()
        self.effects.cell_started()
        self.breakpoints.cell_started()
        self.fast_paths.cell_started()
        if self.channel is not None:
            self.channel.before_cell()

    def post_run_cell(self, result=None):
        # first: what follows needs the recursion room a failed pytree flatten may have kept;
        # the cell's error, if IPython had too little room left to show it, is shown now
        restored = room_keeper.keeper.cell_finished()
        if restored is not None:
            if tracebacks.show_unshown(self.shell, getattr(result, "error_in_exec", None)):
                restored.body += (" IPython had no room left to show the error when it was "
                                  "raised (its \"Unexpected exception formatting exception\"): "
                                  "jxkernel showed it above once the levels were back.")
            show(restored)
        self.cell_id = None          # a magic run outside a cell must not reuse the last id
        self.cell_count = None
        self.counter.cell_finished(result)
        self.origins.cell_finished(cell_origins.result_label(result))
        # %%jit cells told their own compiles (JitMagics._report)
        programs = [p for m in self.magics for p in getattr(m, "programs", {}).values()]
        note = self.compiles.cell_finished([p.jitted for p in programs])
        if note is not None:
            show(note)
        stale = self.compiles.stale_finished()
        if stale is not None:
            show(stale)
        real_jax = self.compiles.real_jax_finished(self.shell.user_ns)
        if real_jax is not None:
            show(real_jax)
        printed = self._note(result, "print", print_notes.cell_note, self.prints_told)
        if printed is not None and config.jxkernel_compile_notes != "off":
            show(printed)
        clamped = self._note(result, "index", index_notes.cell_note, self.indices_told)
        if clamped is not None and config.jxkernel_compile_notes != "off":
            show(clamped)
        traced = self._note(result, "jitted index", index_calls.cell_note, self.indices_told)
        if traced is not None and config.jxkernel_compile_notes != "off":
            show(traced)
        moved = self._note(result, "dynamic slice start", clamped_start_notes.cell_note,
                           self.starts_told)
        if moved is not None and config.jxkernel_compile_notes != "off":
            show(moved)
        dropped = self._note(result, "update", update_notes.cell_note, self.updates_told)
        if dropped is not None and config.jxkernel_compile_notes != "off":
            show(dropped)
        pairs = self._note(result, "broadcast", broadcast_notes.cell_note, self.columns_told)
        if pairs is not None and config.jxkernel_compile_notes != "off":
            show(pairs)
        drawn = self._note(result, "categorical", categorical_notes.cell_note,
                           self.probabilities_told)
        if drawn is not None and config.jxkernel_compile_notes != "off":
            show(drawn)
        reused = self.keys.cell_finished(getattr(result, "error_in_exec", None))
        if reused is not None and config.jxkernel_compile_notes != "off":
            show(reused)
        # (after the other watches: finding the NaN traces the user's function again)
        nan = self._note(result, "NaN gradient", self.gradients.cell_finished,
                         self.gradients_told)
        if nan is not None and config.jxkernel_compile_notes != "off":
            show(nan)
        effect = self.effects.cell_finished()
        if effect is not None and config.jxkernel_compile_notes != "off":
            show(effect)
        missed = self.breakpoints.cell_note()
        if missed is not None:
            show(missed)
        off = self.fast_paths.cell_finished()
        if off is not None:
            show(off)
        for log in list(self.logs):
            log.refresh()
        # the rest (a RecompileLog made in code, not by %jxcompiles) draw what they held back;
        # with the module never imported no log exists (and ipywidgets, maybe absent as in
        # JupyterLite, stays unimported)
        recompiles = sys.modules.get(f"{__package__}.widgets.recompiles")
        if recompiles is not None:
            recompiles.catch_up()
        if self.channel is not None:
            self.channel.after_cell(result)
