"""Record tests/data/scaled_matmul_reference.json from real JAX 0.10.2 (run by hand, not by
the test suite):

    .venv-jax/bin/python reference/make_scaled_matmul_reference.py

It runs tests/data/scaled_matmul_cases.py (jax.nn.scaled_matmul and scaled_dot_general traced,
lowered for CUDA on this CPU, their errors, the partitioning rule's specs);
tests/nn/test_scaled_matmul.py compares jxkernel with the recording.
"""
import jax
from recording import record_json

record_json(jax, "scaled_matmul_cases", "scaled_matmul_reference.json")
