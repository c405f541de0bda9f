"""jxkernel._src.dispatch, as jax._src.dispatch for what libraries and JAX's tests reach for in
it.

`apply_primitive(prim, *args, **params)` runs a primitive compiled alone, as JAX's: what a
primitive's impl rule may be (`prim.def_impl(partial(apply_primitive, prim))`), so never the
impl rule itself.

`wait_for_tokens` is JAX's wait for the runtime tokens of ordered effects (JAX calls it at
exit; Equinox swaps it for a quieter version). jxkernel's programs with host callbacks finish
before their call returns, so it is `effects_barrier`: nothing is left pending.
`runtime_tokens` is JAX's set of those tokens (JAX's tests clear it after each test): in
jxkernel no call leaves one behind, so it stays empty.

    >>> from jxkernel import lax
    >>> apply_primitive(lax.add_p, np.float32(1), np.float32(2))
    Array(3., dtype=float32)
    >>> wait_for_tokens()
    >>> runtime_tokens.current_tokens, runtime_tokens.output_runtime_tokens
    ({}, {})
"""
import threading

import numpy as np  # noqa: F401  (the doctest's)

from ...api.extras import effects_barrier as wait_for_tokens  # noqa: F401
from ...xla.dispatch import run_compiled


def apply_primitive(prim, *args, **params):
    """`prim` applied to `args`, compiled alone (not by its impl rule)."""
    return run_compiled(prim, args, params)


class RuntimeTokenSet(threading.local):
    """JAX's per-thread runtime tokens of ordered effects: the token each effect's last
    dispatch returned (`current_tokens`) and each device's output token
    (`output_runtime_tokens`). JAX threads them from one call to the next so that ordered
    effects run in order; jxkernel's calls with effects finish before they return, so none is
    ever left to thread and both stay empty."""

    def __init__(self):
        self.current_tokens = {}
        self.output_runtime_tokens = {}

    def clear(self):
        self.current_tokens = {}
        self.output_runtime_tokens = {}

    def block_until_ready(self):
        wait_for_tokens()
        self.clear()


runtime_tokens = RuntimeTokenSet()
