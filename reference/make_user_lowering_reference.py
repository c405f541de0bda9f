"""Record tests/data/user_lowering_reference.json from real JAX 0.10.2 (run by hand, not by
the test suite):

    .venv-jax/bin/python reference/make_user_lowering_reference.py

It runs the programs of tests/data/user_lowering_cases.py (when a lowering rule registered
with jax.interpreters.mlir.register_lowering is called, with which types and operands) with
JAX; tests/jax_compat/test_user_primitive_rules.py runs them with jxkernel and compares.
"""
import jax
from recording import record_json

record_json(jax, "user_lowering_cases", "user_lowering_reference.json")
