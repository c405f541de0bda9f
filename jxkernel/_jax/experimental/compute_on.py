"""jxkernel.experimental.compute_on, as jax.experimental.compute_on in JAX 0.10.2: the
`compute_on` block and `compute_on2` (jxkernel/_jax/_src/compute_on.py). On a CPU the host is
the device, so both compute what the function computes.

    >>> from jxkernel._jax.experimental.compute_on import compute_on2
    >>> compute_on2(lambda x: x * 2, compute_type="device_host", out_memory_spaces=None)(3.0)
    Array(6., dtype=float32, weak_type=True)
"""
from .._src.compute_on import compute_on, compute_on2  # noqa: F401
