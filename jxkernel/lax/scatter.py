"""The scatter family: scatter, scatter-add, scatter-sub, scatter-mul, scatter-min and
scatter-max, with their rules; the lax functions, with JAX's signatures, at the bottom.

    >>> dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
    ...                                  scatter_dims_to_operand_dims=(0,))
    >>> lax.scatter_add(jnp.zeros(3), jnp.array([[2], [2]]), jnp.array([1., 2.]), dn)
    Array([0., 0., 3.], dtype=float32)

A scatter writes the windows a gather with the same dimension numbers reads, so each is
the other's transpose (gather.py holds gather and the shared dimension numbers). Out of
bounds, scatters drop windows (FILL_OR_DROP, XLA's behaviour) or clamp indices (CLIP).
Differentiation follows JAX: scatter-add/sub are linear; scatter-mul needs unique indices
for its updates' gradient; scatter-min/max average the tangents of tied values; a plain
scatter with possibly overlapping updates masks all but the winning update (by scattering
ids) and becomes scatter-adds.
"""
from __future__ import annotations

import builtins
import functools
import math

import numpy as np

from ..core import dtypes
from ..core.avals import ShapedArray
from ..core.ir import ClosedJaxpr
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                              lowering_rules, transpose_rules)
from ..core.staging import trace_to_jaxpr
from ..xla import stablehlo as hlo
from ..transforms import ad_util as ad
from ..transforms import batch_util as bu
from . import _lowering as hl
from .elementwise import add, div, eq, max, min, mul, neg, select, sub
from .gather import (GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers,
                     _check_batching_dims, _check_indices_dtype, _dims_attr, _dims_in_range,
                     _dims_tuple, _disjoint_dims, _is_sorted, _no_duplicate_dims, gather)
from .shapes import broadcast_in_dim, iota, reshape


# ------------------------------------------------------------------ abstract eval, lowering
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
    index_vector_dim = indices.ndim - 1
    expected_rank = indices.ndim - 1 + len(dn.update_window_dims)
    if updates.ndim != expected_rank:
        raise TypeError(f"Updates tensor must be of rank {expected_rank}; got {updates.ndim}.")
    _is_sorted(dn.update_window_dims, "scatter", "update_window_dims")
    _no_duplicate_dims(dn.update_window_dims, "scatter", "update_window_dims")
    _dims_in_range(dn.update_window_dims, updates.ndim, "scatter", "update_window_dims")
    _is_sorted(dn.inserted_window_dims, "scatter", "inserted_window_dims")
    _no_duplicate_dims(dn.inserted_window_dims, "scatter", "inserted_window_dims")
    _dims_in_range(dn.inserted_window_dims, operand.ndim, "scatter", "inserted_window_dims")
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
    if len(dn.scatter_dims_to_operand_dims) != indices.shape[index_vector_dim]:
        raise TypeError(f"Scatter op has {len(dn.scatter_dims_to_operand_dims)} elements in "
                        f"scatter_dims_to_operand_dims and the bound of dimension "
                        f"index_vector_dim={index_vector_dim} of indices is "
                        f"{indices.shape[index_vector_dim]}. These two numbers must be equal")
    for i, d in enumerate(dn.scatter_dims_to_operand_dims):
        if not 0 <= d < operand.ndim:
            raise TypeError(f"Invalid scatter_dims_to_operand_dims mapping; domain is "
                            f"[0, {operand.ndim}), got: {i}->{d}.")
    _no_duplicate_dims(dn.scatter_dims_to_operand_dims, "scatter",
                       "scatter_dims_to_operand_dims")
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
    dims = _dims_attr("scatter", [
        ("update_window_dims", dn.update_window_dims),
        ("inserted_window_dims", dn.inserted_window_dims),
        ("input_batching_dims", dn.operand_batching_dims),
        ("scatter_indices_batching_dims", dn.scatter_indices_batching_dims),
        ("scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims)], idx_aval.ndim - 1)
    return ctx.op1("stablehlo.scatter", [operand, indices, updates], {
        "scatter_dimension_numbers": dims,
        "indices_are_sorted": hlo.bool_attr(indices_are_sorted),
        "unique_indices": hlo.bool_attr(unique_indices)}, regions=[region])


def _clamp_scatter_indices(ctx, indices, op_aval, idx_aval, upd_aval, dn):
    """Indices clamped so every update window fits in the operand (JAX's mode=CLIP)."""
    window_sizes = iter(upd_aval.shape[d] for d in dn.update_window_dims)
    dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window = [1 if i in dropped else next(window_sizes) for i in range(op_aval.ndim)]
    dtype, shape = idx_aval.dtype, idx_aval.shape
    top = dtypes.iinfo(dtype).max
    upper = [builtins.min(op_aval.shape[d] - window[d], top)
             for d in dn.scatter_dims_to_operand_dims]
    upper = hl.broadcast_in_dim(ctx, ctx.constant(np.asarray(upper, dtype)), shape, dtype,
                                [len(shape) - 1])
    return ctx.op1("stablehlo.clamp", [ctx.constant(np.zeros((), dtype)), indices, upper],
                   result_type=hl.aval_type(idx_aval))


@functools.lru_cache(maxsize=None)
def _reduction_jaxpr(combine, dtype):
    """The (jaxpr, consts) of `combine(a, b)` on scalars of `dtype`: a scatter's update
    computation. Cached, so equal scatters have equal (hashable) params."""
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
    lowering_rules[_prim] = _scatter_lowering
del _prim


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
    aval = ad.aval_of(x)
    return ad.zeros(ShapedArray(aval.shape, dtype or aval.dtype))


def _full_like(x, value, dtype=None):
    aval = ad.aval_of(x)
    return broadcast_in_dim(np.array(value, dtype or aval.dtype), aval.shape, ())


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
    id_dtype = np.dtype(np.uint64 if num_ids > np.iinfo(np.uint32).max else np.uint32)
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


def _scatter_batching(prim, vals, dims, *, update_jaxpr, update_consts, dimension_numbers,
                      indices_are_sorted, unique_indices, mode):
    (operand, indices, updates), (operand_dim, indices_dim, updates_dim) = vals, dims
    dn = dimension_numbers
    up = lambda ds: tuple(d + 1 for d in ds)
    # the operand gets a batch dim at the front in any case: each example scatters into its own
    size = bu.axis_size_of(vals, dims)
    operand = bu.bdim_at_front(operand, operand_dim, size)
    updates = bu.bdim_at_front(updates, updates_dim, size)
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
    return prim.bind(operand, indices, updates, update_jaxpr=update_jaxpr,
                     update_consts=update_consts, dimension_numbers=dn,
                     indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                     mode=mode), 0


for _prim in (scatter_p, scatter_add_p, scatter_sub_p, scatter_mul_p, scatter_min_p,
              scatter_max_p):
    batching_rules[_prim] = functools.partial(_scatter_batching, _prim)
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
def _scatter(prim, combine, operand, scatter_indices, updates, dimension_numbers,
             indices_are_sorted, unique_indices, mode):
    jaxpr, consts = (None, ()) if combine is None else \
        _reduction_jaxpr(combine, dtypes.dtype(operand))
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


def scatter_add(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
    """Scatter that adds updates into the operand (duplicates accumulate)."""
    return _scatter(scatter_add_p, add, operand, scatter_indices, updates, dimension_numbers,
                    indices_are_sorted, unique_indices, mode)


def scatter_sub(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
    """Scatter that subtracts updates from the operand."""
    return _scatter(scatter_sub_p, sub, operand, scatter_indices, updates, dimension_numbers,
                    indices_are_sorted, unique_indices, mode)


def scatter_mul(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
    """Scatter that multiplies the operand by updates."""
    return _scatter(scatter_mul_p, mul, operand, scatter_indices, updates, dimension_numbers,
                    indices_are_sorted, unique_indices, mode)


def scatter_min(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
    """Scatter that keeps the minimum of the operand and the updates."""
    return _scatter(scatter_min_p, min, operand, scatter_indices, updates, dimension_numbers,
                    indices_are_sorted, unique_indices, mode)


def scatter_max(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
    """Scatter that keeps the maximum of the operand and the updates."""
    return _scatter(scatter_max_p, max, operand, scatter_indices, updates, dimension_numbers,
                    indices_are_sorted, unique_indices, mode)


__all__ = ["scatter_p", "scatter_add_p", "scatter_sub_p", "scatter_mul_p", "scatter_min_p",
           "scatter_max_p", "scatter", "scatter_add", "scatter_sub", "scatter_mul",
           "scatter_min", "scatter_max"]
