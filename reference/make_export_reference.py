"""Record tests/data/export_reference.json and export_symbolic_reference.json from real JAX
0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_export_reference.py

It runs the programs of tests/data/export_cases.py (jax.stages' Traced, Lowered and Compiled;
jax.export's export, Exported, call under jit and grad, and the errors) with JAX;
tests/transforms/test_stages.py and tests/export/test_export.py run the same programs with jxkernel and compare.
tests/data/export_symbolic_cases.py (shape-polymorphic export: symbolic dimensions, specs,
programs, calls and errors) is compared by tests/export/test_export_symbolic.py.
"""
import jax
from recording import record_json

record_json(jax, "export_cases", "export_reference.json")
record_json(jax, "export_symbolic_cases", "export_symbolic_reference.json")
