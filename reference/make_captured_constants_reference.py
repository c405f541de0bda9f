"""Write tests/data/captured_constants_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_captured_constants_reference.py

The warnings of tests/data/captured_constants_cases.py's lowerings."""
import json
import os
import sys

import jax
from jax._src import config

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
import captured_constants_cases as cases  # noqa: E402

with open(os.path.join(DATA, "captured_constants_reference.json"), "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": cases.run(jax, config)}, f, indent=1)
    f.write("\n")
