"""The exercises of demos/06_randomness.ipynb."""
from __future__ import annotations

import numpy as np

from ... import numpy as jnp, random
from . import NotYet, exercise

SEED = 42


def _as_list(answer, n, what):
    try:
        items = [np.asarray(a) for a in answer]
    except TypeError:
        raise NotYet(f"{what} should be a list of {n} arrays.") from None
    if len(items) != n:
        raise NotYet(f"{what} should hold {n} arrays, not {len(items)}.")
    return items


@exercise("rng-split", hints=(
    "A key used twice gives the same numbers twice: that is what makes results reproducible.",
    "random.split(key, 3) makes 3 new, independent keys from one; use each once.",
    "samples = [random.normal(k, (2,)) for k in random.split(key, 3)]",
), solution="samples = [random.normal(k, (2,)) for k in random.split(key, 3)]")
def _split(answer):
    got = _as_list(answer, 3, "samples")
    if all(np.array_equal(got[0], g) for g in got[1:]):
        raise NotYet("The three arrays are equal: they came from one key used three times. "
                     "Split the key.")
    # PRNG bits are exact on every machine: the same keys give the same numbers
    want = [np.asarray(random.normal(k, (2,))) for k in random.split(random.PRNGKey(SEED), 3)]
    if not all(g.shape == (2,) for g in got):
        raise NotYet(f"Each sample should have shape (2,); got {[g.shape for g in got]}.")
    if not all(np.array_equal(g, w) for g, w in zip(got, want)):
        raise NotYet("Those are not the numbers of random.split(key, 3)'s keys (key = "
                     "random.PRNGKey(42)), one normal(k, (2,)) per key, in order.")


@exercise("rng-fold-in", hints=(
    "In a loop you need a different key per step, and the same ones each time you rerun it.",
    "random.fold_in(key, i) makes a key from key and the integer i: one per step, no "
    "bookkeeping of split keys.",
    "step_keys = [random.fold_in(key, step) for step in range(4)]",
), solution="step_keys = [random.fold_in(key, step) for step in range(4)]")
def _fold_in(answer):
    got = _as_list(answer, 4, "step_keys")
    want = [np.asarray(random.fold_in(random.PRNGKey(SEED), i)) for i in range(4)]
    if len({g.tobytes() for g in got}) < 4:
        raise NotYet("Some of the four keys are equal: each step needs its own.")
    if not all(np.array_equal(g, w) for g, w in zip(got, want)):
        raise NotYet("Those are not fold_in(key, 0), ..., fold_in(key, 3) (key = "
                     "random.PRNGKey(42)).")


@exercise("rng-dropout", hints=(
    "Dropout keeps each entry with probability 1 - rate and sets the others to 0; the kept "
    "ones are divided by 1 - rate so the mean stays the same.",
    "random.bernoulli(key, 1 - rate, x.shape) is True where an entry is kept.",
    "keep = random.bernoulli(key, 1 - rate, x.shape); return jnp.where(keep, x / (1 - rate), 0.0)",
), solution="def dropout(key, x, rate):\n"
            "    keep = random.bernoulli(key, 1 - rate, x.shape)\n"
            "    return jnp.where(keep, x / (1 - rate), 0.0)")
def _dropout(answer):
    # a jnp array, as the learner's own x: a NumPy one took NumPy's in-place masking
    # (`x[~keep] = 0`), which JAX refuses, and the check said "correct"
    x = jnp.ones((100, 100), jnp.float32)
    key = random.PRNGKey(SEED)
    first, again = np.asarray(answer(key, x, 0.25)), np.asarray(answer(key, x, 0.25))
    if first.shape != x.shape:
        raise NotYet(f"dropout(key, x, 0.25) should keep x's shape {x.shape}, not {first.shape}.")
    if not np.array_equal(first, again):
        raise NotYet("Two calls with the same key gave different results: the randomness "
                     "must come from the key only.")
    kept = first != 0
    if not np.all(first[kept] == np.float32(1 / 0.75)):
        raise NotYet("Kept entries of a matrix of ones should be 1 / (1 - rate) = 1.333...")
    # 10,000 entries kept with p = 0.75: the fraction's standard error is 0.0043; 0.02 is 4.6 of it
    if abs(kept.mean() - 0.75) > 0.02:
        raise NotYet(f"{kept.mean():.1%} of the entries were kept; with rate 0.25 it should be "
                     f"about 75%.")
    if np.array_equal(first, np.asarray(answer(random.PRNGKey(SEED + 1), x, 0.25))):
        raise NotYet("Another key gave the same mask: use the key you are given.")
