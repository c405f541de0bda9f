"""Record tests/data/layout_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_layout_reference.py

Layouts given to device_put and jit on the CPU (tests/data/layout_cases.py), compared by
tests/xla/test_layout_put.py.
"""
import jax
from recording import record_json

record_json(jax, "layout_cases", "layout_reference.json")
