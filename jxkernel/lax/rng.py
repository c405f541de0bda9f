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
from ..core.avals import ShapedArray
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                              lowering_rules)
from ..transforms import ad_util as ad
from ..transforms import batch_util as bu
from ..xla import stablehlo as hlo
from .shapes import canonicalize_shape


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
                        f"{key.str_short()}")
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
    new_key, bits = ctx.op("stablehlo.rng_bit_generator", [key], {
        "rng_algorithm": f"#stablehlo<rng_algorithm {_ALGORITHM_NAMES[algorithm]}>"},
        result_types=[u64_key, hlo.tensor_type(shape, dtype)])
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
    from .slicing import dynamic_update_index_in_dim     # slicing imports this family's kin
    return [dynamic_update_index_in_dim(keys, new_key, 0, 0), bits], [0, 0]


abstract_eval_rules[rng_bit_generator_p] = _rng_bit_generator_abstract_eval
lowering_rules[rng_bit_generator_p] = _rng_bit_generator_lowering
ad.defjvp_zero(rng_bit_generator_p)       # integer bits: nothing to differentiate
batching_rules[rng_bit_generator_p] = _rng_bit_generator_batching

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


abstract_eval_rules[rng_uniform_p] = _rng_uniform_abstract_eval
lowering_rules[rng_uniform_p] = _rng_uniform_lowering
jvp_rules[rng_uniform_p] = _rng_uniform_jvp
batching_rules[rng_uniform_p] = _rng_uniform_batching


# ------------------------------------------------------------------ the functions users call
def rng_bit_generator(key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT, *,
                      out_sharding=None):
    """(new key, random bits of `shape` and unsigned `dtype`) from a uint32[4] `key`, by
    XLA's RngBitGenerator with `algorithm`. Stateless: the same key gives the same bits."""
    shape = canonicalize_shape(shape)
    dtype = dtypes.canonicalize_dtype(dtype)
    if dtype not in _BITS_DTYPES:
        raise TypeError(f"rng_bit_generator: unsupported dtype {dtype}")
    return tuple(rng_bit_generator_p.bind(key, shape=shape, dtype=dtype,
                                          algorithm=RandomAlgorithm(algorithm),
                                          out_sharding=out_sharding))


def rng_uniform(a, b, shape):
    """Uniform random numbers in [a, b) from XLA's stateful generator (seeded per compiled
    program, so not reproducible as jax.random is); `a` and `b` are scalars of one dtype."""
    return rng_uniform_p.bind(a, b, shape=canonicalize_shape(shape))


__all__ = ["RandomAlgorithm", "rng_bit_generator", "rng_bit_generator_p", "rng_uniform",
           "rng_uniform_p"]
