"""Write tests/data/stale_static_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_stale_static_reference.py

What `run` in tests/data/stale_static_cases.py answers: a static argument hashed by identity
(self static, a config by static_argnames) whose fields are set anew after the trace, called
again (the old program's result), a class hashed by its fields (traced again), and the note's
fix (the class a pytree, self traced); tests/views/test_static_attributes.py holds jxkernel's
stale-field notes to it."""
import jax
from recording import record_json

record_json(jax, "stale_static_cases", "stale_static_reference.json")
