"""Write tests/data/jax_error_texts_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_jax_error_texts_reference.py

What each program of tests/data/jax_error_texts_cases.py raises (a traced `if`, an unhashable
static argument, Python's TypeErrors on an array, multigammaln's traced d, an unknown FFI
target): the exception's class and its whole message."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from jax_error_texts_cases import run  # noqa: E402

with open(os.path.join(DATA, "jax_error_texts_reference.json"), "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": run(jax)}, f, indent=1, sort_keys=True)
    f.write("\n")
