"""Generate signal_reference.npz from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_signal_reference.py

The cases are in tests/data/signal_cases.py; recording.py says how they are stored.
"""

import jax
import jax.numpy as jnp
import jax.scipy.signal as signal
from recording import record_modes

record_modes(jax, "signal_cases", (jax, jnp, signal), "signal_reference.npz")
