"""Write tests/data/jax_tests_aot_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_jax_tests_aot_reference.py

What `run` in tests/data/jax_tests_aot_cases.py answers: a failing host callback's log line,
io_callback's effects and the transformations they rule out, and Lowered.as_text("hlo")."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from jax_tests_aot_cases import run  # noqa: E402

with open(os.path.join(DATA, "jax_tests_aot_reference.json"), "w") as f:
    json.dump(run(jax), f, indent=1, sort_keys=True)
    f.write("\n")
