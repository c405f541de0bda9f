"""`Slice`, a slice given by a start (static or
traced), a static size and a stride, and `ds` (JAX's `dslice`, public as `jax.ds`), which
builds one (JAX keeps them in jax._src.indexing; jxkernel._src.indexing names these).
Indexing an Array or a Ref with a Slice slices dynamically: the size is fixed, so
the start may be traced (`x[i:i + 2]` needs a static `i`).

    >>> x = jnp.arange(10)
    >>> jax.jit(lambda x, i: x[ds(i, 2)])(x, 4)
    Array([4, 5], dtype=int32)
    >>> ds(1, 3), ds(None), ds(3)
    (Slice(start=1, size=3, stride=1), slice(None, None, None), Slice(start=0, size=3, stride=1))
"""
from __future__ import annotations

import dataclasses
import operator

import numpy as np

from .. import lax
from ..core.trace import Tracer
from ..tree_util import register_pytree_node_class
from . import creation, manipulation


@register_pytree_node_class
@dataclasses.dataclass(slots=True)
class Slice:
    """`size` elements from `start` (an int or a traced scalar), `stride` apart."""
    start: object
    size: int
    stride: int = 1

    def __post_init__(self):
        if self.stride < 0:
            raise ValueError("`stride` must be >= 0.")

    @property
    def is_dynamic_start(self) -> bool:
        return not isinstance(self.start, (int, np.integer))

    @property
    def is_dynamic_size(self) -> bool:
        return not isinstance(self.size, int)

    # a static start or size is aux data (part of a jit key), a traced one is a leaf
    def tree_flatten(self):
        leaves = tuple(v if d else None for v, d in (
            (self.start, self.is_dynamic_start), (self.size, self.is_dynamic_size)))
        aux = tuple(None if d else v for v, d in (
            (self.start, self.is_dynamic_start), (self.size, self.is_dynamic_size)))
        return leaves, aux + (self.stride,)

    @classmethod
    def tree_unflatten(cls, aux, leaves):
        start, size = (a if a is not None else b for a, b in zip(leaves, aux[:2]))
        return cls(start, size, aux[2])

    @classmethod
    def from_slice(cls, s: slice, size: int) -> Slice:
        start, stop, step = s.indices(size)
        if step < 1:
            raise ValueError(f"slice must have a step >= 1 (found: {step})")
        return cls(start, len(range(start, stop, step)), step)


def ds(start, size=None, stride=None):
    """A Slice of `size` elements from `start` (`ds(i, n)` is `i:i+n`, with `i` possibly
    traced); `ds(None)` is `:` and `ds(n)` is `:n`, as JAX's `dslice`."""
    if start is None:
        return slice(None)
    if stride is None:
        stride = 1
    if not isinstance(stride, int):
        raise ValueError("Non-static stride in `dslice`")
    if size is None:
        start, size = 0, start
    return Slice(start, operator.index(size) if not isinstance(size, Tracer) else size, stride)


dslice = ds


def apply_slices(x, idx):
    """`(x', idx')`: the Slices of the index `idx` applied to `x` as dynamic slices (start
    clamped so the slice fits, as lax.dynamic_slice does; with a stride, each index clamped),
    each replaced in `idx'` by `:`.
    Other entries are left for ordinary indexing."""
    items = list(idx) if isinstance(idx, tuple) else [idx]
    if not any(isinstance(i, Slice) for i in items):
        return x, idx
    # the axis each entry indexes: entries before an Ellipsis count from the front, after it
    # from the back (None adds an axis and indexes none)
    consumes = [0 if i is None or i is Ellipsis else 1 for i in items]
    if any(getattr(i, "dtype", None) == bool and getattr(i, "ndim", 0) > 0 for i in items):
        raise IndexError("jax.ds slices cannot be combined with boolean mask indices; index "
                         "with the mask in a second step")
    cut = items.index(Ellipsis) if Ellipsis in items else len(items)
    for position, item in enumerate(items):
        if not isinstance(item, Slice):
            continue
        if item.is_dynamic_size:
            raise TypeError(f"jax.ds's size must be a static int, got {item.size!r} at "
                            f"position {position}")
        axis = sum(consumes[:position]) if position < cut else \
            x.ndim - sum(consumes[position:])
        if item.stride == 1:           # the start clamped so that the slice fits
            x = lax.dynamic_slice_in_dim(x, item.start, item.size, axis)
        else:                          # a gather: each index clamped, as JAX's
            where = lax.iota(np.int32, item.size) * item.stride + item.start
            where = lax.clamp(np.int32(0), where, np.int32(x.shape[axis] - 1))
            x = lax.transpose(lax.index_take(x, [where], (axis,)),   # (gathered axis first)
                              (*range(1, axis + 1), 0, *range(axis + 1, x.ndim)))
        items[position] = slice(None)
    return x, tuple(items)


def update_slices(x, idx, value):
    """`x` with `value` written at `idx`, an index of Slices and full slices (`ref[ds(i, 2)] =
    v`): one dynamic_update_slice, its start clamped as lax's. None when `idx` has other
    entries (ordinary indexed updates take those)."""
    items = list(idx) if isinstance(idx, tuple) else [idx]
    if not any(isinstance(i, Slice) for i in items):
        return None
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items[at:at + 1] = [slice(None)] * (x.ndim - len(items) + 1)
    items += [slice(None)] * (x.ndim - len(items))
    if not all(i == slice(None) or isinstance(i, Slice) and i.stride == 1 and
               not i.is_dynamic_size for i in items):
        raise IndexError(f"writing through jax.ds takes an index of unit-stride ds slices and "
                         f"full slices `:`, got {idx!r}")
    shape = tuple(i.size if isinstance(i, Slice) else n for i, n in zip(items, x.shape))
    starts = [i.start if isinstance(i, Slice) else 0 for i in items]
    value = manipulation.broadcast_to(creation.asarray(value, x.dtype), shape)
    return lax.dynamic_update_slice(x, value, starts)
