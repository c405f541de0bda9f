"""Record what JAX 0.10.2 leaves in `x` after a cell that drops an `.at[...]` update's copy
(`x.at[0].set(10)` as a statement of its own), and after the same cell with the note's fix, in
tests/data/dropped_copies_reference.json (run by hand, not by the test suite):

    PYTHONPATH= .venv-jax/bin/python reference/make_dropped_copies_reference.py

The cases are tests/data/dropped_copies_cases.py; tests/notebook/test_update_notes.py checks
the note's claims (the array unchanged) and its fixes (the update kept) against these.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "dropped_copies_cases", "dropped_copies_reference.json")
