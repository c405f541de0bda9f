"""Write tests/data/jax_test_leftovers_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_jax_test_leftovers_reference.py

The small gaps JAX's own test files found (tests/data/jax_test_leftovers_cases.py): an aval's
memory space, an executable's traceback after one compiled with tracebacks off, and float0
values through jit, pmap, jnp.array and device_put."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
import jax_test_leftovers_cases as cases  # noqa: E402

with open(os.path.join(DATA, "jax_test_leftovers_reference.json"), "w") as f:
    json.dump({"jax_version": jax.__version__, **cases.run(jax)}, f, indent=1)
    f.write("\n")
