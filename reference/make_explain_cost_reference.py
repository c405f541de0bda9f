"""Write tests/data/explain_cost_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_explain_cost_reference.py

What `run` in tests/data/explain_cost_cases.py answers: XLA's cost analysis (flops,
transcendentals, bytes accessed) of each program, compiled by JAX on the CPU
(tests/views/test_explain_cost_against_jax.py holds %explain's totals to it)."""
import jax
from recording import record_json

jax.config.update("jax_platforms", "cpu")
record_json(jax, "explain_cost_cases", "explain_cost_reference.json")
