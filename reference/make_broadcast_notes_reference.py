"""Record what JAX 0.10.2 gives for cells that meet a column (n, 1) and a vector (n,) in one
elementwise operation, as written and with the note's two fixes, and the warnings it gives by
default and with jax_numpy_rank_promotion='warn', in tests/data/broadcast_notes_reference.json
(run by hand, not by the test suite):

    PYTHONPATH= .venv-jax/bin/python reference/make_broadcast_notes_reference.py

The cases are tests/data/broadcast_note_cases.py; tests/notebook/test_broadcast_notes.py checks
the note's claims and fixes against these.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "broadcast_note_cases", "broadcast_notes_reference.json")
