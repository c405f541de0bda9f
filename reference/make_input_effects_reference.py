"""Record tests/data/input_effects_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_input_effects_reference.py

Effects on a jaxpr's inputs through jit, cond, scan, while_loop, DCE and
partial_eval_jaxpr_custom (tests/data/input_effects_cases.py), compared by
tests/core/test_input_effects.py.
"""
import jax
from recording import record_json

record_json(jax, "input_effects_cases", "input_effects_reference.json")
