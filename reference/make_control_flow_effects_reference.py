"""Record tests/data/control_flow_effects_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_control_flow_effects_reference.py

A library's effects in control-flow bodies (tests/data/control_flow_effects_cases.py),
compared by tests/api/test_control_flow_effects.py.
"""
import jax
from recording import record_json

record_json(jax, "control_flow_effects_cases", "control_flow_effects_reference.json")
