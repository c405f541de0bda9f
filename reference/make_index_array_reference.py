"""Record what JAX 0.10.2 does with an index array holding indices out of bounds
(`x[np.array([11])]` of 10 elements, `x.at[np.array([3, 11])].set(-1)`) in
tests/data/index_array_reference.json (run by hand, not by the test suite):

    PYTHONPATH= .venv-jax/bin/python reference/make_index_array_reference.py

The cases are tests/data/index_array_cases.py: each result, and the same with
jax_check_static_indices on.
tests/notebook/test_index_notes.py compares the note's words with these.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "index_array_cases", "index_array_reference.json")
