"""Learners' mistakes on JAX's advanced tutorials (custom derivative rules, gradient
checkpointing, ahead-of-time lowering): the message is JAX's for the same program
(tests/data/learner_advanced_reference.json, recorded by
reference/make_learner_advanced_reference.py), and every rewrite a card advises runs under
JAX and jxkernel to the same value."""
import re

import pytest

pytest.importorskip("IPython")

from IPython.utils.capture import capture_output

import jxkernel
from jxkernel.views import error_cards
from learner_advanced_cases import CASES, run_case  # tests/data
import locations  # tests/support: the repository's folders
from ipython_shell import ran_failing, shell_fixture
from numerics import ELEMENTWISE, assert_tree_close  # tests/support

JAX = locations.recorded("learner_advanced_reference.json")

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp", fresh=True)


# under jit, jxkernel's lines on Python control flow stand before JAX's link; a static
# argument that cannot be hashed gets jxkernel's naming of it and advice after JAX's words:
# their own tests compare those
UNDER_JIT = ("grad_if_under_jit", "jacfwd_if_under_jit", "jit_under_grad_if")
STATIC_FAILS = ("grad_if_under_jit_static", "jacfwd_if_under_jit_static",
                "jit_under_grad_if_static", "grad_flag_under_jit_inner_static")
OBJECT_ID = re.compile(r"object id \d+")


@pytest.mark.parametrize("case", sorted(set(CASES) - set(UNDER_JIT + STATIC_FAILS) -
                                         {"grad_flag_under_jit",
                                          "grad_mode_string_under_jit"}))
def test_the_case_is_what_jax_does(case):
    # the values: a sine and a few products of float32 numbers (ELEMENTWISE: XLA's sin and cos
    # move a last bit per CPU), everything else exactly
    ours = run_case(jxkernel, CASES[case])
    if case == "aot_under_jit":         # JAX's class path, under our package's name
        ours["raised"][1] = ours["raised"][1].replace("'jxkernel._src.", "'jax._src.")
    if case.startswith("vmap_if"):      # (an object's id differs from run to run)
        ours["raised"][1] = OBJECT_ID.sub("object id N", ours["raised"][1])
        assert ours["raised"][1] == OBJECT_ID.sub("object id N", JAX[case]["raised"][1])
        return
    assert_tree_close(ours, JAX[case], ELEMENTWISE, err_msg=case)


@pytest.mark.parametrize("case", UNDER_JIT)
def test_a_differentiated_arguments_if_under_jit_offers_no_static(case):
    """JAX's lines, then jxkernel's, which offer no static argument: x is grad's (jacfwd's)
    tracer inside f, and JAX raises "Non-hashable static arguments" for it made static."""
    ours, theirs = run_case(jxkernel, CASES[case])["raised"], JAX[case]["raised"]
    assert ours[0] == theirs[0]
    head, link = theirs[1].rsplit("\n", 1)
    assert ours[1].startswith(head + "\n") and ours[1].endswith("\n" + link)
    assert "static" not in ours[1], ours[1]


@pytest.mark.parametrize("case", STATIC_FAILS)
def test_static_for_a_differentiated_argument_fails_as_in_jax(case):
    ours, theirs = run_case(jxkernel, CASES[case])["raised"], JAX[case]["raised"]
    assert ours[0] == theirs[0] == "ValueError"
    assert theirs[1].startswith("Non-hashable static arguments are not supported")
    assert ours[1].startswith("Non-hashable static arguments are not supported")
    tracer = re.search(r"unhashable type: '(\w+)'", theirs[1]).group(1)
    assert f"unhashable type: '{tracer}'" in ours[1]


@pytest.mark.parametrize("case", UNDER_JIT + ("remat_if_x",))
def test_the_bool_card_offers_no_static_for_a_differentiated_argument(shell, case):
    card = card_of(shell, CASES[case])
    assert card["kind"] == "bool-conversion"
    assert "static" not in card["rewrite"] and "static" not in card["fix"], card
    # its two rewrites, pasted over f's if, run under JAX to 2.0 (jit of grad)
    where, cond = [line for line in card["rewrite"].splitlines() if line.startswith("return")]
    assert (where, cond) == ("return jnp.where(x > 0, 2 * x, -x)",
                             "return jax.lax.cond(x > 0, lambda: 2 * x, lambda: -x)")
    broken = "    if x > 0:\n        return 2 * x\n    return -x"
    assert CASES["grad_if_under_jit"].replace(broken, "    " + where) == \
        CASES["grad_if_under_jit_where"]
    assert CASES["grad_if_under_jit"].replace(broken, "    " + cond) == \
        CASES["grad_if_under_jit_cond"]
    assert JAX["grad_if_under_jit_where"] == JAX["grad_if_under_jit_cond"] == {"value": 2.0}


@pytest.mark.parametrize("case", ["remat_if", "remat_if_alone"])
def test_a_checkpointed_functions_flag_is_made_static_by_checkpoint(shell, case):
    """static_argnums of jax.checkpoint (JAX's checkpoint takes no static_argnames), written
    into the learner's line as typed; pasted, it runs under JAX (remat_if_fixed's value)."""
    card = card_of(shell, CASES[case])
    last = CASES[case].splitlines()[-1]
    fixed_line = last.replace("jax.checkpoint(cond_fn)",
                              "jax.checkpoint(cond_fn, static_argnums=(1,))")
    assert card["rewrite"].endswith("\n" + fixed_line), card["rewrite"]
    assert "jit" not in card["rewrite"]
    name = "remat_if_fixed" if case == "remat_if" else "remat_if_alone_fixed"
    assert CASES[case].replace(last, fixed_line) == CASES[name]
    assert "raised" not in JAX[name]
    assert_tree_close(run_case(jxkernel, CASES[name]), JAX[name], ELEMENTWISE, err_msg=name)


def card_of(shell, source) -> dict:
    """The card's JSON of a cell that fails; the shell must still run a cell afterwards."""
    ran = ran_failing(shell, source, recovers=True)
    assert ran.cards, ran.printed
    return ran.card


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
    assert_tree_close(run_case(jxkernel, pasted), JAX["vjp_bwd_count_none"], ELEMENTWISE)  # JAX's
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
    # JAX's whole message: jit's static_argnums would be advice for another transformation
    assert ours[1] == theirs[1]


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


def test_a_flag_grad_does_not_differentiate_is_static_where_jit_wraps_grad(shell):
    """jax.jit(jax.grad(cond_fn)): static_argnames on that jit (grad keeps cond_fn's
    signature) runs under JAX; static on cond_fn itself would get the outer jit's tracer,
    which JAX refuses (recorded: grad_flag_under_jit_inner_static)."""
    ours, theirs = run_case(jxkernel, CASES["grad_flag_under_jit"])["raised"], \
        JAX["grad_flag_under_jit"]["raised"]
    head, link = theirs[1].rsplit("\n", 1)       # JAX's lines, jxkernel's, JAX's link
    assert ours[0] == theirs[0] and ours[1].startswith(head + "\n") and \
        ours[1].endswith("\n" + link)
    card = card_of(shell, CASES["grad_flag_under_jit"])
    last = CASES["grad_flag_under_jit"].splitlines()[-1]
    fixed_line = card["rewrite"].splitlines()[-1]
    assert fixed_line == "jax.jit(jax.grad(cond_fn), static_argnames=('flag',))(1.0, True)"
    assert CASES["grad_flag_under_jit"].replace(last, fixed_line) == \
        CASES["grad_flag_under_jit_fixed"]
    assert JAX["grad_flag_under_jit_fixed"] == JAX["remat_if_fixed"]     # cos(1.0)
    assert_tree_close(run_case(jxkernel, CASES["grad_flag_under_jit_fixed"]),
                      JAX["grad_flag_under_jit_fixed"], ELEMENTWISE)
    assert JAX["grad_flag_under_jit_inner_static"]["raised"][0] == "ValueError"
    assert run_case(jxkernel, CASES["grad_flag_under_jit_inner_static"])["raised"][0] == \
        "ValueError"


def test_a_checkpointed_functions_size_is_made_static_by_checkpoint(shell):
    card = card_of(shell, CASES["remat_shape"])
    assert "static_argnums of jax.checkpoint" in card["fix"], card["fix"]
    assert "static_argnames" not in card["fix"] and "%%jit" not in card["fix"]
    last = CASES["remat_shape"].splitlines()[-1]
    fixed_line = card["rewrite"].splitlines()[0]
    assert fixed_line == "jax.checkpoint(h, static_argnums=(1,))(1., 3)"
    assert CASES["remat_shape"].replace(last, fixed_line) == CASES["remat_shape_fixed"]
    assert_tree_close(run_case(jxkernel, CASES["remat_shape_fixed"]), JAX["remat_shape_fixed"],
                      ELEMENTWISE)


def test_a_string_under_jit_of_grad_is_static_on_that_jit(shell):
    # JAX's message names the function by its repr (an address): compared up to it
    ours = run_case(jxkernel, CASES["grad_mode_string_under_jit"])["raised"]
    theirs = JAX["grad_mode_string_under_jit"]["raised"]
    assert ours[0] == theirs[0] == "TypeError"
    tail = theirs[1].split(">", 1)[1]
    assert ours[1].split(">", 1)[1].startswith(tail.split("\n")[0])
    card = card_of(shell, CASES["grad_mode_string_under_jit"])
    last = CASES["grad_mode_string_under_jit"].splitlines()[-1]
    assert CASES["grad_mode_string_under_jit"].replace(last, card["rewrite"]) == \
        CASES["grad_mode_string_under_jit_fixed"], card["rewrite"]
    assert JAX["grad_mode_string_under_jit_fixed"] == JAX["remat_if_fixed"]     # cos(1.0)
    assert_tree_close(run_case(jxkernel, CASES["grad_mode_string_under_jit_fixed"]),
                      JAX["grad_mode_string_under_jit_fixed"], ELEMENTWISE)
