"""The note under a cell whose line made an updated copy of an array with `.at[...]` and
dropped it (jxkernel/notebook/notes/update_notes.py): JAX arrays are immutable, so `x.at[0].set(10)`
on a line of its own leaves x as it was, and JAX says nothing. What the note says is checked
against JAX 0.10.2 (tests/data/dropped_copies_reference.json): the array the cell leaves is
unchanged, and the line the note writes keeps the update."""
import re

import pytest

pytest.importorskip("IPython")

import jxkernel
import dropped_copies_cases as cases  # tests/data
import locations  # tests/support
from ipython_shell import ran_failing, ran_ok, shell_fixture  # tests/support

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp", fresh=True)
THEIRS = locations.jax_answers("dropped_copies_reference.json")


def _notes(ran) -> list:
    return ran.shown("made a new array") + ran.shown("returned a new array")


def test_jxkernel_leaves_these_arrays_as_jax_did():
    assert cases.run(jxkernel) == THEIRS


@pytest.mark.parametrize("name", list(cases.CASES))
def test_a_dropped_copy_is_told_with_a_line_that_keeps_it(shell, name):
    source, line, fix, holds = cases.CASES[name]
    ran = ran_ok(shell, source)
    (note,) = _notes(ran)
    title, *body = note.splitlines()
    call = fix.strip().split(" = ", 1)[1]
    receiver = re.split(r"\.at\[|\.sort\(", call)[0]
    assert re.fullmatch(rf"⚠ {re.escape(call)} made a new array, and nothing kept it \(at "
                        rf"In\[\d+\]:{line}\): {re.escape(receiver)} is unchanged", title), title
    assert body[-1] == "  " + fix                     # the line, as the cell indents it
    # what it claims, as JAX did it: the cell left x unchanged, which the fixed cell keeps
    # updated under the name it assigns
    assert shell.user_ns["x"].tolist() == THEIRS[name]["as_written"]
    assert THEIRS[name]["kept"] != THEIRS[name]["as_written"]
    ran_ok(shell, cases.fixed(name))
    assert shell.user_ns[holds].tolist() == THEIRS[name]["kept"]


@pytest.mark.parametrize("name", list(cases.BEYOND))
def test_a_copy_that_a_name_would_not_keep_past_the_function_is_kept_where_it_lasts(shell,
                                                                                    name):
    """`self.w.at[0].set(1.)` in a method, `v.at[0].set(5.)` in a function that does not return
    v: the note's code was `updated = self.w...` and `v = v...`, which JAX 0.10.2 runs with the
    caller's array unchanged still (earlier_fix). It puts the copy in the field of an object
    that takes it, returns an updated copy of a frozen one, returns the parameter; the fixed
    cell (the note's code, and the caller keeping what is returned, as the note says) ends
    with the array JAX updated."""
    source, line, code, fixed, _, holds = cases.BEYOND[name]
    ran = ran_ok(shell, source)
    (note,) = _notes(ran)
    assert f"]:{line}): self.w is unchanged" in note or f"]:{line}): v is unchanged" in note
    lines = note.splitlines()
    assert lines[-len(code.splitlines()):] == ["  " + c for c in code.splitlines()], note
    theirs = THEIRS[f"beyond:{name}"]
    assert shell.user_ns[holds].tolist() == theirs["as_written"] == theirs["earlier_fix"]
    assert _notes(ran_ok(shell, fixed)) == []
    assert shell.user_ns[holds].tolist() == theirs["kept"] != theirs["as_written"]
    if name == "a_parameter_not_returned":
        assert "Keep what reset returns where it is called (x = reset(x))" in note
    if name == "a_field_of_a_frozen_dataclass":
        assert "keep it where bump is called (obj = obj.bump())" in note


def _listed(value):
    return [a.tolist() for a in value] if isinstance(value, list) else value.tolist()


@pytest.mark.parametrize("name", list(cases.LOOPS))
def test_a_loops_item_updated_is_told_to_be_put_back_into_what_the_loop_goes_over(shell, name):
    source, line, fix, over = cases.LOOPS[name]
    (note,) = _notes(ran_ok(shell, source))
    title, *body = note.splitlines()
    assert re.search(rf"made a new array, and nothing kept it \(at In\[\d+\]:{line}\)", title)
    # the lines it writes, pasted in place of the loop's line and the told line, are the fix
    lines = source.splitlines()
    pasted = lines[:line - 2] + [b[2:] for b in body[-3:]] + lines[line:]
    assert "\n".join(pasted) + "\n" == fix
    # what it claims, as JAX did it: what the loop went over is unchanged, and keeping the copy
    # under the item's name alone (the fix told elsewhere) leaves it so
    ran = THEIRS[f"loop:{name}"]
    assert _listed(shell.user_ns[over]) == ran["as_written"] == ran["rebound"]
    assert f"keeps it for the rest of the turn only, and {over} does not change" in note
    assert _notes(ran_ok(shell, fix)) == []
    assert _listed(shell.user_ns[over]) == ran["kept"] != ran["as_written"]


def test_a_loops_item_where_the_loop_is_not_the_cells_own_is_told_in_words(shell):
    ran_ok(shell, "def f(m):\n    for row in m:\n        row.at[0].set(1.)\n    return m")
    (note,) = _notes(ran_ok(shell, "y = f(jnp.zeros((2, 2)))"))
    assert "row is the for loop's name for each item of m in turn" in note
    assert note.endswith("loop with for i, row in enumerate(m), then write row = "
                         "row.at[0].set(1.) and m = m.at[i].set(row) where m is an array (m[i] "
                         "= row where it is a list).")
    # a loop over an index (the array updated is no item of it) keeps the usual fix
    (note,) = _notes(ran_ok(shell, "x = jnp.ones(2)\nfor i in range(2):\n    x.at[i].set(0.)"))
    assert note.endswith("\n      x = x.at[i].set(0.)")


def test_the_fixed_cells_get_no_note(shell):
    for name in cases.CASES:
        assert _notes(ran_ok(shell, cases.fixed(name))) == [], name


def test_the_last_line_is_shown_and_told_so_unless_it_is_a_demonstration(shell):
    ran_ok(shell, "x = jnp.arange(3)")
    (note,) = _notes(ran_ok(shell, "x.at[1].set(7)"))
    assert re.match(r"⚠ x.at\[1\].set\(7\) returned a new array, shown as the cell's output "
                    r"\(at In\[\d+\]:1\): x is unchanged", note), note
    assert shell.user_ns["x"].tolist() == [0, 1, 2]
    # a copy of no one's array, shown: what the line is for
    assert _notes(ran_ok(shell, "jnp.zeros(3).at[1].set(2.)")) == []
    # a chain of updates shown: x, where it started, is what stayed as it was
    (note,) = _notes(ran_ok(shell, "x.at[0].set(5).at[1].set(6)"))
    assert re.match(r"⚠ x.at\[0\].set\(5\).at\[1\].set\(6\) returned a new array, shown as "
                    r"the cell's output \(at In\[\d+\]:1\): x is unchanged", note), note
    assert note.endswith("\n  x = x.at[0].set(5).at[1].set(6)")
    assert shell.user_ns["x"].tolist() == [0, 1, 2]
    assert _notes(ran_ok(shell, "jnp.zeros(3).at[0].set(1.).at[1].set(2.)")) == []
    # a semicolon hides the output: then nothing shows it
    (note,) = _notes(ran_ok(shell, "x.at[2].set(7);"))
    assert "nothing kept it" in note


def test_updates_kept_read_or_of_something_else_get_no_note(shell):
    ran_ok(shell, "x = jnp.arange(3)\nclass Box:\n    def __init__(self):\n        "
                  "self.at = {0: self}\n    def set(self, v):\n        return v")
    assert _notes(ran_ok(shell, "y = x.at[0].set(1)\nprint(x.at[1].add(2))\n"
                                "x.at[0].get()\nz = [x.at[0].multiply(3)]")) == []
    # the same shape of line over something that is no array: nothing of jxkernel's ran
    assert _notes(ran_ok(shell, "Box().at[0].set(1)\npass")) == []
    assert _notes(ran_ok(shell, "xs = [3, 1, 2]\nxs.sort()\npass")) == []     # a list's, in place
    assert _notes(ran_ok(shell, "y = x.sort()\nprint(jnp.sort(x))")) == []
    # the call that ran is the one told, not another statement of its line: the list's sort
    # sorts it in place
    assert _notes(ran_ok(shell, "xs = [3, 1]\ny = x.sort(); xs.sort()\npass")) == []
    (note,) = _notes(ran_ok(shell, "xs = [3, 1]\nx.sort(); xs.sort()\npass"))
    assert note.startswith("⚠ x.sort() made a new array"), note


def test_an_update_that_raised_is_not_told(shell):
    """A value of the wrong shape (JAX's ValueError, "Incompatible types for broadcasting"):
    the call returned no copy, so none was dropped or shown, and x's line is the error's."""
    ran_ok(shell, "x = jnp.zeros((2, 3))\nv = jnp.ones(3)")
    for cell in ("x.at[:, 0].set(v)", "x.at[0].add(jnp.ones(2))\npass", "x.at[0].apply(len)",
                 "x.sort(axis=2)"):
        ran = ran_failing(shell, cell)
        assert _notes(ran) == [], (cell, _notes(ran))
    # the same line told once it runs
    assert len(_notes(ran_ok(shell, "x.at[:, 0].set(v[:2])"))) == 1


def test_a_line_is_told_once(shell):
    ran_ok(shell, "x = jnp.arange(3)\ndef bump(v):\n    v.at[0].add(1)\n    return v")
    assert len(_notes(ran_ok(shell, "y = bump(x)"))) == 1
    assert _notes(ran_ok(shell, "y = bump(x)")) == []


@pytest.mark.tells_a_bug
def test_a_bug_in_making_a_note_is_told_and_the_cells_other_notes_go_on(shell, monkeypatch):
    from jxkernel.notebook.notes import update_notes

    def broken(told=None):
        raise ValueError("broken on purpose")
    monkeypatch.setattr(update_notes, "cell_note", broken)
    with pytest.warns(RuntimeWarning, match=r"jxkernel could not make the cell's update note "
                      r"\(it raised ValueError: broken on purpose\)\. The cell ran as written; "
                      r"only that note is missing") as warned:
        ran = ran_ok(shell, "x = jnp.arange(3)\nx.at[0].set(1)\ny = x[5]", tells_a_bug=True)
    assert re.fullmatch(r"In\[\d+\]", warned[0].filename), warned[0].filename   # the cell's
    assert "Error in callback" not in ran.printed
    assert len(ran.shown("⚠ index 5 is past the end")) == 1       # the next note, still shown


def test_without_the_notebook_no_update_is_recorded(monkeypatch):
    # a script's eager x.at[i].set(v) must not pay for finding the user's call
    from jxkernel.numpy import indexing
    monkeypatch.setattr(indexing, "record_update_sites", False)
    indexing.update_sites.clear()
    x = jxkernel.numpy.arange(3)
    x.at[0].set(1), x.sort()
    assert list(indexing.update_sites) == []
