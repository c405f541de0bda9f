"""Record JAX 0.10.2's answers to tests/data/array_api_cases.py (the array API standard's
metadata, isdtype, cumulative dtypes, permute_dims, DLPack with NumPy) in
tests/data/array_api_reference.json. Run by hand, from the repository root:

    .venv-jax/bin/python reference/make_array_api_reference.py

A case keyed by its NumPy ("export/bfloat16 (numpy>=2.5)", array_api_cases.numpy_side) is
recorded under that NumPy, and the other side's keys are kept from the file: run it again
with JAX 0.10.2 in a Python 3.12+ venv (NumPy 2.5) for the "numpy>=2.5" ones.
"""
import json
import os
import sys

import jax
import jax.numpy as jnp

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, HERE)
from array_api_cases import cases, numpy_side  # noqa: E402

PATH = os.path.join(HERE, "array_api_reference.json")
out = cases(jax, jnp)
if os.path.exists(PATH):            # the other NumPy's keys, as recorded under it
    with open(PATH) as f:
        for group, answers in json.load(f).items():
            for key, answer in answers.items():
                if key.endswith(")") and "(numpy" in key and \
                        not key.endswith(f"({numpy_side()})"):
                    out[group][key] = answer
with open(PATH, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
    f.write("\n")
print("tests/data/array_api_reference.json written")
