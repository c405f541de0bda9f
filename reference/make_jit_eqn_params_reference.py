"""Write tests/data/jit_eqn_params_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_jit_eqn_params_reference.py

For each program of tests/data/jit_eqn_params_cases.py (jit equations: shardings, donation,
keep_unused, set_mesh, and after grad, vmap, jvp, linearize, transposition): its equations'
primitives and params and the printed jaxpr (tests/core/test_jit_eqn_params.py compares)."""
import jax
from recording import record_json

record_json(jax, "jit_eqn_params_cases", "jit_eqn_params_reference.json")
