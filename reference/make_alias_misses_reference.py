"""Record tests/data/alias_misses_reference.json from real JAX 0.10.2 (run by hand, not by the
test suite):

    PYTHONPATH= .venv-jax/bin/python reference/make_alias_misses_reference.py

It runs tests/data/alias_misses_cases.py (a name each `jax` module lacks) with JAX;
tests/jax_compat/test_as_jax.py runs the same cases under jxkernel's `import jax` alias.
"""
import json
import os

import jax
from recording import DATA, record_json
from alias_misses_cases import modules

record_json(jax, "alias_misses_cases", "alias_misses_reference.json")
# JAX's module names beside the cases: the test sweeps every module of jxkernel's against them
path = os.path.join(DATA, "alias_misses_reference.json")
with open(path) as f:
    recorded = json.load(f)
recorded["jax_modules"] = modules(jax)
with open(path, "w") as f:
    json.dump(recorded, f, indent=1, sort_keys=True)
    f.write("\n")
