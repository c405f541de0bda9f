"""Record JAX 0.10.2's answers to tests/data/stateful_rng_cases.py (jax.experimental.random's
StatefulPRNG) in tests/data/stateful_rng_reference.json (run by hand, not by the suite):

    .venv-jax/bin/python reference/make_stateful_rng_reference.py

tests/jax_compat/test_stateful_rng.py runs the same cases on jxkernel and compares them.
"""
import jax

from recording import record_json

if __name__ == "__main__":
    record_json(jax, "stateful_rng_cases", "stateful_rng_reference.json")
