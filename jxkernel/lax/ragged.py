"""lax.ragged_dot and ragged_dot_general: matrix products over groups of consecutive rows (or
contracted entries) of `lhs`, group i being `group_sizes[i]` long, as in mixture-of-experts
layers where each expert's weights `rhs[i]` apply to the tokens routed to it.

    >>> lhs = jnp.arange(8.0).reshape(4, 2)             # rows 0 | 1 2 3 in two groups
    >>> rhs = jnp.stack([jnp.eye(2), 10 * jnp.eye(2)])  # (g, k, n)
    >>> lax.ragged_dot(lhs, rhs, jnp.array([1, 3]))
    Array([[ 0.,  1.],
           [20., 30.],
           [40., 50.],
           [60., 70.]], dtype=float32)

Written as JAX computes it on CPU and GPU (its `_ragged_dot_general_impl`): the ragged
dimension is expanded into a group axis, zero outside each group, and contracted with one
dot_general. jxkernel binds no ragged_dot_general primitive: the jaxpr shows those
operations, and jvp, transpose and vmap are theirs.
"""
from __future__ import annotations

import dataclasses
import enum
from typing import Sequence

import numpy as np

from ..core import dtypes
from ..core.symbolic import is_symbolic
from .dot import canonicalize_precision, dot_general
from .elementwise import bitwise_and, ge, lt, select
from .reductions import cumsum
from .slicing import slice_in_dim
from .shapes import (broadcast, broadcast_in_dim, broadcasted_iota, concatenate, transpose)
from .sharding import canonicalize_sharding, run_auto_axes


@dataclasses.dataclass(frozen=True)
class RaggedDotDimensionNumbers:
    """Dot dimension numbers ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch)),
    the lhs's ragged dimension (one) and the rhs's group dimension (one, or none)."""
    dot_dimension_numbers: tuple
    lhs_ragged_dimensions: Sequence[int]
    rhs_group_dimensions: Sequence[int]

    def __init__(self, dot_dimension_numbers, lhs_ragged_dimensions, rhs_group_dimensions):
        object.__setattr__(self, "dot_dimension_numbers",
                           tuple(tuple(map(tuple, t)) for t in dot_dimension_numbers))
        object.__setattr__(self, "lhs_ragged_dimensions", tuple(lhs_ragged_dimensions))
        object.__setattr__(self, "rhs_group_dimensions", tuple(rhs_group_dimensions))


# lax.ragged_dot's: [m, k] x [g, k, n] with the rows of lhs in groups
_BASIC = RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])


class _Mode(enum.Enum):
    NONCONTRACTING = 1     # [b, m, k] x [g, b, k, n] -> [b, m, n]: rows in groups
    CONTRACTING = 2        # [b, m, k] x [b, k, n] -> [g, b, m, n]: a sum per group
    BATCH = 3              # [b, m, k] x [b, k, n] -> [b, m, n]: the batch in groups


def _remaining(n, *taken):
    return [d for d in range(n) if not any(d in t for t in taken)]


def _mode(lhs_ndim, dnums) -> tuple[_Mode, int]:
    if len(dnums.lhs_ragged_dimensions) != 1:
        raise TypeError("ragged_dot_general expects exactly one lhs ragged dimension.")
    ragged = dnums.lhs_ragged_dimensions[0]
    if not 0 <= ragged < lhs_ndim:
        raise TypeError(f"ragged_dot_general requires lhs ragged dimension numbers to be "
                        f"nonnegative and less than the number of axes of the lhs value, got "
                        f"{ragged} for lhs of rank {lhs_ndim}.")
    (contract, _), (batch, _) = dnums.dot_dimension_numbers
    if ragged in contract:
        return _Mode.CONTRACTING, ragged
    if ragged in batch:
        return _Mode.BATCH, ragged
    return _Mode.NONCONTRACTING, ragged


def _prefix(mode, ndim, ragged, batch, contract) -> list:
    """The dimensions outer to the ragged one that `group_sizes` carries, [b..., x...]."""
    batch, contract = list(batch), list(contract)
    if mode is _Mode.NONCONTRACTING:
        free = _remaining(ndim, contract, batch)
        return batch + free[:free.index(ragged)]
    if mode is _Mode.CONTRACTING:
        return batch + contract[:contract.index(ragged)]
    return batch[:batch.index(ragged)]


def _expand(x, dim, group_sizes, prefix):
    """[g, *x.shape]: `x` once per group, zero outside the group's run along `dim`.
    `group_sizes` is [*prefix sizes, g], its leading axes matching x's `prefix` axes."""
    shape = (group_sizes.shape[-1],) + tuple(x.shape)
    ends = cumsum(group_sizes, axis=group_sizes.ndim - 1)
    last = group_sizes.ndim - 1
    starts = concatenate([broadcast(np.zeros((), ends.dtype), ends.shape[:-1] + (1,)),
                          slice_in_dim(ends, 0, ends.shape[last] - 1, axis=last)], last)
    # group axis first, then the prefix axes in x's order, for broadcast_in_dim
    order = np.argsort(prefix) if prefix else np.array([], int)
    perm = (group_sizes.ndim - 1, *order.tolist())
    into = (0, *(sorted(prefix)[i] + 1 for i in range(len(prefix))))
    ends, starts = (broadcast_in_dim(transpose(v, perm), shape, into) for v in (ends, starts))
    position = broadcasted_iota(group_sizes.dtype, shape, dim + 1)
    mask = bitwise_and(ge(position, starts), lt(position, ends))
    wide = broadcast(x, (shape[0],))
    return select(mask, wide, broadcast(np.zeros((), x.dtype), shape))


def ragged_dot_general(lhs, rhs, group_sizes, ragged_dot_dimension_numbers, precision=None,
                       preferred_element_type=None, group_offset=None, out_sharding=None):
    """dot_general with `lhs`'s ragged dimension in groups of `group_sizes` (see
    RaggedDotDimensionNumbers and the module docstring for the three modes)."""
    lhs, rhs, group_sizes = (v if hasattr(v, "aval") else np.asarray(v)
                             for v in (lhs, rhs, group_sizes))
    if group_offset is not None:
        raise NotImplementedError("Unimplemented group_offset support.")   # (JAX's, off TPU)
    out_sharding = canonicalize_sharding(out_sharding, "ragged_dot_general")
    if out_sharding is not None:
        # (JAX's primitive takes it as its result's type; jxkernel's ragged dot is made of
        # dot_generals, which the mesh's axes made Auto leave to XLA, then laid out so)
        return run_auto_axes(lambda l, r, g: ragged_dot_general(
            l, r, g, ragged_dot_dimension_numbers, precision, preferred_element_type),
            (lhs, rhs, group_sizes), {}, None, out_sharding)
    dnums = ragged_dot_dimension_numbers
    if not dtypes.is_int(group_sizes.dtype):
        raise TypeError("ragged_dot_general requires that group_sizes.dtype is subtype of "
                        f"np.integer, got {group_sizes.dtype}.")
    if group_sizes.ndim == 0:
        raise TypeError("expected rank of group_sizes to be >=1.")
    mode, ragged = _mode(lhs.ndim, dnums)
    (l_contract, r_contract), (l_batch, r_batch) = dnums.dot_dimension_numbers
    l_prefix = _prefix(mode, lhs.ndim, ragged, l_batch, l_contract)
    expected = tuple(lhs.shape[i] for i in l_prefix) + group_sizes.shape[-1:]
    if group_sizes.ndim == 1:
        group_sizes = broadcast(group_sizes, expected[:-1])
    elif group_sizes.shape != expected:
        raise TypeError(f"expected group_sizes to have shape {expected}, got "
                        f"{group_sizes.shape}.")
    g = group_sizes.shape[-1]
    if mode is not _Mode.BATCH and is_symbolic(g):       # (jax.export: JAX's TypeError)
        raise TypeError("ragged_dot_general requires the group count (last dimension of "
                        "group_sizes) to be static in Mode 1 (non-contracting) and Mode 2 "
                        "(contracting).")
    groups = dnums.rhs_group_dimensions
    dot = lambda a, b, dims: dot_general(a, b, dims, precision=canonicalize_precision(precision),
                                         preferred_element_type=preferred_element_type)
    up = lambda dims: [d + 1 for d in dims]
    if mode is _Mode.NONCONTRACTING:
        if len(groups) != 1:
            raise TypeError("ragged_dot_general requires exactly one rhs group dimension when "
                            "lhs ragged dimension is noncontracting.")
        if groups[0] in r_batch or groups[0] in r_contract:
            raise TypeError("ragged_dot_general requires rhs group dimension numbers to be "
                            "distinct from contracting and batch dimensions.")
        if rhs.shape[groups[0]] != g:
            raise TypeError(f"expected rhs group dimension size to be {g}, got "
                            f"{rhs.shape[groups[0]]}.")
        # the group axis of the expanded lhs contracts with rhs's group dimension
        return dot(_expand(lhs, ragged, group_sizes, l_prefix), rhs,
                   ((up(l_contract) + [0], list(r_contract) + [groups[0]]),
                    (up(l_batch), list(r_batch))))
    if groups:
        raise TypeError("ragged_dot_general requires zero group dimensions in the rhs when "
                        "lhs ragged dimension is contracting or batch.")
    if mode is _Mode.CONTRACTING:
        r_ragged = r_contract[list(l_contract).index(ragged)]
        r_prefix = _prefix(mode, rhs.ndim, r_ragged, r_batch, r_contract)
        # the group axis is a batch axis of both: one sum per group, in front
        return dot(_expand(lhs, ragged, group_sizes, l_prefix),
                   _expand(rhs, r_ragged, group_sizes, r_prefix),
                   ((up(l_contract), up(r_contract)), ([0] + up(l_batch), [0] + up(r_batch))))
    return dot(lhs, rhs, dnums.dot_dimension_numbers)


def ragged_dot(lhs, rhs, group_sizes, precision=None, preferred_element_type=None,
               group_offset=None, out_sharding=None):
    """[m, k] x [g, k, n] -> [m, n]: the first group_sizes[0] rows of `lhs` times rhs[0],
    the next group_sizes[1] times rhs[1], ... (rows past the groups' sum give zeros)."""
    return ragged_dot_general(lhs, rhs, group_sizes, _BASIC, precision=precision,
                              preferred_element_type=preferred_element_type,
                              group_offset=group_offset, out_sharding=out_sharding)
