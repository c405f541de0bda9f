"""The `threefry4x32` PRNG implementation, as JAX 0.10.2 defines it: keys of 4 uint32 words
hashed with Threefry-4x32 (20 rounds, Random123's rotations and key schedule), counters
laid out as [0, 0, high, low] for split and [high, low, 0, 0] for random bits.

    >>> jax.random.key_data(jax.random.key(0, impl="threefry4x32"))
    Array([2624366954, 3783175782, 4228967636, 1381410776], dtype=uint32)
"""
from __future__ import annotations

import math

import numpy as np

from .. import lax
from ..core.avals import get_aval
from ..transforms.jit import jit
from . import prng

u32 = np.dtype(np.uint32)
_ROTATIONS = ((10, 26), (11, 21), (13, 27), (23, 5), (6, 20), (17, 11), (25, 10), (18, 20))
_PARITY = np.uint32(0x1BD11BDA)


def _rotl(x, d):
    return lax.bitwise_or(lax.shift_left(x, np.uint32(d)),
                          lax.shift_right_logical(x, np.uint32(32 - d)))


def _mix(a, b, r):
    """One MIX of Threefry: a += b; b = rotl(b, r) ^ a."""
    a = lax.add(a, b)
    return a, lax.bitwise_xor(a, _rotl(b, r))


def threefry4x32_rounds(k0, k1, k2, k3, x0, x1, x2, x3):
    """20 rounds: even ones mix (0, 1), (2, 3), odd ones (0, 3), (2, 1); the key schedule
    (with k0 ^ k1 ^ k2 ^ k3 ^ parity as fifth word) is injected after every 4."""
    ks = (k0, k1, k2, k3, lax.bitwise_xor(lax.bitwise_xor(lax.bitwise_xor(k0, k1),
                                                          lax.bitwise_xor(k2, k3)), _PARITY))
    x = [lax.add(x0, k0), lax.add(x1, k1), lax.add(x2, k2), lax.add(x3, k3)]
    for rnd in range(20):
        r0, r1 = _ROTATIONS[rnd % 8]
        if rnd % 2 == 0:
            x[0], x[1] = _mix(x[0], x[1], r0)
            x[2], x[3] = _mix(x[2], x[3], r1)
        else:
            x[0], x[3] = _mix(x[0], x[3], r0)
            x[2], x[1] = _mix(x[2], x[1], r1)
        if rnd % 4 == 3:
            s = rnd // 4
            x = [lax.add(x[j], ks[(j + 1 + s) % 5]) for j in range(4)]
            x[3] = lax.add(x[3], np.uint32(s + 1))
    return x


threefry4x32_p = prng.hash_primitive("threefry4x32", threefry4x32_rounds, 4)
_ZERO = np.zeros((), u32)


def _seed(seed):
    # (threefry's seed halves [high, low], hashed as a key with the counter 0)
    high, low = prng.key_words(prng._seed_impl(seed))
    return prng.stacked(threefry4x32_p.bind(high, low, _ZERO, _ZERO, _ZERO, _ZERO, _ZERO, _ZERO),
                    0)


def _split(key, shape):
    hi, lo = prng.iota_2x32_shape(shape)
    zeros = lax.full(shape, 0, u32)
    return prng.stacked(threefry4x32_p.bind(*prng.key_words(key), zeros, zeros, hi, lo), len(shape))


def _fold_in(key, data):
    data = lax.convert_element_type(data, u32)
    return prng.stacked(threefry4x32_p.bind(*prng.key_words(key), _ZERO, _ZERO, _ZERO, data), 0)


def _random_bits(key, bit_width, shape):
    if math.prod(shape) > 2 ** 64:
        raise NotImplementedError("random bits array of size exceeding 2 ** 64")
    hi, lo = prng.iota_2x32_shape(shape)
    zeros = lax.full(shape, 0, u32)
    y0, y1, y2, y3 = threefry4x32_p.bind(*prng.key_words(key), hi, lo, zeros, zeros)
    dtype = prng.UINT_DTYPES[bit_width]
    if bit_width == 64:
        return prng.join_words(lax.bitwise_xor(y0, y2), lax.bitwise_xor(y1, y3))
    bits = lax.bitwise_xor(lax.bitwise_xor(y0, y1), lax.bitwise_xor(y2, y3))
    return bits if bit_width == 32 else lax.convert_element_type(bits, dtype)


def threefry4x32_random_bits(key, bit_width, shape):
    """`bit_width` random bits per element of `shape` from one threefry4x32 key."""
    aval = get_aval(key)
    if aval.shape != (4,) or aval.dtype != u32:
        raise TypeError("threefry4x32_random_bits got invalid prng key.")
    if bit_width not in (8, 16, 32, 64):
        raise TypeError("requires 8-, 16-, 32- or 64-bit field width.")
    return _random_bits(key, bit_width, tuple(shape))


threefry4x32_prng_impl = prng.PRNGImpl(
    key_shape=(4,), seed=jit(_seed, inline=True), split=_split,
    random_bits=threefry4x32_random_bits, fold_in=_fold_in, name="threefry4x32", tag="fry4")
