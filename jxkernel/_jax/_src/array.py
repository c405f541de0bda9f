"""jxkernel._src.array, as jax._src.array: ArrayImpl, the class of every concrete Array
(xla/array.py), which JAX's own tests and libraries name to tell a computed value from a tracer,
and make_array_from_callback, whose home this is in JAX (JAX's checkify_test calls it here).

    >>> ArrayImpl.__name__
    'ArrayImpl'
"""
from ...xla.array import ArrayImpl  # noqa: F401
from ...xla.sharded import make_array_from_callback  # noqa: F401
