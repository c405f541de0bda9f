"""Which key of an array a key taken from it is, while the notebook watches for reused keys
(notebook/notes/key_notes.py): `keys[0]` makes a new object each time it is written, and each is
the same key (the same bits, the same numbers drawn), so the note follows the array's key at
its index, not the object.

A key taken by a static index (`keys[0]`, `keys[-1]`, `keys[0, 1]`, `keys[0][1]`) or by a for
loop or unpacking (`for k in keys`, `k1, k2 = keys`) gets `_taken`, a Taken: the taken keys
of the array it came from (`rows`, shared with every key taken from that array or from its
taken rows), its index there, and how it was taken. `rows` holds one `_Key` per index taken,
the identity the note keys its record of draws on. Typed keys are tagged by KeyArray's
indexing and iteration (random/keys.py); raw uint32 key data by the Array's own indexing and
iteration, for the arrays jax.random.split made while the notebook watched (KEY_DATA, empty
otherwise). Under vmap (or grad) alone the user's function runs at the call, on tracers,
which hold no attributes: a tracer of keys (typed, or uint32 data of one key per row of its
last axis) indexed or looped over is followed by a table of them instead (`_TRACERS`, while
the notebook watches, emptied at each cell's end; KEY_TRACERS calls it). An index held in an
array (`keys[jnp.array(0)]`), a slice, and keys inside a function jit traces are not
followed here: the note reads those from the jaxpr (random/key_reuse.py's `_Views`).

    >>> import jxkernel as jax
    >>> from jxkernel.random import keys
    >>> keys.consumed_keys = []                   # (the notebook watching)
    >>> ks = jax.random.split(jax.random.key(0), 3)
    >>> taken(ks[0]).key is taken(ks[-3]).key, taken(ks[0]).key is taken(ks[1]).key
    (True, False)
    >>> keys.consumed_keys = None
"""
from __future__ import annotations

import operator
import weakref
from typing import NamedTuple

import numpy as np

from ..core import dtypes
from ..core.trace import Tracer, _staged   # (a program being recorded: jit's)
from ..xla.array import KEY_DATA, KEY_TRACERS


class _Key:
    """One key of an array: the one object for every key object taken for it."""
    __slots__ = ("__weakref__",)


class _Rows(dict):
    """index (a tuple of ints) -> _Key, for the keys taken from one array; `shape`: the
    array's shape of keys (its key data's leading axes)."""
    __slots__ = ("shape",)


class Taken(NamedTuple):
    """A key taken from an array: `rows` of the array it came from, its `index` there, and
    `how`: "index" (keys[0]) or "loop" (a for loop's or unpacking's)."""
    rows: _Rows
    index: tuple
    how: str

    @property
    def key(self) -> _Key:
        return self.rows[self.index]


# id(tracer) -> (the tracer, {"_taken": its Taken, "_taken_rows": the _Rows taken from it}):
# the attributes a tracer cannot hold, the tracer held with them (so that its id is its
# own), at most _TRACERS_LIMIT (the oldest dropped first: a key taken after is a new one)
_TRACERS: dict = {}
_TRACERS_LIMIT = 256


def _get(obj, name):
    if isinstance(obj, Tracer):
        entry = _TRACERS.get(id(obj))
        return None if entry is None or entry[0] is not obj else entry[1].get(name)
    return getattr(obj, name, None)


def _put(obj, name, value) -> None:
    if not isinstance(obj, Tracer):
        setattr(obj, name, value)
        return
    entry = _TRACERS.get(id(obj))
    if entry is None or entry[0] is not obj:
        if len(_TRACERS) >= _TRACERS_LIMIT:
            del _TRACERS[next(iter(_TRACERS))]
        entry = _TRACERS[id(obj)] = (obj, {})
    entry[1][name] = value


def taken(key) -> Taken | None:
    """The Taken of a key object (typed or raw, a tracer under vmap too), or None: a key not
    taken from an array."""
    return _get(key, "_taken")


def _rows_of(parent, shape):
    """(rows, index prefix) that the keys taken from `parent` (of shape of keys `shape`)
    extend: its own Taken's where it was taken itself (a row of a 2-d array of keys)."""
    own = _get(parent, "_taken")
    if own is not None:
        return own.rows, own.index
    rows = _get(parent, "_taken_rows")      # (not `_rows`: Array's method of its rows)
    if rows is None:
        rows = _Rows()
        rows.shape = tuple(shape)
        _put(parent, "_taken_rows", rows)
    return rows, ()


def _mark(out, rows, index, how) -> None:
    if index not in rows:
        rows[index] = _Key()
    _put(out, "_taken", Taken(rows, index, how))


def static_index(idx, shape):
    """`idx` as a tuple of non-negative ints into the leading axes of `shape`, or None where
    it is not only ints in bounds (a slice, an array, a bool, a clamped index).

        >>> static_index(-1, (3,)), static_index((0, 1), (2, 3)), static_index(slice(1), (3,))
        ((2,), (0, 1), None)
    """
    items = idx if type(idx) is tuple else (idx,)
    if not items or len(items) > len(shape):
        return None
    out = []
    for i, n in zip(items, shape):
        if type(i) is bool or not isinstance(i, (int, np.integer)):
            return None
        i = operator.index(i)
        if not -n <= i < n:
            return None
        out.append(i % n)
    return tuple(out)


def indexed(parent, shape, out, idx) -> None:
    """`out`, parent[idx] with `shape` parent's shape of keys, marked as the key (or the keys)
    at that index, where idx is static ints in bounds."""
    index = static_index(idx, shape)
    if index is None:
        return
    rows, prefix = _rows_of(parent, shape)
    _mark(out, rows, prefix + index, "index")
    if len(index) < len(shape):             # a row of keys: its own indexing is followed
        _follow(out, shape[len(index):])


def looped(parent, shape, rows_iter):
    """The rows of `parent` (`rows_iter`, one per index of its first axis), each marked."""
    rows, prefix = _rows_of(parent, shape)
    for i, out in enumerate(rows_iter):
        _mark(out, rows, prefix + (i,), "loop")
        if len(shape) > 1:
            _follow(out, shape[1:])
        yield out


class _KeyData:
    """KEY_DATA's entry for raw key data of shape of keys `shape`: what its Array's indexing
    and iteration call (xla/array.py and numpy/indexing.py know nothing of keys)."""
    __slots__ = ("ref", "shape")

    def __init__(self, array, shape):
        ident = id(array)

        def forget(ref):
            # (only its own entry, found by its reference: the callback holds no entry, so
            # an entry and its reference make no cycle left for the collector)
            if getattr(KEY_DATA.get(ident), "ref", None) is ref:
                del KEY_DATA[ident]
        self.ref, self.shape = weakref.ref(array, forget), tuple(shape)

    def indexed(self, parent, out, idx) -> None:
        indexed(parent, self.shape, out, idx)

    def looped(self, parent, rows_iter):
        return looped(parent, self.shape, rows_iter)


def _follow(out, shape) -> None:
    """Have the keys taken from raw key data `out` followed as well (a typed KeyArray's
    indexing follows its own, a tracer's is followed by KEY_TRACERS)."""
    if not hasattr(out, "_impl") and not isinstance(out, Tracer):
        KEY_DATA[id(out)] = _KeyData(out, shape)


class _TracedKeys:
    """KEY_TRACERS' entry while the notebook watches: what a tracer's static indexing and
    iteration call (numpy/indexing.py, numpy/array_methods.py), marking the keys taken from
    a tracer of keys under vmap or grad alone (a staged one, jit's, is read from its jaxpr)."""

    @staticmethod
    def _shape(tracer):
        """The tracer's shape of keys: typed keys', or uint32 data's leading axes (one key
        per row of its last axis: only a taken one drawn with counts); None for another
        tracer, or one being staged."""
        dtype, shape = tracer.aval.dtype, tuple(tracer.aval.shape)
        if isinstance(dtype, dtypes.ExtendedDType):
            keys = shape if dtypes.extended_scalar_type(dtype) is dtypes.prng_key else None
        else:
            keys = shape[:-1] if dtype == np.uint32 and len(shape) >= 2 else None
        return None if keys is None or _staged(tracer._trace) else keys

    def indexed(self, parent, out, idx) -> None:
        shape = self._shape(parent)
        if shape:
            indexed(parent, shape, out, idx)

    def looped(self, parent, rows_iter):
        shape = self._shape(parent)
        return looped(parent, shape, rows_iter) if shape else rows_iter


def watch_tracers(on: bool) -> None:
    """Follow the keys taken from tracers (on: while the notebook watches), or stop and
    forget them."""
    _TRACERS.clear()
    KEY_TRACERS.clear()
    if on:
        KEY_TRACERS.append(_TracedKeys())


def forget_tracers() -> None:
    """Drop the tracers followed (at a cell's end: their function has returned)."""
    _TRACERS.clear()


def follow_key_data(array, key_ndim: int) -> None:
    """jax.random.split's raw keys, made while the notebook watches: their indexing and
    iteration followed (`key_ndim`: the key data's trailing axes, one key's)."""
    shape = array.shape[:array.ndim - key_ndim]
    if shape:
        KEY_DATA[id(array)] = _KeyData(array, shape)


def in_jaxpr(again) -> Taken:
    """The Taken of a key of an array taken twice inside a jaxpr (random/key_reuse.py's
    TakenAgain, the note's pass's): the keys its equations took, as `rows`; its index None
    where the reused keys are no one row or key.

        >>> from jxkernel.random.key_reuse import TakenAgain
        >>> t = in_jaxpr(TakenAgain("index", "index", (3,), (0,), np.array([1, 0, 1], bool)))
        >>> sorted(t.rows), t.rows.shape, t.index
        ([(0,), (2,)], (3,), (0,))
    """
    rows = _Rows({tuple(int(i) for i in where): _Key() for where in np.argwhere(again.taken)})
    rows.shape = tuple(again.shape)
    return Taken(rows, again.index, again.how)
