"""Record what JAX 0.10.2 says of Python ints past int32 (its default integer), and what each
cell gives with 64-bit types turned on, in tests/data/int_overflow_reference.json (run by hand,
not by the test suite):

    PYTHONPATH= .venv-jax/bin/python reference/make_int_overflow_reference.py

The cases are tests/data/int_overflow_cases.py; tests/notebook/test_int_overflow_cards.py
checks the int-overflow card against these.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "int_overflow_cases", "int_overflow_reference.json")
