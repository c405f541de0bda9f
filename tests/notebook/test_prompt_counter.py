"""A %%jit cell's name (cell[N]), its cached file and its error card's In[N] use the number its
prompt shows on every IPython a learner meets (jxkernel/notebook/state.py, PromptCounter).

IPython 9 since December 2025 counts a cell before pre_run_cell, as the venv's does (its real
kernel: tests/notebook/test_ipykernel_cell_names.py). Colab's IPython 7.34 and Pyodide's 8.23
(JupyterLite) count it after the cell ran: with the count taken as IPython 9's, JupyterLite's
tour named its cell In [8] "cell[7]" (seen in test_lite_browser's lite-14-run-all-error.png,
2026-11-30). Both orders are replayed here as `InteractiveShell.run_cell_async` runs them
(7.34 and 8.23: `result.execution_count = self.execution_count`, pre_run_cell, the code,
`self.execution_count += 1`, post_run_cell; 9.18: the increment comes before pre_run_cell).
"""
from types import SimpleNamespace

import pytest

from jxkernel.notebook.state import PromptCounter


class Shell:
    """The execution_count an IPython's run_cell keeps, and its two events around a cell."""

    def __init__(self, counts_first: bool, start: int = 1):
        self.execution_count = start
        self.counts_first = counts_first
        self.counter = None
        self.seen = []            # (the prompt's number, what the counter said)

    def load(self):
        self.counter = PromptCounter(self)

    def run_cell(self, body=lambda: None, store_history=True):
        info = SimpleNamespace(store_history=store_history)
        result = SimpleNamespace(info=info, execution_count=None)
        if store_history:
            result.execution_count = self.execution_count
            if self.counts_first:
                self.execution_count += 1
        if self.counter is not None:
            said = self.counter.cell_started(info)
            if store_history:
                self.seen.append((result.execution_count, said))
        body()
        if store_history and not self.counts_first:
            self.execution_count += 1
        if self.counter is not None:
            self.counter.cell_finished(result)
        return result


@pytest.mark.parametrize("counts_first", [False, True], ids=["ipython-7.34-8.23", "ipython-9.18"])
def test_loaded_in_a_cell_the_next_cells_get_their_prompts_number(counts_first):
    shell = Shell(counts_first, start=1)
    shell.run_cell()                                    # In [1]: import jxkernel
    shell.run_cell(shell.load)                          # In [2]: %load_ext jxkernel
    for _ in range(3):                                  # In [3], In [4], In [5]
        shell.run_cell()
    shell.run_cell(store_history=False)                 # a cell that does not count
    shell.run_cell()                                    # In [6]
    assert shell.seen == [(n, n) for n in (3, 4, 5, 6)]


@pytest.mark.parametrize("counts_first", [False, True], ids=["ipython-7.34-8.23", "ipython-9.18"])
def test_loaded_at_start_up_the_first_cell_gets_its_prompts_number(counts_first):
    shell = Shell(counts_first, start=1)
    shell.load()                                        # c.InteractiveShellApp.extensions
    shell.run_cell()                                    # In [1]
    shell.run_cell()                                    # In [2]
    assert shell.seen == [(1, 1), (2, 2)]


@pytest.mark.parametrize("counts_first", [False, True], ids=["ipython-7.34-8.23", "ipython-9.18"])
def test_a_cell_run_inside_the_loading_cell_does_not_mislead_it(counts_first):
    shell = Shell(counts_first, start=4)

    def load_and_run_one():
        shell.load()
        shell.run_cell()                                # shell.run_cell(...) inside In [4]

    shell.run_cell(load_and_run_one)
    shell.seen.clear()
    shell.run_cell()
    shell.run_cell()
    assert [said for _, said in shell.seen] == [n for n, _ in shell.seen]
