"""jxkernel._src.dispatch, as jax._src.dispatch for what libraries and JAX's tests reach for in
it.

`apply_primitive(prim, *args, **params)` runs one primitive eagerly, as binding it outside
any transformation does (xla/dispatch.py: its impl rule, else compiled alone with XLA).

`wait_for_tokens` is JAX's wait for the runtime tokens of ordered effects (JAX calls it at
exit; Equinox swaps it for a quieter version). jxkernel's programs with host callbacks finish
before their call returns, so it is `effects_barrier`: nothing is left pending.

    >>> from jxkernel import lax
    >>> apply_primitive(lax.add_p, np.float32(1), np.float32(2))
    Array(3., dtype=float32)
    >>> wait_for_tokens()
"""
import numpy as np  # noqa: F401  (the doctest's)

from ...api.extras import effects_barrier as wait_for_tokens  # noqa: F401
from ...xla import dispatch as _dispatch


def apply_primitive(prim, *args, **params):
    """`prim` applied to `args` eagerly."""
    return _dispatch.apply_primitive(prim, list(args), params)
