"""jxkernel._src.array, as jax._src.array: ArrayImpl, the class of every concrete Array
(xla/array.py), which JAX's own tests and libraries name to tell a computed value from a tracer,
and make_array_from_callback, whose home this is in JAX (JAX's checkify_test calls it here);
`_array_mlir_constant_handler`, which a library's constant handler (mlir._constant_handlers)
calls for its data.

    >>> ArrayImpl.__name__
    'ArrayImpl'
"""
from ...xla.array import ArrayImpl, device_put  # noqa: F401
from ...xla.sharded import make_array_from_callback  # noqa: F401


def _array_mlir_constant_handler(val, aval):
    """An Array's constant, as a constant handler gives it: in jxkernel a constant is its data
    (the lowering embeds or passes it), so the Array itself (JAX's gives its IR constant).

    >>> _array_mlir_constant_handler(np.float32(2), None)
    Array(2., dtype=float32)
    """
    return val if isinstance(val, ArrayImpl) else device_put(val)
