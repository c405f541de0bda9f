"""Generate ref_write_types_reference.json from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_ref_write_types_reference.py

The cases (values of another shape or dtype written into a Ref) are in
tests/data/ref_write_types_cases.py.
"""
import jax
from recording import record_json

record_json(jax, "ref_write_types_cases", "ref_write_types_reference.json")
