"""Write tests/data/error_advice_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_error_advice_reference.py

What `run` in tests/data/error_advice_cases.py answers: JAX's error and the advice its message
gives for an `if` on an array argument, int() of one, a size from an int argument, and
jnp.array of strings."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from error_advice_cases import run  # noqa: E402

with open(os.path.join(DATA, "error_advice_reference.json"), "w") as f:
    json.dump(run(jax), f, indent=1, sort_keys=True)
    f.write("\n")
