"""The exercises of demos/07_pytrees_and_training.ipynb."""
from __future__ import annotations

import numpy as np

from ...tree_util import tree_flatten, tree_structure
from . import NotYet, exercise, expect_whole_number


def _params():
    """A parameter tree shaped like the notebook's: two layers of weights and biases."""
    rng = np.random.default_rng(0)
    return {"hidden": {"w": rng.normal(size=(4, 3)).astype(np.float32),
                       "b": np.zeros(3, np.float32)},
            "out": {"w": rng.normal(size=(3, 2)).astype(np.float32),
                    "b": np.ones(2, np.float32)}}


def _same_tree(got, want, what):
    if tree_structure(got) != tree_structure(want):
        raise NotYet(f"{what} should have the structure of the parameters "
                     f"({tree_structure(want)}), not {tree_structure(got)}.")
    for g, w in zip(tree_flatten(got)[0], tree_flatten(want)[0]):
        # halving and w - lr * g of float32 values: one rounding each, equal to NumPy's
        if np.asarray(g).shape != w.shape or not np.allclose(np.asarray(g), w, rtol=1e-6):
            raise NotYet(f"{what} has the right structure but not the right values.")


@exercise("tree-count", hints=(
    "jax.tree_util.tree_leaves(tree) lists the arrays of a tree.",
    "Each leaf has a .size; add them up.",
    "n_params = sum(leaf.size for leaf in jax.tree_util.tree_leaves(params))",
), solution="n_params = sum(leaf.size for leaf in jax.tree_util.tree_leaves(params))")
def _count(answer):
    expect_whole_number(answer)
    want = 64 * 32 + 32 + 32 * 10 + 10
    if answer != want:
        raise NotYet(f"{answer} is not it: count every number in every weight matrix and bias "
                     f"vector of both layers.")


@exercise("tree-sgd", hints=(
    "params and grads have the same structure: tree_map(f, params, grads) calls f on each "
    "pair of leaves and builds a tree of the results.",
    "Each new leaf is p - learning_rate * g.",
    "return jax.tree_util.tree_map(lambda p, g: p - learning_rate * g, params, grads)",
), solution="def sgd_update(params, grads, learning_rate):\n"
            "    return jax.tree_util.tree_map(lambda p, g: p - learning_rate * g, params, grads)")
def _sgd(answer):
    params = _params()
    grads = {k: {n: np.full_like(v, 2.0) for n, v in layer.items()} for k, layer in params.items()}
    got = answer(params, grads, 0.25)
    want = {k: {n: v - np.float32(0.5) for n, v in layer.items()} for k, layer in params.items()}
    _same_tree(got, want, "sgd_update(params, grads, 0.25)")


@exercise("tree-accuracy", hints=(
    "The predicted digit is the index of the largest of the 10 scores: "
    "jnp.argmax(scores, axis=-1).",
    "The accuracy is the fraction of images whose predicted digit equals the label: the mean "
    "of a boolean array.",
    "return jnp.mean(jnp.argmax(scores, axis=-1) == labels)",
), solution="def accuracy(scores, labels):\n"
            "    return jnp.mean(jnp.argmax(scores, axis=-1) == labels)")
def _accuracy(answer):
    scores = np.eye(10, dtype=np.float32)[[3, 1, 4, 1, 5, 9, 2, 6]] * 5.0 - 1.0
    labels = np.array([3, 1, 4, 0, 5, 9, 0, 6])
    got = np.asarray(answer(scores, labels))
    if got.shape != ():
        raise NotYet(f"accuracy should give one number, not an array of shape {got.shape}.")
    if float(got) != 0.75:
        raise NotYet(f"accuracy gave {float(got)} where 6 of 8 predictions are right (0.75).")
