"""Write tests/data/first_nan_reference.json from real JAX 0.10.2 (run by hand, never by the
tests):

    .venv-jax/bin/python reference/make_first_nan_reference.py

What `run` in tests/data/first_nan_cases.py answers: for each program, eagerly and under
jit with jax_debug_nans on, the primitive JAX's FloatingPointError names and the learner's
line its traceback ends at (tests/views/test_first_nan_against_jax.py holds the stepper's
first_nan() to them)."""
import jax
from recording import record_json

record_json(jax, "first_nan_cases", "first_nan_reference.json")
