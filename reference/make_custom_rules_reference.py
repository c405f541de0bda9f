"""Write tests/data/custom_rules_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_custom_rules_reference.py

For each case of `errors` in tests/data/custom_rules_cases.py: [exception class name,
first two lines of its message]; for each case of `values`: per leaf [dtype, shape, values];
for each of `seen`: what the custom rule saw, as the case returns it."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from custom_rules_cases import errors, seen, values  # noqa: E402
from recorded_errors import leaves_record, raised_head  # noqa: E402


result = {"errors": {name: raised_head(thunk) for name, thunk in errors(jax).items()},
          "values": {name: leaves_record(jax, thunk()) for name, thunk in values(jax).items()},
          "seen": {name: thunk() for name, thunk in seen(jax).items()}}
with open(os.path.join(DATA, "custom_rules_reference.json"), "w") as f:
    json.dump(result, f, indent=1, sort_keys=True)
    f.write("\n")
