"""Generate error_check_reference.json from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_error_check_reference.py

The cases (jax._src.error_check's checks and the errors raised after them) are in
tests/data/error_check_cases.py.
"""
import jax
from recording import record_json

record_json(jax, "error_check_cases", "error_check_reference.json")
