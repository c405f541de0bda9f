"""Record JAX 0.10.2's answers to tests/data/vjp_cotangent_cases.py in
tests/data/vjp_cotangent_reference.json (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_vjp_cotangent_reference.py
"""
import jax
import jax.numpy  # noqa: F401

from recording import record_json

if __name__ == "__main__":
    record_json(jax, "vjp_cotangent_cases", "vjp_cotangent_reference.json")
