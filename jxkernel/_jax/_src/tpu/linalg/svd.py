"""jax._src.tpu.linalg.svd: `svd(a, full_matrices, compute_uv=True, hermitian=False,
max_iterations=10, subset_by_index=None)`, the SVD by the polar decomposition and eigh
(jxkernel/lax/linalg/polar_svd.py).

    >>> s = svd(np.float32([[3, 0], [0, 4]]), full_matrices=False, compute_uv=False)
    >>> np.round(np.asarray(s), 4).tolist()
    [4.0, 3.0]
"""
import numpy as np  # noqa: F401  (the example's np)

from .....lax.linalg.polar_svd import svd  # noqa: F401
