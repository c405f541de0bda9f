"""Record JAX 0.10.2's answers to tests/data/array_api_cases.py (the array API standard's
metadata, isdtype, cumulative dtypes, permute_dims, DLPack with NumPy) in
tests/data/array_api_reference.json. Run by hand, from the repository root:

    .venv-jax/bin/python reference/make_array_api_reference.py
"""
import json
import os
import sys

import jax
import jax.numpy as jnp

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, HERE)
from array_api_cases import cases  # noqa: E402

with open(os.path.join(HERE, "array_api_reference.json"), "w") as f:
    json.dump(cases(jax, jnp), f, indent=1, sort_keys=True)
    f.write("\n")
print("tests/data/array_api_reference.json written")
