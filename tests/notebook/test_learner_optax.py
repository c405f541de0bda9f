"""A PyTorch learner's first Optax cells in a real kernel with `import jax` answered by
jxkernel (JXKERNEL_AS_JAX=1), against what JAX 0.10.2 with Optax 0.2.8 said for the same cells
(tests/data/learner_optax_reference.json, recorded by reference/make_learner_optax_reference.py
from tests/data/learner_optax_cases.py): the messages are JAX's (Optax's, Python's), each card
points at the learner's line, and each line a card writes runs, pasted, to JAX's value."""
import importlib.util

import numpy as np
import pytest

# looked up, not imported: Optax imports `jax`, which in this process is the real one
if importlib.util.find_spec("optax") is None:
    pytest.skip("needs optax (the kernel imports it)", allow_module_level=True)

import locations                        # tests/support
from learner_optax_cases import CASES, FIXED, SETUP  # tests/data
from numerics import assert_allclose_ulp
from real_kernel import alias_kernel_cells

JAX = locations.recorded("learner_optax_reference.json")


@pytest.fixture(scope="module")
def cells():
    """{case: its KernelCell} for each case and fixed case (its value printed as repr), one
    kernel for all."""
    return alias_kernel_cells(SETUP, {**CASES, **{name: source + f"print(repr({result}))"
                                                  for name, (source, result) in FIXED.items()}})


def _lines(card) -> list:
    """The card's code lines, without their trailing comments."""
    return [line.split("    #")[0] for line in card["rewrite"].splitlines()]


def test_the_mistakes_raise_jaxs_errors_and_the_fixes_give_jaxs_values(cells):
    for name in CASES:
        error = cells[name].error_line
        assert error and (error[0], error[1]) == (JAX[name]["error"], JAX[name]["first_line"]), \
            (name, error)
    for name in FIXED:
        ran = cells[name]
        assert ran.error is None, (name, ran)
        got, want = eval(ran.stdout.strip()), JAX[name]     # (a float, a list, a str's repr)
        if isinstance(want, str):
            assert got == want, name
        else:           # a loss and a step: computed, so within 4 float32 ulps of JAX's
            assert_allclose_ulp(np.float32(got), np.float32(want), 4, err_msg=name)


@pytest.mark.parametrize("case", ["integer_labels", "float_class_numbers"])
def test_class_numbers_given_to_softmax_cross_entropy_get_the_integer_labels_loss(cells, case):
    """optax.softmax_cross_entropy(logits, labels) of class numbers (6,) beside logits (6, 4):
    Optax's broadcast inside its loss, and the broadcast card's advice was jnp.expand_dims of
    the labels to (6, 1), which runs and computes another loss. The integer-labels card writes
    softmax_cross_entropy_with_integer_labels (one-hot labels for float class numbers), whose
    loss is JAX's; it points at the learner's line, not Optax's."""
    card = cells[case].card
    assert card["kind"] == "integer-labels", card
    assert card["where"]["code"] == CASES[case].strip(), card["where"]
    assert "expand_dims(" not in card["fix"] + card["rewrite"]
    (line,) = _lines(card)
    assert line == FIXED[f"{case}_fixed"][0].splitlines()[0], card["rewrite"]


@pytest.mark.parametrize("case", ["one_hot_to_integer_loss", "one_hot_name_to_integer_loss",
                                  "float_numbers_to_integer_loss"])
def test_one_hot_rows_given_to_the_integer_labels_loss_get_class_numbers(cells, case):
    """softmax_cross_entropy_with_integer_labels given `jax.nn.one_hot(labels, 4)`, a one-hot
    name, or float class numbers: Optax's dtype check ("Expected the input to have a dtype
    that is a subdtype of <class 'numpy.integer'>"), and no card. The card gives the class
    numbers one_hot was given, the distribution loss for one-hot rows, or the numbers cast;
    pasted, JAX's loss."""
    card = cells[case].card
    assert card is not None and card["kind"] == "integer-labels", cells[case]
    assert card["where"]["code"] == CASES[case].strip(), card["where"]
    (line,) = _lines(card)
    assert line == FIXED[f"{case}_fixed"][0].splitlines()[0], card["rewrite"]


def test_pytorchs_optimizer_words_get_optaxs(cells):
    """optax.adam(lr=1e-3): learning_rate=; opt.step() and opt.zero_grad(): an Optax optimizer
    is init and update, and the card writes the update step with the learner's optimizer,
    which runs (FIXED's step_fixed, JAX's value)."""
    card = cells["lr_keyword"].card
    assert card["kind"] == "optimizer-words", card
    assert _lines(card) == [FIXED["lr_keyword_fixed"][0].splitlines()[0]], card["rewrite"]
    for case in ("step", "zero_grad"):
        card = cells[case].card
        assert card["kind"] == "optimizer-words", card
        assert card["title"].startswith(f"opt.{case}() is PyTorch's"), card["title"]
        written = [line.removeprefix("#   ") for line in _lines(card) if line.startswith("#   ")]
        assert written[1:] == FIXED["step_fixed"][0].splitlines()[1:3], card["rewrite"]


def test_a_broadcast_inside_optax_is_told_without_reshaping_the_learners_arrays(cells):
    """sigmoid_binary_cross_entropy(logits (6, 4), labels (6,)): the broadcast fails inside
    Optax, and the broadcast card told the learner to expand_dims one array to (6, 1), which
    runs and computes another loss. It says the operation is Optax's, and prints shapes."""
    card = cells["binary_labels"].card
    assert card["kind"] == "broadcast-shapes", card
    assert "inside the function this line calls" in card["fix"] and "optax" in card["fix"]
    assert "expand_dims" not in card["fix"] + card["rewrite"], card
    assert card["rewrite"] == "# (6,) and (6, 4) met inside optax: print each argument's .shape"


def test_updates_pair_applied_whole_is_unpacked_where_update_made_it(cells):
    """`updates = opt.update(g, opt_state)` then optax.apply_updates(params, updates): JAX's
    "pytree structure error" from inside Optax, and the tree-structure card told the pair as
    grad's has_aux pair ("grads, aux = jax.grad(f, has_aux=True)(params, ...)"), a line of
    nothing the learner wrote. It names update's (updates, new state) and unpacks the pair on
    its own line, then the learner's; pasted, JAX's step (FIXED update_pair_applied_fixed)."""
    card = cells["update_pair_applied"].card
    assert card["kind"] == "tree-structure", card
    assert "has_aux" not in card["why"] + card["fix"] + card["rewrite"], card
    assert "an optimizer's update returns (updates, new state)" in card["why"], card["why"]
    assert _lines(card) == FIXED["update_pair_applied_fixed"][0].splitlines()[1:3], card


def test_update_without_the_state_gets_the_learners_state(cells):
    """opt.update(g) (a PyTorch optimizer keeps its state): Optax's "update_fn() missing 1
    required positional argument: 'state'", in JAX's kernel too, and no card. The card passes
    the one Optax state of the namespace (opt_state) and binds the next; pasted, JAX's updates
    (FIXED update_without_state_fixed)."""
    card = cells["update_without_state"].card
    assert card["kind"] == "optimizer-words", card
    assert _lines(card) == FIXED["update_without_state_fixed"][0].splitlines()[:1], card
