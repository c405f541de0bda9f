"""Generate linalg_reference.npz from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_linalg_reference.py

The cases (values and gradients of jnp.linalg functions) are in linalg_cases.py; each output
leaf is stored under "<case>#<leaf index>".
"""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))      # tests/: numerics.py, which linalg_cases imports
from linalg_cases import cases  # noqa: E402

jax.config.update("jax_enable_x64", True)
flat = {f"{k}#{i}": np.asarray(leaf) for k, v in cases(jax, jnp.linalg).items()
        for i, leaf in enumerate(jax.tree_util.tree_leaves(v))}
np.savez_compressed(os.path.join(HERE, "linalg_reference.npz"), **flat)
print(f"{len(flat)} arrays written")
