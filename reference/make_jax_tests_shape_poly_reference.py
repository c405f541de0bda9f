"""Write tests/data/jax_tests_shape_poly_reference.json from real JAX 0.10.2 (run by hand,
never by the tests):

    .venv-jax/bin/python reference/make_jax_tests_shape_poly_reference.py

What `run` in tests/data/jax_tests_shape_poly_cases.py answers: the JAX-private names that
shape_poly_test.py and the export compatibility test files import (core's dimension helpers,
export.shape_poly's bounds, state.discharge.run_state, ad_util's and dispatch's primitives),
a symbolic dimension's own methods and errors, the arithmetic of sizes in an exported module,
and symbolic sizes outside jax.export."""
import json
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from jax_tests_shape_poly_cases import run  # noqa: E402

with open(os.path.join(DATA, "jax_tests_shape_poly_reference.json"), "w") as f:
    json.dump({**run(jax), "jax_version": jax.__version__}, f, indent=1, sort_keys=True)
    f.write("\n")
