"""Learners' mistakes on JAX's advanced tutorials (custom derivative rules, gradient
checkpointing, ahead-of-time lowering): the message is JAX's for the same program
(tests/data/learner_advanced_reference.json, recorded by
reference/make_learner_advanced_reference.py), and every rewrite a card advises runs under
JAX and jxkernel to the same value."""
import json
import os
import re

import pytest

pytest.importorskip("IPython")

from IPython.utils.capture import capture_output

import jxkernel
from jxkernel.views import error_cards
from learner_advanced_cases import CASES, run_case  # tests/data
import locations  # tests/support: the repository's folders
from ipython_shell import shell_fixture

ANSI = re.compile(r"\x1b\[[0-9;]*m")

with open(os.path.join(locations.DATA, "learner_advanced_reference.json")) as f:
    JAX = json.load(f)

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp", fresh=True)


# remat_if's message has jxkernel's own lines in its middle: its own test compares the rest
@pytest.mark.parametrize("case", sorted(set(CASES) - {"remat_if"}))
def test_the_case_is_what_jax_does(case):
    # the values are exact: a sine and a few products of float32 numbers, one rounding each
    ours = run_case(jxkernel, CASES[case])
    if case == "aot_under_jit":         # JAX's class path, under our package's name
        ours["raised"][1] = ours["raised"][1].replace("'jxkernel._src.", "'jax._src.")
    assert ours == JAX[case], case


def card_of(shell, source) -> dict:
    """The card's JSON of a cell that fails; the shell must still run a cell afterwards."""
    with capture_output() as cap:
        result = shell.run_cell(source)
    assert not result.success
    cards = [o.data[error_cards.MIME] for o in cap.outputs if error_cards.MIME in o.data]
    assert shell.run_cell("_ok = 1 + 1").success
    assert cards, ANSI.sub("", cap.stdout + cap.stderr)
    return cards[0]


def fixed(case: str, rewrite_line: str, broken: str) -> None:
    """The card's rewrite pasted over the broken line gives the fixed case's source, whose
    value JAX recorded."""
    assert CASES[case].replace(broken, rewrite_line) == CASES[case + "_fixed"]
    assert "raised" not in JAX[case + "_fixed"]


def test_a_bare_bwd_value_is_wrapped_in_a_tuple(shell):
    card = card_of(shell, CASES["vjp_bwd_bare"])
    assert card["kind"] == "custom-vjp-bwd"
    assert card["message"] == JAX["vjp_bwd_bare"]["raised"][1]
    assert "g takes 1 argument (x)" in card["why"], card["why"]
    assert "a bare value (f32[]), not a tuple" in card["why"], card["why"]
    assert card["rewrite"] == "return (cos_x * ct,)"
    fixed("vjp_bwd_bare", card["rewrite"], "return cos_x * ct")


def test_too_few_cotangents_are_filled_with_none_said_so(shell):
    card = card_of(shell, CASES["vjp_bwd_count"])
    assert "h takes 2 arguments (x, y)" in card["why"] and "a tuple of 1" in card["why"]
    assert card["rewrite"] == \
        "return (y * ct, None)  # None: no gradient for y (or give its cotangent)"
    pasted = CASES["vjp_bwd_count"].replace("return (y * ct,)", card["rewrite"])
    assert run_case(jxkernel, pasted) == JAX["vjp_bwd_count_none"]   # JAX's value
    # too many: no entry can be guessed away, the rewrite is a comment
    card = card_of(shell, CASES["vjp_bwd_three"])
    assert "a tuple of 3" in card["why"] and card["rewrite"].startswith("# return (ct_x, ct_y)")


def test_an_arguments_structure_is_named(shell):
    card = card_of(shell, CASES["vjp_bwd_inner"])
    assert "for p a value of structure PyTreeDef((*, *, *))" in card["why"], card["why"]
    assert card["rewrite"].startswith("# return (ct_p,)")       # a lambda: no source to edit


def test_a_checkpointed_functions_if_names_the_argument_as_jax(shell):
    ours = run_case(jxkernel, CASES["remat_if"])["raised"]
    theirs = JAX["remat_if"]["raised"]
    assert ours[0] == theirs[0]
    # JAX's first two lines and its closing advice; jxkernel's Python-control-flow lines
    # between them are its own (core/errors.py)
    assert ours[1].splitlines()[:2] == theirs[1].splitlines()[:2]
    assert ours[1].endswith(theirs[1].split("See https")[1].split("\n", 1)[1])


def test_a_misspelled_policy_gets_the_nearest_name(shell):
    card = card_of(shell, CASES["policy_misspelled"])
    assert card["kind"] == "checkpoint-policy"
    assert card["message"] == JAX["policy_misspelled"]["raised"][1]
    assert card["rewrite"] == "policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable"
    assert CASES["policy_misspelled"].replace(
        "jax.checkpoint(f2, policy=jax.checkpoint_policies.dots_saveable_with_no_batch_dims)",
        "loss(jax.checkpoint(f2, " + card["rewrite"] + "))") == CASES["policy_misspelled_fixed"]
    # every name the card lists is one JAX has too
    names = card["why"].split(": ", 1)[1].rstrip(".").split(", ")
    assert names and all(hasattr(jxkernel.checkpoint_policies, n) for n in names)


def test_a_policy_given_by_name_gets_the_function(shell):
    card = card_of(shell, CASES["policy_string"])
    assert card["message"] == JAX["policy_string"]["raised"][1] == "'str' object is not callable"
    # the line that gave the name, rewritten: the fixed case JAX ran
    assert "given at In[" in card["why"], card["why"]
    broken = CASES["policy_string"].splitlines()[-1]
    assert card["rewrite"] == broken.replace("'dots_saveable'",
                                             "jax.checkpoint_policies.dots_saveable")
    assert CASES["policy_string"].replace(broken, card["rewrite"]) == \
        CASES["policy_string_fixed"]
    # given on one line and differentiated on another, the card names the first
    card = card_of(shell, CASES["policy_string"].replace(
        "loss(jax.checkpoint(f2, policy='dots_saveable'))",
        "f6 = jax.checkpoint(f2, policy=\"dots_saveable\")\nloss(f6)"))
    assert card["rewrite"] == \
        "f6 = jax.checkpoint(f2, policy=jax.checkpoint_policies.dots_saveable)"
    assert card["where"]["code"].startswith("loss = lambda f:"), card["where"]


def test_no_card_where_jaxs_message_is_enough(shell):
    # a compiled function called with another shape: JAX's message names the argument and
    # both types; the fwd rule's pair and the missing defjvp say what to do in their words
    with capture_output() as cap:
        shell.run_cell(CASES["aot_other_shape"])
    assert not any(error_cards.MIME in o.data for o in cap.outputs)


def test_a_static_argument_given_again_to_the_compiled_function(shell):
    card = card_of(shell, "def fa(x, y):\n    return 2 * x + y\n"
                          "lowered_with_x = jax.jit(fa, static_argnums=0).lower(7, 8)\n"
                          "lowered_with_x.compile()(7, 8)")
    assert card["kind"] == "static-given-again"
    assert card["message"] == JAX["aot_static_again"]["raised"][1].splitlines()[0]
    assert "fixed x=7" in card["why"] and "takes the 1 other argument alone" in card["why"]
    assert card["rewrite"] == "lowered_with_x.compile()(8)"
    # pasted, it runs to JAX's value for the same call (2 * 7 + 8)
    assert shell.run_cell("_fixed = " + card["rewrite"]).success
    assert int(shell.user_ns["_fixed"]) == JAX["aot_static_again_fixed"]["value"] == 22
    # another mismatch of a compiled function (a dict missing a key) gets no such card
    with capture_output() as cap:
        shell.run_cell("c2 = jax.jit(lambda d: d['a'] + d['b']).lower({'a': 1., 'b': 2.})"
                       ".compile()\nc2({'a': 1.})")
    assert not any(error_cards.MIME in o.data for o in cap.outputs)
