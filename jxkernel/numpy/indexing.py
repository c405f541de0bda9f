"""NumPy indexing on Arrays and tracers (`x[idx]`, `x.at[idx].set(y)`), take and friends.

    >>> x = jnp.arange(12).reshape(3, 4)
    >>> x[1:, ::2]                       # static: slice (+ rev/squeeze/expand_dims)
    Array([[ 4,  6],
           [ 8, 10]], dtype=int32)
    >>> x[jnp.array([2, 0]), 1]          # advanced: gather
    Array([9, 1], dtype=int32)
    >>> x.at[0, :2].add(100)[0]          # updates: scatter
    Array([100, 101,   2,   3], dtype=int32)

As in JAX, an index is lowered in the cheapest way that expresses it: static ints and
slices become `slice`; traced scalar ints `dynamic_slice`; everything else (integer
arrays, strided slices next to arrays, concrete boolean masks) one `gather`, laid out as
NumPy's advanced indexing says. Out-of-bounds reads are clamped (gather's default) unless
mode='fill'; out-of-bounds updates are dropped.
"""
from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.errors import NonConcreteBooleanIndexError
from ..core.trace import Tracer
from ..lax import conversion
from ..xla.array import Array
from . import util
from .util import aval_of, canonicalize_axis, check_arraylike, ensure_array

__all__ = ["take", "take_along_axis", "put", "put_along_axis", "choose", "ix_", "indices",
           "unravel_index", "ravel_multi_index", "diag_indices", "diag_indices_from",
           "tril_indices", "triu_indices", "tril_indices_from", "triu_indices_from"]

GatherScatterMode = lax.GatherScatterMode

# index kinds
NONE, ELLIPSIS, INT, SLICE, ARRAY, BOOL = "none", "ellipsis", "int", "slice", "array", "bool"


# ------------------------------------------------------------------ parsing an index
def _is_int(i) -> bool:
    return isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_))


def _kind(i) -> str:
    """What sort of index `i` is, or JAX's error for what cannot index an array."""
    if i is None:
        return NONE
    if i is Ellipsis:
        return ELLIPSIS
    if isinstance(i, slice):
        return SLICE
    if _is_int(i):
        return INT
    if isinstance(i, (bool, np.bool_)):
        return BOOL
    if isinstance(i, (Array, Tracer, np.ndarray)):
        if i.dtype == np.bool_:
            return BOOL
        if dtypes.is_int(i.dtype):
            return ARRAY
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                        f"{i.dtype}")
    if isinstance(i, str):
        raise TypeError(f"JAX does not support string indexing; got idx={i!r}")
    if isinstance(i, Sequence):
        if not i:
            return ARRAY
        kind = np.asarray(i).dtype      # a list of Python scalars or concrete arrays
        if kind == np.bool_:
            return BOOL
        if np.issubdtype(kind, np.integer):
            return ARRAY
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                        f"{kind}")
    if isinstance(i, (float, complex, np.generic)):
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                        f"{np.dtype(type(i))}")
    raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) and "
                     f"integer or boolean arrays are valid indices. Got {i}")


def _as_tuple(idx) -> tuple:
    """`idx` as a tuple of indices; a non-tuple sequence is refused, as JAX refuses it."""
    if isinstance(idx, tuple):
        return idx
    if isinstance(idx, Sequence) and not isinstance(idx, str):
        unpack = any(isinstance(i, (np.ndarray, Array, Tracer)) and np.ndim(i) != 0 or
                     isinstance(i, (Sequence, slice)) or i is Ellipsis or i is None for i in idx)
        raise TypeError("Using a non-tuple sequence for multidimensional indexing is not "
                        "allowed; use `arr[tuple(seq)]` instead of `arr[seq]`. " if unpack else
                        "Using a non-tuple sequence for multidimensional indexing is not "
                        "allowed; use `arr[array(seq)]` instead of `arr[seq]`. "
                        "See https://github.com/jax-ml/jax/issues/4564 for more information.")
    return (idx,)


def _parse(idx, shape) -> list:
    """[(kind, index), ...] with the Ellipsis expanded into full slices and trailing full
    slices added: every entry but NONE and BOOL consumes one axis, a BOOL its ndim axes."""
    items = [(_kind(i), i) for i in _as_tuple(idx)]
    consumed = [0 if k in (NONE, ELLIPSIS) else np.ndim(i) if k == BOOL else 1 for k, i in items]
    if sum(k == ELLIPSIS for k, _ in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if sum(consumed) > len(shape):
        raise IndexError(f"Too many indices: array is {len(shape)}-dimensional, but "
                         f"{sum(consumed)} were indexed")
    return items


def _concrete_value(x):
    """NumPy value of `x` if known while tracing (an Array, NumPy data, a list), else None."""
    if isinstance(x, Tracer):
        v = x.to_concrete_value()
        return None if v is None else np.asarray(v)
    return np.asarray(x)


def _check_slice(s: slice, position: int) -> slice:
    """A slice with plain-int entries (concrete arrays allowed), else JAX's IndexError."""
    parts = []
    for v in (s.start, s.stop, s.step):
        if v is not None and _concrete_value(v) is None:
            raise IndexError(f"Slice entries must be static integers. Got {s} at position "
                             f"{position}")
        parts.append(None if v is None else operator.index(v))
    return slice(*parts)


def _canonical_slice(s: slice, size: int):
    """(start, step, length) of s on an axis of `size`, for gathers."""
    start, stop, step = s.indices(size)
    return start, step, len(range(start, stop, step))


# ------------------------------------------------------------------ getitem
def getitem(x, idx):
    """x[idx] with NumPy's semantics and JAX's out-of-bounds rules (installed as
    Array.__getitem__ by jxkernel.numpy)."""
    return rewriting_take(x, idx)


def rewriting_take(arr, idx, *, indices_are_sorted=False, unique_indices=False, mode=None,
                   fill_value=None, normalize_indices=True):
    """arr[idx] with gather's options (JAX's name for the function behind x[idx])."""
    arr = ensure_array(arr)
    shape = aval_of(arr).shape
    items = _parse(idx, shape)
    parsed_mode = None if mode is None else GatherScatterMode.from_any(mode)
    kinds = {k for k, _ in items}
    slicable = parsed_mode in (None, GatherScatterMode.PROMISE_IN_BOUNDS, GatherScatterMode.CLIP)
    if slicable and kinds <= {INT, SLICE, NONE, ELLIPSIS}:
        items = [(k, _check_slice(i, p) if k == SLICE else i) for p, (k, i) in enumerate(items)]
        return _static_slice(arr, shape, items, normalize_indices)
    if slicable and kinds <= {INT, SLICE, NONE, ELLIPSIS, ARRAY} and all(
            np.ndim(i) == 0 for k, i in items if k == ARRAY) and all(
            k != SLICE or _concrete_value(i.step if i.step is not None else 1) in (1, -1)
            for k, i in items):
        items = [(k, _check_slice(i, p) if k == SLICE else i) for p, (k, i) in enumerate(items)]
        return _dynamic_slice(arr, shape, items, normalize_indices)
    ix = _index_to_gather(shape, _expand_bool_indices(items, shape), normalize_indices)
    return _gather(arr, ix, indices_are_sorted, unique_indices, mode, fill_value)


def _expand_full(items, shape) -> list:
    """Ellipsis replaced by full slices, and full slices for the trailing axes (a scalar
    bool, like None, consumes no axis)."""
    out, used = [], sum(1 for k, _ in items if k not in (NONE, ELLIPSIS, BOOL))
    for k, i in items:
        if k == ELLIPSIS:
            out += [(SLICE, slice(None))] * (len(shape) - used)
            used = len(shape)
        else:
            out.append((k, i))
    return out + [(SLICE, slice(None))] * (len(shape) - used)


def _static_slice(arr, shape, items, normalize_indices):
    starts, limits, strides, rev, squeeze, newaxis = [], [], [], [], [], []
    for k, i in _expand_full(items, shape):
        if k == NONE:
            newaxis.append(len(starts) - len(squeeze) + len(newaxis))
            continue
        axis, size = len(starts), shape[len(starts)]
        if k == INT:
            if size == 0:
                raise IndexError(f"index is out of bounds for axis {axis} with size 0")
            i = int(i) + size if normalize_indices and i < 0 else int(i)
            i = builtins.min(builtins.max(i, 0), size - 1)   # static indices clamp, as in JAX
            starts.append(i), limits.append(i + 1), strides.append(1), squeeze.append(axis)
        else:
            start, stop, step = i.indices(size)
            if step < 0:                 # slice forwards, then reverse
                new_start = builtins.min(size, stop + 1 + abs(start - stop - 1) % abs(step))
                starts.append(new_start), limits.append(builtins.max(new_start, start + 1))
                strides.append(-step), rev.append(axis)
            else:
                starts.append(start), limits.append(builtins.max(start, stop))
                strides.append(step)
    out = arr
    if strides and (any(s != 1 for s in strides) or
                    any((a, b) != (0, n) for a, b, n in zip(starts, limits, shape))):
        out = lax.slice(out, starts, limits, None if all(s == 1 for s in strides) else strides)
    if rev:
        out = lax.rev(out, tuple(rev))
    if squeeze:
        out = lax.squeeze(out, tuple(squeeze))
    if newaxis:
        out = lax.expand_dims(out, tuple(newaxis))
    return out


def _index_dtype(shape):
    return np.dtype(np.int64) if shape and builtins.max(shape) >= 2 ** 31 else np.dtype(np.int32)


def _dynamic_slice(arr, shape, items, normalize_indices):
    starts, sizes, rev, squeeze, newaxis = [], [], [], [], []
    trivial = True
    for k, i in _expand_full(items, shape):
        if k == NONE:
            newaxis.append(len(starts) - len(squeeze) + len(newaxis))
            continue
        axis, size = len(starts), shape[len(starts)]
        if k in (INT, ARRAY):
            if size == 0:
                raise IndexError(f"index is out of bounds for axis {axis} with size 0")
            trivial = False
            starts.append(i), sizes.append(1), squeeze.append(axis)
        else:
            trivial &= i == slice(None)
            start, stop, step = i.indices(size)
            if step < 0:
                new_start = stop + 1 + abs(start - stop - 1) % abs(step)
                starts.append(new_start), sizes.append(builtins.max(0, start + 1 - new_start))
                rev.append(axis)
            else:
                starts.append(start), sizes.append(builtins.max(0, stop - start))
    out = arr
    if not trivial:
        # dynamic_slice needs one index dtype; Python ints stay static (no select emitted)
        dt = _index_dtype(shape)
        starts = [dt.type(s) if _is_int(s) else conversion.convert_element_type(s, dt)
                  for s in starts] if len(starts) > 1 else starts
        out = lax.dynamic_slice(out, starts, sizes, allow_negative_indices=normalize_indices)
    if rev:
        out = lax.rev(out, tuple(rev))
    if squeeze:
        out = lax.squeeze(out, tuple(squeeze))
    if newaxis:
        out = lax.expand_dims(out, tuple(newaxis))
    return out


# ------------------------------------------------------------------ the general case: gather
def _expand_bool_indices(items, shape) -> list:
    """Boolean masks replaced by the integer arrays of their True positions (they must be
    concrete: the result's shape depends on them); lists made arrays."""
    out, axis = [], 0
    for pos, (k, i) in enumerate(items):
        if k == ELLIPSIS:
            axis += len(shape) - sum(1 if kk not in (NONE, ELLIPSIS, BOOL) else
                                     np.ndim(ii) if kk == BOOL else 0 for kk, ii in items)
        if k == BOOL:
            value = _concrete_value(i)
            if value is None:
                raise NonConcreteBooleanIndexError(i)
            if value.ndim == 0:
                out.append((BOOL, bool(value)))
                continue
            expected = list(shape[axis:axis + value.ndim])
            if not all(s in (0, e) for s, e in zip(value.shape, expected)):
                raise IndexError(f"boolean index did not match shape of indexed array in index "
                                 f"{pos}: got {value.shape}, expected {expected}")
            out += [(ARRAY, w) for w in np.nonzero(value)]
            axis += value.ndim
            continue
        if k == ARRAY and isinstance(i, Sequence):
            i = _sequence_to_array(i)
        if k in (INT, ARRAY, SLICE):
            axis += 1
        out.append((k, i))
    return out


def _sequence_to_array(seq):
    try:
        arr = np.asarray(seq)
    except Exception:       # holds tracers: stack them
        from .manipulation import stack
        return stack([ensure_array(s) for s in seq])
    return arr.astype(np.int32) if arr.size == 0 else arr


class _GatherIndexer:
    """How one index becomes a gather: dimension numbers, indices, slice sizes, and what
    to do to the result (reverse, insert None axes, which scalar-bool axes to add first)."""
    __slots__ = ("slice_shape", "gather_slice_shape", "gather_indices", "dnums",
                 "unique_indices", "indices_are_sorted", "reversed_y_dims", "newaxis_dims",
                 "scalar_bool_dims")

    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)


def _normalize(i, size: int):
    """A negative index counted from the end: statically for NumPy data, as a select
    (what JAX emits) for arrays."""
    if isinstance(i, np.ndarray) or _is_int(i):
        if dtypes.is_unsigned(np.asarray(i).dtype):
            return i
        return np.where(np.asarray(i) < 0, np.asarray(i) + size, i) if isinstance(i, np.ndarray) \
            else (i + size if i < 0 else i)
    dt = aval_of(i).dtype
    if dtypes.is_unsigned(dt):
        return i
    i = conversion.convert_element_type(i, dt) if aval_of(i).weak_type else i
    return lax.select(lax.lt(i, np.zeros((), dt)), lax.add(i, np.array(size, dt)), i)


def _index_to_gather(shape, items, normalize_indices=True) -> _GatherIndexer:
    for p, (k, i) in enumerate(items):
        if k == SLICE:
            items[p] = (k, _check_slice(i, p))
    # NumPy: advanced indices separated by a slice/None/Ellipsis put their dims first
    adv_pos = [p for p, (k, _) in enumerate(items) if k in (ARRAY, INT)]
    contiguous = all(b - a == 1 for a, b in zip(adv_pos, adv_pos[1:]))
    items = _expand_full(items, shape)
    # a scalar bool adds an axis of size 1, indexed by arange(1) (True) or arange(0) (False)
    scalar_bool_dims = [n for n, (k, _) in enumerate(items) if k == BOOL]
    shape = list(shape)
    for n in scalar_bool_dims:
        shape.insert(n, 1)
        items[n] = (ARRAY, np.arange(int(items[n][1]), dtype=np.int32))
    # which entries consume which axis of x
    axes, a = [], 0
    for k, _ in items:
        axes.append(None if k == NONE else a)
        a += k != NONE
    if normalize_indices:
        items = [(k, _normalize(i, shape[ax]) if k in (INT, ARRAY) else i)
                 for (k, i), ax in zip(items, axes)]
    index_dtype = _index_dtype(shape)
    advanced = any(k == ARRAY and np.ndim(i) > 0 for k, i in items)
    adv_items = [(p, axes[p], i) for p, (k, i) in enumerate(items) if advanced and k in (ARRAY, INT)]
    idx_adv_pos = [p for p, _, _ in adv_items]

    x_axis = y_axis = collapsed_y_axis = 0
    offset_dims, collapsed, start_index_map = [], [], []
    gather_indices, gather_indices_shape = [], []
    slice_shape, newaxis_dims, reversed_y_dims, gather_slice_shape = [], [], [], []
    for pos, (k, i) in enumerate(items):
        if adv_items and (contiguous and pos == idx_adv_pos[0] or not contiguous and pos == 0):
            from .manipulation import broadcast_arrays
            arrs = broadcast_arrays(*(ensure_array(i) if not isinstance(i, np.ndarray) else i
                                      for _, _, i in adv_items))
            bshape = aval_of(arrs[0]).shape
            start = len(gather_indices_shape)
            gather_indices += [(_to_index_dtype(g, index_dtype), start) for g in arrs]
            gather_indices_shape += bshape
            start_index_map += [ax for _, ax, _ in adv_items]
            collapsed += [ax for _, ax, _ in adv_items]
            slice_shape += bshape
            y_axis += len(bshape)
            collapsed_y_axis += len(bshape)
        if pos in idx_adv_pos:
            x_axis += 1
            gather_slice_shape.append(1)
            continue
        if k in (INT, ARRAY):              # a scalar (no advanced indexing here)
            if shape[x_axis] == 0:
                raise IndexError(f"index is out of bounds for axis {x_axis} with size 0")
            gather_indices.append((_to_index_dtype(i, index_dtype), len(gather_indices_shape)))
            collapsed.append(x_axis)
            gather_slice_shape.append(1)
            start_index_map.append(x_axis)
            x_axis += 1
        elif k == NONE:
            slice_shape.append(1)
            newaxis_dims.append(y_axis)
            y_axis += 1
        else:
            start, step, size = _canonical_slice(i, shape[x_axis])
            slice_shape.append(size)
            if step == 1:
                if size != shape[x_axis]:     # a full slice needs no index
                    gather_indices.append((index_dtype.type(start), len(gather_indices_shape)))
                    start_index_map.append(x_axis)
                gather_slice_shape.append(size)
                offset_dims.append(collapsed_y_axis)
            else:
                idx = start + step * np.arange(size, dtype=index_dtype)
                if step < 0:
                    reversed_y_dims.append(collapsed_y_axis)
                    idx = idx[::-1]
                gather_slice_shape.append(1)
                gather_indices.append((idx.astype(index_dtype), len(gather_indices_shape)))
                start_index_map.append(x_axis)
                gather_indices_shape.append(size)
                collapsed.append(x_axis)
            collapsed_y_axis += 1
            y_axis += 1
            x_axis += 1

    if not gather_indices:
        indices = np.zeros((0,), index_dtype)
    elif len(gather_indices) == 1:
        g, _ = gather_indices[0]
        indices = lax.expand_dims(g, (np.ndim(g),))
    else:
        full = tuple(gather_indices_shape) + (1,)
        indices = lax.concatenate([lax.broadcast_in_dim(g, full, tuple(range(s, s + np.ndim(g))))
                                   for g, s in gather_indices], len(full) - 1)
    dnums = lax.GatherDimensionNumbers(offset_dims=tuple(offset_dims),
                                       collapsed_slice_dims=tuple(sorted(collapsed)),
                                       start_index_map=tuple(start_index_map))
    return _GatherIndexer(slice_shape=tuple(slice_shape), gather_slice_shape=tuple(gather_slice_shape),
                          gather_indices=indices, dnums=dnums, unique_indices=not adv_items,
                          indices_are_sorted=not adv_items, reversed_y_dims=tuple(reversed_y_dims),
                          newaxis_dims=tuple(newaxis_dims),
                          scalar_bool_dims=tuple(scalar_bool_dims))


def _to_index_dtype(i, dtype):
    if isinstance(i, np.ndarray) or _is_int(i):
        return np.asarray(i).astype(dtype)
    return conversion.convert_element_type(i, dtype)


def _gather(arr, ix: _GatherIndexer, indices_are_sorted, unique_indices, mode, fill_value):
    if fill_value is not None:
        value = _concrete_value(fill_value)
        if value is None:
            from ..core.errors import ConcretizationTypeError
            raise ConcretizationTypeError(fill_value, "The problem arose with the fill_value "
                                          "argument to indexed get().\n")
        if value.ndim != 0:
            raise ValueError("fill_value argument to indexed get() must be a scalar")
        fill_value = value.item()
    y = arr
    if ix.scalar_bool_dims:
        y = lax.expand_dims(y, ix.scalar_bool_dims)
    if 0 in ix.slice_shape:
        a = aval_of(arr)
        return lax.broadcast_in_dim(np.zeros((), a.dtype), ix.slice_shape, ())
    if 0 not in np.shape(ix.gather_indices):
        y = lax.gather(y, ix.gather_indices, ix.dnums, ix.gather_slice_shape,
                       unique_indices=unique_indices or ix.unique_indices,
                       indices_are_sorted=indices_are_sorted or ix.indices_are_sorted,
                       mode=mode, fill_value=fill_value)
    if ix.reversed_y_dims:
        y = lax.rev(y, ix.reversed_y_dims)
    return lax.expand_dims(y, ix.newaxis_dims) if ix.newaxis_dims else y


# ------------------------------------------------------------------ x.at[idx]
def _scatter_update(x, idx, y, scatter_op, indices_are_sorted=False, unique_indices=False,
                    mode=None, normalize_indices=True):
    """x with x[idx] combined with y by `scatter_op` (a lax.scatter* function)."""
    x = ensure_array(x)
    xa = aval_of(x)
    if type(y) is int and dtypes.is_int(xa.dtype) and \
            dtypes.iinfo(xa.dtype).min <= y <= dtypes.iinfo(xa.dtype).max:
        y = np.array(y, xa.dtype)                 # an in-range int keeps x's dtype exactly
    check_arraylike("scatter", y)
    shape = xa.shape
    items = _expand_bool_indices(_parse(idx, shape), shape)
    ix = _index_to_gather(shape, items, normalize_indices)
    if 0 in ix.slice_shape:
        return x
    x2, y = util.promote_dtypes(x, y)
    from .manipulation import broadcast_to
    y = broadcast_to(y, ix.slice_shape)
    if ix.newaxis_dims:
        y = lax.squeeze(y, ix.newaxis_dims)
    if ix.reversed_y_dims:
        y = lax.rev(y, ix.reversed_y_dims)
    if ix.scalar_bool_dims:
        x2 = lax.expand_dims(x2, ix.scalar_bool_dims)
    dnums = lax.ScatterDimensionNumbers(update_window_dims=ix.dnums.offset_dims,
                                        inserted_window_dims=ix.dnums.collapsed_slice_dims,
                                        scatter_dims_to_operand_dims=ix.dnums.start_index_map)
    out = scatter_op(x2, ix.gather_indices, y, dnums,
                     indices_are_sorted=ix.indices_are_sorted or indices_are_sorted,
                     unique_indices=ix.unique_indices or unique_indices, mode=mode)
    if ix.scalar_bool_dims:
        out = lax.squeeze(out, ix.scalar_bool_dims)
    oa = aval_of(out)
    if (oa.dtype, oa.weak_type) != (xa.dtype, xa.weak_type):
        out = conversion._convert_element_type(out, xa.dtype, xa.weak_type)
    return out


class _IndexUpdateHelper:
    """`x.at`: indexing it gives an _IndexUpdateRef with the functional updates.

    >>> jnp.zeros(3).at[1].set(5.)
    Array([0., 5., 0.], dtype=float32)
    """
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return _IndexUpdateRef(self.array, index)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"


class _IndexUpdateRef:
    """`x.at[idx]`: get/set/add/... return a new array; x itself never changes. Repeated
    indices accumulate for add/multiply/min/max; for set one of the values wins."""
    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array, self.index = array, index

    def __repr__(self):
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None,
            fill_value=None, out_sharding=None, wrap_negative_indices=True):
        """x[idx], with gather's options (mode='fill' gives fill_value out of bounds)."""
        return rewriting_take(self.array, self.index, indices_are_sorted=indices_are_sorted,
                               unique_indices=unique_indices, mode=mode, fill_value=fill_value,
                               normalize_indices=wrap_negative_indices)

    def _update(self, values, op, indices_are_sorted, unique_indices, mode,
                wrap_negative_indices):
        return _scatter_update(self.array, self.index, values, op, indices_are_sorted,
                               unique_indices, mode, wrap_negative_indices)

    def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        """x[idx] = values."""
        return self._update(values, lax.scatter, indices_are_sorted, unique_indices, mode,
                            wrap_negative_indices)

    def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        """x[idx] += values."""
        return self._update(values, lax.scatter_add, indices_are_sorted, unique_indices, mode,
                            wrap_negative_indices)

    def subtract(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
                 out_sharding=None, wrap_negative_indices=True):
        """x[idx] -= values."""
        return self._update(values, lax.scatter_sub, indices_are_sorted, unique_indices, mode,
                            wrap_negative_indices)

    def multiply(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
                 out_sharding=None, wrap_negative_indices=True):
        """x[idx] *= values."""
        return self._update(values, lax.scatter_mul, indices_are_sorted, unique_indices, mode,
                            wrap_negative_indices)

    mul = multiply

    def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        """x[idx] = minimum(x[idx], values)."""
        return self._update(values, lax.scatter_min, indices_are_sorted, unique_indices, mode,
                            wrap_negative_indices)

    def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        """x[idx] = maximum(x[idx], values)."""
        return self._update(values, lax.scatter_max, indices_are_sorted, unique_indices, mode,
                            wrap_negative_indices)

    def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
               out_sharding=None, wrap_negative_indices=True):
        """x[idx] /= values (as x / (ones with values multiplied in at idx), like JAX)."""
        from .ufuncs import divide
        return divide(self.array, self._ones_mul(values, indices_are_sorted, unique_indices,
                                                 mode, wrap_negative_indices))

    def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
              out_sharding=None, wrap_negative_indices=True):
        """x[idx] **= values."""
        from .ufuncs import power
        return power(self.array, self._ones_mul(values, indices_are_sorted, unique_indices,
                                                mode, wrap_negative_indices))

    def _ones_mul(self, values, indices_are_sorted, unique_indices, mode, wrap):
        a = aval_of(self.array)
        ones = conversion._convert_element_type(
            lax.broadcast_in_dim(np.ones((), a.dtype), a.shape, ()), a.dtype, a.weak_type)
        return _scatter_update(ones, self.index, values, lax.scatter_mul, indices_are_sorted,
                               unique_indices, mode, wrap)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None,
              wrap_negative_indices=True):
        """x[idx] = func(x[idx]), applied once per occurrence of a repeated index."""
        from ..lax.scatter import _scatter, scatter_p

        def scatter_apply(x, indices, y, dnums, **kw):
            return _scatter(scatter_p, lambda a, _: func(a), x, indices, y, dnums,
                            kw["indices_are_sorted"], kw["unique_indices"], kw["mode"])
        a = aval_of(self.array)
        return _scatter_update(self.array, self.index, np.zeros((), a.dtype), scatter_apply,
                               indices_are_sorted, unique_indices, mode, wrap_negative_indices)


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
    check_arraylike("take", a, indices)
    a, indices = ensure_array(a), ensure_array(indices)
    if axis is None:
        from .manipulation import ravel
        a, axis = ravel(a), 0
    shape = aval_of(a).shape
    axis = canonicalize_axis(axis, len(shape))
    ia = aval_of(indices)
    if not dtypes.is_int(ia.dtype):
        raise TypeError(f"take indices must be of integer type, got {ia.dtype}")
    if mode is None or mode == "fill":
        gather_mode = GatherScatterMode.FILL_OR_DROP
        indices = _normalize(indices, shape[axis])
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    elif mode == "wrap":
        n = np.array(shape[axis], ia.dtype)
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
        return lax.broadcast_in_dim(np.zeros((), aval_of(a).dtype), out_shape, ())
    sizes[axis] = 1
    nd = len(ia.shape)
    dnums = lax.GatherDimensionNumbers(
        offset_dims=tuple(range(axis)) + tuple(range(axis + nd, len(shape) + nd - 1)),
        collapsed_slice_dims=(axis,), start_index_map=(axis,))
    return lax.gather(a, lax.expand_dims(indices, (nd,)), dnums, tuple(sizes), mode=gather_mode,
                      unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                      fill_value=fill_value)


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
        from .manipulation import ravel
        a, axis = ravel(a), 0
    shape = aval_of(a).shape
    rank = len(shape)
    if rank != ia.ndim:
        raise ValueError(f"indices and arr must have the same number of dimensions; "
                         f"{ia.ndim} vs. {rank}")
    axis = canonicalize_axis(axis, rank)
    from .manipulation import broadcast_shapes
    arr_shape = shape[:axis] + (1,) + shape[axis + 1:]
    out_shape = broadcast_shapes(ia.shape, arr_shape)
    if shape[axis] == 0:
        return lax.broadcast_in_dim(np.zeros((), aval_of(a).dtype), out_shape, ())
    if wrap_negative_indices is None:
        wrap_negative_indices = mode != "promise_in_bounds"
    if wrap_negative_indices:
        indices = _normalize(indices, shape[axis])
    index_dims = [i for i, d in enumerate(ia.shape) if i == axis or d != 1]
    gather_indices = lax.reshape(indices, tuple(out_shape[i] for i in index_dims) + (1,))
    slice_sizes, offset_dims, start_index_map, collapsed, op_batch, idx_batch = [], [], [], [], [], []
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


def put(a, ind, v, mode=None, *, inplace=True):
    """`a` with the flat positions `ind` set to `v` (inplace=False is required: JAX arrays
    are immutable)."""
    if inplace:
        raise ValueError("jax.numpy.put cannot modify arrays in-place, because JAX arrays are "
                         "immutable. Pass inplace=False to instead return an updated array.")
    check_arraylike("put", a, ind, v)
    from .manipulation import ravel, resize
    arr, ind, v = ensure_array(a), ravel(ind), ravel(v)
    n, k, m = aval_of(arr).size, aval_of(ind).size, aval_of(v).size
    if not n or not k or not m:
        return arr
    v = resize(v, (k,))
    if mode is None:
        scatter_mode = "drop"
    elif mode == "clip":
        ind = lax.clamp(np.zeros((), aval_of(ind).dtype), ind, np.array(n - 1, aval_of(ind).dtype))
        scatter_mode = "promise_in_bounds"
    elif mode == "wrap":
        nn = np.array(n, aval_of(ind).dtype)
        ind = lax.rem(lax.add(lax.rem(ind, nn), nn), nn)
        scatter_mode = "promise_in_bounds"
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    else:
        raise ValueError(f"mode should be one of 'wrap' or 'clip'; got mode={mode!r}")
    return _scatter_update(arr, unravel_index(ind, aval_of(arr).shape), v, lax.scatter,
                           mode=scatter_mode)


def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """`arr` with values put at `indices` along `axis` (inplace=False is required)."""
    if inplace:
        raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because JAX "
                         "arrays are immutable. Pass inplace=False to instead return an "
                         "updated array.")
    check_arraylike("put_along_axis", arr, indices, values)
    arr, indices = ensure_array(arr), ensure_array(indices)
    if axis is None:
        from .manipulation import ravel
        arr_flat = ravel(arr)
        out = put_along_axis(arr_flat, indices, values, 0, inplace=False, mode=mode)
        return lax.reshape(out, aval_of(arr).shape)
    shape = aval_of(arr).shape
    axis = canonicalize_axis(axis, len(shape))
    idx = list(_indices(shape, sparse=True))
    idx[axis] = indices
    return _scatter_update(arr, tuple(idx), values, lax.scatter, mode=mode)


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
        value = _concrete_value(a)
        if value is None:
            from ..core.errors import ConcretizationTypeError
            raise ConcretizationTypeError(a, "The error occurred because jnp.choose was "
                                          "jit-compiled with mode='raise'. Use mode='wrap' or "
                                          "mode='clip' instead.\n")
        if np.any((value < 0) | (value >= n)):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        nn = np.array(n, ad)
        a = lax.rem(lax.add(lax.rem(a, nn), nn), nn)
    elif mode == "clip":
        a = lax.clamp(np.zeros((), ad), a, np.array(n - 1, ad))
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    from .manipulation import broadcast_arrays, stack
    a, *choices = broadcast_arrays(a, *choices)
    return getitem(stack(choices), (a,) + _indices(aval_of(a).shape, sparse=True))


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
        out.append(lax.broadcast_in_dim(np.zeros((), dtypes.default_int_dtype()), shape, ())
                   if aa.size == 0 else lax.broadcast_in_dim(a, shape, (i,)))
    return tuple(out)


def _indices(dimensions, dtype=None, sparse: bool = False):
    """An array (or open mesh if sparse) of the index along each axis of a grid.

    >>> jnp.indices((2, 3))[1]
    Array([[0, 1, 2],
           [0, 1, 2]], dtype=int32)
    """
    dtype = dtypes.canonicalize_dtype(int if dtype is None else dtype)
    dims = tuple(operator.index(d) for d in dimensions)
    out = []
    for i, d in enumerate(dims):
        s = (1,) * i + (d,) + (1,) * (len(dims) - i - 1) if sparse else dims
        out.append(lax.broadcast_in_dim(lax.iota(dtype, d), s, (i,)))
    if sparse:
        return tuple(out)
    if not out:
        return lax.broadcast_in_dim(np.zeros((), dtype), (0,), ())
    return lax.concatenate([lax.expand_dims(o, (0,)) for o in out], 0)


indices = _indices
indices.__name__ = "indices"


def _floor_divmod(x, s: int):
    """(x // s, x % s) with Python's rounding, for an integer array and a static s > 0."""
    dt = aval_of(x).dtype
    sv = np.array(s, dt)
    r = lax.rem(x, sv)
    if dtypes.is_signed(dt):
        r = lax.select(lax.lt(r, np.zeros((), dt)), lax.add(r, sv), r)
    return lax.div(lax.sub(x, r), sv), r


def unravel_index(indices, shape):
    """The multi-index (one array per axis of `shape`) of flat `indices`; out-of-bounds
    indices are clipped, as in JAX.

    >>> jnp.unravel_index(jnp.array([1, 5]), (2, 3))
    (Array([0, 1], dtype=int32), Array([1, 2], dtype=int32))
    """
    check_arraylike("unravel_index", indices)
    x = ensure_array(indices)
    try:
        shape = [operator.index(s) for s in shape]
    except TypeError:
        shape = [operator.index(shape)]
    dt = aval_of(x).dtype
    x = conversion.convert_element_type(x, dt) if aval_of(x).weak_type else x
    outs = [None] * len(shape)
    for i in reversed(range(len(shape))):
        if shape[i] == 0:
            outs[i] = x
            continue
        x, outs[i] = _floor_divmod(x, shape[i])
    oob_pos = lax.gt(x, np.zeros((), dt))
    oob_neg = lax.lt(x, np.array(-1, dt)) if dtypes.is_signed(dt) else None
    res = []
    for s, o in zip(shape, outs):
        o = lax.select(oob_neg, lax.broadcast_in_dim(np.zeros((), dt), aval_of(o).shape, ()), o) \
            if oob_neg is not None else o
        res.append(lax.select(oob_pos, lax.broadcast_in_dim(np.array(s - 1, dt),
                                                            aval_of(o).shape, ()), o))
    return tuple(res)


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
    dtype = dtypes.canonicalize_dtype(dtype)
    if not dtypes.is_int(dtype):
        raise ValueError(f"dtype={dtype} is not an integer type.")
    for i in idx:
        if not dtypes.is_int(aval_of(i).dtype):
            raise TypeError("only int indices permitted")
    if mode == "raise":
        for i, d in zip(idx, dims):
            v = _concrete_value(i)
            if v is None:
                from ..core.errors import ConcretizationTypeError
                raise ConcretizationTypeError(i, "The error occurred because ravel_multi_index "
                                              "was jit-compiled with mode='raise'. Use "
                                              "mode='wrap' or mode='clip' instead.\n")
            if np.any((v < 0) | (v >= d)):
                raise ValueError("invalid entry in coordinates array")
    elif mode == "clip":
        idx = [lax.clamp(np.zeros((), aval_of(i).dtype), i, np.array(d - 1, aval_of(i).dtype))
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
    from .manipulation import broadcast_arrays
    idx = broadcast_arrays(*idx)
    result = None
    for i, s in zip(idx, strides):
        term = lax.mul(conversion.convert_element_type(i, dtype), np.array(int(s), dtype))
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


def _tri_indices(n, k, m, lower: bool) -> tuple:
    n, k = operator.index(n), operator.index(k)
    m = n if m is None else operator.index(m)
    rows, cols = np.tril_indices(n, k, m) if lower else np.triu_indices(n, k, m)
    dt = dtypes.default_int_dtype()
    return ensure_array(rows.astype(dt)), ensure_array(cols.astype(dt))


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple:
    """(rows, cols) of the lower triangle (on and below diagonal k) of an n x m array."""
    return _tri_indices(n, k, m, True)


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple:
    """(rows, cols) of the upper triangle (on and above diagonal k) of an n x m array."""
    return _tri_indices(n, k, m, False)


def tril_indices_from(arr, k: int = 0) -> tuple:
    shape = aval_of(arr).shape
    if len(shape) != 2:
        raise ValueError("Only 2-D inputs are accepted")
    return tril_indices(shape[0], k, shape[1])


def triu_indices_from(arr, k: int = 0) -> tuple:
    shape = aval_of(arr).shape
    if len(shape) != 2:
        raise ValueError("Only 2-D inputs are accepted")
    return triu_indices(shape[0], k, shape[1])
