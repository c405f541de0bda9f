"""Record what JAX 0.10.2 answers to tests/data/random_internals_cases.py (the gaps JAX's own
random tests found) on the CPU in tests/data/random_internals_reference.json (run by hand, not
by the test suite):

    .venv-jax/bin/python reference/make_random_internals_reference.py

tests/random/test_random_internals.py runs the same cases with jxkernel and compares.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "random_internals_cases", "random_internals_reference.json")
