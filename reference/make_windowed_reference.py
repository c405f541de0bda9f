"""Generate windowed_reference.npz from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_windowed_reference.py

The cases (pooling values and derivatives, with ties) are in windowed_cases.py; each output
leaf is stored under "<case>#<leaf index>".
"""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, HERE)
from windowed_cases import cases  # noqa: E402

flat = {f"{k}#{i}": np.asarray(leaf) for k, v in cases(jax, lax, jnp).items()
        for i, leaf in enumerate(jax.tree_util.tree_leaves(v))}
np.savez_compressed(os.path.join(HERE, "windowed_reference.npz"), **flat)
print(f"{len(flat)} arrays written")
