"""The random matrices the linear-algebra tests factor (tests/lax/test_lax_linalg.py,
tests/numpy/test_numpy_linalg.py, tests/lax/test_linalg_gpu.py): standard normal entries,
complex ones for complex dtypes, from a seeded NumPy RandomState (the same values on every
machine and in every test order).

    >>> randn((2, 3), np.complex64).dtype
    dtype('complex64')
    >>> bool(np.all(np.linalg.eigvalsh(spd(3)) > 0))
    True
"""
import numpy as np


def randn(shape, dtype=np.float32, seed=0):
    """Standard normal entries of `shape` (real and imaginary parts for a complex dtype)."""
    rng = np.random.RandomState(seed)
    a = rng.randn(*shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.randn(*shape)
    return a.astype(dtype)


def spd(n, batch=(), dtype=np.float32, seed=0):
    """A batch of symmetric (Hermitian) positive definite n×n matrices: A Aᴴ + n I."""
    a = randn((*batch, n, n), dtype, seed)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)
