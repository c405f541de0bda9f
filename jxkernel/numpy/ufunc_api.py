"""jnp.ufunc and jnp.frompyfunc: a scalar Python function made into a NumPy-style ufunc,
with `reduce`, `accumulate`, `at`, `reduceat` and `outer` built from vectorize, loops
and vmap, as in JAX.

    >>> add = jnp.frompyfunc(lambda a, b: a + b, nin=2, nout=1, identity=0)
    >>> add(jnp.arange(3), 1)
    Array([1, 2, 3], dtype=int32)
    >>> add.reduce(jnp.arange(4)), add.accumulate(jnp.arange(4))
    (Array(6, dtype=int32), Array([0, 1, 3, 6], dtype=int32))
"""
from __future__ import annotations

import math
import operator

import numpy as np

from .. import lax
from ..core import dtypes as _dtypes
from ..core.traceback_util import filter_raised, register_boundary
from ..transforms.batching import vmap
from ..transforms.jit import jit
from ..transforms.jit.namesakes import runs_jitted
from ..transforms.make_jaxpr import eval_shape
from .creation import asarray
from .functional import vectorize
from .index_tricks import take
from .manipulation import append, broadcast_shapes, broadcast_to, moveaxis
from ..xla.array import Array
from .util import canonicalize_axis, check_arraylike, passing_text
from .util import where as _where

__all__ = ["ufunc", "frompyfunc"]

# types check_arraylike always accepts (exact types: a subclass takes the whole check)
_PASSES_CHECK = frozenset({Array, np.ndarray, bool, int, float, complex})

_AT_INPLACE = ("jnp.ufunc.at cannot update arrays in place (JAX arrays are immutable): "
               "pass inplace=False and use the returned array")


class ufunc:
    """A ufunc over `func`, a function of `nin` scalars giving `nout` values. Instances
    are hashable and compare by their function and properties, so they may be static
    arguments of jit.

        >>> jnp.ufunc(lambda a, b: a * b, 2, 1, identity=1).outer(jnp.arange(3), jnp.arange(2))
        Array([[0, 0],
               [0, 1],
               [0, 2]], dtype=int32)
    """

    def __init__(self, func, /, nin, nout, *, name=None, nargs=None, identity=None,
                 call=None, reduce=None, accumulate=None, at=None, reduceat=None):
        self.__doc__ = func.__doc__
        self.__name__ = name or getattr(func, "__name__", "ufunc")
        # read-only: a ufunc marked static must not change its hash after jit keyed on it
        self.__props = (func, operator.index(nin), operator.index(nout),
                        operator.index(nargs or nin), identity)
        # as JAX's: faster implementations of the methods (jnp.add's call is the elementwise
        # function itself, its reduce jnp.sum, ...); not part of the identity
        self.__impls = {"call": call, "reduce": reduce, "accumulate": accumulate, "at": at,
                        "reduceat": reduceat}
        self.__call = call          # read on every jnp.add(x, y): an attribute, not a lookup

    _func = property(lambda self: self.__props[0])
    nin = property(lambda self: self.__props[1])
    nout = property(lambda self: self.__props[2])
    nargs = property(lambda self: self.__props[3])
    identity = property(lambda self: self.__props[4])

    def _key(self):
        return (self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs)

    def __hash__(self):
        return hash(self._key())

    def __eq__(self, other):
        return isinstance(other, ufunc) and self._key() == other._key()

    def __repr__(self):
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args, out=None, where=None):
        # as JAX's, before its jit (jnp.add(object(), 1) is this check's error, not jit's);
        # text passes here (np.isscalar's) and is refused by the jitted function
        # (types the check always passes skip it: it is on every eager jnp.add, and cost it
        # 2 µs of 12, stop 72's benchmark against JAX)
        if not all(type(a) in _PASSES_CHECK for a in args):
            check_arraylike(self.__name__, *passing_text(args))
        if out is not None or where is not None:
            _refuse(out, f"out argument of {self}")
            _refuse(where, f"where argument of {self}")
        try:    # a traceback boundary past JAX's own check (whose error has no note), where
            if self.__call is not None:     # its jitted function is one: jnp's elementwise
                return self.__call(*args)   # function
            return _call_jit(self, *args)
        except Exception as e:
            filter_raised(e)
            raise

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None,
               where=None):
        """`a` folded along `axis` with this binary ufunc (from `initial`, else the
        identity, else the first element)."""
        self._check_binary("reduce")
        check_arraylike(f"{self.__name__}.reduce", a)
        _refuse(out, f"out argument of {self.__name__}.reduce()")
        if where is not None:
            self._check_where(where, initial)
        axis = tuple(axis) if isinstance(axis, list) else axis
        if self.__impls["reduce"] is not None:
            return _reduce_impl(self.__impls["reduce"], a, axis, dtype, keepdims, initial, where)
        dtype = None if dtype is None else np.dtype(dtype)
        return _reduce_jit(self, a, axis, dtype, bool(keepdims), initial, where)

    def accumulate(self, a, axis=0, dtype=None, out=None):
        """The running results of `reduce` along `axis`."""
        self._check_binary("accumulate")
        _refuse(out, f"out argument of {self.__name__}.accumulate()")
        if self.__impls["accumulate"] is not None:     # (its check names it: cumsum)
            return _accumulate_impl(self.__impls["accumulate"], a, axis, dtype)
        check_arraylike(f"{self.__name__}.accumulate", a)
        if axis is None or isinstance(axis, tuple):
            raise ValueError("accumulate does not allow multiple axes")
        dtype = None if dtype is None else np.dtype(dtype)
        return _accumulate_jit(self, a, operator.index(axis), dtype)

    def at(self, a, indices, b=None, /, *, inplace=True):
        """A copy of `a` with this ufunc applied at `indices` (repeated indices apply
        repeatedly); `inplace=False` is required."""
        if inplace:
            raise NotImplementedError(_AT_INPLACE)
        args = () if b is None else (b,)
        check_arraylike(f"{self.__name__}.at", a, *args)
        if self.__impls["at"] is not None:
            return _at_impl(self.__impls["at"], a, indices, *args)
        return _at_jit(self, a, indices, *args)

    def reduceat(self, a, indices, axis=0, dtype=None, out=None):
        """`reduce` over the segments of `a` starting at each of `indices` along `axis`."""
        self._check_binary("reduceat")
        check_arraylike(f"{self.__name__}.reduceat", a, indices)
        _refuse(out, f"out argument of {self.__name__}.reduceat()")
        if axis is None or isinstance(axis, (tuple, list)):
            raise ValueError("reduceat requires a single integer axis.")
        dtype = None if dtype is None else np.dtype(dtype)
        return _reduceat_jit(self, a, indices, operator.index(axis), dtype)

    def outer(self, A, B, /):
        """This binary ufunc on every pair of elements: shape `A.shape + B.shape`."""
        self._check_binary("outer")
        check_arraylike(f"{self.__name__}.outer", A, B)
        return _outer_jit(self, A, B)

    def _check_binary(self, method):
        if self.nin != 2:
            raise ValueError(f"{method} only supported for binary ufuncs")
        if self.nout != 1:
            raise ValueError(f"{method} only supported for functions returning a single value")

    def _check_where(self, where, initial):
        check_arraylike(f"{self.__name__}.reduce", where)
        if self.identity is None and initial is None:
            raise ValueError(f"reduction operation {self.__name__!r} does not have an "
                             "identity, so to use a where mask one has to specify 'initial'.")
        kind = _dtypes.dtype(where)          # (an abstract dtype: `where` may be traced)
        if kind != np.bool_:
            raise ValueError(f"where argument must have dtype=bool; got dtype={kind}")


ufunc.__module__ = "jxkernel.numpy"   # its public home, as JAX's is jax.numpy
# JAX's methods are jits, their checks inside: a string gets the jit's error, a token arrives
# as jit's tracer (its static arguments as JAX names them)
for _method, _static in (("reduce", ("self", "axis", "dtype", "out", "keepdims")),
                         ("accumulate", ("self", "axis", "dtype")), ("at", ("self", "inplace")),
                         ("reduceat", ("self", "axis", "dtype")), ("outer", ("self",))):
    runs_jitted(getattr(ufunc, _method), _static, checks_first=False)
del _method, _static


def _named_jit(name, fun, **kwargs):
    """`fun` under jit named as JAX's method (`jit[name=reduce]` in a jaxpr: JAX jits
    ufunc.reduce, accumulate and at)."""
    fun.__name__, fun.__qualname__ = name, f"ufunc.{name}"     # (jit's errors: ufunc.reduce)
    return jit(fun, **kwargs)


_reduce_impl = _named_jit(
    "reduce", lambda impl, a, axis, dtype, keepdims, initial, where: impl(
        a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where),
    static_argnums=(0, 2, 3, 4))
_accumulate_impl = _named_jit(
    "accumulate", lambda impl, a, axis, dtype: impl(a, axis=axis, dtype=dtype),
    static_argnums=(0, 2, 3))
_at_impl = _named_jit("at", lambda impl, a, indices, *args: impl(a, indices, *args),
                      static_argnums=(0,))


def frompyfunc(func, /, nin, nout, *, identity=None):
    """`func`, a function of `nin` scalars returning `nout` values, as a jnp.ufunc.

        >>> jnp.frompyfunc(lambda a, b: a + b, 2, 1)(jnp.arange(3), 1)
        Array([1, 2, 3], dtype=int32)
    """
    return ufunc(func, nin, nout, identity=identity)


def _refuse(value, what):
    if value is not None:
        raise NotImplementedError(what)


def _one(x):
    """A scalar 1 of `x`'s dtype: what the function's output dtype is found from."""
    return lax.full((), 1, asarray(x).dtype)


def _out_dtype(uf, *args):
    return eval_shape(uf._func, *map(_one, args)).dtype


def _call_vectorized(uf, *args):
    return vectorize(uf._func)(*args)


_call_vectorized.__qualname__ = "ufunc._call_vectorized"    # as jit's errors name JAX's
_call_jit = jit(_call_vectorized, static_argnums=0)


@jit(static_argnums=(0, 2, 3, 4))
def _reduce_jit(uf, a, axis, dtype, keepdims, initial, where):
    arr = asarray(a)
    initial = uf.identity if initial is None else initial
    dtype = _out_dtype(uf, arr, arr) if dtype is None else dtype
    where = None if where is None else broadcast_to(where, arr.shape)
    if isinstance(axis, tuple):
        raise NotImplementedError("tuple of axes")
    if axis is None:
        final_shape = (1,) * arr.ndim if keepdims else ()
        arr, where = arr.ravel(), (None if where is None else where.ravel())
    else:
        axis = canonicalize_axis(axis, arr.ndim)
        final_shape = arr.shape[:axis] + ((1,) if keepdims else ()) + arr.shape[axis + 1:]
        arr, where = moveaxis(arr, axis, 0), (None if where is None else moveaxis(where, axis, 0))
    if arr.shape[0] == 0:
        if initial is None:
            raise ValueError(f"zero-size array to reduction operation {uf.__name__} "
                             "which has no identity")
        return lax.full(final_shape, initial, dtype)

    def step(i, acc):
        new = uf(acc, arr[i].astype(dtype))
        return new if where is None else _where(where[i], new, acc)

    start, init = (1, arr[0]) if initial is None else (0, initial)
    init = broadcast_to(asarray(init).astype(dtype), arr.shape[1:])
    return lax.fori_loop(start, arr.shape[0], step, init).reshape(final_shape)


@jit(static_argnums=(0, 2, 3))
def _accumulate_jit(uf, a, axis, dtype):
    arr = asarray(a)
    dtype = _out_dtype(uf, arr, arr) if dtype is None else dtype
    axis = canonicalize_axis(axis, arr.ndim)
    if arr.size == 0:
        return lax.full(arr.shape, 0, dtype)
    arr = moveaxis(arr, axis, 0)

    def step(carry, _):
        i, acc = carry
        y = _where(i == 0, arr[0].astype(dtype), uf(acc.astype(dtype), arr[i].astype(dtype)))
        return (i + 1, y), y

    _, ys = lax.scan(step, (0, arr[0].astype(dtype)), None, length=arr.shape[0])
    return moveaxis(ys, 0, axis)


@jit(static_argnums=0)
def _at_jit(uf, a, indices, *args):
    dtype = _out_dtype(uf, a, *args)
    a = asarray(a).astype(dtype)
    args = tuple(asarray(arg).astype(dtype) for arg in args)
    indices = indices if isinstance(indices, tuple) else (indices,)
    shape = broadcast_shapes(*[np.shape(i) for i in indices if not isinstance(i, slice)])
    if not shape:
        return a.at[indices].set(uf(a.at[indices].get(), *args))
    if args:
        b = args[0]
        b = broadcast_to(b, (*shape, *b.shape[len(shape):]))
        args = (b.reshape(math.prod(shape), *b.shape[len(shape):]),)
    flat = [i if isinstance(i, slice) else broadcast_to(i, shape).ravel() for i in indices]

    def step(carry, _):
        n, acc = carry
        idx = tuple(i if isinstance(i, slice) else i[n] for i in flat)
        return (n + 1, acc.at[idx].set(uf(acc.at[idx].get(), *(arg[n] for arg in args)))), None

    (_, out), _ = lax.scan(step, (0, a), None, length=math.prod(shape))
    return out


@jit(static_argnums=(0, 3, 4))
def _reduceat_jit(uf, a, indices, axis, dtype):
    a, indices = asarray(a), asarray(indices)
    if a.ndim == 0:
        raise ValueError(f"reduceat: a must have 1 or more dimension, got a.shape={a.shape}")
    if indices.ndim != 1:
        raise ValueError(f"reduceat: indices must be one-dimensional, got "
                         f"indices.shape={indices.shape}")
    axis = canonicalize_axis(axis, a.ndim)
    out = take(a, indices, axis=axis)
    other_axes = [d for d in range(out.ndim) if d != axis]
    bounds = lax.expand_dims(append(indices, a.shape[axis]), other_axes)
    starts = lax.slice_in_dim(bounds, 0, bounds.shape[axis] - 1, axis=axis)
    ends = lax.slice_in_dim(bounds, 1, bounds.shape[axis], axis=axis)

    def step(i, acc):
        inside = (i > starts) & (i < ends)
        return _where(inside, uf(acc, take(a, lax.expand_dims(i, (0,)), axis=axis)), acc)

    return lax.fori_loop(0, a.shape[axis], step, out)    # dtype is ignored, as in JAX


@jit(static_argnums=0)
def _outer_jit(uf, A, B):
    flat = lambda x: lax.reshape(asarray(x), (np.size(x),))
    result = vmap(vmap(uf, (None, 0)), (0, None))(flat(A), flat(B))
    return result.reshape(*np.shape(A), *np.shape(B))


register_boundary(ufunc.__call__.__code__)   # (its except clause filters: see __call__)
