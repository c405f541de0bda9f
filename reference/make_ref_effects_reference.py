"""Record tests/data/ref_effects_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_ref_effects_reference.py

The effects of jaxprs reading and writing Refs (tests/data/ref_effects_cases.py), compared by
tests/api/test_ref_effects.py.
"""
import jax
from recording import record_json

record_json(jax, "ref_effects_cases", "ref_effects_reference.json")
