"""Generate ref_vmap_write_reference.json from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_ref_vmap_write_reference.py

The cases (writes to a Ref inside a vmap that does not map it) are in
tests/data/ref_vmap_write_cases.py.
"""
import jax
from recording import record_json

record_json(jax, "ref_vmap_write_cases", "ref_vmap_write_reference.json")
