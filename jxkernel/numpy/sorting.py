"""Sorting and searching: sort, argsort, lexsort, partition, searchsorted, unique, nonzero,
argwhere — with JAX's `size=`/`fill_value=` for results whose length depends on the data.

    >>> jnp.argsort(jnp.array([3, 1, 2]))
    Array([1, 2, 0], dtype=int32)
    >>> jnp.nonzero(jnp.array([0, 5, 0, 7]), size=3, fill_value=-1)
    (Array([ 1,  3, -1], dtype=int32),)

Without `size`, data-dependent shapes need concrete (not traced) inputs, as in JAX.
"""
from __future__ import annotations

import math
import operator
from typing import Any, NamedTuple

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.errors import ConcretizationTypeError
from ..core.trace import Tracer
from ..lax import conversion
from . import util
from .util import aval_of, canonicalize_axis, check_arraylike, ensure_array

__all__ = ["sort", "argsort", "lexsort", "sort_complex", "partition", "argpartition",
           "searchsorted", "unique", "unique_values", "unique_counts", "unique_inverse",
           "unique_all", "nonzero", "flatnonzero", "argwhere", "extract", "compress", "isin"]

_UNIQUE_SIZE_HINT = ("To make jnp.unique() compatible with JIT and other transforms, you can "
                     "specify a concrete value for the size argument, which will determine "
                     "the output size.")


def _asarray(name, x):
    check_arraylike(name, x)
    return ensure_array(x)


def _shape(x) -> tuple:
    return aval_of(x).shape


def _concrete(x):
    """NumPy value of `x` if known while tracing, else None."""
    if isinstance(x, Tracer):
        v = x.to_concrete_value()
        return None if v is None else np.asarray(v)
    return np.asarray(x)


def _index_dtype(n: int):
    """The default int for index results (int64 only when x64 is on, as NumPy's)."""
    return dtypes.default_int_dtype() if n < 2 ** 31 else np.dtype(np.int64)


def _ravel(x):
    return lax.reshape(x, (math.prod(_shape(x)),))


# ------------------------------------------------------------------ sort, argsort, lexsort
def sort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
         descending: bool = False):
    """`a` sorted along `axis` (flattened if None); NaNs last.

    >>> jnp.sort(jnp.array([[3, 1], [0, 2]]), axis=0)
    Array([[0, 1],
           [3, 2]], dtype=int32)
    """
    arr = _asarray("sort", a)
    if kind is not None:
        raise TypeError("'kind' argument to sort is not supported. Use stable=True or "
                        "stable=False to specify sort stability.")
    if order is not None:
        raise TypeError("'order' argument to sort is not supported.")
    if axis is None:
        arr, axis = _ravel(arr), 0
    dim = canonicalize_axis(axis, len(_shape(arr)))
    out = lax.sort(arr, dimension=dim, is_stable=stable)
    return lax.rev(out, (dim,)) if descending else out


def argsort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
            descending: bool = False, dtype=None):
    """Indices that sort `a` along `axis` (stable: ties keep their order, also descending).

    >>> jnp.argsort(jnp.array([2, 1, 2, 0]), descending=True)
    Array([0, 2, 1, 3], dtype=int32)
    """
    arr = _asarray("argsort", a)
    if kind is not None:
        raise TypeError("'kind' argument to argsort is not supported. Use stable=True or "
                        "stable=False to specify sort stability.")
    if order is not None:
        raise TypeError("'order' argument to argsort is not supported.")
    if axis is None:
        arr, axis = _ravel(arr), 0
    shape = _shape(arr)
    dim = canonicalize_axis(axis, len(shape))
    idx_dtype = dtypes.canonicalize_dtype(dtype) if dtype is not None else \
        _index_dtype(shape[dim])
    iota = lax.broadcasted_iota(idx_dtype, shape, dim)
    # stable descending: reverse first so equal keys come out in their original order
    if descending and stable:
        arr, iota = lax.rev(arr, (dim,)), lax.rev(iota, (dim,))
    _, idx = lax.sort_key_val(arr, iota, dimension=dim, is_stable=stable)
    return lax.rev(idx, (dim,)) if descending else idx


def lexsort(keys, axis: int = -1):
    """Indices that sort by the last key, then the one before it, and so on.

    >>> jnp.lexsort((jnp.array([1, 0, 1]), jnp.array([0, 0, -1])))
    Array([2, 1, 0], dtype=int32)
    """
    keys = tuple(keys)
    check_arraylike("lexsort", *keys)
    keys = tuple(ensure_array(k) for k in keys)
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if len({_shape(k) for k in keys}) > 1:
        raise ValueError("all keys need to be the same shape")
    shape = _shape(keys[0])
    if not shape:
        return lax.broadcast_in_dim(np.zeros((), dtypes.default_int_dtype()), (), ())
    axis = canonicalize_axis(axis, len(shape))
    iota = lax.broadcasted_iota(_index_dtype(shape[axis]), shape, axis)
    return lax.sort((*keys[::-1], iota), dimension=axis, num_keys=len(keys))[-1]


def sort_complex(a):
    """`a` sorted (real part first, then imaginary) and made complex."""
    a = _asarray("sort_complex", a)
    out = lax.sort(a, dimension=len(_shape(a)) - 1) if _shape(a) else a
    d = aval_of(out).dtype
    cd = d if dtypes.is_complex(d) else (dtypes.complex128 if d == dtypes.float64 or
                                         d.itemsize == 8 else dtypes.complex64)
    return conversion.convert_element_type(out, dtypes.canonicalize_dtype(cd))


# ------------------------------------------------------------------ partition
def _neg(x):
    return lax.neg(x)


def partition(a, kth: int, axis: int = -1):
    """`a` with its kth smallest element (along axis) in place, smaller ones before it and
    larger ones after it (the parts are not sorted in the same way as NumPy's).

    >>> jnp.partition(jnp.array([5, 1, 4, 2, 3]), 2)[2]
    Array(3, dtype=int32)
    """
    arr = _asarray("partition", a)
    if dtypes.is_complex(aval_of(arr).dtype):
        raise NotImplementedError("jnp.partition for complex dtype is not implemented.")
    from .manipulation import swapaxes
    axis = canonicalize_axis(axis, len(_shape(arr)))
    kth = canonicalize_axis(kth, _shape(arr)[axis])
    arr = swapaxes(arr, axis, -1)
    d = aval_of(arr).dtype
    if dtypes.is_unsigned(d):        # -x wraps for unsigned: negate x + 1 instead
        one = np.ones((), d)
        bottom = lax.sub(_neg(lax.top_k(_neg(lax.add(arr, one)), kth + 1)[0]), one)
    else:
        bottom = _neg(lax.top_k(_neg(arr), kth + 1)[0])
    top = lax.top_k(arr, _shape(arr)[-1] - kth - 1)[0]
    out = lax.concatenate([bottom, top], len(_shape(arr)) - 1)
    return swapaxes(out, -1, axis)


def argpartition(a, kth: int, axis: int = -1):
    """Indices that would partition `a` (see partition)."""
    arr = _asarray("argpartition", a)
    if dtypes.is_complex(aval_of(arr).dtype):
        raise NotImplementedError("jnp.argpartition for complex dtype is not implemented.")
    from .manipulation import swapaxes
    from .indexing import put_along_axis
    axis = canonicalize_axis(axis, len(_shape(arr)))
    kth = canonicalize_axis(kth, _shape(arr)[axis])
    arr = swapaxes(arr, axis, -1)
    d = aval_of(arr).dtype
    if dtypes.is_unsigned(d):
        bottom_ind = lax.top_k(_neg(lax.add(arr, np.ones((), d))), kth + 1)[1]
    else:
        bottom_ind = lax.top_k(_neg(arr), kth + 1)[1]
    # the rest: top_k of a proxy that is 0 at the bottom indices (ties can't mix them up)
    proxy = lax.broadcast_in_dim(np.ones((), np.float32), _shape(arr), ())
    proxy = put_along_axis(proxy, bottom_ind, np.float32(0), axis=-1, inplace=False)
    top_ind = lax.top_k(proxy, _shape(arr)[-1] - kth - 1)[1]
    out = lax.concatenate([bottom_ind, top_ind], len(_shape(arr)) - 1)
    return swapaxes(out, -1, axis)


# ------------------------------------------------------------------ searchsorted
def _lt_total(x, y):
    """x < y in the total order sort uses: NaN after everything (and equal to NaN)."""
    d = aval_of(x).dtype
    if dtypes.is_complex(d):
        xr, yr, xi, yi = lax.real(x), lax.real(y), lax.imag(x), lax.imag(y)
        return lax.bitwise_or(lax.lt(xr, yr), lax.bitwise_and(lax.eq(xr, yr), lax.lt(xi, yi)))
    if not dtypes.is_inexact(d):
        return lax.lt(x, y)
    x_nan, y_nan = lax.ne(x, x), lax.ne(y, y)
    return lax.bitwise_and(lax.bitwise_not(x_nan), lax.bitwise_or(y_nan, lax.lt(x, y)))


def searchsorted(a, v, side: str = "left", sorter=None, *, method: str = "scan"):
    """Insertion indices of `v` into the sorted 1-D `a` that keep it sorted (before equal
    elements for side='left', after them for 'right').

    >>> jnp.searchsorted(jnp.array([1, 2, 2, 3]), jnp.array([2, 5]), side="right")
    Array([3, 4], dtype=int32)
    """
    check_arraylike("searchsorted", a, v, *(() if sorter is None else (sorter,)))
    a, v = ensure_array(a), ensure_array(v)
    if len(_shape(a)) != 1:
        raise ValueError("a should be 1-dimensional")
    if side not in ("left", "right"):
        raise ValueError(f"side={side!r} is not supported; use 'left' or 'right'")
    if method not in ("scan", "scan_unrolled", "sort", "compare_all"):
        raise ValueError(f"method={method!r} not recognized; expected 'scan', "
                         f"'scan_unrolled', 'sort' or 'compare_all'")
    a, v = util.promote_dtypes(a, v)
    if sorter is not None:
        from .indexing import getitem
        a = getitem(a, ensure_array(sorter))
    n = _shape(a)[0]
    dtype = np.dtype(np.int32) if n < 2 ** 31 else np.dtype(np.int64)
    # every method gives the same answer; we count, for each query, the elements before it
    vshape = _shape(v)
    full = (n,) + vshape
    aa = lax.broadcast_in_dim(a, full, (0,))
    vv = lax.broadcast_in_dim(v, full, tuple(range(1, len(full))))
    before = _lt_total(aa, vv) if side == "left" else lax.bitwise_not(_lt_total(vv, aa))
    if n == 0:
        return lax.broadcast_in_dim(np.zeros((), dtype), vshape, ())
    return lax.reduce_sum(conversion.convert_element_type(before, dtype), (0,))


# ------------------------------------------------------------------ nonzero and friends
def _cumsum(x):
    return lax.cumsum(x, 0)


def nonzero(a, *, size: int | None = None, fill_value=None) -> tuple:
    """Indices of the nonzero elements, one array per axis. With `size`, exactly that many
    (padded with `fill_value`, or index 0); without it `a` must be concrete.

    >>> jnp.nonzero(jnp.array([[0, 1], [2, 0]]))
    (Array([0, 1], dtype=int32), Array([1, 0], dtype=int32))
    """
    arr = _asarray("nonzero", a)
    shape = _shape(arr)
    if not shape:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "jnp.atleast_1d(scalar).nonzero() instead.")
    d = aval_of(arr).dtype
    mask = arr if d == np.bool_ else lax.ne(arr, np.zeros((), d))
    it = dtypes.default_int_dtype()
    if size is None:
        value = _concrete(mask)
        if value is None:
            raise ConcretizationTypeError(
                arr, "The size argument of jnp.nonzero must be statically specified to use "
                "jnp.nonzero within JAX transformations.\n")
        size = int(value.sum())
    else:
        size = operator.index(size)
    if math.prod(shape) == 0 or size == 0:
        return tuple(lax.broadcast_in_dim(np.zeros((), it), (size,), ()) for _ in shape)
    # JAX's scan-free algorithm: the k-th nonzero's flat index is how many positions have
    # a running count of nonzeros <= k
    flat = _ravel(conversion.convert_element_type(mask, it))
    running = _cumsum(flat)
    counts = _bincount(running, size, it)
    flat_indices = _cumsum(counts)
    strides = (np.cumprod(shape[::-1])[::-1] // shape).astype(it)
    out = []
    for stride, n in zip(strides, shape):
        q = lax.div(flat_indices, np.array(stride, it))
        out.append(lax.rem(q, np.array(n, it)))
    if fill_value is not None:
        fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * len(shape)
        if len(fills) != len(shape) or any(np.shape(f) != () for f in fills):
            raise ValueError(f"fill_value must be a scalar or a tuple of length {len(shape)}; "
                             f"got {fill_value}")
        total = lax.reduce_sum(flat, (0,))
        pad = lax.ge(lax.iota(it, size), lax.broadcast_in_dim(total, (size,), ()))
        from .reductions import _where
        out = [_where(pad, f, o) for f, o in zip(fills, out)]
    return tuple(out)


def _bincount(x, length: int, dtype):
    """counts[i] = number of entries of x equal to i, for i < length (others dropped)."""
    from .indexing import _scatter_update
    zeros = lax.broadcast_in_dim(np.zeros((), dtype), (length,), ())
    return _scatter_update(zeros, x, np.ones((), dtype), lax.scatter_add, mode="drop",
                           normalize_indices=False)


def flatnonzero(a, *, size: int | None = None, fill_value=None):
    """Indices of the nonzero elements of the flattened array."""
    return nonzero(_ravel(_asarray("flatnonzero", a)), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size: int | None = None, fill_value=None):
    """Indices of the nonzero elements as rows: shape (count or size, a.ndim)."""
    a = _asarray("argwhere", a)
    ndim = len(_shape(a))
    result = nonzero(lax.reshape(a, (1,)) if ndim == 0 else a, size=size, fill_value=fill_value)
    n = _shape(result[0])[0]
    if ndim == 0:
        return lax.broadcast_in_dim(np.zeros((), aval_of(result[0]).dtype), (n, 0), ())
    return lax.concatenate([lax.reshape(r, (n, 1)) for r in result], 1)


def extract(condition, arr, *, size: int | None = None, fill_value=0):
    """The elements of `arr` where `condition` is true (flattened), padded to `size`."""
    check_arraylike("extract", condition, arr)
    from .indexing import getitem
    cond, arr = _ravel(ensure_array(condition)), _ravel(ensure_array(arr))
    if _shape(cond) != _shape(arr):
        raise ValueError("extract: condition and arr must have the same number of elements")
    if size is None:
        return getitem(arr, nonzero(cond)[0])
    idx, = nonzero(cond, size=size, fill_value=_shape(arr)[0])
    return getitem(arr, idx) if _shape(arr)[0] == 0 else \
        _take_fill(arr, idx, fill_value)


def _take_fill(arr, idx, fill_value):
    from .indexing import _IndexUpdateHelper
    return _IndexUpdateHelper(arr)[idx].get(mode="fill", fill_value=fill_value)


def compress(condition, a, axis: int | None = None, *, size: int | None = None,
             fill_value=0, out=None):
    """The slices of `a` along `axis` where the 1-D `condition` is true."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    check_arraylike("compress", condition, a)
    cond, arr = ensure_array(condition), ensure_array(a)
    if len(_shape(cond)) != 1:
        raise ValueError("condition must be a 1D array")
    if aval_of(cond).dtype != np.bool_:
        cond = lax.ne(cond, np.zeros((), aval_of(cond).dtype))
    if axis is None:
        axis, arr = 0, _ravel(arr)
    from .manipulation import moveaxis
    arr = moveaxis(arr, axis, 0)
    n = _shape(arr)[0]
    if _shape(cond)[0] > n:
        raise ValueError("condition contains entries that are out of bounds")
    from .manipulation import _slice_axis
    cond = _slice_axis(cond, 0, n, 0)       # NumPy: a shorter condition is padded with False
    if _shape(cond)[0] < n:
        cond = lax.pad(cond, np.bool_(False), [(0, n - _shape(cond)[0], 0)])
    if size is None:
        from .indexing import getitem
        out_ = getitem(arr, nonzero(cond)[0])
    else:
        idx, = nonzero(cond, size=size, fill_value=n)
        out_ = _take_fill(arr, idx, fill_value)
    return moveaxis(out_, 0, axis)


# ------------------------------------------------------------------ unique
def _unique_sorted_mask(ar, axis: int, equal_nan: bool):
    """The rows along `axis` sorted lexicographically, a mask of the first of each run of
    equal rows, and the sorting permutation."""
    from .manipulation import moveaxis
    from .indexing import getitem
    aux = moveaxis(ar, axis, 0)
    d = aval_of(aux).dtype
    if dtypes.is_complex(d):     # NaN in either part sorts as a NaN
        nan = lax.ne(aux, aux)
        aux = lax.select(nan, lax.broadcast_in_dim(np.array(np.nan, d), _shape(aux), ()), aux)
    size, *rest = _shape(aux)
    if math.prod(rest) == 0:
        size = 1
        perm = lax.broadcast_in_dim(np.zeros((), dtypes.default_int_dtype()), (1,), ())
    else:
        rows = lax.reshape(aux, (size, math.prod(rest)))
        cols = [lax.squeeze(lax.slice(rows, (0, j), (size, j + 1)), (1,))
                for j in range(math.prod(rest))]
        perm = lexsort(cols[::-1])
    aux = getitem(aux, perm)
    if math.prod(_shape(aux)):
        head, tail = getitem(aux, slice(1, None)), getitem(aux, slice(None, -1))
        neq = lax.ne(head, tail)
        if dtypes.is_inexact(d) and equal_nan:
            both_nan = lax.bitwise_and(lax.ne(head, head), lax.ne(tail, tail))
            neq = lax.bitwise_and(neq, lax.bitwise_not(both_nan))
        if len(_shape(neq)) > 1:
            neq = lax.reduce_or(neq, tuple(range(1, len(_shape(neq)))))
        mask = lax.concatenate([np.ones((1,), np.bool_), neq], 0)
    else:
        mask = lax.broadcast_in_dim(np.zeros((), np.bool_), (size,), ())
    return aux, mask, perm


def _unique(ar, axis, return_index=False, return_inverse=False, return_counts=False,
            equal_nan=True, size=None, fill_value=None):
    from .indexing import getitem, _scatter_update
    from .manipulation import moveaxis
    it = dtypes.default_int_dtype()
    axis = canonicalize_axis(axis, len(_shape(ar)))
    if _shape(ar)[axis] == 0 and size and fill_value is None:
        raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, "
                         "fill_value must be specified")
    aux, mask, perm = _unique_sorted_mask(ar, axis, equal_nan)
    nonempty = math.prod(_shape(aux)) > 0
    if size is None:
        m = _concrete(mask)
        ind = np.nonzero(m)[0].astype(it)
    else:
        ind, = nonzero(mask, size=size)
    result = getitem(aux, ind) if nonempty else aux
    if size is not None and fill_value is not None:
        fill = conversion.convert_element_type(ensure_array(fill_value), aval_of(result).dtype)
        rshape = _shape(result)
        if rshape[0]:
            total = lax.reduce_sum(conversion.convert_element_type(mask, it), (0,))
            valid = lax.lt(lax.iota(it, size), lax.broadcast_in_dim(total, (size,), ()))
            valid = lax.broadcast_in_dim(valid, rshape, (0,))
            result = lax.select(valid, result, lax.broadcast_in_dim(fill, rshape, ()))
        else:
            result = lax.broadcast_in_dim(fill, (size, *rshape[1:]), ())
    ret = [moveaxis(result, 0, axis)]
    if return_index:
        ret.append(getitem(perm, ind) if nonempty else perm)
    if return_inverse:
        if nonempty:
            imask = lax.sub(_cumsum(conversion.convert_element_type(mask, it)), np.ones((), it))
            zeros = lax.broadcast_in_dim(np.zeros((), it), _shape(mask), ())
            ret.append(_scatter_update(zeros, perm, imask, lax.scatter))
        else:
            ret.append(lax.broadcast_in_dim(np.zeros((), it), (_shape(ar)[axis],), ()))
    if return_counts:
        n = _shape(mask)[0]
        if nonempty:
            if size is None:
                idx = np.append(ind, n).astype(it)
            else:
                idx, = nonzero(mask, size=size + 1)
                tail = getitem(idx, slice(1, None))
                tail = lax.select(lax.ne(tail, np.zeros((), it)), tail,
                                  lax.broadcast_in_dim(np.array(n, it), _shape(tail), ()))
                idx = lax.concatenate([getitem(idx, slice(0, 1)), tail], 0)
            idx = ensure_array(idx)
            ret.append(lax.sub(getitem(idx, slice(1, None)), getitem(idx, slice(None, -1))))
        elif _shape(ar)[axis]:
            ret.append(lax.broadcast_in_dim(np.array(_shape(ar)[axis], it), (1,), ()))
        else:
            ret.append(lax.broadcast_in_dim(np.zeros((), it), (0,), ()))
    return ret[0] if len(ret) == 1 else tuple(ret)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, size=None, fill_value=None, sorted=True):
    """The sorted unique values of `ar` (or unique slices along `axis`), optionally with
    the first index of each, the inverse mapping and the counts. Under jit give `size`:
    the result is padded with `fill_value` (default: the smallest value).

    >>> jnp.unique(jnp.array([3, 1, 3, 2]), return_counts=True)
    (Array([1, 2, 3], dtype=int32), Array([1, 1, 2], dtype=int32))
    """
    arr = _asarray("unique", ar)
    if size is None:
        if _concrete(arr) is None:
            raise ConcretizationTypeError(arr, "The error arose for the first argument of "
                                          f"jnp.unique(). {_UNIQUE_SIZE_HINT}\n")
    else:
        size = operator.index(size)
    shape = _shape(arr)
    if axis is None:
        axis_int, arr = 0, _ravel(arr)
    else:
        axis_int = canonicalize_axis(axis, len(shape))
    result = _unique(arr, axis_int, return_index, return_inverse, return_counts,
                     equal_nan=equal_nan, size=size, fill_value=fill_value)
    if return_inverse and axis is None:
        i = 2 if return_index else 1
        result = (*result[:i], lax.reshape(result[i], shape), *result[i + 1:])
    return result


class _UniqueAllResult(NamedTuple):
    values: Any
    indices: Any
    inverse_indices: Any
    counts: Any


class _UniqueCountsResult(NamedTuple):
    values: Any
    counts: Any


class _UniqueInverseResult(NamedTuple):
    values: Any
    inverse_indices: Any


def unique_values(x, /, *, size=None, fill_value=None):
    """Array API: the sorted unique values."""
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


def unique_counts(x, /, *, size=None, fill_value=None):
    """Array API: (values, counts)."""
    return _UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False, size=size,
                                       fill_value=fill_value))


def unique_inverse(x, /, *, size=None, fill_value=None):
    """Array API: (values, inverse_indices) with inverse_indices shaped like x."""
    return _UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False, size=size,
                                        fill_value=fill_value))


def unique_all(x, /, *, size=None, fill_value=None):
    """Array API: (values, indices, inverse_indices, counts)."""
    return _UniqueAllResult(*unique(x, return_index=True, return_inverse=True,
                                    return_counts=True, equal_nan=False, size=size,
                                    fill_value=fill_value))


def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
    """Whether each element of `element` is in `test_elements` (compared all to all)."""
    check_arraylike("isin", element, test_elements)
    element, test = util.promote_dtypes(ensure_array(element), _ravel(ensure_array(test_elements)))
    shape = _shape(element)
    n = _shape(test)[0]
    full = shape + (n,)
    eq = lax.eq(lax.broadcast_in_dim(element, full, tuple(range(len(shape)))),
                lax.broadcast_in_dim(test, full, (len(shape),)))
    out = lax.reduce_or(eq, (len(shape),))
    return lax.bitwise_not(out) if invert else out
