"""Cells that give jax.random.categorical probabilities where it takes logits, and the same
draws with the note's fix (jnp.log of them), as JAX 0.10.2 draws them: each category's share of
10,000 draws (reference/make_categorical_notes_reference.py records `run(jax)`;
tests/notebook/test_categorical_notes.py checks the note's claim against it: as written, the
draws follow softmax(p), not p; fixed, p).

    >>> P
    [0.1, 0.2, 0.7]
"""
import numpy as np

P = [0.1, 0.2, 0.7]
SETUP = f"key = jax.random.key(7)\np = jnp.array({P})\n"
# (the cell, the line the note names, the line the note writes); each draws with its own key
CASES = {
    "eager": ("_d = jax.random.categorical(key, p, shape=(10000,))\n", 1,
              "_d = jax.random.categorical(key, jnp.log(p), shape=(10000,))"),
    "rows": ("_d = jax.random.categorical(key, jnp.stack([p, p[::-1]]), axis=1)\n", 1,
             "_d = jax.random.categorical(key, jnp.log(jnp.stack([p, p[::-1]])), axis=1)"),
}
# given as logits, or traced: no note
NO_NOTE = {
    "logits": "_d = jax.random.categorical(key, jnp.array([1.0, 2.0, 3.0]))\n",
    "rows_not_summing_to_one": "_d = jax.random.categorical(key, jnp.array([[0.5, 0.5], "
                               "[0.2, 0.2]]))\n",
    "under_jit": "_d = jax.jit(jax.random.categorical)(key, p)\n",
}


def shares(draws, n=len(P)) -> list:
    """Each category's share of `draws`, to 3 decimals."""
    counts = np.bincount(np.asarray(draws).ravel(), minlength=n)
    return [round(float(c) / counts.sum(), 3) for c in counts]


def run(jax) -> dict:
    """The shares JAX draws with the eager case as written and fixed."""
    names = {"jax": jax, "jnp": jax.numpy}
    exec(SETUP, names)
    cell, _, fix = CASES["eager"]
    found = {}
    for mode, source in (("written", cell), ("fixed", fix)):
        scope = dict(names)
        exec(source, scope)
        found[f"eager_{mode}"] = shares(scope["_d"])
    return found
