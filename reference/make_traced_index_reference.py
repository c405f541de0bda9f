"""Record what JAX 0.10.2 does with a jitted function indexing with a traced value out of
bounds (`x[i]`, `x.at[i].set(v)`, `lax.dynamic_slice(x, (i,), (4,))`, in a loop), and what
its checkify with index_checks says of the same call (the fix the note prints), in
tests/data/traced_index_reference.json (run by hand, not by the test suite):

    PYTHONPATH= .venv-jax/bin/python reference/make_traced_index_reference.py

The cases are tests/data/traced_index_cases.py; tests/notebook/test_index_calls.py compares
the note's words with these.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "traced_index_cases", "traced_index_reference.json")
