"""The einsum-output card (result subscripts naming a letter no operand has, or one letter
twice), checked in an IPython shell against what JAX 0.10.2 says for the same programs
(tests/data/einsum_output_cards_reference.json, recorded by
reference/make_einsum_output_cards_reference.py): JAX's class, message and last frame kept,
the letter the card names, each operand listed with its shape and letters, and every line it
prints, which pasted under JAX ran and gave the shape the card claims, computing JAX's value
here too. Where no one reading is clear the card writes no line, and says what to do."""
import numpy as np
import pytest

pytest.importorskip("IPython")

import jxkernel
from einsum_output_cards_cases import CARDS  # tests/data
from recorded_errors import leaf_values  # tests/data: as JAX's side recorded its values
import locations  # tests/support
from card_checks import assert_said_as_jax, card_of  # tests/support
from ipython_shell import ran_ok, shell_fixture

JAX = locations.jax_answers("einsum_output_cards_reference.json")

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp")

TITLES = {
    "typo_for_the_summed_letter": "einsum 'ij->ik': the result's 'k' is no operand's letter",
    "two_summed_letters": "einsum 'ij,jk->il': the result's 'l' is no operand's letter",
    "a_new_axis": "einsum 'ij->ijk': the result's 'k' is no operand's letter",
    "batch_letter_in_the_result_only": "einsum 'ij,jk->bik': the result's 'b' is no operand's "
                                       "letter",
    "batch_letter_that_does_not_fit": "einsum 'ij,jk->bik': the result's 'b' is no operand's "
                                      "letter",
    "letter_twice": "einsum 'ij,jk->iij': 'i' is written twice after '->'",
    "vector_to_diagonal": "einsum 'i->ii': 'i' is written twice after '->'",
    "unknown_letter_twice": "einsum 'ij,jk->ll': 'l' is written twice after '->'",
    "under_jit": "einsum 'ij->ik': the result's 'k' is no operand's letter",
    "interleaved": "einsum 'ab,bc->aa': 'a' is written twice after '->'",
}
LISTED = {
    "typo_for_the_summed_letter": ["a (2, 3) is 'ij'"],
    "two_summed_letters": ["a (2, 3) is 'ij'", "b (3, 5) is 'jk'"],
    "a_new_axis": ["a (2, 3) is 'ij'"],
    "batch_letter_in_the_result_only": ["x (2, 3, 4) is 'ij'", "w (4, 5) is 'jk'"],
    "batch_letter_that_does_not_fit": ["x (3, 4, 2) is 'ij'", "w (4, 5) is 'jk'"],
    "letter_twice": ["a (2, 3) is 'ij'", "b (3, 5) is 'jk'"],
    "vector_to_diagonal": ["v (3,) is 'i'"],
    "unknown_letter_twice": ["a (2, 3) is 'ij'", "b (3, 5) is 'jk'"],
    "under_jit": ["p (2, 3) is 'ij'"],
    "interleaved": ["a (2, 3) is 'ab'", "b (3, 5) is 'bc'", "lists of axis numbers, as letters"],
}
# where no line is printed, what the card says instead
WORDS = {
    "two_summed_letters": "The operands' letters summed over now are 'j', 'k': write the one "
                          "you meant in place of 'l'",
    "a_new_axis": "Every letter of the operands is in the result already; leave 'k' out.",
    "batch_letter_that_does_not_fit": "The letters do not fit the operands either (x has 3 axes "
                                      "(shape (3, 4, 2)) but 'ij')",
    "unknown_letter_twice": "'l' is no operand's letter either",
    "interleaved": "Written once, 'ab,bc->a' gives (2,).",
}
EXPAND = "einsum makes no new axis: to give its result one, add it afterwards"


def _card(shell, case):
    setup, line, _ = CARDS[case]
    return card_of(shell, setup, line, "einsum-output")


@pytest.mark.parametrize("case", sorted(CARDS))
def test_an_einsum_output_card_names_the_letter_and_each_operands_letters(shell, case):
    """JAX's ValueError and message kept (opt_einsum's, naming no shape) and its traceback
    ending where JAX's does; the title names the letter JAX's message names; each operand is
    listed with its shape and letters."""
    assert_said_as_jax(_card(shell, case), JAX[case], TITLES[case], LISTED[case])


@pytest.mark.parametrize("case", sorted(c for c in CARDS if CARDS[c][2]))
def test_an_einsum_output_card_writes_the_line_jax_runs_with_the_shape_it_gives(shell, case):
    """The rewrite is the line recorded as run under JAX, its comment and the fix claiming
    the shape JAX gave; pasted here it computes JAX's value."""
    setup, _, printed = CARDS[case]
    card = _card(shell, case)
    shape = tuple(JAX[f"{case}_fixed"]["shape"])
    code, comment = card["rewrite"].split("    # ")
    assert code == printed, card["rewrite"]
    assert comment == f"the result: {shape}"
    assert f" gives {shape}" in card["fix"], card["fix"]
    if case == "vector_to_diagonal":    # the learner's name for the vector
        assert "is jnp.diag(v): it gives (3, 3)." in card["fix"], card["fix"]
    ran_ok(shell, setup + printed)
    assert leaf_values(jxkernel, shell.user_ns["y"]) == JAX[f"{case}_fixed"]["value"]


@pytest.mark.parametrize("case", sorted(c for c in CARDS if not CARDS[c][2]))
def test_an_einsum_output_card_without_one_clear_reading_says_what_to_do(shell, case):
    """No line where the learner's meaning is theirs to choose (two letters summed over, a
    new axis, an extra axis that does not lead, a letter no operand has written twice, lists
    of axis numbers): words; a new axis asked of einsum is told how to add it afterwards."""
    card = _card(shell, case)
    assert card["rewrite"] == ""
    assert WORDS[case] in card["fix"], card["fix"]
    if JAX[case]["message"].endswith("did not appear in the input"):
        assert EXPAND in card["fix"]


def test_the_expand_dims_fix_adds_the_axis_the_card_says():
    """The fix for a new axis (jnp.expand_dims, then jnp.broadcast_to) gives 'ij->ijk''s
    meant shape, its values the einsum's repeated along the new axis."""
    jnp = jxkernel.numpy
    a = jnp.arange(6.0).reshape(2, 3)
    y = jnp.broadcast_to(jnp.expand_dims(jnp.einsum("ij->ij", a), 2), (2, 3, 4))
    assert y.shape == (2, 3, 4)
    assert np.array_equal(np.asarray(y), np.repeat(np.arange(6.0).reshape(2, 3, 1), 4, 2))


def test_the_einsum_output_cards_examples_run():
    """einsum_output.py's docstring examples, with the module's own names alone."""
    import doctest
    from jxkernel.views.error_cards import einsum_output
    assert doctest.testmod(einsum_output).failed == 0
