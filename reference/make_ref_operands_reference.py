"""Record tests/data/ref_operands_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_ref_operands_reference.py

Refs passed as operands of cond, switch and scan (tests/data/ref_operands_cases.py),
compared by tests/api/test_ref_operands.py.
"""
import jax
from recording import record_json

record_json(jax, "ref_operands_cases", "ref_operands_reference.json")
