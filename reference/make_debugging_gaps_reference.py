"""Generate debugging_gaps_reference.json (one CPU device) and
debugging_gaps_devices_reference.json (two) from real JAX 0.10.2 (run by hand, not by the
test suite):

    .venv-jax/bin/python reference/make_debugging_gaps_reference.py

The cases (gaps JAX's debugging test files showed) are in tests/data/debugging_gaps_cases.py.
"""
import json
import sys

import jax
from recording import record_from_child, record_json

if len(sys.argv) == 2:              # the child, on two CPU devices
    import debugging_gaps_cases
    print(json.dumps({**debugging_gaps_cases.on_two_devices(jax), "jax_version": jax.__version__}))
else:
    record_json(jax, "debugging_gaps_cases", "debugging_gaps_reference.json")
    record_from_child(__file__, 2, "debugging_gaps_devices_reference.json")
