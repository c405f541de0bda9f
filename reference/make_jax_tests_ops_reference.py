"""Generate jax_tests_ops_reference.json from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_jax_tests_ops_reference.py

The cases (custom_partitioning's sharding rules as MLIR attributes, cuDNN's version check on a
machine without CUDA) are in tests/data/jax_tests_ops_cases.py.
"""
import jax
from recording import record_json

record_json(jax, "jax_tests_ops_cases", "jax_tests_ops_reference.json")
