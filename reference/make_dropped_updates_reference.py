"""Record what JAX 0.10.2 does with an update at a static index out of bounds
(`x.at[10].set(5)` of 10 elements) in tests/data/dropped_updates_reference.json (run by hand,
not by the test suite):

    PYTHONPATH= .venv-jax/bin/python reference/make_dropped_updates_reference.py

The cases are tests/data/dropped_updates_cases.py: each result, whether the array came back
unchanged (the update dropped), and the same with jax_check_static_indices on.
tests/notebook/test_index_notes.py compares the note's words with these.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "dropped_updates_cases", "dropped_updates_reference.json")
