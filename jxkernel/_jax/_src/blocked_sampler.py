"""jxkernel._src.blocked_sampler, as jax._src.blocked_sampler: random numbers drawn block by
block (a kernel's grid) that do not depend on the block size.

The array is cut into tiles of `tile_size` (a divisor of every block size used); the tile at
row-major position t of the tile grid gets `random.fold_in(global_key, t)`, and its values
are drawn with that key alone, so any blocking of the array draws the same values:

    >>> key = jax.random.key(0)
    >>> keys = blocked_fold_in(key, (4, 4), (2, 4), (2, 2), (1, 0))   # block row 1
    >>> sample_block(jax.random.uniform, keys, (2, 4), (2, 2)).shape
    (2, 4)
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence

from ... import numpy as jnp
from ... import random


def _tile_index(block_index, block_tiles, total_tiles, tile_in_block):
    """The row-major position, in the whole array's grid of tiles, of the tile at
    `tile_in_block` of block `block_index` (ints, or traced scalars: a kernel's grid index)."""
    index, stride = 0, 1
    for axis in reversed(range(len(block_index))):
        index = index + (block_index[axis] * block_tiles[axis] + tile_in_block[axis]) * stride
        stride *= total_tiles[axis]
    return index


def blocked_fold_in(global_key, total_size: Sequence[int], block_size: Sequence[int],
                    tile_size: Sequence[int], block_index: Sequence) -> list:
    """The keys of the tiles of block `block_index`, as nested lists (one level per axis,
    `block_size // tile_size` entries each): each `fold_in(global_key, t)`, t the tile's
    row-major position in the grid of `ceil(total_size / tile_size)` tiles."""
    block_tiles = [b // t for b, t in zip(block_size, tile_size)]
    total_tiles = [-(-n // t) for n, t in zip(total_size, tile_size)]   # the last may be cut

    def keys(prefix):
        if len(prefix) == len(block_tiles):
            return random.fold_in(global_key, _tile_index(block_index, block_tiles,
                                                          total_tiles, prefix))
        return [keys(prefix + (i,)) for i in range(block_tiles[len(prefix)])]
    return keys(())


def sample_block(sampler_fn, keys: list, block_size: Sequence[int], tile_size: Sequence[int],
                 *args, **kwargs):
    """One block's values: `sampler_fn(key, *args, shape=tile_size, **kwargs)` for each
    tile's key from `blocked_fold_in`, the tiles laid out as the block's grid."""
    counts = [b // t for b, t in zip(block_size, tile_size)]
    tiles = {}
    for at in itertools.product(*map(range, counts)):
        key = keys
        for i in at:
            key = key[i]
        tiles[at] = sampler_fn(key, *args, shape=tuple(tile_size), **kwargs)

    def assemble(prefix):
        if len(prefix) == len(counts):
            return tiles[prefix]
        axis = len(prefix)
        return jnp.concatenate([assemble(prefix + (i,)) for i in range(counts[axis])], axis)
    return assemble(())
