"""Building and editing arrays as new arrays: insert, delete, place, fill_diagonal, block,
trim_zeros, mask_indices; bit packing (packbits, unpackbits); arrays from bytes and text
(frombuffer, fromstring); and the NumPy helpers JAX re-exports as they are (array_str,
array_repr, iterable).

    >>> jnp.insert(jnp.array([1, 2, 3]), 1, 9)
    Array([1, 9, 2, 3], dtype=int32)
    >>> jnp.delete(jnp.array([1, 2, 3]), 0)
    Array([2, 3], dtype=int32)

JAX arrays are immutable, so the "in place" functions (place, fill_diagonal) need
`inplace=False` and return the edited copy, as in JAX.
"""
from __future__ import annotations

import operator

import numpy as np
from numpy import array_repr, array_str, iterable  # as JAX: NumPy's own functions

from ..transforms.jit.namesakes import jax_jitted
from .. import lax
from ..core import dtypes
from ..core.errors import ConcretizationTypeError
from ..core.trace import Tracer
from ..xla.array import Array
from . import ufuncs, util
from .creation import _concrete, arange, array, asarray, empty, full, ones, zeros_like
from .index_tricks import diag_indices
from .manipulation import broadcast_shapes, concatenate, moveaxis, ravel, swapaxes, tile
from .pad import pad
from .selection import nonzero
from .sorting import argsort, sort
from .util import aval_of, canonicalize_axis, check_arraylike, ensure_arraylike, jnp_jit

__all__ = ["fromfile", "fromiter", "save", "savez", "load", "insert", "delete", "place",
           "fill_diagonal", "block", "trim_zeros", "mask_indices", "packbits", "unpackbits",
           "frombuffer", "fromstring",
           "array_str", "array_repr", "iterable"]


def _concrete_numpy(x, context: str) -> np.ndarray:
    """The value of `x` on the host, or JAX's error if it is traced."""
    if isinstance(x, Tracer):
        value = x.to_concrete_value()
        if value is None:
            raise ConcretizationTypeError(x, context)
        return np.asarray(value)
    return np.asarray(x)


def _tile_to_size(arr, size: int):
    """The 1-D `arr` repeated or cut to `size` entries."""
    n = aval_of(arr).shape[0]
    if n < size:
        arr = tile(arr, -(-size // n))
    return arr[:size] if aval_of(arr).shape[0] > size else arr


# ------------------------------------------------------------------ insert, delete, place
def insert(arr, obj, values, axis: int | None = None):
    """`arr` with `values` inserted before the indices `obj` (an int, a slice or a 1-D int
    array) along `axis` (of the flattened array if None).

    >>> jnp.insert(jnp.arange(4), jnp.array([0, 2]), jnp.array([7, 8]))
    Array([7, 0, 1, 8, 2, 3], dtype=int32)
    """
    a, _, values = ensure_arraylike("insert", arr, 0 if isinstance(obj, slice) else obj,
                                    values)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(_concrete(axis, "axis argument of jnp.insert()"),
                             aval_of(a).ndim)
    n_input = aval_of(a).shape[axis]
    indices = arange(*obj.indices(n_input)) if isinstance(obj, slice) else asarray(obj)
    if aval_of(indices).ndim > 1:
        raise ValueError(f"jnp.insert(): obj must be a slice, a one-dimensional array, or a "
                         f"scalar; got {obj}")
    if not dtypes.issubdtype(aval_of(indices).dtype, np.integer):
        if aval_of(indices).size == 0 and not isinstance(obj, (Array, Tracer)):
            indices = indices.astype(int)
        else:
            raise ValueError(f"jnp.insert(): index array must be integer typed; got {obj}")
    values = array(values, ndmin=aval_of(a).ndim, dtype=aval_of(a).dtype, copy=False)
    if aval_of(indices).size == 1:       # one index: all the values go in before it
        index = ravel(indices)[0]
        if aval_of(indices).ndim == 0:
            values = moveaxis(values, 0, axis)
        indices = full(aval_of(values).shape[axis], index)
    n_insert = broadcast_shapes(aval_of(indices).shape, (aval_of(values).shape[axis],))[0]
    out_shape = list(aval_of(a).shape)
    out_shape[axis] += n_insert
    indices = ufuncs.clip(util.where(indices < 0, indices + n_input, indices), 0, n_input)
    # where each inserted value lands: its index plus the number of values inserted
    # before it (in a stable order); the original entries fill the remaining places
    values_at = indices.at[argsort(indices)].add(arange(n_insert, dtype=aval_of(indices).dtype))
    keep = ones(n_input + n_insert, dtype=bool).at[values_at].set(False)
    arr_at = nonzero(keep, size=n_input)[0]
    lead = (slice(None),) * axis
    out = zeros_like(a, shape=tuple(out_shape))
    out = out.at[lead + (values_at,)].set(values)
    return out.at[lead + (arr_at,)].set(a)


def delete(arr, obj, axis: int | None = None, *, assume_unique_indices: bool = False):
    """`arr` without the entries at `obj` (an int, a slice, an int array or a boolean mask)
    along `axis` (of the flattened array if None). Under jit an index array needs
    `assume_unique_indices=True` (the output size must not depend on duplicates).

    >>> jnp.delete(jnp.arange(5), jnp.array([0, 3]))
    Array([1, 2, 4], dtype=int32)
    """
    a = ensure_arraylike("delete", arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(axis, aval_of(a).ndim)
    n = aval_of(a).shape[axis]
    lead = (slice(None),) * axis
    try:
        index = operator.index(obj)
    except TypeError:
        pass
    else:                                              # one static index
        index = canonicalize_axis(index, n)
        return concatenate([a[lead + (slice(0, index),)], a[lead + (slice(index + 1, None),)]],
                           axis=axis)
    if isinstance(obj, slice):
        obj, assume_unique_indices = arange(n)[obj], True
    check_arraylike("delete", *util.passing_text((a, obj)))
    util.check_text_args(obj)       # (JAX asks its dtype next: a string, a dtype's name)
    if hasattr(obj, "__jax_array__"):
        obj = obj.__jax_array__()
    if assume_unique_indices and dtypes.issubdtype(aval_of(obj).dtype, np.integer):
        # traceable: the k-th kept position skips the deleted indices at or before it
        gone = ravel(asarray(obj))
        gone = sort(ufuncs.clip(util.where(gone < 0, gone + n, gone), 0, n))
        gone = gone - arange(aval_of(gone).shape[0], dtype=aval_of(gone).dtype)
        kept = arange(n - aval_of(gone).size, dtype=aval_of(gone).dtype)
        kept = kept + (kept[None, :] >= gone[:, None]).sum(0, dtype=aval_of(kept).dtype)
        return a[lead + (kept,)]
    obj = _concrete_numpy(obj, "The error occurred in the 'obj' array argument of "
                               "jnp.delete(); pass assume_unique_indices=True to delete "
                               "traced indices.\n")
    if dtypes.issubdtype(obj.dtype, np.integer):
        mask = np.ones(n, dtype=bool)
        mask[obj] = False
    elif obj.dtype == bool:
        if obj.shape != (n,):
            raise ValueError("np.delete(arr, obj): for boolean indices, obj must be "
                             "one-dimensional with length matching specified axis.")
        mask = ~obj
    else:
        raise ValueError(f"np.delete(arr, obj): got obj.dtype={obj.dtype}; must be integer "
                         f"or bool.")
    return a[lead + (mask,)]


def place(arr, mask, vals, *, inplace: bool = True):
    """A copy of `arr` whose entries where `mask` holds are taken in order from `vals`
    (repeated as needed). Pass inplace=False: JAX arrays cannot change in place.

    >>> jnp.place(jnp.zeros(4), jnp.array([1, 0, 1, 1]) > 0, jnp.array([5., 6.]), inplace=False)
    Array([5., 0., 6., 5.], dtype=float32)
    """
    data, mask, vals = ensure_arraylike("place", arr, mask, vals)
    vals = ravel(vals)
    if inplace:
        raise ValueError("jax.numpy.place cannot modify arrays in-place, because JAX arrays "
                         "are immutable. Pass inplace=False to instead return an updated "
                         "array.")
    size = aval_of(mask).size
    if aval_of(data).size != size:
        raise ValueError("place: arr and mask must be the same size")
    if not aval_of(vals).size:
        raise ValueError("Cannot place values from an empty array")
    if not aval_of(data).size:
        return data
    where_true = nonzero(ravel(mask), size=size, fill_value=size)[0]   # padding is dropped
    vals = _tile_to_size(vals, size)
    return ravel(data).at[where_true].set(vals, mode="drop").reshape(aval_of(data).shape)


def fill_diagonal(a, val, wrap: bool = False, *, inplace: bool = True):
    """A copy of `a` (all sides equal beyond 2-D) with its main diagonal set to `val`
    (repeated as needed). Pass inplace=False: JAX arrays cannot change in place.

    >>> jnp.fill_diagonal(jnp.zeros((2, 3)), 7., inplace=False)
    Array([[7., 0., 0.],
           [0., 7., 0.]], dtype=float32)
    """
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    a, val = ensure_arraylike("fill_diagonal", a, val)
    shape = aval_of(a).shape
    if len(shape) < 2:
        raise ValueError("array must be at least 2-d")
    if len(shape) > 2 and not all(d == shape[0] for d in shape[1:]):
        raise ValueError("All dimensions of input must be of equal length")
    n = min(shape)
    val = val if aval_of(val).ndim == 0 else _tile_to_size(ravel(val), n)
    return a.at[diag_indices(n, len(shape))].set(val)


# ------------------------------------------------------------------ block
def _at_least(x, n: int):
    m = np.ndim(x)
    return lax.broadcast(x, (1,) * (n - m)) if m < n else asarray(x)


def _block(xs):
    """(the nested lists `xs` assembled, their depth)."""
    if isinstance(xs, tuple):
        raise ValueError(f"jax.numpy.block does not allow tuples, got {xs}")
    if not isinstance(xs, list):
        return asarray(xs), 1
    if not xs:
        raise ValueError("jax.numpy.block does not allow empty list arguments")
    parts, depths = zip(*(_block(x) for x in xs))
    if any(d != depths[0] for d in depths[1:]):
        raise ValueError("Mismatched list depths in jax.numpy.block")
    rank = max(depths[0], max(np.ndim(p) for p in parts))
    # the innermost lists join along the last axis, the next ones along the one before...
    return concatenate([_at_least(p, rank) for p in parts], axis=-depths[0]), depths[0] + 1


@jax_jitted
@jnp_jit
def block(arrays):
    """One array assembled from nested lists of blocks (innermost lists side by side).

    >>> jnp.block([[jnp.eye(2), jnp.zeros((2, 1))], [jnp.ones((1, 3))]])
    Array([[1., 0., 0.],
           [0., 1., 0.],
           [1., 1., 1.]], dtype=float32)
    """
    return _block(arrays)[0]


# ------------------------------------------------------------------ trim_zeros, mask_indices
def trim_zeros(filt, trim: str = "fb", axis=None):
    """`filt` without its leading ('f') and/or trailing ('b') all-zero slices along `axis`
    (all axes if None). The result's shape depends on the values, so `filt` must be
    concrete (not traced).

    >>> jnp.trim_zeros(jnp.array([0, 0, 1, 2, 0]))
    Array([1, 2], dtype=int32)
    """
    filt = ensure_arraylike("trim_zeros", filt)
    _concrete_numpy(filt, "Error arose in the `filt` argument of trim_zeros()\n")
    nd = len(aval_of(filt).shape)
    axes = range(nd) if axis is None else {
        canonicalize_axis(ax, nd) for ax in (axis if isinstance(axis, (tuple, list)) else
                                             (axis,))}
    front, back = "f" in trim.lower(), "b" in trim.lower()
    if not axes or not (front or back):
        return filt

    # the bounds from jnp operations on filt, as JAX's: under jit they are traced (even of a
    # constant filt, which jxkernel holds as a value there, where JAX's is traced), so they
    # raise JAX's ConcretizationTypeError; NumPy on filt's value answered
    def bounds(ax):
        if ax not in axes:
            return slice(None)
        nonzero_along = _concrete_numpy(filt.any(axis=tuple(i for i in range(nd) if i != ax)),
                                        "Error arose in the `filt` argument of trim_zeros()\n")
        if not nonzero_along.any():
            return slice(0, 0)
        start = int(nonzero_along.argmax()) if front else None
        stop = aval_of(filt).shape[ax] - int(nonzero_along[::-1].argmax()) if back else None
        return slice(start, stop)
    return filt[tuple(bounds(ax) for ax in range(nd))]


def trim_zeros_tol(filt, tol, trim: str = "fb"):
    """trim_zeros for 1-D `filt`, counting |x| < tol as zero (polydiv's remainder)."""
    filt = asarray(_concrete_numpy(filt, "Error arose in the `filt` argument of "
                                         "trim_zeros_tol()\n")) \
        if not isinstance(filt, Tracer) else filt
    small = np.asarray(_concrete_numpy(ufuncs.abs(filt) < tol, "in trim_zeros_tol()\n"))
    if small.all():
        return empty(0, aval_of(filt).dtype)
    start = int(small.argmin()) if "f" in trim.lower() else 0
    end = int(small[::-1].argmin()) if "b" in trim.lower() else 0
    return filt[start:aval_of(filt).shape[0] - end]


def mask_indices(n: int, mask_func, k: int = 0, *, size: int | None = None):
    """The (row, column) indices where mask_func(ones((n, n)), k) is nonzero, e.g. the upper
    triangle for jnp.triu; `size` makes the length static (under jit).

    >>> jnp.mask_indices(2, jnp.triu)
    (Array([0, 0, 1], dtype=int32), Array([0, 1, 1], dtype=int32))
    """
    i, j = nonzero(mask_func(ones((n, n)), k), size=size)
    return i, j


# ------------------------------------------------------------------ packbits, unpackbits
def _check_bitorder(bitorder):
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")


@jax_jitted
@jnp_jit(static_argnames=("axis", "bitorder"))
def packbits(a, axis: int | None = None, bitorder: str = "big"):
    """Each run of 8 (nonzero-or-not) entries along `axis` packed into one uint8, the
    last run padded with zeros.

    >>> jnp.packbits(jnp.array([1, 0, 1, 1, 0, 0, 0, 1]))
    Array([177], dtype=uint8)
    """
    arr = ensure_arraylike("packbits", a)
    dt = aval_of(arr).dtype
    if not (dtypes.issubdtype(dt, np.integer) or dt == dtypes.bool_):
        raise TypeError("Expected an input array of integer or boolean data type")
    _check_bitorder(bitorder)
    arr = lax.ne(arr, util.const(arr, 0)).astype("uint8")
    shifts = arange(8, dtype="uint8")
    if bitorder == "big":
        shifts = shifts[::-1]
    if axis is None:
        arr, axis = ravel(arr), 0
    arr = swapaxes(arr, axis, -1)
    rem = aval_of(arr).shape[-1] % 8
    if rem:
        arr = lax.pad(arr, np.uint8(0), (arr.ndim - 1) * [(0, 0, 0)] + [(0, 8 - rem, 0)])
    arr = arr.reshape(arr.shape[:-1] + (arr.shape[-1] // 8, 8))
    # of equal ranks: jnp's own broadcasting holds under jax_numpy_rank_promotion="raise"
    packed = (arr << shifts.reshape((1,) * (arr.ndim - 1) + (8,))).sum(-1).astype("uint8")
    return swapaxes(packed, axis, -1)


@jax_jitted
@jnp_jit(static_argnames=("axis", "count", "bitorder"))
def unpackbits(a, axis: int | None = None, count: int | None = None, bitorder: str = "big"):
    """Each uint8 of `a` spread into its 8 bits (0/1 uint8) along `axis`; `count` keeps
    that many bits (or pads with zeros).

    >>> jnp.unpackbits(jnp.array([177], jnp.uint8))
    Array([1, 0, 1, 1, 0, 0, 0, 1], dtype=uint8)
    """
    arr = ensure_arraylike("unpackbits", a)
    if aval_of(arr).dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    _check_bitorder(bitorder)
    masks = asarray(1) << arange(8, dtype="uint8")
    if bitorder == "big":
        masks = masks[::-1]
    if axis is None:
        arr, axis = ravel(arr), 0
    arr = swapaxes(arr, axis, -1)
    bits = ((arr[..., None] & masks.reshape((1,) * arr.ndim + (8,))) > 0).astype("uint8")
    bits = bits.reshape(bits.shape[:-2] + (-1,))
    if count is not None:
        have = bits.shape[-1]
        if count > have:
            bits = pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, count - have)])
        else:
            bits = bits[..., :count]
    return swapaxes(bits, axis, -1)


# ------------------------------------------------------------------ from bytes and text
def frombuffer(buffer, dtype=float, count: int = -1, offset: int = 0):
    """A 1-D array of the values in a bytes-like object (read by NumPy, then copied).

    >>> jnp.frombuffer(b"\\x01\\x02", dtype=jnp.uint8)
    Array([1, 2], dtype=uint8)
    """
    return asarray(np.frombuffer(buffer=buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string: str, dtype=float, count: int = -1, *, sep: str):
    """A 1-D array of the numbers in `string`, separated by `sep` (read by NumPy).

    >>> jnp.fromstring("1 2 3", dtype=int, sep=" ")
    Array([1, 2, 3], dtype=int32)
    """
    return asarray(np.fromstring(string=string, dtype=dtype, count=count, sep=sep))



_IMPURE = ("jnp.{name}() is not implemented because it may be non-pure and thus unsafe for use "
           "with JIT and other JAX transformations. Consider using jnp.asarray(np.{name}(...)) "
           "instead, although care should be taken if np.{name} is used within a jax "
           "transformations because of its potential side-effect of consuming the {what} "
           "object; for more information see https://docs.jax.dev/en/latest/notebooks/"
           "Common_Gotchas_in_JAX.html#pure-functions")


def fromfile(*args, **kwargs):
    """Not provided, as in JAX: reading a file is a side effect. Use jnp.asarray(np.fromfile())."""
    raise NotImplementedError(_IMPURE.format(name="fromfile", what="file"))


def fromiter(*args, **kwargs):
    """Not provided, as in JAX: it consumes an iterator. Use jnp.asarray(np.fromiter(...))."""
    raise NotImplementedError(_IMPURE.format(name="fromiter", what="iterable"))


# ------------------------------------------------------------------ .npy files
save, savez = np.save, np.savez          # JAX's are NumPy's own (Arrays convert on the way)


def load(file, *args, **kwargs):
    """np.load, returning an Array for a .npy file (bfloat16 data, which NumPy saves as raw
    2-byte voids, comes back as bfloat16); .npz archives stay NumPy's.

    >>> import io
    >>> f = io.BytesIO(); jnp.save(f, jnp.array([2, 4], dtype="bfloat16")); _ = f.seek(0)
    >>> jnp.load(f)
    Array([2, 4], dtype=bfloat16)
    """
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        if out.dtype == "V2" and dtypes.BFLOAT16_DTYPES:     # (kept raw without ml_dtypes)
            out = out.view(dtypes.bfloat16)
        try:
            out = asarray(out)
        except TypeError:                 # a dtype we do not hold on devices: NumPy's array
            pass
    return out
