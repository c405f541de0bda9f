"""Record what JAX 0.10.2 answers for tests/data/jax_tests_linalg_cases.py, the gaps JAX's own
linalg and scipy test files found (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_jax_tests_linalg_reference.py

Values in 32- and 64-bit mode to jax_tests_linalg_reference.npz; jtu's dot checks' outcomes to
jax_tests_linalg_reference.json.
"""
import json
import os

import jax
from jax._src import test_util as jtu
from jax._src.lax import linalg

from recording import DATA, record_modes
from jax_tests_linalg_cases import run  # noqa: E402 - found through recording's sys.path

record_modes(jax, "jax_tests_linalg_cases", (jax, linalg), "jax_tests_linalg_reference.npz")
record = {**run(jax, jtu), "jax_version": jax.__version__}
with open(os.path.join(DATA, "jax_tests_linalg_reference.json"), "w") as f:
    json.dump(record, f, indent=1, sort_keys=True)
    f.write("\n")
print("wrote jax_tests_linalg_reference.json")
