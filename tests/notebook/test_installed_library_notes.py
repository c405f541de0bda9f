"""A compile note under a cell never tells a function of an installed package as the
learner's (compile_notes.installed_function): treescope's array summaries, jitted once per
array shape when nnx.display(model) renders a model, were noted "compiled again ... fix: pad
the arrays to a few sizes", advice about a function the learner never called. The same
function in a file of the learner's own still gets its note."""
import re

import pytest

pytest.importorskip("IPython")

from IPython.utils.capture import capture_output  # noqa: E402

from jxkernel import config  # noqa: E402
from ipython_shell import shell_fixture  # noqa: E402
from registered_library import import_library  # noqa: E402

shell = shell_fixture("import jxkernel as jax\nimport jxkernel.numpy as jnp", store_history=True)

SUMMARY = ("import jxkernel as jax\n"
           "@jax.jit\n"
           "def summarize(x):\n"
           "    return x.sum()\n")


def notes(shell, source) -> list:
    with capture_output() as cap:
        result = shell.run_cell(source, store_history=True)
    assert result.success, cap.stdout
    return [o.data["text/plain"] for o in cap.outputs
            if o.data.get("text/plain", "").startswith("⚙")]


@pytest.mark.parametrize("folder, told", [("site-packages", False), ("mine", True)])
def test_an_installed_packages_recompile_is_not_told_as_yours(shell, tmp_path, folder, told):
    (tmp_path / folder).mkdir()
    name = f"summaries_{'installed' if not told else 'own'}"
    shell.user_ns["lib"] = import_library(tmp_path / folder, name, SUMMARY)
    assert notes(shell, "lib.summarize(jnp.ones(3))") == []
    found = notes(shell, "lib.summarize(jnp.ones((2, 2)))")
    if told:
        (note,) = found
        assert note.startswith("⚙ summarize compiled again (compile #2"), note
        return
    assert found == []
    config.update("jxkernel_compile_notes", "all")
    try:
        (note,) = notes(shell, "lib.summarize(jnp.ones(5))")
    finally:
        config.update("jxkernel_compile_notes", "recompiles")
    assert re.search(r"1 compile\(s\) of libraries' own functions, for your calls: summarize "
                     r"\(summaries_installed\) \[In\[\d+\]:1\]", note), note
    assert "compiled again" not in note and "fix:" not in note, note
