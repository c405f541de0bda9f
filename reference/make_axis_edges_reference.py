"""Record tests/data/axis_edges_reference.json from real JAX 0.10.2 (run by hand, not by the
test suite):

    .venv-jax/bin/python reference/make_axis_edges_reference.py

It runs tests/data/axis_edges_cases.py (split's axes, repeat of a 0-d array, compress's size)
with JAX; tests/numpy/test_axis_edges.py runs the same cases with jxkernel and compares.
"""
import jax
from recording import record_json

record_json(jax, "axis_edges_cases", "axis_edges_reference.json")
