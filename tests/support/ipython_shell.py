"""The IPython shell the notebook and views tests run cells in: the process's one
InteractiveShell (`InteractiveShell.instance()`) with `%load_ext jxkernel`. A test file makes
its `shell` fixture here, with the cell that sets up its names:

    shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp")

By default the fixture is the module's (scope "module"): the extension is loaded if it is not
yet, and stays loaded for the next file (less its watch of jitted calls' indices,
notebook/notes/index_calls.py, which costs each program a compile more). `fresh=True` unloads and
loads it again around each test (scope "function" unless `scope` says otherwise), so a test
starts with no compiled
cells, logs or selected device left by another; `kernel` (what makes a stand-in for
ipykernel's kernel, with a comm manager) is set on the shell while the extension loads and
removed afterwards, as for the comm's tests. The shell itself is never closed: IPython keeps one per process.
Each setup starts from a new kernel's names (what other files' cells bound is dropped), so
a test's result does not depend on which tests ran before it in that process.

A test runs a numbered cell with `run_cell(shell, source)` (a `Ran`: what the cell did,
failed or not) or `ran_ok(shell, source)` (the same, asserting it succeeded); `ok_cell` gives
just its value and displayed texts. A cell expected to fail is run with `ran_failing(shell,
source)`: a `Ran` whose `error` is the exception, `printed` the traceback the shell printed,
`card` the error card's JSON (or None) and `folded` the tracebacks the cards fold.
"""
import re

import pytest

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def shell_fixture(setup: str = "", *, store_history: bool = False, fresh: bool = False,
                  kernel=None, scope: str | None = None):
    """A pytest fixture named `shell`: the shell with jxkernel loaded, after running `setup`
    (one cell; `store_history` numbers it as a notebook would)."""
    fresh = fresh or kernel is not None

    @pytest.fixture(scope=scope or ("function" if fresh else "module"))
    def shell():
        pytest.importorskip("IPython")
        from IPython.core.interactiveshell import InteractiveShell
        from jxkernel.notebook.notes import index_calls
        sh = InteractiveShell.instance()
        # the user's names as a new kernel's: the shell is the process's one, and what another
        # file's cells bound (`lax`, say) changes what a card writes (`lax.` or `jax.lax.`)
        _forget_user_names(sh)
        # and what earlier files' traces read from outside (a global `k`, an object's fields):
        # a former kernel's, whose changes a cell of this file must not be told of
        from jxkernel.views.outside_values import forget
        forget()
        if fresh:
            sh.run_line_magic("unload_ext", "jxkernel")
        if kernel is not None:
            sh.kernel = kernel()
        sh.run_line_magic("load_ext", "jxkernel")
        index_calls.install()       # (taken off after the file: see below)
        if setup:
            sh.run_cell(setup, store_history=store_history)
        yield sh
        close_logs(sh)
        if fresh:
            sh.run_line_magic("unload_ext", "jxkernel")
            if kernel is not None:
                del sh.kernel
            sh.run_line_magic("load_ext", "jxkernel")
        # the extension stays loaded for the next file, but not its watch of jitted calls'
        # indices: each program a later file's jit compiles would compile its checks too (a
        # sixth more time for tests/lax), though those files test no note
        index_calls.uninstall()

    return shell


def close_logs(sh):
    """Close the recompilation logs (`%jxcompiles`' live widgets) the shell's cells made, as
    unloading the extension does. Each stays subscribed to every compile event and redraws its
    whole table at each: left open by a module's shell (which stays loaded), the 62 of
    test_notebook_recompile_audit.py made each compile of the files after it in that process
    redraw 62 tables (that file and test_notebook_compile_notes.py: 15 s of CPU apart, 68 s
    one after the other). A test file calls it after each test where its logs are its own."""
    from jxkernel.notebook import state_of
    state = state_of(sh)
    for log in list(state.logs) if state is not None else []:
        log.close()


@pytest.fixture
def logs_closed(request):
    """The `%jxcompiles` logs each test's cells made, closed after it (close_logs), for a file
    whose module-scoped `shell` outlives its tests: import it into the test file and name it,
    `pytestmark = pytest.mark.usefixtures("logs_closed")`."""
    sh = request.getfixturevalue("shell") if "shell" in request.fixturenames else None
    yield
    if sh is not None:
        close_logs(sh)


def _forget_user_names(sh):
    """Drop the names cells bound (IPython's own entries, `In`, `Out`, `_`, ..., stay, and
    the module's `__name__`, `__builtins__`: a class a cell defines takes its `__module__`)."""
    for name in list(sh.user_ns):
        if name not in sh.user_ns_hidden and not (name.startswith("__") and name.endswith("__")):
            del sh.user_ns[name]


def ok_cell(shell, source):
    """Run `source` as a numbered cell and assert it succeeded: (its value, the text/plain of
    each output it displayed)."""
    from IPython.utils.capture import capture_output
    with capture_output() as cap:
        result = shell.run_cell(source, store_history=True)
    assert result.success, result.error_in_exec or result.error_before_exec
    return result.result, [o.data["text/plain"] for o in cap.outputs]


class CardsShown:
    """The error cards among what a cell displayed (`_displayed`: the data of each displayed
    output): of a Ran here, and of real_kernel.py's KernelCell."""

    @property
    def card_outputs(self) -> list:
        """The displayed outputs that are error cards (each its MIME bundle: the card's JSON
        under error_cards.MIME, its text/plain, its text/html)."""
        from jxkernel.views import error_cards
        return [data for data in self._displayed if error_cards.MIME in data]

    @property
    def cards(self) -> list:
        """The JSON of each error card shown."""
        from jxkernel.views import error_cards
        return [data[error_cards.MIME] for data in self.card_outputs]

    @property
    def card(self):
        """The first error card's JSON, or None where no card was shown."""
        return self.cards[0] if self.cards else None


class Ran(CardsShown):
    """What one cell did: its value, its error (None where it succeeded), its execution count,
    what it printed (without colour codes) and the data of each output it displayed."""

    def __init__(self, result, captured):
        self.result = result.result
        self.count = result.execution_count
        self.error = result.error_in_exec or result.error_before_exec
        self.stdout = ANSI.sub("", captured.stdout)
        self.stderr = ANSI.sub("", captured.stderr)
        self.outputs = [o.data for o in captured.outputs]

    @property
    def printed(self) -> str:
        """What the cell printed, stdout then stderr (a failing cell's traceback is there)."""
        return self.stdout + self.stderr

    @property
    def _displayed(self) -> list:
        return self.outputs

    @property
    def folded(self) -> list:
        """The traceback text each error card folds."""
        return [card["traceback"] for card in self.cards]

    @property
    def texts(self):
        """The text/plain of each displayed output."""
        return [o["text/plain"] for o in self.outputs]

    def shown(self, needle):
        """The displayed texts that contain `needle`."""
        return [t for t in self.texts if needle in t]

    @property
    def notes(self):
        """The compile notes shown (a cell shows at most one)."""
        return [o for o in self.outputs if o["text/plain"].startswith("⚙")]


def run_cell(shell, source, *, store_history=True, tells_a_bug=False, **kw) -> Ran:
    """Run `source` as a numbered cell (`store_history=True`), capturing what it shows. A bug
    jxkernel told in the cell (an error card or a note that raised while made: the learner sees
    none) fails here, with its traceback, unless the test makes one on purpose (`tells_a_bug`,
    with the test's own mark of that name, which tests/support/bugs_met.py reads)."""
    from IPython.utils.capture import capture_output
    from jxkernel.core import told_bugs
    before = told_bugs.last_serial()
    with capture_output() as cap:
        result = shell.run_cell(source, store_history=store_history, **kw)
    met = told_bugs.told_since(before)
    assert tells_a_bug or not met, \
        f"jxkernel told a bug of its own in the cell:\n{met[0].traceback}"
    return Ran(result, cap)


def ran_ok(shell, source, **kw) -> Ran:
    """run_cell, asserting the cell succeeded (its error and what it printed otherwise)."""
    ran = run_cell(shell, source, **kw)
    assert ran.error is None, f"{type(ran.error).__name__}: {ran.error}\n{ran.stdout}"
    return ran


def ran_failing(shell, source, *, recovers=False) -> Ran:
    """Run `source` as a cell that is not numbered (`store_history=False`: its traceback names
    it as such) and assert it failed. `recovers`: assert too that the shell runs a cell
    afterwards (`_ok = 1 + 1`)."""
    ran = run_cell(shell, source, store_history=False)
    assert ran.error is not None, f"the cell did not fail\n{ran.printed}"
    if recovers:
        assert shell.run_cell("_ok = 1 + 1").success and shell.user_ns["_ok"] == 2
    return ran
