"""jax.lib: the version of jaxlib (XLA's runtime) that jxkernel runs on.

    >>> isinstance(__version__, str) and __version__.count(".") >= 2
    True
"""
from .xla.compiler import _jaxlib_version as __version__  # noqa: F401  (jaxlib's own string)
