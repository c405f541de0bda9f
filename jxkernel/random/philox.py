"""The `philox2x32` and `philox4x32` PRNG implementations, as JAX 0.10.2 defines them: the
Philox hashes of Random123 (10 rounds of multiply-high/low and a Weyl-bumped key), with
keys of 1 uint32 word (philox2x32) or 2 (philox4x32). Seeds hash the seed's two 32-bit
halves as counters; split hashes each key's flat index, random bits each element's.

    >>> jax.random.key_data(jax.random.key(0, impl="philox4x32"))
    Array([1713891541, 3781805453], dtype=uint32)
"""
from __future__ import annotations

import math

import numpy as np

from .. import lax
from ..core.avals import get_aval
from ..transforms.jit import jit
from . import prng

u32 = np.dtype(np.uint32)
_ZERO = np.zeros((), u32)
_WEYL = (np.uint32(0x9E3779B9), np.uint32(0xBB67AE85))   # the key's bump per round


def _mulhilo(m, x):
    return lax.mul(m, x), lax.mulhi(m, x)


def philox2x32_rounds(k0, x0, x1):
    """10 rounds of Philox-2x32: (x0, x1) <- (hi(M x0) ^ x1 ^ k, lo(M x0)), k bumped."""
    for rnd in range(10):
        if rnd:
            k0 = lax.add(k0, _WEYL[0])
        lo, hi = _mulhilo(np.uint32(0xD256D193), x0)
        x0, x1 = lax.bitwise_xor(lax.bitwise_xor(hi, x1), k0), lo
    return [x0, x1]


def philox4x32_rounds(k0, k1, x0, x1, x2, x3):
    """10 rounds of Philox-4x32: (x0..x3) <- (hi1 ^ x1 ^ k0, lo1, hi0 ^ x3 ^ k1, lo0) with
    lo0, hi0 of M0 x0 and lo1, hi1 of M1 x2; both key words bumped."""
    for rnd in range(10):
        if rnd:
            k0, k1 = lax.add(k0, _WEYL[0]), lax.add(k1, _WEYL[1])
        lo0, hi0 = _mulhilo(np.uint32(0xD2511F53), x0)
        lo1, hi1 = _mulhilo(np.uint32(0xCD9E8D57), x2)
        x0, x1, x2, x3 = (lax.bitwise_xor(lax.bitwise_xor(hi1, x1), k0), lo1,
                          lax.bitwise_xor(lax.bitwise_xor(hi0, x3), k1), lo0)
    return [x0, x1, x2, x3]


philox2x32_p = prng.hash_primitive("philox2x32", philox2x32_rounds, 2)
philox4x32_p = prng.hash_primitive("philox4x32", philox4x32_rounds, 4)


def _bits(words, bit_width, high_low):
    """Random bits from a hash's result words: 64 bits join the words `high_low` names,
    narrower ones are the XOR of them all (cut to the width)."""
    dtype = prng.UINT_DTYPES[bit_width]
    if bit_width == 64:
        return prng.join_words(*(words[i] for i in high_low))
    bits = words[0]
    for w in words[1:]:
        bits = lax.bitwise_xor(bits, w)
    return bits if bit_width == 32 else lax.convert_element_type(bits, dtype)


# ------------------------------------------------------------------ philox2x32: 1-word keys
def _seed2(seed):
    high, low = prng.key_words(prng._seed_impl(seed))
    return prng.stacked(philox2x32_p.bind(_ZERO, high, low)[:1], 0)


def _split2(key, shape):
    hi, lo = prng.iota_2x32_shape(shape)
    return prng.stacked(philox2x32_p.bind(*prng.key_words(key), hi, lo)[:1], len(shape))


def _fold_in2(key, data):
    return prng.stacked(philox2x32_p.bind(*prng.key_words(key), _ZERO,
                                      lax.convert_element_type(data, u32))[:1], 0)


def philox2x32_random_bits(key, bit_width, shape):
    """`bit_width` random bits per element of `shape` from one philox2x32 key."""
    _check("philox2x32", key, (1,), bit_width, shape)
    hi, lo = prng.iota_2x32_shape(tuple(shape))
    return _bits(philox2x32_p.bind(*prng.key_words(key), hi, lo), bit_width, (0, 1))


# ------------------------------------------------------------------ philox4x32: 2-word keys
def _seed4(seed):
    high, low = prng.key_words(prng._seed_impl(seed))
    return prng.stacked(philox4x32_p.bind(_ZERO, _ZERO, high, low, _ZERO, _ZERO)[:2], 0)


def _split4(key, shape):
    hi, lo = prng.iota_2x32_shape(shape)
    zeros = lax.full(shape, 0, u32)
    words = philox4x32_p.bind(*prng.key_words(key), zeros, zeros, hi, lo)
    return prng.stacked(words[:2], len(shape))


def _fold_in4(key, data):
    return prng.stacked(philox4x32_p.bind(*prng.key_words(key), _ZERO, _ZERO, _ZERO,
                                      lax.convert_element_type(data, u32))[:2], 0)


def philox4x32_random_bits(key, bit_width, shape):
    """`bit_width` random bits per element of `shape` from one philox4x32 key."""
    _check("philox4x32", key, (2,), bit_width, shape)
    hi, lo = prng.iota_2x32_shape(tuple(shape))
    zeros = lax.full(tuple(shape), 0, u32)
    return _bits(philox4x32_p.bind(*prng.key_words(key), hi, lo, zeros, zeros), bit_width, (0, 1))


def _check(name, key, key_shape, bit_width, shape):
    """JAX's checks of a random_bits call."""
    aval = get_aval(key)
    if aval.shape != key_shape or aval.dtype != u32:
        raise TypeError(f"{name}_random_bits got invalid prng key.")
    if bit_width not in (8, 16, 32, 64):
        raise TypeError("requires 8-, 16-, 32- or 64-bit field width.")
    if math.prod(shape) > 2 ** 64:
        raise NotImplementedError("random bits array of size exceeding 2 ** 64")


philox2x32_prng_impl = prng.PRNGImpl(
    key_shape=(1,), seed=jit(_seed2, inline=True), split=_split2,
    random_bits=philox2x32_random_bits, fold_in=_fold_in2, name="philox2x32", tag="phx2")
philox4x32_prng_impl = prng.PRNGImpl(
    key_shape=(2,), seed=jit(_seed4, inline=True), split=_split4,
    random_bits=philox4x32_random_bits, fold_in=_fold_in4, name="philox4x32", tag="phx4")
