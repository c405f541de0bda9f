"""jxkernel._src.errors, as jax._src.errors: JAX's private home of the exceptions of jax.errors
(jxkernel/_jax/errors.py), which JAX's own tests import from here.

    >>> UnexpectedTracerError.__name__
    'UnexpectedTracerError'
"""
from ..errors import *  # noqa: F401,F403
from ..errors import __all__  # noqa: F401
