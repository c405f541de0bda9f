"""The primitives of typed PRNG keys, as JAX's prng.py has them: `random_seed`,
`random_bits`, `random_split`, `random_fold_in`, `random_wrap`, `random_unwrap`.

Their operands and results are keys (type `key<fry>[...]`, one value per key), so jit, vmap,
grad and the loops trace a key as one value and jaxprs print as JAX's. Each primitive has its
rules side by side: abstract eval, batching (every one is vectorized over the keys' shape, so
a batch axis is just a leading key axis), JVP (keys and bits have no tangents), and its
physical rule (core/physical.py), which computes it on the uint32 key data with the
implementation's functions in prng.py and rbg.py; that is how they are lowered and run.

    >>> from jxkernel import make_jaxpr
    >>> make_jaxpr(lambda k: random_split(k, (2,)))(jax.random.key(0))
    { lambda ; a:key<fry>[]. let b:key<fry>[2] = random_split[shape=(2,)] a in (b,) }
"""
from __future__ import annotations

import math

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.avals import ShapedArray, get_aval
from ..core.physical import physical_rules
from ..core.staging import reads_threefry
from ..core import sharding_types
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, impl_rules,
                              sharding_rules)
from ..lax._rules import broadcast_shapes
from ..transforms import batch_util as bu
from ..transforms.ad_util import defjvp_zero
from ..transforms.batching import vmap
from ..xla.array import Array as _XArray
from ..xla.dispatch import run_compiled
from . import prng

u32 = np.dtype(np.uint32)


def _check_keys(name, aval):
    if not isinstance(aval.dtype, dtypes.ExtendedDType):
        raise TypeError(f"{name} takes typed keys (a key<...> dtype); got {aval.str_short(True)}")


class _KeyDTypes(dict):
    """implementation (a prng.PRNGImpl) -> the dtype of its keys, made on first use by
    `factory`: keys.py's KeyDType (keys.py, where the dtypes are defined, imports this module
    and sets it)."""
    factory = None

    def __missing__(self, impl):
        dtype = self[impl] = self.factory(impl)
        return dtype


key_dtypes = _KeyDTypes()


def _key_dtype(impl):
    return key_dtypes[impl]


def _flat_map(fn, data, n_keys_dims, key_shape):
    """`fn` (one key's data -> a value) over keys data of shape S + key_shape: vmapped once
    per dimension of S, as JAX's `iterated_vmap_unary`, so that each key's values are exactly
    its own and the lowering keeps S's dimensions (a reshape to one axis would drop their
    shardings: XLA could not propagate a key array's split dimensions through it)."""
    for _ in range(n_keys_dims):
        fn = vmap(fn)
    return fn(data)


def _unary_batcher(prim):
    def batch(vals, dims, **params):
        x, = vals
        return prim.bind(bu.moveaxis(x, dims[0], 0), **params), 0
    return batch


# ------------------------------------------------------------------ random_seed
random_seed_p = Primitive("random_seed")


def _seed_abstract_eval(seeds, *, impl):
    return ShapedArray(seeds.shape, _key_dtype(impl))


def _seed_physical(in_avals, out_avals, seeds, *, impl):
    return _flat_map(impl.seed, seeds, len(in_avals[0].shape), ())


abstract_eval_rules[random_seed_p] = _seed_abstract_eval
batching_rules[random_seed_p] = _unary_batcher(random_seed_p)
physical_rules[random_seed_p] = _seed_physical
defjvp_zero(random_seed_p)


# ------------------------------------------------------------------ random_bits
random_bits_p = Primitive("random_bits")


def _bits_abstract_eval(keys, *, bit_width, shape):
    _check_keys("random_bits", keys)
    return ShapedArray((*keys.shape, *shape), prng.UINT_DTYPES[bit_width])


def _bits_physical(in_avals, out_avals, data, *, bit_width, shape):
    dtype = in_avals[0].dtype
    impl = dtype._impl
    return _flat_map(lambda k: impl.random_bits(k, bit_width, tuple(shape)), data,
                     len(in_avals[0].shape), dtype.key_shape)


abstract_eval_rules[random_bits_p] = _bits_abstract_eval
batching_rules[random_bits_p] = _unary_batcher(random_bits_p)
physical_rules[random_bits_p] = _bits_physical
defjvp_zero(random_bits_p)
reads_threefry.add(random_bits_p)


# ------------------------------------------------------------------ random_split
random_split_p = Primitive("random_split")


def _split_abstract_eval(keys, *, shape):
    _check_keys("random_split", keys)
    return ShapedArray((*keys.shape, *shape), keys.dtype)


def _split_physical(in_avals, out_avals, data, *, shape):
    dtype = in_avals[0].dtype
    impl = dtype._impl
    return _flat_map(lambda k: impl.split(k, tuple(shape)), data, len(in_avals[0].shape),
                     dtype.key_shape)


abstract_eval_rules[random_split_p] = _split_abstract_eval
batching_rules[random_split_p] = _unary_batcher(random_split_p)
physical_rules[random_split_p] = _split_physical
defjvp_zero(random_split_p)
reads_threefry.add(random_split_p)


# ------------------------------------------------------------------ random_fold_in
random_fold_in_p = Primitive("random_fold_in")


def _fold_in_abstract_eval(keys, msgs):
    _check_keys("random_fold_in", keys)
    return ShapedArray(broadcast_shapes("random_fold_in", keys.shape, msgs.shape), keys.dtype)


def _fold_in_physical(in_avals, out_avals, data, msgs):
    impl = in_avals[0].dtype._impl
    return _vmap_broadcasting(impl.fold_in, in_avals[0].shape, in_avals[1].shape)(data, msgs)


def _vmap_broadcasting(f, shape1, shape2):
    """`f` of one key's data and one message, over keys of `shape1` and messages of
    `shape2` as they broadcast (JAX's iterated_vmap_binary_bcast): vmapped once per axis, a
    size-1 axis squeezed and its operand held (in_axes None), a scalar held throughout.
    Nothing is broadcast, so a keys' axis split over a mesh meets no unsplit copy of the
    messages (vmap refuses two mapped operands split differently)."""
    if not shape1 or not shape2:
        n, held_left = len(shape1 or shape2), not shape1
        for _ in range(n):
            f = vmap(f, in_axes=(None, 0) if held_left else (0, None))
        return f
    for size1, size2 in reversed(list(zip(shape1, shape2))):
        f = vmap(f) if size1 == size2 else _squeezed(f, left=size1 == 1)
    return f


def _squeezed(f, left: bool):
    """vmap of `f` where the left (or right) operand's leading axis has size 1: held."""
    def g(x, y):
        if left:
            return vmap(f, in_axes=(None, 0))(lax.squeeze(x, (0,)), y)
        return vmap(f, in_axes=(0, None))(x, lax.squeeze(y, (0,)))
    return g


def _fold_in_batching(vals, dims):
    """As JAX's broadcasting batcher: agreeing batch axes and scalars bind as they are;
    otherwise batch axes go first and an unbatched operand gets a size-1 leading axis
    (the primitive broadcasts it)."""
    shapes = [bu.shape(x) for x in vals]
    batched = [(s, d) for s, d in zip(shapes, dims) if d is not bu.not_mapped]
    shape, dim = batched[0]
    if all(s == shape and d == dim for s, d in zip(shapes, dims) if s):
        return random_fold_in_p.bind(*vals), dim
    out = [x if not s else lax.expand_dims(x, (0,)) if d is bu.not_mapped else
           bu.moveaxis(x, d, 0) for x, s, d in zip(vals, shapes, dims)]
    return random_fold_in_p.bind(*out), 0


abstract_eval_rules[random_fold_in_p] = _fold_in_abstract_eval
batching_rules[random_fold_in_p] = _fold_in_batching
physical_rules[random_fold_in_p] = _fold_in_physical
defjvp_zero(random_fold_in_p)


# ------------------------------------------------------------------ random_wrap / unwrap
random_wrap_p = Primitive("random_wrap")
random_unwrap_p = Primitive("random_unwrap")


def _wrap_abstract_eval(data, *, impl):
    dtype = _key_dtype(impl)
    n = len(dtype.key_shape)
    return ShapedArray(data.shape[:-n], dtype, vma=data.vma)


def _unwrap_abstract_eval(keys):
    _check_keys("random_unwrap", keys)
    return ShapedArray((*keys.shape, *keys.dtype.key_shape), u32, vma=keys.vma)


def _same(in_avals, out_avals, x, **params):
    return x            # the key data is what both sides hold physically


def _wrap_batching(vals, dims, *, impl):
    x, = vals
    return random_wrap_p.bind(bu.moveaxis(x, dims[0], 0), impl=impl), 0


def _wrap_impl(data, *, impl):
    # eagerly, keys over an Array of data are that Array wrapped: nothing to run
    if type(data) is _XArray:
        _wrap_abstract_eval(data.aval, impl=impl)          # (its checks)
        return _key_dtype(impl).wrap(data)
    return run_compiled(random_wrap_p, [data], {"impl": impl})


def _unwrap_impl(keys):
    base = getattr(keys, "_base", None)
    return base if base is not None else run_compiled(random_unwrap_p, [keys], {})


impl_rules[random_wrap_p] = _wrap_impl
impl_rules[random_unwrap_p] = _unwrap_impl
abstract_eval_rules[random_wrap_p] = _wrap_abstract_eval
abstract_eval_rules[random_unwrap_p] = _unwrap_abstract_eval
batching_rules[random_wrap_p] = _wrap_batching
batching_rules[random_unwrap_p] = _unary_batcher(random_unwrap_p)
physical_rules[random_wrap_p] = physical_rules[random_unwrap_p] = _same
defjvp_zero(random_wrap_p)
defjvp_zero(random_unwrap_p)


# ------------------------------------------------------------------ random_clone
# the identity, except to the key-reuse checker (random/key_reuse.py): its result is a fresh key
random_clone_p = Primitive("random_clone")
# eagerly a new KeyArray over the same data: the checker marks it, not the key it copies
impl_rules[random_clone_p] = lambda x: key_dtypes[x._impl].wrap(x._base) if hasattr(
    x, "_impl") else x
abstract_eval_rules[random_clone_p] = lambda aval: aval
batching_rules[random_clone_p] = lambda vals, dims: (random_clone_p.bind(vals[0]), dims[0])
physical_rules[random_clone_p] = _same
defjvp_zero(random_clone_p)


# ------------------------------------------------------------------ sharding in types
def _keys_then_unsplit(name, in_avals, params, out_avals):
    """random_bits, random_split, random_unwrap: the keys' axes as they are split, the axes
    each key gives (its values, its data) unsplit, as JAX's abstract evaluation types them."""
    parts = sharding_types.parts_of(in_avals[0])
    return parts + [()] * (len(out_avals[0].shape) - len(parts))


def _keys_of_data(name, in_avals, params, out_avals):
    """random_wrap: the data's axes but its trailing key data (JAX's logical_sharding)."""
    return sharding_types.parts_of(in_avals[0])[:len(out_avals[0].shape)]


for _p in (random_bits_p, random_split_p, random_unwrap_p):
    sharding_rules[_p] = _keys_then_unsplit
for _p in (random_seed_p, random_clone_p):
    sharding_rules[_p] = sharding_types.same_as_operand_rule
sharding_rules[random_fold_in_p] = sharding_types.broadcasting_rule
sharding_rules[random_wrap_p] = _keys_of_data


# ------------------------------------------------------------------ binding them
def random_seed(seeds, impl: prng.PRNGImpl):
    return random_seed_p.bind(seeds, impl=impl)


def random_bits(keys, bit_width: int, shape):
    return random_bits_p.bind(keys, bit_width=bit_width, shape=tuple(shape))


def checked_random_bits(keys, bit_width: int, shape):
    """`bit_width` (8, 16, 32 or 64) random bits for every element of `shape`."""
    if bit_width not in (8, 16, 32, 64):
        raise TypeError("requires 8-, 16-, 32- or 64-bit field width.")
    return random_bits(keys, bit_width, shape)


def random_split(keys, shape):
    return random_split_p.bind(keys, shape=tuple(shape))


def random_fold_in(keys, msgs):
    return random_fold_in_p.bind(keys, lax.convert_element_type(msgs, u32)
                                 if get_aval(msgs).dtype != u32 else msgs)


def index(keys, i: int):
    """keys[i] along the first axis (the keys split gives)."""
    return lax.index_in_dim(keys, i, keepdims=False)


def random_wrap(data, impl: prng.PRNGImpl):
    return random_wrap_p.bind(data, impl=impl)


def random_unwrap(keys):
    dtype = get_aval(keys).dtype
    if not isinstance(dtype, dtypes.ExtendedDType):         # (JAX's words)
        raise TypeError(f"random_unwrap takes key array operand, got keys.dtype={dtype!r}")
    return random_unwrap_p.bind(keys)
