"""PRNG keys as users see them: legacy uint32[2] keys (`PRNGKey`), typed keys (`key`, a
KeyArray), and the key operations `split`, `fold_in`, `bits`, `key_data`, `wrap_key_data`.

Every public function accepts both kinds and returns the kind it was given, as JAX does.

    >>> import jxkernel as jax
    >>> k = jax.random.PRNGKey(0)
    >>> split(k)
    Array([[1797259609, 2579123966],
           [ 928981903, 3453687069]], dtype=uint32)
"""
from __future__ import annotations

import functools
import inspect
import math
import operator
import sys
import warnings
from collections.abc import Sequence

import numpy as np

from .. import lax
from ..core.config import config
from .. import numpy as _jnp  # noqa: F401  installs the Array indexing KeyArray uses
from ..core import dtypes
from ..core.avals import ShapedArray, get_aval, typeof_rules
from ..core.basearray import Array, OverData
from ..core.mesh import AbstractMesh, NamedSharding, PartitionSpec, get_mesh
from ..core.errors import aval_text, unhashable_parameter
from ..core.staging import DynamicJaxprTracer
from ..core.symbolic import is_symbolic
from ..core.traceback_util import filter_before_raising, leave_out_wrapper, register_wrapper
from ..core.trace import Tracer
from ..lax.sharding import laid_out
from ..numpy import array_methods, indexing as _indexing
from ..core.dtypes import canonicalize_user_dtype
from ..core.source_info import is_jxkernel_file, is_user_filename
from ..xla import array as _xla_array
from ..core import trace as _trace
from . import key_prims, philox, prng, rbg, taken_keys, threefry4x32

# JAX 0.10.2's implementations in its order of registration (prng.prngs keeps it: the
# parameterized tests over them and the error for an unknown name list them so). rbg and
# unsafe_rbg draw bits with XLA's RngBitGenerator (random/rbg.py).
for _impl in (philox.philox2x32_prng_impl, philox.philox4x32_prng_impl, prng.threefry_prng_impl,
              rbg.rbg_prng_impl, rbg.unsafe_rbg_prng_impl, threefry4x32.threefry4x32_prng_impl):
    prng.register_prng(_impl)
THREEFRY = prng.threefry_prng_impl     # JAX's default implementation


# ------------------------------------------------------------------ typed keys
class KeyTyRules:
    """What the extended-dtype machinery (core/dtypes.py's ExtendedDType) asks of key types,
    as JAX's `prng.KeyTyRules`: one key is uint32 data of its implementation's key shape,
    keys are not differentiable (float0 tangents) and never converted to or from numbers."""

    @staticmethod
    def physical_element_aval(dtype) -> ShapedArray:
        return ShapedArray(tuple(dtype.key_shape), np.dtype(np.uint32))

    @staticmethod
    def global_sharded_result_handler(aval, sharding, committed):
        impl = aval.dtype._impl
        return lambda data: KeyArray(data, impl)

    @staticmethod
    def tangent_dtype(dtype):
        return dtypes.float0

    # keys are never converted to or from numbers (wrap_key_data and key_data instead)
    allow_conversion = False

    @staticmethod
    def full(shape, fill_value, dtype):
        """lax.full of a key type: a key broadcast, or key data filled with a number."""
        shape = tuple(shape)
        if dtypes.extended_scalar_type(getattr(fill_value, "dtype", None)) is dtypes.prng_key:
            data = _jnp.broadcast_to(key_prims.random_unwrap(fill_value),
                                     shape + tuple(dtype.key_shape))
        else:
            data = lax.full(shape + tuple(dtype.key_shape), fill_value, np.dtype(np.uint32))
        return key_prims.random_wrap(data, dtype._impl)

    @staticmethod
    def zero(dtype):
        # (as JAX's: custom rules may be handed zeros like a key primal, of float0)
        return np.zeros((), dtypes.float0)


class KeyDType(dtypes.ExtendedDType):
    """The dtype of typed keys of one implementation (a prng.PRNGImpl, `_impl` as JAX's
    KeyTy names it), printed as in JAX: `key<fry>` for threefry2x32, `key<rbg>`, `key<urbg>`
    for unsafe_rbg, `key<TAG>` for an implementation of the user's."""
    type = dtypes.prng_key          # what jnp.issubdtype(k.dtype, jax.dtypes.prng_key) reads
    _rules = KeyTyRules

    def __init__(self, impl: prng.PRNGImpl):
        self._impl = impl
        self.name = f"key<{impl.tag}>"
        self.key_shape = tuple(impl.key_shape)   # the trailing shape of one key's uint32 data

    def __repr__(self):
        return self.name

    __str__ = __repr__

    def __eq__(self, other):
        if isinstance(other, KeyDType):
            return other._impl == self._impl
        return other == self.name

    def __hash__(self):
        return hash(self.name)

    @property
    def itemsize(self) -> int:
        """The bytes of one key's data (JAX's: 8 for threefry's two words)."""
        return 4 * math.prod(self.key_shape)

    def keys_equal(self, x, y):
        """x == y on keys (jnp.equal's, for traced keys too)."""
        return _keys_equal(x, y)

    def wrap(self, data) -> "KeyArray":
        """Keys of this type over their uint32 data (what executables return for them)."""
        return KeyArray(data, self._impl)


key_prims.key_dtypes.factory = KeyDType     # (key_prims makes each on first use)
key_dtype_fry = key_prims.key_dtypes[THREEFRY]


class KeyArray(OverData):
    """An array of typed PRNG keys (dtype `key<fry>`, or the dtype of the implementation
    `impl` names) over uint32 key data of shape `shape + key_shape` ((2,) for threefry, (4,)
    for rbg). As in JAX it is a jax.Array and a pytree leaf, of type `key<fry>[shape]`: jit,
    vmap, grad and the loops trace it as one value (core/physical.py turns it into its data
    only where a program is lowered or run). Its buffer is its data's.

    >>> k = key(0)
    >>> k.shape, k.dtype
    ((), key<fry>)
    """
    # _consumed, _source_info: the key-reuse checker's (random/key_reuse.py): whether the
    # keys were consumed (a bool, or a mask over them), and where they were first; _taken,
    # _taken_rows: random/taken_keys.py's, while the notebook watches (which key of which
    # array a key taken by an index or a loop is)
    __slots__ = ("_base", "_impl", "_aval", "_consumed", "_source_info", "_taken",
                 "_taken_rows", "__weakref__")

    def __init__(self, base, impl: prng.PRNGImpl = THREEFRY):
        self._base = base
        self._impl = impl
        self._aval = None
        self._consumed = False
        self._source_info = None
        self._taken = self._taken_rows = None

    shape = property(lambda self: tuple(self._base.aval.shape[:-len(self.dtype.key_shape)]))
    _base_array = property(lambda self: self._base)     # (JAX's name for the key data)
    dtype = property(lambda self: key_prims.key_dtypes[self._impl])

    @property
    def aval(self) -> ShapedArray:
        if self._aval is None:        # (read on every jit call: made once, the data fixed)
            self._aval = self._make_aval()
        return self._aval

    def _make_aval(self) -> ShapedArray:
        base = self._base.aval
        sharding = base.split
        if sharding is not None and hasattr(sharding, "spec"):
            spec = sharding.spec.partitions[:len(base.shape) - len(self.dtype.key_shape)]
            sharding = NamedSharding(sharding.mesh, PartitionSpec(*spec))
        out = ShapedArray(self.shape, self.dtype, sharding=sharding)
        # data over a mesh of no Explicit axes: the keys' type names its mesh, as the data's
        # does (JAX's aval.sharding.mesh, in a jit given shardings over Auto axes too)
        return out.over_mesh(base._mesh) if getattr(base, "_mesh", None) is not None else out

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d key array")
        # the key data's rows, as JAX iterates its base array: eagerly one host round trip
        # for all rows, where indexing row by row would compile a slice per index
        rows = (KeyArray(row, self._impl) for row in self._base)
        # while the notebook watches: each key is marked as the array's at its index, so that
        # a draw with it and one with keys[i] (or a second loop's) are told as one key's
        return rows if consumed_keys is None else taken_keys.looped(self, self.shape, rows)

    def __getitem__(self, idx):
        out = _indexing.rewriting_take(self, idx)
        if consumed_keys is not None and type(out) is KeyArray:     # (as __iter__'s)
            taken_keys.indexed(self, self.shape, out, idx)
        return out

    # the shape methods of JAX's PRNGKeyArray: jnp's functions, which bind shape primitives
    # on the keys (their physical rules move the key data's trailing axes along)
    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = tuple(shape[0])
        return _jnp.reshape(self, shape, order=order)

    def ravel(self, order="C"):
        return _jnp.ravel(self, order=order)

    flatten = ravel

    def squeeze(self, axis=None):
        return _jnp.squeeze(self, axis)

    def swapaxes(self, axis1, axis2):
        return _jnp.swapaxes(self, axis1, axis2)

    def transpose(self, *axes):
        axes = axes[0] if len(axes) == 1 and not isinstance(axes[0], int) else axes
        return _jnp.transpose(self, axes or None)

    T = property(lambda self: _jnp.transpose(self))
    mT = property(lambda self: _jnp.swapaxes(self, -1, -2))

    def take(self, indices, axis=None, **kwargs):
        return _jnp.take(self, indices, axis=axis, **kwargs)

    # the arithmetic and comparison operators are Array's (installed below): jnp's functions,
    # which raise JAX's errors on keys ("add does not accept dtypes key<fry>, int32."), compare
    # keys by their data (==, !=) and pass `+k` through

    def __bool__(self):
        raise TypeError("key array cannot be converted to boolean.")

    def astype(self, dtype):
        # JAX's PRNGKeyArray inherits jax.Array's abstract method (jnp.astype converts keys)
        raise NotImplementedError("Cannot call abstract method astype")

    def __array__(self, dtype=None, copy=None):
        # JAX's refusal: NumPy has no key dtype (it made an object array of KeyArrays)
        raise TypeError("JAX array with PRNGKey dtype cannot be converted to a NumPy array. "
                        "Use jax.random.key_data(arr) if you wish to extract the underlying "
                        "integer array.")

    @property
    def at(self):
        """`keys.at[idx].set(new_keys)` / `.get()`, as for arrays."""
        return _KeyIndexUpdate(self)

    def _with_base(self, base) -> "KeyArray":
        """Keys over new key data."""
        return KeyArray(base, self._impl)

    def copy(self) -> "KeyArray":
        out = KeyArray(self._base.copy() if hasattr(self._base, "copy") else self._base,
                       self._impl)
        out._consumed = self._consumed      # (as JAX's: a copy is as consumed as its original)
        return out

    def __reduce__(self):
        # (by name: a registered implementation is the same object after unpickling)
        impl = self._impl.name if prng.prngs.get(self._impl.name) == self._impl else self._impl
        return (_unpickled, (np.asarray(self._base), impl))

    def __repr__(self):
        return f"Array({self.shape}, dtype={self.dtype}) overlaying:\n{np.asarray(self._base)}"


# the class's name in Python's own errors (`int(k)`, `hash(k)`) as JAX's
KeyArray.__name__ = KeyArray.__qualname__ = "PRNGKeyArray"
PRNGKeyArray = KeyArray


def _install_array_operators():
    """Array's operators on KeyArray, as JAX's PRNGKeyArray takes Array's (its
    `_array_operators`): each is jnp's function, so keys get JAX's answers."""
    # (an operator defers to operand types it does not know: keys are among those it knows)
    array_methods._ACCEPTED = (*array_methods._ACCEPTED, KeyArray)
    for name, fn in array_methods._OPERATORS.items():
        if name not in ("__getitem__", "__setitem__", "__contains__"):
            setattr(KeyArray, name, fn)


_install_array_operators()


def _unpickled(data, impl):
    return KeyArray(_jnp.asarray(data), prng.prngs[impl] if isinstance(impl, str) else impl)


def _keys_equal(a, b):
    """Keys compared by their data, as JAX's `==` on key arrays."""
    if not (is_typed_key(a) and is_typed_key(b)):
        return NotImplemented
    da, db = get_aval(a).dtype, get_aval(b).dtype
    if da != db:
        raise TypeError(f"equal does not accept dtypes {da}, {db}.")
    x, y = key_prims.random_unwrap(a), key_prims.random_unwrap(b)
    shape = np.broadcast_shapes(get_aval(x).shape, get_aval(y).shape)
    x, y = _jnp.broadcast_to(x, shape), _jnp.broadcast_to(y, shape)
    return lax.reduce_and(lax.eq(x, y), (len(shape) - 1,))


def is_typed_key(x) -> bool:
    """Typed keys: a KeyArray, or a tracer of a key type."""
    if isinstance(x, KeyArray):
        return True
    return isinstance(getattr(getattr(x, "aval", None), "dtype", None), KeyDType)


class _KeyIndexUpdate:
    """What `keys.at` gives: `[idx]` then `.set(keys)` or `.get()`."""
    __slots__ = ("keys", "idx")

    def __init__(self, keys, idx=None):
        self.keys, self.idx = keys, idx

    def __getitem__(self, idx):
        return _KeyIndexUpdate(self.keys, idx)

    def get(self, **kwargs):
        return _indexing.rewriting_take(self.keys, self.idx)

    def set(self, values, **kwargs):
        if not is_typed_key(values):
            raise TypeError(f"keys.at[...].set takes typed keys (jax.random.key), got "
                            f"{type(values).__name__}; wrap raw key data with "
                            f"jax.random.wrap_key_data")
        if get_aval(values).dtype != self.keys.dtype:
            raise TypeError(f"keys.at[...].set takes keys of dtype {self.keys.dtype}, got "
                            f"{get_aval(values).dtype}")
        idx = self.idx if isinstance(self.idx, tuple) else (self.idx,)
        if any(i is Ellipsis for i in idx):      # keep the trailing key-data axis whole
            idx = idx + (slice(None),)
        data = key_prims.random_unwrap(self.keys)
        return key_prims.random_wrap(data.at[idx].set(key_prims.random_unwrap(values),
                                                      **kwargs), self.keys._impl)


# jax.typeof(key): ShapedArray(key<fry>[...]), as in JAX
typeof_rules[KeyArray] = lambda k: k.aval
Array.register(KeyArray)     # typed keys are jax.Array instances, as in JAX
_xla_array.ARRAY_TYPES.add(KeyArray)    # executables take their data's buffer as it is


def _check_key_data(data_aval, impl: prng.PRNGImpl = THREEFRY):
    if not data_aval.shape:
        raise TypeError(f"JAX encountered invalid PRNG key data: expected key_data.ndim >= 1; "
                        f"got ndim={len(data_aval.shape)}")
    key_shape = tuple(impl.key_shape)
    if tuple(data_aval.shape[-len(key_shape):]) != key_shape:
        raise TypeError(f"JAX encountered invalid PRNG key data: expected key_data.shape to end "
                        f"with {key_shape}; got shape={tuple(data_aval.shape)} for "
                        f"impl={impl!r}")
    if data_aval.dtype != np.dtype(np.uint32):
        raise TypeError(f"JAX encountered invalid PRNG key data: expected key_data.dtype = "
                        f"uint32; got dtype={data_aval.dtype}")


# The keys code outside jxkernel drew with eagerly, each with the random function (`normal`,
# `split`) and the user's lines: (key, name, _drawn_at()). Every function that calls
# check_key consumes its key but these, whose primitives sink none in key_reuse.py's
# signatures (random_fold_in makes a new key, random_unwrap and key_impl read it;
# tests/notebook/test_key_reuse_notes.py checks the list against the signatures). One key
# object here twice is a key reused, which JAX lets through silently. None until the notebook
# watches (a list then, that its note under the cell reads in batches as it fills and at the
# cell's end: notebook/notes/key_notes.py), so that an eager draw with no notebook pays one
# test, not the walk to the user's lines (2 us of a 13 us normal(key)).
consumed_keys: list | None = None
KEEPS_KEY = frozenset({"fold_in", "key_data", "key_impl"})


def check_key(name: str, key, allow_batched=False):
    """(typed keys, was it a legacy raw key?) after JAX's checks of a key argument. A raw
    uint32 key is of the default implementation (jax_default_prng_impl) and is wrapped
    (`random_wrap`), as JAX's `_check_prng_key` does, so that the samplers see typed keys."""
    if is_typed_key(key):
        typed, wrapped, shape = key, False, tuple(get_aval(key).shape)
    else:
        if isinstance(key, (list, tuple, str)) or key is None:
            raise TypeError(f"unexpected PRNG key type {type(key)}")
        # a Python number (`jax.random.normal(0)`, a seed where a key goes): JAX's words
        if not all(hasattr(key, a) for a in ("ndim", "shape", "dtype")):
            raise TypeError(f"JAX encountered invalid PRNG key data: expected key_data to have "
                            f"ndim, shape, and dtype attributes. Got {key}")
        aval = get_aval(key)
        impl = _resolve_impl(None)
        _check_key_data(aval, impl)
        if config.jax_legacy_prng_key != "allow":
            message = ("Legacy uint32 key array passed as key to jax.random function. Please "
                       "create keys using jax.random.key(). If use of a raw key array was "
                       "intended, set jax_legacy_prng_key=\"allow\".")
            if config.jax_legacy_prng_key == "error":
                raise ValueError(message)
            warnings.warn(message, stacklevel=3)
        elif config.jax_enable_custom_prng:
            warnings.warn("Raw arrays as random keys to jax.random functions are deprecated. "
                          "Assuming valid threefry2x32 key for now.", FutureWarning, stacklevel=3)
        # eagerly an Array of key data is wrapped as it is (random_wrap's impl, without the
        # bind: this is on every sampler call with a legacy key)
        typed = KeyArray(key, impl) if type(key) is _xla_array.Array and \
            _trace._ctx.trace is _trace.eval_trace else key_prims.random_wrap(key, impl)
        wrapped = True
        shape = tuple(aval.shape[:-len(impl.key_shape)])
    if not allow_batched and shape:
        # JAX's words name the shape of what was passed: a raw key array's with its data
        # axis, (4, 2) for four keys from PRNGKey's split, a typed key array's (4,)
        given = tuple(get_aval(key).shape) if wrapped else shape
        error = ValueError(f"{name} accepts a single key, but was given a key array of shape "
                           f"{given} != (). Use jax.vmap for batching.")
        error.batch_shape = shape       # the keys' count, for the key-batch card
        raise error
    if consumed_keys is not None and name not in KEEPS_KEY:
        if _staged(_trace._ctx.trace):
            _traced_draw(name)
        elif type(key) is KeyArray or type(key) is _xla_array.Array or isinstance(key, Tracer):
            consumed_keys.append((key, name, _drawn_at()))
    return typed, wrapped


def refused_draw() -> None:
    """The key-reuse checker (jax_debug_key_reuse) raising now, inside a random function the
    user's lines called: JAX 0.10.2 raises KeyReuseError there and the call returns nothing,
    so the draw recorded for it (the newest from the same lines) is taken back: the note
    under the cell does not tell a draw that never was, beside JAX's own error."""
    if not consumed_keys:
        return
    calls = _drawn_at()
    for i in range(len(consumed_keys) - 1, -1, -1):
        if consumed_keys[i][2] == calls:
            del consumed_keys[i]
            return


def _staged(trace) -> bool:
    """Whether a program is being recorded (jit's trace, a loop's body, a cond's branches,
    make_jaxpr): its draws are told from its jaxpr, where a key drawn with in each branch is
    drawn with once. Under grad or vmap alone the user's Python runs at each call, as eagerly:
    one key (a concrete one, or vmap's tracer of the batch) given to two draws is a reuse."""
    while trace is not None and not trace.stages:
        trace = trace.parent
    return trace is not None


# The user's lines that called a random function while a function was traced (jit's trace),
# while the notebook watches: (code object, instruction offset) -> the function's name
# (`normal`), what the note under a jitted function's reused key names the equations at that
# call by (their source_info's code and lasti); a library's draw (its line not the user's)
# is not here. Kept over the cells (a jitted function traced in an earlier cell, called twice
# in a jit traced now, has its draws' equations inside, not traced again), the oldest of
# TRACED_DRAWS dropped first; emptied when the note stops.
traced_draws: dict = {}
TRACED_DRAWS = 4096


def _traced_draw(name: str) -> None:
    frame = _callers_frame(sys._getframe(2))
    if frame is not None and is_user_filename(frame.f_code.co_filename):
        if len(traced_draws) >= TRACED_DRAWS:
            del traced_draws[next(iter(traced_draws))]
        traced_draws.setdefault((frame.f_code, frame.f_lasti), name)


def _callers_frame(frame):
    """The first frame from `frame` outward that is not jxkernel's (the random function's
    own frames walked past): the frame that called it, a user's or a library's."""
    while frame is not None and is_jxkernel_file(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def _drawn_at():
    """The user's frames that called the random function, innermost first, each (file, line,
    function, its code object, the call's instruction offset: two calls on one line are two),
    up to the first frame that is not the user's, and then that
    frame's file where it is jxkernel's (a workshop's check calling the learner's function on
    purpose, or `jax.tree.map` calling it per leaf: the note tells them apart); None where the
    frame that called the random function is not the user's: a library's (registered as Flax
    registers itself), the standard library's, `%timeit`'s."""
    frame = _callers_frame(sys._getframe(2))
    calls = []
    while frame is not None and is_user_filename(frame.f_code.co_filename):
        calls.append((frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name,
                      frame.f_code, frame.f_lasti))
        frame = frame.f_back
    if frame is not None and calls and is_jxkernel_file(frame.f_code.co_filename):
        calls.append(frame.f_code.co_filename)
    return tuple(calls) or None


def _rewrap(wrapped: bool, keys):
    """What split/fold_in return for typed `keys`: raw data for a raw key, typed keys for
    typed ones; jax_enable_custom_prng: typed keys out even for raw keys in, as JAX's
    _return_prng_keys."""
    if wrapped and not config.jax_enable_custom_prng:
        return key_prims.random_unwrap(keys)
    return keys


def impl_of(keys) -> prng.PRNGImpl:
    """The implementation of typed keys (a KeyArray or a tracer)."""
    return get_aval(keys).dtype._impl


class PRNGSpec:
    """What `key_impl` gives for keys of an implementation of the user's (registered ones
    give their name): it names the implementation to `key` and `wrap_key_data`, as JAX's."""
    __slots__ = ("_impl",)

    def __init__(self, impl: prng.PRNGImpl):
        self._impl = impl

    def __repr__(self):
        return f"PRNGSpec({self._impl.name!r})"

    def __str__(self):
        return str(self._impl)

    def __hash__(self):
        return hash(self._impl)

    def __eq__(self, other):
        return isinstance(other, PRNGSpec) and self._impl == other._impl


def default_prng_impl() -> prng.PRNGImpl:
    """The implementation jax_default_prng_impl names."""
    return prng.prngs[config.jax_default_prng_impl]


def resolve_prng_impl(impl) -> prng.PRNGImpl:
    """The implementation named by `impl`: a name, a key dtype, a PRNGSpec, a PRNGImpl, or
    None (the default one)."""
    if impl is None:
        return default_prng_impl()
    if type(impl) is prng.PRNGImpl:
        return impl
    if isinstance(impl, (KeyDType, PRNGSpec)):
        return impl._impl
    if type(impl) is not str:
        raise TypeError(f"unrecognized type {type(impl)} for specifying PRNG implementation.")
    if impl in prng.prngs:
        return prng.prngs[impl]
    raise ValueError(f'unrecognized PRNG implementation "{impl}". Did you mean one of: '
                     f'{", ".join(f"{chr(34)}{n}{chr(34)}" for n in prng.prngs)}?')


_resolve_impl = resolve_prng_impl


# ------------------------------------------------------------------ constructors
def _seed_key(ctor_name: str, seed, impl):
    """Typed keys from `seed` (`random_seed`)."""
    impl = _resolve_impl(impl)
    if is_typed_key(seed):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given a PRNG key.")
    # np.ndim's reading, as JAX's (a list of seeds: its shape; None, a string: jnp.asarray's
    # errors, below)
    shape = () if dtypes.is_python_scalar(seed) else tuple(np.shape(seed))
    if shape:
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given an array of shape "
                        f"{shape} != (). Use jax.vmap for batching")
    return random_seed(seed, impl)


def random_seed(seeds, impl: prng.PRNGImpl):
    """Keys of `impl` from integer seeds of any shape (JAX's prng.random_seed), each seed
    plus jax_random_seed_offset."""
    if isinstance(seeds, (int, np.integer)) and not isinstance(seeds, np.ndarray):
        # as JAX: a Python int goes through int64 (an error past 64 bits), then takes the
        # canonical int type, i.e. wraps to 32 bits unless x64 is on
        seeds = np.int64(seeds) if isinstance(seeds, int) else seeds
        seeds = np.asarray(seeds).astype(dtypes.canonicalize_dtype(np.asarray(seeds).dtype))
    elif not isinstance(seeds, (Array, Tracer, np.ndarray)):
        seeds = _jnp.asarray(seeds)         # (JAX's: a float made an Array, text refused)
    if not dtypes.is_int(get_aval(seeds).dtype):
        # JAX's check runs in random_seed_p's jitted impl: the seed is shown as its tracer
        shown = f"JitTracer({aval_text(get_aval(seeds))})"
        e = TypeError(f"PRNG key seed must be an integer; got {shown}")
        # (JAX's is random_seed_p's impl, raised under eager dispatch's boundary: its note)
        filter_before_raising(e, sys._getframe())
        raise e
    if config.jax_random_seed_offset:
        seeds = _jnp.add(seeds, config.jax_random_seed_offset)
    return key_prims.random_seed(seeds, impl)


def PRNGKey(seed, *, impl=None):
    """A legacy PRNG key (uint32[2]) from an integer seed: [seed >> 32, seed & 0xFFFFFFFF].

    >>> import jxkernel as jax
    >>> jax.random.PRNGKey(42)
    Array([ 0, 42], dtype=uint32)
    """
    keys = _seed_key("PRNGKey", seed, impl)
    return keys if config.jax_enable_custom_prng else key_prims.random_unwrap(keys)


def key(seed, *, impl=None, dtype=None):
    """A typed PRNG key (a scalar KeyArray of dtype key<fry>, or of `impl`'s dtype) from an
    integer seed.

    >>> key(42)
    Array((), dtype=key<fry>) overlaying:
    [ 0 42]
    >>> key(42, impl="rbg")
    Array((), dtype=key<rbg>) overlaying:
    [ 0 42  0 42]
    """
    if dtype is not None:
        if impl is not None:
            raise ValueError("Cannot specify both `impl` and `dtype` arguments to "
                             "jax.random.key")
        impl = dtype
    return _seed_key("key", seed, impl)


def key_data(keys):
    """The uint32 data underneath keys (`random_unwrap`; legacy keys are returned as they
    are)."""
    if is_typed_key(keys):
        return key_prims.random_unwrap(keys)
    check_key("key_data", keys, allow_batched=True)
    return keys


def wrap_key_data(key_bits_array, *, impl=None, dtype=None):
    """Typed keys over `key_bits_array` (uint32, trailing dimension 2 for threefry, 4 for rbg
    and unsafe_rbg): `random_wrap`."""
    if dtype is not None:
        if impl is not None:
            raise ValueError("Cannot specify both `impl` and `dtype` arguments to "
                             "jax.random.wrap_key_data")
        impl = dtype
    impl = _resolve_impl(impl)
    # (keys are checked as data, as JAX does: a key array fails its shape or dtype check)
    _check_key_data(get_aval(key_bits_array), impl)
    return key_prims.random_wrap(key_bits_array, impl)


def key_dtype(impl=None) -> KeyDType:
    """The dtype of typed keys of PRNG implementation `impl` (default: the default one)."""
    return key_prims.key_dtypes[_resolve_impl(impl)]


def key_impl(keys):
    """The name of `keys`' implementation ('threefry2x32' for raw keys by default); a
    PRNGSpec for an implementation of the user's."""
    typed, _ = check_key("key_impl", keys, allow_batched=True)
    impl = impl_of(typed)
    return impl.name if impl.name in prng.prngs else PRNGSpec(impl)


def clone(key):
    """A copy of `key` that the key-reuse checker (random/key_reuse.py) takes as fresh: for
    using one key twice on purpose (`random_clone`; its values are the key's).

    >>> import jxkernel as jax
    >>> with jax.debug_key_reuse(True):
    ...     k = key(0)
    ...     a, b = jax.random.normal(clone(k)), jax.random.normal(k)       # no KeyReuseError
    """
    return key_prims.random_clone_p.bind(key) if is_typed_key(key) else key


# ------------------------------------------------------------------ key operations
def split(key, num=2):
    """`num` new keys (or an array of keys of shape `num`) derived from `key`.

    >>> import jxkernel as jax
    >>> split(jax.random.PRNGKey(0), 3).shape
    (3, 2)
    """
    typed, wrapped = check_key("split", key)
    out = _rewrap(wrapped, key_prims.random_split(typed, _split_shape(num)))
    if wrapped and consumed_keys is not None and type(out) is _xla_array.Array:
        # raw keys, the notebook watching: `keys[0]` twice told as one key (taken_keys.py)
        taken_keys.follow_key_data(out, len(typed.dtype.key_shape))
    return out


def _split_shape(num) -> tuple:
    """split's `num` as the shape of the keys, Python ints (a concrete array's too). JAX binds
    it as random_split's parameter as given: a traced count fails the bind's hash where jit
    stages it (JAX's TypeError, not "Shapes must be 1D sequences"), its concretization under
    vmap; a float is no index (Python's words, as JAX's)."""
    shape = tuple(num) if isinstance(num, Sequence) else (num,)
    for d in shape:
        if isinstance(d, Tracer) and d.to_concrete_value() is None:
            if isinstance(d, DynamicJaxprTracer):
                raise unhashable_parameter("random_split", "shape", shape, d)
            _trace.concrete_or_error(None, d)
    if not any(map(is_symbolic, shape)):
        shape = tuple(map(operator.index, shape))
    return lax.shapes.canonicalize_shape(shape)


def _fold_in_data(data):
    if isinstance(data, bool) or isinstance(data, int):
        if not 0 <= data < 2 ** 32:
            raise OverflowError(f"Python integer {data} out of bounds for uint32")
        return np.uint32(data)
    if isinstance(data, float):
        return np.asarray(data).astype(np.uint32)
    return data


def fold_in(key, data):
    """A new key from `key` and a 32-bit integer `data` (e.g. a step or device index).

    >>> import jxkernel as jax
    >>> fold_in(jax.random.PRNGKey(0), 1)
    Array([ 928981903, 3453687069], dtype=uint32)
    """
    data_key, wrapped = check_key("fold_in", key)
    data = _fold_in_data(data)
    shape = tuple(get_aval(data).shape)
    if shape:
        # JAX's words, "ofshape" as they run together there
        raise TypeError(f"fold_in accepts a scalar, but was given an array ofshape {shape} "
                        f"!= (). Use jax.vmap for batching.")
    return _rewrap(wrapped, key_prims.random_fold_in(data_key, data))


def user_dtype(dtype, default, fun_name=""):
    """A dtype argument as arrays get it (None: `default`, e.g. float): jnp's
    canonicalize_user_dtype, as JAX's samplers call check_and_canonicalize_user_dtype (64-bit
    types without x64 as jax_explicit_x64_dtypes says: shrunk with a warning by default)."""
    return canonicalize_user_dtype(default if dtype is None else dtype)


def takes_out_sharding(sampler):
    """`sampler` taking JAX's `out_sharding=` (a NamedSharding, or a PartitionSpec under
    set_mesh): its result laid out, and typed on Explicit axes, as that sharding says. The
    values do not depend on it (JAX's threefry is partitionable: each element's bits are the
    same however the array is split).

    >>> import jxkernel as jax
    >>> from jxkernel.sharding import AxisType, PartitionSpec as P
    >>> mesh = jax.make_mesh((1, 1), ('x', 'y'), axis_types=(AxisType.Explicit,) * 2)
    >>> with jax.set_mesh(mesh):
    ...     print(jax.typeof(jax.random.normal(key(0), (8, 4), out_sharding=P('x', 'y'))))
    float32[8@x,4@y]
    """
    @functools.wraps(sampler)
    def sample(*args, out_sharding=None, **kwargs):
        if out_sharding is not None and not isinstance(out_sharding,
                                                       (NamedSharding, PartitionSpec)):
            raise TypeError(f"`out_sharding` argument of {sampler.__name__} only supports "
                            f"instances of `NamedSharding` or `PartitionSpec`. Got "
                            f"{out_sharding} of type: {type(out_sharding)}")
        if config.jax_debug_key_reuse and args and _auto_axes_sampling(
                sampler, out_sharding, args, kwargs):
            args = (_resharded_key(args[0]),) + args[1:]
        try:
            out = sampler(*args, **kwargs)
        except Exception as e:
            # JAX's samplers take out_sharding themselves: this frame leaves the learner's
            # traceback (random.normal's dtype error shows normal's frame alone, as JAX's)
            leave_out_wrapper(e)
            raise
        if isinstance(out, Tracer) and isinstance(out_sharding, NamedSharding) and \
                not isinstance(out_sharding.mesh, AbstractMesh):
            # traced, over the mesh's AbstractMesh, as JAX's canonicalize_sharding gives
            # auto_axes' reshard: the type names no devices, which come from the arguments
            # (a key on one device and a mesh of four: JAX's device-assignment error)
            out_sharding = NamedSharding(out_sharding.mesh.abstract_mesh, out_sharding.spec)
        return laid_out(out, out_sharding)
    register_wrapper(sample.__code__)
    return sample


def _auto_axes_sampling(sampler, out_sharding, args, kwargs) -> bool:
    """Whether JAX's sampler runs under auto_axes, which reshards the key first: given an
    out_sharding, or a scalar shape under a mesh of all Explicit axes (its
    canonicalize_sharding_for_samplers picks P() then)."""
    if out_sharding is not None:
        return True
    mesh = get_mesh()
    if mesh is None or mesh.empty or not mesh.are_all_axes_explicit:
        return False
    try:
        shape = inspect.signature(sampler).bind(*args, **kwargs).arguments.get("shape", ())
    except TypeError:               # (the sampler's own call reports it)
        return False
    return shape == () or shape == []


def _resharded_key(key):
    """`key` as the sampler sees it inside JAX's auto_axes: a new array (its reshard's
    result), which the key-reuse checker marks consumed in place of the key passed (so using
    that key again eagerly raises nothing there, as in JAX). A jaxpr traced keeps `key`."""
    inner = key
    while type(inner).__name__ == "BatchTracer":     # (eager vmap: its keys are arrays)
        inner = inner.val
    return key_prims.random_clone_p.bind(key) if isinstance(inner, KeyArray) else key


@takes_out_sharding
def bits(key, shape=(), dtype=None, *, out_sharding=None):
    """Uniform random bits as unsigned integers (uint32 by default, uint64 with x64).

    >>> import jxkernel as jax
    >>> bits(jax.random.PRNGKey(0), (3,))
    Array([4070199207, 4202968722, 1427181096], dtype=uint32)
    """
    data, _ = check_key("bits", key)
    dtype = dtypes.default_uint_dtype() if dtype is None else user_dtype(dtype, None)
    if not dtypes.is_unsigned(dtype):
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype}")
    shape = static_shape("bits", shape)
    return key_prims.checked_random_bits(data, dtype.itemsize * 8, shape)


def static_shape(name: str, shape):
    """`shape` as a tuple of ints (one int is one size), as JAX's samplers read it; a traced
    size is JAX's shape TypeError, carrying the argument it depends on (the notebook's card
    reads it). `name` is the sampler's, for the callers' symmetry with their other checks.
    As JAX's, an array of sizes is a shape, and None, a 0-d array or a NumPy integer is
    refused as not iterable (a Python int is one size)."""
    if isinstance(shape, np.integer):     # Python's words, as JAX's tuple(shape) has them
        iter(shape)
    dims = lax.shapes.canonicalize_shape(shape)
    if any(not is_symbolic(d) and d < 0 for d in dims):
        # JAX's words where its sampler broadcasts (randint, bernoulli); normal, uniform and
        # bits give its lowering a negative size, an MLIRError ("Invalid type") at compile
        raise TypeError(f"Only non-negative indices are allowed when broadcasting static "
                        f"shapes, but got shape {dims}.")
    return dims
