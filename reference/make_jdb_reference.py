"""Generate jdb_reference.json from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_jdb_reference.py

The cases (jax.debug.breakpoint's text debugger fed commands from a file) are in
tests/data/jdb_cases.py.
"""
import jax
from recording import record_json

record_json(jax, "jdb_cases", "jdb_reference.json")
