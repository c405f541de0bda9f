"""The note under a cell that read an array at a static index out of bounds
(jxkernel/notebook/notes/index_notes.py): JAX clamps the index and raises nothing, where NumPy
raises IndexError. What it says is checked here against the behaviour it names: the values read are
the clamped index's (JAX 0.10.2's: tests/numpy/test_numpy_indexing.py's
test_out_of_bounds_reads_clamp), NumPy raises, and with `jax_check_static_indices` on the line
raises IndexError with JAX 0.10.2's words."""
import re

import numpy as np
import pytest

pytest.importorskip("IPython")

import jxkernel
import dropped_updates_cases as cases  # tests/data
import index_array_cases  # tests/data
import locations  # tests/support
from ipython_shell import ran_failing, ran_ok, shell_fixture  # tests/support

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp, numpy as np\n"
                      "x = jnp.arange(3)",
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


def test_a_loops_first_read_out_of_bounds_is_the_one_told(shell):
    # 30 reads out of bounds at one line: the note's record keeps the line's first (5), which
    # the later ones pushed out of it before
    (note,) = _notes(ran_ok(shell, "for k in range(5, 35):\n    y = x[k]"))
    assert note.startswith("⚠ index 5 is past the end of axis 0 (size 3)"), note


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


# ------------------------------------------------------------------ index arrays
ARRAYS = locations.jax_answers("index_array_reference.json")
ARRAY_TITLE = (r"⚠ index (-?\d+) in the index array is (past the end|before the start) of axis "
               r"(\d) \(size (\d+)\)(?: \(and (\d+) more of its indices\))? \(at In\[\d+\]:1\): ")


def test_jxkernel_reads_and_updates_with_these_index_arrays_as_jax_did():
    assert index_array_cases.run(jxkernel) == ARRAYS


@pytest.mark.parametrize("name", list(index_array_cases.READS))
def test_an_index_array_read_out_of_bounds_is_told_with_the_index_jax_read(shell, name):
    expression = index_array_cases.READS[name]
    (note,) = _notes(ran_ok(shell, f"out = {expression}"))
    title = note.splitlines()[0]
    found = re.fullmatch(ARRAY_TITLE + r"JAX read index (\d+) instead, where NumPy raises "
                         r"IndexError", title)
    assert found, title
    index, _, _, size, more, read = found.groups()
    # JAX read there the element at the index the note names (each element is its index
    # plus the axis's first value)
    answer = np.ravel(ARRAYS[name]["default"]["result"])
    assert index_array_cases.FIRST.get(name, 0.0) + int(read) in answer
    assert int(read) == (int(size) - 1 if int(index) >= 0 else 0)
    # how many more of the array's indices are out of bounds, counted as NumPy counts them
    values = np.ravel(eval(re.search(r"array\((.*?)\)\]", expression).group(1)))
    normed = np.where(values < 0, values + int(size), values)
    assert int(more or 0) + 1 == np.count_nonzero((normed < 0) | (normed >= int(size)))
    with pytest.raises(IndexError):
        np.zeros(int(size))[values]
    # the option the note says does not check an index array did not, for JAX 0.10.2
    assert ARRAYS[name]["checked"] == ARRAYS[name]["default"]
    assert "checks static integer indices only, not an index array" in note
    assert "jax_check_static_indices', True), then it raises" not in note


@pytest.mark.parametrize("name", list(index_array_cases.UPDATES))
def test_an_index_array_update_out_of_bounds_is_told_as_dropped(shell, name):
    expression = index_array_cases.UPDATES[name]
    (note,) = _notes(ran_ok(shell, f"out = {expression}"))
    title = note.splitlines()[0]
    assert re.fullmatch(ARRAY_TITLE + "JAX dropped this update, where NumPy raises IndexError",
                        title), title
    # the update landed in bounds only: arange(10) changed nowhere but at the indices in bounds
    answer = np.asarray(ARRAYS[name]["default"]["result"])
    values = np.ravel(eval(re.search(r"array\((.*?)\)\]", expression).group(1)))
    inside = values[(values >= -10) & (values < 10)] % 10
    assert np.flatnonzero(answer != np.arange(10)).tolist() == sorted(inside.tolist())
    assert ARRAYS[name]["checked"] == ARRAYS[name]["default"]
    assert "checks static integer reads only, not index arrays, not updates" in note
    assert "mode='drop'" in note


@pytest.mark.parametrize("name", list(index_array_cases.VMAPPED))
def test_an_eager_vmaps_index_out_of_bounds_is_told_as_an_examples(shell, name):
    # the function's index is each example's scalar: traced, yet under an eager vmap the
    # batch's indices are known when the line runs; JAX 0.10.2 clamps and drops there, with
    # jax_check_static_indices on too
    expression = index_array_cases.VMAPPED[name]
    (note,) = _notes(ran_ok(shell, f"out = {expression}"))
    title = note.splitlines()[0]
    batch = [int(v) for v in re.search(r"\(jnp\.array\((.*?)\)\)$", expression).group(1)
             .strip("[]").split(",")]
    out = [v for v in batch if not -10 <= v < 10]
    more = f" (and {len(out) - 1} more of the batch's indices)" if len(out) > 1 else ""
    then = "JAX read index 9 instead" if name.startswith("read") else "JAX dropped this update"
    assert title == (f"⚠ index {out[0]} in an example of a vmapped batch is past the end of "
                     f"axis 0 (size 10){more} (at In[{shell.execution_count - 1}]:1): {then}, "
                     "where NumPy raises IndexError"), title
    answer = ARRAYS[name]["default"]["result"]
    assert np.asarray(shell.user_ns["out"]).tolist() == answer
    if name.startswith("read"):
        assert answer == [1.0, 9.0]                             # index 12 read as 9
        assert "checks static integer indices only, not a vmapped one" in note
    else:                                                       # rows 12 and -11 unchanged
        assert answer[1:] == [list(range(10))] * 2
        assert "checks static integer reads only, not vmapped indices, not updates" in note
    assert ARRAYS[name]["checked"] == ARRAYS[name]["default"]


def test_the_fixes_it_names_for_an_index_array_get_no_note_and_do_what_it_says(shell):
    for name, expression in index_array_cases.FIXES.items():
        assert _notes(ran_ok(shell, f"out = {expression}")) == [], name
        assert np.asarray(shell.user_ns["out"]).tolist() == ARRAYS[name]["default"]["result"]
    assert ARRAYS["read_fill"]["default"]["result"] == [3.0, -1.0]     # the fill value read


@pytest.mark.parametrize("name", list(index_array_cases.UNWRAPPED))
def test_a_negative_integer_not_wrapped_reads_index_0_as_told(shell, name):
    # JAX 0.10.2 gathers it (its dynamic slice refuses a negative start not wrapped) and
    # clamps it to 0: no error
    (note,) = _notes(ran_ok(shell, f"out = {index_array_cases.UNWRAPPED[name]}"))
    assert re.search(r"index -1 is before the start of axis \d \(size \d\) \(at In\[\d+\]:1\): "
                     "JAX read index 0 instead", note), note
    assert np.asarray(shell.user_ns["out"]).tolist() == ARRAYS[name]["default"]["result"]


def test_an_index_array_in_bounds_traced_or_in_library_code_gets_no_note(shell):
    assert _notes(ran_ok(shell, "y = x[np.array([0, 2, -3])] + x[jnp.array([1])]")) == []
    # under jit the array's values are not known when the line runs: the jitted call's own
    # note tells it (notebook/notes/index_calls.py, tests/notebook/test_index_calls.py)
    (told,) = _notes(ran_ok(shell, "y = jax.jit(lambda a, i: a[i])(x, jnp.array([7]))"))
    assert ", jitted (at " in told
    # jnp.take reads a fill value by default (NaN), which shows: no note
    assert _notes(ran_ok(shell, "y = jnp.take(jnp.arange(3.), np.array([7]))")) == []


def test_without_the_notebook_an_index_arrays_values_are_not_looked_at(monkeypatch):
    # a script's eager x[idx] must not wait for idx and copy it to the host: only the loaded
    # extension has index arrays looked at
    from jxkernel.numpy import indexing
    monkeypatch.setattr(indexing, "look_at_index_arrays", False)
    indexing.clamped_indices.clear()
    x = jxkernel.numpy.arange(3)
    x[np.array([5])], x[jxkernel.numpy.array([5])], x[5]
    assert [r.in_array for r in indexing.clamped_indices] == [0]       # the integer's alone
    indexing.clamped_indices.clear()
