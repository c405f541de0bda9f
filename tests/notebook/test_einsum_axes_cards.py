"""The einsum-axes card (an operand's subscripts with another number of letters than it has
axes), checked in an IPython shell against what JAX 0.10.2 says for the same programs
(tests/data/einsum_axes_cards_reference.json, recorded by
reference/make_einsum_axes_cards_reference.py): JAX's class, message and last frame kept, the
operand the card names with its shape and letters, and every line it prints, which pasted
under JAX ran and gave the shape the card claims, computing JAX's value here too."""
import re

import pytest

pytest.importorskip("IPython")

import jxkernel
from einsum_axes_cards_cases import CARDS, NO_CARD  # tests/data
from recorded_errors import leaf_values  # tests/data: as JAX's side recorded its values
import locations  # tests/support
from card_checks import assert_said_as_jax, card_of, rewrite_code  # tests/support
from ipython_shell import ran_failing, ran_ok, shell_fixture

JAX = locations.jax_answers("einsum_axes_cards_reference.json")

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp")

# what each card's title says: the subscripts, the operand JAX's message names (by the
# learner's name where the line has one), its number of axes and of letters
TITLES = {
    "batch_of_matrices": "einsum 'ij,jk->ik': a has 3 axes but 'ij' has 2 letters",
    "batch_letter_of_a_matrix": "einsum 'bij,jk->bik': x has 2 axes but 'bij' has 3 letters",
    "batched_second_operand": "einsum 'ij,jk->ik': b has 3 axes but 'jk' has 2 letters",
    "two_batch_axes": "einsum 'ij,jk->ik': a has 4 axes but 'ij' has 2 letters",
    "both_batched": "einsum 'ij,jk->ik': a has 3 axes but 'ij' has 2 letters",
    "vector_for_a_matrix": "einsum 'ij,jk->ik': a has 1 axis but 'ij' has 2 letters",
    "ellipsis_on_one_side": "einsum '...ij,jk->...ik': w has 3 axes but 'jk' has 2 letters",
    "implicit_output": "einsum 'ij, jk': a has 3 axes but 'ij' has 2 letters",
    "batched_diagonal": "einsum 'ii->i': m has 3 axes but 'ii' has 2 letters",
    "interleaved": "einsum 'ab,bc': a has 3 axes but 'ab' has 2 letters",
    "interleaved_with_output": "einsum 'ab,bc->ac': a has 3 axes but 'ab' has 2 letters",
    "under_jit": "einsum 'ij,jk->ik': p has 3 axes but 'ij' has 2 letters",
    "unnamed_operand": "einsum 'ij,jk->ik': operand 0 has 3 axes but 'ij' has 2 letters",
    "extra_axis_last": "einsum 'ij,jk->ik': a has 3 axes but 'ij' has 2 letters",
    "second_extra_axis_last": "einsum 'ij,jk->ik': b has 3 axes but 'jk' has 2 letters",
    "ellipsis_cannot_absorb": "einsum '...ij,jk->...ik': a has 1 axis but '...ij' needs at "
                              "least 2",
    "scalar_for_ellipsis": "einsum '...i,ik->...k': s has 0 axes but '...i' needs at least 1",
    "interleaved_ellipsis": "einsum '...ab,bc->...ac': a has 1 axis but '...ab' needs at "
                            "least 2",
}
# each operand as the card lists it: its name, its shape, its letters (opt_einsum's for lists)
LISTED = {
    "batch_of_matrices": ["a (2, 3, 4) is 'ij'", "b (4, 5) is 'jk'"],
    "batch_letter_of_a_matrix": ["x (3, 4) is 'bij'", "w (4, 5) is 'jk'"],
    "batched_second_operand": ["a (2, 3) is 'ij'", "b (6, 3, 5) is 'jk'"],
    "two_batch_axes": ["a (2, 6, 3, 4) is 'ij'", "b (4, 5) is 'jk'"],
    "both_batched": ["a (2, 3, 4) is 'ij'", "b (2, 4, 5) is 'jk'"],
    "vector_for_a_matrix": ["a (3,) is 'ij'", "b (3, 5) is 'jk'"],
    "ellipsis_on_one_side": ["x (2, 3, 4) is '...ij'", "w (2, 4, 5) is 'jk'"],
    "implicit_output": ["a (2, 3, 4) is 'ij'", "b (4, 5) is 'jk'"],
    "batched_diagonal": ["m (2, 3, 3) is 'ii'"],
    "interleaved": ["a (2, 3, 4) is 'ab'", "b (4, 5) is 'bc'", "lists of axis numbers, as "
                    "letters"],
    "interleaved_with_output": ["a (2, 3, 4) is 'ab'", "b (4, 5) is 'bc'"],
    "under_jit": ["p (2, 3, 4) is 'ij'", "q (4, 5) is 'jk'"],
    "unnamed_operand": ["operand 0 (2, 3, 4) is 'ij'", "operand 1 (4, 5) is 'jk'"],
    "extra_axis_last": ["a (3, 4, 2) is 'ij'", "b (4, 5) is 'jk'"],
    "second_extra_axis_last": ["a (2, 3) is 'ij'", "b (3, 5, 1) is 'jk'"],
    "ellipsis_cannot_absorb": ["a (3,) is '...ij'", "b (3, 5) is 'jk'"],
    "scalar_for_ellipsis": ["s () is '...i'", "b (3, 5) is 'ik'"],
    "interleaved_ellipsis": ["a (3,) is '...ab'", "b (3, 5) is 'bc'"],
}
# where no line is printed, what the card says instead
WORDS = {
    # the '...' line JAX refuses (REFUSED), with the letter and sizes of JAX's refusal
    "extra_axis_last": "'...ij,jk->...ik', with '...' for the leading axes the letters leave "
                       "out, does not fit either: there 'j' would be 2 in a and 4 in b",
    "second_extra_axis_last": "'ij,...jk->...ik', with '...' for the leading axes the letters "
                              "leave out, does not fit either: there 'j' would be 3 in a and 5 "
                              "in b",
    "ellipsis_cannot_absorb": "Give a the axes its letters name, or write one letter per axis "
                              "it has beside its '...'",
    "scalar_for_ellipsis": "Give s the axes its letters name",
    "interleaved_ellipsis": "Give a the axes its letters name",
}
# the card of the same operands whose letters miscount, beside each other error of einsum's
# subscripts: the card is there, so its absence above is the card's choice
BESIDE = {
    "output_letter": "batch_of_matrices", "batch_letter_in_output_only": "batch_of_matrices",
    "one_operand_for_two": "batch_of_matrices", "two_dots": "batch_of_matrices",
    "label_sizes": "batch_of_matrices",
}


def _subscripts(line):
    return re.search(r"einsum\('([^']*)'", line).group(1)


def _card(shell, case):
    setup, line, _ = CARDS[case]
    return card_of(shell, setup, line, "einsum-axes")


@pytest.mark.parametrize("case", sorted(CARDS))
def test_an_einsum_axes_card_names_the_operand_its_axes_and_its_letters(shell, case):
    """JAX's ValueError and message kept (opt_einsum's, naming no shape) and its traceback
    ending where JAX's does; the title names the operand JAX's message counts from, by the
    learner's name, with its number of axes and of letters; each operand listed with its shape
    and letters."""
    assert_said_as_jax(_card(shell, case), JAX[case], TITLES[case], LISTED[case])


@pytest.mark.parametrize("case", sorted(c for c in CARDS if CARDS[c][2]))
def test_an_einsum_axes_card_writes_the_line_jax_runs_with_the_shape_it_gives(shell, case):
    """The rewrite is the line recorded as run under JAX, its comment and the fix claiming the
    shape JAX gave; pasted here it computes JAX's value. The spelling with a letter of its own
    for the batch axis, where the fix names it, ran under JAX too, to the same shape and
    value, and here also."""
    setup, _, printed = CARDS[case]
    card = _card(shell, case)
    shape = tuple(JAX[f"{case}_fixed_0"]["shape"])
    assert rewrite_code(card["rewrite"]) == printed[0], card["rewrite"]
    assert card["rewrite"].endswith(f"    # the result: {shape}")
    assert f" gives {shape}." in card["fix"], card["fix"]
    ran_ok(shell, setup + printed[0])
    assert leaf_values(jxkernel, shell.user_ns["y"]) == JAX[f"{case}_fixed_0"]["value"]
    if len(printed) > 1:
        assert (f"Naming the batch axis with a letter of its own, '{_subscripts(printed[1])}', "
                f"gives the same.") in card["fix"]
        assert JAX[f"{case}_fixed_1"] == JAX[f"{case}_fixed_0"]
        ran_ok(shell, setup + printed[1])
        assert leaf_values(jxkernel, shell.user_ns["y"]) == JAX[f"{case}_fixed_1"]["value"]
    else:
        assert "letter of its own" not in card["fix"]


@pytest.mark.parametrize("case", sorted(c for c in CARDS if not CARDS[c][2]))
def test_an_einsum_axes_card_without_a_fitting_line_says_what_to_do_in_words(shell, case):
    """No line where no '...' makes the letters fit (JAX refused the one the card would write,
    or an operand's own '...' cannot absorb): words, and no code."""
    card = _card(shell, case)
    assert card["rewrite"] == ""
    assert WORDS[case] in card["fix"], card["fix"]
    assert "cannot tell" in card["fix"]
    if f"{case}_refused" in JAX:         # JAX's refusal: the letter and its two sizes
        assert JAX[f"{case}_refused"]["message"] == {
            "extra_axis_last": "Size of label 'j' for operand 1 (2) does not match previous "
                               "terms (4).",
            "second_extra_axis_last": "Size of label 'j' for operand 1 (3) does not match "
                                      "previous terms (5)."}[case]


@pytest.mark.parametrize("case", sorted(NO_CARD))
def test_einsums_other_subscript_errors_get_no_einsum_axes_card(shell, case):
    """The output naming a letter no operand has, subscripts for two operands given one, '..'
    for '...', a letter of two sizes: JAX's ValueError and message as they are, and no
    einsum-axes card (the letter of two sizes keeps its einsum-labels card, the output's
    letters theirs, test_einsum_output_cards.py); the same shell
    gives the card for operands whose letters miscount."""
    setup, line = NO_CARD[case]
    ran_ok(shell, setup)
    ran = ran_failing(shell, line)
    assert (type(ran.error).__name__, str(ran.error)) == \
        (JAX[f"no_card_{case}"]["class"], JAX[f"no_card_{case}"]["message"])
    assert ran.error.__context__ is None
    kind = ran.card["kind"] if ran.card else None
    assert kind == {"label_sizes": "einsum-labels", "output_letter": "einsum-output",
                    "batch_letter_in_output_only": "einsum-output"}.get(case), ran.printed
    _card(shell, BESIDE[case])


def test_the_einsum_axes_cards_examples_run():
    """einsum_axes.py's docstring examples, with the module's own names alone."""
    import doctest
    from jxkernel.views.error_cards import einsum_axes
    assert doctest.testmod(einsum_axes).failed == 0
