"""jxkernel._src.dispatch, as jax._src.dispatch for what libraries and JAX's tests reach for in
it.

`apply_primitive(prim, *args, **params)` runs a primitive compiled alone, as JAX's: what a
primitive's impl rule may be (`prim.def_impl(partial(apply_primitive, prim))`), so never the
impl rule itself.

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
from ...xla.dispatch import run_compiled


def apply_primitive(prim, *args, **params):
    """`prim` applied to `args`, compiled alone (not by its impl rule)."""
    return run_compiled(prim, args, params)
