"""Record tests/data/export_platforms_reference.json from real JAX 0.10.2 (run by hand, not by
the test suite):

    .venv-jax/bin/python reference/make_export_platforms_reference.py

It runs the programs of tests/data/export_platforms_cases.py (an export for several platforms
at once: its fields, its module's shape, calls on the CPU, the errors) with JAX;
tests/export/test_export_platforms.py runs the same programs with jxkernel and compares.
"""
import jax
from recording import record_json

record_json(jax, "export_platforms_cases", "export_platforms_reference.json")
