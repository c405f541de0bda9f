"""dynamic_slice and dynamic_update_slice, each the other's transpose, each with all its rules,
and the lax functions built on them (dynamic_slice, dynamic_index_in_dim, ...): start indices
that may be traced, clamped so the window fits, as XLA does. Batched start indices make them
a gather or a scatter (gather_scatter.py's batching rules).

    >>> lax.dynamic_slice(jnp.arange(12).reshape(3, 4), (1, 1), (2, 4))
    Array([[ 4,  5,  6,  7],
           [ 8,  9, 10, 11]], dtype=int32)
"""
from __future__ import annotations

import builtins
import operator

import numpy as np

from ...core import dtypes, sharding_types
from ...core.avals import ShapedArray, make, parts_of
from ...core.errors import InconclusiveDimensionOperation
from ...core.symbolic import index_or_symbolic, is_symbolic, symbolic_as_value
from ...core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules,
                               batching_rules, jvp_rules,
                               lowering_rules, numpy_rules, sharding_rules, transpose_rules)
from ...core.interpreter_primitives import typed_constant
from ...xla import stablehlo as hlo
from ...transforms import ad_util as ad
from ...transforms import batch_util as bu
from ...transforms.jit.namesakes import jax_jitted
from ..conversion import convert_element_type
from ..elementwise import add, lt, select
from ..shapes import (_is_array, _ndim, _shape, broadcast, broadcast_in_dim, canonicalize_shape,
                      concatenate, expand_dims, squeeze)
from . import start_watch
from .clamped_starts import clamped_start
from .dimension_numbers import GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers
from .slice_pad import slice
from .gather_scatter import _gather_batching, _scatter_batching, scatter_p


def _check_int_indices(name: str, indices) -> None:
    if any(i.dtype != indices[0].dtype or not dtypes.is_int(i.dtype) for i in indices):
        raise TypeError(f"index arguments to {name} must be integers of the same type, got: "
                        f"{', '.join(i.dtype.name for i in indices)}")
    if any(i.ndim != 0 for i in indices):
        shapes = ", ".join(f"ShapedArray({i.dtype.name}{list(i.shape)})".replace(" ", "")
                           for i in indices)
        raise TypeError(f"start_indices arguments to {name} must be scalars, got indices "
                        f"({shapes})")


# ------------------------------------------------------------------ dynamic_slice
dynamic_slice_p = Primitive("dynamic_slice")


def _dynamic_slice_abstract_eval(operand, *start_indices, slice_sizes):
    if len(slice_sizes) != operand.ndim:
        # JAX's shape rule pairs the sizes with the operand's axes by safe_map, whose error
        # is what a learner's `lax.dynamic_slice(m, (0, 0), (1,))` gets
        relation = "shorter" if len(slice_sizes) < operand.ndim else "longer"
        raise ValueError(f"safe_map() argument 2 is {relation} than argument 1")
    if len(start_indices) != operand.ndim:      # (lax.dynamic_slice's own check is before)
        raise TypeError(f"dynamic_slice needs one start index and one slice size per operand "
                        f"dimension, got {len(start_indices)} start indices and slice_sizes "
                        f"{slice_sizes} for operand shape {operand.shape}.")
    if not all(map(operator.ge, operand.shape, slice_sizes)):
        raise TypeError(f"slice slice_sizes must be less than or equal to operand shape, got "
                        f"slice_sizes {slice_sizes} for operand shape {operand.shape}.")
    if not all(s >= 0 for s in slice_sizes):
        raise TypeError(f"slice slice_sizes must be greater than or equal to zero, got "
                        f"slice_sizes of {slice_sizes}.")
    _check_int_indices("dynamic_slice", start_indices)
    return ShapedArray(slice_sizes, operand.dtype, operand.weak_type)


abstract_eval_rules[dynamic_slice_p] = _dynamic_slice_abstract_eval
# XLA clamps each start index into [0, operand_dim - slice_size]
lowering_rules[dynamic_slice_p] = lambda ctx, x, *idx, slice_sizes: ctx.op1(
    "stablehlo.dynamic_slice", [x, *idx], {"slice_sizes": hlo.i64_array(slice_sizes)})


def _clamped_window(shape, starts, sizes) -> tuple:
    """The slices of a window of `sizes` at `starts`, each start clamped so it fits (XLA's)."""
    return tuple(builtins.slice(s, s + n) for s, n in (
        (clamped_start(int(i), d, n), n) for i, d, n in zip(starts, shape, sizes)))


numpy_rules[dynamic_slice_p] = lambda x, *idx, slice_sizes: x[
    _clamped_window(x.shape, idx, slice_sizes)]


def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
    x, *idx = primals                 # integer start indices: no tangents
    ans = dynamic_slice_p.bind(x, *idx, slice_sizes=slice_sizes)
    t = tangents[0]
    if type(t) is ad.Zero:
        return ans, ad.Zero(ad.aval_of(ans))
    return ans, dynamic_slice_p.bind(t, *idx, slice_sizes=slice_sizes)


def _dynamic_slice_transpose(ct, operand, *idx, slice_sizes):
    if type(ct) is ad.Zero:
        return [ad.Zero(operand.aval)] + [None] * len(idx)
    zeros = ad.zeros(operand.aval.strip_weak_type())
    return [dynamic_update_slice_p.bind(zeros, ct, *idx)] + [None] * len(idx)


def _batch_dynamic_slice_indices(indices, dims):
    """The scalar start indices as one index vector (last dim) for a gather/scatter, batched
    along dim 0 when any of them is: (indices, batch dim)."""
    if not indices:     # (JAX uses a constant np.array([]); a broadcast stages no const)
        return broadcast_in_dim(np.int32(0), (0,), ()), bu.not_mapped
    size = next((bu.shape(i)[d] for i, d in zip(indices, dims) if d is not bu.not_mapped), None)
    if size is None:
        return concatenate([broadcast(i, (1,)) for i in indices], 0), bu.not_mapped
    # each column split along the batch as the first batched index is (JAX's): an unbatched
    # index's broadcast would else be unsplit, and the concatenation refuse the mix
    i, d = next((i, d) for i, d in zip(indices, dims) if d is not bu.not_mapped)
    typed = sharding_types.abstract_sharding(ad.aval_of(i))
    out_s = None if typed is None else make(typed.mesh, [parts_of(ad.aval_of(i))[d], ()])
    return concatenate([broadcast_in_dim(i, (size, 1), () if d is bu.not_mapped else (0,),
                                         out_sharding=out_s)
                        for i, d in zip(indices, dims)], 1), 0


def _dynamic_slice_batching(vals, dims, *, slice_sizes):
    # a dynamic_slice is a gather of one window; its batching rule knows the rest
    x, *idx = vals
    x_dim, *idx_dims = dims
    window = tuple(range(len(idx)))
    index, index_dim = _batch_dynamic_slice_indices(idx, idx_dims)
    dn = GatherDimensionNumbers(offset_dims=window, collapsed_slice_dims=(),
                                start_index_map=window)
    return _gather_batching([x, index], [x_dim, index_dim], dimension_numbers=dn,
                            slice_sizes=slice_sizes, unique_indices=True,
                            indices_are_sorted=True, mode=GatherScatterMode.CLIP,
                            fill_value=None)


jvp_rules[dynamic_slice_p] = _dynamic_slice_jvp
transpose_rules[dynamic_slice_p] = _dynamic_slice_transpose
batching_rules[dynamic_slice_p] = _dynamic_slice_batching
sharding_rules[dynamic_slice_p] = sharding_types.varying_out_shape("dynamic_slice")

# ------------------------------------------------------------------ dynamic_update_slice
dynamic_update_slice_p = Primitive("dynamic_update_slice")


def _dynamic_update_slice_abstract_eval(operand, update, *start_indices):
    if operand.ndim != update.ndim:
        raise TypeError(f"dynamic_update_slice update must have the same rank as operand, got "
                        f"update shape {update.shape} for operand shape {operand.shape}.")
    if operand.ndim != len(start_indices):
        raise TypeError(f"dynamic_update_slice start_indices must have length equal to the rank "
                        f"of operand, got indices {start_indices} for operand shape "
                        f"{operand.shape}.")
    if not all(map(operator.ge, operand.shape, update.shape)):
        raise TypeError(f"dynamic_update_slice update shape must be smaller than operand shape, "
                        f"got update shape {update.shape} for operand shape {operand.shape}.")
    if operand.dtype != update.dtype:
        raise TypeError(f"lax.dynamic_update_slice requires arguments to have the same dtypes, "
                        f"got {operand.dtype}, {update.dtype}.")
    _check_int_indices("dynamic_update_slice", start_indices)
    weak = all(a.weak_type for a in (operand, update, *start_indices))
    return ShapedArray(operand.shape, operand.dtype, weak)


abstract_eval_rules[dynamic_update_slice_p] = _dynamic_update_slice_abstract_eval
lowering_rules[dynamic_update_slice_p] = lambda ctx, x, update, *idx: ctx.op1(
    "stablehlo.dynamic_update_slice", [x, update, *idx])


def _dynamic_update_slice_numpy(x, update, *idx):
    out = x.copy()
    out[_clamped_window(x.shape, idx, update.shape)] = update
    return out


numpy_rules[dynamic_update_slice_p] = _dynamic_update_slice_numpy


def _dynamic_update_slice_jvp(primals, tangents):
    x, update, *idx = primals
    ans = dynamic_update_slice_p.bind(x, update, *idx)
    t_x, t_update = tangents[:2]
    if type(t_x) is ad.Zero and type(t_update) is ad.Zero:
        return ans, ad.Zero(ad.aval_of(ans))
    return ans, dynamic_update_slice_p.bind(ad.instantiate(t_x), ad.instantiate(t_update), *idx)


def _dynamic_update_slice_transpose(ct, operand, update, *idx):
    update_aval = ad.aval_of(update)
    if type(ct) is ad.Zero:
        cts = [ad.Zero(operand.aval) if ad.is_undefined(operand) else None,
               ad.Zero(update_aval) if ad.is_undefined(update) else None]
    else:    # the operand's cotangent is ct with a hole where update went; update's fills it
        # (typed as the update's cotangent, as JAX's lax._zeros(..., sharding=): split as it)
        typed = update_aval.sets_swapped().split if type(update_aval) is ShapedArray else None
        zeros = ad.zeros(ShapedArray(update_aval.shape, ad.aval_of(ct).dtype, sharding=typed))
        cts = [dynamic_update_slice_p.bind(ct, zeros, *idx) if ad.is_undefined(operand) else None,
               dynamic_slice_p.bind(ct, *idx, slice_sizes=update_aval.shape)
               if ad.is_undefined(update) else None]
    return cts + [None] * len(idx)


def _dynamic_update_slice_batching(axis_data, vals, dims):
    # a dynamic_update_slice is a scatter of one window; its batching rule knows the rest
    if all(d is bu.not_mapped for d in dims):
        return dynamic_update_slice_p.bind(*vals), bu.not_mapped
    x, update, *idx = vals
    x_dim, update_dim, *idx_dims = dims
    window = tuple(range(len(idx)))
    index, index_dim = _batch_dynamic_slice_indices(idx, idx_dims)
    dn = ScatterDimensionNumbers(update_window_dims=window, inserted_window_dims=(),
                                 scatter_dims_to_operand_dims=window)
    return _scatter_batching(scatter_p, axis_data, [x, index, update],
                             [x_dim, index_dim, update_dim],
                             update_jaxpr=None, update_consts=(), dimension_numbers=dn,
                             indices_are_sorted=True, unique_indices=True,
                             mode=GatherScatterMode.CLIP)


jvp_rules[dynamic_update_slice_p] = _dynamic_update_slice_jvp
transpose_rules[dynamic_update_slice_p] = _dynamic_update_slice_transpose
axis_batching_rules[dynamic_update_slice_p] = _dynamic_update_slice_batching
sharding_rules[dynamic_update_slice_p] = sharding_types.dynamic_update_slice_rule
sharding_types.ur_rules[dynamic_update_slice_p] = sharding_types.dynamic_update_slice_ur_rule


# ------------------------------------------------------------------ lax functions
def _dynamic_slice_indices(operand, start_indices, allow_negative_indices) -> list:
    """Start indices with negative ones counted from the end (as a select when traced)."""
    shape = _shape(operand)
    if _is_array(start_indices) or isinstance(start_indices, np.ndarray):
        # JAX's order: len() first (a 0-d array has none: Python's TypeError, as a traced
        # `i` given for `(i,)` meets it), then the count, then the rank
        if np.ndim(start_indices) == 0:
            raise TypeError("len() of unsized object")
        if np.shape(start_indices)[0] != len(shape):
            raise ValueError(f"Length of slice indices must match number of operand dimensions "
                             f"({np.shape(start_indices)[0]} vs {shape})")
        if np.ndim(start_indices) != 1:
            raise ValueError(f"Slice indices must be a 1D sequence, got {np.shape(start_indices)}")
        if isinstance(start_indices, np.ndarray):
            start_indices = list(start_indices)
        else:
            start_indices = [squeeze(slice(start_indices, (k,), (k + 1,)), (0,))
                             for k in range(start_indices.shape[0])]
    if len(start_indices) != len(shape):
        raise ValueError(f"Length of slice indices must match number of operand dimensions "
                         f"({len(start_indices)} vs {shape})")
    # a symbolic start (jax.export: `(n + 1) // 2`) is its value, as JAX takes it
    start_indices = [symbolic_as_value(i) if is_symbolic(i) else i for i in start_indices]
    if isinstance(allow_negative_indices, bool):
        allow_negative_indices = [allow_negative_indices] * len(shape)
    # An index type too narrow for its dimension (int8 into 300 elements) cannot hold i + d:
    # widen every index (JAX 0.10.2 wraps d and slices the wrong place).
    kinds = [dtypes.dtype(i) for i in start_indices]
    if _too_narrow(kinds, shape):
        wide = dtypes.default_int_dtype()
        start_indices = [i if not dtypes.is_int(t) else wide.type(i)
                         if isinstance(i, (int, np.integer)) else convert_element_type(i, wide)
                         for i, t in zip(start_indices, kinds)]
    result = []
    for i, d, allow_negative in zip(start_indices, shape, allow_negative_indices):
        dtype = dtypes.dtype(i)
        if dtypes.is_unsigned(dtype):             # cannot be negative
            result.append(i)
        elif isinstance(i, (int, np.integer)) and not isinstance(i, bool):
            if i < 0 and not allow_negative:
                raise ValueError(f"Index {i} is out of bounds for dimension {d} if "
                                 f"allow_negative_indices=False")
            result.append(convert_element_type(symbolic_as_value(i + d if i < 0 else i), dtype))
        elif allow_negative:
            negative = lt(i, typed_constant(0, dtype))
            # a weakly typed index is made strong first, as jnp's `i + d` does in JAX
            shifted = add(convert_element_type(i, dtype), size_as_array(d, dtype))
            result.append(select(negative, shifted, i))
        else:
            result.append(i)
    return result


def _too_narrow(kinds, shape) -> bool:
    try:
        return any(dtypes.is_int(t) and d > dtypes.iinfo(t).max for t, d in zip(kinds, shape))
    except InconclusiveDimensionOperation:      # jax.export: symbolic sizes count as small
        return any(dtypes.is_int(t) and not is_symbolic(d) and d > dtypes.iinfo(t).max
                   for t, d in zip(kinds, shape))


def size_as_array(d, dtype):
    """Dimension size `d` as a scalar of `dtype` (computed in the program if symbolic)."""
    if is_symbolic(d):
        return convert_element_type(d.__jax_array__(), dtype)
    return typed_constant(d, dtype)


def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
    """The slice of `slice_sizes` (static) starting at `start_indices` (possibly traced).
    Start indices are clamped so the slice fits, as XLA does; negative ones count from the end.

        >>> lax.dynamic_slice(jnp.arange(12).reshape(3, 4), (1, 1), (2, 4))
        Array([[ 4,  5,  6,  7],
               [ 8,  9, 10, 11]], dtype=int32)
    """
    starts = _dynamic_slice_indices(operand, start_indices, allow_negative_indices)
    sizes = canonicalize_shape(slice_sizes)
    out = dynamic_slice_p.bind(operand, *starts, slice_sizes=sizes)
    if start_watch.watching:
        start_watch.record(operand, start_indices, sizes, allow_negative_indices, "read")
    return out


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    """`operand` with `update` written at `start_indices` (clamped so it fits).

        >>> lax.dynamic_update_slice(jnp.zeros(6), jnp.ones(3), (5,))
        Array([0., 0., 0., 1., 1., 1.], dtype=float32)
    """
    starts = _dynamic_slice_indices(operand, start_indices, allow_negative_indices)
    out = dynamic_update_slice_p.bind(operand, update, *starts)
    if start_watch.watching:
        start_watch.record(operand, start_indices, _shape(update), allow_negative_indices,
                           "update")
    return out


def _zero_index(start_index):
    """A 0 index of the same type as `start_index` (a Python int stays a Python int)."""
    if type(start_index) is int:
        return 0
    return typed_constant(0, dtypes.dtype(start_index))


def dynamic_slice_in_dim(operand, start_index, slice_size: int, axis: int = 0, *,
                         allow_negative_indices: bool = True):
    """operand[..., start_index:start_index + slice_size] along `axis`, start clamped.

        >>> lax.dynamic_slice_in_dim(jnp.arange(5), 4, 3)
        Array([2, 3, 4], dtype=int32)
    """
    ndim, axis = _ndim(operand), operator.index(axis)
    start_indices = [_zero_index(start_index)] * ndim
    start_indices[axis] = start_index
    sizes = list(_shape(operand))
    sizes[axis] = index_or_symbolic(slice_size)
    allow = [False] * ndim
    allow[axis] = allow_negative_indices
    return dynamic_slice(operand, start_indices, sizes, allow_negative_indices=allow)


@jax_jitted(static_argnames=("axis", "keepdims", "allow_negative_indices"))
def dynamic_index_in_dim(operand, index, axis: int = 0, keepdims: bool = True, *,
                         allow_negative_indices: bool = True):
    """operand[..., index] along `axis` for a possibly traced index (clamped).

        >>> lax.dynamic_index_in_dim(jnp.arange(6).reshape(2, 3), 1, 1, keepdims=False)
        Array([1, 4], dtype=int32)
    """
    result = dynamic_slice_in_dim(operand, index, 1, axis,
                                  allow_negative_indices=allow_negative_indices)
    return result if keepdims else squeeze(result, (axis,))


def dynamic_update_slice_in_dim(operand, update, start_index, axis: int, *,
                                allow_negative_indices: bool = True):
    """`operand` with `update` written at `start_index` along `axis` (0 along the others).

        >>> lax.dynamic_update_slice_in_dim(jnp.zeros(4), jnp.ones(2), 1, 0)
        Array([0., 1., 1., 0.], dtype=float32)
    """
    ndim, axis = _ndim(operand), operator.index(axis)
    start_indices = [_zero_index(start_index)] * ndim
    start_indices[axis] = start_index
    allow = [False] * ndim
    allow[axis] = allow_negative_indices
    return dynamic_update_slice(operand, update, start_indices, allow_negative_indices=allow)


@jax_jitted(static_argnames=("axis", "allow_negative_indices"))
def dynamic_update_index_in_dim(operand, update, index, axis: int, *,
                                allow_negative_indices: bool = True):
    """`operand` with `update` written at `index` along `axis`; `update` may lack that axis.

        >>> lax.dynamic_update_index_in_dim(jnp.zeros((2, 3)), jnp.ones(3), 1, 0)[1]
        Array([1., 1., 1.], dtype=float32)
    """
    axis = operator.index(axis)
    if _ndim(update) != _ndim(operand):
        if _ndim(update) + 1 != _ndim(operand):
            raise ValueError(f"dynamic_update_index_in_dim needs an update of rank "
                             f"{_ndim(operand)} or {_ndim(operand) - 1}, got shape "
                             f"{_shape(update)} for operand shape {_shape(operand)}")
        update = expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis,
                                       allow_negative_indices=allow_negative_indices)

# the mesh axes their results are unreduced and reduced over (JAX's ur rules)
sharding_types.ur_rules[dynamic_slice_p] = sharding_types.dynamic_slice_ur_rule
