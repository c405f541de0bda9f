"""The asynchronous collectives' start functions, as JAX keeps them in jax._src.lax.parallel
(`psum_start`, `all_gather_start`, `psum_scatter_start`, `all_to_all_start`, `ppermute_start`,
`pbroadcast_start`): each takes its collective's arguments and returns a `Future`, whose
`done()` gives what the collective gives.

    >>> f = jax.vmap(lambda x: psum_start(x, "i").done(), axis_name="i")
    >>> f(jnp.arange(3.0))
    Array([3., 3., 3.], dtype=float32)

jxkernel issues the synchronous collective at the start and `done()` hands back its value:
the values are JAX's, but the lowered program has the one StableHLO collective where JAX's
has it wrapped in a `stablehlo.async_start`/`async_done` pair (its future type), so the work
traced between start and done is not marked as overlapping it; XLA's scheduler still decides,
as for any synchronous collective.
"""
from __future__ import annotations

import functools

from ...core.avals import get_aval
from ...tree_util import tree_map
from .all_reduce import psum
from .alltoall import all_to_all
from .gather_scatter import all_gather, psum_scatter
from .permute import pbroadcast, ppermute


class Future:
    """A started collective: `done()` gives its result (any pytree of arrays)."""

    def __init__(self, value):
        self._value = value

    def done(self):
        return self._value

    def __repr__(self):
        return f"Future(type={tree_map(lambda v: get_aval(v).str_short(), self._value)})"


def _start(collective):
    @functools.wraps(collective)
    def start(*args, **kwargs):
        return Future(collective(*args, **kwargs))
    start.__name__ = start.__qualname__ = collective.__name__ + "_start"
    start.__doc__ = (f"Start `{collective.__name__}` (same arguments); its Future's `done()` "
                     f"gives the result.")
    return start


psum_start = _start(psum)
all_gather_start = _start(all_gather)
psum_scatter_start = _start(psum_scatter)
all_to_all_start = _start(all_to_all)
ppermute_start = _start(ppermute)
pbroadcast_start = _start(pbroadcast)
