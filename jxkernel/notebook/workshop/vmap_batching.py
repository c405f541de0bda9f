"""The exercises of demos/04_vmap.ipynb."""
from __future__ import annotations

import numpy as np

from . import exercise, expect_close

# the notebook's data: 5 examples of 3 features, and a single vector
A = np.arange(15, dtype=np.float32).reshape(5, 3) / 10.0
B = np.linspace(-1.0, 1.0, 15, dtype=np.float32).reshape(5, 3)
V = np.array([1.0, -2.0, 0.5], np.float32)


@exercise("vmap-rows", hints=(
    "jax.vmap(f) maps f over the first axis of every argument: f sees one row at a time.",
    "dot takes two vectors; vmap(dot) takes two matrices of rows and returns one number "
    "per pair of rows.",
    "batched_dot = jax.vmap(dot)",
), solution="batched_dot = jax.vmap(dot)")
def _rows(answer):
    expect_close(answer(A, B), np.einsum("ij,ij->i", A, B), "batched_dot(A, B)")


@exercise("vmap-in-axes", hints=(
    "in_axes says, per argument, which axis to map over, or None for an argument that is "
    "the same for every example.",
    "The rows of A are mapped (axis 0); v is shared (None).",
    "rows_dot_v = jax.vmap(dot, in_axes=(0, None))",
), solution="rows_dot_v = jax.vmap(dot, in_axes=(0, None))")
def _in_axes(answer):
    expect_close(answer(A, V), A @ V, "rows_dot_v(A, v)")


@exercise("vmap-out-axes", hints=(
    "out_axes says where the mapped axis goes in the result: 0 (the default) stacks the "
    "results as rows, 1 as columns.",
    "scale_columns(xs) should put scale(x) for each x in xs into a column.",
    "scale_columns = jax.vmap(scale, out_axes=1)",
), solution="scale_columns = jax.vmap(scale, out_axes=1)")
def _out_axes(answer):
    xs = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    expect_close(answer(xs), np.stack([x * np.array([1.0, 10.0, 100.0], np.float32) for x in xs], 1),
          "scale_columns([1, 2, 3, 4])")


@exercise("vmap-per-example-grads", hints=(
    "jax.grad(example_loss) is the gradient for one example (x, y): a vector like w.",
    "vmap it over the examples: w is shared (None), x and y are mapped (0).",
    "per_example_grads = jax.vmap(jax.grad(example_loss), in_axes=(None, 0, 0))",
), solution="per_example_grads = jax.vmap(jax.grad(example_loss), in_axes=(None, 0, 0))")
def _per_example(answer):
    w = np.array([0.5, -1.0, 2.0], np.float32)
    y = np.array([1.0, 0.0, -1.0, 2.0, 0.5], np.float32)
    got = answer(w, A, y)
    # d/dw (w.x - y)^2 = 2 (w.x - y) x, one row per example
    want = 2.0 * (A @ w - y)[:, None] * A
    expect_close(got, want, "per_example_grads(w, X, y)")
