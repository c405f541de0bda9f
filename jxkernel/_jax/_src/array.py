"""jxkernel._src.array, as jax._src.array: ArrayImpl, the class of every concrete Array
(xla/array.py), which JAX's own tests and libraries name to tell a computed value from a tracer.

    >>> ArrayImpl.__name__
    'ArrayImpl'
"""
from ...xla.array import ArrayImpl  # noqa: F401
