"""Generate tests/data/x64_allow_reference.json from real JAX 0.10.2 (run by hand, not by the
test suite):

    .venv-jax/bin/python reference/make_x64_allow_reference.py

The cases (jax_explicit_x64_dtypes='allow' with x64 off: 64-bit dtypes asked for by name,
promotion, reductions, transformations, random bits and samplers, typed host values, jit's
cache key) are in tests/data/x64_allow_cases.py.
"""

import jax
from recording import record_json

record_json(jax, "x64_allow_cases", "x64_allow_reference.json")
