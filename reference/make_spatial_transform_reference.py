"""Generate spatial_transform_reference.npz from real JAX 0.10.2 (run by hand, not by the test
suite):

    .venv-jax/bin/python reference/make_spatial_transform_reference.py

The cases (jax.scipy.spatial.transform's Rotation and Slerp) are in
tests/data/spatial_transform_cases.py; recording.py says how they are stored.
"""

import jax
import jax.scipy
import jax.scipy.spatial.transform  # noqa: F401  (the case list imports it by name)
from recording import record_modes

record_modes(jax, "spatial_transform_cases", (jax, jax.scipy), "spatial_transform_reference.npz")
