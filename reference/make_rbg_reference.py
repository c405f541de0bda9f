"""Record JAX 0.10.2's `rbg` and `unsafe_rbg` keys, bits and samples on the CPU in
tests/data/rbg_reference.json (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_rbg_reference.py

The cases are tests/data/rbg_cases.py; tests/random/test_rbg.py runs the same file with
jxkernel and compares. The bits come from XLA's RngBitGenerator as the CPU backend compiles it
(Philox-4x32 for the default algorithm); a GPU's may differ (JAX does not promise them stable
across backends), so the test runs on the CPU only.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"      # before jax starts: the CPU's RngBitGenerator

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "rbg_cases", "rbg_reference.json")
