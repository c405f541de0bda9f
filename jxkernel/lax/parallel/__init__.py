"""Collectives over a named axis: psum, pmean, pmax, pmin, all_gather, axis_index, and those
that move data between its members: ppermute (and pshuffle), all_to_all (and pswapaxes),
psum_scatter; plus axis_size.

    >>> xs = jnp.arange(3.)
    >>> jax.vmap(lambda x: x - lax.pmean(x, 'batch'), axis_name='batch')(xs)   # centre a batch
    Array([-1.,  0.,  1.], dtype=float32)
    >>> jax.vmap(lambda x: lax.ppermute(x, 'i', [(0, 1), (1, 2), (2, 0)]), axis_name='i')(xs)
    Array([2., 0., 1.], dtype=float32)

The axis is introduced by vmap with `axis_name=`, or by shard_map (and pmap, a jit of
shard_map) as a mesh axis. Under vmap a collective over that axis becomes an ordinary array
operation over the batch dimension; over a *different* (outer) axis it passes through with
the batch dimension kept; over several axes at once (the NumPy backend's shard_map batches
its body over each mesh axis in turn), every member's value is stacked over them in XLA's
group order and each member takes its part. In a shard_map body each lowers to the StableHLO
collective among the devices along its mesh axes (all_reduce, all_gather, collective_permute,
all_to_all, reduce_scatter), the groups given as partition ids.

One module per family, each primitive beside all its rules (as JAX keeps a primitive with its
rules), each importing only those listed before it:

- `_common.py`: what they all share: axis names, JAX's unbound-axis errors, device groups
  and the channel of a lowered collective, `axis_size`, `varying`
- `all_reduce.py`: psum, pmax, pmin, pmean; psum_invariant and pvary (each the other's
  transpose, for check_vma=True bodies) and `pcast`
- `axis_indices.py`: axis_index, each member's index under vmap, pargmax and pargmin
- `gather_scatter.py`: all_gather and psum_scatter (`reduce_scatter_p`), each the other's
  transpose, and every member's value stacked under vmap over several axes
- `permute.py`: ppermute, pshuffle, pbroadcast
- `alltoall.py`: all_to_all, pswapaxes
"""
from __future__ import annotations

from ._common import axis_size  # noqa: F401
from .all_reduce import (pcast, pmax, pmax_p, pmean, pmin, pmin_p, psum,  # noqa: F401
                         psum_invariant_p, psum_p)
from .axis_indices import axis_index, axis_index_p, pargmax, pargmin  # noqa: F401
from .gather_scatter import (all_gather, all_gather_p, psum_scatter,  # noqa: F401
                             reduce_scatter_p)
from .permute import pbroadcast, ppermute, ppermute_p, pshuffle  # noqa: F401
from .alltoall import all_to_all, all_to_all_p, pswapaxes  # noqa: F401

# The collectives answer at the package, as before it was split into modules (their reprs
# and pickles, and `help(lax.psum)`, name `jxkernel.lax.parallel`).
for _public in (axis_size, pcast, pmax, pmean, pmin, psum, axis_index, pargmax, pargmin,
                all_gather, psum_scatter, pbroadcast, ppermute, pshuffle, all_to_all, pswapaxes):
    _public.__module__ = __name__
del _public
