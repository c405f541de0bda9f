"""jax._src.tpu.linalg.qdwh: `qdwh`, the polar decomposition by QR-based dynamically weighted
Halley iterations (jxkernel/lax/linalg/polar.py; JAX's `jax.lax.linalg.qdwh` is this one).

    >>> u, h, iters, converged = qdwh(np.float32([[2, 0], [0, 3]]))
    >>> bool(converged)
    True
"""
import numpy as np  # noqa: F401  (the example's np)

from .....lax.linalg.polar import qdwh  # noqa: F401
