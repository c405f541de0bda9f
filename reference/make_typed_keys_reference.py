"""Record JAX 0.10.2's typed PRNG keys (`jax.random.key`: values of dtype key<fry>, pytree
leaves) in tests/data/typed_keys_reference.json (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_typed_keys_reference.py

The cases are tests/data/typed_keys_cases.py; tests/random/test_typed_keys_reference.py runs
the same file with jxkernel and compares.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "typed_keys_cases", "typed_keys_reference.json")
