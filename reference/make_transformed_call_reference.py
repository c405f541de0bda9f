"""Record what JAX 0.10.2 says when a function given to grad, jit or vmap is called with other
arguments than it takes (or jnp's jitted whole, an axis traced), and the value each card's
line gives, in
tests/data/transformed_call_reference.json (run by hand, not by the test suite):

    PYTHONPATH= .venv-jax/bin/python reference/make_transformed_call_reference.py

The cases are tests/data/transformed_call_cases.py; tests/notebook/test_transformed_call_cards.py checks
the cards against these.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "transformed_call_cases", "transformed_call_reference.json")
