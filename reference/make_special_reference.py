"""Generate special_reference.npz from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_special_reference.py

The cases (lax's special-function primitives and jax.scipy.special's functions, values and
derivatives) are in special_cases.py; each output leaf is stored under "<case>#<leaf index>".
"""
import os
import sys

import jax
import jax.numpy as jnp
import jax.scipy.special as sp
import numpy as np
from jax import lax

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, HERE)
from special_cases import lax_cases, scipy_cases

jax.config.update("jax_enable_x64", True)
cases = {**lax_cases(jax, lax), **scipy_cases(jax, jnp, sp)}


def _stored(leaf):
    leaf = np.asarray(leaf)
    return leaf.astype(np.float32) if leaf.dtype.name == "bfloat16" else leaf  # npz: no bf16


flat = {f"{k}#{i}": _stored(leaf)
        for k, v in cases.items() for i, leaf in enumerate(jax.tree_util.tree_leaves(v))}
np.savez_compressed(os.path.join(HERE, "special_reference.npz"), **flat)
print(f"{len(flat)} arrays written")
