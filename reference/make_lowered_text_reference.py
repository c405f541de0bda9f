"""Record tests/data/lowered_text_reference.json from real JAX 0.10.2 (run by hand, not by
the test suite):

    .venv-jax/bin/python reference/make_lowered_text_reference.py

It prints the programs of tests/data/lowered_text_cases.py with JAX (`Lowered.as_text()` and
`make_jaxpr`); tests/transforms/test_lowered_text.py prints them with jxkernel and compares.
"""
import jax
from recording import record_json

record_json(jax, "lowered_text_cases", "lowered_text_reference.json")
