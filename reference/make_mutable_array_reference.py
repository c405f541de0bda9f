"""Record tests/data/mutable_array_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_mutable_array_reference.py

jax_mutable_array_checks' default and core.freeze (tests/data/mutable_array_cases.py),
compared by tests/jax_compat/test_mutable_array_names.py.
"""
import jax
from recording import record_json

record_json(jax, "mutable_array_cases", "mutable_array_reference.json")
