"""Record what JAX 0.10.2's public jax.numpy functions raise when called with one positional
argument too few and one too many, in tests/data/jnp_arity_reference.json (run by hand, not
by the test suite):

    .venv-jax/bin/python reference/make_jnp_arity_reference.py

The cases are tests/data/jnp_arity_cases.py; tests/numpy/test_jnp_arity.py replays the
recorded calls with jxkernel and compares.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "jnp_arity_cases", "jnp_arity_reference.json")
