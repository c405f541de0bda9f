"""Generate gaussian_kde_reference.npz from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_gaussian_kde_reference.py

The cases are in tests/data/gaussian_kde_cases.py; recording.py says how they are stored.
"""

import jax
import jax.numpy as jnp
import jax.scipy.stats as stats
from recording import record_modes

record_modes(jax, "gaussian_kde_cases", (jax, jnp, stats), "gaussian_kde_reference.npz")
