"""jxkernel._src.lax.lax, as jax._src.lax.lax: the module JAX's primitives guide imports its
`lax.add`, `lax.mul` and `lax.full_like` from. It is jxkernel.lax's operations and
primitives themselves (the same function objects), not copies.

    >>> from jxkernel._src.lax import lax
    >>> lax.add(1.0, lax.mul(2.0, 3.0))
    Array(7., dtype=float32, weak_type=True)
"""
from ....lax import *  # noqa: F401,F403
from ....lax import __all__  # noqa: F401
