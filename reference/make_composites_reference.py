"""Generate composites_reference.npz from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_composites_reference.py

The cases are in composites_cases.py, in groups (PARTS); the "x64" group runs with
jax_enable_x64. Each output leaf is stored under "<group>/<case>#<leaf index>", and its weak
type under "<group>/<case>#<leaf index>#weak".
"""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, HERE)
from composites_cases import PARTS, cases  # noqa: E402

flat = {}
for part in PARTS:
    x64 = part == "x64"
    jax.config.update("jax_enable_x64", x64)
    for k, v in cases(jax, jnp, x64, part).items():
        for i, leaf in enumerate(jax.tree_util.tree_leaves(v)):
            flat[f"{part}/{k}#{i}"] = np.asarray(leaf)
            flat[f"{part}/{k}#{i}#weak"] = np.asarray(bool(getattr(leaf, "weak_type", False)))
np.savez_compressed(os.path.join(HERE, "composites_reference.npz"), **flat)
print(f"{len(flat) // 2} arrays written")
