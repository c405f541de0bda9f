"""Record what JAX 0.10.2 does with a dynamic slice or update whose start is out of range
(`lax.dynamic_slice(x, (8,), (4,))` of 10 elements, a negative start, the _in_dim forms, under
jit and vmap) and with the fixes the note prints, in tests/data/clamped_starts_reference.json
(run by hand, not by the test suite):

    PYTHONPATH= .venv-jax/bin/python reference/make_clamped_starts_reference.py

The cases are tests/data/clamped_starts_cases.py: each call's result (what it read, or where
its update landed), and each fix's. tests/notebook/test_clamped_start_notes.py compares the
note's words with these.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "clamped_starts_cases", "clamped_starts_reference.json")
