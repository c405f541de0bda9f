"""Generate eig_reference.npz from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_eig_reference.py

The cases are in eig_cases.py; each output leaf is stored under "<case>#<leaf index>".
"""
import os
import sys

import jax
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))      # tests/: numerics.py, which eig_cases imports
from eig_cases import cases

jax.config.update("jax_enable_x64", True)
flat = {f"{k}#{i}": np.asarray(leaf) for k, v in cases(jax).items()
        for i, leaf in enumerate(jax.tree_util.tree_leaves(v))}
np.savez_compressed(os.path.join(HERE, "eig_reference.npz"), **flat)
print(f"{len(flat)} arrays written")
