"""The `rbg` and `unsafe_rbg` PRNG implementations, as JAX 0.10.2 defines them: keys of 4
uint32 words whose random bits come from XLA's RngBitGenerator (the backend's own generator:
Philox-4x32 on CPU and GPU), which is fast on accelerators but not promised stable across
backends or XLA versions.

- rbg derives keys with Threefry: each half of the key (2 words) is split or folded in as a
  threefry key, so its split and fold_in are threefry's on each half.
- unsafe_rbg derives keys with RngBitGenerator too: split takes every 10th of 10 * n drawn
  4-word blocks, fold_in XORs the key with the last block drawn from the data's rbg seed.

Both seed as [threefry key, threefry key] (`key(42, impl="rbg")` is [0, 42, 0, 42]).

    >>> jax.random.bits(jax.random.key(42, impl="rbg"), (3,))
    Array([2620864722, 2991908441,  282133475], dtype=uint32)
"""
from __future__ import annotations

import math

import numpy as np

from .. import lax
from ..lax.rng import rng_bit_generator
from ..transforms.jit import jit
from . import prng


def _rbg_seed(seed):
    half = prng._seed_impl(seed)
    return lax.concatenate([half, half], 0)


def _halves(key):
    return lax.slice(key, (0,), (2,)), lax.slice(key, (2,), (4,))


def _rbg_split(key, shape):
    # JAX vmaps threefry's split over the two halves and lays each new key out as
    # [split of half 0, split of half 1]: the same as splitting each half and concatenating
    first, second = (prng._threefry_split(h, shape) for h in _halves(key))
    return lax.concatenate([first, second], len(shape))


def _rbg_fold_in(key, data):
    first, second = (prng._threefry_fold_in(h, data) for h in _halves(key))
    return lax.concatenate([first, second], 0)


def _rbg_random_bits(key, bit_width, shape):
    _, bits = rng_bit_generator(key, shape, dtype=prng.UINT_DTYPES[bit_width])
    return bits


def _unsafe_rbg_split(key, shape):
    # 10 draws of RngBitGenerator treated as a hash: keep every 10th 4-word block
    num = math.prod(shape)
    _, blocks = rng_bit_generator(key, (10 * num, 4), dtype=np.uint32)
    kept = lax.slice(blocks, (0, 0), (10 * num, 4), (10, 1))
    return lax.reshape(kept, (*shape, 4))


def _unsafe_rbg_fold_in(key, data):
    _, blocks = rng_bit_generator(_rbg_seed(data), (10, 4), dtype=np.uint32)
    return lax.bitwise_xor(key, lax.reshape(lax.slice(blocks, (9, 0), (10, 4)), (4,)))


_seed = jit(_rbg_seed, inline=True)
rbg_prng_impl = prng.PRNGImpl(key_shape=(4,), seed=_seed, split=_rbg_split,
                              random_bits=_rbg_random_bits, fold_in=_rbg_fold_in,
                              name="rbg", tag="rbg")
unsafe_rbg_prng_impl = prng.PRNGImpl(key_shape=(4,), seed=_seed, split=_unsafe_rbg_split,
                                     random_bits=_rbg_random_bits, fold_in=_unsafe_rbg_fold_in,
                                     name="unsafe_rbg", tag="urbg")
