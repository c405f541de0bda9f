"""Threefry-2x32, JAX's default PRNG: the `threefry2x32` and `iota_2x32_shape` primitives
and, on top of them, key derivation (seed, split, fold_in) and random bits exactly as JAX
0.10.2 computes them with `jax_threefry_partitionable=True` (its default), or, set False,
as its original scheme does (split and random bits hash the counters 0, 1, 2, ... laid flat).

A key is the pair of uint32 words a Threefry hash is keyed with. Every operation is a
hash of counters: `split(key, n)` hashes the counters 0..n-1, `random_bits(key, shape)`
hashes the flat index of every element, so results do not depend on jit, vmap or devices.

    >>> threefry_random_bits(threefry_seed(np.int32(0)), 32, (3,))
    Array([4070199207, 4202968722, 1427181096], dtype=uint32)
"""
from __future__ import annotations

import math
from typing import Callable, NamedTuple

import numpy as np

from .. import lax
from ..core import dtypes, sharding_types
from ..core.config import config
from ..core.avals import ShapedArray, get_aval
from ..core.symbolic import is_symbolic
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, lowering_rules,
                              numpy_rules, sharding_rules)
from ..transforms import batch_util as bu
from ..lax import _lowering as hl
from ..transforms.ad_util import defjvp_zero
from ..lax._rules import broadcast_shapes
from ..lax.rng import threefry2x32_numpy
from ..transforms.jit import jit
from ..xla import stablehlo as hlo

u32 = np.dtype(np.uint32)
UINT_DTYPES = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: u32, 64: np.dtype(np.uint64)}

# ------------------------------------------------------------------ threefry2x32
# threefry2x32(k1, k2, x1, x2) -> (y1, y2): the Threefry-2x32 block cipher (20 rounds,
# Salmon et al. 2011, "Parallel random numbers: as easy as 1, 2, 3") keyed by (k1, k2)
# applied to the counter pairs (x1, x2). Elementwise, with lax's broadcasting of rank-0
# operands and size-1 dims.
threefry2x32_p = Primitive("threefry2x32", multiple_results=True)


def _hash_abstract_eval(name, n_out):
    """uint32 operands, broadcasting as lax's elementwise ops; `n_out` results of their shape."""
    def abstract_eval(*args):
        if any(a.dtype != u32 for a in args):
            raise TypeError(f"Arguments to {name} must have uint32 type, got "
                            f"{', '.join(a.str_short(True) for a in args)}")
        return [ShapedArray(broadcast_shapes(name, *(a.shape for a in args)), u32)] * n_out
    return abstract_eval


_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def _rotate_left(x, d):
    return lax.bitwise_or(lax.shift_left(x, d),
                          lax.shift_right_logical(x, lax.sub(np.uint32(32), d)))


def _round(x, r):
    x0 = lax.add(x[0], x[1])
    return [x0, lax.bitwise_xor(x0, _rotate_left(x[1], r))]


def threefry2x32_rounds(k1, k2, x1, x2):
    """The 20 rounds, unrolled, in uint32 lax ops: after every 4 rounds the key schedule
    ks[i+1], ks[i+2] + i + 1 is injected."""
    ks = (k1, k2, lax.bitwise_xor(lax.bitwise_xor(k1, k2), np.uint32(0x1BD11BDA)))
    x = [lax.add(x1, ks[0]), lax.add(x2, ks[1])]
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x = _round(x, np.uint32(r))
        x = [lax.add(x[0], ks[(i + 1) % 3]),
             lax.add(lax.add(x[1], ks[(i + 2) % 3]), np.uint32(i + 1))]
    return x


def threefry2x32_rolled(k1, k2, x1, x2):
    """The same rounds as a 5-iteration while loop (4 rounds and an injection each), as JAX
    lowers it on CPU: the unrolled form takes LLVM ~10x longer to compile there."""
    shape = broadcast_shapes("threefry2x32", *(get_aval(a).shape for a in (k1, k2, x1, x2)))
    key_shape = broadcast_shapes("threefry2x32", get_aval(k1).shape, get_aval(k2).shape)
    full = lambda v, s: v if get_aval(v).shape == s else lax.broadcast_in_dim(
        v, s, tuple(range(len(s) - len(get_aval(v).shape), len(s))))
    k1, k2 = full(k1, key_shape), full(k2, key_shape)     # the carry must keep its shapes
    ks2 = lax.bitwise_xor(lax.bitwise_xor(k1, k2), np.uint32(0x1BD11BDA))
    x = [full(lax.add(x1, k1), shape), full(lax.add(x2, k2), shape)]

    def body(state):
        i, x0, x1, ka, kb, kc = state
        even = lax.eq(lax.rem(i, np.uint32(2)), np.uint32(0))
        x = [x0, x1]
        for ra, rb in zip(*_ROTATIONS):
            x = _round(x, lax.select(even, np.uint32(ra), np.uint32(rb)))
        i = lax.add(i, np.uint32(1))
        return i, lax.add(x[0], ka), lax.add(lax.add(x[1], kb), i), kb, kc, ka

    out = lax.while_loop(lambda s: lax.lt(s[0], np.uint32(5)), body,
                         (np.uint32(0), x[0], x[1], k2, ks2, k1))
    return [out[1], out[2]]


def _threefry2x32_lowering(ctx, k1, k2, x1, x2):
    # emitted once per module as a private function (as JAX does), then called
    rounds = threefry2x32_rolled if ctx.platform == "cpu" else threefry2x32_rounds
    jaxpr = hl._traced(rounds, True, tuple(ctx.avals_in), ())
    return ctx.call_jaxpr(jaxpr, [k1, k2, x1, x2], "threefry2x32")


def _hash_batching(prim):
    """Broadcasting, for a hash of several uint32 results: batch dims go first; unbatched
    arrays get a size-1 leading dim and batched scalars among arrays become (B, 1, ..., 1)."""
    def batch(vals, dims):
        ranks = [bu.ndim(x) - (d is not bu.not_mapped) for x, d in zip(vals, dims)]
        rank = max(ranks)
        moved = []
        for x, d, r in zip(vals, dims, ranks):
            if d is bu.not_mapped:
                x = lax.reshape(x, (1,) + bu.shape(x)) if r else x
            else:
                x = bu.moveaxis(x, d, 0)
                x = lax.reshape(x, bu.shape(x)[:1] + (1,) * rank) if r < rank else x
            moved.append(x)
        outs = prim.bind(*moved)
        return outs, [0] * len(outs)
    return batch


abstract_eval_rules[threefry2x32_p] = _hash_abstract_eval("threefry2x32", 2)
# its results split as its operands broadcast (JAX's broadcasting_sharding_rule)
sharding_rules[threefry2x32_p] = sharding_types.broadcasting_results_rule
numpy_rules[threefry2x32_p] = threefry2x32_numpy      # the same rounds in NumPy's uint32
lowering_rules[threefry2x32_p] = _threefry2x32_lowering
batching_rules[threefry2x32_p] = _hash_batching(threefry2x32_p)
defjvp_zero(threefry2x32_p)       # integer outputs: keys and bits have no derivative


def threefry2x32(k1, k2, x1, x2):
    """Hash the counter pairs (x1, x2) with key (k1, k2); all uint32, broadcasting."""
    return threefry2x32_p.bind(k1, k2, x1, x2)


def hash_primitive(name: str, rounds, n_out: int) -> Primitive:
    """A counter-based hash as a primitive of uint32 operands broadcasting together:
    `rounds(*operands)` (lax ops) is its lowering and, evaluated with NumPy, its NumPy rule;
    threefry4x32 and the philox hashes are these (threefry2x32 has a lowering of its own)."""
    prim = Primitive(name, multiple_results=True)

    def full_rounds(*args):
        shape = broadcast_shapes(name, *(get_aval(a).shape for a in args))
        return [lax.broadcast_in_dim(y, shape, tuple(range(len(shape) - len(get_aval(y).shape),
                                                           len(shape))))
                if get_aval(y).shape != shape else y for y in rounds(*args)]

    abstract_eval_rules[prim] = _hash_abstract_eval(name, n_out)
    lowering_rules[prim] = hl.lower_fun(full_rounds, multiple_results=True)
    numpy_rules[prim] = hl.numpy_fun(full_rounds, multiple_results=True)
    batching_rules[prim] = _hash_batching(prim)
    defjvp_zero(prim)
    return prim


# ------------------------------------------------------------------ iota_2x32_shape
# The flat (row-major) index of every element of `shape` as a 64-bit count split into
# (high, low) uint32 words: the counters hashed by split and random_bits. Computed in
# ui64 inside the lowering, so it is right past 2**32 elements whatever the x64 mode.
iota_2x32_shape_p = Primitive("iota_2x32_shape", multiple_results=True)


def _iota_2x32_shape_abstract_eval(*, shape):
    return [ShapedArray(shape, u32)] * 2


def _iota_2x32_shape_lowering(ctx, *, shape):
    t64 = hlo.tensor_type(shape, np.uint64)
    strides = [math.prod(shape[i + 1:]) for i in range(len(shape))]
    count = None
    for dim, stride in enumerate(strides):
        term = hl.iota(ctx, shape, np.uint64, dim)
        if stride != 1:
            term = ctx.op1("stablehlo.multiply", [term, _splat_u64(ctx, stride, shape)],
                           result_type=t64)
        count = term if count is None else ctx.op1("stablehlo.add", [count, term], result_type=t64)
    high = ctx.op1("stablehlo.shift_right_logical", [count, hl.splat(ctx, 32, np.uint64, shape)],
                   result_type=t64)
    return [ctx.op1("stablehlo.convert", [high]), ctx.op1("stablehlo.convert", [count])]


def _splat_u64(ctx, stride, shape):
    """`stride` as a uint64 array of `shape`; a symbolic stride (jax.export) is computed from
    the module's dimension values, as JAX's lowering does."""
    if not is_symbolic(stride):
        return hl.splat(ctx, stride, np.uint64, shape)
    value = ctx.block.op1("stablehlo.convert", [ctx.module_ctx.symbolic.dim(ctx.block, stride)],
                          hlo.tensor_type((), np.uint64))
    return hl.broadcast_in_dim(ctx, value, shape, np.uint64, [])


abstract_eval_rules[iota_2x32_shape_p] = _iota_2x32_shape_abstract_eval
defjvp_zero(iota_2x32_shape_p)
lowering_rules[iota_2x32_shape_p] = _iota_2x32_shape_lowering


def _iota_2x32_shape_numpy(*, shape):
    count = np.arange(math.prod(shape), dtype=np.uint64).reshape(shape)
    return [(count >> np.uint64(32)).astype(u32), count.astype(u32)]


numpy_rules[iota_2x32_shape_p] = _iota_2x32_shape_numpy


def join_words(high, low):
    """One uint64 of two uint32 words, `high` the upper: the 64-bit random bits. Converted
    with lax.convert_element_type, so uint64 under jax_explicit_x64_dtypes ALLOW as with x64
    (the shift a uint64 too: a NumPy uint64 scalar would be narrowed, as JAX's lax does)."""
    u64 = UINT_DTYPES[64]
    high, low = lax.convert_element_type(high, u64), lax.convert_element_type(low, u64)
    return lax.bitwise_or(lax.shift_left(high, lax.convert_element_type(32, u64)), low)


def iota_2x32_shape(shape):
    """(high, low) words of `arange(prod(shape)).reshape(shape)` as uint64."""
    if not shape:
        zero = np.zeros((), u32)
        return zero, zero
    return iota_2x32_shape_p.bind(shape=tuple(shape))


# ------------------------------------------------------------------ key derivation
def _seed_impl(seed):
    """The key [high 32 bits, low 32 bits] of an integer seed (narrower seeds: [0, seed])."""
    if get_aval(seed).shape:
        raise TypeError(f"PRNG key seed must be a scalar; got {seed!r}.")
    dtype = get_aval(seed).dtype
    if not dtypes.is_int(dtype):
        raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
    # XLA converts between integer types modulo 2**32 (sign-extending signed ones), which is
    # JAX's `seed & 0xFFFFFFFF`; a shift by >= the bit width gives 0 for narrow seeds. The high
    # word is computed from the seed for every width, as JAX's: a constant 0 there is typed
    # over no mesh, and a vmap of fold_in over keys split on an Explicit mesh axis would
    # concatenate it, broadcast unsplit, with the split low words (a ShardingTypeError)
    low = lax.convert_element_type(seed, u32)
    high = lax.convert_element_type(lax.shift_right_logical(seed, dtype.type(32)), u32)
    return lax.concatenate([lax.reshape(high, (1,)), lax.reshape(low, (1,))], 0)


threefry_seed = jit(_seed_impl, inline=True)


def _threefry_2x32(key, counts):
    """Hash uint32 `counts` with `key`: the flat counts, zero-padded to even length, are
    hashed as the pairs (first half, second half); the outputs keep that layout."""
    flat = lax.reshape(counts, (math.prod(counts.shape),))
    n = flat.shape[0]
    if is_symbolic(n % 2):
        # jax.export: whether the size is odd is not known when tracing (JAX's rewrite): the
        # counts padded with one 0, hashed as two halves of (n + 1) // 2, the pad cut off
        flat = lax.concatenate([flat, np.zeros((1,), u32)], 0)
        half = (n + 1) // 2
        x1, x2 = (lax.dynamic_slice(flat, (start,), (half,)) for start in (0, half))
        k1, k2 = key if isinstance(key, tuple) else _unpack(key)
        out = lax.concatenate(threefry2x32(k1, k2, x1, x2), 0)
        return lax.reshape(lax.dynamic_slice(out, (0,), (n,)), counts.shape)
    if n % 2:
        flat = lax.concatenate([flat, np.zeros((1,), u32)], 0)
    half = flat.shape[0] // 2
    x1, x2 = lax.slice(flat, (0,), (half,)), lax.slice(flat, (half,), (2 * half,))
    k1, k2 = key if isinstance(key, tuple) else _unpack(key)
    y1, y2 = threefry2x32(k1, k2, x1, x2)
    out = lax.concatenate([y1, y2], 0)
    return lax.reshape(lax.slice(out, (0,), (n,)) if n % 2 else out, counts.shape)


def key_words(key) -> list:
    """The words of one key's data (uint32[n]), as n scalars."""
    return [lax.reshape(lax.slice(key, (i,), (i + 1,)), ()) for i in range(get_aval(key).shape[0])]


def stacked(words, axis: int):
    """Scalars or arrays of one shape stacked along a new axis `axis` (key data's words)."""
    return lax.concatenate([lax.expand_dims(w, (axis,)) for w in words], axis)


def _unpack(key):
    return (lax.reshape(lax.slice(key, (0,), (1,)), ()),
            lax.reshape(lax.slice(key, (1,), (2,)), ()))


def _threefry_split(key, shape):
    if not config.jax_threefry_partitionable:     # JAX's original: counts 0..2n-1, hashed
        pairs = _threefry_2x32(key, lax.iota(u32, math.prod(shape) * 2))
        return lax.reshape(pairs, (*shape, 2))
    k1, k2 = _unpack(key)
    hi, lo = iota_2x32_shape(shape)
    b1, b2 = threefry2x32(k1, k2, hi, lo)
    shape = tuple(shape) + (1,)
    return lax.concatenate([lax.reshape(b1, shape), lax.reshape(b2, shape)], len(shape) - 1)


def _threefry_fold_in(key, data):
    return _threefry_2x32(key, _seed_impl(data))


def _random_bits_original(key, bit_width, shape):
    """jax_threefry_partitionable=False: the hashes of 0, 1, 2, ... laid out flat, cut into
    `bit_width`-bit pieces (8 and 16: the 32-bit words' bytes/halves, low first)."""
    size = math.prod(shape)
    count = -(-bit_width * size // 32)
    if not is_symbolic(count) and count >= 2 ** 32 - 1:
        raise NotImplementedError("jax_threefry_partitionable=False: random bits of more "
                                  "than 2**32 - 2 words; use the partitionable default")
    bits = _threefry_2x32(key, lax.iota(u32, count))
    dtype = UINT_DTYPES[bit_width]
    if bit_width == 64:
        half = count // 2
        bits = join_words(*(lax.slice(bits, (a,), (a + half,)) for a in (0, half)))
    elif bit_width in (8, 16):
        per = 32 // bit_width
        shifts = lax.mul(np.uint32(bit_width), lax.broadcasted_iota(u32, (per, 1), 0))
        pieces = lax.bitwise_and(np.uint32(dtypes.iinfo(dtype).max),
                                 lax.shift_right_logical(lax.broadcast(bits, (1,)), shifts))
        pieces = lax.reshape(lax.transpose(pieces, (1, 0)), (count * per,))
        bits = lax.slice(lax.convert_element_type(pieces, dtype), (0,), (size,))
    return lax.reshape(bits, tuple(shape))


def _threefry_random_bits(key, bit_width, shape):
    if not config.jax_threefry_partitionable:
        return _random_bits_original(key, bit_width, shape)
    if all(isinstance(d, int) for d in shape) and math.prod(shape) > 2 ** 64:
        raise NotImplementedError("random bits array of size exceeding 2 ** 64")
    k1, k2 = _unpack(key)
    hi, lo = iota_2x32_shape(shape)
    b1, b2 = threefry2x32(k1, k2, hi, lo)
    dtype = UINT_DTYPES[bit_width]
    if bit_width == 64:
        return join_words(b1, b2)
    bits = lax.bitwise_xor(b1, b2)
    return bits if bit_width == 32 else lax.convert_element_type(bits, dtype)


# ------------------------------------------------------------------ implementations
class PRNGImpl(NamedTuple):
    """How one implementation derives keys and draws bits, on the uint32 data of one key (of
    shape `key_shape`): `seed(int) -> key`, `split(key, shape) -> keys[*shape]`,
    `fold_in(key, uint32) -> key`, `random_bits(key, bit_width, shape) -> uint bits`. These
    are the physical rules of the key primitives (key_prims.py); the object is their `impl`
    param, printed as JAX prints it (`random_seed[impl=fry]`). JAX's PRNGImpl: a user may
    make one (a key type of their own) and seed keys with it (`prng.random_seed(0, impl)`).

    >>> prngs["threefry2x32"].key_shape, str(prngs["threefry2x32"])
    ((2,), 'fry')
    """
    key_shape: tuple
    seed: Callable
    split: Callable
    random_bits: Callable
    fold_in: Callable
    name: str = "<unnamed>"
    tag: str = "?"

    def __hash__(self) -> int:
        return hash(self.tag)

    def __str__(self) -> str:
        return self.tag

    def __reduce__(self):
        # a registered implementation pickles as its name (its functions are jitted, with
        # caches and locks that do not pickle): colocated_python ships key types so
        if prngs.get(self.name) is self:
            return _registered, (self.name,)
        return PRNGImpl, tuple(self)


def _registered(name: str) -> PRNGImpl:
    return prngs[name]


# the implementations by name (jax_default_prng_impl's values), in JAX's order of
# registration (its error for an unknown name lists them so; keys.py registers them)
prngs: dict[str, PRNGImpl] = {}


def register_prng(impl: PRNGImpl):
    """Make `impl` known by its name (`jax.random.key(0, impl=name)`)."""
    if impl.name in prngs:
        raise ValueError(f"PRNG with name {impl.name} already registered: {impl}")
    prngs[impl.name] = impl


# ------------------------------------------------------------------ threefry2x32, as JAX's
# functions on one key's data (jax._src.random.threefry2x32's names), checked as JAX checks
def threefry_split(key, shape):
    """`shape` keys from `key` (uint32[2]).

    >>> threefry_split(threefry_seed(np.int32(0)), (2,))
    Array([[1797259609, 2579123966],
           [ 928981903, 3453687069]], dtype=uint32)
    """
    return _threefry_split(key, tuple(lax.shapes.canonicalize_shape(shape)))


def threefry_fold_in(key, data):
    """The key `key` folded with the 32-bit scalar `data`."""
    if get_aval(data).shape:
        raise TypeError(f"threefry_fold_in takes a scalar, got data of shape "
                        f"{get_aval(data).shape}")
    return _threefry_fold_in(key, lax.convert_element_type(data, u32))


def threefry_random_bits(key, bit_width, shape):
    """`bit_width` random bits per element of `shape` from one threefry key."""
    aval = get_aval(key)
    if aval.shape != (2,) or aval.dtype != u32:
        raise TypeError("threefry_random_bits got invalid prng key.")
    if bit_width not in (8, 16, 32, 64):
        raise TypeError("requires 8-, 16-, 32- or 64-bit field width.")
    return _threefry_random_bits(key, bit_width, tuple(shape))


threefry_prng_impl = PRNGImpl(key_shape=(2,), seed=threefry_seed, split=threefry_split,
                              random_bits=threefry_random_bits, fold_in=threefry_fold_in,
                              name="threefry2x32", tag="fry")


def _threefry_2x32_checked(keypair, count):
    """The public hash: `keypair` a uint32[2] array or a pair of uint32 scalars."""
    k1, k2 = keypair if isinstance(keypair, (tuple, list)) else _unpack(keypair)
    dtypes_ = [get_aval(x).dtype for x in (k1, k2, count)]
    if any(d != u32 for d in dtypes_):
        raise TypeError(f"threefry_2x32 requires uint32 arguments, got {dtypes_}")
    return _threefry_2x32((k1, k2), count)


threefry_2x32 = jit(_threefry_2x32_checked, inline=True)
threefry_2x32.__doc__ = """Threefry-2x32 of uint32 `count` (any shape) keyed by `keypair`.

    >>> [hex(int(v)) for v in threefry_2x32(np.uint32([0, 0]), np.uint32([0, 0]))]
    ['0x6b200159', '0x99ba4efe']
    """
