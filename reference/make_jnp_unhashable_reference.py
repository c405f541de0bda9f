"""Record what JAX 0.10.2 does with a list or an array given where a jnp function takes a
static value, and with the fix the card offers, in tests/data/jnp_unhashable_reference.json
(run by hand, not by the test suite):

    PYTHONPATH= .venv-jax/bin/python reference/make_jnp_unhashable_reference.py

The cases are tests/data/jnp_unhashable_cases.py: each call's error, and its fix's values.
tests/notebook/test_card_gaps.py checks the card's rewrite against these.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "jnp_unhashable_cases", "jnp_unhashable_reference.json")
