"""Record tests/data/remat_dce_reference.json from real JAX 0.10.2 (run by hand, not by the
test suite):

    .venv-jax/bin/python reference/make_remat_dce_reference.py

It runs tests/data/remat_dce_cases.py (checkpoint's saved residuals, pe.dce_jaxpr of cond, scan
and custom rules, the primal equations a checkpoint of a cond recomputes, custom_vjp's
optimize_remat) with JAX; tests/transforms/test_remat_dce.py runs them with jxkernel and
compares.
"""
import jax
from recording import record_json

record_json(jax, "remat_dce_cases", "remat_dce_reference.json")
