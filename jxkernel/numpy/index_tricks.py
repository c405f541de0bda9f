"""Functions built on indexing: take, take_along_axis, put, put_along_axis, choose, repeat
(a take of repeated indices), diagonal (a gather) with diag and diagflat, and
the index-array builders ix_, indices, unravel_index, ravel_multi_index and the
diagonal/triangle indices; the index-expression helpers mgrid, ogrid, r_, c_ (arrays from
slice notation) and s_, index_exp (NumPy's own, as in JAX).

    >>> jnp.unravel_index(jnp.array([1, 5]), (2, 3))
    (Array([0, 1], dtype=int32), Array([1, 2], dtype=int32))

Like x[idx], each is one gather or scatter (indexing.py) where it can be.
"""
from __future__ import annotations

import builtins
import operator
import string
import sys

import numpy as np

from ..transforms.jit.namesakes import jax_jitted
from .. import lax
from ..core import dtypes
from ..core.avals import context_abstract_mesh, explicit_axes, public_type
from ..core.config import config
from ..core.errors import ConcretizationTypeError
from ..core.symbolic import is_symbolic
from ..core.trace import Tracer
from ..core.sharding_types import ShardingTypeError
from ..core.interpreter_primitives import typed_constant
from ..lax import conversion
from ..lax.sharding import canonicalize_sharding, run_auto_axes
from . import util
from .creation import _concrete, arange, array, eye, meshgrid
from . import indexing
from .indexing import GatherScatterMode, _normalize, _scatter_update, getitem
from .products import einsum
from . import ufuncs
from .manipulation import (_asarray, _dtype, _full, _shape, _slice_axis, _zeros_like,
                           broadcast_arrays, broadcast_shapes, broadcast_to, concatenate,
                           expand_dims, moveaxis, ravel, resize, stack, transpose)
from .ranges import linspace
from .util import (aval_of, canonicalize_axis, check_arraylike, concrete_value, ensure_array,
                   ensure_arraylike)

__all__ = ["take", "take_along_axis", "put", "put_along_axis", "choose", "ix_", "indices",
           "unravel_index", "ravel_multi_index", "diag_indices", "diag_indices_from",
           "mgrid", "ogrid", "r_", "c_", "s_", "index_exp", "repeat", "diagonal", "diag",
           "diagflat"]


# ------------------------------------------------------------------ take, take_along_axis, put
def take(a, indices, axis: int | None = None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """Elements of `a` at `indices` along `axis` (of the flattened array if None). Out of
    bounds indices give NaN/int min (mode='fill', the default), or are clipped or wrapped.

    >>> jnp.take(jnp.array([10, 20, 30]), jnp.array([2, 0]))
    Array([30, 10], dtype=int32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    if mode is None and isinstance(indices, Tracer):    # (a mode chosen: meant, not told)
        indexing.record_traced(sys._getframe(1))
    return _take(a, indices, None if axis is None else operator.index(axis), None, mode,
                 unique_indices, indices_are_sorted, fill_value)


# jitted as JAX's: `jit[name=_take]`
@util.jnp_jit(static_argnames=("axis", "mode", "unique_indices", "indices_are_sorted",
                               "fill_value"))
def _take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
          indices_are_sorted=False, fill_value=None):
    # checked inside the jit, as JAX's: a string is its jit's error, naming `_take`
    a, indices = ensure_arraylike("take", a, indices)
    if axis is None:
        a, axis = ravel(a), 0
    shape = aval_of(a).shape
    axis = canonicalize_axis(axis, len(shape))
    ia = aval_of(indices)
    # float indices are refused by lax.gather below (JAX's ValueError, "indices must have an
    # integer type"), as JAX's take has no check of its own
    if mode is None or mode == "fill":
        gather_mode = GatherScatterMode.FILL_OR_DROP
        # negative indices wrapped by jnp.where, as JAX's (`jit[name=_where]`); the size added
        # as a Python int, as JAX's `indices + a.shape[axis]`: int8 indices of an axis past 127
        # wrap around (an index then out of bounds gives the fill value), no OverflowError
        indices = util._where_jit(ufuncs.less(indices, 0), ufuncs.add(indices, shape[axis]),
                                  indices)
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    elif mode == "wrap":
        n = typed_constant(shape[axis], ia.dtype)
        indices = lax.rem(lax.add(lax.rem(indices, n), n), n) if dtypes.is_signed(ia.dtype) \
            else lax.rem(indices, n)
        gather_mode = GatherScatterMode.PROMISE_IN_BOUNDS
    elif mode == "clip":
        gather_mode = GatherScatterMode.CLIP
    else:
        raise ValueError(f"Invalid mode '{mode}' for np.take")
    sizes = list(shape)
    if sizes[axis] == 0:
        if ia.size != 0:
            raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
        return a
    if ia.size == 0:
        out_shape = shape[:axis] + ia.shape + shape[axis + 1:]
        return lax.broadcast_in_dim(typed_constant(0, aval_of(a).dtype), out_shape, ())
    sizes[axis] = 1
    nd = len(ia.shape)
    dnums = lax.GatherDimensionNumbers(
        offset_dims=tuple(range(axis)) + tuple(range(axis + nd, len(shape) + nd - 1)),
        collapsed_slice_dims=(axis,), start_index_map=(axis,))
    return lax.gather(a, lax.expand_dims(indices, (nd,)), dnums, tuple(sizes), mode=gather_mode,
                      unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                      fill_value=fill_value)


# a jit of its own, traced too (`jit[name=take_along_axis]` in a jaxpr), as JAX's
@jax_jitted
@util.jnp_jit(static_argnames=("axis", "mode", "fill_value", "wrap_negative_indices"))
def take_along_axis(arr, indices, axis: int | None = -1, mode=None, fill_value=None, *,
                    wrap_negative_indices=None):
    """arr[..., indices, ...] matched element by element along `axis` (NumPy's
    take_along_axis); e.g. with argsort's result.

    >>> x = jnp.array([[3, 1, 2]])
    >>> jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1)
    Array([[1, 2, 3]], dtype=int32)
    """
    check_arraylike("take_along_axis", arr, indices)
    a, indices = ensure_array(arr), ensure_array(indices)
    ia = aval_of(indices)
    if not dtypes.is_int(ia.dtype):
        raise TypeError(f"take_along_axis indices must be of integer type, got {ia.dtype}")
    if axis is None:
        if ia.ndim != 1:
            raise ValueError(f"take_along_axis indices must be 1D if axis=None, got shape "
                             f"{ia.shape}")
        a, axis = ravel(a), 0
    shape = aval_of(a).shape
    rank = len(shape)
    if rank != ia.ndim:
        raise ValueError(f"indices and arr must have the same number of dimensions; "
                         f"{ia.ndim} vs. {rank}")
    axis = canonicalize_axis(axis, rank)
    arr_shape = shape[:axis] + (1,) + shape[axis + 1:]
    out_shape = broadcast_shapes(ia.shape, arr_shape)
    if shape[axis] == 0:
        return lax.broadcast_in_dim(typed_constant(0, aval_of(a).dtype), out_shape, ())
    if wrap_negative_indices is None:
        wrap_negative_indices = mode != "promise_in_bounds"
    if wrap_negative_indices:
        # as JAX's: int32 (int64 past its range) first, so adding the size cannot overflow
        wide = np.int64 if not is_symbolic(shape[axis]) and \
            shape[axis] > dtypes.iinfo(np.int32).max else np.int32
        indices = _normalize(lax.convert_element_type(indices, wide), shape[axis])
    if mode == "one_hot":
        return _one_hot_take(a, indices, axis)
    index_dims = [i for i, d in enumerate(ia.shape) if i == axis or d != 1]
    gather_indices = lax.reshape(indices, tuple(out_shape[i] for i in index_dims) + (1,))
    slice_sizes, offset_dims, start_index_map, collapsed, op_batch, idx_batch = \
        [], [], [], [], [], []
    squeeze, new_i, j = [], 0, 0
    for i in range(rank):
        if i == axis:
            slice_sizes.append(1), start_index_map.append(new_i), collapsed.append(new_i)
            new_i, j = new_i + 1, j + 1
        elif ia.shape[i] == 1:             # take the whole axis of arr: no index needed
            offset_dims.append(i), slice_sizes.append(arr_shape[i])
            new_i += 1
        elif arr_shape[i] == 1:            # arr broadcasts along this axis: squeeze it
            squeeze.append(i)
            j += 1
        else:                              # element by element: a batching dimension
            slice_sizes.append(0 if arr_shape[i] == 0 else 1)
            op_batch.append(new_i), idx_batch.append(j)
            new_i, j = new_i + 1, j + 1
    a = lax.squeeze(a, tuple(squeeze)) if squeeze else a
    dnums = lax.GatherDimensionNumbers(
        offset_dims=tuple(offset_dims), collapsed_slice_dims=tuple(collapsed),
        start_index_map=tuple(start_index_map), operand_batching_dims=tuple(op_batch),
        start_indices_batching_dims=tuple(idx_batch))
    return lax.gather(a, gather_indices, dnums, tuple(slice_sizes),
                      mode="fill" if mode is None else mode, fill_value=fill_value)


def _one_hot_take(a, indices, axis: int):
    """take_along_axis(mode="one_hot"), as JAX's: the indices' one-hot rows (out of range:
    all zeros) contracted with `a` along `axis`, a matmul instead of a gather.

    >>> _one_hot_take(jnp.array([1., 2., 3.]), jnp.array([2, 0, 5]), 0)
    Array([3., 1., 0.], dtype=float32)
    """
    ishape, size = aval_of(indices).shape, aval_of(a).shape[axis]
    hot_shape = ishape + (size,)
    hot = lax.eq(lax.broadcast_in_dim(indices, hot_shape, tuple(range(len(ishape)))),
                 lax.broadcasted_iota(aval_of(indices).dtype, hot_shape, len(ishape)))
    dtype = aval_of(a).dtype
    if aval_of(a).ndim == 1:
        return einsum("...b,b->...", hot, a, preferred_element_type=dtype)
    if axis > len(string.ascii_letters) - 2:
        raise ValueError("One Hot indexing is only supported for up to 50 leading dimensions.")
    lead = string.ascii_letters[:axis]
    return einsum(f"{lead}y...z,{lead}z...->{lead}y...", hot, a,
                  precision=lax.Precision.HIGHEST, preferred_element_type=dtype)


def put(a, ind, v, mode=None, *, inplace=True):
    """`a` with the flat positions `ind` set to `v` (inplace=False is required: JAX arrays
    are immutable)."""
    if inplace:
        raise ValueError("jax.numpy.put cannot modify arrays in-place, because JAX arrays are "
                         "immutable. Pass inplace=False to instead return an updated array.")
    check_arraylike("put", a, ind, v)
    arr, ind, v = ensure_array(a), ravel(ind), ravel(v)
    n, k, m = aval_of(arr).size, aval_of(ind).size, aval_of(v).size
    if not n or not k or not m:
        return arr
    v = resize(v, (k,))
    if mode is None:
        scatter_mode = "drop"
    elif mode == "clip":
        ind_dtype = aval_of(ind).dtype
        ind = lax.clamp(typed_constant(0, ind_dtype), ind, np.array(n - 1, ind_dtype))
        scatter_mode = "promise_in_bounds"
    elif mode == "wrap":
        nn = typed_constant(n, aval_of(ind).dtype)
        ind = lax.rem(lax.add(lax.rem(ind, nn), nn), nn)
        scatter_mode = "promise_in_bounds"
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    else:
        raise ValueError(f"mode should be one of 'wrap' or 'clip'; got mode={mode!r}")
    return _scatter_update(arr, unravel_index(ind, aval_of(arr).shape), v, lax.scatter,
                           mode=scatter_mode)


@jax_jitted(static_argnames=("axis", "inplace", "mode"))
def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """`arr` with values put at `indices` along `axis` (inplace=False is required)."""
    if inplace:
        raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because JAX "
                         "arrays are immutable. Pass inplace=False to instead return an "
                         "updated array.")
    check_arraylike("put_along_axis", arr, indices, values)
    arr, indices = ensure_array(arr), ensure_array(indices)
    if axis is None:
        arr_flat = ravel(arr)
        out = put_along_axis(arr_flat, indices, values, 0, inplace=False, mode=mode)
        return lax.reshape(out, aval_of(arr).shape)
    shape = aval_of(arr).shape
    axis = canonicalize_axis(axis, len(shape))
    idx = list(_indices(shape, sparse=True))
    idx[axis] = indices
    return _scatter_update(arr, tuple(idx), values, lax.scatter, mode=mode)


def _check_in_range(indices, bound, fun: str, what: str) -> None:
    """mode='raise': every entry of `indices` in [0, bound), which needs their values (so not
    under jit: JAX's ConcretizationTypeError says to use 'wrap' or 'clip' there)."""
    value = concrete_value(indices)
    if value is None:
        raise ConcretizationTypeError(indices, f"The error occurred because {fun} was "
                                               f"jit-compiled with mode='raise'. Use "
                                               f"mode='wrap' or mode='clip' instead.\n")
    if np.any((value < 0) | (value >= bound)):
        raise ValueError(f"invalid entry in {what} array")


def choose(a, choices, out=None, mode="raise"):
    """An array whose element at each position comes from choices[a[pos]] at that position."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    check_arraylike("choose", a, *choices)
    a = ensure_array(a)
    ad = aval_of(a).dtype
    if not dtypes.is_int(ad):
        raise ValueError("`a` array must be integer typed")
    n = len(choices)
    if mode == "raise":
        _check_in_range(a, n, "jnp.choose", "choice")
    elif mode == "wrap":
        nn = typed_constant(n, ad)
        a = lax.rem(lax.add(lax.rem(a, nn), nn), nn)
    elif mode == "clip":
        a = lax.clamp(typed_constant(0, ad), a, np.array(n - 1, ad))
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    a, *choices = broadcast_arrays(a, *choices)
    return getitem(stack(choices), (a,) + _indices(aval_of(a).shape, sparse=True))


# ------------------------------------------------------------------ repeat, diagonals
def repeat(a, repeats, axis: int | None = None, *, total_repeat_length: int | None = None,
           out_sharding=None):
    """Each element of `a` repeated `repeats` times (an int, or one count per element)
    along `axis`; traced counts need a static `total_repeat_length`. Under Explicit mesh
    axes the result is typed as `out_sharding` says, else as `a` (unsplit along `axis`).

    >>> jnp.repeat(jnp.array([1, 2]), jnp.array([1, 3]))
    Array([1, 2, 2, 2], dtype=int32)
    """
    check_arraylike("repeat", a, *(() if type(repeats) is int else (repeats,)))
    a = ensure_array(a)
    if axis is None:
        a, axis = ravel(a), 0
    else:                                   # JAX's words for a traced axis
        axis = operator.index(_concrete(axis, "'axis' argument of jnp.repeat()"))
    if out_sharding is None and explicit_axes(context_abstract_mesh()):
        # under Explicit axes the result takes `a`'s type, which must leave `axis` unsplit
        typed = public_type(aval_of(a)).sharding
        if typed.spec.partitions[axis] is not None:
            raise ValueError(_ASK_OUT_SHARDING)
        out_sharding = typed
    if out_sharding is not None:
        return _auto_repeat(a, repeats, axis, total_repeat_length, out_sharding)
    try:
        return _repeat(a, repeats, axis, total_repeat_length)
    except ShardingTypeError:
        raise ValueError(_ASK_OUT_SHARDING) from None


_ASK_OUT_SHARDING = "Please pass sharding to `jnp.repeat` via `out_sharding` parameter."


def _check_counts(repeats, reps, shp, axis) -> None:
    """JAX's TypeErrors for counts that are not whole numbers (where int() would drop the
    fraction): one count goes into its broadcast's shape, which names each size's type;
    counts per element index a gather, which names their dtype."""
    if dtypes.issubdtype(reps.dtype, np.integer) or reps.dtype == np.bool_:
        return
    if reps.ndim == 0 and shp:
        sizes = (*shp[:axis + 1], repeats, *shp[axis + 1:])
        raise TypeError(f"broadcast_in_dim shape must have every element be an integer type, "
                        f"got {tuple(type(d) for d in sizes)}.")
    if shp:
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                        f"{dtypes.canonicalize_dtype(reps.dtype).name}")


def _auto_repeat(a, repeats, axis, total_repeat_length, out_sharding):
    """repeat with the mesh's Explicit axes made Auto, laid out as `out_sharding`: JAX's
    auto_axes around it (XLA lays out the gather inside)."""
    out_sharding = canonicalize_sharding(out_sharding, "repeat")
    if total_repeat_length is None:        # (static repeats stay out of the traced arguments)
        return run_auto_axes(lambda a: _repeat(a, repeats, axis, None), (a,), {}, None,
                             out_sharding)
    return run_auto_axes(lambda r, a: _repeat(a, r, axis, total_repeat_length),
                         (repeats, a), {}, None, out_sharding)


def _repeat(a, repeats, axis, total_repeat_length):
    shp = _shape(a)
    # a 0-d `a` is filled whatever the axis, as JAX's (which never reads it there)
    axis = canonicalize_axis(operator.index(axis), len(shp)) if shp else 0
    if is_symbolic(repeats):              # jax.export: one count, a symbolic size (JAX's)
        if total_repeat_length is not None:
            raise ValueError(f"jnp.repeat with a non-constant `repeats` is supported only when "
                             f"`total_repeat_length` is None. ({repeats=} "
                             f"{total_repeat_length=})")
        if not shp:
            return _full_like_value(a, (repeats,))
        out = lax.broadcast_in_dim(a, shp[:axis + 1] + (repeats,) + shp[axis + 1:],
                                   tuple(i for i in range(len(shp) + 1) if i != axis + 1))
        return lax.reshape(out, shp[:axis] + (shp[axis] * repeats,) + shp[axis + 1:])
    if total_repeat_length is None:
        reps = concrete_value(repeats)
        if reps is None:
            raise ConcretizationTypeError(
                repeats, "When jit-compiling jnp.repeat, the total number of repeats must be "
                "static. To fix this, either specify a static value for `repeats`, or pass a "
                "static value to `total_repeat_length`.\n")
        _check_counts(repeats, reps, shp, axis)
        if reps.ndim == 0 and shp:     # one count for all: broadcast along a new axis
            r = int(reps)
            out = lax.broadcast_in_dim(a, shp[:axis + 1] + (r,) + shp[axis + 1:],
                                       tuple(i for i in range(len(shp) + 1) if i != axis + 1))
            return lax.reshape(out, shp[:axis] + (shp[axis] * r,) + shp[axis + 1:])
        reps = np.ravel(reps)
        if not shp:
            if reps.shape != (1,):
                raise ValueError("`repeat` with a scalar parameter `a` is only implemented for "
                                 "scalar values of the parameter `repeats`.")
            return _full_like_value(a, (int(reps[0]),))
        reps = np.broadcast_to(reps, (shp[axis],))
        idx = np.repeat(np.arange(shp[axis], dtype=np.int32), reps)
        return take(a, idx, axis=axis)
    total = total_repeat_length if is_symbolic(total_repeat_length) else \
        operator.index(total_repeat_length)           # (jax.export: a symbolic length, JAX's)
    repeats = ravel(ensure_array(repeats))
    if not shp:
        if _shape(repeats) != (1,):
            raise ValueError("`repeat` with a scalar parameter `a` is only implemented for "
                             "scalar values of the parameter `repeats`.")
        return _full_like_value(a, (total,))
    if total == 0:
        return _full(shp[:axis] + (0,) + shp[axis + 1:], 0, _dtype(a))
    if shp[axis] == 0:
        return a
    repeats = broadcast_to(repeats, (shp[axis],))
    # mark where each element's block starts, then a running count gives its index
    starts = lax.cumsum(lax.concatenate(
        [np.zeros((1,), _dtype(repeats)), lax.slice_in_dim(repeats, 0, shp[axis] - 1)], 0))
    marks = _scatter_update(_full((total,), 0, np.dtype(np.int32)), starts, np.int32(1),
                            lax.scatter_add)
    idx = lax.sub(lax.cumsum(marks), np.int32(1))
    return take(a, idx, axis=axis)


def _full_like_value(a, shape):
    return lax.broadcast_in_dim(a, shape, ())


@jax_jitted
@util.jnp_jit(static_argnames=("offset", "axis1", "axis2"))
def diagonal(a, offset: int = 0, axis1: int = 0, axis2: int = 1):
    """The `offset`-th diagonal of `a` in the plane (axis1, axis2), as the last axis.

    >>> jnp.diagonal(jnp.arange(9).reshape(3, 3), 1)
    Array([1, 5], dtype=int32)
    """
    # built as JAX 0.10.2 builds it (a jit of its own; for a square 2-D non-bool operand a
    # platform_dependent cond whose Mosaic branch sums eye * a, whose default gathers), so
    # that make_jaxpr prints JAX's equations; the default branch is what runs here
    a = _asarray("diagonal", a)
    shp = _shape(a)
    if len(shp) < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    offset = operator.index(offset)

    def default_diag(a):
        ax1, ax2 = canonicalize_axis(axis1, len(shp)), canonicalize_axis(axis2, len(shp))
        a = moveaxis(a, (ax1, ax2), (-2, -1))
        n = builtins.max(0, builtins.min(shp[ax1] + builtins.min(offset, 0),
                                         shp[ax2] - builtins.max(offset, 0)))
        i = arange(n)
        j = arange(abs(offset), abs(offset) + n)
        return getitem(a, (Ellipsis, i, j) if offset >= 0 else (Ellipsis, j, i))

    if shp[0] != shp[1] or len(shp) != 2 or offset != 0 or _dtype(a) == np.bool_:
        return default_diag(a)
    a_eye = eye(shp[0], dtype=_dtype(a))

    def mosaic_diag(a):
        return lax.reduce(lax.mul(a_eye, a), np.array(0, _dtype(a)), lax.add, (0,))
    return lax.platform_dependent(a, default=default_diag, mosaic=mosaic_diag)


def diag(v, k: int = 0):
    """The k-th diagonal of a 2-D array, or a 2-D array with 1-D `v` on its k-th diagonal.

    >>> jnp.diag(jnp.array([1, 2]))
    Array([[1, 0],
           [0, 2]], dtype=int32)
    """
    v = _asarray("diag", v)
    return _diag(v, operator.index(k))


@util.jnp_jit(static_argnames=("k",))
def _diag(v, k: int):
    # a jit of its own named _diag, as JAX's
    shp = _shape(v)
    if len(shp) == 2:
        return diagonal(v, offset=k)
    if len(shp) != 1:
        raise ValueError("diag input must be 1d or 2d")
    n = shp[0] + abs(k)
    zero = typed_constant(0, _dtype(v))
    v = lax.pad(v, zero, ((builtins.max(0, -k), builtins.max(0, k), 0),))
    rows = lax.broadcasted_iota(np.int32, (n, n), 0)
    cols = lax.broadcasted_iota(np.int32, (n, n), 1)
    mask = lax.eq(lax.add(rows, np.int32(k)), cols)
    return lax.select(mask, lax.broadcast_in_dim(v, (n, n), (0,)), _zeros_like(
        lax.broadcast_in_dim(v, (n, n), (0,))))


def diagflat(v, k: int = 0):
    """A 2-D array with the flattened `v` on its k-th diagonal (through jnp.ravel, as JAX's:
    a string is refused by its jit)."""
    check_arraylike("diagflat", *util.passing_text((v,)))
    return diag(ravel(v), k)


# ------------------------------------------------------------------ index arrays
def ix_(*args):
    """Open-mesh index arrays from 1-D sequences: x[ix_(rows, cols)] is a sub-grid."""
    check_arraylike("ix", *args)
    n, out = len(args), []
    for i, a in enumerate(args):
        a = ensure_array(a)
        aa = aval_of(a)
        if aa.ndim != 1:
            raise ValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape "
                             f"{aa.shape}")
        if aa.dtype == np.bool_:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
        shape = [1] * n
        shape[i] = aa.shape[0]
        out.append(lax.broadcast_in_dim(typed_constant(0, dtypes.default_int_dtype()), shape, ())
                   if aa.size == 0 else lax.broadcast_in_dim(a, shape, (i,)))
    return tuple(out)


def _indices(dimensions, dtype=None, sparse: bool = False):
    """An array (or open mesh if sparse) of the index along each axis of a grid.

    >>> jnp.indices((2, 3))[1]
    Array([[0, 1, 2],
           [0, 1, 2]], dtype=int32)
    """
    dtype = dtypes.canonicalize_user_dtype(int if dtype is None else dtype, "indices")
    dims = tuple(operator.index(d) for d in dimensions)
    out = []
    for i, d in enumerate(dims):
        s = (1,) * i + (d,) + (1,) * (len(dims) - i - 1) if sparse else dims
        out.append(lax.broadcast_in_dim(lax.iota(dtype, d), s, (i,)))
    if sparse:
        return tuple(out)
    if not out:
        return lax.broadcast_in_dim(typed_constant(0, dtype), (0,), ())
    return lax.concatenate([lax.expand_dims(o, (0,)) for o in out], 0)


indices = _indices
# (named so in Python's own errors too: "indices() missing 1 required positional argument")
indices.__name__ = indices.__qualname__ = "indices"


def _floor_divmod(x, s: int):
    """(x // s, x % s) with Python's rounding, for an integer array and a static s > 0."""
    dt = aval_of(x).dtype
    sv = typed_constant(s, dt)
    r = lax.rem(x, sv)
    if dtypes.is_signed(dt):
        r = lax.select(lax.lt(r, typed_constant(0, dt)), lax.add(r, sv), r)
    return lax.div(lax.sub(x, r), sv), r


def unravel_index(indices, shape):
    """The multi-index (one array per axis of `shape`) of flat `indices`; out-of-bounds
    indices are clipped, as in JAX.

    >>> jnp.unravel_index(jnp.array([1, 5]), (2, 3))
    (Array([0, 1], dtype=int32), Array([1, 2], dtype=int32))
    """
    check_arraylike("unravel_index", indices)
    x = ensure_array(indices)
    shape = list(shape) if isinstance(shape, (tuple, list)) or np.ndim(shape) else [shape]
    if any(isinstance(s, Tracer) and s.to_concrete_value() is None for s in shape):
        return _unravel_traced(x, shape)
    shape = [operator.index(s) for s in shape]
    dt = aval_of(x).dtype
    if not dtypes.is_int(dt):         # floats and bools: JAX's divmod way, its dtypes
        return _unravel_traced(x, shape)
    x = conversion.convert_element_type(x, dt) if aval_of(x).weak_type else x
    outs = [None] * len(shape)
    for i in reversed(range(len(shape))):
        if shape[i] == 0:
            outs[i] = x
            continue
        x, outs[i] = _floor_divmod(x, shape[i])
    oob_pos = lax.gt(x, typed_constant(0, dt))
    oob_neg = lax.lt(x, typed_constant(-1, dt)) if dtypes.is_signed(dt) else None
    res = []
    for s, o in zip(shape, outs):
        if oob_neg is not None:
            zeros = lax.broadcast_in_dim(typed_constant(0, dt), aval_of(o).shape, ())
            o = lax.select(oob_neg, zeros, o)
        res.append(lax.select(oob_pos, lax.broadcast_in_dim(typed_constant(s - 1, dt),
                                                            aval_of(o).shape, ()), o))
    return tuple(res)


def _unravel_traced(x, shape: list) -> tuple:
    """unravel_index of a traced shape (jit of jnp.unravel_index with its shape an argument)
    or of float or bool indices, JAX's way: floor division by each size in turn (jnp.divmod,
    its promotions), out-of-bounds clipped by a select."""
    if any(np.ndim(s) != 0 for s in shape):
        raise ValueError("unravel_index: shape should be a scalar or 1D sequence.")
    outs = [None] * len(shape)
    for i in reversed(range(len(shape))):
        x, outs[i] = ufuncs.divmod(x, shape[i])
    oob_pos = x > 0
    oob_neg = array(False) if dtypes.is_unsigned(aval_of(x).dtype) else x < -1
    return tuple(util.where(oob_pos, s - 1, util.where(oob_neg, 0, o))
                 for s, o in zip(shape, outs))


def ravel_multi_index(multi_index, dims, mode: str = "raise", order: str = "C", *, dtype=None):
    """The flat index of each multi-index into an array of shape `dims`.

    >>> jnp.ravel_multi_index((jnp.array([0, 1]), jnp.array([1, 2])), (2, 3))
    Array([1, 5], dtype=int32)
    """
    if len(multi_index) != len(dims):
        raise ValueError(f"len(multi_index)={len(multi_index)} != len(dims)={len(dims)}")
    dims = tuple(operator.index(d) for d in dims)
    check_arraylike("ravel_multi_index", *multi_index)
    idx = [ensure_array(i) for i in multi_index]
    if dtype is None:
        dtype = dtypes.result_type(int, *(aval_of(i) for i in idx))[0]
    dtype = dtypes.canonicalize_user_dtype(dtype, "ravel_multi_index")
    if not dtypes.is_int(dtype):
        raise ValueError(f"dtype={dtype} is not an integer type.")
    for i in idx:
        if not dtypes.is_int(aval_of(i).dtype):
            raise TypeError("only int indices permitted")
    if mode == "raise":
        for i, d in zip(idx, dims):
            _check_in_range(i, d, "ravel_multi_index", "coordinates")
    elif mode == "clip":
        idx = [lax.clamp(typed_constant(0, aval_of(i).dtype), i, np.array(d - 1, aval_of(i).dtype))
               for i, d in zip(idx, dims)]
    elif mode == "wrap":
        idx = [_floor_divmod(conversion.convert_element_type(i, aval_of(i).dtype), d)[1]
               for i, d in zip(idx, dims)]
    elif mode != "ignore":
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', or 'ignore'.")
    if order == "F":
        strides = np.cumprod((1,) + dims[:-1])
    elif order == "C":
        strides = np.cumprod((1,) + dims[1:][::-1])[::-1]
    else:
        raise ValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
    idx = broadcast_arrays(*idx)
    result = None
    for i, s in zip(idx, strides):
        term = lax.mul(conversion.convert_element_type(i, dtype), typed_constant(int(s), dtype))
        result = term if result is None else lax.add(result, term)
    return result


def diag_indices(n: int, ndim: int = 2) -> tuple:
    """Indices of the main diagonal of an n x ... x n array: (arange(n),) * ndim."""
    n, ndim = operator.index(n), operator.index(ndim)
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (lax.iota(dtypes.default_int_dtype(), n),) * ndim


def diag_indices_from(arr) -> tuple:
    """diag_indices for a square array `arr`."""
    shape = aval_of(arr).shape
    if len(shape) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(shape[0], len(shape))


# ------------------------------------------------------------------ mgrid, ogrid, r_, c_
s_ = np.s_
index_exp = np.index_exp


def _grid_1d(s: slice, name: str):
    """arange(start, stop, step), or linspace(start, stop, n) for an imaginary step nj."""
    start = _concrete(s.start, f"slice start of jnp.{name}") or 0
    stop = _concrete(s.stop, f"slice stop of jnp.{name}")
    step = _concrete(s.step, f"slice step of jnp.{name}") or 1
    if np.iscomplex(step):
        return linspace(start, stop, int(abs(step)))
    return arange(start, stop, step)


def _grids_1d(key, name: str) -> list:
    grids = [_grid_1d(k, name) for k in key]
    # of one dtype under standard promotion, as JAX's (jnp.mgrid[1:6:8j, 2:4]: float32)
    with config.override("jax_numpy_dtype_promotion", "standard"):
        return util.promote_dtypes(*grids)


class _Mgrid:
    """jnp.mgrid[s0, s1, ...]: the dense 'ij' meshgrid of the slices, stacked.

    >>> jnp.mgrid[0:2, 0:3:2]
    Array([[[0, 0],
            [1, 1]],
    <BLANKLINE>
           [[0, 2],
            [0, 2]]], dtype=int32)
    """

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_1d(key, "mgrid")
        grids = meshgrid(*_grids_1d(key, "mgrid"), indexing="ij", sparse=False)
        return stack(grids, 0) if grids else arange(0)


class _Ogrid:
    """jnp.ogrid[s0, s1, ...]: the sparse (broadcastable) 'ij' meshgrid of the slices.

    >>> jnp.ogrid[0:2, 0:3]
    [Array([[0],
           [1]], dtype=int32), Array([[0, 1, 2]], dtype=int32)]
    """

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_1d(key, "ogrid")
        return meshgrid(*_grids_1d(key, "ogrid"), indexing="ij", sparse=True)


class _AxisConcat:
    """x[a, b, ...] concatenates arrays, scalars and slices (as ranges) along `axis`, each
    raised to `ndmin` dimensions; a leading string "axis,ndmin,trans1d" (or "r"/"c" for a
    row/column matrix) overrides the defaults, as in NumPy."""
    axis: int
    ndmin: int
    trans1d: int
    name: str

    def __getitem__(self, key):
        items = key if isinstance(key, tuple) else (key,)
        params = [self.axis, self.ndmin, self.trans1d, -1]
        if isinstance(items[0], str):
            directive, items = items[0], items[1:]
            if directive in ("r", "c"):
                params[-1] = 0 if directive == "r" else 1
            else:
                fields = directive.split(",")
                fields = fields + params[len(fields):] if len(fields) < 4 \
                    else fields[:3] + [params[-1]]
                try:
                    params = [int(f) for f in fields]
                except ValueError as err:
                    raise ValueError(f"could not understand directive {directive!r}") from err
        axis, ndmin, trans1d, matrix = params
        parts = []
        for item in items:
            if isinstance(item, slice):
                part, item_ndim = _grid_1d(item, self.name), 0
            elif isinstance(item, str):
                raise ValueError("string directive must be placed at the beginning")
            else:
                part = array(item, copy=False)
                item_ndim = part.ndim
            part = array(part, copy=False, ndmin=ndmin)
            if trans1d != -1 and ndmin - item_ndim > 0:
                # the original dimensions move to position trans1d of the new shape
                shift = ndmin - abs(ndmin + trans1d + 1) % ndmin
                order = tuple(range(ndmin))
                part = transpose(part, order[shift:] + order[:shift])
            parts.append(part)
        out = concatenate(tuple(parts), axis=axis)
        if matrix != -1 and out.ndim == 1:
            out = expand_dims(out, matrix)
        return out

    def __len__(self) -> int:
        return 0


class RClass(_AxisConcat):
    """jnp.r_: concatenation along the first axis.

    >>> jnp.r_[1:4, 0, jnp.array([7, 8])]
    Array([1, 2, 3, 0, 7, 8], dtype=int32)
    """
    axis, ndmin, trans1d, name = 0, 1, -1, "r_"


class CClass(_AxisConcat):
    """jnp.c_: 1-D inputs become columns, joined along the last axis.

    >>> jnp.c_[jnp.array([1, 2]), jnp.array([3, 4])]
    Array([[1, 3],
           [2, 4]], dtype=int32)
    """
    axis, ndmin, trans1d, name = -1, 2, 0, "c_"


mgrid = _Mgrid()
ogrid = _Ogrid()
r_ = RClass()
c_ = CClass()
