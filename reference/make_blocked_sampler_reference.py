"""Generate blocked_sampler_reference.json from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_blocked_sampler_reference.py

The cases (jax._src.blocked_sampler's keys and values) are in
tests/data/blocked_sampler_cases.py.
"""
import jax
from recording import record_json

record_json(jax, "blocked_sampler_cases", "blocked_sampler_reference.json")
