"""jxkernel's version, in a module of its own (as `jax.version`) so that any layer can read it
without importing the package root.

    >>> from jxkernel.version import __version__
    >>> __version__
    '0.1.0'
"""
__version__ = "0.1.0"
