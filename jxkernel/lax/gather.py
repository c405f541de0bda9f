"""gather, and the dimension numbers and modes it shares with the scatter family
(scatter.py): the primitive with its rules, then lax.gather with JAX's signature.

    >>> dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
    ...                                 start_index_map=(0,))
    >>> lax.gather(jnp.arange(6).reshape(3, 2), jnp.array([[2], [0]]), dn, (1, 2))
    Array([[4, 5],
           [0, 1]], dtype=int32)

Out of bounds, a gather does what its `mode` says: CLIP clamps each window into range
(XLA's own behaviour), FILL_OR_DROP returns `fill_value` for any window not wholly in
bounds (a mask computed beside the gather), PROMISE_IN_BOUNDS checks nothing. Its jvp
gathers the tangent; its transpose is a scatter-add with the same dimension numbers; its
batching rule pairs the operand's and the indices' batch dims through
operand_batching_dims/start_indices_batching_dims.
"""
from __future__ import annotations

import builtins
import enum
import operator
from typing import NamedTuple

import numpy as np

from ..core import dtypes
from ..core.avals import ShapedArray
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, lowering_rules,
                              transpose_rules)
from ..xla import stablehlo as hlo
from ..transforms import ad_util as ad
from ..transforms import batch_util as bu
from . import _lowering as hl
from .shapes import canonicalize_shape


# ------------------------------------------------------------------ gather / scatter params
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
    """dimension numbers with every field a tuple of ints, so params stay hashable."""
    if not isinstance(dnums, cls):
        raise TypeError(f"dimension_numbers must be a {cls.__name__}, got {dnums!r}")
    return cls(*(tuple(operator.index(d) for d in field) for field in dnums))


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


def _check_batching_dims(op, operand, indices, operand_dims, indices_dims, indices_name):
    _no_duplicate_dims(operand_dims, op, "operand_batching_dims")
    _is_sorted(operand_dims, op, "operand_batching_dims")
    _dims_in_range(operand_dims, operand.ndim, op, "operand_batching_dims")
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


# ------------------------------------------------------------------ gather
gather_p = Primitive("gather")


def _gather_abstract_eval(operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                          indices_are_sorted, mode, fill_value):
    _check_indices_dtype(indices)
    dn = dimension_numbers
    if indices.ndim < 1:
        raise TypeError(f"Gather indices must have at least one dimension (the index vector, "
                        f"last); got indices of shape {indices.shape}.")
    index_vector_dim = indices.ndim - 1
    _is_sorted(dn.offset_dims, "gather", "offset_dims")
    _no_duplicate_dims(dn.offset_dims, "gather", "offset_dims")
    out_rank = len(dn.offset_dims) + indices.ndim - 1
    for i, d in enumerate(dn.offset_dims):
        if not 0 <= d < out_rank:
            raise TypeError(f"Offset dimension {i} in gather op is out of bounds; got {d}, but "
                            f"should have been in [0, {out_rank})")
    if len(dn.start_index_map) != indices.shape[index_vector_dim]:
        raise TypeError(f"Gather op has {len(dn.start_index_map)} elements in start_index_map "
                        f"and the bound of dimension index_vector_dim={index_vector_dim} of "
                        f"indices is {indices.shape[index_vector_dim]}. These two numbers must "
                        f"be equal.")
    for i, d in enumerate(dn.start_index_map):
        if not 0 <= d < operand.ndim:
            raise TypeError(f"Invalid start_index_map; domain is [0, {operand.ndim}), got: "
                            f"{i}->{d}.")
    _no_duplicate_dims(dn.start_index_map, "gather", "start_index_map")
    _is_sorted(dn.collapsed_slice_dims, "gather", "collapsed_slice_dims")
    _dims_in_range(dn.collapsed_slice_dims, operand.ndim, "gather", "collapsed_slice_dims")
    _no_duplicate_dims(dn.collapsed_slice_dims, "gather", "collapsed_slice_dims")
    _disjoint_dims(dn.collapsed_slice_dims, dn.operand_batching_dims, "gather",
                   "collapsed_slice_dims", "operand_batching_dims")
    _disjoint_dims(dn.start_index_map, dn.operand_batching_dims, "gather", "start_index_map",
                   "operand_batching_dims")
    _check_batching_dims("gather", operand, indices, dn.operand_batching_dims,
                         dn.start_indices_batching_dims, "start_indices_batching_dims")
    if operand.ndim != len(slice_sizes):
        raise TypeError(f"Gather op must have one slice size for every input dimension; got: "
                        f"len(slice_sizes)={len(slice_sizes)}, input_shape.rank={operand.ndim}")
    if len(slice_sizes) != (len(dn.offset_dims) + len(dn.collapsed_slice_dims)
                            + len(dn.operand_batching_dims)):
        raise TypeError(f"All components of the offset index in a gather op must either be a "
                        f"offset dimension or explicitly collapsed/batching; got "
                        f"len(slice_sizes)={len(slice_sizes)}, output_slice_sizes="
                        f"{dn.offset_dims}, collapsed_slice_dims={dn.collapsed_slice_dims}, "
                        f"operand_batching_dims={dn.operand_batching_dims}.")
    if indices.size:
        for i, (size, bound) in enumerate(zip(slice_sizes, operand.shape)):
            if not 0 <= size <= bound:
                raise TypeError(f"Slice size at index {i} in gather op is out of range, must "
                                f"be within [0, {bound} + 1), got {size}.")
    for i, d in enumerate(dn.collapsed_slice_dims):
        if slice_sizes[d] != 1:
            raise TypeError(f"Gather op can only collapse slice dims with bound 1, but bound is "
                            f"{slice_sizes[d]} for index {d} at position {i}.")
    for i, d in enumerate(dn.operand_batching_dims):
        if slice_sizes[d] > 1:
            raise TypeError(f"Gather op can only have operand batching dims with bound 0/1, but "
                            f"bound is {slice_sizes[d]} for index {d} at position {i}.")
    # output: offset dims take the kept slice sizes, the others the indices' batch dims
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    kept = iter(s for i, s in enumerate(slice_sizes) if i not in dropped)
    batch = iter(indices.shape[:-1])
    shape = tuple(next(kept) if i in dn.offset_dims else next(batch) for i in range(out_rank))
    return ShapedArray(shape, operand.dtype, operand.weak_type)


def _gather_lowering(ctx, operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                     indices_are_sorted, mode, fill_value):
    if mode not in (GatherScatterMode.CLIP, GatherScatterMode.FILL_OR_DROP,
                    GatherScatterMode.PROMISE_IN_BOUNDS):
        raise NotImplementedError(f"gather mode {mode} is not supported by jxkernel")
    out = ctx.avals_out[0]
    if 0 in out.shape:                   # as JAX: an empty result needs no gather
        return hl.splat(ctx, 0, out.dtype, out.shape)
    dn, idx_aval = dimension_numbers, ctx.avals_in[1]
    dims = _dims_attr("gather", [
        ("offset_dims", dn.offset_dims), ("collapsed_slice_dims", dn.collapsed_slice_dims),
        ("operand_batching_dims", dn.operand_batching_dims),
        ("start_indices_batching_dims", dn.start_indices_batching_dims),
        ("start_index_map", dn.start_index_map)], idx_aval.ndim - 1)
    # XLA's gather clamps each window into the operand: that *is* CLIP (and what
    # PROMISE_IN_BOUNDS happens to do)
    result = ctx.op1("stablehlo.gather", [operand, indices], {
        "dimension_numbers": dims, "slice_sizes": hlo.i64_array(slice_sizes),
        "indices_are_sorted": hlo.bool_attr(indices_are_sorted)})
    if mode != GatherScatterMode.FILL_OR_DROP:
        return result
    # FILL_OR_DROP: a window is kept iff 0 <= start <= dim - slice_size for every entry
    # of its index vector; the others become fill_value (JAX's _gather_fill)
    operand_shape = ctx.avals_in[0].shape
    upper = [operand_shape[d] - slice_sizes[d] for d in dn.start_index_map]
    mask = _in_bounds(ctx, indices, idx_aval, upper)
    batch_dims = [d for d in range(out.ndim) if d not in dn.offset_dims]
    mask = hl.broadcast_in_dim(ctx, mask, out.shape, dtypes.bool_, batch_dims)
    fill = hl.splat(ctx, fill_value, out.dtype, out.shape)
    return hl.select(ctx, mask, result, fill, out)


def _in_bounds(ctx, indices, idx_aval, upper):
    """bool[indices.shape[:-1]]: whether each index vector lies within [0, upper]."""
    dtype, shape = idx_aval.dtype, idx_aval.shape
    top = dtypes.iinfo(dtype).max                 # an upper bound past the dtype is no bound
    upper = ctx.constant(np.asarray([builtins.min(u, top) for u in upper], dtype))
    upper = hl.broadcast_in_dim(ctx, upper, shape, dtype, [len(shape) - 1])
    ok = hl.compare(ctx, indices, upper, "LE", idx_aval)
    bool_type = hlo.tensor_type(shape, dtypes.bool_)
    if dtypes.is_signed(dtype):
        nonneg = hl.compare(ctx, indices, hl.splat(ctx, 0, dtype, shape), "GE", idx_aval)
        ok = ctx.op1("stablehlo.and", [ok, nonneg], result_type=bool_type)
    return ctx.op1("stablehlo.reduce", [ok, ctx.constant(np.array(True))],
                   {"dimensions": hlo.i64_array([len(shape) - 1])},
                   regions=[hl.binary_region(ctx, "stablehlo.and", dtypes.bool_)],
                   result_type=hlo.tensor_type(shape[:-1], dtypes.bool_))


abstract_eval_rules[gather_p] = _gather_abstract_eval
lowering_rules[gather_p] = _gather_lowering


def _gather_jvp(g, ans, operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                indices_are_sorted, mode, fill_value):
    # gather the tangent the same way; filled (out-of-bounds) windows have zero tangent
    return gather(g, indices, dimension_numbers, slice_sizes, unique_indices=unique_indices,
                  indices_are_sorted=indices_are_sorted, mode=mode, fill_value=0)


def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                      indices_are_sorted, mode, fill_value):
    from .scatter import _scatter_dnums, scatter_add     # (scatter.py builds on this module)
    if type(ct) is ad.Zero:
        return [ad.Zero(operand.aval), None]
    # every gathered element sends its cotangent back where it came from, summing repeats
    zeros = ad.zeros(ShapedArray(operand.aval.shape, ad.aval_of(ct).dtype))
    return [scatter_add(zeros, indices, ct, _scatter_dnums(dimension_numbers),
                        indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                        mode=mode), None]


def _gather_batching(vals, dims, *, dimension_numbers, slice_sizes, unique_indices,
                     indices_are_sorted, mode, fill_value):
    (operand, indices), (operand_dim, indices_dim) = vals, dims
    dn = dimension_numbers
    up = lambda ds: tuple(d + 1 for d in ds)
    if indices_dim is bu.not_mapped:
        # every example gathers the same windows: widen them by the whole batch dim (front)
        operand = bu.moveaxis(operand, operand_dim, 0)
        dn = GatherDimensionNumbers(
            offset_dims=(0,) + up(dn.offset_dims), collapsed_slice_dims=up(dn.collapsed_slice_dims),
            start_index_map=up(dn.start_index_map),
            operand_batching_dims=up(dn.operand_batching_dims),
            start_indices_batching_dims=dn.start_indices_batching_dims)
        slice_sizes = bu.shape(operand)[:1] + tuple(slice_sizes)
        return gather(operand, indices, dn, slice_sizes, unique_indices=unique_indices,
                      indices_are_sorted=indices_are_sorted, mode=mode,
                      fill_value=fill_value), 0
    indices = bu.moveaxis(indices, indices_dim, 0)
    if operand_dim is bu.not_mapped:
        # more index vectors into one operand: a new leading batch dim of the output (batching
        # may break sortedness and uniqueness)
        dn = dn._replace(offset_dims=up(dn.offset_dims),
                         start_indices_batching_dims=up(dn.start_indices_batching_dims))
        return gather(operand, indices, dn, slice_sizes, unique_indices=False,
                      indices_are_sorted=False, mode=mode, fill_value=fill_value), 0
    # both batched: example b's indices read example b's operand (paired batching dims)
    operand = bu.moveaxis(operand, operand_dim, 0)
    dn = GatherDimensionNumbers(
        offset_dims=up(dn.offset_dims), collapsed_slice_dims=up(dn.collapsed_slice_dims),
        start_index_map=up(dn.start_index_map),
        operand_batching_dims=(0,) + up(dn.operand_batching_dims),
        start_indices_batching_dims=(0,) + up(dn.start_indices_batching_dims))
    slice_sizes = (0 if bu.shape(operand)[0] == 0 else 1,) + tuple(slice_sizes)
    return gather(operand, indices, dn, slice_sizes, unique_indices=unique_indices,
                  indices_are_sorted=indices_are_sorted, mode=mode, fill_value=fill_value), 0


ad.defjvp(gather_p, _gather_jvp, None)
transpose_rules[gather_p] = _gather_transpose
batching_rules[gather_p] = _gather_batching


# ------------------------------------------------------------------ lax function
def _default_fill_value(dtype):
    """JAX's fill for out-of-bounds gathers: NaN, the most negative int, the largest
    unsigned int, True."""
    if dtypes.is_inexact(dtype):
        return np.nan
    if dtypes.is_signed(dtype):
        return int(dtypes.iinfo(dtype).min)
    if dtypes.is_unsigned(dtype):
        return int(dtypes.iinfo(dtype).max)
    return True


def gather(operand, start_indices, dimension_numbers: GatherDimensionNumbers, slice_sizes, *,
           unique_indices: bool = False, indices_are_sorted: bool = False, mode=None,
           fill_value=None):
    """XLA's Gather: slices of `slice_sizes` from `operand` starting at each index vector of
    `start_indices` (last dimension). `mode` defaults to PROMISE_IN_BOUNDS, as in JAX;
    'fill' gives `fill_value` (NaN, int min, uint max or True by default) out of bounds.

        >>> x = jnp.array([10, 11, 12])
        >>> dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
        ...                                 start_index_map=(0,))
        >>> lax.gather(x, jnp.array([[2], [0]]), dn, (1,))
        Array([12, 10], dtype=int32)
    """
    mode = GatherScatterMode.from_any(GatherScatterMode.PROMISE_IN_BOUNDS if mode is None
                                      else mode)
    if mode == GatherScatterMode.FILL_OR_DROP:
        if fill_value is None:
            fill_value = _default_fill_value(dtypes.dtype(operand))
    else:
        fill_value = None
    return gather_p.bind(operand, start_indices,
                         dimension_numbers=_dims_tuple(dimension_numbers, GatherDimensionNumbers),
                         slice_sizes=canonicalize_shape(slice_sizes),
                         unique_indices=bool(unique_indices),
                         indices_are_sorted=bool(indices_are_sorted), mode=mode,
                         fill_value=fill_value)


__all__ = ["gather_p", "GatherDimensionNumbers", "ScatterDimensionNumbers", "GatherScatterMode",
           "gather"]
