"""jxkernel.experimental, as jax.experimental: `io_callback`, for Python functions with
side effects called from traced code.

    >>> from jxkernel.experimental import io_callback
    >>> io_callback(lambda x: x + 1, jxkernel.ShapeDtypeStruct((), jnp.int32), 1)
    Array(2, dtype=int32)
"""
from ..lax.callbacks import io_callback  # noqa: F401
