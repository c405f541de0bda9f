"""Record what JAX 0.10.2 gives for gradients that hold NaN where the function's value is
finite (`jnp.where(x > 0, jnp.sqrt(x), 0.)` at 0), in tests/data/nan_gradient_reference.json
(run by hand, not by the test suite):

    PYTHONPATH= .venv-jax/bin/python reference/make_nan_gradient_reference.py

The cases are tests/data/nan_gradient_cases.py: each value and gradient, what
jax_debug_nans makes of the gradient, and the gradient of the function the note rewrites.
tests/notebook/test_nan_notes.py checks the note's claims and fixes against these.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "nan_gradient_cases", "nan_gradient_reference.json")
