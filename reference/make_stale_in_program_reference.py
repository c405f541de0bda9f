"""Write tests/data/stale_in_program_reference.json from real JAX 0.10.2 (run by hand, never
by the tests):

    .venv-jax/bin/python reference/make_stale_in_program_reference.py

What `run` in tests/data/stale_in_program_cases.py answers: whether a global array read by a
jitted function is a constant of its program (make_jaxpr's consts), and what a call after the
global is rebound prints and returns (the old program, not traced again);
tests/views/test_outside_values.py holds jxkernel's stale-read notes to it."""
import jax
from recording import record_json

record_json(jax, "stale_in_program_cases", "stale_in_program_reference.json")
