"""The kernel keeps working after a pytree flatten that raised: the recursion room jaxlib's
flatten kept (tree_util/recursion_room.py) is given back as soon as jxkernel's code runs again.
That is the error handler (tracebacks.py) when IPython could still call it, a flatten that
raised some way down; after one that kept all the room, IPython cannot call anything, and it
is the cell's end, which then shows the error IPython could not (tracebacks.show_unshown).
jxkernel's own pytree calls (tree_util, jit's arguments) give the room back already where
they raise (recursion_room.after_error), so the handler is called as usual: the keeper tells
those levels in its note and gives back what is left past them, and the cell's end is for a
flatten jxkernel did not call (jaxlib's registry called directly, another library's).

Under JAX, `jax.tree.leaves(d)` with `d['self'] = d` leaves the kernel raising RecursionError at
nearly every call, its own traceback display first, until a restart; here the cell says what
happened and the next one runs:

    d = {'b': 1}; d['self'] = d
    jax.tree.leaves(d)       # ValueError: Comparator raised exception while sorting pytree ...
                             # ⚠ jaxlib's pytree flatten kept ...: jxkernel gave back 972

One keeper per process: the counter belongs to a thread, and every cell runs on the main one.
"""
from __future__ import annotations

from ..tree_util import recursion_room
from .display import Note


class RoomKeeper:
    """Compares the spare room (`recursion_room.spare()`) with what it was where IPython stood
    at the same depth, and gives back what a cell lost.

    The error handler runs where the cell began (inside IPython's run_cell coroutine), so on
    3.11, where one call tells the room, it compares with that cell's start. A cell's end, and
    on 3.12 and 3.13 the handler too (only a probe counts the C room there, too dear for every
    cell), compares with the first cell's end, a reference that never moves. A healthy
    kernel's checks agree within a few levels: exactly on 3.11 but in nested cells; on 3.12
    and 3.13 a cell's end is up to 5 higher after a top-level `await` and 7 lower inside a
    cell run by `get_ipython().run_cell` (C calling back into Python takes a level there), and
    the handler stands up to 3 lower than a cell's end. What is given back is right within
    those few, and never too much by more than them, in all. `slack` is well above them: a
    check never gives back room in use, and small losses wait until together they exceed it.

        >>> keeper = RoomKeeper()
        >>> keeper.cell_started(); keeper.before_error() is None
        True
    """

    def __init__(self, slack: int = 40):
        self.slack = slack
        self.first_end = None    # the spare room at the first cell's end that was checked
        self.starts = []         # the spare room as each running cell began (they nest)

    def cell_started(self) -> None:
        # (None where only a probe counts it, 3.12 and 3.13: too dear for every cell)
        self.starts.append(recursion_room.spare(probe=False))

    def before_error(self) -> Note | None:
        """Give back what the running cell lost; a note saying so, or None."""
        start = self.starts[-1] if self.starts else None
        if start is not None:    # 3.11: exact, so what a flatten's own repair left is settled
            return self._give_back(start, slack=0 if recursion_room.GIVEN[0] else self.slack)
        return self._give_back(self.first_end)

    def cell_finished(self) -> Note | None:
        """Give back what was lost since the first cell's end; a note saying so, or None."""
        if self.starts:
            self.starts.pop()
        if self.first_end is None:
            self.first_end = recursion_room.spare()
            return None
        return self._give_back(self.first_end)

    def _give_back(self, reference: int | None, slack: int | None = None) -> Note | None:
        # what jxkernel's own flattens gave back where they raised (recursion_room.after_error,
        # from a reference of its own: up to a few levels short of this one), told here; then
        # what is still lost: a healthy kernel's answer cheaply, only a loss past the slack
        slack = self.slack if slack is None else slack
        given, lost = recursion_room.take_given(), 0
        if reference is not None and recursion_room.spare_exceeds(
                reference - slack - 1) not in (True, None):
            now = recursion_room.spare()
            if reference - now > slack:
                lost = reference - now
                recursion_room.give_back(lost)
        if not given + lost:
            return None
        return Note(
            f"⚠ jaxlib's pytree flatten kept Python's recursion levels when it raised: "
            f"jxkernel gave back {given + lost}",
            "jaxlib's flatten takes a level for each level of the tree it walks and does not "
            "give them back when it raises inside the tree; a dict that holds itself takes "
            "them all. Without them nearly every later call in this kernel would raise "
            "RecursionError, as under JAX, where only a restart mends it.", kind="warn")


keeper = RoomKeeper()
