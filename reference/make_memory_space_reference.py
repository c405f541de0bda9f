"""Record tests/data/memory_space_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_memory_space_reference.py

jax.memory.Space and compute_on2 naming one (tests/data/memory_space_cases.py), compared by
tests/api/test_memory_space.py.
"""
import jax
from recording import record_json

record_json(jax, "memory_space_cases", "memory_space_reference.json")
