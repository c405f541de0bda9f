"""Which key of an array a key taken from it is, while the notebook watches for reused keys
(notebook/key_notes.py): `keys[0]` makes a new object each time it is written, and each is
the same key (the same bits, the same numbers drawn), so the note follows the array's key at
its index, not the object.

A key taken by a static index (`keys[0]`, `keys[-1]`, `keys[0, 1]`, `keys[0][1]`) or by a for
loop or unpacking (`for k in keys`, `k1, k2 = keys`) gets `_taken`, a Taken: the taken keys
of the array it came from (`rows`, shared with every key taken from that array or from its
taken rows), its index there, and how it was taken. `rows` holds one `_Key` per index taken,
the identity the note keys its record of draws on. Typed keys are tagged by KeyArray's
indexing and iteration (random/keys.py); raw uint32 key data by the Array's own indexing and
iteration, for the arrays jax.random.split made while the notebook watched (KEY_DATA, empty
otherwise). An index held in an array (`keys[jnp.array(0)]`), a slice, and keys inside a
traced function are not followed.

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

from ..xla.array import KEY_DATA


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


def taken(key) -> Taken | None:
    """The Taken of a key object (typed or raw), or None: a key not taken from an array."""
    return getattr(key, "_taken", None)


def _rows_of(parent, shape):
    """(rows, index prefix) that the keys taken from `parent` (of shape of keys `shape`)
    extend: its own Taken's where it was taken itself (a row of a 2-d array of keys)."""
    own = getattr(parent, "_taken", None)
    if own is not None:
        return own.rows, own.index
    rows = getattr(parent, "_taken_rows", None)     # (not `_rows`: Array's method of its rows)
    if rows is None:
        rows = _Rows()
        rows.shape = tuple(shape)
        parent._taken_rows = rows
    return rows, ()


def _mark(out, rows, index, how) -> None:
    if index not in rows:
        rows[index] = _Key()
    out._taken = Taken(rows, index, how)


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
    indexing follows its own)."""
    if not hasattr(out, "_impl"):
        KEY_DATA[id(out)] = _KeyData(out, shape)


def follow_key_data(array, key_ndim: int) -> None:
    """jax.random.split's raw keys, made while the notebook watches: their indexing and
    iteration followed (`key_ndim`: the key data's trailing axes, one key's)."""
    shape = array.shape[:array.ndim - key_ndim]
    if shape:
        KEY_DATA[id(array)] = _KeyData(array, shape)
