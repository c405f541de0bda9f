"""A learner's Flax NNX training cells (the MNIST tutorial's loop on random arrays shaped like
its batches) and their mistakes, as notebook cells: run under JAX 0.10.2 with Flax 0.12.7 and
Optax 0.2.8 by reference/make_learner_flax_reference.py, and in a jxkernel kernel by
tests/notebook/test_learner_flax.py. Each case is one cell after SETUP; FIXED cells are a
mistake's cell with a card's advice pasted in."""

from learner_cells import cells_outcome  # tests/data

# The learner's imports. tests/ never import the real JAX: the test runs them in a kernel where
# `jax` is jxkernel's alias (install_as_jax, as the kernel "JAX on jxkernel"; it asserts
# `jax.jit is jxkernel.jit`); only reference/make_learner_flax_reference.py, in a venv of its
# own, runs them under the real JAX 0.10.2.
IMPORTS = "import jax, jax.numpy as jnp, numpy as np, optax\n"
SETUP = IMPORTS + """\
from flax import nnx

class MLP(nnx.Module):
  def __init__(self, rngs):
    self.l1 = nnx.Linear(784, 32, rngs=rngs)
    self.bn = nnx.BatchNorm(32, rngs=rngs)
    self.drop = nnx.Dropout(0.1)
    self.l2 = nnx.Linear(32, 10, rngs=rngs)
  def __call__(self, x, rngs=None):
    x = self.drop(nnx.relu(self.bn(self.l1(x))), rngs=rngs)
    return self.l2(x)

model = MLP(nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.adamw(0.005, 0.9), wrt=nnx.Param)
rng = np.random.default_rng(0)
def make_batch(n):
  return {'image': rng.random((n, 784), dtype=np.float32),
          'label': rng.integers(0, 10, (n,)).astype(np.int32)}
model.eval()
"""

# the step's loss, a global float added up inside the jitted step
FLOAT_ACCUMULATED = """\
running_loss = 0.0
@nnx.jit
def train_step(model, optimizer, batch):
  global running_loss
  def lf(model):
    logits = model(batch['image'])
    return optax.softmax_cross_entropy_with_integer_labels(logits, batch['label']).mean()
  loss, grads = nnx.value_and_grad(lf)(model)
  optimizer.update(model, grads)
  running_loss += float(loss)
  return loss
train_step(model, optimizer, make_batch(8))
"""

# the same step with the card's rewrite pasted in: `return loss` (already there), the line
# inside removed, and the sum made after the call
FLOAT_ACCUMULATED_FIXED = FLOAT_ACCUMULATED.replace(
    "  running_loss += float(loss)\n", "").replace(
    "train_step(model, optimizer, make_batch(8))\n",
    "running_loss += float(train_step(model, optimizer, make_batch(8)))\n"
    "running_loss += float(train_step(model, optimizer, make_batch(8)))\n"
    "accumulated = type(running_loss).__name__\n")

# float() dropped, as the card said before: the global keeps a tracer
TRACER_ACCUMULATED = FLOAT_ACCUMULATED.replace("float(loss)", "loss") + "running_loss + 1\n"

# an input of the wrong feature size into the model's first nnx.Linear: neither a
# flatten nor a channel axis fixes it
LINEAR_FEATURES = "model(jnp.ones((4, 785)))\n"

# images, not flattened, into nnx.Linear(784, ...); and the card's line pasted before the call
LINEAR_IMAGES = """\
layer = nnx.Linear(784, 10, rngs=nnx.Rngs(1))
x = jnp.ones((4, 28, 28))
layer(x)
"""
LINEAR_IMAGES_FIXED = LINEAR_IMAGES.replace(
    "layer(x)\n", "x = x.reshape(x.shape[0], -1)\nimages_out = list(layer(x).shape)\n")

# images without their channel axis into nnx.Conv(1, ...); and the card's line pasted
CONV_NO_CHANNEL = """\
conv = nnx.Conv(1, 8, kernel_size=(3, 3), rngs=nnx.Rngs(2))
imgs = jnp.ones((4, 28, 28))
conv(imgs)
"""
CONV_NO_CHANNEL_FIXED = CONV_NO_CHANNEL.replace(
    "conv(imgs)\n", "imgs = imgs[..., None]\nconv_out = list(conv(imgs).shape)\n")

# the model called after model.train() with no key (its Dropout in training mode); it stays
# in training mode: the first fixed cells below switch it back
DROPOUT_MODEL = "model.train()\nmodel(jnp.ones((2, 784)))\n"
DROPOUT_MODEL_EVAL = "model.eval()\ndropout_eval = list(model(jnp.ones((2, 784))).shape)\n"
DROPOUT_MODEL_RNGS = ("model.train()\n"
                      "dropout_rngs = list(model(jnp.ones((2, 784)), rngs=nnx.Rngs(0)).shape)\n"
                      "model.eval()\n")
# a Dropout layer of its own, built without rngs
DROPOUT_LAYER = "drop = nnx.Dropout(0.5)\ndrop(jnp.ones(4))\n"
DROPOUT_LAYER_EVAL = "drop = nnx.Dropout(0.5)\ndrop.eval()\ndrop_eval = drop(jnp.ones(4)).tolist()\n"
DROPOUT_LAYER_RNGS = ("drop = nnx.Dropout(0.5)\n"
                      "drop_rngs = list(drop(jnp.ones(4), rngs=nnx.Rngs(0)).shape)\n")

# jax.jit of a step that reads the model and optimizer from outside and updates them; and the
# card's rewrite: nnx.jit, the two as arguments, on the learner's call
CLOSED_OVER = """\
@jax.jit
def step_closed(batch):
  def lf(model):
    return optax.softmax_cross_entropy_with_integer_labels(model(batch['image']), batch['label']).mean()
  loss, grads = nnx.value_and_grad(lf)(model)
  optimizer.update(model, grads)
  return loss
step_closed(make_batch(8))
"""
CLOSED_OVER_FIXED = CLOSED_OVER.replace("@jax.jit\ndef step_closed(batch):",
                                        "@nnx.jit\ndef step_closed(model, optimizer, batch):").replace(
    "step_closed(make_batch(8))\n",
    "closed_loss = type(float(step_closed(model, optimizer, make_batch(8)))).__name__\n")

# the same step under nnx.jit already: Flax raises the same ValueError (the objects are not
# its arguments)
CLOSED_OVER_NNX = CLOSED_OVER.replace("@jax.jit\n", "@nnx.jit\n")

# a seed where Flax takes an nnx.Rngs, written on a layer or on the learner's own model, whose
# __init__ passes it on: Flax's "'int' object has no attribute 'params'" from inside the layer
RNGS_SEED = "layer_r = nnx.Linear(3, 2, rngs=0)\n"
RNGS_THROUGH_A_MODEL = ("class Small(nnx.Module):\n  def __init__(self, rngs):\n"
                        "    self.l = nnx.Linear(3, 2, rngs=rngs)\nsmall = Small(42)\n")
# the card's lines pasted: the layer's kernel, its shape and its sum to 4 places
RNGS_SEED_FIXED = ("layer_r = nnx.Linear(3, 2, rngs=nnx.Rngs(0))\n"
                   "kernel_r = [list(layer_r.kernel.value.shape), "
                   "round(float(layer_r.kernel.value.sum()), 4)]\n")
RNGS_THROUGH_A_MODEL_FIXED = ("small = Small(nnx.Rngs(42))\n"
                              "kernel_s = [list(small.l.kernel.value.shape), "
                              "round(float(small.l.kernel.value.sum()), 4)]\n")

# nnx.Optimizer as tutorials before Flax 0.11 wrote it: without wrt, and update given the
# gradients alone (Flax's "Missing required argument `wrt`" / "`grads`", from inside Flax)
OPTIMIZER_NO_WRT = "optimizer_w = nnx.Optimizer(model, optax.sgd(0.1))\n"
UPDATE_GRADS_ONLY = ("optimizer_u = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)\n"
                     "grads_u = nnx.grad(lambda m: m(make_batch(4)['image']).sum())(model)\n"
                     "optimizer_u.update(grads_u)\n")
# the cards' lines pasted: the optimizer made (its step count), the model updated (its step
# count, and whether the kernel moved: a value after a step differs in its last bits by CPU)
OPTIMIZER_NO_WRT_FIXED = ("optimizer_w = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)\n"
                          "made_w = int(optimizer_w.step.value)\n")
UPDATE_GRADS_ONLY_FIXED = UPDATE_GRADS_ONLY.replace(
    "optimizer_u.update(grads_u)\n", "k0_u = model.l2.kernel.value\n"
    "optimizer_u.update(model, grads_u)\n"
    "updated_u = [int(optimizer_u.step.value), bool((model.l2.kernel.value != k0_u).any())]\n")

CASES = {"closed_over": CLOSED_OVER, "closed_over_nnx": CLOSED_OVER_NNX,
         "optimizer_no_wrt": OPTIMIZER_NO_WRT, "update_grads_only": UPDATE_GRADS_ONLY,
         "float_accumulated": FLOAT_ACCUMULATED, "tracer_accumulated": TRACER_ACCUMULATED,
         "linear_features": LINEAR_FEATURES, "linear_images": LINEAR_IMAGES,
         "conv_no_channel": CONV_NO_CHANNEL, "dropout_layer": DROPOUT_LAYER,
         "dropout_model": DROPOUT_MODEL, "rngs_seed": RNGS_SEED,
         "rngs_through_a_model": RNGS_THROUGH_A_MODEL}
FIXED = {"dropout_model_eval": (DROPOUT_MODEL_EVAL, "dropout_eval"),
         "dropout_model_rngs": (DROPOUT_MODEL_RNGS, "dropout_rngs"),
         "dropout_layer_eval": (DROPOUT_LAYER_EVAL, "drop_eval"),
         "dropout_layer_rngs": (DROPOUT_LAYER_RNGS, "drop_rngs"),
         "float_accumulated_fixed": (FLOAT_ACCUMULATED_FIXED, "accumulated"),
         "closed_over_fixed": (CLOSED_OVER_FIXED, "closed_loss"),
         "linear_images_fixed": (LINEAR_IMAGES_FIXED, "images_out"),
         "conv_no_channel_fixed": (CONV_NO_CHANNEL_FIXED, "conv_out"),
         "rngs_seed_fixed": (RNGS_SEED_FIXED, "kernel_r"),
         "rngs_through_a_model_fixed": (RNGS_THROUGH_A_MODEL_FIXED, "kernel_s"),
         # (last: it changes the model the other cells use)
         "optimizer_no_wrt_fixed": (OPTIMIZER_NO_WRT_FIXED, "made_w"),
         "update_grads_only_fixed": (UPDATE_GRADS_ONLY_FIXED, "updated_u")}


def outcome(run_cell, namespace) -> dict:
    """What the cells did under the JAX that runs them (learner_cells.cells_outcome)."""
    return cells_outcome(SETUP, CASES, FIXED, run_cell, namespace)
