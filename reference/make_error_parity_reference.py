"""Write tests/data/error_parity_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_error_parity_reference.py

Each case of tests/data/error_parity_cases.py, recorded by api_file_gaps_cases's `record`: a
value as nested lists, or an error's [class name, message]."""
import json
import os
import sys
import warnings

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from api_file_gaps_cases import record  # noqa: E402
from error_parity_cases import cases  # noqa: E402

warnings.simplefilter("ignore")
with open(os.path.join(DATA, "error_parity_reference.json"), "w") as f:
    json.dump({name: record(thunk) for name, thunk in cases(jax).items()}, f, indent=1,
              sort_keys=True)
    f.write("\n")
