"""Set routines: unique, isin, intersect1d, union1d, setdiff1d, setxor1d, with JAX's
static `size=`/`fill_value=` for results whose length depends on the data.

    >>> jnp.intersect1d(jnp.array([1, 2, 3, 3]), jnp.array([3, 2, 5]))
    Array([2, 3], dtype=int32)
    >>> jnp.setdiff1d(jnp.array([4, 1, 2]), jnp.array([2]), size=3, fill_value=-1)
    Array([ 1,  4, -1], dtype=int32)

Each follows JAX's algorithm step for step (sort the concatenated unique values, compare
neighbours), so the padding and the place of NaNs are JAX's too. Without `size`, the
inputs must be concrete (not traced), as in JAX; with it, the sized variants are jitted
as JAX jits them (one XLA call eagerly).
"""
from __future__ import annotations

import math
import operator
from typing import Any, NamedTuple

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.errors import ConcretizationTypeError
from ..core.interpreter_primitives import typed_constant
from ..lax import conversion
from ..transforms.jit import jit
from . import util
from .creation import ones, zeros
from .reductions import any as _any
from .indexing import _IndexUpdateHelper, _scatter_update, getitem
from .manipulation import concatenate, moveaxis
from .selection import nonzero
from .sorting import _asarray, _ravel, _shape, lexsort, searchsorted
from .util import aval_of, canonicalize_axis, check_arraylike, concrete_value, ensure_array

__all__ = ["unique", "unique_values", "unique_counts", "unique_inverse", "unique_all", "isin",
           "intersect1d", "union1d", "setdiff1d", "setxor1d"]

_UNIQUE_SIZE_HINT = ("To make jnp.unique() compatible with JIT and other transforms, you can "
                     "specify a concrete value for the size argument, which will determine "
                     "the output size.")


# ------------------------------------------------------------------ unique
@util.jnp_jit(static_argnames=("axis", "equal_nan"))
def _unique_sorted_mask(ar, axis: int, equal_nan: bool):
    """The rows along `axis` sorted lexicographically, a mask of the first of each run of
    equal rows, and the sorting permutation. A jit of its own built with jnp's operations,
    as JAX 0.10.2's (so make_jaxpr prints its equations)."""
    aux = moveaxis(ar, axis, 0)
    d = aval_of(aux).dtype
    if dtypes.is_complex(d):     # NaN in either part sorts as a NaN
        nan = lax.ne(aux, aux)
        aux = lax.select(nan, lax.broadcast_in_dim(typed_constant(np.nan, d), _shape(aux), ()), aux)
    size, *rest = _shape(aux)
    if math.prod(rest) == 0:
        size = 1
        perm = zeros(1, dtype=dtypes.default_int_dtype())
    else:
        rows = lax.reshape(aux, (size, math.prod(rest)))
        perm = lexsort(getitem(lax.transpose(rows, (1, 0)), slice(None, None, -1)))
    aux = getitem(aux, perm)
    if math.prod(_shape(aux)):
        first = ones(size, dtype=np.bool_)       # (staged first, as JAX's expression order)
        head, tail = getitem(aux, slice(1, None)), getitem(aux, slice(None, -1))
        neq = lax.ne(head, tail)
        if dtypes.is_inexact(d) and equal_nan:
            both_nan = lax.bitwise_and(lax.ne(head, head), lax.ne(tail, tail))
            neq = lax.bitwise_and(neq, lax.bitwise_not(both_nan))
        mask = _IndexUpdateHelper(first)[1:].set(
            _any(neq, tuple(range(1, len(_shape(aux))))))
    else:
        mask = zeros(size, dtype=np.bool_)
    return aux, mask, perm


def _broadcast_fill(fill, shape):
    """`fill` broadcast to `shape` as NumPy broadcasts (a row fill of a 2-D unique, as
    BCOO's sum_duplicates pads with the sparse shape, as well as a scalar)."""
    nd = len(_shape(fill))
    return lax.broadcast_in_dim(fill, shape, tuple(range(len(shape) - nd, len(shape))))


def _unique(ar, axis, return_index=False, return_inverse=False, return_counts=False,
            equal_nan=True, size=None, fill_value=None, return_true_size=False):
    it = dtypes.default_int_dtype()
    axis = canonicalize_axis(axis, len(_shape(ar)))
    if _shape(ar)[axis] == 0 and size and fill_value is None:
        raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, "
                         "fill_value must be specified")
    aux, mask, perm = _unique_sorted_mask(ar, axis, equal_nan)
    nonempty = math.prod(_shape(aux)) > 0
    if size is None:
        m = concrete_value(mask)
        if m is None:           # a concrete `ar` under jit: its mask is traced (JAX's error)
            raise ConcretizationTypeError(mask, f"The error arose in jnp.unique(). "
                                          f"{_UNIQUE_SIZE_HINT}\n")
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
            result = lax.select(valid, result, _broadcast_fill(fill, rshape))
        else:
            result = _broadcast_fill(fill, (size, *rshape[1:]))
    ret = [moveaxis(result, 0, axis)]
    if return_index:
        ret.append(getitem(perm, ind) if nonempty else perm)
    if return_inverse:
        if nonempty:
            imask = lax.sub(lax.cumsum(conversion.convert_element_type(mask, it), 0),
                            typed_constant(1, it))
            zeros = lax.broadcast_in_dim(typed_constant(0, it), _shape(mask), ())
            ret.append(_scatter_update(zeros, perm, imask, lax.scatter))
        else:
            ret.append(lax.broadcast_in_dim(typed_constant(0, it), (_shape(ar)[axis],), ()))
    if return_counts:
        n = _shape(mask)[0]
        if nonempty:
            if size is None:
                idx = np.append(ind, n).astype(it)
            else:
                idx, = nonzero(mask, size=size + 1)
                tail = getitem(idx, slice(1, None))
                tail = lax.select(lax.ne(tail, typed_constant(0, it)), tail,
                                  lax.broadcast_in_dim(typed_constant(n, it), _shape(tail), ()))
                idx = lax.concatenate([getitem(idx, slice(0, 1)), tail], 0)
            idx = ensure_array(idx)
            ret.append(lax.sub(getitem(idx, slice(1, None)), getitem(idx, slice(None, -1))))
        elif _shape(ar)[axis]:
            ret.append(lax.broadcast_in_dim(typed_constant(_shape(ar)[axis], it), (1,), ()))
        else:
            ret.append(lax.broadcast_in_dim(typed_constant(0, it), (0,), ()))
    if return_true_size:          # how many of the (padded) values are real
        ret.append(lax.reduce_sum(conversion.convert_element_type(mask, it), (0,)))
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
        if concrete_value(arr) is None:
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


# ------------------------------------------------------------------ helpers
def _int():
    return dtypes.default_int_dtype()


def _arange(n: int):
    return lax.iota(_int(), n)


def _below(n: int, bound):
    """arange(n) < bound, for a traced integer scalar `bound`."""
    bound = ensure_array(bound)
    return lax.lt(lax.iota(aval_of(bound).dtype, n), lax.broadcast_in_dim(bound, (n,), ()))


def _count(mask):
    """mask.sum(): the number of true entries, in the default int."""
    return lax.reduce_sum(conversion.convert_element_type(mask, _int()), (0,))


def _head(x, n=-1):
    return getitem(x, slice(None, n))


def _tail(x, n=1):
    return getitem(x, slice(n, None))


def _at(x):
    return _IndexUpdateHelper(x)


def _full(n: int, value, dtype):
    return lax.broadcast_in_dim(typed_constant(value, dtype), (n,), ())


def _neighbours_differ(aux):
    """aux[1:] != aux[:-1]."""
    return lax.ne(_tail(aux), _head(aux))


def _concrete_or_error(x, where: str):
    if concrete_value(x) is None:
        raise ConcretizationTypeError(x, f"The error arose in {where}().\n")


# ------------------------------------------------------------------ isin
def _in1d(ar1, ar2, invert, method="auto", assume_unique=False):
    """Whether each element of flat ar1 is in ar2 (JAX's _in1d, with its methods)."""
    arr1, arr2 = util.promote_dtypes(ar1, ar2)
    arr1, arr2 = _ravel(arr1), _ravel(arr2)
    n, m = _shape(arr1)[0], _shape(arr2)[0]
    if n == 0 or m == 0:
        return _full(n, invert, np.bool_)
    if method in ("auto", "compare_all"):
        a, b = lax.broadcast_in_dim(arr1, (n, m), (0,)), lax.broadcast_in_dim(arr2, (n, m), (1,))
        return lax.reduce_and(lax.ne(a, b), (1,)) if invert else lax.reduce_or(lax.eq(a, b), (1,))
    if method == "binary_search":
        arr2 = lax.sort(arr2)
        found = getitem(arr2, searchsorted(arr2, arr1))
        return lax.ne(arr1, found) if invert else lax.eq(arr1, found)
    if method == "sort":
        ind_out = slice(None)
        if not assume_unique:
            top = lax.reduce_max(arr2, (0,))
            arr1, ind_out = unique(arr1, size=n, return_inverse=True, fill_value=top)
        aux, ind = lax.sort_key_val(lax.concatenate([arr1, arr2], 0), _arange(n + m))
        same = lax.eq(_tail(aux), _head(aux))
        if invert:
            out = _at(_full(n, True, np.bool_))[_head(ind)].set(lax.bitwise_not(same),
                                                                 mode="drop")
        else:
            out = _at(_full(n, False, np.bool_))[_head(ind)].set(same, mode="drop")
        return getitem(out, ind_out)
    raise ValueError(f"method={method!r} is not implemented; options are 'compare_all', "
                     f"'binary_search', 'sort', and 'auto'")


# jitted as JAX jits it (one XLA call eagerly); statics passed by position, the cheapest call
_in1d_jit = jit(_in1d, static_argnums=(2, 3, 4))


def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
    """Whether each element of `element` is in `test_elements`; `method` picks JAX's
    algorithm ('auto' = 'compare_all', 'binary_search' or 'sort').

    >>> jnp.isin(jnp.array([1, 2, 3]), jnp.array([3, 1]))
    Array([ True, False,  True], dtype=bool)
    """
    check_arraylike("isin", element, test_elements)
    element, test = ensure_array(element), ensure_array(test_elements)
    result = _in1d_jit(element, test, bool(invert), method, bool(assume_unique))
    return lax.reshape(result, _shape(element))


# ------------------------------------------------------------------ set operations
def union1d(ar1, ar2, *, size=None, fill_value=None):
    """The sorted unique values in either array (flattened); with `size`, padded with
    `fill_value` (default: the smallest value) or truncated.

    >>> jnp.union1d(jnp.array([3, 1]), jnp.array([2, 1]))
    Array([1, 2, 3], dtype=int32)
    """
    check_arraylike("union1d", ar1, ar2)
    ar1, ar2 = ensure_array(ar1), ensure_array(ar2)
    if size is None:
        _concrete_or_error(ar1, "union1d")
        _concrete_or_error(ar2, "union1d")
    else:
        size = operator.index(size)
    return unique(concatenate((ar1, ar2), axis=None), size=size, fill_value=fill_value)


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted unique values of `ar1` that are not in `ar2`; with `size`, padded with
    `fill_value` (default 0) or truncated.

    >>> jnp.setdiff1d(jnp.array([3, 1, 2, 1]), jnp.array([2]))
    Array([1, 3], dtype=int32)
    """
    check_arraylike("setdiff1d", ar1, ar2)
    arr1, arr2 = _ravel(ensure_array(ar1)), _ravel(ensure_array(ar2))
    if size is None:
        _concrete_or_error(arr1, "setdiff1d")
    else:
        size = operator.index(size)
    a1 = aval_of(arr1)
    fill = conversion._convert_element_type(0 if fill_value is None else fill_value,
                                            a1.dtype, a1.weak_type)
    n = _shape(arr1)[0]
    if n == 0:
        return lax.broadcast_in_dim(fill, (size or 0,), ())
    if not assume_unique:
        arr1 = unique(arr1, size=size and n)
    mask = _in1d_jit(arr1, arr2, True, "auto", bool(assume_unique))
    if size is None:
        return getitem(arr1, mask)
    if not assume_unique:       # unique's padding (copies of the first value) is no result
        first = lax.broadcast_in_dim(getitem(arr1, 0), (n,), ())
        n_unique = lax.sub(np.array(n + 1, _int()), _count(lax.eq(arr1, first)))
        mask = lax.bitwise_and(_below(n, n_unique), mask)
    picked = getitem(arr1, nonzero(mask, size=size)[0])
    return util.where(_below(size, _count(mask)), picked, fill)


def _unique_padded(arr):
    """(unique values of flat `arr` padded to its length, how many are real)."""
    return _unique(arr, 0, size=_shape(arr)[0], return_true_size=True)


def _concat_unique(arr1, arr2):
    """The unique values of arr1 then those of arr2 in one array of len(arr1) + len(arr2)
    (the rest padding), and how many are real."""
    arr1, num1 = _unique_padded(_ravel(arr1))
    arr2, num2 = _unique_padded(_ravel(arr2))
    dtype = dtypes.result_type(aval_of(arr1), aval_of(arr2))[0]
    arr = _full(_shape(arr1)[0] + _shape(arr2)[0], 0, dtype)
    arr = lax.dynamic_update_slice(arr, arr1, (typed_constant(0, _int()),))
    arr = lax.dynamic_update_slice(arr, arr2, (num1,))
    return arr, lax.add(num1, num2)


def _pad_with(vals, num_results, fill_value):
    """vals[:num_results], then fill_value (default: the smallest result, or 0 if none)."""
    valid = _below(_shape(vals)[0], num_results)
    if fill_value is not None:
        return util.where(valid, vals, fill_value)
    vals = util.where(valid, vals, lax.reduce_max(vals, (0,)))
    return util.where(valid, vals, lax.reduce_min(vals, (0,)))


def _setxor1d_size(arr1, arr2, fill_value, assume_unique, size):
    if assume_unique:
        aux = lax.sort(lax.concatenate([arr1, arr2], 0))
        n = _shape(aux)[0]
        flag = lax.concatenate([_full(1, bool(n), np.bool_), _neighbours_differ(aux),
                                _full(1, True, np.bool_)], 0)
    else:
        arr, num_unique = _concat_unique(arr1, arr2)
        n = _shape(arr)[0]
        mask = _below(n + 1, lax.add(num_unique, typed_constant(1, _int())))
        _, aux = lax.sort([lax.bitwise_not(_tail(mask)), arr], is_stable=True, num_keys=2)
        flag = lax.concatenate([_full(1, bool(n), np.bool_), _neighbours_differ(aux),
                                _full(1, False, np.bool_)], 0)
        flag = lax.bitwise_and(mask, _at(flag)[num_unique].set(True))
    aux_mask = lax.bitwise_and(_tail(flag), _head(flag))
    num_results = _count(aux_mask)
    if n:
        indices = nonzero(aux_mask, size=size, fill_value=n)[0]
        vals = _at(aux)[indices].get(mode="fill", fill_value=0)
    else:
        vals = _full(size, 0, aval_of(aux).dtype)
    return _pad_with(vals, num_results, fill_value)


_setxor1d_size_jit = jit(_setxor1d_size, static_argnums=(3, 4))


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted unique values in exactly one of the arrays; with `size`, padded with
    `fill_value` (default: the smallest result) or truncated.

    >>> jnp.setxor1d(jnp.array([1, 2, 3]), jnp.array([2, 4]))
    Array([1, 3, 4], dtype=int32)
    """
    check_arraylike("setxor1d", ar1, ar2)
    arr1, arr2 = util.promote_dtypes(_ravel(ensure_array(ar1)), _ravel(ensure_array(ar2)))
    if size is not None:
        return _setxor1d_size_jit(arr1, arr2, fill_value, bool(assume_unique),
                                  operator.index(size))
    if not assume_unique:
        arr1, arr2 = unique(arr1), unique(arr2)
    aux = lax.concatenate([arr1, arr2], 0)
    n = _shape(aux)[0]
    if n == 0:
        return aux
    aux = lax.sort(aux)
    flag = lax.concatenate([_full(1, True, np.bool_), _neighbours_differ(aux),
                            _full(1, True, np.bool_)], 0)
    return getitem(aux, lax.bitwise_and(_tail(flag), _head(flag)))


def _intersect1d_size(arr1, arr2, fill_value, assume_unique, size, return_indices):
    n1, n2 = _shape(arr1)[0], _shape(arr2)[0]
    # the unique values of each (or the inputs), sorted together, valid ones first
    if assume_unique:
        ind1, num1 = _arange(n1), np.array(n1, _int())
        ind2 = _arange(n2)
        aux, aux_sort_indices = lax.sort([lax.concatenate([arr1, arr2], 0), _arange(n1 + n2)],
                                         is_stable=True, num_keys=1)
        mask = _full(n1 + n2, True, np.bool_)
    else:
        arr1, ind1, num1 = _unique(arr1, 0, size=n1, return_index=True, return_true_size=True,
                                   fill_value=0)
        arr2, ind2, num2 = _unique(arr2, 0, size=n2, return_index=True, return_true_size=True,
                                   fill_value=0)
        dtype = dtypes.result_type(aval_of(arr1), aval_of(arr2))[0]
        arr = _full(n1 + n2, 0, dtype)
        arr = lax.dynamic_update_slice(arr, arr1, (typed_constant(0, _int()),))
        arr = lax.dynamic_update_slice(arr, arr2, (num1,))
        mask = _below(n1 + n2, lax.add(num1, num2))
        _, aux, aux_sort_indices = lax.sort([lax.bitwise_not(mask), arr, _arange(n1 + n2)],
                                            is_stable=True, num_keys=2)
    # equal neighbours are the intersection
    aux_mask = lax.bitwise_and(lax.eq(_tail(aux), _head(aux)), _tail(mask))
    num_results = _count(aux_mask)
    if n1 + n2:
        val_indices = nonzero(aux_mask, size=size, fill_value=n1 + n2)[0]
        vals = _at(aux)[val_indices].get(mode="fill", fill_value=0)
    else:
        val_indices = _arange(0)
        vals = _full(size, 0, aval_of(aux).dtype)
    vals = _pad_with(vals, num_results, fill_value)
    if not return_indices:
        return vals
    # where each value came from: unwind the sort, then unique's first occurrences
    valid = _below(size, num_results)
    idx1 = _at(aux_sort_indices)[val_indices].get(mode="fill", fill_value=n1)
    idx1 = util.where(valid, idx1, n1)
    one = typed_constant(1, aval_of(val_indices).dtype)
    idx2 = _at(aux_sort_indices)[lax.add(val_indices, one)].get(mode="fill", fill_value=n2)
    idx2 = util.where(valid, lax.sub(idx2, num1), n2)
    if not assume_unique:
        idx1 = _at(ind1)[idx1].get(mode="fill", fill_value=_shape(ind1)[0])
        idx2 = _at(ind2)[idx2].get(mode="fill", fill_value=_shape(ind2)[0])
    return vals, idx1, idx2


_intersect1d_size_jit = jit(_intersect1d_size, static_argnums=(2, 3, 4, 5))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
    """The sorted unique values in both arrays (flattened), and with return_indices where
    each first occurs in ar1 and ar2; with `size`, padded with `fill_value` (default: the
    smallest result; indices: one past the end) or truncated.

    >>> jnp.intersect1d(jnp.array([4, 1, 3]), jnp.array([3, 4, 5]), return_indices=True)
    (Array([3, 4], dtype=int32), Array([2, 0], dtype=int32), Array([0, 1], dtype=int32))
    """
    check_arraylike("intersect1d", ar1, ar2)
    arr1, arr2 = util.promote_dtypes(ensure_array(ar1), ensure_array(ar2))
    arr1, arr2 = _ravel(arr1), _ravel(arr2)
    if size is not None:
        return _intersect1d_size_jit(arr1, arr2, fill_value, bool(assume_unique),
                                     operator.index(size), bool(return_indices))
    ind1 = ind2 = _arange(0)
    if not assume_unique:
        if return_indices:
            arr1, ind1 = unique(arr1, return_index=True)
            arr2, ind2 = unique(arr2, return_index=True)
        else:
            arr1, arr2 = unique(arr1), unique(arr2)
    arr = lax.concatenate([arr1, arr2], 0)
    if return_indices:
        n = _shape(arr)[0]
        idx_dtype = np.dtype(np.int32) if n < 2 ** 31 else np.dtype(np.int64)
        aux, aux_sort_indices = lax.sort_key_val(arr, lax.iota(idx_dtype, n))
    else:
        aux = lax.sort(arr)
    mask = lax.eq(_tail(aux), _head(aux))
    int1d = getitem(_head(aux), mask)
    if not return_indices:
        return int1d
    idx1 = getitem(_head(aux_sort_indices), mask)
    idx2 = lax.sub(getitem(_tail(aux_sort_indices), mask),
                   typed_constant(_shape(arr1)[0], aval_of(aux_sort_indices).dtype))
    if not assume_unique:
        idx1, idx2 = getitem(ind1, idx1), getitem(ind2, idx2)
    return int1d, idx1, idx2
