"""jxkernel.image: image resampling, as jax.image computes it (`resize`,
`scale_and_translate`, `ResizeMethod`).

Loaded on first use (``import jxkernel.image`` or ``jxkernel.image``), as JAX users reach it.

    >>> import jxkernel.numpy as jnp
    >>> resize(jnp.array([4., 8.]), (4,), "linear")
    Array([4., 5., 7., 8.], dtype=float32)
"""
from .scale import ResizeMethod, resize, scale_and_translate

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]
