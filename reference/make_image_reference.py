"""Generate image_reference.npz from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_image_reference.py

The cases are in tests/data/image_cases.py; recording.py says how they are stored.
"""

import jax
import jax.image as image
import jax.numpy as jnp
from recording import record_modes

record_modes(jax, "image_cases", (jax, jnp, image), "image_reference.npz")
