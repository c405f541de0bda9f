"""Write tests/data/concretization_context_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_concretization_context_reference.py

What each program of tests/data/concretization_context_cases.py raises under jit with its
argument traced ("ErrorType: message", JAX's whole text with the cases' file written
"<cases>"), or "ok": the second line of a ConcretizationTypeError says where it arose, in
the function's own words."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
import concretization_context_cases as cases  # noqa: E402

with open(os.path.join(DATA, "concretization_context_reference.json"), "w") as f:
    json.dump({"jax_version": jax.__version__,
               "cases": {name: text.replace(cases.__file__, "<cases>")
                         for name, text in cases.run(jax).items()}}, f, indent=1)
    f.write("\n")
