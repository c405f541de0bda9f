"""Write tests/data/api_file_gaps_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_api_file_gaps_reference.py

Each case of tests/data/api_file_gaps_cases.py, recorded by its `record`: a value as nested
lists, or an error's [class name, message]."""
import json
import os
import sys
import warnings

import jax
from jax._src import api_util, config, dispatch, test_util as jtu

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from api_file_gaps_cases import cases, private, record  # noqa: E402

warnings.simplefilter("ignore")
result = {name: record(thunk) for name, thunk in {**cases(jax), **private(jax, jtu, api_util, config, dispatch)}.items()}
with open(os.path.join(DATA, "api_file_gaps_reference.json"), "w") as f:
    json.dump(result, f, indent=1, sort_keys=True)
    f.write("\n")
