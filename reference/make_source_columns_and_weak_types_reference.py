"""Record tests/data/source_columns_and_weak_types_reference.json from real JAX 0.10.2 (run by
hand, not by the test suite):

    .venv-jax/bin/python reference/make_source_columns_and_weak_types_reference.py

It runs the programs of tests/data/source_columns_and_weak_types_cases.py (source locations
with their columns, weak types of scan/while/fori/cond/switch outputs and tangents) with JAX;
tests/core/test_source_columns_and_weak_types.py runs the same programs with jxkernel and compares.
"""
import jax
import jax.ad_checkpoint  # noqa: F401  (the cases reach print_saved_residuals through it)
from recording import record_json

record_json(jax, "source_columns_and_weak_types_cases", "source_columns_and_weak_types_reference.json")
