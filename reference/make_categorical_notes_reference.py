"""Record the shares of 10,000 draws JAX 0.10.2's jax.random.categorical gives when handed
probabilities as logits, and with the note's fix (jnp.log of them), in
tests/data/categorical_notes_reference.json (run by hand, not by the test suite):

    PYTHONPATH= .venv-jax/bin/python reference/make_categorical_notes_reference.py

The cases are tests/data/categorical_note_cases.py; tests/notebook/test_categorical_notes.py
checks the note's claim against these.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "categorical_note_cases", "categorical_notes_reference.json")
