"""Record what JAX 0.10.2 says of the older names tutorials use and JAX has removed, and the
value each replacement gives, in tests/data/removed_names_reference.json (run by hand, not by
the test suite):

    PYTHONPATH= .venv-jax/bin/python reference/make_removed_names_reference.py

The cases are tests/data/removed_names_cases.py; tests/notebook/test_removed_name_cards.py
checks the removed-name card against these.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "removed_names_cases", "removed_names_reference.json")
