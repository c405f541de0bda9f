"""Which notebook cell created each live array: the cell column of `%jxmemory`.

Nothing is added to array creation (dispatch speed matters). Instead, after each cell
(the extension's post_run_cell), the live jaxlib buffers not seen before are attributed to
that cell, `In[7]`, by identity and weakly (a dead buffer's entry is dropped, and a new
buffer that reuses its address is not mistaken for it). The cost is a walk over the live
buffers once per cell. Buffers alive when `%load_ext jxkernel` ran are "before %load_ext";
those made by the cell running now (a `%jxmemory` in the same cell) are "this cell
(running)" until it ends; any other is "unknown" (made by a thread between cells, say).

The report, its renderings and the JSON bundle are jxkernel.memory's
(`application/vnd.jxkernel.memory+json`, fields in its docstring), with `by_cell` true.

    >>> origins = CellOrigins()          # the extension makes one per shell
    >>> origins.cell_started(); x = jnp.ones(3); origins.cell_finished("In[1]")
    >>> origins.origin(x)
    'In[1]'
"""
from __future__ import annotations

import weakref

from ..views import memory
from ..xla.array import buffers as buffers_of

BEFORE = "before %load_ext"
UNKNOWN = "unknown"
RUNNING = "this cell (running)"
UNNUMBERED = "a cell run without history"


class CellOrigins:
    """Buffer identity -> the label of the cell after which it was first seen."""

    def __init__(self):
        self._seen: dict = {}          # id(buffer) -> (weakref to the buffer, label)
        self._running = False
        self.snapshot(BEFORE)

    def cell_started(self) -> None:
        self._running = True

    def cell_finished(self, label: str) -> None:
        """Attribute the buffers made since the last snapshot to the cell `label`."""
        self.snapshot(label)
        self._running = False

    def snapshot(self, label: str) -> None:
        """Attribute every live buffer not seen yet to `label`."""
        buffers = memory.live_buffers()
        seen = self._seen
        for buf in buffers:
            entry = seen.get(id(buf))
            if entry is None or entry[0]() is not buf:
                seen[id(buf)] = (weakref.ref(buf), label)
        if len(seen) > 2 * len(buffers) + 1024:       # dead entries pile up: drop them
            self._seen = {k: v for k, v in seen.items() if v[0]() is not None}

    def origin(self, array) -> str:
        """The label of the cell that created `array` (see the module's docstring)."""
        buf = buffers_of([array])[0]
        entry = self._seen.get(id(buf))
        if entry is not None and entry[0]() is buf:
            return entry[1]
        return RUNNING if self._running else UNKNOWN


def result_label(result) -> str:
    """'In[7]' for the cell whose ExecutionResult this is (the count IPython numbered it
    with; during the cell, the shell's counter may already be past it)."""
    count = getattr(result, "execution_count", None)
    if count is None:
        return UNKNOWN
    info = getattr(result, "info", None)
    return UNNUMBERED if info is not None and not info.store_history else f"In[{count}]"


def cell_memory_report(origins: CellOrigins | None, platform: str | None = None):
    """jxkernel.memory.memory_report with a cell per row (all "unknown" without `origins`)."""
    origin = origins.origin if origins is not None else (lambda array: UNKNOWN)
    return memory.memory_report(platform=platform, origin=origin)
