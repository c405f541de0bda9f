"""The IPython shell the notebook and views tests run cells in: the process's one
InteractiveShell (`InteractiveShell.instance()`) with `%load_ext jxkernel`. A test file makes
its `shell` fixture here, with the cell that sets up its names:

    shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp")

By default the fixture is the module's (scope "module"): the extension is loaded if it is not
yet, and stays loaded for the next file. `fresh=True` unloads and loads it again around each
test (scope "function" unless `scope` says otherwise), so a test starts with no compiled
cells, logs or selected device left by another; `kernel` (what makes a stand-in for
ipykernel's kernel, with a comm manager) is set on the shell while the extension loads and
removed afterwards, as for the comm's tests. The shell itself is never closed: IPython keeps one per process.
Each setup starts from a new kernel's names (what other files' cells bound is dropped), so
a test's result does not depend on which tests ran before it in that process.
"""
import pytest


def shell_fixture(setup: str = "", *, store_history: bool = False, fresh: bool = False,
                  kernel=None, scope: str | None = None):
    """A pytest fixture named `shell`: the shell with jxkernel loaded, after running `setup`
    (one cell; `store_history` numbers it as a notebook would)."""
    fresh = fresh or kernel is not None

    @pytest.fixture(scope=scope or ("function" if fresh else "module"))
    def shell():
        pytest.importorskip("IPython")
        from IPython.core.interactiveshell import InteractiveShell
        sh = InteractiveShell.instance()
        # the user's names as a new kernel's: the shell is the process's one, and what another
        # file's cells bound (`lax`, say) changes what a card writes (`lax.` or `jax.lax.`)
        _forget_user_names(sh)
        if fresh:
            sh.run_line_magic("unload_ext", "jxkernel")
        if kernel is not None:
            sh.kernel = kernel()
        sh.run_line_magic("load_ext", "jxkernel")
        if setup:
            sh.run_cell(setup, store_history=store_history)
        yield sh
        if fresh:
            sh.run_line_magic("unload_ext", "jxkernel")
            if kernel is not None:
                del sh.kernel
            sh.run_line_magic("load_ext", "jxkernel")

    return shell


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
