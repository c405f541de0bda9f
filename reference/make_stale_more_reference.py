"""Write tests/data/stale_more_reference.json from real JAX 0.10.2 (run by hand, never
by the tests):

    .venv-jax/bin/python reference/make_stale_more_reference.py

What `run` in tests/data/stale_more_cases.py answers: for more ways a jitted function reads
a global (a print, a container, a loop or branch body, a jit traced inside another's), the
number of its program's closed-over constants (make_jaxpr's), and what a call after the global
is rebound prints and returns (the old program, or a trace reused from elsewhere);
tests/views/test_outside_values.py holds jxkernel's stale-read notes to it."""
import jax
from recording import record_json

record_json(jax, "stale_more_cases", "stale_more_reference.json")
