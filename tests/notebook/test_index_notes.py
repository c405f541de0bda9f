"""The note under a cell that read an array at a static index out of bounds
(jxkernel/notebook/index_notes.py): JAX clamps the index and raises nothing, where NumPy raises
IndexError. What it says is checked here against the behaviour it names: the values read are
the clamped index's (JAX 0.10.2's: tests/numpy/test_numpy_indexing.py's
test_out_of_bounds_reads_clamp), NumPy raises, and with `jax_check_static_indices` on the line
raises IndexError with JAX 0.10.2's words."""
import re

import numpy as np
import pytest

pytest.importorskip("IPython")

import jxkernel
import dropped_updates_cases as cases  # tests/data
import locations  # tests/support
from ipython_shell import ran_failing, ran_ok, shell_fixture  # tests/support

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp\nx = jnp.arange(3)",
                      fresh=True)
NOTE = "⚠ index "


def _notes(ran) -> list:
    return ran.shown(NOTE)


def test_a_read_past_the_end_is_told_with_the_index_jax_read(shell):
    ran = ran_ok(shell, "y = x[5]")
    (note,) = _notes(ran)
    title = note.splitlines()[0]
    assert re.fullmatch(r"⚠ index 5 is past the end of axis 0 \(size 3\) \(at In\[\d+\]:1\): "
                        r"JAX read index 2 instead, where NumPy raises IndexError", title), title
    assert int(shell.user_ns["y"]) == 2                      # x[2], as the note says
    with pytest.raises(IndexError):
        np.arange(3)[5]                                      # NumPy's answer, as it says
    assert "jax.config.update('jax_check_static_indices', True)" in note


def test_a_read_before_the_start_and_under_jit_are_told_too(shell):
    (note,) = _notes(ran_ok(shell, "y = x[-5]"))
    assert "index -5 is before the start of axis 0 (size 3)" in note
    assert "JAX read index 0 instead" in note and int(shell.user_ns["y"]) == 0
    ran = ran_ok(shell, "z = jax.jit(lambda a: a[1, 4])(jnp.ones((2, 3)))")
    (note,) = _notes(ran)
    assert "index 4 is past the end of axis 1 (size 3)" in note


def test_in_bounds_fill_mode_and_a_line_told_before_get_no_note(shell):
    assert _notes(ran_ok(shell, "y = x[2] + x[-3] + x[:5].sum()")) == []
    assert _notes(ran_ok(shell, "y = x.at[5].get(mode='fill', fill_value=-1)")) == []
    ran_ok(shell, "def read(i):\n    return x[i]")
    assert len(_notes(ran_ok(shell, "read(7)"))) == 1
    assert _notes(ran_ok(shell, "read(8)")) == []          # the same line: told once


def test_the_fix_it_names_raises_as_numpy_does(shell):
    ran = ran_failing(shell, "jax.config.update('jax_check_static_indices', True)\nx[5]",
                      recovers=True)
    shell.run_cell("jax.config.update('jax_check_static_indices', False)")
    assert isinstance(ran.error, IndexError)
    # JAX 0.10.2 raises these words for the same line with the option on
    assert str(ran.error) == "index 5 out of bounds for axis 0 with size 3 (normalize_indices=True)"


# ------------------------------------------------------------------ updates JAX drops
THEIRS = locations.jax_answers("dropped_updates_reference.json")


def test_jxkernel_drops_these_updates_as_jax_did():
    assert cases.run(jxkernel) == THEIRS


@pytest.mark.parametrize("name", [n for n in cases.CASES if n != "set_mode_drop"])
def test_an_update_out_of_bounds_is_told_as_dropped(shell, name):
    expression, _ = cases.CASES[name]
    (note,) = _notes(ran_ok(shell, f"out = {expression}"))
    title = note.splitlines()[0]
    assert re.fullmatch(r"⚠ index -?\d+ is (past the end|before the start) of axis \d \(size \d+"
                        r"\) \(at In\[\d+\]:1\): JAX dropped this update, where NumPy raises "
                        r"IndexError", title), title
    # what it says is what JAX did: the array came back unchanged, and the option it names
    # checks reads only (JAX 0.10.2 raised nothing for the update with it on)
    assert THEIRS[name]["default"]["unchanged"] is True
    assert THEIRS[name]["checked"] == THEIRS[name]["default"]
    assert "the array is returned unchanged there" in note
    assert "checks reads only, not updates" in note
    # NumPy raises at that index
    index = int(re.search(r"index (-?\d+)", title).group(1))
    size = int(re.search(r"size (\d+)", title).group(1))
    with pytest.raises(IndexError):
        np.zeros(size)[index] = 1


def test_mode_drop_says_dropping_is_meant_and_gets_no_note(shell):
    assert "mode='drop'" in _notes(ran_ok(shell, "out = x.at[7].set(1)"))[0]
    expression, _ = cases.CASES["set_mode_drop"]
    assert THEIRS["set_mode_drop"]["default"]["unchanged"] is True
    assert _notes(ran_ok(shell, f"out = {expression}")) == []


def test_jxkernels_own_indexing_is_not_told_at_the_learners_line(shell):
    # an index of jxkernel's own inside a jnp function (compiled here as if it were one of
    # jxkernel's files) is not the learner's: only the line that wrote x[i] or x.at[i] is
    from jxkernel.numpy import indexing
    inside = {"jnp": shell.user_ns["jnp"]}
    exec(compile("def pad_last(a):\n    return a.at[a.shape[0]].set(1), a[a.shape[0]]\n",
                 indexing.__file__.replace("indexing.py", "manipulation.py"), "exec"), inside)
    shell.user_ns["pad_last"] = inside["pad_last"]
    assert _notes(ran_ok(shell, "out = pad_last(jnp.arange(3))")) == []
    assert len(_notes(ran_ok(shell, "out = jnp.arange(3).at[5].set(1)"))) == 1
