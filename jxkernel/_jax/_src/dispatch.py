"""jxkernel._src.dispatch, as jax._src.dispatch for what libraries reach for in it.

`wait_for_tokens` is JAX's wait for the runtime tokens of ordered effects (JAX calls it at
exit; Equinox swaps it for a quieter version). jxkernel's programs with host callbacks finish
before their call returns, so it is `effects_barrier`: nothing is left pending.

    >>> wait_for_tokens()
"""
from ...api.extras import effects_barrier as wait_for_tokens  # noqa: F401
