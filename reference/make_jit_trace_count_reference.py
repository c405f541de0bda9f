"""Record how many times JAX 0.10.2's jit traces a function on the paths a learner meets
(plain, static and keyword arguments, a jit in a jit, grad and vmap, Refs, set_mesh) in
tests/data/jit_trace_count_reference.json (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_jit_trace_count_reference.py

The cases are tests/data/jit_trace_count_cases.py; tests/transforms/test_jit_trace_counts.py
runs the same file with jxkernel and compares.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "jit_trace_count_cases", "jit_trace_count_reference.json")
