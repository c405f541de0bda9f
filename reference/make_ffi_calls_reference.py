"""Write tests/data/ffi_calls_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_ffi_calls_reference.py

ffi_call and ffi_lowering beside their plain use (tests/data/ffi_calls_cases.py): lowered
custom_call lines, jaxpr words, JAX's ValueErrors."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
import ffi_calls_cases as cases  # noqa: E402

with open(os.path.join(DATA, "ffi_calls_reference.json"), "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": cases.run(jax)}, f, indent=1)
    f.write("\n")
