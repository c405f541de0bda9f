"""Record tests/data/source_locations_reference.json from real JAX 0.10.2 (run by hand, not by
the test suite):

    .venv-jax/bin/python reference/make_source_locations_reference.py

It runs tests/data/source_locations_cases.py (each op's location in `Lowered.compiler_ir()`:
its name stack around its call sites; the tracebacks of a jaxpr's equations, nested ones
followed by their holder's; an inlined jit's equations' user frame) with JAX;
tests/xla/test_source_locations.py runs them with jxkernel and compares.
"""
import jax
from recording import record_json

record_json(jax, "source_locations_cases", "source_locations_reference.json")
