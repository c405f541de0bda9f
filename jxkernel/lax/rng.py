"""XLA's own random-number operations: rng_bit_generator (stateless bits from a key, with the
platform's algorithm or Threefry or Philox) and rng_uniform (stateful, the compiled program's
own seed). `jax.random` uses neither by default; they are for code that asks for XLA's
generators by name.

    >>> key = jnp.array([1, 2, 3, 4], jnp.uint32)
    >>> new_key, bits = lax.rng_bit_generator(key, (2,), algorithm=lax.RandomAlgorithm.RNG_THREE_FRY)
    >>> bits
    Array([1576285164, 2249660814], dtype=uint32)
"""
from __future__ import annotations

import enum

import numpy as np

from ..core import dtypes
from ..core.avals import ShapedArray, typed_sharding
from ..core.sharding_types import on_context_mesh
from ..core.symbolic import is_symbolic
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                              lowering_rules, numpy_rules, sharding_typing_rules)
from ..transforms import ad_util as ad
from ..transforms import batch_util as bu
from ..xla import stablehlo as hlo
from .shapes import canonicalize_shape
from .sharding import canonicalize_sharding
from .slicing import dynamic_update_index_in_dim


class RandomAlgorithm(enum.IntEnum):
    """Which algorithm rng_bit_generator uses."""
    RNG_DEFAULT = 0      # the platform's (Philox on CPU and GPU)
    RNG_THREE_FRY = 1    # Threefry-2x32
    RNG_PHILOX = 2       # Philox-4x32

    def __str__(self):
        return self.name


# ------------------------------------------------------------------ rng_bit_generator
rng_bit_generator_p = Primitive("rng_bit_generator", multiple_results=True)
_BITS_DTYPES = (dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64)


def _rng_bit_generator_abstract_eval(key, *, shape, dtype, algorithm, out_sharding=None):
    if not (key.shape == (4,) and key.dtype == dtypes.uint32
            or key.shape == (2,) and key.dtype == dtypes.uint64):
        raise TypeError(f"rng_bit_generator: the key must be uint32[4] (or uint64[2]), got "
                        f"{key.str_short(True)}")
    return [ShapedArray(key.shape, key.dtype, key.weak_type), ShapedArray(shape, dtype)]


def _rng_bit_generator_lowering(ctx, key, *, shape, dtype, algorithm, out_sharding=None):
    # XLA's RngBitGenerator takes a u64[2] state: a u32[4] key (what x32 mode can hold) is
    # bitcast to it and back, as JAX does
    key_aval = ctx.avals_in[0]
    u64_key = hlo.tensor_type((2,), dtypes.uint64)
    if key_aval.dtype == dtypes.uint32:
        key = ctx.op1("stablehlo.reshape", [key],
                      result_type=hlo.tensor_type((2, 2), dtypes.uint32))
        key = ctx.op1("stablehlo.bitcast_convert", [key], result_type=u64_key)
    rng_algorithm = f"#stablehlo<rng_algorithm {_ALGORITHM_NAMES[algorithm]}>"
    if any(map(is_symbolic, shape)):
        # jax.export with symbolic sizes: JAX's custom call with the shape as an operand
        # (shape refinement makes it a rng_bit_generator)
        new_key, bits = ctx.op("stablehlo.custom_call", [
            key, ctx.module_ctx.symbolic.shape(ctx.block, shape)], {
            "call_target_name": '"stablehlo.dynamic_rng_bit_generator"',
            "api_version": "2 : i32", "rng_algorithm": rng_algorithm},
            result_types=[u64_key, hlo.tensor_type(shape, dtype)])
    else:
        new_key, bits = ctx.op("stablehlo.rng_bit_generator", [key], {
            "rng_algorithm": rng_algorithm}, result_types=[u64_key, hlo.tensor_type(shape, dtype)])
    if key_aval.dtype == dtypes.uint32:
        new_key = ctx.op1("stablehlo.bitcast_convert", [new_key],
                          result_type=hlo.tensor_type((2, 2), dtypes.uint32))
        new_key = ctx.op1("stablehlo.reshape", [new_key], result_type=hlo.aval_type(key_aval))
    return [new_key, bits]


_ALGORITHM_NAMES = {RandomAlgorithm.RNG_DEFAULT: "DEFAULT",
                    RandomAlgorithm.RNG_THREE_FRY: "THREE_FRY",
                    RandomAlgorithm.RNG_PHILOX: "PHILOX"}


def _rng_bit_generator_batching(vals, dims, *, shape, dtype, algorithm, out_sharding=None):
    # JAX's rule, kept for its numbers: the first key alone draws the whole batch's bits
    # (shape (batch, *shape)), and only it is replaced by the new key
    (keys,), (d,) = vals, dims
    keys = bu.moveaxis(keys, d, 0)
    new_key, bits = rng_bit_generator_p.bind(
        keys[0], shape=(bu.shape(keys)[0],) + shape, dtype=dtype, algorithm=algorithm,
        out_sharding=out_sharding)
    return [dynamic_update_index_in_dim(keys, new_key, 0, 0), bits], [0, 0]


# ------------------------------------------------------------------ the same bits in NumPy
# XLA's bit generators (xla/hlo/builder/lib/prng.cc, and rng_bit_generator_expander.cc for how
# the u64[2] state splits into key and counter) in NumPy's wrapping uint32/uint64 arithmetic.
_U32, _U64 = np.dtype(np.uint32), np.dtype(np.uint64)
_THREEFRY_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def threefry2x32_numpy(k1, k2, x1, x2):
    """Threefry-2x32 (20 rounds) keyed by (k1, k2) on the counter pairs (x1, x2), uint32
    arrays broadcasting: jax.random's hash and XLA's ThreeFry generator alike."""
    shape = np.broadcast_shapes(np.shape(k1), np.shape(k2), np.shape(x1), np.shape(x2))
    ks = (k1, k2, k1 ^ k2 ^ np.uint32(0x1BD11BDA))
    x = [x1 + ks[0], x2 + ks[1]]
    for i in range(5):
        for r in _THREEFRY_ROTATIONS[i % 2]:
            x0 = x[0] + x[1]
            x = [x0, x0 ^ ((x[1] << np.uint32(r)) | (x[1] >> np.uint32(32 - r)))]
        x = [x[0] + ks[(i + 1) % 3], x[1] + ks[(i + 2) % 3] + np.uint32(i + 1)]
    return [np.broadcast_to(y, shape) for y in x]


def _halves(u64):
    return [u64.astype(_U32), (u64 >> np.uint64(32)).astype(_U32)]


def _joined(lo, hi):
    return lo.astype(_U64) | (hi.astype(_U64) << np.uint64(32))


def _threefry_bits(key, counter, shape, bits):
    """XLA's ThreeFryBitGenerator: counter + the row-major index of each element hashed with
    the key; 32-bit results hash half the elements and interleave the two words along the
    first even (else the longest) dimension."""
    def hashed(shape):
        index = np.arange(int(np.prod(shape)), dtype=_U64).reshape(shape)
        return threefry2x32_numpy(*_halves(key), *_halves(counter + index)), \
            counter + np.uint64(index.size)
    if bits == 64:
        (lo, hi), new = hashed(shape)
        return _joined(lo, hi), new
    if not shape:
        (word, _), new = hashed((1,))
        return word.reshape(()), new
    split = next((i for i, d in enumerate(shape) if d % 2 == 0),
                 max(range(len(shape)), key=lambda i: (shape[i], -i)))
    half = shape[:split] + (-(-shape[split] // 2),) + shape[split + 1:]
    words, new = hashed(half)
    both = np.stack(words, split + 1).reshape(
        shape[:split] + (2 * half[split],) + shape[split + 1:])
    return both[tuple(slice(0, d) for d in shape)], new


def _philox4x32(x, k0, k1):
    """Philox-4x32, 10 rounds, on the counters x (four uint32 arrays) with key (k0, k1)."""
    for _ in range(10):
        p0 = x[0].astype(_U64) * np.uint64(0xD2511F53)
        p1 = x[2].astype(_U64) * np.uint64(0xCD9E8D57)
        x = [_halves(p1)[1] ^ x[1] ^ k0, p1.astype(_U32), _halves(p0)[1] ^ x[3] ^ k1,
             p0.astype(_U32)]
        k0, k1 = k0 + np.uint32(0x9E3779B9), k1 + np.uint32(0xBB67AE85)
    return x


def _philox_bits(key, counter_lo, counter_hi, shape, bits):
    """XLA's PhiloxBitGenerator: the 128-bit counter + i for each group of four words (two
    64-bit ones), the groups' words laid out one after another."""
    size = int(np.prod(shape))
    n = -(-size * (2 if bits == 64 else 1) // 4)
    lo = counter_lo + np.arange(n, dtype=_U64)
    hi = counter_hi + (lo < counter_lo).astype(_U64)
    words = _philox4x32([*_halves(lo), *_halves(hi)], *_halves(key))
    if bits == 64:
        words = [_joined(words[0], words[1]), _joined(words[2], words[3])]
    out = np.stack(words, 1).reshape(-1)[:size].reshape(shape)
    new_lo = counter_lo + np.uint64(n)
    return out, new_lo, counter_hi + (new_lo < counter_lo).astype(_U64)


def _rng_bit_generator_numpy(key, *, shape, dtype, algorithm, out_sharding=None):
    """The u64[2] state (a u32[4] key read as two little-endian u64s): word 0 the key, word 1
    the counter (Philox on CPU, the default, takes the pair reversed as its 128-bit counter
    and keeps only the new low word). Bits narrower than 32 are 32-bit draws truncated."""
    dtype = np.dtype(dtype)
    state = key.view(_U64) if key.dtype == _U32 else key
    bits = 64 if dtype.itemsize == 8 else 32
    if algorithm == RandomAlgorithm.RNG_THREE_FRY:
        out, counter = _threefry_bits(state[0], state[1], tuple(shape), bits)
    else:
        out, counter, _ = _philox_bits(state[0], state[1], state[0], tuple(shape), bits)
    new_state = np.stack([state[0], counter])
    return [new_state.view(key.dtype) if key.dtype == _U32 else new_state, out.astype(dtype)]


abstract_eval_rules[rng_bit_generator_p] = _rng_bit_generator_abstract_eval
numpy_rules[rng_bit_generator_p] = _rng_bit_generator_numpy
lowering_rules[rng_bit_generator_p] = _rng_bit_generator_lowering
ad.defjvp_zero(rng_bit_generator_p)       # integer bits: nothing to differentiate
batching_rules[rng_bit_generator_p] = _rng_bit_generator_batching


def _rng_bit_generator_typing(in_avals, params, out_avals):
    """JAX's sharding rule: the new key typed as the key, the bits as out_sharding says
    (given none, unsplit over the mesh in context, as JAX's get_cur_mesh_sharding())."""
    key, bits = out_avals
    given = params["out_sharding"]
    return [key.update(sharding=in_avals[0].split),
            on_context_mesh(rng_bit_generator_p, bits) if given is None else
            bits.update(sharding=typed_sharding(given, len(bits.shape)))]


sharding_typing_rules[rng_bit_generator_p] = _rng_bit_generator_typing

# ------------------------------------------------------------------ rng_uniform
rng_uniform_p = Primitive("rng_uniform")


def _rng_uniform_abstract_eval(a, b, *, shape):
    if a.dtype != b.dtype:
        raise ValueError(f"Arguments to rng_uniform must have identical dtypes, got {a.dtype} "
                         f"and {b.dtype}.")
    if a.shape != () or b.shape != ():
        raise ValueError(f"Arguments to rng_uniform must be scalars; got shapes {a.shape} and "
                         f"{b.shape}.")
    return ShapedArray(shape, a.dtype, a.weak_type and b.weak_type)


def _rng_uniform_lowering(ctx, a, b, *, shape):
    dims = ctx.constant(np.array(shape, np.int64))
    return ctx.op1("stablehlo.rng", [a, b, dims],
                   {"rng_distribution": "#stablehlo<rng_distribution UNIFORM>"})


def _rng_uniform_jvp(primals, tangents, *, shape):
    raise NotImplementedError("Differentiation rule for 'rng_uniform' not implemented")


def _rng_uniform_batching(vals, dims, *, shape):
    # the draws of different batch members are independent anyway: one draw of the whole
    # batch's shape, from scalars bounds only (per-member bounds have no XLA operation)
    size = bu.axis_size_of(vals, dims)
    if any(d is not bu.not_mapped for d in dims):
        raise NotImplementedError("rng_uniform under vmap needs unbatched bounds a and b")
    return rng_uniform_p.bind(*vals, shape=(size,) + shape), 0


_UNIFORM = np.random.default_rng()      # NumPy's stateful stream, as XLA's program seed is


def _rng_uniform_numpy(a, b, *, shape):
    """Draws in [a, b) from NumPy's generator: XLA's own stream has no reproducible bits to
    match (a float that rounds up to b is moved just below it)."""
    if dtypes.is_int(a.dtype):
        return _UNIFORM.integers(a, b, shape, dtype=a.dtype)
    out = (a + (b - a) * _UNIFORM.random(shape)).astype(a.dtype)
    return np.where(out < b, out, np.nextafter(b, a)).astype(a.dtype)


abstract_eval_rules[rng_uniform_p] = _rng_uniform_abstract_eval
numpy_rules[rng_uniform_p] = _rng_uniform_numpy
lowering_rules[rng_uniform_p] = _rng_uniform_lowering
jvp_rules[rng_uniform_p] = _rng_uniform_jvp
batching_rules[rng_uniform_p] = _rng_uniform_batching


# ------------------------------------------------------------------ the functions users call
def rng_bit_generator(key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT, *,
                      out_sharding=None):
    """(new key, random bits of `shape` and unsigned `dtype`) from a uint32[4] `key`, by
    XLA's RngBitGenerator with `algorithm`. Stateless: the same key gives the same bits."""
    shape = canonicalize_shape(shape)
    dtype = dtypes.canonicalize_user_dtype(dtype, "rng_bit_generator")
    if dtype not in _BITS_DTYPES:
        raise TypeError(f"rng_bit_generator: unsupported dtype {dtype}")
    out_sharding = canonicalize_sharding(out_sharding, "rng_bit_generator")
    return tuple(rng_bit_generator_p.bind(key, shape=shape, dtype=dtype,
                                          algorithm=RandomAlgorithm(algorithm),
                                          out_sharding=out_sharding))


def rng_uniform(a, b, shape):
    """Uniform random numbers in [a, b) from XLA's stateful generator (seeded per compiled
    program, so not reproducible as jax.random is); `a` and `b` are scalars of one dtype."""
    return rng_uniform_p.bind(a, b, shape=canonicalize_shape(shape))


__all__ = ["RandomAlgorithm", "rng_bit_generator", "rng_bit_generator_p", "rng_uniform",
           "rng_uniform_p"]
