"""Generate mul_out_dtype_reference.npz from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_mul_out_dtype_reference.py

The cases (lax.mul with out_dtype: values, transformations, gradients) are in
tests/data/mul_out_dtype_cases.py; recording.py says how they are stored.
"""

import jax
from recording import record_modes

record_modes(jax, "mul_out_dtype_cases", (jax,), "mul_out_dtype_reference.npz")
