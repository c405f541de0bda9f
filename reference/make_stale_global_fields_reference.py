"""Write tests/data/stale_global_fields_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_stale_global_fields_reference.py

What `run` in tests/data/stale_global_fields_cases.py answers: fields of objects a jitted
function names as globals (a namespace's, a class's, one rebound whole, one read by a helper),
set anew after the trace, and the fix (each field passed); tests/views/test_static_attributes.py
holds jxkernel's stale-field notes to it."""
import jax
from recording import record_json

record_json(jax, "stale_global_fields_cases", "stale_global_fields_reference.json")
