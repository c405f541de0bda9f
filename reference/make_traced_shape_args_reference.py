"""Write tests/data/traced_shape_args_reference.json from real JAX 0.10.2 (run by hand, never
by the tests):

    .venv-jax/bin/python reference/make_traced_shape_args_reference.py

What each program of tests/data/traced_shape_args_cases.py raises (a traced size, count or
axis given to a jnp function under jit; a tracer as a dict key): the exception's class and
its whole message; and what each program computes with its argument made static (the
concretization card's fix)."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from traced_shape_args_cases import fixed, run  # noqa: E402

with open(os.path.join(DATA, "traced_shape_args_reference.json"), "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": run(jax), "fixed": fixed(jax)}, f, indent=1,
              sort_keys=True)
    f.write("\n")
