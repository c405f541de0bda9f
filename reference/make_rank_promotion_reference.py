"""Write tests/data/rank_promotion_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_rank_promotion_reference.py

What `run` in tests/data/rank_promotion_cases.py answers: for each case under
jax_numpy_rank_promotion='raise', None or [exception class name, first line of its message];
the 'warn' message; the errors for a bad value and for the context manager without one."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from rank_promotion_cases import run  # noqa: E402

with open(os.path.join(DATA, "rank_promotion_reference.json"), "w") as f:
    json.dump(run(jax), f, indent=1, sort_keys=True)
    f.write("\n")
