"""Write tests/data/solves_reference.npz and solves_jaxprs.json from real JAX 0.10.2 (run by
hand, never by the tests):

    .venv-jax/bin/python reference/make_solves_reference.py

Each output leaf of each case in tests/data/solves_cases.py's cases() is stored as "<case>#<leaf>"; the
printed jaxprs of its jaxpr_cases() go to the JSON file."""
import json
import os
import sys

import jax
import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
sys.path.insert(0, os.path.join(DATA, ".."))      # tests/: numerics.py, which solves_cases imports
from solves_cases import cases, jaxpr_cases  # noqa: E402

flat = {}
for name, thunk in cases(jax).items():
    for i, leaf in enumerate(jax.tree_util.tree_leaves(thunk())):
        flat[f"{name}#{i}"] = np.asarray(leaf)
np.savez_compressed(os.path.join(DATA, "solves_reference.npz"), **flat)
texts = {name: str(jax.make_jaxpr(f)(*args)) for name, (f, args) in jaxpr_cases(jax).items()}
with open(os.path.join(DATA, "solves_jaxprs.json"), "w") as fh:
    json.dump(texts, fh, indent=1)
    fh.write("\n")
