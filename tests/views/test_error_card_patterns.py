"""A card's fallback line, written where the learner's line does not show what it rewrites
(the operation inside a helper, a line that does not parse alone): a pattern, every line a
comment, never code naming what the learner's namespace may not hold. Pasted as code, each of
these raised NameError (`lo`, `which`, `mask`, `start`, `rows`) or, in a class, returned
another object's fields."""
import pytest

from jxkernel.views.error_cards import (control_flow, keys, list_arguments, operand_dtypes,
                                       ragged, shapes, state_classes, truth)

OTHER_LINE = {"code": "y = helper(x)", "line": 1, "function": "<module>", "file": "In[1]"}


def _commented(rewrite: str) -> bool:
    return all(line.startswith("#") for line in rewrite.splitlines())


@pytest.mark.parametrize("message", [
    "lax.clamp requires arguments to have the same dtypes, got float32, int32, float32.",
    "select cases must have the same shapes, got [(3,), (2,)].",
])
def test_lax_clamp_or_select_of_another_line_gets_a_pattern(message):
    card = operand_dtypes._lax_clamp_or_select_card(TypeError(message), OTHER_LINE, None)
    assert _commented(card.rewrite), card.rewrite


def test_a_negative_power_of_another_line_gets_a_pattern():
    card = operand_dtypes._int_power_card(ValueError("Integers to negative integer powers are "
                                                     "not allowed."), OTHER_LINE, None)
    assert _commented(card.rewrite), card.rewrite


def test_ragged_rows_of_another_line_get_a_pattern():
    message = ("setting an array element with a sequence. The requested array has an "
               "inhomogeneous shape after 1 dimensions. The detected shape was (2,) + "
               "inhomogeneous part.")          # (NumPy's words, JAX 0.10.2's too)
    card = ragged._ragged_card(ValueError(message), OTHER_LINE, None)
    assert _commented(card.rewrite), card.rewrite


@pytest.mark.parametrize("rewrite", [
    lambda: shapes._mask_rewrite(OTHER_LINE), lambda: shapes._at_rewrite(OTHER_LINE),
    lambda: shapes._slice_rewrite(OTHER_LINE, None)])
def test_the_shape_cards_fallbacks_are_patterns(rewrite):
    assert _commented(rewrite()), rewrite()


def test_a_flatten_whose_return_is_not_found_gets_a_pattern():
    """tree_flatten's return not found in the learner's class (its source not at hand): the
    pattern, commented (as code, `return [self.a, self.b], None` outside a method)."""
    message = ("The to_iterable function for a custom PyTree node should return a (children, "
               "aux_data) tuple, got [1.0, 2.0]")
    card = state_classes._flatten_pair_card(ValueError(message), OTHER_LINE, None)
    assert _commented(card.rewrite), card.rewrite


def test_the_key_cards_fallbacks_are_patterns():
    """A batch of keys given where one goes, or a key unpacked, where the learner's line does
    not show the draw or the unpacking (inside a helper): the split's pattern, commented (as
    code it named `key`, which the learner's namespace may not hold)."""
    batch = ValueError("normal accepts a single key, but was given a key array of shape (4,) "
                       "!= (). Use jax.vmap for batching.")
    card = keys._key_batch_card(batch, OTHER_LINE, None)
    assert _commented(card.rewrite) and "split(key)" in card.rewrite, card.rewrite
    card = keys._key_unpack_card(TypeError("iteration over a 0-d key array"), OTHER_LINE, None)
    assert _commented(card.rewrite) and "split(key)" in card.rewrite, card.rewrite


def test_a_list_given_inside_a_helper_gets_a_pattern():
    """A list refused inside a helper the learner's line calls (the line shows no list): the
    pattern, commented (as code, `y = jnp.sum(jnp.asarray(values))` named `values`)."""
    error = TypeError("sum requires ndarray or scalar arguments, got <class 'list'> at "
                      "position 0.")
    card = list_arguments._list_argument_card(error, OTHER_LINE, None)
    assert _commented(card.rewrite) and "jnp.asarray(values)" in card.rewrite, card.rewrite


def test_the_truth_and_list_index_cards_fallbacks_are_patterns():
    """An array's truth asked, or an array indexed by a list, where the learner's line does
    not show it: patterns (as code, `jnp.where(cond, a, b)` and `x[jnp.array(seq)]` named
    `cond` and `seq`)."""
    truth_error = ValueError("The truth value of an array with more than one element is "
                             "ambiguous. Use a.any() or a.all()")
    card = truth._truth_value_card(truth_error, OTHER_LINE, None)
    assert _commented(card.rewrite), card.rewrite
    index_error = TypeError("Using a non-tuple sequence for multidimensional indexing is not "
                            "allowed; use `arr[array(seq)]` instead of `arr[seq]`.")
    card = list_arguments._list_index_card(index_error, OTHER_LINE, None)
    assert _commented(card.rewrite), card.rewrite


def test_a_while_grad_made_on_another_line_gets_a_pattern():
    """grad of a while loop called through a name made above (`g = jax.grad(f)`, then
    `g(2.0)`): the pattern (as code, `g = jax.jacfwd(f)(x)` named `f` and `x`, and bound a
    value where g was a function)."""
    error = ValueError("Reverse-mode differentiation does not work for lax.while_loop or "
                       "lax.fori_loop with dynamic start/stop values.")
    card = control_flow._while_grad_card(error, OTHER_LINE, None)
    assert _commented(card.rewrite) and "jax.jacfwd" in card.rewrite, card.rewrite
