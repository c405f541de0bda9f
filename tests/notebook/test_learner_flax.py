"""A learner's Flax NNX training cells in a real kernel with `import jax` answered by jxkernel
(JXKERNEL_AS_JAX=1), against what JAX 0.10.2 with Flax 0.12.7 and Optax 0.2.8 said for the
same cells (tests/data/learner_flax_reference.json, recorded by
reference/make_learner_flax_reference.py from tests/data/learner_flax_cases.py): the messages
are JAX's, each card points at the learner's line, and each fix a card advises works when
pasted, under JAX too."""
import importlib.util
import json
import re

import pytest

# looked up, not imported: Flax imports `jax`, which in this process is the real one
if importlib.util.find_spec("flax") is None or importlib.util.find_spec("optax") is None:
    pytest.skip("needs flax and optax (the kernel imports them)", allow_module_level=True)

import locations                        # tests/support
from learner_flax_cases import (CASES, CLOSED_OVER_FIXED, CONV_NO_CHANNEL_FIXED,  # tests/data
                                 DROPOUT_LAYER_EVAL,
                                 DROPOUT_LAYER_RNGS, DROPOUT_MODEL_EVAL, DROPOUT_MODEL_RNGS,
                                 FIXED, FLOAT_ACCUMULATED_FIXED,
                                 LINEAR_IMAGES_FIXED, RNGS_SEED_FIXED,
                                 RNGS_THROUGH_A_MODEL_FIXED, SETUP)
from real_kernel import alias_kernel_cells

from jxkernel.views import error_cards
from note_words import here  # noqa: E402  (tests/support)

JAX = locations.recorded("learner_flax_reference.json")


@pytest.fixture(scope="module")
def cells():
    """{case: its KernelCell} for each case and fixed case (its result printed), one kernel
    for all; last, "step_recompiled": the fixed step called with a batch of another size,
    recompiled (not a case of the reference: what JAX's log says of it is named in the test
    below)."""
    return alias_kernel_cells(SETUP, {**CASES,
                                      **{name: source + f"print({result})"
                                         for name, (source, result) in FIXED.items()},
                                      "step_recompiled": STEP_RECOMPILED})


STEP_RECOMPILED = ("jax.config.update('jax_explain_cache_misses', True)\n"
                   "step_closed(model, optimizer, make_batch(8))\n"
                   "step_closed(model, optimizer, make_batch(16))\n"
                   "jax.config.update('jax_explain_cache_misses', False)\n")


def test_the_mistakes_raise_jaxs_errors(cells):
    for name in CASES:
        assert cells[name].error_line == (JAX[name]["error"], JAX[name]["first_line"]), name


def test_a_float_added_up_in_a_global_inside_the_step_is_returned_and_added_outside(cells):
    """`running_loss += float(loss)` inside an nnx.jit step: dropping float() (the card's
    rewrite before) leaks a tracer into the global (JAX's UnexpectedTracerError, the
    tracer_accumulated case); the card says to return the loss and add it up after the call,
    its rewrite written on the learner's call, and that cell runs under JAX and here."""
    card = cells["float_accumulated"].card
    assert card["kind"] == "concretization", card
    assert card["where"]["code"] == "running_loss += float(loss)", card["where"]
    lines = card["rewrite"].splitlines()
    assert lines[0].startswith("return loss    #"), card["rewrite"]
    added = "running_loss += float(train_step(model, optimizer, make_batch(8)))"
    assert lines[-1] == added and added in FLOAT_ACCUMULATED_FIXED, card["rewrite"]
    assert "UnexpectedTracerError" in card["fix"], card["fix"]
    assert JAX["tracer_accumulated"]["error"] == "UnexpectedTracerError"
    assert JAX["float_accumulated_fixed"] == "float"
    fixed = cells["float_accumulated_fixed"]
    assert fixed.error is None and fixed.stdout == "float\n", fixed


def test_a_wrong_feature_size_into_nnx_linear_points_at_the_learners_line(cells):
    """JAX's TypeError names dot_general's sizes; the card's "your line" is the learner's call
    of the layer (the model's __call__, in the setup cell), called from the case's cell, never
    Flax's linear.py."""
    card = cells["linear_features"].card
    assert card is not None and card["message"] == JAX["linear_features"]["first_line"]
    assert card["where"]["code"] == \
        "x = self.drop(nnx.relu(self.bn(self.l1(x))), rngs=rngs)", card["where"]
    assert card["called_from"]["code"] == "model(jnp.ones((4, 785)))", card["called_from"]
    told = {k: card[k] for k in ("where", "called_from", "title", "why", "fix", "rewrite")}
    assert "linear.py" not in json.dumps(told), told      # (the folded traceback has it)
    # no flatten nor channel axis makes 785 features 784: the layer built for the input
    assert card["kind"] == "layer-features", card
    assert card["title"] == "nnx.Linear(784, 32) got an input of shape (4, 785): its last axis " \
        "must be 784", card["title"]
    assert card["rewrite"].startswith("nnx.Linear(785, 32, rngs=rngs)    # in __init__"), \
        card["rewrite"]


@pytest.mark.parametrize("case, line, fixed, result", [
    ("linear_images", "x = x.reshape(x.shape[0], -1)", LINEAR_IMAGES_FIXED, "images_out"),
    ("conv_no_channel", "imgs = imgs[..., None]", CONV_NO_CHANNEL_FIXED, "conv_out")])
def test_images_into_a_layer_get_the_reshape_that_gives_its_in_features(cells, case, line,
                                                                        fixed, result):
    """Images into nnx.Linear(784, ...) unflattened, and into nnx.Conv(1, ...) without their
    channel axis: JAX's message names dot_general's or the convolution's sizes; the card names
    the layer and writes the reshape on the learner's own name, and that line pasted before
    the call runs, under JAX (its recorded output shape) and here."""
    card = cells[case].card
    assert card is not None and card["kind"] == "layer-features", card
    assert card["message"] == JAX[case]["first_line"]
    assert card["where"]["file"].startswith("In[") and "linear.py" not in card["title"]
    assert card["rewrite"].split("    #")[0] == line, card["rewrite"]
    assert line in fixed
    ran = cells[f"{case}_fixed"]
    assert ran.error is None and ran.stdout == f"{JAX[case + '_fixed']}\n", ran


@pytest.mark.parametrize("case, call, fixes", [
    ("dropout_model", "model(jnp.ones((2, 784)))", (DROPOUT_MODEL_EVAL, DROPOUT_MODEL_RNGS)),
    ("dropout_layer", "drop(jnp.ones(4))", (DROPOUT_LAYER_EVAL, DROPOUT_LAYER_RNGS))])
def test_dropout_in_training_mode_without_a_key_gets_eval_or_a_key(cells, case, call, fixes):
    """Flax's ValueError (no card before: the learner was left with Flax's frames); the card
    writes both ways out on the learner's own call, `model.eval()` before it and the call
    with rngs=nnx.Rngs(0) (the model's __call__ and Dropout's take rngs), and each pasted
    runs, under JAX (its recorded shapes and values) and here."""
    card = cells[case].card
    assert card is not None and card["kind"] == "dropout-rngs", card
    assert card["message"] == JAX[case]["first_line"]
    name = call.split("(")[0]
    eval_line, train_line = (block.splitlines() for block in card["rewrite"].split("\n# or\n"))
    assert [line.split("    #")[0] for line in eval_line] == [f"{name}.eval()", call], eval_line
    with_key = call[:-1] + ", rngs=nnx.Rngs(0))"
    assert [line.split("    #")[0] for line in train_line] == [with_key], train_line
    assert all(f"{name}.eval()" in fixed or with_key in fixed for fixed in fixes)
    for fixed in (f"{case}_eval", f"{case}_rngs"):
        ran = cells[fixed]
        assert ran.error is None and ran.stdout == f"{JAX[fixed]}\n", (fixed, ran)


@pytest.mark.parametrize("case, fixed", [("rngs_seed", RNGS_SEED_FIXED),
                                         ("rngs_through_a_model", RNGS_THROUGH_A_MODEL_FIXED)])
def test_a_seed_where_flax_takes_an_rngs_is_wrapped_where_the_learner_wrote_it(cells, case,
                                                                            fixed):
    """nnx.Linear(3, 2, rngs=0), and Small(42) whose __init__ passes its rngs to a layer:
    Flax's "'int' object has no attribute 'params'" from inside the layer (JAX's kernel says
    the same), and no card. The card wraps the seed in nnx.Rngs on the outermost line that
    writes it (the model's call, not the layer inside it); pasted, JAX's kernel values."""
    card = cells[case].card
    assert card is not None and card["kind"] == "flax-rngs", card
    assert card["message"] == JAX[case]["first_line"]
    assert card["rewrite"].split("    #")[0] == fixed.splitlines()[0], card["rewrite"]
    ran = cells[f"{case}_fixed"]
    assert ran.error is None and ran.stdout == f"{JAX[case + '_fixed']}\n", ran


@pytest.mark.parametrize("case, line", [
    ("optimizer_no_wrt", "optimizer_w = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)"),
    ("update_grads_only", "optimizer_u.update(model, grads_u)")])
def test_an_optimizer_as_before_flax_0_11_gets_flaxs_arguments_on_the_line(cells, case, line):
    """nnx.Optimizer(model, tx) and optimizer.update(grads), as tutorials before Flax 0.11
    write them: Flax's "Missing required argument `wrt`" ("`grads`") from inside Flax (JAX's
    kernel says the same), and no card. The card writes wrt=nnx.Param on the line, or the
    model the optimizer was made for (read from the cell's statement that made it) before the
    gradients; pasted, JAX's kernel values."""
    card = cells[case].card
    assert card is not None and card["kind"] == "flax-optimizer", card
    assert card["message"] == JAX[case]["first_line"]
    assert card["rewrite"].split("    #")[0] == line, card["rewrite"]
    ran = cells[f"{case}_fixed"]
    assert ran.error is None and ran.stdout == f"{JAX[case + '_fixed']}\n", ran


def test_a_model_updated_inside_jax_jit_from_outside_gets_nnx_jit_with_it_as_argument(cells):
    """jax.jit of a step reading the model and optimizer from its globals and updating them:
    Flax's ValueError (its words, with no way out); the card names both and writes the step
    with nnx.jit taking them as arguments, and the learner's call with them, which runs
    under JAX and here."""
    card = cells["closed_over"].card
    assert card is not None and card["kind"] == "closed-modules", card
    assert card["message"] == JAX["closed_over"]["first_line"]
    assert card["title"].endswith(": model, optimizer"), card["title"]
    lines = card["rewrite"].splitlines()
    assert lines[0].split("    #")[0] == "@nnx.jit", lines
    assert lines[1] == "def step_closed(model, optimizer, batch):", lines
    assert lines[-1] == "step_closed(model, optimizer, make_batch(8))", lines
    assert "@nnx.jit\ndef step_closed(model, optimizer, batch):" in CLOSED_OVER_FIXED
    assert "step_closed(model, optimizer, make_batch(8))" in CLOSED_OVER_FIXED
    ran = cells["closed_over_fixed"]
    assert JAX["closed_over_fixed"] == "float"
    assert ran.error is None and ran.stdout == "float\n", ran


def test_a_model_updated_inside_nnx_jit_from_outside_is_told_to_pass_it(cells):
    """The same step under nnx.jit already: Flax raises the same ValueError (recorded). The
    card said "inside jax.jit" and "jit it with nnx.jit", which the learner had done; it
    names nnx.jit and the arguments alone, and its rewrite is the fix's (closed_over_fixed,
    which runs under JAX and here)."""
    card = cells["closed_over_nnx"].card
    assert card["kind"] == "closed-modules" and card["message"] == \
        JAX["closed_over_nnx"]["first_line"]
    assert card["title"] == "Flax objects updated inside nnx.jit from outside it: model, " \
        "optimizer", card["title"]
    assert "while nnx.jit traces it" in card["why"] and "jax.jit" not in card["why"]
    assert card["fix"].startswith("Pass model and optimizer to step_closed as arguments: "
                                  "nnx.jit takes"), card["fix"]
    lines = card["rewrite"].splitlines()
    assert lines[:2] == ["@nnx.jit", "def step_closed(model, optimizer, batch):"], lines
    assert lines[-1] == "step_closed(model, optimizer, make_batch(8))", lines
    assert "\n".join(lines[:2]) in CLOSED_OVER_FIXED and JAX["closed_over_fixed"] == "float"


def test_an_nnx_jit_steps_recompile_is_noted_at_the_learners_line(cells):
    """nnx.jit's step recompiled for a new batch size: JAX 0.10.2's jax_explain_cache_misses
    names Flax's line, "TRACING CACHE MISS at .../flax/nnx/transforms/compilation.py:852:49
    (JitWrapped.__call__)" (seen under JAX 0.10.2 with Flax 0.12.7), and so does jxkernel's
    log; the note is ours: it names the learner's line that called the step, its cell and
    line, never Flax's file."""
    ran = cells["step_recompiled"]
    assert ran.status == "ok", ran
    (note,) = ran.compile_notes
    at = f"In[{ran.count}]:3"
    assert note.startswith(here(f"⚙ step_closed compiled again (compile #2, at {at})")), note
    assert f"called at {at}:  step_closed(model, optimizer, make_batch(16))" in note, note
    assert "compilation.py" not in note, note
    assert "TRACING CACHE MISS at " in ran.stderr and \
        "flax/nnx/transforms/compilation.py:852:49 (JitWrapped.__call__)" in ran.stderr, ran.stderr


def test_a_cards_origin_folds_flax_and_optax_steps_one_line_each(cells):
    """The float() card's origin ran through Flax's layers and Optax's loss (~15 steps): each
    run of a library's steps is one line naming the package, the learner's lines kept."""
    card = cells["float_accumulated"].card
    packages = [s["package"] for s in card["origin"]["steps"]]
    assert "flax" in packages and "optax" in packages, packages
    lines = error_cards.origin_lines(error_cards.ErrorCard(**{
        k: card[k] for k in ("kind", "title", "why", "fix", "rewrite", "origin")}))
    folded = [line.strip() for line in lines[1:]]
    assert any(re.fullmatch(r"… \d+ steps? inside flax", line) for line in folded), folded
    assert any(re.fullmatch(r"… \d+ steps? inside optax", line) for line in folded), folded
    assert not any("linear.py" in line or "_classification.py" in line for line in folded)
    mine = [line for line in folded if line.startswith("→")]
    assert mine and all("(In[" in line for line in mine), folded
    assert len(folded) < len(packages)
