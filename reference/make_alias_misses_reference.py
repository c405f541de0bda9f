"""Record tests/data/alias_misses_reference.json from real JAX 0.10.2 (run by hand, not by the
test suite):

    PYTHONPATH= .venv-jax/bin/python reference/make_alias_misses_reference.py

It runs tests/data/alias_misses_cases.py (a name each `jax` module lacks) with JAX;
tests/jax_compat/test_as_jax.py runs the same cases under jxkernel's `import jax` alias.
"""
import jax
from recording import record_json

record_json(jax, "alias_misses_cases", "alias_misses_reference.json")
