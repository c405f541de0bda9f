"""Record tests/data/array_format_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_array_format_reference.py

Array.format on the CPU (tests/data/array_format_cases.py), compared by
tests/xla/test_array_format.py.
"""
import jax
from recording import record_json

record_json(jax, "array_format_cases", "array_format_reference.json")
