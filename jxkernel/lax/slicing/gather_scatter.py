"""gather and the scatter family (scatter, scatter-add, -sub, -mul, -min, -max), each the
other's transpose, each primitive with all its rules, and the lax functions built on them
(gather, scatter, scatter_add, ..., scatter_apply, index_take).

    >>> dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
    ...                                  scatter_dims_to_operand_dims=(0,))
    >>> lax.scatter_add(jnp.zeros(3), jnp.array([[2], [2]]), jnp.array([1., 2.]), dn)
    Array([0., 0., 3.], dtype=float32)
"""
from __future__ import annotations

import builtins
import functools
import math

import numpy as np

from ...core import dtypes, sharding_types
from ...core.mesh import get_abstract_mesh
from ...core.avals import ShapedArray
from ...core.symbolic import is_symbolic
from ...core.ir import ClosedJaxpr
from ...core.numpy_eval import eval_jaxpr_numpy
from ...core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules,
                               batching_rules, jvp_rules,
                               lowering_rules, numpy_rules, sharding_rules, transpose_rules)
from ...core.staging import trace_to_jaxpr
from ...core.traceback_util import api_boundary
from ...core.interpreter_primitives import typed_constant
from ...xla import stablehlo as hlo
from ...transforms import ad_util as ad
from ...transforms import batch_util as bu
from .. import _lowering as hl
from ..elementwise import (add, div, eq, extreme_zeros, max, min, mul, neg, select,
                          signed_zeros, sub)
from ..shapes import (_ndim, _shape, broadcast, broadcast_in_dim, canonicalize_shape, concatenate,
                      expand_dims, iota, reshape)
from .dimension_numbers import (GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers,
                                _check_batching_dims, _check_index_map,
                                _check_operand_batching_dims, _check_indices_dtype,
                                _dims_attr, _dims_in_range, _dims_tuple, _disjoint_dims, _is_sorted,
                                _no_duplicate_dims)


# ------------------------------------------------------------------ gather
gather_p = Primitive("gather")


def _gather_abstract_eval(operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                          indices_are_sorted, mode, fill_value):
    _check_indices_dtype(indices)
    dn = dimension_numbers
    if indices.ndim < 1:
        raise TypeError(f"Gather indices must have at least one dimension (the index vector, "
                        f"last); got indices of shape {indices.shape}.")
    _is_sorted(dn.offset_dims, "gather", "offset_dims")
    _no_duplicate_dims(dn.offset_dims, "gather", "offset_dims")
    out_rank = len(dn.offset_dims) + indices.ndim - 1
    for i, d in enumerate(dn.offset_dims):
        if not 0 <= d < out_rank:
            raise TypeError(f"Offset dimension {i} in gather op is out of bounds; got {d}, but "
                            f"should have been in [0, {out_rank})")
    _check_index_map("gather", "start_index_map", dn.start_index_map, operand, indices)
    _is_sorted(dn.collapsed_slice_dims, "gather", "collapsed_slice_dims")
    _dims_in_range(dn.collapsed_slice_dims, operand.ndim, "gather", "collapsed_slice_dims")
    _no_duplicate_dims(dn.collapsed_slice_dims, "gather", "collapsed_slice_dims")
    _check_operand_batching_dims("gather", operand, dn.operand_batching_dims)
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
    return gather_fill(ctx, result, indices, dn, slice_sizes, fill_value)


def gather_fill(ctx, result, indices, dn, slice_sizes, fill_value):
    """FILL_OR_DROP: a window is kept iff 0 <= start <= dim - slice_size for every entry
    of its index vector; the others become fill_value (JAX's _gather_fill)."""
    out, idx_aval, operand_shape = ctx.avals_out[0], ctx.avals_in[1], ctx.avals_in[0].shape
    upper = [operand_shape[d] - slice_sizes[d] for d in dn.start_index_map]
    mask = _in_bounds(ctx, indices, idx_aval, upper)
    batch_dims = [d for d in range(out.ndim) if d not in dn.offset_dims]
    mask = hl.broadcast_in_dim(ctx, mask, out.shape, dtypes.bool_, batch_dims)
    fill = hl.splat(ctx, fill_value, out.dtype, out.shape)
    return hl.select(ctx, mask, result, fill, out)


def _upper_bounds(ctx, upper, dtype, shape):
    """dtype[shape]: the bounds `upper` (one per entry of an index vector, the last axis),
    each no more than the dtype's largest value (a bound past it is no bound). Symbolic ones
    are computed in the module (jax.export), as JAX's dimension_as_value."""
    top = dtypes.iinfo(dtype).max
    if any(map(is_symbolic, upper)):
        values = ctx.module_ctx.symbolic.shape(ctx.block, upper)            # tensor<Nxi32>
        n = len(upper)
        if top < dtypes.iinfo(np.int32).max:
            values = ctx.op1("stablehlo.minimum", [values, ctx.constant(
                np.full(n, top, np.int32))], result_type=f"tensor<{n}xi32>")
        if np.dtype(dtype) != np.int32:
            values = ctx.op1("stablehlo.convert", [values],
                             result_type=hlo.tensor_type((n,), dtype))
    else:
        values = ctx.constant(np.asarray([builtins.min(u, top) for u in upper], dtype))
    return hl.broadcast_in_dim(ctx, values, shape, dtype, [len(shape) - 1])


def _in_bounds(ctx, indices, idx_aval, upper):
    """bool[indices.shape[:-1]]: whether each index vector lies within [0, upper]."""
    dtype, shape = idx_aval.dtype, idx_aval.shape
    upper = _upper_bounds(ctx, upper, dtype, shape)
    ok = hl.compare(ctx, indices, upper, "LE", idx_aval)
    bool_type = hlo.tensor_type(shape, dtypes.bool_)
    if dtypes.is_signed(dtype):
        nonneg = hl.compare(ctx, indices, hl.splat(ctx, 0, dtype, shape), "GE", idx_aval)
        ok = ctx.op1("stablehlo.and", [ok, nonneg], result_type=bool_type)
    return ctx.op1("stablehlo.reduce", [ok, ctx.constant(np.array(True))],
                   {"dimensions": hlo.i64_array([len(shape) - 1])},
                   regions=[hl.binary_region(ctx, "stablehlo.and", dtypes.bool_)],
                   result_type=hlo.tensor_type(shape[:-1], dtypes.bool_))




def _window_indices(operand_shape, indices, sizes, index_map, operand_batching,
                    indices_batching):
    """What XLA's gather and scatter read: per operand dimension, an index array of shape
    indices.shape[:-1] + sizes (broadcastable) addressing each window's elements, its start
    clamped so the window fits; and bool[indices.shape[:-1]], whether each window was wholly
    in bounds before clamping."""
    batch, n = indices.shape[:-1], len(operand_shape)
    starts = indices.astype(np.int64)
    in_bounds = np.ones(batch, np.bool_)
    index = []
    for d in range(n):
        if d in index_map:
            start = starts[..., index_map.index(d)]
            top = operand_shape[d] - sizes[d]
            in_bounds &= (start >= 0) & (start <= top)
            start = np.clip(start, 0, builtins.max(top, 0))
        elif d in operand_batching:               # paired with a batch dimension of indices
            axis = indices_batching[operand_batching.index(d)]
            start = np.arange(batch[axis]).reshape([-1 if a == axis else 1
                                                    for a in range(len(batch))])
        else:
            start = np.zeros((1,) * len(batch), np.int64)
        window = np.arange(sizes[d]).reshape([-1 if a == d else 1 for a in range(n)])
        index.append(start.reshape(start.shape + (1,) * n) + window)
    return tuple(np.broadcast_to(i, batch + tuple(sizes)) for i in index), in_bounds


def _gather_numpy(operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                  indices_are_sorted, mode, fill_value):
    dn, batch = dimension_numbers, indices.shape[:-1]
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    kept = tuple(s for d, s in enumerate(slice_sizes) if d not in dropped)
    if 0 in batch or 0 in slice_sizes:
        windows = np.zeros(batch + kept, operand.dtype)
    else:
        index, in_bounds = _window_indices(operand.shape, indices, slice_sizes,
                                           dn.start_index_map, dn.operand_batching_dims,
                                           dn.start_indices_batching_dims)
        # a 0-d operand has no dimension to index: its one window, for every index vector
        windows = np.broadcast_to(operand[index], batch + tuple(slice_sizes))
        if mode == GatherScatterMode.FILL_OR_DROP:
            fill = _default_fill_value(operand.dtype) if fill_value is None else fill_value
            windows = np.where(in_bounds.reshape(batch + (1,) * operand.ndim), windows,
                               np.asarray(fill).astype(operand.dtype))
        windows = windows.reshape(batch + kept)
    # batch dimensions come first, window dimensions after: the window's go to offset_dims
    rank = len(batch) + len(kept)
    batch_axes, window_axes = iter(range(len(batch))), iter(range(len(batch), rank))
    return windows.transpose([next(window_axes) if i in dn.offset_dims else next(batch_axes)
                              for i in range(rank)])


abstract_eval_rules[gather_p] = _gather_abstract_eval
sharding_rules[gather_p] = sharding_types.gather_rule
lowering_rules[gather_p] = _gather_lowering
numpy_rules[gather_p] = _gather_numpy


def _gather_jvp(g, ans, operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                indices_are_sorted, mode, fill_value):
    # gather the tangent the same way; filled (out-of-bounds) windows have zero tangent
    return gather(g, indices, dimension_numbers, slice_sizes, unique_indices=unique_indices,
                  indices_are_sorted=indices_are_sorted, mode=mode, fill_value=0)


def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                      indices_are_sorted, mode, fill_value):
    if type(ct) is ad.Zero:
        return [ad.Zero(operand.aval), None]
    # every gathered element sends its cotangent back where it came from, summing repeats
    # (into zeros typed as the operand, as JAX's lax.full(..., sharding=operand's): split
    # as it, varying as it)
    zeros = ad.zeros(operand.aval.update(dtype=ad.aval_of(ct).dtype, weak_type=False))
    return [scatter_add(zeros, indices, ct, _scatter_dnums(dimension_numbers),
                        indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                        mode=mode), None]


def _gather_batching(vals, dims, *, dimension_numbers, slice_sizes, unique_indices,
                     indices_are_sorted, mode, fill_value):
    (operand, indices), (operand_dim, indices_dim) = vals, dims
    dn = dimension_numbers
    # (np.add, as JAX's _gather_batching_rule: the shifted dims are NumPy ints, which
    # `eqn.params` and the printed jaxpr show, `offset_dims=(np.int64(1),)`)
    up = lambda ds: tuple(np.add(1, ds))
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
        dn = dn._replace(offset_dims=tuple(1 + d for d in dn.offset_dims),
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


# ------------------------------------------------------------------ scatter family
def _scatter_abstract_eval(operand, indices, updates, *, update_jaxpr, update_consts,
                           dimension_numbers, indices_are_sorted, unique_indices, mode):
    _check_indices_dtype(indices)
    if operand.dtype != updates.dtype:
        raise TypeError(f"lax.scatter requires arguments to have the same dtypes, got "
                        f"{operand.dtype}, {updates.dtype}.")
    dn = dimension_numbers
    if indices.ndim < 1:
        raise TypeError(f"Scatter indices must have at least one dimension (the index vector, "
                        f"last); got indices of shape {indices.shape}.")
    expected_rank = indices.ndim - 1 + len(dn.update_window_dims)
    if updates.ndim != expected_rank:
        raise TypeError(f"Updates tensor must be of rank {expected_rank}; got {updates.ndim}.")
    _is_sorted(dn.update_window_dims, "scatter", "update_window_dims")
    _no_duplicate_dims(dn.update_window_dims, "scatter", "update_window_dims")
    _dims_in_range(dn.update_window_dims, updates.ndim, "scatter", "update_window_dims")
    _is_sorted(dn.inserted_window_dims, "scatter", "inserted_window_dims")
    _no_duplicate_dims(dn.inserted_window_dims, "scatter", "inserted_window_dims")
    _dims_in_range(dn.inserted_window_dims, operand.ndim, "scatter", "inserted_window_dims")
    _check_operand_batching_dims("scatter", operand, dn.operand_batching_dims)
    _disjoint_dims(dn.inserted_window_dims, dn.operand_batching_dims, "scatter",
                   "inserted_window_dims", "operand_batching_dims")
    _disjoint_dims(dn.scatter_dims_to_operand_dims, dn.operand_batching_dims, "scatter",
                   "scatter_dims_to_operand_dims", "operand_batching_dims")
    operand_batch = _check_batching_dims("scatter", operand, indices, dn.operand_batching_dims,
                                         dn.scatter_indices_batching_dims,
                                         "scatter_indices_batching_dims")
    # updates' scatter dimensions are the indices' batch dims, in order, window dims between
    scatter_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
    updates_batch = tuple(updates.shape[scatter_dims[d]] for d in dn.scatter_indices_batching_dims)
    if operand_batch != updates_batch:
        raise TypeError(f"Scatter op requires operand batching dimensions and updates batching "
                        f"dimensions to have the same shape, got {operand_batch} and "
                        f"{updates_batch}.")
    window = len(dn.update_window_dims) + len(dn.inserted_window_dims) + \
        len(dn.operand_batching_dims)
    if operand.ndim != window:
        raise TypeError(f"Scatter op has window of size {window}; doesn't match operand of rank "
                        f"{operand.ndim}.")
    _check_index_map("scatter", "scatter_dims_to_operand_dims",
                     dn.scatter_dims_to_operand_dims, operand, indices)
    dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    max_window = [s for i, s in enumerate(operand.shape) if i not in dropped]
    for bound, d in zip(max_window, dn.update_window_dims):
        if updates.shape[d] > bound:
            raise TypeError(f"Bounds of the window dimensions of updates must not exceed the "
                            f"bounds of the corresponding dimensions of operand. For dimension "
                            f"{d}, updates bound is {updates.shape[d]}, operand bound is {bound}.")
    for d, bound in zip(scatter_dims, indices.shape[:-1]):
        if updates.shape[d] != bound:
            raise TypeError(f"Bounds of the scatter dimensions of updates must be the same as "
                            f"the bounds of the corresponding dimensions of scatter indices. For "
                            f"scatter dimension {d}, updates bound is {updates.shape[d]}, "
                            f"indices bound is {bound}.")
    return ShapedArray(operand.shape, operand.dtype, operand.weak_type)


def _scatter_lowering(ctx, operand, indices, updates, *, update_jaxpr, update_consts,
                      dimension_numbers, indices_are_sorted, unique_indices, mode):
    dn = dimension_numbers
    op_aval, idx_aval, upd_aval = ctx.avals_in
    if mode == GatherScatterMode.CLIP:
        indices = _clamp_scatter_indices(ctx, indices, op_aval, idx_aval, upd_aval, dn)
    # FILL_OR_DROP and PROMISE_IN_BOUNDS: XLA skips windows that are not wholly in bounds
    scalar = hlo.tensor_type((), op_aval.dtype)
    region = ctx.new_block([scalar, scalar])
    if update_jaxpr is None:                      # plain scatter: the update wins
        region.ret([region.args[1]])
    else:
        region.ret(ctx.lower_jaxpr(ClosedJaxpr(update_jaxpr, update_consts), region.args,
                                   block=region))
    return _emit_scatter(ctx, operand, indices, updates, region, dn, indices_are_sorted,
                         unique_indices)


def _emit_scatter(ctx, operand, indices, updates, region, dn, indices_are_sorted,
                  unique_indices, result_type=None):
    dims = _dims_attr("scatter", [
        ("update_window_dims", dn.update_window_dims),
        ("inserted_window_dims", dn.inserted_window_dims),
        ("input_batching_dims", dn.operand_batching_dims),
        ("scatter_indices_batching_dims", dn.scatter_indices_batching_dims),
        ("scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims)],
        ctx.avals_in[1].ndim - 1)
    return ctx.op1("stablehlo.scatter", [operand, indices, updates], {
        "scatter_dimension_numbers": dims,
        "indices_are_sorted": hlo.bool_attr(indices_are_sorted),
        "unique_indices": hlo.bool_attr(unique_indices)}, regions=[region],
        result_type=result_type)


def _scatter_addsub_lowering(hlo_op, ctx, operand, indices, updates, **params):
    """On the GPU a complex128 scatter-add (or -sub) is two float64 scatters, of the real and
    of the imaginary parts, as JAX 0.10.2 lowers it there (it says not why; XLA's GPU scatter
    adds with atomics, and a 16-byte one is the likely gap). Elsewhere, and for other dtypes,
    the one scatter."""
    op_aval, idx_aval, upd_aval = ctx.avals_in
    if ctx.platform not in ("gpu", "rocm") or np.dtype(op_aval.dtype) != np.complex128:
        return _scatter_lowering(ctx, operand, indices, updates, **params)
    dn = params["dimension_numbers"]
    if params["mode"] == GatherScatterMode.CLIP:
        indices = _clamp_scatter_indices(ctx, indices, op_aval, idx_aval, upd_aval, dn)

    def part(name, value, aval):
        return ctx.op1(name, [value], result_type=hlo.tensor_type(aval.shape, np.float64))

    def scatter(name):
        return _emit_scatter(ctx, part(name, operand, op_aval), indices,
                             part(name, updates, upd_aval),
                             hl.binary_region(ctx, hlo_op, np.float64), dn,
                             params["indices_are_sorted"], params["unique_indices"],
                             result_type=hlo.tensor_type(op_aval.shape, np.float64))
    return ctx.op1("stablehlo.complex", [scatter("stablehlo.real"), scatter("stablehlo.imag")])


def _clamp_scatter_indices(ctx, indices, op_aval, idx_aval, upd_aval, dn):
    """Indices clamped so every update window fits in the operand (JAX's mode=CLIP)."""
    window_sizes = iter(upd_aval.shape[d] for d in dn.update_window_dims)
    dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window = [1 if i in dropped else next(window_sizes) for i in range(op_aval.ndim)]
    dtype, shape = idx_aval.dtype, idx_aval.shape
    upper = _upper_bounds(ctx, [op_aval.shape[d] - window[d]
                                for d in dn.scatter_dims_to_operand_dims], dtype, shape)
    return ctx.op1("stablehlo.clamp", [ctx.constant(np.zeros((), dtype)), indices, upper],
                   result_type=hl.aval_type(idx_aval))


@functools.lru_cache(maxsize=None)
def _reduction_jaxpr(combine, dtype, context):
    """The (jaxpr, consts) of `combine(a, b)` on scalars of `dtype`: a scatter's update
    computation. Cached, so equal scatters have equal (hashable) params; per `context` (the
    abstract mesh in effect, which types the scalars under set_mesh: one traced under a mesh
    of two devices would name that mesh in a program over four)."""
    closed = trace_to_jaxpr(lambda a, b: [combine(a, b)], [ShapedArray((), dtype)] * 2)
    return closed.jaxpr, tuple(closed.consts)


scatter_p = Primitive("scatter")
scatter_add_p = Primitive("scatter-add")
scatter_sub_p = Primitive("scatter-sub")
scatter_mul_p = Primitive("scatter-mul")
scatter_min_p = Primitive("scatter-min")
scatter_max_p = Primitive("scatter-max")
for _prim in (scatter_p, scatter_add_p, scatter_sub_p, scatter_mul_p, scatter_min_p,
              scatter_max_p):
    abstract_eval_rules[_prim] = _scatter_abstract_eval
    sharding_rules[_prim] = sharding_types.scatter_rule
    lowering_rules[_prim] = _scatter_lowering
del _prim
# functions of this module, not partials: export's symbolic lowering finds the scatters'
# rules by their module (export/_symbolic_lowering.py)
lowering_rules[scatter_add_p] = lambda ctx, *args, **params: _scatter_addsub_lowering(
    "stablehlo.add", ctx, *args, **params)
lowering_rules[scatter_sub_p] = lambda ctx, *args, **params: _scatter_addsub_lowering(
    "stablehlo.subtract", ctx, *args, **params)




def _apply_at(out, index, values, jaxpr, consts):
    """out[index] = jaxpr(out[index], values) in place, one value at a time in order, as XLA
    combines repeated indices: the k-th value of every position in round k."""
    flat = np.ravel_multi_index(index, out.shape).ravel()
    values = np.broadcast_to(values, index[0].shape).ravel()
    order = np.argsort(flat, kind="stable")
    first = np.r_[True, flat[order][1:] != flat[order][:-1]]
    starts = np.maximum.accumulate(np.where(first, np.arange(flat.size), 0))
    rank = np.empty(flat.size, np.intp)
    rank[order] = np.arange(flat.size) - starts
    cells = out.reshape(-1)                                 # out is contiguous: a view
    for r in range(rank.max() + 1 if flat.size else 0):
        now = rank == r
        cells[flat[now]] = eval_jaxpr_numpy(jaxpr, consts, cells[flat[now]], values[now])[0]
    return out


def _extreme_at(combine, target, index, updates) -> None:
    """`combine.at` for scatter_max/min of floats, with XLA's zeros: a cell's max is 0.0 where
    it or an update to it is 0.0, its min -0.0 where one is -0.0 (np.maximum keeps the first)."""
    kind = "max" if combine is np.maximum else "min"
    found = extreme_zeros(target, kind)
    combine.at(target, index, updates)
    np.logical_or.at(found, index, extreme_zeros(updates, kind))
    target[...] = signed_zeros(target, found, kind)


def _scatter_numpy(combine):
    """The NumPy rule of a scatter combining with the ufunc `combine` (None: the update wins,
    of repeated indices the last; or the update computation, as scatter_apply binds it). CLIP
    clamps windows into the operand; the other modes skip a window not wholly in bounds, as
    XLA does."""
    def rule(operand, indices, updates, *, update_jaxpr, update_consts, dimension_numbers,
             indices_are_sorted, unique_indices, mode):
        dn, batch = dimension_numbers, indices.shape[:-1]
        dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
        sizes = iter(updates.shape[d] for d in dn.update_window_dims)
        window = tuple(1 if d in dropped else next(sizes) for d in range(operand.ndim))
        scatter_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
        updates = updates.transpose(scatter_dims + list(dn.update_window_dims))
        updates = updates.reshape(batch + window)
        out = operand.copy()
        if 0 in batch or 0 in window:
            return out
        index, in_bounds = _window_indices(operand.shape, indices, window,
                                           dn.scatter_dims_to_operand_dims,
                                           dn.operand_batching_dims,
                                           dn.scatter_indices_batching_dims)
        # a 0-d operand has no dimension to index: every update lands on its one element, as
        # position 0 of a 1-element view (a mask below then keeps index and updates in step)
        target = out.reshape(1) if operand.ndim == 0 else out
        if operand.ndim == 0:
            index = (np.zeros(batch, np.intp),)
        if mode != GatherScatterMode.CLIP:
            index, updates = tuple(i[in_bounds] for i in index), updates[in_bounds]
        if combine in (np.maximum, np.minimum) and dtypes.is_float(out.dtype):
            _extreme_at(combine, target, index, updates)
        elif combine is not None:
            combine.at(target, index, updates)
        elif update_jaxpr is None:
            target[index] = updates
        else:
            _apply_at(target, index, updates, update_jaxpr, update_consts)
        return out
    return rule


for _prim, _combine in ((scatter_p, None), (scatter_add_p, np.add), (scatter_sub_p, np.subtract),
                        (scatter_mul_p, np.multiply), (scatter_min_p, np.minimum),
                        (scatter_max_p, np.maximum)):
    numpy_rules[_prim] = _scatter_numpy(_combine)
del _prim, _combine


# A scatter and a gather with matching dimension numbers read and write the same windows,
# so each is the other's transpose; these convert one's dimension numbers into the other's.
def _scatter_dnums(dn: GatherDimensionNumbers) -> ScatterDimensionNumbers:
    return ScatterDimensionNumbers(
        update_window_dims=dn.offset_dims, inserted_window_dims=dn.collapsed_slice_dims,
        scatter_dims_to_operand_dims=dn.start_index_map,
        operand_batching_dims=dn.operand_batching_dims,
        scatter_indices_batching_dims=dn.start_indices_batching_dims)


def _gather_of_scatter(dn: ScatterDimensionNumbers, operand_ndim: int, updates_shape):
    """(dimension numbers, slice sizes) of the gather that reads back the windows a scatter
    with `dn` writes."""
    gather_dn = GatherDimensionNumbers(
        offset_dims=dn.update_window_dims, collapsed_slice_dims=dn.inserted_window_dims,
        start_index_map=dn.scatter_dims_to_operand_dims,
        operand_batching_dims=dn.operand_batching_dims,
        start_indices_batching_dims=dn.scatter_indices_batching_dims)
    window = iter(updates_shape[d] for d in dn.update_window_dims)
    dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    return gather_dn, tuple(1 if i in dropped else next(window) for i in range(operand_ndim))


def _gather_back(x, indices, updates_shape, dn, mode, fill_value=0):
    """The windows of `x` a scatter with `dn` writes, shaped like its updates."""
    gather_dn, sizes = _gather_of_scatter(dn, len(bu.shape(x)), updates_shape)
    return gather(x, indices, gather_dn, sizes, mode=mode, fill_value=fill_value)


def _zeros_like(x, dtype=None):
    """Zeros of `x`'s shape, split as `x`'s type says (the rules' selects mix them with x)."""
    aval = ad.aval_of(x)
    return ad.zeros(ShapedArray(aval.shape, dtype or aval.dtype, sharding=aval.split))


def _full_like(x, value, dtype=None):
    aval = ad.aval_of(x)
    return broadcast_in_dim(np.array(value, dtype or aval.dtype), aval.shape, (),
                            out_sharding=sharding_types.abstract_sharding(aval))


def _scatter_addsub_jvp(prim, primals, tangents, **params):
    operand, indices, updates = primals
    t_operand, _, t_updates = tangents          # integer indices: no tangent
    ans = prim.bind(operand, indices, updates, **params)
    if type(t_operand) is ad.Zero and type(t_updates) is ad.Zero:
        return ans, ad.Zero(ad.aval_of(ans))
    return ans, prim.bind(ad.instantiate(t_operand), indices, ad.instantiate(t_updates), **params)


def _scatter_addsub_transpose(prim, ct, operand, indices, updates, *, update_jaxpr,
                              update_consts, dimension_numbers, indices_are_sorted,
                              unique_indices, mode):
    if type(ct) is ad.Zero:
        return [ad.Zero(operand.aval) if ad.is_undefined(operand) else None, None,
                ad.Zero(updates.aval) if ad.is_undefined(updates) else None]
    t_updates = None
    if ad.is_undefined(updates):      # each update reads its window of ct back
        t_updates = _gather_back(ct, indices, updates.aval.shape, dimension_numbers, mode)
        if prim is scatter_sub_p:
            t_updates = neg(t_updates)
    return [ct if ad.is_undefined(operand) else None, None, t_updates]


def _scatter_mul_jvp_updates(g, ans, x, i, y, *, update_jaxpr, update_consts, dimension_numbers,
                             indices_are_sorted, unique_indices, mode):
    if not unique_indices:
        raise NotImplementedError(
            "scatter_mul gradients are only implemented if `unique_indices=True`")
    return mul(x, scatter_add(_zeros_like(x), i, g, dimension_numbers,
                              indices_are_sorted=indices_are_sorted,
                              unique_indices=unique_indices, mode=mode))


def _scatter_mul_transpose(ct, operand, indices, updates, *, update_jaxpr, update_consts,
                           dimension_numbers, indices_are_sorted, unique_indices, mode):
    if type(ct) is ad.Zero:
        return [ad.Zero(operand.aval) if ad.is_undefined(operand) else None, None,
                ad.Zero(updates.aval) if ad.is_undefined(updates) else None]
    t_operand = t_updates = None
    if ad.is_undefined(operand):      # linear in the operand for fixed updates
        t_operand = scatter_mul(ct, indices, updates, dimension_numbers,
                                indices_are_sorted=indices_are_sorted,
                                unique_indices=unique_indices, mode=mode)
    if ad.is_undefined(updates):
        if not unique_indices:
            raise NotImplementedError(
                "scatter_mul gradients are only implemented if `unique_indices=True`")
        t_updates = _gather_back(mul(ct, operand), indices, updates.aval.shape,
                                 dimension_numbers, mode)
    return [t_operand, None, t_updates]


def _scatter_extremal_jvp(prim, primals, tangents, *, update_jaxpr, update_consts,
                          dimension_numbers, indices_are_sorted, unique_indices, mode):
    """JAX's rule for scatter_min/max: an output element's tangent is the average of the
    tangents of the values that tie for its extremum (updates and, if it kept its value, the
    operand)."""
    operand, indices, updates = primals
    t_operand, _, t_updates = tangents
    dn = dimension_numbers
    ans = prim.bind(operand, indices, updates, update_jaxpr=update_jaxpr,
                    update_consts=update_consts, dimension_numbers=dn,
                    indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                    mode=mode)
    if type(t_operand) is ad.Zero and type(t_updates) is ad.Zero:
        return ans, ad.Zero(ad.aval_of(ans))
    t_operand, t_updates = ad.instantiate(t_operand), ad.instantiate(t_updates)
    shape = bu.shape(updates)
    back = lambda x: _gather_back(x, indices, shape, dn, GatherScatterMode.PROMISE_IN_BOUNDS)
    initial, target = back(operand), back(ans)
    successful_updates = eq(updates, target)
    retained_values = eq(initial, target)
    zeros, ones = _zeros_like(updates), _full_like(updates, 1)
    num_updates = back(scatter_add(_zeros_like(operand), indices,
                                   select(successful_updates, ones, zeros), dn))
    num_refs = back(scatter_add(_zeros_like(operand), indices, ones, dn))
    one = np.array(1, ad.aval_of(updates).dtype)
    updates_normalizer = select(retained_values, div(one, add(num_updates, one)),
                                div(one, num_updates))
    updates_coef = select(successful_updates, updates_normalizer, zeros)
    operand_normalizer = select(retained_values, div(one, add(num_updates, one)),
                                _zeros_like(num_updates))
    operand_coef = div(add(neg(one), operand_normalizer), num_refs)
    tangent_updates = add(mul(back(t_operand), operand_coef), mul(t_updates, updates_coef))
    return ans, scatter_add(t_operand, indices, tangent_updates, dn,
                            indices_are_sorted=indices_are_sorted,
                            unique_indices=unique_indices, mode=mode)


def _scatter_jvp(primals, tangents, *, update_jaxpr, update_consts, dimension_numbers,
                 indices_are_sorted, unique_indices, mode):
    if update_jaxpr is not None:
        # scatter_apply: the rules below scatter tangents as updates, ignoring its function
        raise NotImplementedError("scatter_apply JVP not implemented")
    operand, indices, updates = primals
    t_operand, _, t_updates = tangents
    dn = dimension_numbers
    params = dict(update_jaxpr=update_jaxpr, update_consts=update_consts, dimension_numbers=dn,
                  indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                  mode=mode)
    if type(t_operand) is ad.Zero and type(t_updates) is ad.Zero:
        ans = scatter_p.bind(operand, indices, updates, **params)
        return ans, ad.Zero(ad.aval_of(ans))
    t_operand, t_updates = ad.instantiate(t_operand), ad.instantiate(t_updates)
    if unique_indices:                # no two updates overlap: scatter the tangents alike
        return (scatter_p.bind(operand, indices, updates, **params),
                scatter_p.bind(t_operand, indices, t_updates, **params))
    # Overlapping updates: which one wins is unspecified, so (as JAX does) scatter a
    # distinct positive id per update, gather the ids back to see which update won each
    # element, mask the losers (and the overwritten operand elements) to zero, and
    # scatter-add. The tangent then flows only through select_n and scatter-add, which
    # have transposes.
    ids_shape = list(bu.shape(updates))
    for d in dn.update_window_dims:
        ids_shape[d] = 1
    num_ids = math.prod(ids_shape)
    # (JAX's int_dtype_for_dim: a symbolic count gets the x64 mode's default unsigned int)
    id_dtype = dtypes.default_uint_dtype() if is_symbolic(num_ids) else \
        np.dtype(np.uint64 if num_ids > dtypes.iinfo(np.uint32).max else np.uint32)
    update_ids = add(reshape(iota(id_dtype, num_ids), ids_shape), _full_like(updates, 1, id_dtype))
    scattered_ids = scatter(_zeros_like(operand, id_dtype), indices, update_ids, dn,
                            indices_are_sorted=indices_are_sorted,
                            unique_indices=unique_indices, mode=mode)
    gathered_ids = _gather_back(scattered_ids, indices, bu.shape(updates), dn,
                                GatherScatterMode.PROMISE_IN_BOUNDS, None)
    # (each mask recomputed where it is used, as JAX writes it, so the jaxprs agree)
    kept = lambda x: select(eq(scattered_ids, _zeros_like(scattered_ids)), x, _zeros_like(x))
    won = lambda x: select(eq(update_ids, gathered_ids), x, _zeros_like(x))
    operand, updates, t_operand, t_updates = \
        kept(operand), won(updates), kept(t_operand), won(t_updates)
    add_params = dict(indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                      mode=mode)
    return (scatter_add(operand, indices, updates, dn, **add_params),
            scatter_add(t_operand, indices, t_updates, dn, **add_params))


def _scatter_transpose(ct, operand, indices, updates, *, update_jaxpr, update_consts,
                       dimension_numbers, indices_are_sorted, unique_indices, mode):
    if not unique_indices:
        raise NotImplementedError("scatter transpose is only implemented where "
                                  "unique_indices=True")
    if type(ct) is ad.Zero:
        return [ad.Zero(operand.aval) if ad.is_undefined(operand) else None, None,
                ad.Zero(updates.aval) if ad.is_undefined(updates) else None]
    shape = ad.aval_of(updates).shape
    t_operand = t_updates = None
    if ad.is_undefined(operand):      # overwritten elements got nothing from the operand
        t_operand = scatter(ct, indices, _zeros_like(updates, ad.aval_of(ct).dtype),
                            dimension_numbers, indices_are_sorted=indices_are_sorted,
                            unique_indices=True, mode=mode)
    if ad.is_undefined(updates):
        t_updates = _gather_back(ct, indices, shape, dimension_numbers, mode)
    return [t_operand, None, t_updates]


def _scatter_batching(prim, axis_data, vals, dims, *, update_jaxpr, update_consts,
                      dimension_numbers, indices_are_sorted, unique_indices, mode):
    (operand, indices, updates), (operand_dim, indices_dim, updates_dim) = vals, dims
    params = dict(update_jaxpr=update_jaxpr, update_consts=update_consts,
                  indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode)
    if all(d is bu.not_mapped for d in dims):
        return prim.bind(operand, indices, updates, dimension_numbers=dimension_numbers,
                         **params), bu.not_mapped
    dn = dimension_numbers
    # (np.add's np.int64s, as JAX's rule shifts them: they print as `np.int64(1)`)
    up = lambda ds: tuple(np.add(1, ds))  # noqa: E731
    # the operand gets a batch dim at the front in any case: each example scatters into its
    # own; an unbatched operand or updates broadcast split as vmap's inputs are (JAX's)
    size, ema = bu.axis_size_of(vals, dims), axis_data.explicit_mesh_axis
    operand = bu.bdim_at_front(operand, operand_dim, size, ema)
    updates = bu.bdim_at_front(updates, updates_dim, size, ema)
    if indices_dim is bu.not_mapped:  # same indices: windows widened by the batch dim
        dn = ScatterDimensionNumbers(
            update_window_dims=(0,) + up(dn.update_window_dims),
            inserted_window_dims=up(dn.inserted_window_dims),
            scatter_dims_to_operand_dims=up(dn.scatter_dims_to_operand_dims),
            operand_batching_dims=up(dn.operand_batching_dims),
            scatter_indices_batching_dims=dn.scatter_indices_batching_dims)
    else:                             # paired batch dims, as in gather's batching
        indices = bu.moveaxis(indices, indices_dim, 0)
        dn = ScatterDimensionNumbers(
            update_window_dims=up(dn.update_window_dims),
            inserted_window_dims=up(dn.inserted_window_dims),
            scatter_dims_to_operand_dims=up(dn.scatter_dims_to_operand_dims),
            operand_batching_dims=(0,) + up(dn.operand_batching_dims),
            scatter_indices_batching_dims=(0,) + up(dn.scatter_indices_batching_dims))
    return prim.bind(operand, indices, updates, dimension_numbers=dn, **params), 0


for _prim in (scatter_p, scatter_add_p, scatter_sub_p, scatter_mul_p, scatter_min_p,
              scatter_max_p):
    axis_batching_rules[_prim] = functools.partial(_scatter_batching, _prim)
del _prim
jvp_rules[scatter_p] = _scatter_jvp
transpose_rules[scatter_p] = _scatter_transpose
for _prim in (scatter_add_p, scatter_sub_p):
    jvp_rules[_prim] = functools.partial(_scatter_addsub_jvp, _prim)
    transpose_rules[_prim] = functools.partial(_scatter_addsub_transpose, _prim)
del _prim
ad.defjvp(scatter_mul_p, lambda g, ans, x, i, y, **params: scatter_mul_p.bind(g, i, y, **params),
          None, _scatter_mul_jvp_updates)
transpose_rules[scatter_mul_p] = _scatter_mul_transpose
jvp_rules[scatter_min_p] = functools.partial(_scatter_extremal_jvp, scatter_min_p)
jvp_rules[scatter_max_p] = functools.partial(_scatter_extremal_jvp, scatter_max_p)


# ------------------------------------------------------------------ lax functions
def _default_fill_value(dtype):
    """JAX's fill for out-of-bounds gathers: NaN, the most negative int, the largest
    unsigned int, True; none for typed keys (their data is not filled)."""
    if isinstance(dtype, dtypes.ExtendedDType):
        return None
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


def _scatter(prim, combine, operand, scatter_indices, updates, dimension_numbers,
             indices_are_sorted, unique_indices, mode):
    jaxpr, consts = (None, ()) if combine is None else \
        _reduction_jaxpr(combine, dtypes.dtype(operand), get_abstract_mesh())
    return prim.bind(operand, scatter_indices, updates, update_jaxpr=jaxpr, update_consts=consts,
                     dimension_numbers=_dims_tuple(dimension_numbers, ScatterDimensionNumbers),
                     indices_are_sorted=bool(indices_are_sorted),
                     unique_indices=bool(unique_indices), mode=GatherScatterMode.from_any(mode))


def scatter(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers, *,
            indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
    """XLA's Scatter where each update replaces the operand's value (duplicates: any one
    wins). Out-of-bounds updates are dropped unless mode='clip'.

        >>> dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
        ...                                  scatter_dims_to_operand_dims=(0,))
        >>> lax.scatter(jnp.zeros(3), jnp.array([[2]]), jnp.array([5.]), dn)
        Array([0., 0., 5.], dtype=float32)
    """
    return _scatter(scatter_p, None, operand, scatter_indices, updates, dimension_numbers,
                    indices_are_sorted, unique_indices, mode)


def scatter_apply(operand, scatter_indices, func, dimension_numbers: ScatterDimensionNumbers, *,
                  update_shape=(), indices_are_sorted: bool = False,
                  unique_indices: bool = False, mode=None):
    """`operand` with the unary `func` applied to each element the scatter selects (an update
    of `update_shape`, whose values are unused, picks them, as in JAX).

        >>> dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
        ...                                  scatter_dims_to_operand_dims=(0,))
        >>> lax.scatter_apply(jnp.arange(4.0), jnp.array([[1], [3]]), lax.neg, dn,
        ...                   update_shape=(2,))
        Array([ 0., -1.,  2., -3.], dtype=float32)
    """
    dtype = dtypes.dtype(operand)
    unused = broadcast(typed_constant(0, dtype), tuple(update_shape))
    return _scatter(scatter_p, lambda x, _: func(x), operand, scatter_indices, unused,
                    dimension_numbers, indices_are_sorted, unique_indices, mode)


def _combining_scatter(name, prim, combine, doc):
    """A public scatter whose updates are combined with the operand by `combine` (lax's
    add, sub, mul, min or max) and bound as `prim`."""
    def scatter_fn(operand, scatter_indices, updates, dimension_numbers, *,
                   indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
        return _scatter(prim, combine, operand, scatter_indices, updates, dimension_numbers,
                        indices_are_sorted, unique_indices, mode)
    scatter_fn.__name__ = scatter_fn.__qualname__ = name
    scatter_fn.__doc__ = doc
    return api_boundary(scatter_fn)     # JAX's scatter_* are boundaries (`x.at[i].add` too)


scatter_add = _combining_scatter("scatter_add", scatter_add_p, add,
                                 "Scatter that adds updates into the operand (duplicates "
                                 "accumulate).")
scatter_sub = _combining_scatter("scatter_sub", scatter_sub_p, sub,
                                 "Scatter that subtracts updates from the operand.")
scatter_mul = _combining_scatter("scatter_mul", scatter_mul_p, mul,
                                 "Scatter that multiplies the operand by updates.")
scatter_min = _combining_scatter("scatter_min", scatter_min_p, min,
                                 "Scatter that keeps the minimum of the operand and the updates.")
scatter_max = _combining_scatter("scatter_max", scatter_max_p, max,
                                 "Scatter that keeps the maximum of the operand and the updates.")


def index_take(src, idxs, axes):
    """The elements of `src` at the index arrays `idxs` (one per axis in `axes`, taken modulo
    that axis's size, as JAX's), with `src`'s other axes kept: one gather.

        >>> lax.index_take(jnp.arange(6).reshape(2, 3), [jnp.array([0, -1])], (1,))
        Array([[0, 3],
               [2, 5]], dtype=int32)
    """
    indices = concatenate([expand_dims(i, (1,)) for i in idxs], 1)
    sizes = np.array([_shape(src)[ax] for ax in axes])
    indices = indices % expand_dims(sizes.astype(indices.dtype), tuple(range(indices.ndim - 1)))
    slice_sizes = list(_shape(src))
    for ax in axes:
        slice_sizes[ax] = 1
    dnums = GatherDimensionNumbers(offset_dims=tuple(range(1, _ndim(src) - len(axes) + 1)),
                                   collapsed_slice_dims=tuple(axes),
                                   start_index_map=tuple(axes))
    return gather(src, indices, dimension_numbers=dnums, slice_sizes=tuple(slice_sizes))
