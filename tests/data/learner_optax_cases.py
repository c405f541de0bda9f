"""A PyTorch learner's first Optax cells and their mistakes, as notebook cells: integer class
labels given to softmax_cross_entropy (a distribution per example), PyTorch's `lr=`,
`optimizer.step()` / `zero_grad()`, and update's pair applied whole or update without the
state. Run under JAX 0.10.2 with Optax 0.2.8 by
reference/make_learner_optax_reference.py, and in a jxkernel kernel by
tests/notebook/test_learner_optax.py. Each case is one cell after SETUP; FIXED cells are a
mistake's cell with its card's line pasted in, and the name whose value is recorded."""

from learner_cells import cells_outcome  # tests/data

# The learner's imports, as a cell's text. tests/ never import the real JAX: the test runs
# them in a kernel where `jax` is jxkernel's alias; only the reference script, in a venv of its
# own, runs them under the real JAX 0.10.2.
IMPORTS = "import jax, jax.numpy as jnp, optax\n"
SETUP = IMPORTS + """\
logits = jnp.linspace(-1.0, 1.0, 24).reshape(6, 4)
labels = jnp.array([0, 1, 2, 3, 0, 1])
float_labels = labels.astype(jnp.float32)
onehot = jax.nn.one_hot(labels, 4)
params = {'w': jnp.ones(3)}
opt = optax.sgd(0.1)
opt_state = opt.init(params)
"""
CASES = {
    "integer_labels": "loss = optax.softmax_cross_entropy(logits, labels).mean()\n",
    "float_class_numbers": "loss = optax.softmax_cross_entropy(logits, float_labels).mean()\n",
    "lr_keyword": "opt2 = optax.adam(lr=1e-3)\n",
    "step": "opt.step()\n",
    "zero_grad": "opt.zero_grad()\n",
    # another loss of Optax's given the class numbers: its broadcast inside (the broadcast card,
    # in words: no reshaping of the learner's arrays, which would run as another loss)
    "binary_labels": "loss = optax.sigmoid_binary_cross_entropy(logits, labels)\n",
    # update's pair (updates, next state) bound to one name and applied: the tree-structure
    # card told it as grad's has_aux pair, and wrote `grads, aux = jax.grad(f, has_aux=True)`
    "update_pair_applied": ("g_u = jax.grad(lambda p: (p['w'] ** 2).sum())(params)\n"
                            "updates = opt.update(g_u, opt_state)\n"
                            "new_params = optax.apply_updates(params, updates)\n"),
    # update without the state (PyTorch's optimizer keeps its own)
    "update_without_state": "updates_s, opt_state = opt.update(g_u)\n",
    # the integer-labels loss given one-hot rows or float class numbers (Optax's dtype check,
    # no card): the class numbers, or the loss of a distribution
    "one_hot_to_integer_loss": (
        "loss = optax.softmax_cross_entropy_with_integer_labels(logits, jax.nn.one_hot(labels, "
        "4)).mean()\n"),
    "one_hot_name_to_integer_loss": (
        "loss = optax.softmax_cross_entropy_with_integer_labels(logits, onehot).mean()\n"),
    "float_numbers_to_integer_loss": (
        "loss = optax.softmax_cross_entropy_with_integer_labels(logits, float_labels).mean()\n"),
}
# the card's line pasted (a loss: the test compares it within ulps), and the update step it
# writes, run with the learner's names
FIXED = {
    "integer_labels_fixed": (
        "loss = optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()\n"
        "said = float(loss)\n", "said"),
    "float_class_numbers_fixed": (
        "loss = optax.softmax_cross_entropy(logits, jax.nn.one_hot(float_labels.astype(int), "
        "4)).mean()\nsaid = float(loss)\n", "said"),
    "lr_keyword_fixed": ("opt2 = optax.adam(learning_rate=0.001)\n"
                         "made = type(opt2).__name__\n", "made"),
    "step_fixed": ("grads = jax.grad(lambda p: (p['w'] ** 2).sum())(params)\n"
                   "updates, opt_state = opt.update(grads, opt_state, params)\n"
                   "params = optax.apply_updates(params, updates)\n"
                   "stepped = [float(v) for v in params['w']]\n", "stepped"),
    "update_pair_applied_fixed": (
        "g_u = jax.grad(lambda p: (p['w'] ** 2).sum())(params)\n"
        "updates, opt_state = opt.update(g_u, opt_state)\n"
        "new_params = optax.apply_updates(params, updates)\n"
        "stepped_u = [float(v) for v in new_params['w']]\n", "stepped_u"),
    "one_hot_to_integer_loss_fixed": (
        "loss = optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()\n"
        "said = float(loss)\n", "said"),
    "one_hot_name_to_integer_loss_fixed": (
        "loss = optax.softmax_cross_entropy(logits, onehot).mean()\nsaid = float(loss)\n",
        "said"),
    "float_numbers_to_integer_loss_fixed": (
        "loss = optax.softmax_cross_entropy_with_integer_labels(logits, float_labels.astype(int))"
        ".mean()\nsaid = float(loss)\n", "said"),
    "update_without_state_fixed": (
        "updates_s, opt_state = opt.update(g_u, opt_state)\n"
        "moved = [float(v) for v in updates_s['w']]\n", "moved"),
}


def outcome(run_cell, namespace) -> dict:
    """What the cells did under the JAX that runs them (learner_cells.cells_outcome)."""
    return cells_outcome(SETUP, CASES, FIXED, run_cell, namespace)
