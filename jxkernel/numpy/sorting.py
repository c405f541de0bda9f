"""Sorting and searching sorted arrays: sort, argsort, lexsort, partition, searchsorted
(unique and the set routines are in setops.py; nonzero, where and extract in selection.py).

    >>> jnp.argsort(jnp.array([3, 1, 2]))
    Array([1, 2, 0], dtype=int32)
"""
from __future__ import annotations

import math
import operator

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.avals import get_aval
from ..core.errors import ConcretizationTypeError
from ..core.symbolic import is_symbolic
from ..core.vma import vary_like
from ..core.interpreter_primitives import typed_constant
from ..lax import conversion
from ..transforms.jit import jit
from ..transforms.jit.namesakes import jax_jitted
from . import util
from .util import jnp_jit
from .index_tricks import put_along_axis
from .indexing import _IndexUpdateHelper, _scatter_update, getitem
from .manipulation import _slice_axis, moveaxis, swapaxes
from .creation import arange
from .dtypes import canonicalize_user_dtype
from .reductions import _where, cumsum, sum as _sum
from .ufuncs import floor_divide, remainder
from .util import aval_of, canonicalize_axis, check_arraylike, ensure_array

__all__ = ["sort", "argsort", "lexsort", "sort_complex", "partition", "argpartition",
           "searchsorted"]


def _asarray(name, x):
    check_arraylike(name, x)
    return ensure_array(x)


def _shape(x) -> tuple:
    return aval_of(x).shape


_INT32, _INT64 = np.dtype(np.int32), np.dtype(np.int64)


def _index_dtype(n: int):
    """The default int for index results (int64 only when x64 is on, as NumPy's)."""
    return dtypes.default_int_dtype() if is_symbolic(n) or n < 2 ** 31 else np.dtype(np.int64)


def _ravel(x):
    return lax.reshape(x, (math.prod(_shape(x)),))


# ------------------------------------------------------------------ sort, argsort, lexsort
def _sort_operand(name, a, axis, kind, order):
    """sort's and argsort's checks (JAX's errors for NumPy's kind= and order=), and the
    array flattened where axis is None."""
    arr = _asarray(name, a)
    if kind is not None:
        raise TypeError(f"'kind' argument to {name} is not supported. Use stable=True or "
                        f"stable=False to specify sort stability.")
    if order is not None:
        raise TypeError(f"'order' argument to {name} is not supported.")
    return (_ravel(arr), 0) if axis is None else (arr, axis)


# jitted as JAX's (a learner's jaxpr shows `jit[name=sort]`, `jit[name=argsort]`)
@jax_jitted
@jnp_jit(static_argnames=("axis", "kind", "order", "stable", "descending"))
def sort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
         descending: bool = False):
    """`a` sorted along `axis` (flattened if None); NaNs last.

    >>> jnp.sort(jnp.array([[3, 1], [0, 2]]), axis=0)
    Array([[0, 1],
           [3, 2]], dtype=int32)
    """
    arr, axis = _sort_operand("sort", a, axis, kind, order)
    dim = canonicalize_axis(axis, len(_shape(arr)))
    out = lax.sort(arr, dimension=dim, is_stable=stable)
    return lax.rev(out, (dim,)) if descending else out


@jax_jitted
@jnp_jit(static_argnames=("axis", "kind", "order", "stable", "descending", "dtype"))
def argsort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
            descending: bool = False, dtype=None):
    """Indices that sort `a` along `axis` (stable: ties keep their order, also descending).

    >>> jnp.argsort(jnp.array([2, 1, 2, 0]), descending=True)
    Array([0, 2, 1, 3], dtype=int32)
    """
    arr, axis = _sort_operand("argsort", a, axis, kind, order)
    shape = _shape(arr)
    dim = canonicalize_axis(axis, len(shape))
    idx_dtype = dtypes.canonicalize_named(dtype) if dtype is not None else \
        _index_dtype(shape[dim])
    # typed as `arr` (JAX's): sort wants its operands typed alike over a mesh
    iota = lax.broadcasted_iota(idx_dtype, shape, dim, out_sharding=get_aval(arr).split)
    # stable descending: reverse first so equal keys come out in their original order
    if descending and stable:
        arr, iota = lax.rev(arr, (dim,)), lax.rev(iota, (dim,))
    _, idx = lax.sort_key_val(arr, iota, dimension=dim, is_stable=stable)
    return lax.rev(idx, (dim,)) if descending else idx


@jax_jitted
@jnp_jit(static_argnames=("axis",))
def lexsort(keys, axis: int = -1):
    """Indices that sort by the last key, then the one before it, and so on.

    >>> jnp.lexsort((jnp.array([1, 0, 1]), jnp.array([0, 0, -1])))
    Array([2, 1, 0], dtype=int32)
    """
    # a jit of its own, as JAX's; an array of keys is iterated (slice + squeeze per row)
    keys = tuple(keys)
    check_arraylike("lexsort", *keys)
    keys = tuple(ensure_array(k) for k in keys)
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if len({_shape(k) for k in keys}) > 1:
        raise ValueError("all keys need to be the same shape")
    shape = _shape(keys[0])
    if not shape:
        return lax.broadcast_in_dim(typed_constant(0, dtypes.default_int_dtype()), (), ())
    axis = canonicalize_axis(axis, len(shape))
    iota = lax.broadcasted_iota(_index_dtype(shape[axis]), shape, axis)
    return lax.sort((*keys[::-1], iota), dimension=axis, num_keys=len(keys))[-1]


@jax_jitted
def sort_complex(a):
    """`a` sorted (real part first, then imaginary) and made complex."""
    a = _asarray("sort_complex", a)
    # along the last axis: a 0-d `a` has none (JAX's ValueError, as NumPy's AxisError)
    out = lax.sort(a, dimension=canonicalize_axis(-1, len(_shape(a))))
    d = aval_of(out).dtype
    cd = d if dtypes.is_complex(d) else (dtypes.complex128 if d == dtypes.float64 or
                                         d.itemsize == 8 else dtypes.complex64)
    return conversion.convert_element_type(out, dtypes.canonicalize_named(cd))


# ------------------------------------------------------------------ partition
def _neg(x):
    return lax.neg(x)


def _partition_operand(name, a, kth, axis):
    """partition's and argpartition's checks, kth and axis made non-negative, and the array
    with that axis moved last."""
    arr = _asarray(name, a)
    if dtypes.is_complex(aval_of(arr).dtype):
        raise NotImplementedError(f"jnp.{name} for complex dtype is not implemented.")
    axis = canonicalize_axis(axis, len(_shape(arr)))
    kth = canonicalize_axis(kth, _shape(arr)[axis])
    return swapaxes(arr, axis, -1), kth, axis


@jax_jitted(static_argnames=("kth", "axis"))
def partition(a, kth: int, axis: int = -1):
    """`a` with its kth smallest element (along axis) in place, smaller ones before it and
    larger ones after it (the parts are not sorted in the same way as NumPy's).

    >>> jnp.partition(jnp.array([5, 1, 4, 2, 3]), 2)[2]
    Array(3, dtype=int32)
    """
    arr, kth, axis = _partition_operand("partition", a, kth, axis)
    d = aval_of(arr).dtype
    if dtypes.is_unsigned(d):        # -x wraps for unsigned: negate x + 1 instead
        one = typed_constant(1, d)
        bottom = lax.sub(_neg(lax.top_k(_neg(lax.add(arr, one)), kth + 1)[0]), one)
    else:
        bottom = _neg(lax.top_k(_neg(arr), kth + 1)[0])
    top = lax.top_k(arr, _shape(arr)[-1] - kth - 1)[0]
    out = lax.concatenate([bottom, top], len(_shape(arr)) - 1)
    return swapaxes(out, -1, axis)


@jax_jitted(static_argnames=("kth", "axis"))
def argpartition(a, kth: int, axis: int = -1):
    """Indices that would partition `a` (see partition)."""
    arr, kth, axis = _partition_operand("argpartition", a, kth, axis)
    d = aval_of(arr).dtype
    if dtypes.is_unsigned(d):
        bottom_ind = lax.top_k(_neg(lax.add(arr, typed_constant(1, d))), kth + 1)[1]
    else:
        bottom_ind = lax.top_k(_neg(arr), kth + 1)[1]
    # the rest: top_k of a proxy that is 0 at the bottom indices (ties can't mix them up)
    proxy = lax.broadcast_in_dim(typed_constant(1, np.float32), _shape(arr), ())
    proxy = put_along_axis(proxy, bottom_ind, np.float32(0), axis=-1, inplace=False)
    top_ind = lax.top_k(proxy, _shape(arr)[-1] - kth - 1)[1]
    out = lax.concatenate([bottom_ind, top_ind], len(_shape(arr)) - 1)
    return swapaxes(out, -1, axis)


# ------------------------------------------------------------------ searchsorted
# The total order sort uses (JAX's _sort_lt_comparator): -0.0 == 0.0, NaNs last and all
# equal; complex numbers by real part, then imaginary part.
def _keys(x):
    return [lax.real(x), lax.imag(x)] if dtypes.is_complex(aval_of(x).dtype) else [x]


def _lt_key(x, y):
    if not dtypes.is_inexact(aval_of(x).dtype):
        return lax.lt(x, y)
    return lax.bitwise_or(lax.lt(x, y), lax.bitwise_and(lax.eq(x, x), lax.ne(y, y)))


def _le_key(x, y):
    if not dtypes.is_inexact(aval_of(x).dtype):
        return lax.le(x, y)
    return lax.bitwise_or(lax.le(x, y), lax.ne(y, y))


def _eq_key(x, y):
    if not dtypes.is_inexact(aval_of(x).dtype):
        return lax.eq(x, y)
    return lax.bitwise_or(lax.eq(x, y), lax.bitwise_and(lax.ne(x, x), lax.ne(y, y)))


def _lt_total(x, y, or_equal=False):
    """x < y (x <= y if or_equal) in sort's total order, lexicographic over the keys."""
    (*xs, x_last), (*ys, y_last) = _keys(x), _keys(y)
    p = _le_key(x_last, y_last) if or_equal else _lt_key(x_last, y_last)
    for xk, yk in zip(xs[::-1], ys[::-1]):
        p = lax.bitwise_or(_lt_key(xk, yk), lax.bitwise_and(_eq_key(xk, yk), p))
    return p


def _searchsorted_scan(a, q, side, dtype, unroll=False):
    """A binary search per query, all queries at once: log2(n + 1) halvings of
    (low, high], the answer in high (JAX's 'scan' method)."""
    n = _shape(a)[0]
    if n == 0:
        return lax.broadcast_in_dim(typed_constant(0, dtype), _shape(q), ())
    shape, udt = _shape(q), np.dtype(np.uint64 if dtype.itemsize == 8 else np.uint32)
    dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
                                    start_index_map=(0,))
    two = typed_constant(2, udt)

    def halve(carry, _):
        low, high = carry
        mid = lax.add(low, lax.div(lax.sub(high, low), two))
        pivot = lax.gather(a, lax.expand_dims(mid, (len(shape),)), dn, (1,), mode="clip")
        go_left = _lt_total(q, pivot, or_equal=side == "left")
        return (lax.select(go_left, low, mid), lax.select(go_left, mid, high)), None

    levels = int(np.ceil(np.log2(n + 1)))
    # (in a shard_map body, varying as the queries and `a` vary: the carry the halvings
    # give back does, as JAX's pvary of its initial bounds)
    init = tuple(vary_like(vary_like(lax.broadcast_in_dim(typed_constant(k, udt), shape, ()),
                                     q), a) for k in (0, n))
    (_, high), _ = lax.scan(halve, init, None, length=levels, unroll=levels if unroll else 1)
    return conversion.convert_element_type(high, dtype)


def _searchsorted_compare_all(a, q, side, dtype):
    """Count the elements before each query: an (n, *q.shape) comparison, summed."""
    full = _shape(a) + _shape(q)
    aa = lax.broadcast_in_dim(a, full, (0,))
    qq = lax.broadcast_in_dim(q, full, tuple(range(1, len(full))))
    before = _lt_total(aa, qq, or_equal=side == "right")
    return lax.reduce_sum(conversion.convert_element_type(before, dtype), (0,))


def _searchsorted_sort(a, q, side, dtype):
    """Rank the queries among a's elements by one stable sort of both, minus their rank
    among themselves."""
    n, m = _shape(a)[0], math.prod(_shape(q))
    work = np.dtype(np.int32 if n + m <= dtypes.iinfo(np.int32).max else np.int64)

    def rank(x):
        idx = lax.iota(work, _shape(x)[0])
        zeros = lax.broadcast_in_dim(typed_constant(0, work), _shape(idx), ())
        return _IndexUpdateHelper(zeros)[lax.sort_key_val(x, idx)[1]].set(idx)
    flat = _ravel(q)
    if side == "left":
        index = getitem(rank(lax.concatenate([flat, a], 0)), slice(None, m))
    else:
        index = getitem(rank(lax.concatenate([a, flat], 0)), slice(n, None))
    out = lax.reshape(lax.sub(index, rank(flat)), _shape(q))
    return conversion.convert_element_type(out, dtype)


# jitted as JAX jits them (one XLA call eagerly); statics by position, the cheapest call
_SEARCHSORTED = {
    "scan": jit(_searchsorted_scan, static_argnums=(2, 3, 4)),
    "scan_unrolled": jit(lambda a, q, side, dtype: _searchsorted_scan(a, q, side, dtype, True),
                         static_argnums=(2, 3)),
    "compare_all": jit(_searchsorted_compare_all, static_argnums=(2, 3)),
    "sort": jit(_searchsorted_sort, static_argnums=(2, 3)),
}


@jax_jitted(static_argnames=("side", "method"))
def searchsorted(a, v, side: str = "left", sorter=None, *, method: str = "scan"):
    """Insertion indices of `v` into the sorted 1-D `a` that keep it sorted (before equal
    elements for side='left', after them for 'right'). `method` is JAX's: 'scan' (a binary
    search), 'scan_unrolled', 'compare_all' (best for small `a`) or 'sort'.

    >>> jnp.searchsorted(jnp.array([1, 2, 2, 3]), jnp.array([2, 5]), side="right")
    Array([3, 4], dtype=int32)
    """
    check_arraylike("searchsorted", a, v, *(() if sorter is None else (sorter,)))
    a, v = ensure_array(a), ensure_array(v)
    if len(_shape(a)) != 1:
        raise ValueError("a should be 1-dimensional")
    a, v = util.promote_dtypes(a, v)
    if sorter is not None:
        a = getitem(a, ensure_array(sorter))
    if side not in ("left", "right"):
        raise ValueError(f"invalid argument side={side!r}, expected 'left' or 'right'")
    impl = _SEARCHSORTED.get(method)
    if impl is None:
        raise ValueError(f"invalid argument method={method!r}, expected one of "
                         f"{sorted(_SEARCHSORTED)}")
    return impl(a, v, side, _searchsorted_dtype(_shape(a)[0]))


def _searchsorted_dtype(n) -> np.dtype:
    """searchsorted's result dtype, as JAX's: int32 for indices up to `n` (also with x64; a
    symbolic length is taken to fit), else int64 asked for as JAX asks: without x64 its warning
    (or jax_explicit_x64_dtypes' error), then NumPy's OverflowError for `n` in int32. (Not
    _index_dtype: argsort's index is the default int.)"""
    if is_symbolic(n) or n < 2 ** 31:
        return _INT32
    dtype = canonicalize_user_dtype(_INT64, "searchsorted")
    if n > dtypes.iinfo(dtype).max:
        raise OverflowError(f"Python integer {n} out of bounds for {dtype.name}")
    return dtype
