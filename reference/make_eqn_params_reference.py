"""Write tests/data/eqn_params_reference.json from real JAX 0.10.2 (run by hand, never by the
tests):

    .venv-jax/bin/python reference/make_eqn_params_reference.py

For each program of tests/data/eqn_params_cases.py: its equations' primitives and params
(keys and a repr of each value, addresses taken out; sub-jaxprs walked) and the printed jaxpr
(tests/core/test_eqn_params.py compares jxkernel's with them)."""
import jax
from recording import record_json

record_json(jax, "eqn_params_cases", "eqn_params_reference.json")
