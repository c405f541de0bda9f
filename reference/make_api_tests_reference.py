"""Write tests/data/api_tests_reference.json from real JAX 0.10.2 (run by hand, never by the
tests):

    .venv-jax/bin/python reference/make_api_tests_reference.py

Each case of tests/data/api_tests_cases.py, recorded by its `record`: a value as nested lists,
or an error's [class name, message]."""
import json
import os
import sys
import warnings

import jax
from jax._src import config
from jax._src import test_util as jtu
from jax._src.lax.eval_jaxpr import eval_jaxpr_p

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from api_tests_cases import errors, private, record, values  # noqa: E402

warnings.simplefilter("ignore")
cases = {**errors(jax), **values(jax), **private(jax, jtu, config, eval_jaxpr_p)}
result = {name: record(thunk) for name, thunk in cases.items()}
with open(os.path.join(DATA, "api_tests_reference.json"), "w") as f:
    json.dump(result, f, indent=1, sort_keys=True)
    f.write("\n")
