"""A learner's Equinox training cells (the "Train a CNN on MNIST" quick start's model, loss and
step on random arrays shaped like its batches) and their mistakes, as notebook cells: run under
JAX 0.10.2 with Equinox 0.13.8 and Optax 0.2.8 by reference/make_learner_equinox_reference.py,
and in a jxkernel kernel by tests/notebook/test_learner_equinox.py. Each case is one cell after
SETUP; FIXED cells are a mistake's cell with a card's advice pasted in."""

from learner_cells import cells_outcome  # tests/data

# tests/ never import the real JAX: the test runs these in a kernel where `jax` is jxkernel's
# alias; only the reference script, in a venv of its own, runs them under the real JAX 0.10.2.
IMPORTS = "import jax, jax.numpy as jnp, numpy as np, optax\nimport equinox as eqx\n"
SETUP = IMPORTS + """\
class CNN(eqx.Module):
  layers: list
  def __init__(self, key):
    k1, k2, k3 = jax.random.split(key, 3)
    self.layers = [eqx.nn.Conv2d(1, 3, kernel_size=4, key=k1), jax.nn.relu, jnp.ravel,
                   eqx.nn.Linear(3 * 25 * 25, 32, key=k2), jax.nn.relu,
                   eqx.nn.Linear(32, 10, key=k3), jax.nn.log_softmax]
  def __call__(self, x):
    for layer in self.layers:
      x = layer(x)
    return x

model = CNN(jax.random.PRNGKey(0))
def loss(model, x, y):
  pred_y = jax.vmap(model)(x)
  return -jnp.mean(jnp.take_along_axis(pred_y, y[:, None], axis=1))

optim = optax.adamw(3e-4)
opt_state = optim.init(eqx.filter(model, eqx.is_array))

@eqx.filter_jit
def make_step(model, opt_state, x, y):
  loss_value, grads = eqx.filter_value_and_grad(loss)(model, x, y)
  updates, opt_state = optim.update(grads, opt_state, eqx.filter(model, eqx.is_array))
  model = eqx.apply_updates(model, updates)
  return model, opt_state, loss_value

rng = np.random.default_rng(0)
def make_batch(n):
  return (rng.random((n, 1, 28, 28), dtype=np.float32), rng.integers(0, 10, (n,)).astype(np.int32))
x, y = make_batch(8)
model, opt_state, first_loss = make_step(model, opt_state, x, y)
"""

# jax.jit of a function taking the Module: its fields jax.nn.relu, jnp.ravel are not arrays
JAX_JIT_MODULE = """\
@jax.jit
def predict(model, x):
  return jax.vmap(model)(x)
predict(model, x)
"""
# the same jit written as a call: bound to a name above the line, or on the line (the card
# wrote the decorator, `@eqx.filter_jit`, which pasted there is a syntax error)
JAX_JIT_MODULE_BOUND = "predict_b = jax.jit(lambda m, v: jax.vmap(m)(v))\npredict_b(model, x)\n"
JAX_JIT_MODULE_INLINE = "jax.jit(lambda m, v: jax.vmap(m)(v))(model, x)\n"
# jax.grad of the loss taking the model
JAX_GRAD_MODULE = "jax.grad(loss)(model, x, y)\n"
JAX_VALUE_AND_GRAD_MODULE = "loss_value, grads = jax.value_and_grad(loss)(model, x, y)\n"
# the model called on a batch (Equinox layers take one example)
BATCH_INTO_MODEL = "model(x)\n"
# a wrong feature size into eqx.nn.Linear, one example
LINEAR_FEATURES = """\
lin = eqx.nn.Linear(784, 10, key=jax.random.PRNGKey(1))
lin(jnp.ones(785))
"""
# a batch into eqx.nn.Linear
LINEAR_BATCH = """\
lin = eqx.nn.Linear(784, 10, key=jax.random.PRNGKey(1))
lin(jnp.ones((8, 784)))
"""
# a field of the Module assigned
MUTATE_FIELD = "model.layers = model.layers[:-1]\n"
# a Python int counter as a field, traced
COUNTER = """\
class Counted(eqx.Module):
  layers: list
  calls: int
  def __call__(self, x):
    for layer in self.layers[:self.calls]:
      x = layer(x)
    return x
counted = Counted([eqx.nn.Linear(4, 4, key=jax.random.PRNGKey(2))] * 2, jnp.array(1))
eqx.filter_jit(lambda m, x: m(x))(counted, jnp.ones(4))
"""
# print inside the filter_jit'd step
PRINT_STEP = """\
@eqx.filter_jit
def printing_step(model, x, y):
  loss_value = loss(model, x, y)
  print("loss", loss_value)
  return loss_value
printing_step(model, x, y)
"""
# each mistake's cell with its card's rewrite pasted in
JAX_JIT_MODULE_FIXED = JAX_JIT_MODULE.replace("@jax.jit\n", "@eqx.filter_jit\n").replace(
    "predict(model, x)\n", "predicted = list(predict(model, x).shape)\n")
# the card's other way: the arrays passed, the rest read from outside and combined inside
JAX_JIT_MODULE_PARTITION = """\
params, static = eqx.partition(model, eqx.is_array)
@jax.jit
def predict(params, x):
  return jax.vmap(eqx.combine(params, static))(x)
partitioned = list(predict(params, x).shape)
"""
JAX_JIT_MODULE_BOUND_FIXED = ("predict_b = eqx.filter_jit(lambda m, v: jax.vmap(m)(v))\n"
                              "predicted_b = list(predict_b(model, x).shape)\n")
JAX_JIT_MODULE_INLINE_FIXED = ("predicted_i = list(eqx.filter_jit(lambda m, v: "
                               "jax.vmap(m)(v))(model, x).shape)\n")
JAX_GRAD_MODULE_FIXED = ("grads = eqx.filter_grad(loss)(model, x, y)\n"
                         "grads_kind = [type(grads).__name__, grads.layers[1] is None]\n")
JAX_VALUE_AND_GRAD_MODULE_FIXED = (
    "loss_value, grads = eqx.filter_value_and_grad(loss)(model, x, y)\n"
    "value_and_grads_kind = [type(grads).__name__, loss_value.shape == ()]\n")
BATCH_INTO_MODEL_FIXED = "batched = list(jax.vmap(model)(x).shape)\n"
LINEAR_BATCH_FIXED = LINEAR_BATCH.replace("lin(jnp.ones((8, 784)))\n",
                                          "lin_out = list(jax.vmap(lin)(jnp.ones((8, 784))).shape)\n")
# the card's field line in the class, and the model built with a Python int
COUNTER_FIXED = COUNTER.replace("  calls: int\n", "  calls: int = eqx.field(static=True)\n").replace(
    "jnp.array(1))", "1)").replace("eqx.filter_jit(lambda m, x: m(x))(counted, jnp.ones(4))\n",
                                  "counted_out = list(eqx.filter_jit(lambda m, x: m(x))(counted, jnp.ones(4)).shape)\n")
# the layer built again for the input's size, as the card writes it
LINEAR_FEATURES_FIXED = LINEAR_FEATURES.replace(
    "lin(jnp.ones(785))\n", "lin = eqx.nn.Linear(785, 10, key=jax.random.PRNGKey(0))\n"
    "features_out = list(lin(jnp.ones(785)).shape)\n")
# (last: it changes the model the other cells use)
MUTATE_FIELD_FIXED = ("model = eqx.tree_at(lambda m: m.layers, model, model.layers[:-1])\n"
                      "shortened = [len(model.layers), list(jax.vmap(model)(x).shape)]\n")

# a seed where Equinox takes a key (its layers' key=): JAX's "invalid PRNG key data ... Got 0"
# from inside the layer; the seed-as-key card's line was a template (key, sub, x made anew)
KEY_SEED = "lin_k = eqx.nn.Linear(3, 2, key=0)\n"
KEY_SEED_FIXED = ("lin_k = eqx.nn.Linear(3, 2, key=jax.random.key(0))\n"
                  "keyed_out = [round(float(v), 4) for v in lin_k(jnp.ones(3))]\n")

CASES = {"jax_jit_module": JAX_JIT_MODULE, "jax_jit_module_bound": JAX_JIT_MODULE_BOUND,
         "jax_jit_module_inline": JAX_JIT_MODULE_INLINE, "jax_grad_module": JAX_GRAD_MODULE,
         "jax_value_and_grad_module": JAX_VALUE_AND_GRAD_MODULE,
         "batch_into_model": BATCH_INTO_MODEL, "linear_features": LINEAR_FEATURES,
         "linear_batch": LINEAR_BATCH, "mutate_field": MUTATE_FIELD, "counter": COUNTER,
         "key_seed": KEY_SEED}
FIXED = {"jax_jit_module_fixed": (JAX_JIT_MODULE_FIXED, "predicted"),
         "jax_jit_module_partition": (JAX_JIT_MODULE_PARTITION, "partitioned"),
         "jax_jit_module_bound_fixed": (JAX_JIT_MODULE_BOUND_FIXED, "predicted_b"),
         "jax_jit_module_inline_fixed": (JAX_JIT_MODULE_INLINE_FIXED, "predicted_i"),
         "jax_grad_module_fixed": (JAX_GRAD_MODULE_FIXED, "grads_kind"),
         "jax_value_and_grad_module_fixed": (JAX_VALUE_AND_GRAD_MODULE_FIXED,
                                             "value_and_grads_kind"),
         "batch_into_model_fixed": (BATCH_INTO_MODEL_FIXED, "batched"),
         "linear_batch_fixed": (LINEAR_BATCH_FIXED, "lin_out"),
         "counter_fixed": (COUNTER_FIXED, "counted_out"),
         "linear_features_fixed": (LINEAR_FEATURES_FIXED, "features_out"),
         "mutate_field_fixed": (MUTATE_FIELD_FIXED, "shortened"),
         "key_seed_fixed": (KEY_SEED_FIXED, "keyed_out")}


def outcome(run_cell, namespace) -> dict:
    """What the cells did under the JAX that runs them (learner_cells.cells_outcome)."""
    return cells_outcome(SETUP, CASES, FIXED, run_cell, namespace)
