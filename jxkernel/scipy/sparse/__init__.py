"""jxkernel.scipy.sparse: iterative solvers for linear systems (jax.scipy.sparse)."""
from . import linalg  # noqa: F401
