"""Write tests/data/memory_view_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_memory_view_reference.py

What `run` in tests/data/memory_view_cases.py answers: which arrays jax.live_arrays() lists
after a learner's steps, each dtype's nbytes, and the CPU device's memory_stats()
(tests/views/test_memory_view_against_jax.py holds %jxmemory's rows and lines to them)."""
import jax
from recording import record_json

record_json(jax, "memory_view_cases", "memory_view_reference.json")
