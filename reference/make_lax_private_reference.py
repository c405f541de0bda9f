"""Record tests/data/lax_private_reference.json from real JAX 0.10.2 (run by hand, not by the
test suite):

    .venv-jax/bin/python reference/make_lax_private_reference.py

It runs tests/data/lax_private_cases.py (JAX's private lax names that JAX's lax tests call, and
the lax behaviour those tests found different) with JAX; tests/_jax/_src/test_src_lax_private.py
runs the same cases with jxkernel and compares.
"""
import jax
from recording import record_json

record_json(jax, "lax_private_cases", "lax_private_reference.json")
