"""Write tests/data/custom_vjp_int_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_custom_vjp_int_reference.py

A custom_vjp's integer output and input (tests/data/custom_vjp_int_cases.py): the cotangent
bwd receives for the output, and what becomes of bwd's cotangent for the input."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
import custom_vjp_int_cases as cases  # noqa: E402

with open(os.path.join(DATA, "custom_vjp_int_reference.json"), "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": cases.run(jax)}, f, indent=1)
    f.write("\n")
