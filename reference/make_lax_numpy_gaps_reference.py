"""Write tests/data/lax_numpy_gaps_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_lax_numpy_gaps_reference.py

For each case of `cases` in tests/data/lax_numpy_gaps_cases.py: what `observe` sees (the value
as JSON and the warnings given, or the exception raised), without jax_enable_x64."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from lax_numpy_gaps_cases import cases, observe  # noqa: E402

assert not jax.config.jax_enable_x64
result = {name: observe(thunk) for name, thunk in cases(jax).items()}
with open(os.path.join(DATA, "lax_numpy_gaps_reference.json"), "w") as f:
    json.dump(result, f, indent=1, sort_keys=True)
    f.write("\n")
