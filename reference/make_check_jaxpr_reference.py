"""Write tests/data/check_jaxpr_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_check_jaxpr_reference.py

check_jaxpr's message for each jaxpr of tests/data/check_jaxpr_cases.py (edited to be wrong)."""
import json
import os
import sys

import jax
from jax._src import core

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
import check_jaxpr_cases as cases  # noqa: E402

with open(os.path.join(DATA, "check_jaxpr_reference.json"), "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": cases.run(jax, core)}, f, indent=1)
    f.write("\n")
