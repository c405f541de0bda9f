"""Generate x64_context_reference.json from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_x64_context_reference.py

The cases (enable_x64 switched inside grad and scan, jax_explicit_x64_dtypes) are in
tests/data/x64_context_cases.py.
"""

import jax
from recording import record_json

record_json(jax, "x64_context_cases", "x64_context_reference.json")
