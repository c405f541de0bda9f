"""Record JAX 0.10.2's platform names and its JAX_PLATFORMS errors on a CPU-only machine in
tests/data/platforms_reference.json (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_platforms_reference.py

The cases are tests/data/platforms_cases.py, run with JAX_PLATFORMS=cpu; tests/xla/
test_platforms.py runs the same file with jxkernel and compares.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"      # before jax starts

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "platforms_cases", "platforms_reference.json")
