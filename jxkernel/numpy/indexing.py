"""NumPy indexing on Arrays and tracers (`x[idx]`, `x.at[idx].set(y)`); take and friends
are in index_tricks.py.

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
import collections
import enum
import itertools
import operator
import os
import sys
import warnings
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.avals import make, parts_of
from ..core.config import config
from ..core.errors import (ConcretizationTypeError, InconclusiveDimensionOperation,
                           NonConcreteBooleanIndexError, record_tracer)
from ..core.source_info import user_stacklevel
from ..core.symbolic import canonicalize_slice, definitely_equal, is_symbolic
from ..core.trace import Tracer
from ..core.interpreter_primitives import typed_constant
from ..core.source_info import PACKAGE_DIR, is_user_filename
from ..lax import conversion
from ..lax.slicing import _scatter, scatter_p, size_as_array
from ..transforms.batching import BatchTracer
from ..lax.sharding import canonicalize_sharding, run_auto_axes
from ..xla.array import KEY_DATA, KEY_TRACERS, Array
from . import util
from .creation import asarray
from .dslice import Slice, apply_slices
from .dtypes import dtype_and_weak, safe_to_cast
from .manipulation import broadcast_arrays, broadcast_to, stack
from .ufuncs import divide, power
from .util import aval_of, check_arraylike, concrete_value, ensure_array

GatherScatterMode = lax.GatherScatterMode

# index kinds
NONE, ELLIPSIS, INT, SLICE, ARRAY, BOOL = "none", "ellipsis", "int", "slice", "array", "bool"


class OutOfBounds(NamedTuple):
    """An index past its axis that code outside jxkernel read or updated at: a static integer
    (x[5] of 3 elements, x.at[5].set(v)) or a value of an index array known when the line ran
    (x[np.array([3, 5])]; `in_array`: how many of the array's indices are out of bounds, 0
    for an integer). `use`: "read" or "update". `batched`: the index of one example of an
    eager vmap (`jax.vmap(lambda i: x[i])(idx)`: `in_array` counted over the batch)."""
    file: str
    line: int
    index: int
    axis: int
    size: int
    use: str
    in_array: int = 0
    batched: bool = False


# JAX clamps a read, as gather's default, and drops an update, as scatter's, where NumPy raises
# IndexError, and says nothing; the notebook's note under the cell (notebook/notes/index_notes.py)
# reads them and clears them.
clamped_indices: collections.deque = collections.deque(maxlen=16)

# The user's lines that called an `.at[idx]` update (x.at[i].set(v), .add, ...) or `x.sort()`:
# (file, line). The notebook's note under the cell (notebook/notes/update_notes.py) tells one whose
# new array the line dropped (the call a statement of its own), which a learner from NumPy
# writes expecting x itself to change (NumPy's x.sort() sorts x in place).
update_sites: collections.deque = collections.deque(maxlen=16)
# Whether they are recorded: while the notebook tells them (its extension loaded), since
# finding the user's call costs each eager update a few µs that a script must not pay
record_update_sites = False

# Whether an index array's values are looked at for indices out of bounds: only while the
# notebook tells them (its extension loaded: notebook/notes/index_notes.py), since looking at a
# jxkernel Array's values waits for it and copies it to the host, which a script's eager
# indexing must not pay for. The largest array looked at (a larger one is not):
look_at_index_arrays = False
_LOOKED_AT = 1 << 16

# The user's lines that indexed with a traced index (a jitted function's argument) and JAX's
# default mode, which clamps a read and drops an update, while the notebook looks: (file,
# line). The note of a jitted call's indices (notebook/notes/index_calls.py) tells an index out of
# bounds met there only: not one a mode of the user's choosing meant (x.at[i].get(mode='fill'),
# .set(v, mode='drop')), nor one jxkernel's own functions index at (a segment_sum's drops).
traced_sites: set = set()


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
        if dtypes.issubdtype(kind, np.integer):
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
        raise TypeError(f"Using a non-tuple sequence for multidimensional indexing is not "
                        f"allowed; use `arr[{'tuple' if unpack else 'array'}(seq)]` instead of "
                        f"`arr[seq]`. See https://github.com/jax-ml/jax/issues/4564 for more "
                        f"information.")
    return (idx,)


def _parse(idx, shape) -> list:
    """[(kind, index), ...] with the Ellipsis expanded into full slices and trailing full
    slices added: every entry but NONE and BOOL consumes one axis, a BOOL its ndim axes."""
    # a list holding traced values indexes as their stack, as in JAX (jit of x[([i, j],)])
    idx = [asarray(i) if _holds_tracer(i) else i for i in _as_tuple(idx)]
    items = [(_kind(i), i) for i in idx]
    consumed = [0 if k in (NONE, ELLIPSIS) else np.ndim(i) if k == BOOL else 1 for k, i in items]
    if sum(k == ELLIPSIS for k, _ in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if sum(consumed) > len(shape):
        raise IndexError(f"Too many indices: array is {len(shape)}-dimensional, but "
                         f"{sum(consumed)} were indexed")
    return items


def _holds_tracer(i) -> bool:
    """Whether `i` is a list or tuple with a tracer somewhere inside."""
    if not isinstance(i, (list, tuple)):
        return False
    return any(isinstance(e, Tracer) or _holds_tracer(e) for e in i)


def _check_slice(s: slice, position: int) -> slice:
    """A slice with plain-int entries (concrete arrays allowed), else JAX's IndexError."""
    parts = []
    for v in (s.start, s.stop, s.step):
        if is_symbolic(v):                  # jax.export: a bound or step of symbolic size
            parts.append(v)
            continue
        if v is not None and concrete_value(v) is None:    # (with where v came from)
            raise record_tracer(IndexError(f"Slice entries must be static integers. Got {s} "
                                           f"at position {position}"), v)
        parts.append(None if v is None else operator.index(v))
    return slice(*parts)


def _canonical_slice(s: slice, size: int):
    """(start, step, length) of s on an axis of `size`, for gathers."""
    if _symbolic_slice(s, size):
        return canonicalize_slice(s, size)
    start, stop, step = s.indices(size)
    return start, step, len(range(start, stop, step))


# ------------------------------------------------------------------ getitem
def getitem(x, idx):
    """x[idx] with NumPy's semantics and JAX's out-of-bounds rules (installed as
    Array.__getitem__ by jxkernel.numpy)."""
    return rewriting_take(x, idx)


class IndexingStrategy(enum.Enum):
    """How rewriting_take lowers an index (JAX's names): AUTO the cheapest that expresses
    it (a static slice, else a dynamic slice, else a gather); STATIC_SLICE, DYNAMIC_SLICE and
    GATHER insist on one, raising JAX's error where the index does not fit it."""
    AUTO = "auto"
    GATHER = "gather"
    SCATTER = "scatter"
    STATIC_SLICE = "static_slice"
    DYNAMIC_SLICE = "dynamic_slice"


def rewriting_take(arr, idx, *, indices_are_sorted=False, unique_indices=False, mode=None,
                   fill_value=None, normalize_indices=True, out_sharding=None,
                   strategy=IndexingStrategy.AUTO):
    """arr[idx] with gather's options (JAX's name for the function behind x[idx]).
    `out_sharding`: the result's, where the index takes a gather (as JAX: slices ignore it).
    `strategy`: an IndexingStrategy, AUTO by default."""
    if not isinstance(strategy, IndexingStrategy):
        raise TypeError(f"Expected strategy to be IndexingStrategy; got {strategy}")
    arr = ensure_array(arr)
    if type(idx) is Slice or type(idx) is tuple and any(type(i) is Slice for i in idx):
        if strategy is IndexingStrategy.STATIC_SLICE:
            raise TypeError("static_slice: indices must be static scalars or slices."
                            f" Got index of type {Slice}")
        arr, idx = apply_slices(arr, idx)          # jax.ds: dynamic slices first
    shape = aval_of(arr).shape
    items = _parse(idx, shape)
    parsed_mode = None if mode is None else GatherScatterMode.from_any(mode)
    kinds = {k for k, _ in items}
    slicable = parsed_mode in (None, GatherScatterMode.PROMISE_IN_BOUNDS, GatherScatterMode.CLIP) \
        and not (_split(arr) and _partial_slices(items, shape))
    if config.jax_check_static_indices and \
            parsed_mode in (None, GatherScatterMode.PROMISE_IN_BOUNDS):
        _check_static_ints(shape, items, normalize_indices)
    if strategy is IndexingStrategy.STATIC_SLICE:
        _check_static_slice(arr, shape, items, parsed_mode, normalize_indices)
    elif strategy is IndexingStrategy.DYNAMIC_SLICE:
        _check_dynamic_slice(arr, shape, items, parsed_mode)
    # (as JAX: a static int out of bounds takes the dynamic slice, which clamps when run, unless
    # mode='clip' clamps it here; checkify checks that dynamic_slice)
    static = strategy is IndexingStrategy.STATIC_SLICE or strategy is IndexingStrategy.AUTO \
        and slicable and kinds <= {INT, SLICE, NONE, ELLIPSIS} and \
        _sliced_statically(items, shape) and (
            parsed_mode is GatherScatterMode.CLIP or
            _static_ints_in_bounds(shape, items, normalize_indices))
    if static:
        items = [(k, _check_slice(i, p) if k == SLICE else i) for p, (k, i) in enumerate(items)]
        out = _static_slice(arr, shape, items, normalize_indices)
        if KEY_DATA and id(arr) in KEY_DATA:       # raw keys split while the notebook watches
            KEY_DATA[id(arr)].indexed(arr, out, idx)
        elif KEY_TRACERS and isinstance(arr, Tracer):   # keys under vmap, the same
            KEY_TRACERS[0].indexed(arr, out, idx)
        return out
    if parsed_mode is None and kinds & {INT, ARRAY}:
        _record_clamped(shape, items, normalize_indices)
    dynamic = strategy is IndexingStrategy.DYNAMIC_SLICE or strategy is IndexingStrategy.AUTO \
        and slicable and kinds <= {INT, SLICE, NONE, ELLIPSIS, ARRAY} and all(
            np.ndim(i) == 0 for k, i in items if k == ARRAY) and all(
            k != SLICE or concrete_value(i.step if i.step is not None else 1) in (1, -1)
            for k, i in items) and not _any_symbolic_slice(items, shape) and (
            normalize_indices or not any(k == INT and i < 0 for k, i in items))
    # (a static negative int unwrapped, x.at[-1].get(wrap_negative_indices=False), is refused
    # by JAX's dynamic slice, and AUTO then gathers it: the index clamps to 0, no error)
    if dynamic:
        items = [(k, _check_slice(i, p) if k == SLICE else i) for p, (k, i) in enumerate(items)]
        return _dynamic_slice(arr, shape, items, normalize_indices)
    ix = _index_to_gather(shape, _expand_bool_indices(items, shape), normalize_indices)
    out_sharding = canonicalize_sharding(out_sharding, "take")
    if out_sharding is not None:
        return _gather_laid_out(arr, ix, indices_are_sorted, unique_indices, mode, fill_value,
                                out_sharding)
    return _gather(arr, ix, indices_are_sorted, unique_indices, mode, fill_value)


def _item_axes(items, shape) -> list:
    """The first axis of `shape` each index item consumes (NONE: where it inserts)."""
    axes, axis = [], 0
    explicit = sum(np.ndim(i) if k == BOOL else k not in (NONE, ELLIPSIS) for k, i in items)
    for k, i in items:
        axes.append(axis)
        axis += (len(shape) - explicit if k == ELLIPSIS else 0 if k == NONE
                 else np.ndim(i) if k == BOOL else 1)
    return axes


def _static_ints_in_bounds(shape, items, normalize_indices) -> bool:
    """Whether every static integer index is within its axis."""
    try:
        _check_static_ints(shape, items, normalize_indices)
    except (IndexError, InconclusiveDimensionOperation):   # (undecided: a dynamic slice)
        return False
    return True


# the frames between a user's `x[i]` or `x.at[i].set(v)` and the record: this module's, the
# array's methods', a tracer's operators' (under jit)
_INDEXING_FILES = frozenset(os.path.join(PACKAGE_DIR, *p) for p in (
    ("numpy", "indexing.py"), ("numpy", "array_methods.py"), ("core", "trace.py")))


def _users_frame(frame):
    """The first frame from `frame` outward that is not this module's, the array methods' or
    a tracer's operators', where it is the user's own code: not where jxkernel's functions
    index (their index is theirs, not the learner's), nor a library's; else None."""
    while frame is not None and frame.f_code.co_filename in _INDEXING_FILES:
        frame = frame.f_back
    if frame is None or not is_user_filename(frame.f_code.co_filename):
        return None
    return frame


def _indexed_at():
    """(file, line) of the code that indexed, where it is the user's own line."""
    frame = _users_frame(sys._getframe(2))
    return None if frame is None else (frame.f_code.co_filename, frame.f_lineno)


def record_traced(frame=None) -> None:
    """Adds the user's line that indexed with a traced index and JAX's default mode (at
    `frame`, the caller's by default, or outward from it past the indexing modules) to
    traced_sites, while the notebook looks."""
    if look_at_index_arrays:
        frame = _users_frame(frame or sys._getframe(1))
        if frame is not None:
            traced_sites.add((frame.f_code.co_filename, frame.f_lineno))


def _record_update_site() -> None:
    """Adds the call of an `.at[idx]` update or `x.sort()` that returned its copy (called once
    the copy is made: one that raised dropped nothing) to update_sites, where it is the
    user's: (file, line, where the call is: its (line, end line, column, end column), from the
    instruction that made it, or None), so that the note tells that call, not another on its
    line (`y = x.sort(); names.sort()`: the list's sorts in place)."""
    if not record_update_sites:
        return
    frame = _users_frame(sys._getframe(2))
    if frame is None:
        return
    code = frame.f_code
    # (one position per 2-byte code unit; columns count UTF-8 bytes, as ast's)
    position = next(itertools.islice(code.co_positions(), frame.f_lasti // 2, None), None)
    update_sites.append((code.co_filename, frame.f_lineno,
                         position if position and None not in position else None))


def _record_clamped(shape, items, normalize_indices, use="read") -> None:
    """Adds each index out of its axis that JAX clamps (or drops the update at), a static
    integer or a value of an index array known when the line ran, to clamped_indices, where
    the line that indexed is the user's own."""
    where = None
    for axis, (k, i) in zip(_item_axes(items, shape), items):
        size = shape[axis] if k in (INT, ARRAY) else None
        if not isinstance(size, (int, np.integer)):
            continue                                  # (a symbolic axis: undecided)
        batched = False
        if k == INT:                # (in Python: NumPy's calls cost an eager update ~20 µs)
            out, count = ((i,), 0) if not 0 <= (i + size if normalize_indices and i < 0
                                                else i) < size else ((), 0)
        else:
            if not look_at_index_arrays:
                continue
            where = where or _indexed_at()            # (only the user's line pays for a look)
            batched = isinstance(i, Tracer)
            if batched:
                if where is not None:
                    traced_sites.add(where)
                i = _batch_of(i)        # (an eager vmap's index: every example's, known)
                if i is None:
                    continue
            values = _known_values(i) if where else None
            if values is None:
                continue
            normed = np.where(values < 0, values + size, values) if normalize_indices else values
            out = values[(normed < 0) | (normed >= size)]
            count = out.size
        if len(out):
            where = where or _indexed_at()
            # (a line's first: a loop's later reads there would push it out of the deque)
            if where is not None and all(r[:2] != where for r in clamped_indices):
                clamped_indices.append(OutOfBounds(*where, int(out[0]), axis, int(size), use,
                                                   count, batched))


def _batch_of(i):
    """The index arrays of a vmap's examples, where `i` is a vmapped index and the vmap runs
    eagerly (`jax.vmap(lambda j: x[j])(idx)`: idx itself), or None: traced underneath (a
    vmap inside jit, whose program's index checks tell: notebook/notes/index_calls.py)."""
    while isinstance(i, BatchTracer):
        i = i.val
    return None if isinstance(i, Tracer) else i


def _known_values(i):
    """An index array's values as a flat NumPy array, where they are known without running
    anything (a NumPy array, a list, a concrete Array not too large), else None."""
    if isinstance(i, Tracer) or isinstance(i, Array) and (i.is_deleted() or i.size > _LOOKED_AT):
        return None
    return np.asarray(i).ravel()


def _check_static_ints(shape, items, normalize_indices):
    """JAX's IndexError for a static integer index out of its axis's bounds (negative ones
    counted from the end where `normalize_indices`)."""
    for axis, (k, i) in zip(_item_axes(items, shape), items):
        if k == INT:
            size = shape[axis]
            normed = i + size if normalize_indices and i < 0 else i
            if not 0 <= normed < size:
                raise IndexError(f"index {i} out of bounds for axis {axis} with size {size}"
                                 f" ({normalize_indices=})")


def _check_slice_mode(what, mode, arr, items, shape):
    """JAX's refusals common to forcing a static or a dynamic slice."""
    if mode not in (None, GatherScatterMode.PROMISE_IN_BOUNDS, GatherScatterMode.CLIP):
        raise ValueError(f"{what} requires mode='promise_in_bounds' or mode='clip'")
    if _split(arr) and _partial_slices(items, shape):
        raise ValueError(f"{what} with partial slices does not support nontrivial array "
                         "sharding.")


def _check_static_slice(arr, shape, items, mode, normalize_indices):
    """IndexingStrategy.STATIC_SLICE's conditions, as JAX checks them: static ints in
    bounds (unless mode='clip'), no array or boolean index."""
    _check_slice_mode("static_slice", mode, arr, items, shape)
    if mode in (None, GatherScatterMode.PROMISE_IN_BOUNDS):
        _check_static_ints(shape, items, normalize_indices)
    for position, (k, i) in enumerate(items):
        if k in (ARRAY, BOOL):
            raise TypeError("static_slice: indices must be static scalars or slices."
                            f" Got index of type {type(i)} at position {position}")


def _check_dynamic_slice(arr, shape, items, mode):
    """IndexingStrategy.DYNAMIC_SLICE's conditions, as JAX checks them: unit steps, scalar
    integer indices only."""
    _check_slice_mode("dynamic_slice", mode, arr, items, shape)
    for position, (k, i) in enumerate(items):
        if k == SLICE and i.step is not None and concrete_value(i.step) not in (1, -1):
            raise TypeError(f"dynamic_slice: only unit steps supported in slice. Got {i} at "
                            f"position {position}")
        if k == ARRAY and (isinstance(i, Sequence) or np.shape(i) != ()):
            raise TypeError("dynamic_slice: only scalar indices allowed. Got index of type "
                            f"{type(i)} at position {position}")
        if k == BOOL:
            raise TypeError("dynamic_slice: indices must be scalars or slices. Got index of "
                            f"type {type(i)} at position {position}")


def _split(arr) -> bool:
    """JAX's NDIndexer.is_sharded: an Array (not a traced value) over several devices."""
    return type(arr) is Array and getattr(arr.sharding, "num_devices", 1) != 1


def _partial_slices(items, shape) -> bool:
    """JAX's has_partial_slices: an integer, or a slice not taking its whole axis. On a split
    Array such an index takes a gather, not a slice (JAX: a slice would keep the operand's
    sharding wrongly), so `x[0]` asks for `.at[0].get(out_sharding=)` as JAX's does.

    >>> _partial_slices([(INT, 0)], (8, 2)), _partial_slices([(SLICE, slice(None))], (8, 2))
    (True, False)
    """
    if any(k == BOOL for k, _ in items):      # (a gather anyway: no slice takes it)
        return False
    axis = 0
    for k, i in items:
        if k == ELLIPSIS:
            axis += len(shape) - sum(1 for k2, _ in items if k2 in (INT, SLICE, ARRAY))
        elif k == INT:
            return True
        elif k == SLICE:
            start, stop, step = i.indices(shape[axis])
            if abs(step) != 1 or abs(stop - start) != shape[axis]:
                return True
        axis += k in (INT, SLICE, ARRAY)
    return False


def _gather_laid_out(arr, ix, indices_are_sorted, unique_indices, mode, fill_value,
                     out_sharding):
    """The gather with the mesh's axes Auto (XLA places it), its result resharded to
    `out_sharding`: JAX's way (auto_axes) out of a gather whose operand's and indices'
    Explicit shardings decide no result sharding (Flax's Embed with out_sharding=)."""
    def gather(a, indices):
        inner = _GatherIndexer(**{k: getattr(ix, k) for k in _GatherIndexer.__slots__})
        inner.gather_indices = indices
        return _gather(a, inner, indices_are_sorted, unique_indices, mode, fill_value)
    return run_auto_axes(gather, (arr, ix.gather_indices), {}, None, out_sharding)


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
            start, stop, step = i.indices(size) if not is_symbolic(size) else \
                _symbolic_slice_indices(i, size, axis)
            if step < 0:                 # slice forwards, then reverse
                new_start = builtins.min(size, stop + 1 + abs(start - stop - 1) % abs(step))
                starts.append(new_start), limits.append(builtins.max(new_start, start + 1))
                strides.append(-step), rev.append(axis)
            else:
                # a symbolic stop is already >= start (_symbolic_slice_indices)
                starts.append(start), limits.append(stop if is_symbolic(stop) else
                                                    builtins.max(start, stop))
                strides.append(step)
    out = arr
    if strides and (any(s != 1 for s in strides) or
                    any((a, b) != (0, n) for a, b, n in zip(starts, limits, shape))):
        out = lax.slice(out, starts, limits, None if all(s == 1 for s in strides) else strides)
    return _reverse_squeeze_expand(out, rev, squeeze, newaxis)


def _reverse_squeeze_expand(out, rev, squeeze, newaxis):
    """A basic index's last steps after slicing: reverse the axes of negative-step slices,
    drop the integer-indexed axes, insert the None axes."""
    if rev:
        out = lax.rev(out, tuple(rev))
    if squeeze:
        out = lax.squeeze(out, tuple(squeeze))
    if newaxis:
        out = lax.expand_dims(out, tuple(newaxis))
    return out


def _symbolic_slice(s: slice, size) -> bool:
    """Whether slicing an axis of `size` with `s` involves a symbolic dimension."""
    return is_symbolic(size) or any(is_symbolic(v) for v in (s.start, s.stop, s.step))


def _any_symbolic_slice(items, shape) -> bool:
    """Whether a slice of `items` or a full slice of an axis they leave is symbolic (JAX's
    dynamic slice takes none: a gather does)."""
    full = _expand_full(items, shape)
    return any(k == SLICE and _symbolic_slice(i, shape[axis])
               for axis, (k, i) in zip(_item_axes(full, shape), full))


def _sliced_statically(items, shape) -> bool:
    """Whether jxkernel's static slice takes `items`: on a symbolic axis, or with a
    symbolic bound, only static int bounds with step 1 (as a slice of symbolic bounds);
    the rest take a gather, as JAX's do."""
    return all(k != SLICE or not _symbolic_slice(i, shape[axis]) or
               i.step in (None, 1) and all(isinstance(b, (int, type(None)))
                                           for b in (i.start, i.stop)) and
               _decided_bounds(i, shape[axis])
               for axis, (k, i) in zip(_item_axes(items, shape), items))


def _decided_bounds(i: slice, size) -> bool:
    """Whether the static slice's comparisons of `i`'s bounds on a symbolic axis are
    decidable (x[2:-4] is not: max(0, c - 4) >= min(c, 2) is undecided)."""
    try:
        _symbolic_slice_indices(i, size, None)
    except InconclusiveDimensionOperation:
        return False
    return True


def _symbolic_slice_indices(i: slice, size, axis) -> tuple:
    """slice.indices for an axis of symbolic size (jax.export): static bounds and step 1,
    clamped to the size (`min(a, 2)` where undecidable, as JAX); stop >= start."""
    if i.step not in (None, 1) or not all(isinstance(b, (int, type(None)))
                                          for b in (i.start, i.stop)):
        raise NotImplementedError(
            f"slicing axis {axis} of symbolic size {size} with {i}: jxkernel's export "
            f"supports static int bounds with step 1 on symbolic axes.")
    start, stop = (0 if i.start is None else i.start), (size if i.stop is None else i.stop)
    start, stop = (size + b if isinstance(b, int) and b < 0 else b for b in (start, stop))
    # each comparison is decided, or raises InconclusiveDimensionOperation
    start, stop = (size.min_dim(b) for b in (start, stop))
    start, stop = (b.max_dim(0) if is_symbolic(b) else builtins.max(b, 0)
                   for b in (start, stop))
    return start, (stop if stop >= start else start), 1


def _index_dtype(shape):
    try:
        big = shape and builtins.max(shape) >= 2 ** 31
    except InconclusiveDimensionOperation:    # jax.export: symbolic sizes count as small
        big = any(not is_symbolic(d) and d >= 2 ** 31 for d in shape)
    return np.dtype(np.int64) if big else np.dtype(np.int32)


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
    return _reverse_squeeze_expand(out, rev, squeeze, newaxis)


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
            value = concrete_value(i)
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
        return stack([ensure_array(s) for s in seq])
    return arr.astype(np.int32) if arr.size == 0 else arr


class _GatherIndexer:
    """How one index becomes a gather: dimension numbers, indices, slice sizes, and what
    to do to the result (reverse, insert None axes, which scalar-bool axes to add first)."""
    __slots__ = ("slice_shape", "gather_slice_shape", "gather_indices", "dnums",
                 "unique_indices", "indices_are_sorted", "reversed_y_dims", "newaxis_dims",
                 "scalar_bool_dims", "slice_parts")

    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)


def _normalize(i, size: int):
    """A negative index counted from the end: statically for NumPy data, as a select
    (what JAX emits) for arrays."""
    if is_symbolic(size) and isinstance(i, np.ndarray):     # jax.export: computed, as JAX
        i = ensure_array(i)
    if isinstance(i, np.ndarray) or _is_int(i):
        if dtypes.is_unsigned(np.asarray(i).dtype):
            return i
        return np.where(np.asarray(i) < 0, np.asarray(i) + size, i) if isinstance(i, np.ndarray) \
            else (i + size if i < 0 else i)
    dt = aval_of(i).dtype
    if dtypes.is_unsigned(dt):
        return i
    # a weak index stays weak here, its size added as weak, as JAX's _normalize_index (then
    # the conversion to the index dtype is an equation of its own, after the select)
    n = size_as_array(size, dt)
    if aval_of(i).weak_type and not is_symbolic(size):
        n = conversion._convert_element_type(n, dt, True)
    return lax.select(lax.lt(i, typed_constant(0, dt)), lax.add(i, n), i)


def _index_to_gather(shape, items, normalize_indices=True, x_parts=None) -> _GatherIndexer:
    """`x_parts`: the mesh axes splitting each dimension of a typed x (None: untyped), read
    into `slice_parts`, the type the updates of a scatter are broadcast to (JAX's
    slice_sharding): an advanced index's, a slice's dimension of x's, a new axis unsplit."""
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
    x_parts = [()] * len(shape) if x_parts is None else list(x_parts)
    for n in scalar_bool_dims:
        shape.insert(n, 1)
        x_parts.insert(n, ())
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
    adv_items = [(p, axes[p], i) for p, (k, i) in enumerate(items)
                 if advanced and k in (ARRAY, INT)]
    idx_adv_pos = [p for p, _, _ in adv_items]

    x_axis = y_axis = collapsed_y_axis = 0
    offset_dims, collapsed, start_index_map = [], [], []
    gather_indices, gather_indices_shape = [], []
    slice_shape, newaxis_dims, reversed_y_dims, gather_slice_shape = [], [], [], []
    slice_parts = []
    for pos, (k, i) in enumerate(items):
        if adv_items and (contiguous and pos == idx_adv_pos[0] or not contiguous and pos == 0):
            arrs = broadcast_arrays(*(ensure_array(i) if not isinstance(i, np.ndarray) else i
                                      for _, _, i in adv_items))
            bshape = aval_of(arrs[0]).shape
            start = len(gather_indices_shape)
            gather_indices += [(_to_index_dtype(g, index_dtype), start) for g in arrs]
            gather_indices_shape += bshape
            start_index_map += [ax for _, ax, _ in adv_items]
            collapsed += [ax for _, ax, _ in adv_items]
            slice_shape += bshape
            typed = aval_of(arrs[0])
            slice_parts += [()] * len(bshape) if typed.split is None else parts_of(typed)
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
            slice_parts.append(())
            newaxis_dims.append(y_axis)
            y_axis += 1
        else:
            start, step, size = _canonical_slice(i, shape[x_axis])
            slice_shape.append(size)
            slice_parts.append(x_parts[x_axis])
            if definitely_equal(step, 1):
                if not definitely_equal(size, shape[x_axis]):     # a full slice needs no index
                    gather_indices.append((_index_scalar(start, index_dtype),
                                           len(gather_indices_shape)))
                    start_index_map.append(x_axis)
                gather_slice_shape.append(size)
                offset_dims.append(collapsed_y_axis)
            else:
                if any(is_symbolic(d) for d in (start, step, size)):     # jax.export
                    idx = lax.add(_index_scalar(start, index_dtype),
                                  lax.mul(_index_scalar(step, index_dtype),
                                          lax.iota(index_dtype, size)))
                    idx = lax.rev(idx, (0,)) if step < 0 else idx
                else:
                    idx = start + step * np.arange(size, dtype=index_dtype)
                    idx = idx[::-1] if step < 0 else idx
                if step < 0:
                    reversed_y_dims.append(collapsed_y_axis)
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
    return _GatherIndexer(slice_shape=tuple(slice_shape),
                          gather_slice_shape=tuple(gather_slice_shape), gather_indices=indices,
                          dnums=dnums, unique_indices=not adv_items,
                          indices_are_sorted=not adv_items, reversed_y_dims=tuple(reversed_y_dims),
                          newaxis_dims=tuple(newaxis_dims),
                          scalar_bool_dims=tuple(scalar_bool_dims), slice_parts=slice_parts)


def _index_scalar(d, dtype):
    """A slice's start or step as a scalar index of `dtype` (computed if symbolic)."""
    return size_as_array(d, dtype) if is_symbolic(d) else dtype.type(d)


def _to_index_dtype(i, dtype):
    if isinstance(i, np.ndarray) or _is_int(i):
        return np.asarray(i).astype(dtype)
    return conversion.convert_element_type(i, dtype)


def _gather(arr, ix: _GatherIndexer, indices_are_sorted, unique_indices, mode, fill_value):
    if fill_value is not None:
        value = concrete_value(fill_value)
        if value is None:
            raise ConcretizationTypeError(fill_value, "The problem arose with the fill_value "
                                          "argument to indexed get().\n")
        if value.ndim != 0:
            raise ValueError("fill_value argument to indexed get() must be a scalar")
        fill_value = value.item()
    y = arr
    if ix.scalar_bool_dims:
        y = lax.expand_dims(y, ix.scalar_bool_dims)
    if 0 in ix.slice_shape:
        # nothing to gather: zeros like `y` (on its device, if committed to one, as JAX's)
        return lax.full_like(y, 0, shape=ix.slice_shape)
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
                    mode=None, normalize_indices=True, out_sharding=None):
    """x with x[idx] combined with y by `scatter_op` (a lax.scatter* function); with an
    `out_sharding` (canonical) computed with its mesh's axes Auto and laid out so, as JAX's
    auto_axes does (`x.at[0].set(v, out_sharding=P('x'))`)."""
    if out_sharding is not None:
        # the index's arrays go in as arguments, retyped with x and y (as JAX's auto_axes
        # takes its dynamic index): indices split over an Explicit axis are Auto's inside
        items = idx if isinstance(idx, tuple) else (idx,)
        at = [i for i, v in enumerate(items) if isinstance(v, (Array, Tracer))]

        def scatter(x, y, *arrays):
            given = list(items)
            for i, a in zip(at, arrays):
                given[i] = a
            return _scatter_update(x, tuple(given) if isinstance(idx, tuple) else given[0], y,
                                   scatter_op, indices_are_sorted, unique_indices, mode,
                                   normalize_indices)
        return run_auto_axes(scatter, (x, y, *(items[i] for i in at)), {}, None, out_sharding)
    x = ensure_array(x)
    xa = aval_of(x)
    if isinstance(y, int) and dtypes.is_int(xa.dtype) and \
            dtypes.iinfo(xa.dtype).min <= y <= dtypes.iinfo(xa.dtype).max:
        y = np.array(y, xa.dtype)                 # an in-range int keeps x's dtype exactly
    elif isinstance(y, (list, tuple)):
        y = asarray(y)
    check_arraylike("scatter", y)
    shape = xa.shape
    items = _expand_bool_indices(_parse(idx, shape), shape)
    if mode is None and any(k in (INT, ARRAY) for k, _ in items):
        _record_clamped(shape, items, normalize_indices, "update")
    typed = xa.split
    ix = _index_to_gather(shape, items, normalize_indices,
                          None if typed is None else parts_of(xa))
    if 0 in ix.slice_shape:
        return x
    if not safe_to_cast(y, x):           # JAX: a warning now, an error in later releases
        warnings.warn("scatter inputs have incompatible types: cannot safely cast value "
                      f"from dtype={dtype_and_weak(y)[0]} to dtype={xa.dtype} with "
                      f"jax_numpy_dtype_promotion={config.jax_numpy_dtype_promotion}. In "
                      "future JAX releases this will result in an error.", FutureWarning,
                      stacklevel=user_stacklevel())
    x2, y = util.promote_dtypes(x, y)
    # the updates typed as the windows they go to (JAX's slice_sharding): split as the index
    # or x's sliced dimension is, or refused as JAX's broadcast refuses another split
    y = broadcast_to(y, ix.slice_shape, out_sharding=None if typed is None else
                     make(typed.mesh, ix.slice_parts))
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


def _update_method(name, how, doc):
    """One of `x.at[idx]`'s update methods, with JAX's keyword-only options: `how` names the
    lax scatter that puts `values` in (looked up per call), or is a binary function applied
    to x and ones with `values` multiplied in at idx."""
    def method(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
               out_sharding=None, wrap_negative_indices=True):
        out_sharding = canonicalize_sharding(out_sharding, f".{name}")
        if isinstance(how, str):
            out = _scatter_update(self.array, self.index, values, getattr(lax, how),
                                  indices_are_sorted, unique_indices, mode,
                                  wrap_negative_indices, out_sharding)
        else:
            out = how(self.array, self._ones_mul(values, indices_are_sorted, unique_indices,
                                                 mode, wrap_negative_indices, out_sharding))
        _record_update_site()       # (once made: an update that raised returned no copy)
        return out
    method.__name__, method.__doc__ = name, doc
    method.__qualname__ = f"_IndexUpdateRef.{name}"
    return method


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
        out_sharding = canonicalize_sharding(out_sharding, ".get")
        return rewriting_take(self.array, self.index, indices_are_sorted=indices_are_sorted,
                               unique_indices=unique_indices, mode=mode, fill_value=fill_value,
                               normalize_indices=wrap_negative_indices,
                               out_sharding=out_sharding)

    # set/add/subtract/multiply/min/max scatter `values` in with the lax scatter of their
    # row; divide/power combine x with ones that have `values` multiplied in at idx (as JAX).
    set = _update_method("set", "scatter", "x[idx] = values.")
    add = _update_method("add", "scatter_add", "x[idx] += values.")
    subtract = _update_method("subtract", "scatter_sub", "x[idx] -= values.")
    multiply = _update_method("multiply", "scatter_mul", "x[idx] *= values.")
    mul = multiply
    min = _update_method("min", "scatter_min", "x[idx] = minimum(x[idx], values).")
    max = _update_method("max", "scatter_max", "x[idx] = maximum(x[idx], values).")
    divide = _update_method("divide", divide, "x[idx] /= values (as x / (ones with values "
                            "multiplied in at idx), like JAX).")
    power = _update_method("power", power, "x[idx] **= values.")

    def _ones_mul(self, values, indices_are_sorted, unique_indices, mode, wrap,
                  out_sharding=None):
        a = aval_of(self.array)
        ones = conversion._convert_element_type(
            lax.broadcast_in_dim(typed_constant(1, a.dtype), a.shape, ()), a.dtype, a.weak_type)
        return _scatter_update(ones, self.index, values, lax.scatter_mul, indices_are_sorted,
                               unique_indices, mode, wrap, out_sharding)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None,
              wrap_negative_indices=True):
        """x[idx] = func(x[idx]), applied once per occurrence of a repeated index."""
        def scatter_apply(x, indices, y, dnums, **kw):
            return _scatter(scatter_p, lambda a, _: func(a), x, indices, y, dnums,
                            kw["indices_are_sorted"], kw["unique_indices"], kw["mode"])
        a = aval_of(self.array)
        out = _scatter_update(self.array, self.index, typed_constant(0, a.dtype), scatter_apply,
                              indices_are_sorted, unique_indices, mode, wrap_negative_indices)
        _record_update_site()       # (once made, as the other updates')
        return out
