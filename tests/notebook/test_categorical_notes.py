"""The note under a cell that gave jax.random.categorical probabilities where it takes logits
(jxkernel/notebook/notes/categorical_notes.py): it draws from softmax(p), not p, and JAX says
nothing. The note's claim is checked against JAX 0.10.2's draws
(tests/data/categorical_notes_reference.json): as written, each category's share of 10,000
draws is softmax(p)'s, which the note states; with the note's line (jnp.log(p)), p's."""
import re

import numpy as np
import pytest

pytest.importorskip("IPython")

import categorical_note_cases as cases  # tests/data
import locations  # tests/support
from ipython_shell import ran_ok, shell_fixture  # tests/support
from jxkernel.random import discrete

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp", fresh=True)
THEIRS = locations.jax_answers("categorical_notes_reference.json")
SOFTMAX = np.exp(cases.P) / np.exp(cases.P).sum()


def _notes(ran) -> list:
    return ran.shown("jax.random.categorical was given probabilities")


def test_jaxs_draws_follow_softmax_of_the_probabilities_and_the_fix_follows_them():
    """What the note claims, under JAX: as written the shares are softmax(p)'s (within 0.02 of
    10,000 draws), far from p; with jnp.log(p), p's. And jxkernel draws alike."""
    import jxkernel
    for theirs in (THEIRS, cases.run(jxkernel)):
        np.testing.assert_allclose(theirs["eager_written"], SOFTMAX, atol=0.02)
        np.testing.assert_allclose(theirs["eager_fixed"], cases.P, atol=0.02)
        assert abs(theirs["eager_written"][2] - cases.P[2]) > 0.2


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_probabilities_given_as_logits_are_told_with_the_line_taking_their_log(shell, name):
    """The note names the probabilities and the distribution drawn instead (softmax(p),
    rounded), at the cell's line; its line, pasted, draws with the learner's p."""
    cell, line, fix = cases.CASES[name]
    ran_ok(shell, cases.SETUP)
    (note,) = _notes(ran_ok(shell, cell))
    assert re.match(rf"⚠ jax.random.categorical was given probabilities \[0.1, 0.2, 0.7\] "
                    rf"where it takes logits \(at In\[\d+\]:{line}\)", note), note
    assert "it draws with [0.25, 0.28, 0.46], not the probabilities themselves" in note
    written = note.split("Give it their logarithms:\n  ")[1].splitlines()[0]
    assert written == f"{fix}    # softmax(log p) is p", written
    assert _notes(ran_ok(shell, fix)) == []
    assert "jax.random.choice(key, len(p), shape, p=p)" in note


@pytest.mark.parametrize("name", sorted(cases.NO_NOTE))
def test_logits_and_traced_values_get_no_note(shell, name):
    ran_ok(shell, cases.SETUP)
    assert _notes(ran_ok(shell, cases.NO_NOTE[name])) == []


def test_a_line_is_told_once(shell):
    ran_ok(shell, cases.SETUP + "def draw(k):\n    return jax.random.categorical(k, p)\n")
    assert len(_notes(ran_ok(shell, "_d = draw(jax.random.key(1))"))) == 1
    assert _notes(ran_ok(shell, "_d = draw(jax.random.key(2))")) == []


def test_without_the_notebook_nothing_is_recorded():
    """The record is on only while a notebook tells it (the extension's load sets it)."""
    import jxkernel
    before = discrete.record_probability_sites
    discrete.record_probability_sites = False
    try:
        discrete.probability_sites.clear()
        jxkernel.random.categorical(jxkernel.random.key(0), jxkernel.numpy.array(cases.P))
        assert list(discrete.probability_sites) == []
    finally:
        discrete.record_probability_sites = before
