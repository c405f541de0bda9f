"""Write tests/data/optimize_reference.npz from real JAX 0.10.2 (run by hand, never by the
tests):

    .venv-jax/bin/python reference/make_optimize_reference.py

For each case of tests/data/optimize_cases.py (float64 runs: see its `cases`), each field of FIELDS of its OptimizeResults
is stored as "<case>#<field>" (hess_inv too, for BFGS)."""
import os
import sys

import jax
import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from optimize_cases import FIELDS, cases  # noqa: E402

flat = {}
for name, thunk in cases(jax).items():
    result = thunk()
    for field in FIELDS + ("hess_inv",):
        value = getattr(result, field)
        if value is not None:
            flat[f"{name}#{field}"] = np.asarray(value)
np.savez_compressed(os.path.join(DATA, "optimize_reference.npz"), **flat)
