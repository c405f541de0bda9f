"""Slicing primitives, as in JAX's lax/slicing.py: slice and pad, dynamic_slice and
dynamic_update_slice, gather and the scatter family (scatter, scatter-add, scatter-sub,
scatter-mul, scatter-min, scatter-max). Each primitive is followed by its rules; the lax
functions, with JAX's signatures, are at the bottom.

    >>> dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
    ...                                 start_index_map=(0,))
    >>> lax.gather(jnp.arange(6).reshape(3, 2), jnp.array([[2], [0]]), dn, (1, 2))
    Array([[4, 5],
           [0, 1]], dtype=int32)
    >>> dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
    ...                                  scatter_dims_to_operand_dims=(0,))
    >>> lax.scatter_add(jnp.zeros(3), jnp.array([[2], [2]]), jnp.array([1., 2.]), dn)
    Array([0., 0., 3.], dtype=float32)

Out-of-bounds start indices follow XLA, as in JAX: dynamic_slice/dynamic_update_slice
clamp them so the window fits. A gather does what its `mode` says: CLIP clamps each window
into range (XLA's own behaviour), FILL_OR_DROP returns `fill_value` for any window not
wholly in bounds (a mask computed beside the gather), PROMISE_IN_BOUNDS checks nothing.
Scatters drop windows (FILL_OR_DROP, XLA's behaviour) or clamp indices (CLIP).

Differentiation and batching follow JAX's rules. Transposes come in pairs: slice and pad,
dynamic_slice and dynamic_update_slice (into zeros), gather and scatter-add with the same
dimension numbers. scatter-add/sub are linear; scatter-mul needs unique indices for its
updates' gradient; scatter-min/max average the tangents of tied values; a plain scatter with
possibly overlapping updates masks all but the winning update (by scattering ids) and
becomes scatter-adds. A batched dynamic_slice or dynamic_update_slice with batched start
indices becomes a gather or scatter, whose batching rules pair the operand's and the
indices' batch dims through operand_batching_dims and the indices' batching dims.
"""
from __future__ import annotations

import builtins
import enum
import functools
import math
import operator
from typing import NamedTuple

import numpy as np

from ..core import dtypes, sharding_types
from ..core.avals import ShapedArray
from ..core.errors import InconclusiveDimensionOperation
# lax's reduce_sum with no shortcuts to skip (reductions.py builds on this module)
from ..core.interpreter_primitives import reduce_sum
from ..core.ir import ClosedJaxpr
from ..core.numpy_eval import eval_jaxpr_numpy
from ..core.symbolic import index_or_symbolic, is_symbolic
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                              lowering_rules, numpy_rules, sharding_rules, transpose_rules)
from ..core.staging import trace_to_jaxpr
from ..xla import stablehlo as hlo
from ..transforms import ad_util as ad
from ..transforms import batch_util as bu
from . import _lowering as hl
from .conversion import convert_element_type
from .elementwise import add, div, eq, lt, max, min, mul, neg, select, sub
from .shapes import (_int_params, _is_array, _ndim, _shape, broadcast, broadcast_in_dim,
                     canonicalize_shape, check_shapelike, concatenate, expand_dims, iota,
                     reshape, squeeze)


def _check_int_indices(name: str, indices) -> None:
    if any(i.dtype != indices[0].dtype or not dtypes.is_int(i.dtype) for i in indices):
        raise TypeError(f"index arguments to {name} must be integers of the same type, got: "
                        f"{', '.join(i.dtype.name for i in indices)}")
    if any(i.ndim != 0 for i in indices):
        shapes = ", ".join(f"ShapedArray({i.dtype.name}{list(i.shape)})".replace(" ", "")
                           for i in indices)
        raise TypeError(f"start_indices arguments to {name} must be scalars, got indices "
                        f"({shapes})")


# ------------------------------------------------------------------ slice
slice_p = Primitive("slice")


def _slice_abstract_eval(operand, *, start_indices, limit_indices, strides):
    check_shapelike("slice", "start_indices", start_indices)
    check_shapelike("slice", "limit_indices", limit_indices)
    if operand.ndim != len(start_indices):
        raise TypeError(f"slice start_indices must have length equal to the number of dimensions "
                        f"of the operand, got indices {start_indices} for operand shape "
                        f"{operand.shape}.")
    if len(start_indices) != len(limit_indices):
        raise TypeError(f"slice limit_indices must have the same length as start_indices, got "
                        f"start_indices {start_indices} and limit_indices {limit_indices}.")
    if not all(map(operator.ge, operand.shape, limit_indices)):
        raise TypeError(f"slice limit_indices must be less than or equal to operand shape, got "
                        f"limit_indices {limit_indices} for operand shape {operand.shape}.")
    if not all(map(operator.ge, limit_indices, start_indices)):
        raise TypeError(f"slice limit_indices must be greater than or equal to start_indices, "
                        f"got start_indices {start_indices} and limit_indices {limit_indices}.")
    sizes = tuple(map(operator.sub, limit_indices, start_indices))
    if strides is not None:
        check_shapelike("slice", "strides", strides)
        if len(strides) != operand.ndim:
            raise TypeError(f"slice strides must have length equal to the number of dimensions "
                            f"of the operand, got strides {strides} for operand shape "
                            f"{operand.shape}.")
        if not all(s > 0 for s in strides):       # JAX 0.10.2 divides by zero here
            raise TypeError(f"slice strides must be positive, got {strides}")
        sizes = tuple(0 if d == 0 else (d - 1) // s + 1 for d, s in zip(sizes, strides))
    return ShapedArray(sizes, operand.dtype, operand.weak_type)


def _slice_lowering(ctx, x, *, start_indices, limit_indices, strides):
    return ctx.op1("stablehlo.slice", [x], {
        "start_indices": hlo.i64_array(start_indices),
        "limit_indices": hlo.i64_array(limit_indices),
        "strides": hlo.i64_array(strides or (1,) * len(start_indices))})


abstract_eval_rules[slice_p] = _slice_abstract_eval
lowering_rules[slice_p] = _slice_lowering
numpy_rules[slice_p] = lambda x, *, start_indices, limit_indices, strides: x[tuple(
    map(builtins.slice, start_indices, limit_indices, strides or (1,) * x.ndim))]


def _slice_transpose(ct, operand, *, start_indices, limit_indices, strides):
    # the cotangent padded back to the operand's shape; strides leave interior gaps
    shape, ct_shape = operand.aval.shape, bu.shape(ct)
    # computed with NumPy as JAX's _slice_transpose_fancy computes them, so the high (and
    # strided interior) pads are NumPy integers, printed `np.int64(2)` as JAX's
    if strides is None or all(s == 1 for s in strides):
        pads = list(zip(start_indices, np.subtract(shape, limit_indices),
                        (0,) * len(start_indices)))
    else:
        real_limits = np.add(start_indices, np.where(np.array(ct_shape) == 0, 0, np.add(
            1, np.multiply(np.subtract(ct_shape, 1), strides))))
        pads = list(zip(start_indices, np.subtract(shape, real_limits),
                        np.subtract(strides, 1)))
    return [pad(ct, np.zeros((), ad.aval_of(ct).dtype), pads)]


def _slice_batching(vals, dims, *, start_indices, limit_indices, strides):
    (x,), (d,) = vals, dims
    start, limit = list(start_indices), list(limit_indices)
    start.insert(d, 0)
    limit.insert(d, bu.shape(x)[d])
    if strides is not None:
        strides = list(strides)
        strides.insert(d, 1)
    return slice(x, start, limit, strides), d


ad.deflinear2(slice_p, _slice_transpose)
batching_rules[slice_p] = _slice_batching
sharding_rules[slice_p] = sharding_types.varying_out_shape("slicing")

# ------------------------------------------------------------------ pad
pad_p = Primitive("pad")


def _int(d):
    return int(d) if isinstance(d, np.integer) else d      # (a symbolic dimension stays)


def _pad_abstract_eval(operand, padding_value, *, padding_config):
    if operand.dtype != padding_value.dtype:
        raise TypeError(f"pad operand and padding_value must be same dtype: got "
                        f"{operand.dtype} and {padding_value.dtype}.")
    if padding_value.ndim != 0:
        raise ValueError(f"padding_value must be a scalar; got "
                         f"np.shape(padding_value)={padding_value.shape}")
    if len(padding_config) != operand.ndim:
        raise ValueError(f"length of padding_config must equal the number of axes of operand, "
                         f"got padding_config {padding_config} for operand shape {operand.shape}")
    if not all(i >= 0 for _, _, i in padding_config):
        raise ValueError(f"interior padding in padding_config must be nonnegative, got "
                         f"padding_config {padding_config}")
    # interior padding dilates: d elements with i between each take d + (d - 1) * i; the
    # widths may be NumPy integers, as JAX's jnp.pad computes them, the shape's are ints
    shape = tuple(_int(lo + hi + (0 if d == 0 else d + (d - 1) * i))
                  for (lo, hi, i), d in zip(padding_config, operand.shape))
    if not all(d >= 0 for d in shape):
        raise ValueError(f"Dimension size after padding is not at least 0, got result shape "
                         f"{shape}, for padding_config {padding_config} and operand shape "
                         f"{operand.shape}")
    return ShapedArray(shape, operand.dtype, operand.weak_type and padding_value.weak_type)


def _pad_lowering(ctx, x, padding_value, *, padding_config):
    low, high, interior = zip(*padding_config) if padding_config else ((), (), ())
    return ctx.op1("stablehlo.pad", [x, padding_value],
                   {"edge_padding_low": hlo.i64_array(low),
                    "edge_padding_high": hlo.i64_array(high),
                    "interior_padding": hlo.i64_array(interior)})




def _pad_numpy(x, padding_value, *, padding_config):
    """x dilated by the interior padding and placed within padding_value, the non-negative
    edges first; negative edges then crop."""
    dilated = [0 if d == 0 else d + (d - 1) * i for (_, _, i), d in zip(padding_config, x.shape)]
    grown = [builtins.max(lo, 0) + n + builtins.max(hi, 0)
             for (lo, hi, _), n in zip(padding_config, dilated)]
    out = np.full(grown, padding_value, x.dtype)
    out[tuple(builtins.slice(builtins.max(lo, 0), builtins.max(lo, 0) + n, i + 1)
              for (lo, _, i), n in zip(padding_config, dilated))] = x
    return out[tuple(builtins.slice(builtins.max(-lo, 0), g - builtins.max(-hi, 0))
                     for (lo, hi, _), g in zip(padding_config, grown))]


abstract_eval_rules[pad_p] = _pad_abstract_eval
lowering_rules[pad_p] = _pad_lowering
numpy_rules[pad_p] = _pad_numpy


def _pad_transpose(ct, operand, padding_value, *, padding_config):
    lo, hi, interior = zip(*padding_config) if padding_config else ((), (), ())
    # negative edge padding crops what was added; a strided slice skips the interior
    unpadded = pad(ct, np.zeros((), ad.aval_of(ct).dtype), [(-l, -h, 0) for l, h in zip(lo, hi)])
    t_operand = slice(unpadded, (0,) * len(lo), bu.shape(unpadded), [i + 1 for i in interior])
    t_padv = None
    if ad.is_undefined(padding_value):      # the padding value went everywhere else
        every = tuple(range(len(lo)))
        t_padv = sub(reduce_sum(ct, every), reduce_sum(t_operand, every))
    return [t_operand if ad.is_undefined(operand) else None, t_padv]


def _pad_batching(vals, dims, *, padding_config):
    (x, value), (x_dim, value_dim) = vals, dims
    if x_dim is bu.not_mapped:
        x, x_dim = bu.bdim_at_front(x, x_dim, bu.shape(value)[value_dim]), 0
    config = list(padding_config)
    config.insert(x_dim, (0, 0, 0))
    if value_dim is bu.not_mapped:
        return pad(x, value, config), x_dim
    # one padding value per example: pad with zeros, then select each example's value
    # where the padding went
    dtype = ad.aval_of(x).dtype
    padded = pad(x, np.zeros((), dtype), config)
    mask = pad(broadcast_in_dim(np.array(True), bu.shape(x), ()), np.array(False), config)
    fill = broadcast_in_dim(value, bu.shape(padded), (x_dim,))
    return select(mask, padded, fill), x_dim


ad.deflinear2(pad_p, _pad_transpose)
batching_rules[pad_p] = _pad_batching
sharding_rules[pad_p] = sharding_types.pad_rule

# ------------------------------------------------------------------ dynamic_slice
dynamic_slice_p = Primitive("dynamic_slice")


def _dynamic_slice_abstract_eval(operand, *start_indices, slice_sizes):
    if len(start_indices) != operand.ndim or len(slice_sizes) != operand.ndim:
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
        (builtins.min(builtins.max(int(i), 0), d - n), n) for i, d, n in zip(starts, shape, sizes)))


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
    return concatenate([broadcast_in_dim(i, (size, 1), () if d is bu.not_mapped else (0,))
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
        zeros = ad.zeros(ShapedArray(update_aval.shape, ad.aval_of(ct).dtype))
        cts = [dynamic_update_slice_p.bind(ct, zeros, *idx) if ad.is_undefined(operand) else None,
               dynamic_slice_p.bind(ct, *idx, slice_sizes=update_aval.shape)
               if ad.is_undefined(update) else None]
    return cts + [None] * len(idx)


def _dynamic_update_slice_batching(vals, dims):
    # a dynamic_update_slice is a scatter of one window; its batching rule knows the rest
    x, update, *idx = vals
    x_dim, update_dim, *idx_dims = dims
    window = tuple(range(len(idx)))
    index, index_dim = _batch_dynamic_slice_indices(idx, idx_dims)
    dn = ScatterDimensionNumbers(update_window_dims=window, inserted_window_dims=(),
                                 scatter_dims_to_operand_dims=window)
    return _scatter_batching(scatter_p, [x, index, update], [x_dim, index_dim, update_dim],
                             update_jaxpr=None, update_consts=(), dimension_numbers=dn,
                             indices_are_sorted=True, unique_indices=True,
                             mode=GatherScatterMode.CLIP)


jvp_rules[dynamic_update_slice_p] = _dynamic_update_slice_jvp
transpose_rules[dynamic_update_slice_p] = _dynamic_update_slice_transpose
batching_rules[dynamic_update_slice_p] = _dynamic_update_slice_batching
sharding_rules[dynamic_update_slice_p] = sharding_types.dynamic_update_slice_rule


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
        windows = operand[index]
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
    if ctx.platform != "gpu" or np.dtype(op_aval.dtype) != np.complex128:
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
        if mode != GatherScatterMode.CLIP:
            index, updates = tuple(i[in_bounds] for i in index), updates[in_bounds]
        if combine is not None:
            combine.at(out, index, updates)
        elif update_jaxpr is None:
            out[index] = updates
        else:
            _apply_at(out, index, updates, update_jaxpr, update_consts)
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
def slice(operand, start_indices, limit_indices, strides=None):
    """operand[start:limit:stride] in every dimension (static bounds).

        >>> lax.slice(jnp.arange(12).reshape(3, 4), (1, 0), (3, 4), (1, 2))
        Array([[ 4,  6],
               [ 8, 10]], dtype=int32)
    """
    return slice_p.bind(operand, start_indices=tuple(start_indices),
                        limit_indices=tuple(limit_indices),
                        strides=None if strides is None else tuple(strides))


def slice_in_dim(operand, start_index, limit_index, stride: int = 1, axis: int = 0):
    """operand[..., start_index:limit_index:stride] along `axis` (negative and None bounds
    allowed).

        >>> lax.slice_in_dim(jnp.arange(6), 1, -1, 2)
        Array([1, 3], dtype=int32)
    """
    shape = _shape(operand)
    axis = operator.index(axis)
    start, limit, strides = [0] * len(shape), list(shape), [1] * len(shape)
    size = shape[axis]
    lo = 0 if start_index is None else operator.index(start_index)
    hi = size if limit_index is None else operator.index(limit_index)
    start[axis] = lo + size if lo < 0 else lo
    limit[axis] = hi + size if hi < 0 else hi
    strides[axis] = operator.index(stride)
    return slice(operand, start, limit, strides)


def index_in_dim(operand, index: int, axis: int = 0, keepdims: bool = True):
    """operand[..., index] along `axis` (static index, negative allowed).

        >>> lax.index_in_dim(jnp.arange(6).reshape(2, 3), -1, 1, keepdims=False)
        Array([2, 5], dtype=int32)
    """
    index, axis = operator.index(index), operator.index(axis)
    size = _shape(operand)[axis]
    wrapped = index + size if index < 0 else index
    if not 0 <= wrapped < size:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
    result = slice_in_dim(operand, wrapped, wrapped + 1, 1, axis)
    return result if keepdims else squeeze(result, (axis,))


def pad(operand, padding_value, padding_config):
    """`operand` padded with the scalar `padding_value`: padding_config holds one
    (low, high, interior) triple per dimension; negative low/high remove elements.

        >>> lax.pad(jnp.array([1, 2, 3]), 0, [(1, 2, 1)])
        Array([0, 1, 0, 2, 0, 3, 0, 0], dtype=int32)
    """
    try:
        # NumPy integers kept, as JAX's lax.pad keeps them (jnp.pad's print as np.int64(1))
        config = tuple(_int_params(triple) for triple in padding_config)
    except TypeError:                   # jax.export's symbolic sizes (a slice's transpose)
        config = tuple(tuple(map(index_or_symbolic, triple)) for triple in padding_config)
    return pad_p.bind(operand, padding_value, padding_config=config)


def _dynamic_slice_indices(operand, start_indices, allow_negative_indices) -> list:
    """Start indices with negative ones counted from the end (as a select when traced)."""
    shape = _shape(operand)
    if _is_array(start_indices) or isinstance(start_indices, np.ndarray):
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
            result.append(convert_element_type(i + d if i < 0 else i, dtype))
        elif allow_negative:
            negative = lt(i, np.zeros((), dtype))
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
    return np.array(d, dtype)


def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
    """The slice of `slice_sizes` (static) starting at `start_indices` (possibly traced).
    Start indices are clamped so the slice fits, as XLA does; negative ones count from the end.

        >>> lax.dynamic_slice(jnp.arange(12).reshape(3, 4), (1, 1), (2, 4))
        Array([[ 4,  5,  6,  7],
               [ 8,  9, 10, 11]], dtype=int32)
    """
    start_indices = _dynamic_slice_indices(operand, start_indices, allow_negative_indices)
    return dynamic_slice_p.bind(operand, *start_indices,
                                slice_sizes=canonicalize_shape(slice_sizes))


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    """`operand` with `update` written at `start_indices` (clamped so it fits).

        >>> lax.dynamic_update_slice(jnp.zeros(6), jnp.ones(3), (5,))
        Array([0., 0., 0., 1., 1., 1.], dtype=float32)
    """
    start_indices = _dynamic_slice_indices(operand, start_indices, allow_negative_indices)
    return dynamic_update_slice_p.bind(operand, update, *start_indices)


def _zero_index(start_index):
    """A 0 index of the same type as `start_index` (a Python int stays a Python int)."""
    if type(start_index) is int:
        return 0
    return np.zeros((), dtypes.dtype(start_index))


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
    sizes[axis] = operator.index(slice_size)
    allow = [False] * ndim
    allow[axis] = allow_negative_indices
    return dynamic_slice(operand, start_indices, sizes, allow_negative_indices=allow)


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
    unused = broadcast(np.zeros((), dtype), tuple(update_shape))
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
    return scatter_fn


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


__all__ = ["slice_p", "pad_p", "dynamic_slice_p", "dynamic_update_slice_p", "gather_p",
           "scatter_p", "scatter_add_p", "scatter_sub_p", "scatter_mul_p", "scatter_min_p",
           "scatter_max_p", "GatherDimensionNumbers", "ScatterDimensionNumbers",
           "GatherScatterMode", "slice", "slice_in_dim", "index_in_dim", "pad", "dynamic_slice",
           "dynamic_slice_in_dim", "dynamic_index_in_dim", "dynamic_update_slice",
           "dynamic_update_slice_in_dim", "dynamic_update_index_in_dim", "gather", "scatter",
           "scatter_add", "scatter_sub", "scatter_mul", "scatter_min", "scatter_max",
           "scatter_apply", "index_take"]
