"""jax._src.tpu.linalg: JAX's matrix algorithms built for TPUs out of QR and matrix products,
which JAX's tests run on every platform: `qdwh` (the polar decomposition), `svd` (the SVD by
qdwh and eigh), `stack` (a fixed-capacity stack of arrays for loops). JAX's `eigh` (its
spectral divide-and-conquer eigensolver) has no counterpart: jxkernel's eigh is LAPACK's on CPU.

    >>> from jxkernel._jax._src.tpu.linalg import svd
    >>> [round(float(v), 4) for v in svd.svd(np.float32([[0, 2], [1, 0]]), False, False)]
    [2.0, 1.0]
"""
import numpy as np  # noqa: F401  (the example's np)

from . import qdwh, stack, svd  # noqa: F401
