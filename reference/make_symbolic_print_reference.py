"""Write tests/data/symbolic_print_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_symbolic_print_reference.py

What `run` in tests/data/symbolic_print_cases.py answers: the text of symbolic dimensions
(sums, products, powers, floordiv/mod/max/min with negative constants, parsed, computed by
slicing/reshape/conv/pad under jax.export, named in error messages), in JAX's order of terms
and factors."""
import json
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from symbolic_print_cases import run  # noqa: E402

with open(os.path.join(DATA, "symbolic_print_reference.json"), "w") as f:
    json.dump({**run(jax), "jax_version": jax.__version__}, f, indent=1, sort_keys=True)
    f.write("\n")
