"""The note under a cell whose line met a column (n, 1) and a vector (n,) in one elementwise
operation (jxkernel/notebook/notes/broadcast_notes.py): broadcasting makes an (n, n) matrix, a
loss over it is a mean over every pair, and JAX says nothing. What the note says is checked
against JAX 0.10.2 (tests/data/broadcast_notes_reference.json): the cell's value as written
(the pairs' mean), the silence, the knob the note names (jax_numpy_rank_promotion='raise'),
and the values of its two fixes."""
import re

import numpy as np
import pytest

pytest.importorskip("IPython")

import broadcast_note_cases as cases  # tests/data
import locations  # tests/support
from ipython_shell import ran_ok, shell_fixture  # tests/support
from registered_library import import_library  # tests/support
from jxkernel.numpy import util

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp", fresh=True)
THEIRS = locations.jax_answers("broadcast_notes_reference.json")


def _notes(ran) -> list:
    return ran.shown("into a (")


def test_jxkernel_gives_these_values_and_warnings_as_jax_did():
    import jxkernel
    assert cases.run(jxkernel) == {k: v for k, v in THEIRS.items() if k != "jax_version"}


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_a_column_met_by_a_vector_is_told_with_lines_that_keep_them_apart(shell, name):
    """The note names the operation, both shapes and the (n, n) result, at the line JAX's
    silence hid; its first line fixed (the column as a vector) and its second (the vector as
    a column), each pasted in place of the line, give JAX's values for them; JAX's value of
    the cell as written differs (the pairs' mean), and JAX said nothing."""
    cell, line, fix, columns = cases.CASES[name]
    ran_ok(shell, cases.SETUP)
    (note,) = _notes(ran_ok(shell, cell))
    assert re.match(r"⚠ .+ broadcast a column \(4, 1\) and a vector \(4,\) into a \(4, 4\) "
                    rf"matrix \(at In\[\d+\]:{line}\)", note), note
    said = note.split("give them one shape:\n  ")[1].splitlines()[0]
    first, _, comment = said.partition("    # ")
    assert first == fix, said
    assert comment.endswith(f"or {columns.strip()}, both (4, 1)"), said
    assert "jax_numpy_rank_promotion', 'raise'" in note
    assert THEIRS[f"{name}_warned"] == [] and THEIRS[f"{name}_raised"].startswith(
        "Operands could not be broadcast together")
    assert THEIRS[f"{name}_written"] != THEIRS[f"{name}_fixed"]
    for source, want in ((cases._with_line(cell, line, fix), THEIRS[f"{name}_fixed"]),
                         (cases._with_line(cell, line, columns), THEIRS[f"{name}_columns"])):
        assert _notes(ran_ok(shell, source)) == [], source
        assert np.asarray(shell.user_ns["_y"]).tolist() == want, source


@pytest.mark.parametrize("name", sorted(cases.ON_PURPOSE))
def test_a_line_that_broadcasts_on_purpose_gets_no_note(shell, name):
    ran_ok(shell, cases.SETUP)
    assert _notes(ran_ok(shell, cases.ON_PURPOSE[name])) == []
    assert THEIRS[f"{name}_warned"] == []


def test_a_line_is_told_once_and_other_shapes_are_not_told(shell):
    ran_ok(shell, cases.SETUP + "def loss(p):\n    return ((p - y) ** 2).mean()")
    assert len(_notes(ran_ok(shell, "a = loss(pred)"))) == 1
    assert _notes(ran_ok(shell, "a = loss(pred)")) == []
    # a row of one, a vector of one, a matrix against a vector: no (n, n) from a column
    assert _notes(ran_ok(shell, "b = (jnp.ones((1, 4)) - y).sum()\n"
                                "c = (jnp.ones((1, 1)) - jnp.ones(1)).sum()\n"
                                "d = (X - jnp.ones(3)).sum()")) == []


def test_without_the_notebook_nothing_is_recorded(monkeypatch):
    """The record is on only while a notebook tells it (the extension's load sets it): a
    script's operations pay the one test."""
    import jxkernel.numpy as jnp
    monkeypatch.setattr(util, "record_column_sites", False)
    util.column_sites.clear()
    (jnp.ones((3, 1)) - jnp.ones(3)).block_until_ready()
    assert list(util.column_sites) == []


def test_a_librarys_own_operation_gets_no_note(shell, tmp_path):
    """A column met by a vector inside an installed library's function (under site-packages),
    called from the learner's line: the library's own business (meant, or checked first as
    optax's losses check shapes), not told at the learner's call."""
    folder = tmp_path / "site-packages"
    folder.mkdir()
    lib = import_library(folder, "broadcast_library_mod",
                         "def pairwise(a, b):\n    return (a - b).sum()\n")
    shell.user_ns["pairwise"] = lib.pairwise
    ran_ok(shell, cases.SETUP)
    assert _notes(ran_ok(shell, "_y = pairwise(pred, y)")) == []
    # the same operation on the learner's line is told
    assert len(_notes(ran_ok(shell, "_y = (pred - y).sum()"))) == 1
