"""The parameters gather and scatter share: their dimension numbers (XLA's, the index vector
always the indices' last dimension), what to do out of bounds (`GatherScatterMode`), the
dimension numbers as a StableHLO attribute, and the shape checks both run, in JAX's words.

    >>> GatherScatterMode.from_any("clip")
    <GatherScatterMode.CLIP: 1>
"""
from __future__ import annotations

import enum
import operator
from typing import NamedTuple

import numpy as np

from ...core import dtypes
from ...xla import stablehlo as hlo


class GatherDimensionNumbers(NamedTuple):
    """How operand, indices and output dimensions of a gather relate (XLA's Gather, with
    index_vector_dim always the last dimension of the indices).

    offset_dims: output dimensions that index into a slice (sorted).
    collapsed_slice_dims: operand dimensions of slice size 1 left out of the output (sorted).
    start_index_map: for each entry of an index vector, the operand dimension it starts.
    operand_batching_dims / start_indices_batching_dims: paired batch dimensions.
    """
    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """How operand, indices and updates dimensions of a scatter relate (XLA's Scatter, with
    index_vector_dim always the last dimension of the indices)."""
    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


class GatherScatterMode(enum.Enum):
    """What gather/scatter do with out-of-bounds indices: CLIP clamps them so the window
    fits; FILL_OR_DROP fills gathered windows with a value and drops scattered ones;
    PROMISE_IN_BOUNDS does no checking (XLA then clamps gathers and drops scatters)."""
    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()

    @staticmethod
    def from_any(s) -> GatherScatterMode:
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s == "fill" or s == "drop":
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        raise ValueError(f'Unknown gather mode "{s}"')


def _dims_tuple(dnums, cls):
    """dimension numbers with every field a tuple of integers, so params stay hashable (NumPy
    integers kept as given, as JAX keeps them: a rule's `np.int64(0)` prints so in a jaxpr)."""
    if not isinstance(dnums, cls):
        raise TypeError(f"dimension_numbers must be a {cls.__name__}, got {dnums!r}")
    return cls(*(tuple(d if isinstance(d, np.integer) else operator.index(d) for d in field)
                 for field in dnums))


def _dims_attr(kind: str, fields, index_vector_dim: int) -> str:
    """`#stablehlo.gather<offset_dims = [1], ..., index_vector_dim = 1>` (empty fields left out)."""
    parts = [f"{name} = {hlo.dims_list(dims)}" for name, dims in fields if len(dims)]
    parts.append(f"index_vector_dim = {index_vector_dim}")
    return f"#stablehlo.{kind}<{', '.join(parts)}>"


# Shape-rule checks shared by gather and scatter, worded as JAX words them.
def _is_sorted(dims, op, name):
    if list(dims) != sorted(dims):
        raise TypeError(f"{name} in {op} op must be sorted; got {dims}")


def _no_duplicate_dims(dims, op, name):
    if len(set(dims)) != len(dims):
        raise TypeError(f"{name} in {op} op must not repeat; got: {dims}.")


def _dims_in_range(dims, rank, op, name):
    for d in dims:
        if not 0 <= d < rank:
            raise TypeError(f"Invalid {name} set in {op} op; valid range is [0, {rank}); "
                            f"got: {d}.")


def _disjoint_dims(dims1, dims2, op, name1, name2):
    if not set(dims1).isdisjoint(dims2):
        raise TypeError(f"{name1} and {name2} in {op} op must be disjoint; got: {dims1} and "
                        f"{dims2}.")


def _check_index_map(op, name, index_map, operand, indices):
    """`index_map` (gather's start_index_map, scatter's scatter_dims_to_operand_dims) names one
    operand dimension per element of the index vector, each in range and once. The texts are
    JAX's, whose scatter ones say "mapping" and end one sentence without a period."""
    index_vector_dim = indices.ndim - 1
    mapping, end = ("", ".") if op == "gather" else (" mapping", "")
    if len(index_map) != indices.shape[index_vector_dim]:
        raise TypeError(f"{op.capitalize()} op has {len(index_map)} elements in {name} and the "
                        f"bound of dimension index_vector_dim={index_vector_dim} of indices is "
                        f"{indices.shape[index_vector_dim]}. These two numbers must be "
                        f"equal{end}")
    for i, d in enumerate(index_map):
        if not 0 <= d < operand.ndim:
            raise TypeError(f"Invalid {name}{mapping}; domain is [0, {operand.ndim}), got: "
                            f"{i}->{d}.")
    _no_duplicate_dims(index_map, op, name)


def _check_operand_batching_dims(op, operand, dims):
    """operand_batching_dims on their own: not repeated and sorted (gather checks in that
    order, scatter the other way round, as JAX), and in range; before they are checked
    against the other dimension lists (JAX's order, so its messages come first)."""
    order = (_no_duplicate_dims, _is_sorted) if op == "gather" else (_is_sorted, _no_duplicate_dims)
    for check in order:
        check(dims, op, "operand_batching_dims")
    _dims_in_range(dims, operand.ndim, op, "operand_batching_dims")


def _check_batching_dims(op, operand, indices, operand_dims, indices_dims, indices_name):
    _no_duplicate_dims(indices_dims, op, indices_name)
    _dims_in_range(indices_dims, indices.ndim, op, indices_name)
    if indices.ndim - 1 in indices_dims:
        raise TypeError(f"{op.capitalize()} op cannot have the index vector dimension as a "
                        f"batching dimension; got {indices_dims}.")
    if len(operand_dims) != len(indices_dims):
        raise TypeError(f"{op.capitalize()} op requires equal numbers of operand_batching_dims "
                        f"and {indices_name}, got {operand_dims} and {indices_dims}.")
    operand_batch = tuple(operand.shape[d] for d in operand_dims)
    indices_batch = tuple(indices.shape[d] for d in indices_dims)
    if operand_batch != indices_batch:
        raise TypeError(f"{op.capitalize()} op requires operand batching dimensions and indices "
                        f"batching dimensions to have the same shape, got {operand_batch} and "
                        f"{indices_batch}.")
    return operand_batch


def _check_indices_dtype(indices):
    if not dtypes.is_int(indices.dtype):
        raise ValueError("indices must have an integer type")
