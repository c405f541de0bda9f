"""Record tests/data/ref_residual_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_ref_residual_reference.py

A Ref a custom_vjp's fwd returns as a residual and its bwd writes, under jit, scan, remat and
vjp (tests/data/ref_residual_cases.py), compared by
tests/transforms/test_custom_vjp_ref_residuals.py.
"""
import jax
from recording import record_json

record_json(jax, "ref_residual_cases", "ref_residual_reference.json")
