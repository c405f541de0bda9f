"""Write tests/data/effect_notes_reference.json from real JAX 0.10.2 (run by hand, never by the
tests):

    .venv-jax/bin/python reference/make_effect_notes_reference.py

What `run` in tests/data/effect_notes_cases.py answers: a jitted function's global set, outside
list appended to and dict set, and clock read, each at its trace alone; and the values of the
fixes the notes advise (the count passed in and returned, the value returned and appended
outside, jax.debug.callback(log.append, x), the time passed in)."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from effect_notes_cases import run  # noqa: E402

with open(os.path.join(DATA, "effect_notes_reference.json"), "w") as f:
    json.dump(run(jax), f, indent=1, sort_keys=True)
    f.write("\n")
