"""Write tests/data/deleted_arrays_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_deleted_arrays_reference.py

What `run` in tests/data/deleted_arrays_cases.py answers: JAX's class and message for each way
of touching an Array after `.delete()` or after donating it to a jit."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from deleted_arrays_cases import run  # noqa: E402

with open(os.path.join(DATA, "deleted_arrays_reference.json"), "w") as f:
    json.dump(run(jax), f, indent=1, sort_keys=True)
    f.write("\n")
