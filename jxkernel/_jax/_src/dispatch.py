"""jxkernel._src.dispatch, as jax._src.dispatch for what libraries and JAX's tests reach for in
it.

`apply_primitive(prim, *args, **params)` runs a primitive compiled alone, as JAX's: what a
primitive's impl rule may be (`prim.def_impl(partial(apply_primitive, prim))`), so never the
impl rule itself.

`wait_for_tokens` is JAX's wait for the runtime tokens of ordered effects (JAX calls it at
exit; Equinox swaps it for a quieter version): `effects_barrier`. `runtime_tokens` is JAX's
per-thread record of the token the last program with each ordered effect of a library's gave
back, which the next such program takes (xla/effect_tokens.py; JAX's tests clear it).

    >>> from jxkernel import lax
    >>> apply_primitive(lax.add_p, np.float32(1), np.float32(2))
    Array(3., dtype=float32)
    >>> wait_for_tokens()
    >>> runtime_tokens.current_tokens, runtime_tokens.output_runtime_tokens
    ({}, {})
"""
import functools

import numpy as np  # noqa: F401  (the doctest's)

from ...xla.effect_tokens import effects_barrier as wait_for_tokens  # noqa: F401
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


# JAX's per-thread tokens of the last program with each ordered effect of a library's
# (xla/effect_tokens.py), which JAX's tests read and clear between tests
from ...xla.effect_tokens import RuntimeTokenSet, Token, runtime_tokens  # noqa: E402,F401
