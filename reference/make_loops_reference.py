"""Write tests/data/loops_reference.npz from real JAX 0.10.2 (run by hand, never by the tests):

    .venv-jax/bin/python reference/make_loops_reference.py

Each output leaf of tests/data/loops_cases.py is stored as "<case>#<leaf>", plus
"<case>#<leaf>@weak" (the leaf's weak type)."""
import os
import sys

import jax
import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from loops_cases import cases  # noqa: E402

flat = {}
for name, value in cases(jax).items():
    for i, leaf in enumerate(jax.tree_util.tree_leaves(value)):
        flat[f"{name}#{i}"] = np.asarray(leaf)
        flat[f"{name}#{i}@weak"] = np.asarray(bool(getattr(leaf, "weak_type", False)))
np.savez_compressed(os.path.join(DATA, "loops_reference.npz"), **flat)
