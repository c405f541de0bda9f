"""slice and pad, each the other's transpose, each with all its rules, and the lax functions
built on them (slice, slice_in_dim, index_in_dim, pad): static bounds.

    >>> lax.pad(jnp.array([1, 2, 3]), 0, [(1, 2, 1)])
    Array([0, 1, 0, 2, 0, 3, 0, 0], dtype=int32)
"""
from __future__ import annotations

import builtins
import operator

import numpy as np

from ...core import sharding_types
from ...core.avals import ShapedArray
# lax's reduce_sum with no shortcuts to skip (reductions.py builds on this module)
from ...core.interpreter_primitives import reduce_sum
from ...core.symbolic import index_or_symbolic
from ...core.primitive import (Primitive, abstract_eval_rules, batching_rules, lowering_rules,
                               numpy_rules, sharding_rules)
from ...core.interpreter_primitives import typed_constant
from ...xla import stablehlo as hlo
from ...transforms import ad_util as ad
from ...transforms import batch_util as bu
from ..creation import full_like
from ..elementwise import _scalar_on_mesh, select, sub
from ..shapes import _int_params, _shape, broadcast_in_dim, check_shapelike, squeeze


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
    return [pad(ct, typed_constant(0, ad.aval_of(ct).dtype), pads)]


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
    # negative edge padding crops what was added; a strided slice skips the interior (NumPy's
    # integers, as JAX's rule computes them: they print as `np.int64(-1)` in a jaxpr)
    unpadded = pad(ct, typed_constant(0, ad.aval_of(ct).dtype),
                   list(zip(np.negative(lo), np.negative(hi), np.zeros_like(interior))))
    t_operand = slice(unpadded, list(np.zeros_like(lo)), bu.shape(unpadded),
                      list(np.add(interior, 1)))
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
    # where the padding went (the zero on x's mesh and the mask typed as x, as JAX's _zero
    # and full_like: select_n's cases and mask are split alike)
    padded = pad(x, _scalar_on_mesh(x, 0), config)
    mask = pad(full_like(x, True, np.bool_), np.array(False), config)
    fill = broadcast_in_dim(value, bu.shape(padded), (x_dim,))
    return select(mask, padded, fill), x_dim


ad.deflinear2(pad_p, _pad_transpose)
batching_rules[pad_p] = _pad_batching
sharding_rules[pad_p] = sharding_types.pad_rule


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
    lo = 0 if start_index is None else index_or_symbolic(start_index)
    hi = size if limit_index is None else index_or_symbolic(limit_index)
    start[axis] = lo + size if lo < 0 else lo
    limit[axis] = hi + size if hi < 0 else hi
    strides[axis] = index_or_symbolic(stride)
    return slice(operand, start, limit, strides)


def index_in_dim(operand, index: int, axis: int = 0, keepdims: bool = True):
    """operand[..., index] along `axis` (static index, negative allowed).

        >>> lax.index_in_dim(jnp.arange(6).reshape(2, 3), -1, 1, keepdims=False)
        Array([2, 5], dtype=int32)
    """
    index, axis = index_or_symbolic(index), operator.index(axis)
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

# the mesh axes their results are unreduced and reduced over (JAX's ur rules)
sharding_types.ur_rules[slice_p] = sharding_types.keeps_ur_rule
sharding_types.ur_rules[pad_p] = sharding_types.keeps_ur_rule
