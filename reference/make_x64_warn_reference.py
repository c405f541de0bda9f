"""Generate tests/data/x64_warn_reference.json from real JAX 0.10.2 (run by hand, not by the
test suite):

    .venv-jax/bin/python reference/make_x64_warn_reference.py

The cases (64-bit dtypes without x64 under jax_explicit_x64_dtypes 'warn', 'error' and
'allow': lax's and jnp's dtype arguments, full_like, values made under enable_x64, dtypes of
ShapeDtypeStructs; results and warnings' words) are in tests/data/x64_warn_cases.py.
"""

import jax
from recording import record_json

record_json(jax, "x64_warn_cases", "x64_warn_reference.json")
