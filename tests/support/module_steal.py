"""xdist's worksteal scheduling, cutting the list of tests between test files where it can.

A test file's shared work is done once per worker that runs any of its tests: its
module-scoped fixtures (a table of recorded cases run once, a JupyterLab page), and its
programs in the worker's in-memory cache (a test file's programs are its own:
tests/conftest.py). Worksteal cuts the list at arbitrary tests, first in half and then at
each steal (half of the busier worker's queue), so a file cut in two did that work twice.
Here each cut moves to the nearest boundary between two files, when there is one among the
tests it could move; otherwise (one long file left) it cuts where worksteal would.

    >>> nearest_boundary(["a::1", "a::2", "b::1", "b::2", "b::3"], 2, 1, 4)
    2
    >>> nearest_boundary(["a::1", "a::2", "a::3"], 1, 1, 2) is None
    True
"""
from xdist.scheduler.worksteal import MIN_PENDING, WorkStealingScheduling


def _file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def nearest_boundary(nodeids, want: int, low: int, high: int):
    """The cut k in [low, high] nearest `want` with nodeids[k - 1] and nodeids[k] in two
    files (ties: the smaller k), or None where the tests from low - 1 to high share a file."""
    cuts = [k for k in range(max(low, 1), min(high, len(nodeids) - 1) + 1)
            if _file(nodeids[k - 1]) != _file(nodeids[k])]
    return min(cuts, key=lambda k: (abs(k - want), k)) if cuts else None


class ModuleStealScheduling(WorkStealingScheduling):
    """WorkStealingScheduling whose first split and steals fall between test files."""

    def _names(self, indices):
        return [self.collection[i] for i in indices]

    def _send_tests(self, node, num: int) -> None:
        # the first distribution (and tests given back by a crashed worker): a half of
        # the pending list, moved to a file boundary
        if 0 < num < len(self.pending):
            cut = nearest_boundary(self._names(self.pending), num, 1, len(self.pending) - 1)
            num = cut if cut is not None else num
        super()._send_tests(node, num)

    def check_schedule(self) -> None:
        """Worksteal's, but the stolen tail starts at a file boundary where one can."""
        nodes_up = [(node, pending) for node, pending in self.node2pending.items()
                    if not node.shutting_down]

        def idle():
            return [node for node, pending in nodes_up if len(pending) < MIN_PENDING]

        if not idle():
            return
        if self.pending:
            idle_nodes = idle()
            for i, node in enumerate(idle_nodes):
                self._send_tests(node, len(self.pending) // (len(idle_nodes) - i))
            if not idle():
                return
        if self.steal_requested_from_node is not None:
            return
        busiest = max(nodes_up, key=lambda n: len(n[1]), default=None)
        num_steal = 0
        if busiest is not None:
            pending = busiest[1]
            max_steal = max(0, len(pending) - MIN_PENDING)
            num_steal = min(len(pending) // 2, max_steal)
            if num_steal:
                # the busy worker keeps pending[:keep]; its first MIN_PENDING may be running
                keep = nearest_boundary(self._names(pending), len(pending) - num_steal,
                                        MIN_PENDING, len(pending) - 1)
                num_steal = len(pending) - keep if keep is not None else num_steal
        if num_steal == 0:
            for node in idle():
                node.shutdown()
            return
        busiest[0].send_steal(busiest[1][-num_steal:])
        self.steal_requested_from_node = busiest[0]
