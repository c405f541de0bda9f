"""Write tests/data/timeit_compiles_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_timeit_compiles_reference.py

What `run` in tests/data/timeit_compiles_cases.py answers: how many compiles
jax_log_compiles logs in a statement's warm-up run and in its three timed runs
(tests/notebook/test_timeit_compiles_against_jax.py holds %timeit's lines to them)."""
import jax
from recording import record_json

record_json(jax, "timeit_compiles_cases", "timeit_compiles_reference.json")
