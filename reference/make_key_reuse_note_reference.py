"""Record what JAX 0.10.2 does with the programs of the note under a cell that reuses a PRNG key
(jxkernel/notebook/notes/key_notes.py) in tests/data/key_reuse_note_reference.json (run by hand, not
by the test suite):

    PYTHONPATH= .venv-jax/bin/python reference/make_key_reuse_note_reference.py

The cases are tests/data/key_reuse_note_cases.py: per case, whether its two draws are the same
numbers, and whether jax_debug_key_reuse makes JAX raise KeyReuseError (typed keys, raw
PRNGKey keys), and at which line: the draw's eagerly, the call that traces the function for a
reuse inside a jitted one (cond branches, fold_in in a loop, a scan splitting its key: none),
the second taking of one key of an array by its index (`keys[0]` twice: "passed to slice",
drawn with or not; a for loop's or unpacking's keys: none).
tests/notebook/test_key_reuse_notes.py compares the note's words with these.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "key_reuse_note_cases", "key_reuse_note_reference.json")
