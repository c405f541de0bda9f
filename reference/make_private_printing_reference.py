"""Record tests/data/private_printing_reference.json from real JAX 0.10.2 (run by hand, not by
the test suite):

    .venv-jax/bin/python reference/make_private_printing_reference.py

It runs tests/data/private_printing_cases.py (a tracer's verbose `_pretty_print`,
`core.pp_kv_pair`) with JAX; tests/core/test_private_printing.py runs them with jxkernel and
compares.
"""
import jax
from recording import record_json

record_json(jax, "private_printing_cases", "private_printing_reference.json")
