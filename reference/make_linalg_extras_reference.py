"""Record lax.linalg's tridiagonal_solve, symmetric_product, cholesky_update and tridiagonal
from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_linalg_extras_reference.py

Values in 32- and 64-bit mode to linalg_extras_reference.npz, error classes and words to
linalg_extras_errors.json; the cases are in tests/data/linalg_extras_cases.py.
"""
import jax
from jax.lax import linalg

from recording import record_json, record_modes

record_modes(jax, "linalg_extras_cases", (jax, linalg), "linalg_extras_reference.npz")
record_json(jax, "linalg_extras_cases", "linalg_extras_errors.json")
