"""jxkernel._src.dispatch, as jax._src.dispatch for what libraries and JAX's tests reach for in
it.

`apply_primitive(prim, *args, **params)` runs a primitive compiled alone, as JAX's: what a
primitive's impl rule may be (`prim.def_impl(partial(apply_primitive, prim))`), so never the
impl rule itself.

`wait_for_tokens` is JAX's wait for the runtime tokens of ordered effects (JAX calls it at
exit; Equinox swaps it for a quieter version). jxkernel's programs with host callbacks finish
before their call returns, so it is `effects_barrier`: nothing is left pending. For the same
reason `runtime_tokens` (JAX's per-thread tokens of the last program with each ordered effect,
which JAX's tests clear between tests) holds none: an ordered effect's token never leaves the
program that made it, so `clear` has nothing to drop and `block_until_ready` is that barrier.

    >>> from jxkernel import lax
    >>> apply_primitive(lax.add_p, np.float32(1), np.float32(2))
    Array(3., dtype=float32)
    >>> wait_for_tokens()
    >>> runtime_tokens.current_tokens, runtime_tokens.output_runtime_tokens
    ({}, {})
"""
import functools
import threading

import numpy as np  # noqa: F401  (the doctest's)

from ...api.extras import effects_barrier as wait_for_tokens  # noqa: F401
# what jax.device_put binds on a traced value, and its per-leaf copy semantics (JAX's test
# harnesses bind it directly)
from ...lax.transfer import ArrayCopySemantics, device_put_p  # noqa: F401
from ...xla.dispatch import run_compiled


def apply_primitive(prim, *args, **params):
    """`prim` applied to `args`, compiled alone (not by its impl rule)."""
    return run_compiled(prim, args, params)


def simple_impl(prim) -> None:
    """Give `prim` the impl that runs it compiled alone (`apply_primitive`), as JAX's: a
    primitive of one's own with only an abstract eval and a lowering then runs eagerly."""
    prim.def_impl(functools.partial(apply_primitive, prim))


class RuntimeTokenSet(threading.local):
    """JAX's record of the runtime tokens ordered effects leave between programs: per effect
    (`current_tokens`) and per device (`output_runtime_tokens`). jxkernel threads an ordered
    effect's token inside its program only (xla/lowering.py's effect_token) and the program's
    callbacks are done when its call returns, so both stay empty."""

    def __init__(self):
        self.current_tokens = {}
        self.output_runtime_tokens = {}

    def clear(self) -> None:
        """Forget the tokens held (JAX's tests do so between tests)."""
        self.current_tokens = {}
        self.output_runtime_tokens = {}

    def block_until_ready(self) -> None:
        """Wait for every ordered effect started so far, then forget the tokens."""
        wait_for_tokens()
        self.clear()


runtime_tokens = RuntimeTokenSet()
