"""An index into a Ref kept as a param of its `get`, `swap` or `addupdate` equation
(api/state_primitives.py): ints, step-1 slices with static bounds, one Ellipsis and scalar
integer arrays (traced or not), those arrays the equation's operands. JAX passes all indices as
operands with a `tree` param instead. Any other index (an array of indices, None, a strided
slice, a traced slice bound) is not kept: `Indexer.of` answers None.

    >>> Indexer.of((1, slice(None)), (3, 4))[0]
    [1,:]
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.avals import get_aval
from ..core.symbolic import canonicalize_slice, is_symbolic
from ..core.trace import Tracer


class Indexer:
    """An index into a Ref of `shape`: per dimension an int (kept as written, -1 too, as JAX
    prints it), a step-1 slice as (start, size), or DYNAMIC, a scalar integer array passed as
    an operand; `full` is `ref[...]`."""
    __slots__ = ("entries", "shape")

    def __init__(self, entries, shape):
        self.entries, self.shape = tuple(entries), tuple(shape)

    full = property(lambda self: not self.entries)

    @classmethod
    def of(cls, idx, shape, trace=None) -> tuple | None:
        """(`idx` as an Indexer, its DYNAMIC operands), or None where it cannot be one;
        `trace`: where a scalar integer array must be a value (else the index is not kept)."""
        if idx is Ellipsis or (type(idx) is tuple and not idx):
            return cls((), shape), []
        idx = idx if type(idx) is tuple else (idx,)
        at = [n for n, i in enumerate(idx) if i is Ellipsis]
        if len(at) > 1:
            return None
        if at:                                # `r[..., 0]`: full slices in its place
            idx = idx[:at[0]] + (slice(None),) * (len(shape) - len(idx) + 1) + idx[at[0] + 1:]
        if len(idx) > len(shape):
            return None
        entries, operands = [], []
        for i, dim in zip(idx + (slice(None),) * (len(shape) - len(idx)), shape):
            if _is_int(i):
                if not -dim <= i < dim:
                    return None
                entries.append(int(i))
            elif _is_scalar_index(i, trace):
                entries.append(DYNAMIC)
                operands.append(i)
            elif type(i) is slice and i.step in (None, 1) and all(
                    b is None or _is_int(b) for b in (i.start, i.stop)):
                if is_symbolic(dim):       # (jax.export: JAX's bounds, clamped symbolically)
                    start, _, size = canonicalize_slice(i, dim)
                    entries.append((start, size))
                    continue
                start, stop, _ = i.indices(dim)
                entries.append((start, max(stop - start, 0)))
            else:
                return None
        return cls(entries, shape), operands

    @property
    def out_shape(self) -> tuple:
        return self.shape if self.full else tuple(e[1] for e in self.entries if type(e) is tuple)

    def as_index(self, operands=()):
        """The NumPy index it stands for, `operands` in its DYNAMIC places."""
        if self.full:
            return Ellipsis
        operands = iter(operands)
        return tuple(next(operands) if e is DYNAMIC else e if type(e) is int else
                     slice(e[0], e[0] + e[1]) for e in self.entries)

    def text(self, operands=()) -> str:
        """As JAX's NDIndexer.pretty_print: `[...]`, `[1]`, `[:2]`, `[1:3]`, `[:,1]`, `[1,:]`,
        `[b]`; `operands`: the DYNAMIC operands' texts."""
        if self.full:
            return "[...]"
        parts, operands = [], iter(operands)
        for e, dim in zip(self.entries, self.shape):
            if e is DYNAMIC:
                parts.append(next(operands))
            elif type(e) is int:
                parts.append(str(e))
            else:
                start, end = e[0], e[0] + e[1]
                parts.append(f"{start or ''}:{'' if end == dim else end}")
        return "[" + ",".join(parts) + "]"

    def __repr__(self):
        return self.text(["?"] * self.entries.count(DYNAMIC))

    n_operands = property(lambda self: self.entries.count(DYNAMIC))

    def __eq__(self, other):
        return type(other) is Indexer and (self.entries, self.shape) == \
            (other.entries, other.shape)

    def __hash__(self):
        return hash((self.entries, self.shape))


DYNAMIC = "dynamic"         # (a str: an Indexer's entries compare and hash as a tuple)


def _is_scalar_index(i, trace) -> bool:
    """A 0-d integer array (a tracer of `trace` or one enclosing it, or a concrete one)."""
    aval = getattr(i, "aval", None)
    if aval is None or getattr(aval, "shape", None) != () or \
            not dtypes.issubdtype(aval.dtype, np.integer):
        return False
    if isinstance(i, Tracer):
        while trace is not None and trace is not i._trace:
            trace = trace.parent
        return trace is not None
    return True


def _is_int(i) -> bool:
    return isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_))


def is_full(idx) -> bool:
    return idx is Ellipsis or (type(idx) is tuple and not idx)


def transforms_text(indexer, operands) -> str:
    """The `Transforms:` part of JAX's message: `()` for `ref[...]`, else its NDIndexer."""
    if indexer.full:
        return "()"
    operands, parts = iter(operands), []
    for e, dim in zip(indexer.entries, indexer.shape):
        if type(e) is tuple:
            parts.append(f"Slice(start={e[0]}, size={e[1]}, stride=1)")
        else:                          # an int index is a weak int32 scalar there, as JAX's
            aval = get_aval(next(operands)) if e is DYNAMIC else None
            parts.append("ShapedArray(int32[], weak_type=True)" if aval is None else
                         f"ShapedArray({np.dtype(aval.dtype).name}[]"
                         f"{', weak_type=True' if aval.weak_type else ''})")
    index = ", ".join(parts) + ("," if len(parts) == 1 else "")
    return (f"(NDIndexer(indices=({index}), shape={tuple(indexer.shape)}, "
            f"int_indexer_shape=(), validate=False),)")
