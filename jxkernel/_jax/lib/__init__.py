"""jxkernel.lib, as jax.lib: the version of the jaxlib that runs jxkernel's programs (JAX 0.10.2
keeps only `__version__` here; libraries compare it to choose code paths).

    >>> __version__.count(".")
    2
"""
from ...xla.compiler import _jaxlib_version as __version__  # noqa: F401
