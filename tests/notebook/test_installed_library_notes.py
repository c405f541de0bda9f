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
from ipython_shell import ran_ok, shell_fixture  # noqa: E402
from registered_library import import_library  # noqa: E402
from note_words import here  # noqa: E402  (tests/support)

shell = shell_fixture("import jxkernel as jax\nimport jxkernel.numpy as jnp", store_history=True)

# a library's jit called by the library's own line (treescope's summaries, which nnx.display
# calls): `show` is what the learner calls
SUMMARY = ("import jxkernel as jax\n"
           "@jax.jit\n"
           "def summarize(x):\n"
           "    return x.sum()\n"
           "def show(x):\n"
           "    return summarize(x)\n")


def notes(shell, source) -> list:
    """The compile notes a cell that succeeds shows."""
    return [o["text/plain"] for o in ran_ok(shell, source).outputs
            if o.get("text/plain", "").startswith("⚙")]


@pytest.mark.parametrize("folder, told", [("site-packages", False), ("mine", True)])
def test_an_installed_packages_recompile_is_not_told_as_yours(shell, tmp_path, folder, told):
    (tmp_path / folder).mkdir()
    name = f"summaries_{'installed' if not told else 'own'}"
    shell.user_ns["lib"] = import_library(tmp_path / folder, name, SUMMARY)
    assert notes(shell, "lib.show(jnp.ones(3))") == []
    found = notes(shell, "lib.show(jnp.ones((2, 2)))")
    if told:
        (note,) = found
        assert note.startswith(here("⚙ summarize compiled again (compile #2")), note
        return
    assert found == []
    config.update("jxkernel_compile_notes", "all")
    try:
        (note,) = notes(shell, "lib.show(jnp.ones(5))")
    finally:
        config.update("jxkernel_compile_notes", "recompiles")
    assert re.search(here(r"1 compile\(s\) of libraries' own functions, for your calls: "
                          r"summarize \(summaries_installed\) \[In\[\d+\]:1\]"), note), note
    assert "compiled again" not in note and "fix:" not in note, note


def _compiles_counted(shell) -> tuple:
    """(the status bar's count of the learner's compiles, of the others), as the comm sends
    them."""
    from jxkernel.notebook.comm import Channel
    from jxkernel.notebook.state import State
    state = Channel(State(shell=None)).snapshot()
    return state["compiles"], state["other_compiles"]


def test_the_note_the_log_and_the_status_bar_agree_an_installed_package_is_not_yours(
        shell, tmp_path):
    """compile_record.whose, one answer for all three: no note, %jxcompiles lists it folded
    with libraries' functions named with its package (not among the learner's functions), and
    the status bar counts it with the others, not as the learner's."""
    from jxkernel.core import compile_record
    from jxkernel.notebook.widgets.recompiles import RecompileLog
    (tmp_path / "site-packages").mkdir()
    shell.user_ns["lib2"] = import_library(tmp_path / "site-packages", "summaries_counted",
                                           SUMMARY.replace("summarize", "tally"))
    mine, others = _compiles_counted(shell)
    assert notes(shell, "lib2.show(jnp.ones(3)); lib2.show(jnp.ones(4))") == []
    (first, again) = [e for e in compile_record.compile_events()
                      if e.source and "summaries_counted" in e.source]
    assert compile_record.whose(again) == compile_record.LIBRARY
    assert again.package == "summaries_counted" and again.origin == compile_record.USER
    assert _compiles_counted(shell) == (mine, others + 2)
    log = RecompileLog(timeline=False)
    try:
        text = log.text_repr()
        theirs = text.split("function: misses / hits")[1]
        assert "tally" not in theirs.split(here("compile(s) of"))[0]
        assert re.search(here(r"\d+ compile\(s\) of libraries' own functions, for your calls "
                              r"\(\d+ of them, in .*summaries_counted.*\), folded"), text), text
        log.filter.value = "(library functions)"
        assert "tally (summaries_counted): x: f32[3] -> f32[4]" in log.text_repr()
    finally:
        log.close()


def test_a_learners_package_installed_from_the_kernels_folder_is_theirs(
        shell, tmp_path, monkeypatch):
    """The learner's own project installed non-editable (`pip install .`): its file under
    site-packages is the same file the kernel's folder holds, so its recompiles are the
    learner's to fix, noted as theirs."""
    from jxkernel.core import source_info
    (tmp_path / "site-packages").mkdir()
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "summaries_mine.py").write_text(SUMMARY)
    monkeypatch.chdir(tmp_path / "project")
    shell.user_ns["lib3"] = import_library(tmp_path / "site-packages", "summaries_mine",
                                           SUMMARY)
    assert source_info.installed_package(shell.user_ns["lib3"].__file__) is None
    assert notes(shell, "lib3.show(jnp.ones(3))") == []
    (note,) = notes(shell, "lib3.show(jnp.ones(4))")
    assert note.startswith(here("⚙ summarize compiled again (compile #2")), note
    monkeypatch.chdir(tmp_path)          # elsewhere, the same file is the package's
    assert source_info.installed_package(shell.user_ns["lib3"].__file__) == "summaries_mine"


def test_a_jit_of_a_librarys_function_called_by_the_learner_is_theirs(shell, tmp_path):
    """`step = jax.jit(model.apply)` (Flax linen's apply, defined in site-packages) made and
    called in the learner's cells: its arguments are the learner's to pad or make static, so
    its recompile is theirs, noted, counted and listed as theirs; the same function called by
    the library's own line is the library's."""
    from jxkernel.core import compile_record
    (tmp_path / "site-packages").mkdir()
    shell.user_ns["lib4"] = import_library(tmp_path / "site-packages", "applying",
                                           SUMMARY.replace("@jax.jit\n", ""))
    assert notes(shell, "apply4 = jax.jit(lib4.summarize)\napply4(jnp.ones(3))") == []
    (note,) = notes(shell, "apply4(jnp.ones(4))")
    assert note.startswith(here("⚙ summarize compiled again (compile #2")), note
    (event,) = [e for e in compile_record.compile_events()[-1:]]
    assert compile_record.whose(event) == compile_record.USER and event.package is None


WRAPPER = ("import jxkernel as jax\n"
           "def jit(f):\n"
           "    jitted = jax.jit(f)\n"
           "    def call(*args):\n"
           "        return jitted(*args)\n"
           "    return call\n")


def test_a_step_jitted_by_a_library_is_noted_at_the_learners_line(shell, tmp_path, caplog):
    """nnx.jit's step: the learner's function, called through the library's wrapper (Flax's
    compilation.py:852 calls the jit). JAX's log names the library's line; the note names the
    learner's innermost line that called into it, its cell and line."""
    import logging
    (tmp_path / "site-packages").mkdir()
    shell.user_ns["wrap"] = import_library(tmp_path / "site-packages", "wrapping_jit", WRAPPER)
    notes(shell, "step = wrap.jit(lambda x: x * 2)\nstep(jnp.ones(3))")
    with config.override("jax_explain_cache_misses", True), \
            caplog.at_level(logging.WARNING, logger="jxkernel.compile_log"):
        (note,) = notes(shell, "y = 1\nstep(jnp.ones(4))")
    count = shell.execution_count - 1
    assert note.startswith(here(f"⚙ <lambda> compiled again (compile #2, at In[{count}]:2)")), note
    assert f"called at In[{count}]:2:  step(jnp.ones(4))" in note, note
    assert "wrapping_jit" not in note, note
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert re.search(r"TRACING CACHE MISS at \S*wrapping_jit\.py:5", logged), logged


LAYERS = ("import jxkernel.numpy as jnp\n"
          "def dense(x):\n"
          "    y = x * 2\n"
          "    y = y + 1\n"
          "    y = jnp.sin(y)\n"
          "    return y - 3\n"
          "def loss(y):\n"
          "    z = y * y\n"
          "    return z.sum()\n")


def test_a_cards_origin_folds_a_librarys_steps_into_one_line_per_package(shell, tmp_path):
    """A concretization card's origin through an installed library's lines (learner11's listed
    ~25 steps through Flax's and Optax's files): each run of one package's steps is one line,
    "… 4 steps inside layers_pkg", the learner's own steps kept as they are; the card's JSON
    keeps every step, each with its package."""
    from jxkernel.views import error_cards
    (tmp_path / "site-packages").mkdir()
    shell.user_ns["layers_pkg"] = import_library(tmp_path / "site-packages", "layers_pkg",
                                                 LAYERS)
    with capture_output() as cap:
        shell.run_cell("@jax.jit\n"
                       "def step(x):\n"
                       "    h = layers_pkg.dense(x)\n"
                       "    h = h / 4\n"
                       "    return float(layers_pkg.loss(h))\n"
                       "step(jnp.ones(3))", store_history=True)
    (card,) = [o.data for o in cap.outputs if error_cards.MIME in o.data]
    steps = card[error_cards.MIME]["origin"]["steps"]
    assert [s["package"] for s in steps] == ["layers_pkg"] * 4 + [None] + ["layers_pkg"] * 2
    text = card["text/plain"]
    chain = text.split("where it came from:\n")[1].split("\n  why:")[0].splitlines()[1:]
    assert [line.strip().split("   (")[0] for line in chain] == [
        "… 4 steps inside layers_pkg", "→ div → f32[3]", "… 2 steps inside layers_pkg"], text
    assert "h = h / 4" in chain[1], chain
