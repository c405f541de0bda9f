"""jxkernel._src.numpy.fft, as jax._src.numpy.fft: `_fft_norm`, the factor a transform is
multiplied by for its `norm` (jxkernel.numpy.fft's `_norm_factor`; JAX's own fft tests call it).

    >>> _fft_norm(jnp.array([4, 4]), "ifft", "ortho")
    Array(4., dtype=float32)
"""
from ....numpy.fft import _norm_factor as _fft_norm  # noqa: F401
