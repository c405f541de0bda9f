"""jxkernel.experimental.shard_map, as jax.experimental.shard_map: the older spelling of
`jax.shard_map`, with positional mesh and specs and `check_rep` for `check_vma`.

    >>> from jxkernel.experimental.shard_map import shard_map
    >>> from jxkernel.sharding import Mesh, PartitionSpec as P
    >>> mesh = Mesh(np.array(jax.devices()[:1]), ('x',))
    >>> shard_map(lambda a: a * 2, mesh, in_specs=P('x'), out_specs=P('x'))(jnp.ones(8)).shape
    (8,)
"""
from ...api.shard_map.call import _shard_map


def shard_map(f, mesh, in_specs, out_specs, check_rep=True):
    """`jax.shard_map(f, mesh=mesh, in_specs=..., out_specs=..., check_vma=check_rep)`."""
    return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                      axis_names=frozenset(), check_vma=check_rep)
