"""Record tests/data/export_symbols_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_export_symbols_reference.py

The function symbols of modules calling exported functions and nested jits
(tests/data/export_symbols_cases.py), compared by tests/export/test_export_symbols.py.
"""
import jax
from recording import record_json

record_json(jax, "export_symbols_cases", "export_symbols_reference.json")
