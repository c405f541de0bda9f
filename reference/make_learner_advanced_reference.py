"""Write tests/data/learner_advanced_reference.json from real JAX 0.10.2 (run by hand, never
by the tests):

    .venv-jax/bin/python reference/make_learner_advanced_reference.py

For each case of tests/data/learner_advanced_cases.py: its last line's value, or the
[class name, message] it raised (learners' mistakes on the advanced tutorials, and the fixes
their cards advise)."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from learner_advanced_cases import run  # noqa: E402

with open(os.path.join(DATA, "learner_advanced_reference.json"), "w") as f:
    json.dump(run(jax), f, indent=1, sort_keys=True)
    f.write("\n")
