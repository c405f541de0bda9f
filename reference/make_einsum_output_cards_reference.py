"""Record what JAX 0.10.2 raises for jnp.einsum given result subscripts that name a letter no
operand has or one letter twice, and what each line the einsum-output card prints gives when
pasted, in
tests/data/einsum_output_cards_reference.json (run by hand, not by the test suite):

    PYTHONPATH= .venv-jax/bin/python reference/make_einsum_output_cards_reference.py

The cases are tests/data/einsum_output_cards_cases.py; tests/notebook/test_einsum_output_cards.py
compares the card's words with these.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    assert jax.__version__ == "0.10.2", jax.__version__
    record_json(jax, "einsum_output_cards_cases", "einsum_output_cards_reference.json")
