"""Stop 104's audit of learners' mistakes no case held (tests/data/card_gaps_cases.py STOP_104,
JAX 0.10.2's words compared in test_card_gaps.py): each run as a notebook cell gets a card of
its kind, whose words are true for that program and whose code, where it has some, runs pasted
under JAX (tests/data/card_rewrites_pasted_cases.py, the cases from key_cond_typed_and_raw to
split_uneven). A card with no code it can stand behind is comments alone; a mistake with no
card is in GAPS, with the reason."""
import pytest

import locations  # tests/support
from jxkernel.views import error_cards
from card_gaps_cases import STOP_104  # tests/data
from card_rewrites_pasted_cases import REFUSED
from doc_examples import check_docstring_examples  # tests/support
from ipython_shell import ran_failing, shell_fixture

JAX = locations.recorded("card_rewrites_pasted_reference.json")

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp\nfrom jxkernel import lax")

# each mistake's card kind: before stop 104, the key cards raised while drawing (`key<fry>`
# is no dtype: no card), the reshape, split and matmul mistakes had none, and the number and
# ragged rows' code raised pasted (REFUSED)
KINDS = {
    "key_cond_typed_and_raw": "branch-types", "key_cond_two_impls": "branch-types",
    "key_switch_typed_and_raw": "branch-types", "key_cond_pair_and_dtype": "branch-types",
    "key_while_carry_raw": "loop-carry", "key_fori_carry_data": "loop-carry",
    "grad_of_a_vector": "grad-output", "reshape_two_unknowns": "reshape-size",
    "concatenate_a_number": "concatenate-ranks", "stack_ragged_rows": "list-argument",
    "concatenate_ragged_rows": "list-argument", "split_uneven": "uneven-split",
    "matmul_by_a_number": "matmul-shapes", "scan_body_returning_y_as_carry": "loop-carry",
    # (a gap until stop 114: the card now says why there is no count and writes length= with
    # its number marked as the learner's to choose; tests/notebook/test_einsum_scan_cards.py)
    "scan_of_nothing_without_length": "scan-lengths",
}

# mistakes left without a card, and why (a card would need a guess)
GAPS = {
    "jit_returning_a_string": "what the string was for (a label to print, a result to return "
                              "beside the jitted call) is not in the program",
}

# cards whose code is comments alone: no line of code the card can stand behind
COMMENTS_ONLY = ("key_cond_two_impls", "key_cond_pair_and_dtype", "reshape_two_unknowns",
                 "stack_ragged_rows")


def test_every_mistake_is_a_card_or_a_recorded_gap():
    assert not set(KINDS) & set(GAPS) and sorted([*KINDS, *GAPS]) == sorted(STOP_104)


@pytest.mark.parametrize("case", sorted(STOP_104))
def test_each_mistake_gets_its_card(shell, case):
    """The cell fails with a card of the kind KINDS says (the key cards: drawing one raised,
    and no card was shown), or none where GAPS records why."""
    card = ran_failing(shell, STOP_104[case]).card
    if case in GAPS:
        assert card is None, card
        return
    assert card is not None and card["kind"] == KINDS[case], card
    if case in COMMENTS_ONLY:
        assert all(line.startswith("#") for line in card["rewrite"].splitlines()), card


def test_keys_of_two_impls_are_told_no_cast_joins_them(shell):
    """key<fry> against key<rbg>: no call turns one into the other, so the card names both
    types and writes no code (a wrap_key_data of a key<rbg> raises)."""
    card = ran_failing(shell, STOP_104["key_cond_two_impls"]).card
    assert "key<fry>" in card["rewrite"] and "key<rbg>" in card["rewrite"], card
    assert "wrap_key_data" not in card["rewrite"] and "do not convert" in card["rewrite"]


def test_a_key_leaf_and_a_number_leaf_off_are_both_told(shell):
    """Two leaves off (JAX's bullets: the key at [0], float32 against int32 at [1]): wrapping
    the key alone would raise again at [1], so the card names both and gives no code."""
    card = ran_failing(shell, STOP_104["key_cond_pair_and_dtype"]).card
    for said in ("[0]: key<fry>[] and uint32[2]", "[1]: float32[] and int32[]"):
        assert said in card["fix"] and said in card["rewrite"], card


def test_a_typed_key_branch_keeps_the_raw_one_wrapped(shell):
    """The typed key is kept, the raw data wrapped (not the other way: jax.random recommends
    typed keys); the words say which branch and which call; the card lists what each branch
    returns, as the dtype card does."""
    ran = ran_failing(shell, STOP_104["key_cond_typed_and_raw"])
    card = ran.card
    assert ["true_fun", "<lambda>", "key<fry>[]"] in card["origin"]["branches"], card
    assert card["title"] == "cond: the branches return keys of different types", card
    assert "jax.random.wrap_key_data(jax.random.PRNGKey(1))" in card["rewrite"], card
    assert "around what false_fun returns" in card["fix"], card


def test_ragged_rows_given_to_stack_are_not_offered_one_array(shell):
    """jnp.stack([[1.0, 2.0], [3.0]]): the card offered jnp.stack(jnp.asarray(...)), which
    raises under JAX (REFUSED, recorded); it names the rows' lengths and gives no call."""
    assert JAX["refused"]["stack_ragged_rows_as_one_array"] == "ValueError"
    assert "jnp.asarray([[1.0, 2.0], [3.0]])" in REFUSED["stack_ragged_rows_as_one_array"]
    card = ran_failing(shell, STOP_104["stack_ragged_rows"]).card
    assert "jnp.asarray([[" not in card["rewrite"], card
    assert "lengths 2, 1" in card["title"] and "lengths 2, 1" in card["why"], card


def test_two_unknown_sizes_are_told_as_the_rule(shell):
    """reshape(-1, -1): JAX names no size; the card says -1 is one size worked out, and
    sketches the line with a name for the size the learner means."""
    card = ran_failing(shell, STOP_104["reshape_two_unknowns"]).card
    assert card["title"] == "A reshape into (-1, -1): -1 stands for one size only", card
    assert "\n#   y = x.reshape(-1, n)    # in place of (-1, -1)" in card["rewrite"], card


def test_the_examples_of_the_join_readers_run():
    """joins.py's `_one_more_axis` (a number among vectors as a vector of one element, not
    `1.0[None]`): its docstring examples are its contract."""
    check_docstring_examples("jxkernel.views.error_cards.joins")


@pytest.mark.parametrize("case", ["two leaves sharded otherwise",
                                  "a sharded leaf and a dtype leaf",
                                  "two leaves varying otherwise"])
def test_branches_off_in_sharding_or_manual_axes_get_no_cast(case):
    """JAX 0.10.2's words for branches whose leaves differ in sharding or in the manual axes
    they vary over (recorded on 8 CPU devices, multi_device_gaps_reference.json): no cast or
    reshape fixes such a leaf, so no branch-types card (it cast the int32 leaf alone, and the
    program raised again at the sharded one)."""
    said = locations.recorded("multi_device_gaps_reference.json")["cases"][
        "cond_branches_off_in_sharding"][case]
    assert said[0] == "TypeError"
    assert error_cards.card_for(TypeError("\n".join(said[1:]))) is None
    # the same words with the sharded leaf's line dropped: a dtype alone, a card
    if case == "a sharded leaf and a dtype leaf":
        alone = [line.replace("  * the", "The").rstrip(".") + "." if "int32" in line else line
                 for line in said[1:] if "float32[4]" not in line.split("has type")[-1]]
        assert error_cards.card_for(TypeError("\n".join(alone))).kind == "branch-types", alone


@pytest.mark.parametrize("cell, said", [
    ("_y = lax.while_loop(lambda k: False, lambda k: jax.random.split(k), jax.random.key(0))",
     "Give the keys one shape: carry came in as key<fry>[], lambda k: jax.random.split(k) "
     "returns key<fry>[2], the same kind of key in two shapes"),
    ("_y = lax.cond(True, lambda: jax.random.key(0), lambda: 1.0)",
     "Give both the same kind of value: true_fun returns a typed key (key<fry>[]), false_fun "
     "returns float32[], and no cast turns one into the other.")])
def test_keys_no_call_joins_are_told_as_they_differ(shell, cell, said):
    """A batch of keys where one came in (split's), a key against a number: words for what
    differs, no code (which key of the batch, which value, is the learner's to say)."""
    card = ran_failing(shell, cell).card
    assert said in card["fix"], card
    assert all(line.startswith("#") for line in card["rewrite"].splitlines()), card


def test_a_carry_off_at_a_key_and_a_number_is_told_both(shell):
    """JAX's bullets for two leaves of a while_loop's carry (a float made int, a typed key
    made raw): the card cast or wrapped the first alone, which raises again at the other;
    it names both, in the body's terms, and gives no code."""
    card = ran_failing(shell, "_y = lax.while_loop(lambda c: False, lambda c: (jnp.int32(1), "
                              "jax.random.PRNGKey(1)), (jnp.float32(0), jax.random.key(0)))").card
    listed = "carry[0]: float32[] and int32[]; carry[1]: key<fry>[] and uint32[2]"
    assert card["kind"] == "loop-carry" and listed in card["fix"], card
    assert card["rewrite"].startswith("# ") and "\n" not in card["rewrite"], card
