"""Generate jet_reference.npz and jet_reference.json from real JAX 0.10.2 (run by hand, not by
the test suite):

    .venv-jax/bin/python reference/make_jet_reference.py

The cases (jax.experimental.jet's values, the jaxprs it prints and the errors it raises) are in
tests/data/jet_cases.py; recording.py says how they are stored.
"""

import jax
import jax.scipy.special  # noqa: F401  (the case list uses it)
from jax.experimental import jet
from recording import record_json, record_modes

record_modes(jax, "jet_cases", (jax, jet), "jet_reference.npz")
record_json(jax, "jet_cases", "jet_reference.json")
