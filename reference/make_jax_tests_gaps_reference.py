"""Generate jax_tests_gaps_reference.json from real JAX 0.10.2 (run by hand, not by the test
suite):

    .venv-jax/bin/python reference/make_jax_tests_gaps_reference.py

The cases (small gaps JAX's own test files showed) are in tests/data/jax_tests_gaps_cases.py.
"""

import jax
from recording import record_json

record_json(jax, "jax_tests_gaps_cases", "jax_tests_gaps_reference.json")
