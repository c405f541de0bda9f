"""Write tests/data/custom_vjp_bwd_cause_reference.json from real JAX 0.10.2 (run by hand):

    JAX_TRACEBACK_FILTERING=off .venv-jax/bin/python reference/make_custom_vjp_bwd_cause_reference.py

The cause JAX gives an error raised in a custom_vjp's bwd (tests/data/
custom_vjp_bwd_cause_cases.py): its type, message and the user's frames it carries."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
import custom_vjp_bwd_cause_cases as cases  # noqa: E402

with open(os.path.join(DATA, "custom_vjp_bwd_cause_reference.json"), "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": cases.run(jax)}, f, indent=1)
    f.write("\n")
