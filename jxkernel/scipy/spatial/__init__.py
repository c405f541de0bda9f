"""jax.scipy.spatial: rotations in three dimensions (`transform.Rotation`, `transform.Slerp`)."""
from . import transform  # noqa: F401
