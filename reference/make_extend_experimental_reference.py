"""Record tests/data/extend_experimental_reference.json from real JAX 0.10.2 (run by hand,
not by the test suite):

    .venv-jax/bin/python reference/make_extend_experimental_reference.py

It runs the programs of tests/data/extend_experimental_cases.py (jax.extend.core's custom
interpreter and Primitive, jax.experimental.io_callback, print_saved_residuals, shardings,
typed keys, ShapeDtypeStruct) with JAX; tests/_jax/extend/test_extend_experimental.py runs the same
programs with jxkernel and compares.
"""
import jax
from recording import record_json

record_json(jax, "extend_experimental_cases", "extend_experimental_reference.json")
