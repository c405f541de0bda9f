"""Record tests/data/export_vjp_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_export_vjp_reference.py

When an Exported's VJP is traced and lowered (tests/data/export_vjp_cases.py), compared by
tests/export/test_export_vjp.py.
"""
import jax
from recording import record_json

record_json(jax, "export_vjp_cases", "export_vjp_reference.json")
