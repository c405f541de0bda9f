"""Generate gaussian_kde_reference.npz from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_gaussian_kde_reference.py

The cases are in tests/data/gaussian_kde_cases.py. Each output leaf is stored under
"<mode>/<case>#<leaf index>" (mode "x32" or "x64"), its weak type under "...#<leaf index>#weak".
"""
import os
import sys

import jax
import jax.numpy as jnp
import jax.scipy.stats as stats
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, HERE)
from gaussian_kde_cases import cases  # noqa: E402

flat = {}
for mode in ("x32", "x64"):
    jax.config.update("jax_enable_x64", mode == "x64")
    for name, value in cases(jax, jnp, stats, mode == "x64").items():
        for i, leaf in enumerate(jax.tree_util.tree_leaves(value)):
            flat[f"{mode}/{name}#{i}"] = np.asarray(leaf)
            flat[f"{mode}/{name}#{i}#weak"] = np.asarray(bool(leaf.weak_type))
jax.config.update("jax_enable_x64", False)
np.savez_compressed(os.path.join(HERE, "gaussian_kde_reference.npz"), **flat)
print(f"{len(flat) // 2} arrays written")
