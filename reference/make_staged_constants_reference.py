"""Record tests/data/staged_constants_reference.json from real JAX 0.10.2 (run by hand, not by
the test suite):

    .venv-jax/bin/python reference/make_staged_constants_reference.py

It runs tests/data/staged_constants_cases.py (values a jitted function makes from constants,
given to int(), bool(), a shape) with JAX; tests/core/test_staged_constants.py runs the same
cases with jxkernel and compares.
"""
import jax
from recording import record_json

record_json(jax, "staged_constants_cases", "staged_constants_reference.json")
