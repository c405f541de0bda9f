"""Questions asked of XLA's HloSharding (jaxlib's own class, `xla_client.HloSharding`): how
it splits each dimension, whether it is replicated, each device's index (GSPMDSharding's
devices_indices_map); `jax._src.op_shardings` in JAX, whose sharding tests ask them of the
shardings a program's lowering or an array reports.

    >>> hs = xc.HloSharding.from_string("{devices=[2,1,2]<=[4] last_tile_dim_replicate}")
    >>> get_num_ways_dim_sharded(hs), is_hlo_sharding_replicated(hs)
    (([2, 1], 2), False)
    >>> op_sharding_to_indices(hs, (4, 3), 4)[2]
    (slice(2, 4, None), slice(None, None, None))
"""
import itertools

from .client import xc


def get_num_ways_dim_sharded(hlo_sharding) -> tuple:
    """(how many pieces each dimension is split into, how many copies of each piece): a
    replicated sharding gives ([], 1), as JAX's."""
    if hlo_sharding.is_manual():
        raise ValueError(f"get_num_ways_dim_sharded: {hlo_sharding} is manual (inside a "
                         f"shard_map), which splits no dimension")
    if hlo_sharding.is_replicated() or hlo_sharding.is_unreduced():
        return [], 1
    tiles = list(hlo_sharding.tile_assignment_dimensions())
    kinds = list(hlo_sharding.subgroup_types())
    replicated, unreduced = xc.OpSharding.Type.REPLICATED, xc.OpSharding.Type.UNREDUCED
    if kinds and set(kinds) <= {replicated, unreduced}:
        # the trailing subgroup dimensions: the replicated one holds copies, an unreduced one
        # holds partial sums (one copy each)
        copies = tiles[len(tiles) - len(kinds) + kinds.index(replicated)] \
            if replicated in kinds else 1
        return tiles[:len(tiles) - len(kinds)], copies
    if hlo_sharding.replicate_on_last_tile_dim():
        return tiles[:-1], tiles[-1]
    if kinds:
        raise NotImplementedError(f"get_num_ways_dim_sharded: {hlo_sharding} has subgroups "
                                  f"{kinds}, which split no array dimension")
    return tiles, 1


def is_hlo_sharding_replicated(hlo_sharding) -> bool:
    """Whether every device holds all of the array (one device always does)."""
    return hlo_sharding.num_devices() == 1 or hlo_sharding.is_replicated()


def are_hlo_shardings_equal(a, b) -> bool:
    """Whether two HloShardings lay an array out alike (any two replicated ones do)."""
    if a is b or (is_hlo_sharding_replicated(a) and is_hlo_sharding_replicated(b)):
        return True
    return a == b


def op_sharding_to_indices(hlo_sharding, shape, num_devices: int) -> tuple:
    """Per device (by its place in the sharding's device list), its index (a tuple of
    slices) into an array of `shape` laid out as `hlo_sharding` says."""
    everything = (slice(None),) * len(shape)
    if is_hlo_sharding_replicated(hlo_sharding):
        return (everything,) * num_devices
    tiles, copies = get_num_ways_dim_sharded(hlo_sharding)
    if len(tiles) != len(shape):
        raise ValueError(f"op_sharding_to_indices: {hlo_sharding} splits {len(tiles)} "
                         f"dimensions, but the shape {tuple(shape)} has {len(shape)}")
    per_dim = []
    for size, n in zip(shape, tiles):
        if size % n:
            raise ValueError(f"op_sharding_to_indices: dimension of size {size} of "
                             f"{tuple(shape)} does not split into {n} equal pieces")
        step = size // n
        per_dim.append([slice(None)] if n == 1 else
                       [slice(i * step, (i + 1) * step) for i in range(n)])
    indices = [everything] * num_devices
    devices = iter(hlo_sharding.tile_assignment_devices())
    for block in itertools.product(*per_dim):   # tile order; the copies of a block are adjacent
        for _ in range(copies):
            indices[next(devices)] = block
    return tuple(indices)
