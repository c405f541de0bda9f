"""The einsum-labels card (subscripts giving one letter two sizes), the scan-lengths card for
neither xs nor length, and vmap-sizes cards with no checked in_axes for the line, each
checked in an IPython shell against what JAX 0.10.2 says for the same program
(tests/data/einsum_scan_cards_reference.json, recorded by
reference/make_einsum_scan_cards_reference.py): JAX's class and message kept, the sizes the
card names, and every line it writes, pasted, computing JAX's recorded value."""
import functools
import json

import pytest

pytest.importorskip("IPython")

import jxkernel
from einsum_scan_cards_cases import (EINSUM, EINSUM_OTHER, EINSUM_OTHER_FIXED,  # tests/data
                                     SCAN, SCAN_FIXED, VMAP, einsum_line, run, swapped,
                                     transposes)
from recorded_errors import leaf_values  # tests/data
from card_checks import rewrite_code  # tests/support
import locations  # tests/support
from ipython_shell import ran_failing, ran_ok, shell_fixture

JAX = locations.jax_answers("einsum_scan_cards_reference.json")["cases"]

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp\n"
                      "from jxkernel import lax")

# what each einsum card's title says: the letter, its two sizes, the operands that have them
TITLES = {
    "no_transpose_fits": "einsum 'ij,jk->ik': 'j' is 3 in a but 4 in b",
    "first_transposed": "einsum 'ij,jk->ik': 'j' is 2 in a but 3 in b",
    "matrix_vector": "einsum 'ij,j->i': 'j' is 2 in W but 3 in v",
    "batched": "einsum 'bij,bjk->bik': 'j' is 3 in x but 4 in w",
    "either_transposed": "einsum 'ij,jk->ik': 'j' is 3 in a but 4 in b",
    "diagonal_of_a_non_square": "einsum 'ii->i': 'i' is 2 and 3 in m",
    "under_ellipsis": "einsum '...ij,...jk->...ik': an axis under '...' is 2 in a but 3 in b",
    "implicit_output": "einsum 'ij, jk': 'j' is 3 in a but 5 in b",
}


def _is_words_only(rewrite):
    """A card's code given as the pattern, every line a comment: pasted, it runs nothing."""
    lines = rewrite.splitlines()
    return lines[0] == "# the pattern, with your own names in place of these:" and \
        all(line.startswith("#") for line in lines)


@pytest.mark.parametrize("case", sorted(JAX))
def test_the_cases_say_and_compute_what_jax_does(case):
    """Every case under jxkernel: JAX's class, message and the frame its traceback ends in
    (opt_einsum's contract_path for einsum, the learner's line for scan), each transpose's
    result or refusal, and the fixes' values."""
    assert _facts()[case] == JAX[case], case


@functools.cache
def _facts() -> dict:
    return json.loads(json.dumps(run(jxkernel)))


@pytest.mark.parametrize("case", sorted(EINSUM))
def test_an_einsum_card_names_each_letter_and_writes_the_one_transpose_that_fits(shell, case):
    """The card keeps JAX's ValueError and message, names the letter with each size and the
    operand that has it (opt_einsum's message gives the sizes the other way round), lists
    each operand's shape and subscripts, and writes the line with the one transpose JAX runs,
    which pasted computes JAX's value; where JAX runs two, each is named with its result and
    none written; where it runs none, words alone."""
    setup, subscripts, names = EINSUM[case]
    ran_ok(shell, setup)
    ran = ran_failing(shell, einsum_line(subscripts, names))
    card = ran.card
    assert card["kind"] == "einsum-labels", ran.printed
    assert (card["error"], card["message"]) == ("ValueError", JAX[f"einsum_{case}"]["message"])
    assert card["title"] == TITLES[case]
    shapes = [tuple(shell.user_ns[n].shape) for n in names]
    for name, shape, term in zip(names, shapes, subscripts.replace(" ", "").split("->")[0]
                                 .split(",")):
        assert f"{name} {shape} is '{term}'" in card["why"], card["why"]
    assert "contract_path" in card["traceback"]      # JAX's traceback ends there too
    fits = {}
    for k, i, j in transposes(shapes):
        operand = swapped(names[k], len(shapes[k]), i, j)
        answer = JAX[f"einsum_{case}_{operand}"]
        if answer != "ValueError":
            fits[operand] = (einsum_line(subscripts, names[:k] + (operand,) + names[k + 1:]),
                             answer)
    if len(fits) == 1:
        ((operand, (line, answer)),) = fits.items()
        assert rewrite_code(card["rewrite"]) == line, card["rewrite"]
        assert f"the result is {tuple(answer['shape'])}" in card["fix"]
        ran_ok(shell, setup + line)
        assert leaf_values(jxkernel, shell.user_ns["y"]) == answer["value"]
    else:
        assert card["rewrite"] == "", card["rewrite"]
        for operand, (_, answer) in fits.items():
            assert f"{operand} gives {tuple(answer['shape'])}" in card["fix"], card["fix"]
        if not fits:
            assert "No transpose" in card["fix"] or "A diagonal" in card["fix"], card["fix"]


def test_an_einsum_card_of_axis_number_lists_names_opt_einsums_letters(shell):
    """jnp.einsum(a, [0, 1], b, [1, 2]): the letters JAX's message names are opt_einsum's
    for the lists; the card says so, and writes no code (no subscripts on the line)."""
    setup, line = EINSUM_OTHER["interleaved"]
    ran_ok(shell, setup)
    card = ran_failing(shell, line).card
    assert card["message"] == JAX["einsum_interleaved"]["message"]
    assert card["title"] == "einsum 'ab,bc': 'b' is 3 in a but 4 in b"
    assert "your lists of axis numbers, as letters" in card["why"]
    assert card["rewrite"] == ""


def test_opt_einsums_other_errors_get_no_einsum_labels_card(shell):
    """An operand of 3 axes for 2 letters: JAX's ValueError (opt_einsum's words) as it is,
    no second error raised while einsum read it for a card, and not this card but the
    einsum-axes card (tests/notebook/test_einsum_axes_cards.py's second_extra_axis_last, the
    same program: no line, as JAX refuses '...' for b's leading axis)."""
    setup, line = EINSUM_OTHER["wrong_rank"]
    ran_ok(shell, setup)
    ran = ran_failing(shell, line)
    assert str(ran.error) == JAX["einsum_wrong_rank"]["message"]
    assert ran.error.__context__ is None
    assert ran.card["kind"] == "einsum-axes" and ran.card["rewrite"] == "", ran.card


def test_a_diagonal_of_two_sizes_beside_an_operand_of_too_few_axes_gets_its_card(shell):
    """JAX's "Size of label 'i'" for a's diagonal, while b (0-d) has three letters: the card
    names the two sizes of 'i' in a, and looks for no transpose (it raised KeyError doing so
    and the learner got no card)."""
    setup, line = EINSUM_OTHER["diagonal_beside_wrong_count"]
    ran_ok(shell, setup)
    ran = ran_failing(shell, line)
    assert str(ran.error) == JAX["einsum_diagonal_beside_wrong_count"]["message"]
    assert ran.card["kind"] == "einsum-labels", ran.card
    assert ran.card["title"] == "einsum '...ii,jbi->j': 'i' is 2 and 3 in a"
    assert ran.card["rewrite"] == "" and ran.card["fix"].startswith("A diagonal needs a's axes")


def test_an_einsum_card_under_jit_transposes_the_lambdas_own_parameter(shell):
    """Inside `jax.jit(lambda p, q: jnp.einsum(...))(a, b)`: q.T, the lambda's name for it;
    pasted, JAX's value."""
    setup, line = EINSUM_OTHER["under_jit"]
    ran_ok(shell, setup)
    card = ran_failing(shell, line).card
    assert card["message"] == JAX["einsum_under_jit"]["message"]
    assert card["title"] == "einsum 'ij,jk->ik': 'j' is 3 in p but 5 in q"
    assert rewrite_code(card["rewrite"]) == EINSUM_OTHER_FIXED["under_jit"]
    ran_ok(shell, setup + rewrite_code(card["rewrite"]))
    assert leaf_values(jxkernel, shell.user_ns["y"]) == JAX["einsum_under_jit_fixed"]


@pytest.mark.parametrize("case", sorted(SCAN))
def test_a_scan_with_neither_xs_nor_length_gets_length_where_the_body_reads_no_x(shell, case):
    """lax.scan(body, init) with no xs (or xs=None) and no length: JAX's ValueError and words
    kept; the line with length=10 where the body reads no x (pasted, JAX's carry and ys); the
    pattern in words where the body reads x (length= alone passes x=None: JAX's TypeError)
    and for lax.map of None."""
    setup, line = SCAN[case]
    if setup:
        ran_ok(shell, setup)
    card = ran_failing(shell, line).card
    assert card["kind"] == "scan-lengths"
    assert (card["error"], card["message"]) == ("ValueError", JAX[f"scan_{case}"]["message"])
    if case in SCAN_FIXED:
        assert card["title"] == ("scan got neither xs nor length: nothing says how many steps "
                                 "to run")
        assert rewrite_code(card["rewrite"]) == SCAN_FIXED[case], card["rewrite"]
        assert "your own count in place of 10" in card["rewrite"]
        ran_ok(shell, setup + rewrite_code(card["rewrite"]))
        assert leaf_values(jxkernel, (shell.user_ns["carry"], shell.user_ns["ys"])) == \
            JAX[f"scan_{case}_fixed"]
    else:
        assert _is_words_only(card["rewrite"]), card["rewrite"]
        assert "length=10" not in card["rewrite"] or case == "map_of_none"
    if case == "body_reads_x":
        assert JAX["scan_body_reads_x_given_length"] == "TypeError"
        assert "reads its x" in card["fix"]


@pytest.mark.parametrize("case", sorted(VMAP))
def test_a_vmap_sizes_card_without_checked_in_axes_for_the_line_writes_words(shell, case):
    """vmap-sizes where the card cannot write the line with in_axes that traced (a call over
    two lines; a function that traces with none): its last template was code, the line with
    unchecked in_axes or `jax.vmap(f, in_axes=(0, None))(...)`, which pasted raise under JAX
    0.10.2 (TypeError, ValueError: recorded); now the pattern, every line a comment."""
    card = ran_failing(shell, VMAP[case]).card
    assert card["kind"] == "vmap-sizes"
    assert _is_words_only(card["rewrite"]), card["rewrite"]
    if case == "no_in_axes_traces":
        assert JAX["vmap_no_in_axes_traces_line"] == "TypeError"
        assert "found no in_axes" in card["fix"]
    else:
        assert JAX["vmap_call_over_two_lines_template"] == "ValueError"


def test_the_einsum_cards_examples_run():
    """einsum_labels.py's docstring examples, with the module's own names alone."""
    import doctest
    from jxkernel.views.error_cards import einsum_labels
    assert doctest.testmod(einsum_labels).failed == 0


def test_one_array_given_twice_is_named_by_its_places(shell):
    """einsum('ij,jk->ik', m, m) of a (2, 3) m: the card said "'j' is 3 in m but 2 in m" and
    "m.T gives (3, 3); m.T gives (2, 2)". Each m is named by its place, and each transpose by
    the place it goes (the shapes it names are what those lines compute)."""
    ran_ok(shell, "m = jnp.arange(6.0).reshape(2, 3)\n")
    card = ran_failing(shell, einsum_line("ij,jk->ik", ("m", "m"))).card
    assert card["title"] == "einsum 'ij,jk->ik': 'j' is 3 in m (operand 0) but 2 in m (operand 1)"
    assert "m.T as operand 0 gives (3, 3); m.T as operand 1 gives (2, 2)" in card["fix"]
    assert card["rewrite"] == ""
    ran_ok(shell, "_a = jnp.einsum('ij,jk->ik', m.T, m)\n_b = jnp.einsum('ij,jk->ik', m, m.T)")
    assert (shell.user_ns["_a"].shape, shell.user_ns["_b"].shape) == ((3, 3), (2, 2))
