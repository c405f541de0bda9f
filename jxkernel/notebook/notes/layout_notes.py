"""The note under the cell after which jit's compiled fast paths make no more hits: the first
array or program laid out otherwise than row-major (jax.experimental.layout's Formats). PJRT
runs a program on a buffer of another layout than its parameter's without a check, so from
then on every run checks its arguments' layouts (xla/relayout.py) and every jit call takes
the Python path: slower dispatch (about 2 µs a call: 4.3 to 6.6 µs for `jit(lambda v: v + 1)`
on CPU) for the rest of the process, which %timeit would show with no reason given.

    y = jax.device_put(x, Format(Layout((1, 0)), sharding))
    # ⓘ jit's compiled fast paths are off from this cell on (until the kernel restarts): ...
"""
from __future__ import annotations

from ...core.native import native
from ...xla import relayout
from ..display import Note


class FastPathWatch:
    """Whether the running cell started xla/relayout.py's checks (once per process)."""

    def __init__(self):
        self.before = relayout.watching

    def cell_started(self) -> None:
        self.before = relayout.watching

    def cell_finished(self) -> Note | None:
        """The note of the cell that just ran, or None: the checks were on before it, are
        still off, or there is no compiled fast path to lose (JXKERNEL_FASTPATH=0, none
        built)."""
        started = relayout.watching and not self.before
        self.before = relayout.watching
        if not started or native is None:
            return None
        return Note(
            "ⓘ jit's compiled fast paths are off from this cell on (until the kernel "
            f"restarts): {relayout.started_by}",
            body=("XLA runs a program on a buffer laid out otherwise than its parameter "
                  "without a check, reading it wrongly, so from now on every run checks its "
                  "arguments' layouts and copies those that differ, and every jit call takes "
                  "the Python path: about 2 µs more per call (%timeit shows it), the same "
                  "values. JAX's dispatch checks layouts on each call too, in C++. A kernel "
                  "that never uses a layout other than row-major keeps the fast paths."),
            kind="info", details=True)
