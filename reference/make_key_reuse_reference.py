"""Record JAX 0.10.2's key-reuse checker (`jax.debug_key_reuse`) and typed keys' operator
errors in tests/data/key_reuse_reference.json (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_key_reuse_reference.py

The cases are tests/data/key_reuse_cases.py; tests/random/test_key_reuse_reference.py runs the
same file with jxkernel and compares.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "key_reuse_cases", "key_reuse_reference.json")
