"""Generate scipy_extras_reference.npz from real JAX 0.10.2 (run by hand, not by the test
suite):

    .venv-jax/bin/python reference/make_scipy_extras_reference.py

The cases (jax.scipy.fft, ndimage, integrate, cluster) are in
tests/data/scipy_extras_cases.py; recording.py says how they are stored.
"""

import jax
import jax.scipy
from recording import record_modes

record_modes(jax, "scipy_extras_cases", (jax, jax.scipy), "scipy_extras_reference.npz")
