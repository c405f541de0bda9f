"""Shape primitives: broadcast_in_dim, reshape, squeeze, transpose, rev, concatenate,
split and iota (pad is in slicing/slice_pad.py, beside slice, its transpose). Each primitive is
followed by its rules; the lax functions, with JAX's signatures, are at the bottom.

    >>> make_jaxpr(lambda v: lax.broadcast_in_dim(v, (2, 3), (1,)))(jnp.ones(3))
    { lambda ; a:f32[3]. let b:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a in (b,) }

These primitives move data without computing on it: they accept every dtype and
keep the operand's weak type. Errors use JAX's wording, so its docs apply. All but
iota are linear, so their jvp applies the primitive to the tangents and their
transpose moves the cotangent back (sum what was broadcast, split what was joined, ...).
Batching rules move the batch dimension to the front where the params need it.
"""
from __future__ import annotations

import builtins
import math
import operator
import sys

import numpy as np

from ..core import dtypes, sharding_types
from ..core.avals import MemorySpace, ShapedArray, get_aval
from ..core.errors import shape_error
from ..core.mesh import NamedSharding, PartitionSpec
# declared in core so that transforms/ can bind them; their rules are here
from ..core.interpreter_primitives import broadcast_in_dim_p, reshape_p, transpose_p
from ..core.interpreter_primitives import reduce_sum  # (reductions.py builds on this module)
from ..core.interpreter_primitives import convert_element_type as _convert_element_type
from ..core.ir import param_printers
from ..core.symbolic import index_or_symbolic, is_symbolic
from ..core.trace import Tracer
from ..core.traceback_util import filter_before_raising
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                              forwarding_rules, lowering_rules, numpy_rules, sharding_rules,
                              sharding_typing_rules, transpose_rules)
from ..xla import stablehlo as hlo
from ..transforms import ad_util as ad
from ..transforms.jit.args import unhashable_as_jax
from ..transforms import batch_util as bu
from . import _lowering as hl, _rules
from ._rules import NUMERIC, check_same_dtypes
from .sharding import canonicalize_sharding, check_type_divides, reshard


# ------------------------------------------------------------------ helpers
def check_shapelike(fun_name: str, arg_name: str, obj) -> None:
    """`obj` must be a sequence of nonnegative ints (JAX's _check_shapelike)."""
    if not isinstance(obj, (tuple, list, np.ndarray)):
        raise TypeError(f"{fun_name} {arg_name} must be of type tuple/list/ndarray, "
                        f"got {type(obj)}.")
    if any((not isinstance(d, (int, np.integer)) and not is_symbolic(d)) or isinstance(d, bool)
           for d in obj):
        raise TypeError(f"{fun_name} {arg_name} must have every element be an integer type, "
                        f"got {tuple(map(type, obj))}.")
    if not all(d >= 0 for d in obj):
        raise TypeError(f"{fun_name} {arg_name} must have every element be nonnegative, "
                        f"got {tuple(obj)}.")


def canonicalize_shape(shape) -> tuple:
    """A shape as a tuple of Python ints; a traced size raises (shapes must be static)."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        return tuple(operator.index(d) for d in shape)
    except TypeError:
        if any(map(is_symbolic, shape)):         # jax.export's symbolic dimensions
            return tuple(map(index_or_symbolic, shape))
        traced = next((d for d in shape if isinstance(d, Tracer)), None)
        if traced is not None:      # JAX's lines on jit and the argument it depends on
            # (a traced array of sizes named whole, as JAX's: JitTracer(int32[2]))
            raise shape_error(shape if isinstance(shape, Tracer) else tuple(shape),
                              traced) from None
        raise TypeError(f"Shapes must be 1D sequences of concrete values of integer type, "
                        f"got {shape}.") from None


def canonicalize_axis(axis, ndim: int, error=ValueError) -> int:
    """`axis` in range(ndim) (negative counts from the end), or a clear error of the class
    JAX raises there (`error`: IndexError where JAX indexes the shape first, as jnp.mean).
    A traced axis: JAX's TracerIntegerConversionError (its __index__), as jnp.concatenate's.

    >>> canonicalize_axis(-1, 3)
    2
    """
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise error(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis + ndim if axis < 0 else axis


def _is_array(x) -> bool:
    """An Array or a tracer: returning it unchanged is a no-op (JAX skips such binds too)."""
    return isinstance(getattr(x, "aval", None), ShapedArray)


def _ndim(x) -> int:
    return len(np.shape(x)) if not _is_array(x) else x.aval.ndim


def _shape(x) -> tuple:
    return x.aval.shape if _is_array(x) else np.shape(x)


# ------------------------------------------------------------------ broadcast_in_dim


def _broadcast_in_dim_abstract_eval(operand, *, shape, broadcast_dimensions, sharding=None):
    check_shapelike("broadcast_in_dim", "shape", shape)
    check_shapelike("broadcast_in_dim", "broadcast_dimensions", broadcast_dimensions)
    ndim = operand.ndim
    if ndim != len(broadcast_dimensions):
        raise TypeError(f"broadcast_in_dim broadcast_dimensions must have length equal to "
                        f"operand ndim; got broadcast_dimensions {broadcast_dimensions} for "
                        f"operand ndim {ndim}.")
    if len(shape) < ndim:
        raise TypeError(f"broadcast_in_dim target broadcast shape must have equal or higher rank "
                        f"to the operand shape; got operand ndim {ndim} and target broadcast "
                        f"ndim {len(shape)}.")
    if not set(broadcast_dimensions) <= set(range(len(shape))):
        raise TypeError(f"broadcast_in_dim broadcast_dimensions must be a subset of output "
                        f"dimensions, got {broadcast_dimensions} for operand ndim {ndim} and "
                        f"shape {shape}.")
    if not all(operand.shape[i] in (1, shape[d]) for i, d in enumerate(broadcast_dimensions)):
        raise TypeError(f"broadcast_in_dim operand dimension sizes must either be 1, or be equal "
                        f"to their corresponding dimensions in the target broadcast shape; got "
                        f"operand of shape {operand.shape}, target broadcast shape {shape}, "
                        f"broadcast_dimensions {broadcast_dimensions} ")
    if len(set(broadcast_dimensions)) != len(broadcast_dimensions):
        raise TypeError(f"broadcast_in_dim broadcast_dimensions must not contain duplicates, "
                        f"got broadcast_dimensions {broadcast_dimensions}")
    # in its operand's memory, a scalar's too (JAX's abstract eval: a host placeholder
    # broadcast to a residual's shape stays host-typed)
    return ShapedArray(shape, operand.dtype, operand.weak_type,
                       memory_space=getattr(operand, "memory_space", MemorySpace.Device))


def _broadcast_in_dim_lowering(ctx, x, *, shape, broadcast_dimensions, sharding=None):
    return ctx.op1("stablehlo.broadcast_in_dim", [x],
                   {"broadcast_dimensions": hlo.i64_array(broadcast_dimensions)})


def _broadcast_in_dim_printer(params):
    # as JAX: the shape is the binder's type; trivial dimensions are not worth a bracket
    dims = params["broadcast_dimensions"]
    return [("broadcast_dimensions", dims)] if dims else []


abstract_eval_rules[broadcast_in_dim_p] = _broadcast_in_dim_abstract_eval
lowering_rules[broadcast_in_dim_p] = _broadcast_in_dim_lowering


def _broadcast_in_dim_numpy(x, *, shape, broadcast_dimensions, sharding=None):
    # operand axes first put in the order of the result axes they become ((2, 0) transposes)
    order = sorted(range(len(broadcast_dimensions)), key=broadcast_dimensions.__getitem__)
    if order != list(range(len(order))):
        x = x.transpose(order)
    unit = [1] * len(shape)
    for i, d in enumerate(sorted(broadcast_dimensions)):
        unit[d] = x.shape[i]
    return np.broadcast_to(x.reshape(unit), shape)


numpy_rules[broadcast_in_dim_p] = _broadcast_in_dim_numpy
param_printers[broadcast_in_dim_p] = _broadcast_in_dim_printer


def _broadcast_in_dim_forwarding(in_avals, *, shape, broadcast_dimensions, sharding=None):
    # JAX's _broadcast_in_dim_fwd_rule: to the operand's own shape (and no new sharding) the
    # result is the operand, so jit's trace hands it back instead of staging an equation
    same = tuple(in_avals[0].shape) == tuple(shape) and \
        tuple(broadcast_dimensions) == tuple(range(len(shape)))
    return [0] if same and sharding is None else [None]


forwarding_rules[broadcast_in_dim_p] = _broadcast_in_dim_forwarding


def _broadcast_in_dim_transpose(ct, operand, *, shape, broadcast_dimensions, sharding=None):
    # sum over the new dimensions and those stretched from size 1; the latter come back (a
    # size-1 dimension split over a mesh axis, of size 1 too, is not stretched: JAX 0.10.2's)
    # the sum typed as the operand's cotangent, as JAX's (unreduced where it is reduced)
    typed = operand.aval.to_ct_aval().split
    parts = typed.spec.partitions if typed is not None else ()
    unit_dims = [i for i, d in enumerate(operand.aval.shape)
                 if d == 1 and (i >= len(parts) or parts[i] is None)]
    kept = {d for i, d in enumerate(broadcast_dimensions) if i not in unit_dims}
    if typed is not None:
        spec = [p for i, p in enumerate(typed.spec.partitions + (None,) * len(operand.aval.shape))
                if i < len(operand.aval.shape) and i not in unit_dims]
        typed = canonicalize_sharding(NamedSharding(typed.mesh, typed.spec.update(
            partitions=tuple(spec))), "reduce_sum")
    summed = reduce_sum(ct, [d for d in range(len(shape)) if d not in kept], out_sharding=typed)
    return [expand_dims(summed, unit_dims) if unit_dims else summed]


def _broadcast_in_dim_batching(vals, dims, *, shape, broadcast_dimensions, sharding=None):
    x = bu.moveaxis(vals[0], dims[0], 0)
    return broadcast_in_dim(x, bu.shape(x)[:1] + tuple(shape),      # np.int64s, as JAX's
                            (0,) + tuple(np.int64(d + 1) for d in broadcast_dimensions),
                            out_sharding=_batched_first(sharding, x)), 0


def _batched_first(sharding, x):
    """A result's `sharding` param under vmap, its batch axis first: split as the batch axis
    of the operand `x` (moved first) is, as JAX's get_sharding_for_vmap splits it over the
    vmapped axis's Explicit mesh axis."""
    if sharding is None:
        return None
    typed = get_aval(x).split
    axes = sharding_types.parts_of(get_aval(x))[0] if typed is not None else ()
    first = None if not axes else axes[0] if len(axes) == 1 else tuple(axes)
    return NamedSharding(sharding.mesh, PartitionSpec(first, *sharding.spec.partitions),
                         memory_kind=sharding.memory_kind)


ad.deflinear2(broadcast_in_dim_p, _broadcast_in_dim_transpose)
batching_rules[broadcast_in_dim_p] = _broadcast_in_dim_batching
sharding_rules[broadcast_in_dim_p] = sharding_types.broadcast_in_dim_rule
sharding_typing_rules[broadcast_in_dim_p] = sharding_types.given_or_rule(broadcast_in_dim_p)
sharding_types.own_memory_space_rules.add(broadcast_in_dim_p)      # (its abstract eval's)

# ------------------------------------------------------------------ reshape


def _reshape_abstract_eval(operand, *, new_sizes, dimensions, sharding=None):
    if not all(d >= 0 for d in new_sizes):
        raise TypeError(f"reshape new_sizes must all be positive, got {new_sizes}.")
    if dimensions is not None and set(dimensions) != set(range(operand.ndim)):
        raise TypeError(f"reshape dimensions must be a permutation of operand dimensions, got "
                        f"dimensions {dimensions} for shape {operand.shape}.")
    # JAX 0.10.2 leaves this to XLA's verifier; an error naming both shapes is kinder
    if math.prod(new_sizes) != operand.size:
        raise TypeError(f"reshape total size must be unchanged, got new_sizes {new_sizes} (of "
                        f"total size {math.prod(new_sizes)}) for shape {operand.shape} (of total "
                        f"size {operand.size}).")
    return ShapedArray(new_sizes, operand.dtype, operand.weak_type)


def _reshape_lowering(ctx, x, *, new_sizes, dimensions, sharding=None):
    if dimensions is not None:
        aval = ctx.avals_in[0]
        permuted = tuple(aval.shape[d] for d in dimensions)
        x = ctx.op1("stablehlo.transpose", [x], {"permutation": hlo.i64_array(dimensions)},
                    result_type=hlo.tensor_type(permuted, aval.dtype))
    return ctx.op1("stablehlo.reshape", [x])


abstract_eval_rules[reshape_p] = _reshape_abstract_eval
lowering_rules[reshape_p] = _reshape_lowering
numpy_rules[reshape_p] = lambda x, *, new_sizes, dimensions, sharding=None: (
    x if dimensions is None else x.transpose(dimensions)).reshape(new_sizes)


def _reshape_transpose(ct, operand, *, new_sizes, dimensions, sharding=None):
    # the cotangent typed as the operand's cotangent, as JAX's (a sharded reshape has no
    # rule back)
    shape, typed = operand.aval.shape, operand.aval.to_ct_aval().split
    if dimensions is None:
        return [reshape(ct, shape, out_sharding=typed)]
    # undo "transpose by `dimensions`, then reshape"
    if typed is not None:
        spec = typed.spec.partitions + (None,) * (len(shape) - len(typed.spec))
        typed = NamedSharding(typed.mesh,
                              typed.spec.update(partitions=[spec[d] for d in dimensions]))
    permuted = reshape(ct, tuple(shape[d] for d in dimensions), out_sharding=typed)
    return [transpose(permuted, tuple(np.argsort(dimensions)))]


def _reshape_batching(vals, dims, *, new_sizes, dimensions, sharding=None):
    x = bu.moveaxis(vals[0], dims[0], 0)
    dimensions = None if dimensions is None else (0,) + tuple(d + 1 for d in dimensions)
    return reshape(x, bu.shape(x)[:1] + tuple(new_sizes), dimensions,
                   out_sharding=_batched_first(sharding, x)), 0


ad.deflinear2(reshape_p, _reshape_transpose)
batching_rules[reshape_p] = _reshape_batching
sharding_rules[reshape_p] = sharding_types.reshape_rule
sharding_typing_rules[reshape_p] = sharding_types.given_or_rule(reshape_p, standard=True)

# ------------------------------------------------------------------ squeeze
squeeze_p = Primitive("squeeze")


def _squeeze_abstract_eval(operand, *, dimensions):
    shape = operand.shape
    if len(set(dimensions)) != len(dimensions):
        raise ValueError(f"dimensions are not unique: {dimensions}")
    if not all(0 <= d < len(shape) for d in dimensions):
        raise ValueError(f"dimensions outside range [0, ndim): {dimensions}")
    if any(shape[d] != 1 for d in dimensions):
        raise ValueError(f"cannot select an axis to squeeze out which has size not equal to "
                         f"one, got shape={shape} and dimensions={dimensions}")
    out = tuple(s for i, s in enumerate(shape) if i not in dimensions)
    return ShapedArray(out, operand.dtype, operand.weak_type)


abstract_eval_rules[squeeze_p] = _squeeze_abstract_eval
lowering_rules[squeeze_p] = lambda ctx, x, *, dimensions: ctx.op1("stablehlo.reshape", [x])
numpy_rules[squeeze_p] = lambda x, *, dimensions: np.squeeze(x, axis=tuple(dimensions))
ad.deflinear2(squeeze_p, lambda ct, operand, *, dimensions: [expand_dims(ct, dimensions)])
batching_rules[squeeze_p] = lambda vals, dims, *, dimensions: (
    squeeze(bu.moveaxis(vals[0], dims[0], 0), tuple(d + 1 for d in dimensions)), 0)
sharding_rules[squeeze_p] = sharding_types.squeeze_rule

# ------------------------------------------------------------------ transpose


def _transpose_abstract_eval(operand, *, permutation):
    if not isinstance(permutation, (tuple, list, np.ndarray)):
        raise TypeError(f"transpose permutation must be a tuple/list/ndarray, got "
                        f"{type(permutation)}.")
    if tuple(sorted(permutation)) != tuple(range(operand.ndim)):
        raise TypeError(f"transpose permutation isn't a permutation of operand dimensions, got "
                        f"permutation {permutation} for operand shape {operand.shape}.")
    shape = tuple(operand.shape[d] for d in permutation)
    return ShapedArray(shape, operand.dtype, operand.weak_type)


abstract_eval_rules[transpose_p] = _transpose_abstract_eval
lowering_rules[transpose_p] = lambda ctx, x, *, permutation: ctx.op1(
    "stablehlo.transpose", [x], {"permutation": hlo.i64_array(permutation)})
numpy_rules[transpose_p] = lambda x, *, permutation: np.transpose(x, permutation)
ad.deflinear2(transpose_p, lambda ct, operand, *, permutation: [
    transpose(ct, tuple(np.argsort(permutation)))])


def _transpose_batching(vals, dims, *, permutation):
    (x,), (d,) = vals, dims        # one transpose both permutes and brings the batch dim first
    return transpose(x, (d,) + tuple(i if i < d else i + 1 for i in permutation)), 0


batching_rules[transpose_p] = _transpose_batching
sharding_rules[transpose_p] = sharding_types.transpose_rule

# ------------------------------------------------------------------ rev
rev_p = Primitive("rev")


def _rev_abstract_eval(operand, *, dimensions):
    check_shapelike("rev", "dimensions", dimensions)
    if len(set(dimensions)) != len(dimensions):
        raise TypeError(f"rev dimensions must be unique, got {dimensions}.")
    if dimensions and not builtins.max(dimensions) < operand.ndim:
        raise TypeError(f"rev dimensions must all be less than operand ndim, got dimensions "
                        f"{dimensions} for operand ndim {operand.ndim}.")
    return operand


abstract_eval_rules[rev_p] = _rev_abstract_eval
lowering_rules[rev_p] = lambda ctx, x, *, dimensions: ctx.op1(
    "stablehlo.reverse", [x], {"dimensions": hlo.i64_array(dimensions)})
numpy_rules[rev_p] = lambda x, *, dimensions: np.flip(x, tuple(dimensions))
ad.deflinear2(rev_p, lambda ct, operand, *, dimensions: [rev(ct, dimensions)])
batching_rules[rev_p] = lambda vals, dims, *, dimensions: (
    rev(vals[0], tuple(i + 1 if i >= dims[0] else i for i in dimensions)), dims[0])
sharding_rules[rev_p] = sharding_types.same_as_operand_rule

# ------------------------------------------------------------------ concatenate
concatenate_p = Primitive("concatenate")


def _concatenate_abstract_eval(*operands, dimension):
    if not operands:
        raise TypeError("concatenate expects at least one operand, got 0.")
    shapes = ", ".join(str(o.shape) for o in operands)
    if len({o.ndim for o in operands}) != 1:
        raise TypeError(f"Cannot concatenate arrays with different numbers of dimensions: "
                        f"got {shapes}.")
    if not 0 <= dimension < operands[0].ndim:
        raise TypeError(f"concatenate dimension out of bounds: dimension {dimension} for "
                        f"shapes {shapes}.")
    others = {o.shape[:dimension] + o.shape[dimension + 1:] for o in operands}
    if len(others) != 1:
        raise TypeError(f"Cannot concatenate arrays with shapes that differ in dimensions other "
                        f"than the one being concatenated: concatenating along dimension "
                        f"{dimension} for shapes {shapes}.")
    check_same_dtypes("concatenate", *operands)
    first = operands[0].shape
    size = builtins.sum(o.shape[dimension] for o in operands)
    return ShapedArray(first[:dimension] + (size,) + first[dimension + 1:], operands[0].dtype,
                       all(o.weak_type for o in operands))


def _concatenate_tree(ctx, xs, shapes, dtype, dimension):
    """One value of `xs` (of `shapes`) joined along `dimension`: XLA compiles a very wide
    concatenate slowly, so at most 16 operands at a time, in a tree (JAX's
    `_concatenate_tree`); jnp.concatenate and jnp.stack stay one equation, and eagerly one
    compiled program, however many arrays they join."""
    xs, shapes, attrs = list(xs), list(shapes), {"dimension": hlo.i64_attr(dimension)}
    while len(xs) > 16:
        joined = []
        for i in range(0, len(xs), 16):
            group = shapes[i:i + 16]
            shape = group[0][:dimension] + (builtins.sum(s[dimension] for s in group),) + \
                group[0][dimension + 1:]
            joined.append((ctx.op1("stablehlo.concatenate", xs[i:i + 16], attrs,
                                   result_type=hlo.tensor_type(shape, dtype)), shape))
        xs, shapes = [x for x, _ in joined], [s for _, s in joined]
    return ctx.op1("stablehlo.concatenate", xs, attrs)


abstract_eval_rules[concatenate_p] = _concatenate_abstract_eval
lowering_rules[concatenate_p] = hl.widen_2bit(lambda ctx, *xs, dimension: _concatenate_tree(
    ctx, xs, [a.shape for a in ctx.avals_in], ctx.avals_in[0].dtype, dimension))
numpy_rules[concatenate_p] = lambda *xs, dimension: np.concatenate(xs, axis=dimension)


def _concatenate_transpose(ct, *operands, dimension):
    # each operand gets its stretch of the cotangent: one split, as in JAX (the stretches of
    # operands that are not linear inputs are dropped)
    return split(ct, tuple(ad.aval_of(x).shape[dimension] for x in operands), dimension)


def _concatenate_batching(vals, dims, *, dimension):
    # an unbatched operand is broadcast split as the first batched one's batch dim is, as
    # JAX's rule reads its spec: the operands' types agree (they must, over Explicit axes)
    size = bu.axis_size_of(vals, dims)
    x, d = next((x, d) for x, d in zip(vals, dims) if d is not bu.not_mapped)
    aval = get_aval(x)
    axes = sharding_types.parts_of(aval)[d] if aval.split is not None else None
    return concatenate([bu.bdim_at_front(x, d, size, axes) for x, d in zip(vals, dims)],
                       dimension + 1), 0


ad.deflinear2(concatenate_p, _concatenate_transpose)
batching_rules[concatenate_p] = _concatenate_batching
sharding_rules[concatenate_p] = sharding_types.same_sharding_rule    # even along a split dim

# ------------------------------------------------------------------ split
# The inverse of concatenate: one primitive with an output per piece (JAX 0.10's), so that
# concatenate's transpose and jnp.split are one equation, not a slice per piece.
split_p = Primitive("split", multiple_results=True)


def _split_abstract_eval(operand, *, sizes, axis):
    # sizes may be NumPy integers, as JAX's jnp.split computes them (they print so in the
    # params); the results' shapes have Python ints, as every aval's
    sizes = [int(s) if isinstance(s, np.integer) else s for s in sizes]
    if any(s < 0 for s in sizes):
        raise ValueError(f"Sizes passed to split must be nonnegative, got {list(sizes)}")
    if not 0 <= axis < operand.ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {operand.ndim}")
    if operand.shape[axis] != builtins.sum(sizes):
        raise ValueError(f"Sum of sizes {builtins.sum(sizes)} must be equal to dimension {axis} "
                         f"of the operand shape {list(operand.shape)}")
    shape = operand.shape
    return [ShapedArray(shape[:axis] + (s,) + shape[axis + 1:], operand.dtype,
                        operand.weak_type) for s in sizes]


def _split_lowering(ctx, x, *, sizes, axis):
    shape = ctx.avals_in[0].shape
    start, outs = 0, []
    for size, aval in zip(sizes, ctx.avals_out):
        lo = [0] * len(shape)
        hi = list(shape)
        lo[axis], hi[axis] = start, start + size
        outs.append(ctx.op1("stablehlo.slice", [x], {
            "start_indices": hlo.i64_array(lo), "limit_indices": hlo.i64_array(hi),
            "strides": hlo.i64_array((1,) * len(shape))}, result_type=hlo.aval_type(aval)))
        start += size
    return outs


def _split_jvp(primals, tangents, *, sizes, axis):
    outs = split_p.bind(*primals, sizes=sizes, axis=axis)
    if type(tangents[0]) is ad.Zero:
        return outs, [ad.Zero(ad.aval_of(o)) for o in outs]
    return outs, split_p.bind(tangents[0], sizes=sizes, axis=axis)


def _split_transpose(cts, operand, *, sizes, axis):
    return [concatenate([ad.instantiate(ct) for ct in cts], axis)]


def _split_batching(vals, dims, *, sizes, axis):
    (x,), (d,) = vals, dims
    return split_p.bind(x, sizes=sizes, axis=axis + (axis >= d)), [d] * len(sizes)


abstract_eval_rules[split_p] = _split_abstract_eval
lowering_rules[split_p] = _split_lowering
numpy_rules[split_p] = lambda x, *, sizes, axis: np.split(x, np.cumsum(sizes)[:-1], axis)
jvp_rules[split_p] = _split_jvp
transpose_rules[split_p] = _split_transpose
batching_rules[split_p] = _split_batching
sharding_rules[split_p] = sharding_types.split_rule

# ------------------------------------------------------------------ stack, unstack, tile
# JAX 0.10's primitives for jnp.stack's and jnp.unstack's work and for lax.tile: one equation
# each (a broadcast per operand and a concatenate, a slice per piece, a reshape-broadcast-
# reshape, when lowered), and each of stack and unstack is the other's transpose.
stack_p = Primitive("stack")


def _stack_abstract_eval(*operands, axis):
    if not operands:
        raise ValueError("stack expects at least one operand, got 0.")
    if len({o.ndim for o in operands}) != 1:
        raise ValueError(f"Cannot stack arrays with different numbers of dimensions: got "
                         f"{', '.join(str(o.shape) for o in operands)}.")
    if len({o.shape for o in operands}) != 1:
        raise ValueError(f"All input arrays must have the same shape. Got "
                         f"{', '.join(str(o.shape) for o in operands)}.")
    check_same_dtypes("stack", *operands)
    shape = list(operands[0].shape)
    shape.insert(axis, len(operands))
    return ShapedArray(tuple(shape), operands[0].dtype, all(o.weak_type for o in operands))


def _stack_lowering(ctx, *xs, axis):
    # each operand gets a unit axis at `axis` (broadcast_in_dim, as JAX), then one concatenate
    shape = list(ctx.avals_in[0].shape)
    shape.insert(axis, 1)
    dims = [i for i in range(len(shape)) if i != axis]
    unit = hlo.tensor_type(tuple(shape), ctx.avals_in[0].dtype)
    expanded = [ctx.op1("stablehlo.broadcast_in_dim", [x],
                        {"broadcast_dimensions": hlo.i64_array(dims)}, result_type=unit)
                for x in xs]
    return _concatenate_tree(ctx, expanded, [tuple(shape)] * len(xs), ctx.avals_in[0].dtype,
                             axis)


def _stack_transpose(ct, *operands, axis):
    return unstack_p.bind(ct, axis=axis)


def _stack_batching(vals, dims, *, axis):
    if all(d is not None for d in dims) and len(set(dims)) == 1:
        d = dims[0]                     # the same batch axis everywhere: stack around it
        return stack_p.bind(*vals, axis=axis + (axis > d)), d + (axis <= d)
    size = bu.axis_size_of(vals, dims)
    return stack_p.bind(*[bu.bdim_at_front(x, d, size) for x, d in zip(vals, dims)],
                        axis=axis + 1), 0


abstract_eval_rules[stack_p] = _stack_abstract_eval
lowering_rules[stack_p] = _stack_lowering
numpy_rules[stack_p] = lambda *xs, axis: np.stack(xs, axis)
ad.deflinear2(stack_p, _stack_transpose)
batching_rules[stack_p] = _stack_batching
sharding_rules[stack_p] = sharding_types.stack_rule

unstack_p = Primitive("unstack", multiple_results=True)


def _unstack_abstract_eval(operand, *, axis):
    if operand.ndim == 0:
        raise ValueError(f"unstack requires arrays with rank > 0, however a scalar array of "
                         f"shape {operand.shape} was passed.")
    shape = operand.shape[:axis] + operand.shape[axis + 1:]
    return [ShapedArray(shape, operand.dtype, operand.weak_type)] * operand.shape[axis]


def _unstack_lowering(ctx, x, *, axis):
    shape = ctx.avals_in[0].shape
    piece = hlo.tensor_type(shape[:axis] + (1,) + shape[axis + 1:], ctx.avals_in[0].dtype)
    outs = []
    for i, aval in enumerate(ctx.avals_out):
        lo, hi = [0] * len(shape), list(shape)
        lo[axis], hi[axis] = i, i + 1
        sliced = ctx.op1("stablehlo.slice", [x], {
            "start_indices": hlo.i64_array(lo), "limit_indices": hlo.i64_array(hi),
            "strides": hlo.i64_array((1,) * len(shape))}, result_type=piece)
        outs.append(ctx.op1("stablehlo.reshape", [sliced], result_type=hlo.aval_type(aval)))
    return outs


def _unstack_jvp(primals, tangents, *, axis):
    outs = unstack_p.bind(*primals, axis=axis)
    if type(tangents[0]) is ad.Zero:
        return outs, [ad.Zero(ad.aval_of(o)) for o in outs]
    return outs, unstack_p.bind(tangents[0], axis=axis)


def _unstack_transpose(cts, operand, *, axis):
    if all(type(ct) is ad.Zero for ct in cts):
        return [ad.Zero(operand.aval)]
    return [stack_p.bind(*[ad.instantiate(ct) for ct in cts], axis=axis)]


def _unstack_batching(vals, dims, *, axis):
    (x,), (d,) = vals, dims
    outs = unstack_p.bind(x, axis=axis + (axis >= d))
    return outs, [d - (axis < d)] * len(outs)


def _unstack_sharding(name, in_avals, params, out_avals):
    parts, axis = sharding_types.parts_of(in_avals[0]), params["axis"]
    if parts[axis]:
        raise sharding_types.ShardingTypeError(
            f"unstack operand cannot be sharded on the unstacking axis {axis}. Got operand "
            f"type={in_avals[0].str_short(True)}")
    return [parts[:axis] + parts[axis + 1:]] * len(out_avals)


abstract_eval_rules[unstack_p] = _unstack_abstract_eval
lowering_rules[unstack_p] = _unstack_lowering
numpy_rules[unstack_p] = lambda x, *, axis: list(np.moveaxis(x, axis, 0))
jvp_rules[unstack_p] = _unstack_jvp
transpose_rules[unstack_p] = _unstack_transpose
batching_rules[unstack_p] = _unstack_batching
sharding_rules[unstack_p] = _unstack_sharding

tile_p = Primitive("tile")


def _check_tile_rank(ndim, reps) -> None:
    if ndim != len(reps):
        raise TypeError(f"reps length must be equal to the ndim of x, got len(reps)={len(reps)} "
                        f"and x.ndim={ndim}.")


def _tile_abstract_eval(operand, *, reps):
    _check_tile_rank(operand.ndim, reps)
    return ShapedArray(tuple(d * r for d, r in zip(operand.shape, reps)), operand.dtype,
                       operand.weak_type)


def _tile_lowering(ctx, x, *, reps):
    # as JAX: a unit axis before each dimension, broadcast to the repeat counts, merged back
    aval = ctx.avals_in[0]
    unit = hlo.tensor_type(tuple(j for d in aval.shape for j in (1, d)), aval.dtype)
    wide = hlo.tensor_type(tuple(j for r, d in zip(reps, aval.shape) for j in (r, d)), aval.dtype)
    x = ctx.op1("stablehlo.reshape", [x], result_type=unit)
    x = ctx.op1("stablehlo.broadcast_in_dim", [x], {
        "broadcast_dimensions": hlo.i64_array(range(2 * aval.ndim))}, result_type=wide)
    return ctx.op1("stablehlo.reshape", [x])


def _tile_transpose(ct, operand, *, reps):
    aval = operand.aval
    shape = aval.shape
    # (JAX's: each dimension's pair typed (unsplit count, the operand's splitting), which the
    # reshape could not infer from the cotangent's split merged dimension)
    typed = aval.split
    out_sharding = None if typed is None else NamedSharding(typed.mesh, PartitionSpec(
        *(e for p in sharding_types.parts_of(aval)
          for e in (None, None if not p else p[0] if len(p) == 1 else p))))
    pairs = reshape(ct, tuple(j for r, d in zip(reps, shape) for j in (r, d)),
                    out_sharding=out_sharding)
    return [reduce_sum(pairs, tuple(range(0, 2 * len(shape), 2)))]


def _tile_sharding(name, in_avals, params, out_avals):
    """JAX's tile rule: the operand's sharding, no dimension tiled more than once split."""
    x, parts = in_avals[0], sharding_types.parts_of(in_avals[0])
    for i, (r, p) in enumerate(zip(params["reps"], parts)):
        if r != 1 and p:
            raise sharding_types.ShardingTypeError(
                f"Operand cannot be sharded on dimension {i} when the tiling is non-trivial. "
                f"Got input type: {x} with reps: {params['reps']}")
    return parts


def _tile_batching(vals, dims, *, reps):
    (x,), (d,) = vals, dims
    return tile_p.bind(x, reps=reps[:d] + (1,) + reps[d:]), d


abstract_eval_rules[tile_p] = _tile_abstract_eval
lowering_rules[tile_p] = _tile_lowering
numpy_rules[tile_p] = lambda x, *, reps: np.tile(x, reps)
ad.deflinear2(tile_p, _tile_transpose)
batching_rules[tile_p] = _tile_batching
sharding_rules[tile_p] = _tile_sharding

# ------------------------------------------------------------------ iota
iota_p = Primitive("iota")


def _iota_abstract_eval(*, dtype, shape, dimension, sharding=None):
    check_shapelike("iota", "shape", shape)
    if np.dtype(dtype) not in NUMERIC:
        raise TypeError(f"iota does not accept dtype {np.dtype(dtype).name}. Accepted dtypes are "
                        f"subtypes of integer, floating, complexfloating.")
    if not 0 <= dimension < len(shape):
        raise ValueError(f"iota dimension must be between 0 and len(shape), got "
                         f"dimension={dimension} for shape={shape}")
    return ShapedArray(shape, dtype, False)


abstract_eval_rules[iota_p] = _iota_abstract_eval
lowering_rules[iota_p] = lambda ctx, *, dtype, shape, dimension, sharding=None: ctx.op1(
    "stablehlo.iota", [], {"iota_dimension": hlo.i64_attr(dimension)})
numpy_rules[iota_p] = lambda *, dtype, shape, dimension, sharding=None: np.broadcast_to(
    np.arange(shape[dimension]).astype(dtype).reshape(
        [shape[dimension] if d == dimension else 1 for d in range(len(shape))]), shape)
ad.defjvp_zero(iota_p)      # no operands: vmap and jvp never see it, but say so anyway
sharding_typing_rules[iota_p] = sharding_types.given_or_rule(iota_p, context_mesh=True)


# ------------------------------------------------------------------ lax functions
def broadcast_in_dim(operand, shape, broadcast_dimensions, *, out_sharding=None):
    """`operand` broadcast to `shape`, its dimension i becoming broadcast_dimensions[i].

        >>> lax.broadcast_in_dim(jnp.arange(3), (2, 3), (1,)).shape
        (2, 3)
    """
    shape = canonicalize_shape(shape)
    if out_sharding is None:              # jnp.zeros(..., out_sharding=)'s, a param as JAX's
        out_sharding = sharding_types.override_for(broadcast_in_dim_p, len(shape))
    if out_sharding is not None:          # (a hot path while tracing: no call without one)
        out_sharding = canonicalize_sharding(out_sharding, "broadcast_in_dim")
    if out_sharding is None:
        if _ndim(operand) == len(shape) and not len(broadcast_dimensions) and _is_array(operand):
            return operand
    elif _shape(operand) == shape and list(broadcast_dimensions) == list(range(len(shape))) \
            and not _typed_as(operand, out_sharding):
        return reshard(operand, out_sharding)         # (JAX's: only the layout changes)
    else:
        check_type_divides(shape, out_sharding)
    return broadcast_in_dim_p.bind(operand, shape=shape,
                                   broadcast_dimensions=_int_params(broadcast_dimensions),
                                   sharding=out_sharding)


def _asarray(x):
    """JAX's lax.asarray of a non-array: a Python scalar weakly typed, NumPy data (and a
    bool) as its canonical dtype; converted as a constant while staging (a literal)."""
    if type(x) in (int, float, complex):
        return _convert_element_type(x, dtypes.canonicalize_dtype(
            dtypes.python_scalar_dtype(x)), True)
    value = np.asarray(x)
    return _convert_element_type(value, dtypes.canonicalize_dtype(value.dtype), False)


def _typed_as(x, sharding) -> bool:
    """Whether `x`'s type is already `sharding`'s (what canonicalize_sharding gives)."""
    typed = get_aval(x).split
    want = sharding_types.typed_sharding(sharding, len(_shape(x)))
    if typed is None or want is None:
        return typed is want
    return typed.mesh.abstract_mesh == want.mesh and typed.spec == want.spec


def _int_params(values) -> tuple:
    """Integer parameters as given (validated): NumPy integers stay NumPy integers, as in
    JAX's lax, whose batching rules and jnp functions compute some with NumPy; a jaxpr
    prints them as JAX's does (`np.int64(1)`)."""
    return tuple(v if isinstance(v, np.integer) else operator.index(v) for v in values)


def broadcast(operand, sizes, *, out_sharding=None):
    """`operand` with new leading dimensions of `sizes`: shape (*sizes, *operand.shape).

        >>> lax.broadcast(jnp.ones(3), (2,)).shape
        (2, 3)
    """
    sizes = canonicalize_shape(sizes)
    if not sizes and out_sharding is None:
        return operand if _is_array(operand) else _asarray(operand)
    shape = _shape(operand)
    dims = tuple(range(len(sizes), len(sizes) + len(shape)))
    return broadcast_in_dim(operand, sizes + tuple(shape), dims, out_sharding=out_sharding)


def broadcast_shapes(*shapes) -> tuple:
    """The shape NumPy broadcasting gives arrays of `shapes` (ValueError if there is none).

    >>> broadcast_shapes((3, 1), (1, 4), (5, 1, 1))
    (5, 3, 4)
    """
    if not shapes:
        raise TypeError("broadcast_shapes: At least one shape is required.")
    for shape in shapes:      # a sequence of non-integers ('hello') gets JAX's words below
        if not hasattr(shape, "__iter__"):
            raise TypeError(f"broadcast_shapes: each shape must be a tuple of integers, got "
                            f"{shape!r} of type {type(shape).__name__}.")
        if not all(is_symbolic(d) or d >= 0 for d in canonicalize_shape(shape)):
            raise TypeError(f"Only non-negative indices are allowed when broadcasting static "
                            f"shapes, but got shape {shape!r}.")
    canonical = [canonicalize_shape(s) for s in shapes]
    rank = max(map(len, canonical))
    try:          # the elementwise rule, once ranks are promoted with leading 1s
        return _rules.broadcast_shapes(
            "broadcast_shapes", *((1,) * (rank - len(s)) + s for s in canonical)) or ()
    except TypeError as err:    # (its cause, as JAX's: the rank-promoted shapes' TypeError)
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes)}") from err


def broadcast_like(arr, like_arr):
    """`arr` broadcast (NumPy's rules) to the shape of `like_arr`.

        >>> lax.broadcast_like(jnp.array([1, 2, 3]), jnp.zeros((2, 3)))
        Array([[1, 2, 3],
               [1, 2, 3]], dtype=int32)
    """
    shape, target = _shape(arr), _shape(like_arr)
    # `like_arr`'s sharding too where its type is split over Explicit axes (JAX's
    # broadcast_to(arr, like.shape, sharding=typeof(like).sharding))
    like = like_arr.aval.sharding if _is_array(like_arr) and like_arr.aval.split is not None \
        else None
    if shape == target and _is_array(arr) and (like is None or arr.aval.sharding == like):
        return arr
    broadcast_shapes(shape, target)             # NumPy's error for shapes that do not fit
    lead = len(target) - len(shape)
    if like is not None and _is_array(arr):
        tail = like.spec.partitions[lead:]
        if not all(a in (None, o) for a, o in zip(arr.aval.sharding.spec.partitions, tail)):
            wanted = ShapedArray(target, arr.aval.dtype, sharding=like)
            raise ValueError(f"Incompatible types for broadcasting: input type={arr.aval} and "
                             f"requested type={wanted.str_short()}")
    return broadcast_in_dim(arr, target, tuple(range(lead, len(target))), out_sharding=like)


def shape_as_value(shape):
    """`shape` as an integer array (int32, or int64 under x64), symbolic dimensions
    included (jax.export's): what a shape-polymorphic program computes its sizes from.

        >>> lax.shape_as_value((2, 3))
        array([2, 3], dtype=int32)
    """
    dtype = dtypes.default_int_dtype()
    if len(shape) == 0:
        return broadcast(np.array(0, dtype=dtype), (0,))
    if not builtins.any(is_symbolic(d) for d in shape):
        return np.asarray(shape, dtype=dtype)
    # a symbolic dimension's __jax_array__ is its value in the program (dim_as_value)
    values = [d.__jax_array__() if is_symbolic(d) else np.array(d, dtype) for d in shape]
    return concatenate([expand_dims(v if v.dtype == dtype else _convert_element_type(v, dtype),
                                    (0,)) for v in values], 0)


def broadcast_to_rank(x, rank: int):
    """`x` with leading dimensions of size 1 added to give it rank `rank`."""
    ndim = _ndim(x)
    if ndim == rank and _is_array(x):
        return x
    return broadcast(x, (1,) * (rank - ndim))


def reshape(operand, new_sizes, dimensions=None, *, out_sharding=None):
    """`operand` with shape `new_sizes`, reading it in the order of `dimensions` (a
    permutation, applied as a transpose first) if given.

        >>> lax.reshape(jnp.arange(6), (2, 3)).shape
        (2, 3)
        >>> lax.reshape(jnp.arange(6).reshape(2, 3), (6,), (1, 0))
        Array([0, 3, 1, 4, 2, 5], dtype=int32)
    """
    new_sizes = canonicalize_shape(new_sizes)
    dims = None if dimensions is None else tuple(operator.index(d) for d in dimensions)
    same_dims = dims is None or dims == tuple(range(_ndim(operand)))
    if out_sharding is not None:          # (a hot path while tracing: no call without one)
        out_sharding = canonicalize_sharding(out_sharding, "reshape")
    if _shape(operand) and tuple(_shape(operand)) == new_sizes and same_dims and \
            _is_array(operand) and (out_sharding is None or _typed_as(operand, out_sharding)):
        return operand
    # (untyped where no Explicit axis is in sight, out_sharding= or not: see given_or_rule)
    if out_sharding is not None and sharding_types.explicit_anywhere([get_aval(operand)]):
        check_type_divides(new_sizes, out_sharding)
    return reshape_p.bind(operand, new_sizes=new_sizes, dimensions=None if same_dims else dims,
                          sharding=out_sharding)


def squeeze(array, dimensions):
    """`array` without the size-1 dimensions `dimensions` (negative axes allowed).

        >>> lax.squeeze(jnp.ones((1, 3, 1)), (0, -1)).shape
        (3,)
    """
    ndim = _ndim(array)
    dimensions = tuple(sorted(canonicalize_axis(d, ndim) for d in dimensions))
    if not dimensions and _is_array(array):
        return array
    return squeeze_p.bind(array, dimensions=dimensions)


def expand_dims(array, dimensions):
    """`array` with size-1 dimensions inserted at `dimensions` (positions in the result).
    Like JAX, this is a broadcast_in_dim, not a primitive of its own.

        >>> lax.expand_dims(jnp.ones((2, 3)), (0, 2)).shape
        (1, 2, 1, 3)
    """
    dimensions = tuple(dimensions)
    if not dimensions and _is_array(array):
        return array                               # nothing to insert: no equation, as JAX
    if len(set(dimensions)) != len(dimensions):
        raise ValueError(f"repeated axis in lax.expand_dims: {dimensions}")
    ndim_out = _ndim(array) + len(dimensions)
    dims = [canonicalize_axis(d, ndim_out) for d in dimensions]
    if len(set(dims)) != len(dims):
        raise ValueError(f"repeated axis in lax.expand_dims: {dims}")
    shape = list(_shape(array))
    for d in sorted(dims):
        shape.insert(d, 1)
    return broadcast_in_dim(array, shape, [i for i in range(ndim_out) if i not in dims])


def transpose(operand, permutation):
    """`operand` with its dimensions permuted: result dimension i is operand dimension
    permutation[i].

        >>> lax.transpose(jnp.ones((2, 3, 4)), (2, 0, 1)).shape
        (4, 2, 3)
    """
    permutation = tuple(operator.index(d) for d in permutation)
    if permutation == tuple(range(_ndim(operand))) and _is_array(operand):
        return operand
    return transpose_p.bind(operand, permutation=permutation)


def rev(operand, dimensions):
    """`operand` reversed along `dimensions`.

        >>> lax.rev(jnp.arange(3), (0,))
        Array([2, 1, 0], dtype=int32)
    """
    return rev_p.bind(operand, dimensions=tuple(dimensions))


def concatenate(operands, dimension: int):
    """The arrays `operands` (same dtype, same shape but along `dimension`) joined along
    `dimension`.

        >>> lax.concatenate([jnp.ones((1, 2)), jnp.zeros((3, 2))], 0).shape
        (4, 2)
    """
    if len(operands) == 0:
        raise ValueError("concatenate requires a non-empty sequences of arrays")
    if len(operands) == 1 and _is_array(operands[0]):
        return operands[0]
    if type(dimension) is not int and not isinstance(dimension, Tracer):   # (ints: the path)
        try:
            hash(dimension)
        except TypeError as e:
            # JAX binds the dimension as given, whose hash refuses an array or a list
            # (lax.concatenate(x, y), the arrays one by one: JAX's "unhashable type")
            raise TypeError(unhashable_as_jax(dimension, e)[1]) from None
    index = operator.index(dimension)
    # (a NumPy int stays one in the equation, as JAX's binds what it is given: jnp.roll's
    # `concatenate[dimension=np.int64(0)]`)
    return concatenate_p.bind(*operands, dimension=dimension if isinstance(dimension, np.integer)
                              else index)


def split(operand, sizes, axis: int = 0) -> list:
    """`operand` cut along `axis` into consecutive pieces of `sizes` (which sum to that
    dimension's size): the inverse of concatenate.

        >>> [p.shape for p in lax.split(jnp.ones((5, 2)), (2, 3))]
        [(2, 2), (3, 2)]
    """
    try:
        sizes = _int_params(sizes)      # jnp.split's np.int64 sizes stay so, as in JAX
    except TypeError:                   # jax.export's symbolic sizes
        sizes = tuple(map(index_or_symbolic, sizes))
    return split_p.bind(operand, sizes=sizes, axis=canonicalize_axis(axis, _ndim(operand)))


def broadcasted_iota(dtype, shape, dimension: int, *, out_sharding=None):
    """An array of `shape` whose values count 0, 1, ... along `dimension`.

        >>> lax.broadcasted_iota(np.int32, (2, 3), 1)
        Array([[0, 1, 2],
               [0, 1, 2]], dtype=int32)
    """
    dtype = dtypes.canonicalize_user_dtype(dtype, "broadcasted_iota")
    shape = canonicalize_shape(shape)
    out_sharding = canonicalize_sharding(out_sharding, "broadcasted_iota")
    if out_sharding is not None:
        check_type_divides(shape, out_sharding)
    return iota_p.bind(dtype=dtype, shape=shape, dimension=operator.index(dimension),
                       sharding=out_sharding)


def iota(dtype, size: int):
    """[0, 1, ..., size - 1] of `dtype`.

        >>> lax.iota(np.int32, 4)
        Array([0, 1, 2, 3], dtype=int32)
    """
    return broadcasted_iota(dtype, (size,), 0)


def collapse(operand, start_dimension: int, stop_dimension: int | None = None):
    """`operand` with dimensions [start_dimension, stop_dimension) merged into one
    (row-major), as a reshape.

        >>> lax.collapse(jnp.ones((2, 3, 4)), 0, 2).shape
        (6, 4)
    """
    shape = tuple(_shape(operand))
    lo, hi, _ = builtins.slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(f"Invalid dimension range passed to collapse: {shape}"
                         f"[{start_dimension}:{stop_dimension}]")
    return reshape(operand, shape[:lo] + (math.prod(shape[lo:hi]),) + shape[hi:])


def stack(operands, axis: int = 0):
    """The arrays `operands` (all of one shape and dtype) joined along a new axis `axis`.

        >>> lax.stack([jnp.array([1, 2]), jnp.array([3, 4])], axis=1)
        Array([[1, 3],
               [2, 4]], dtype=int32)
    """
    if len(operands) == 0:
        raise ValueError("stack expects at least one operand, got 0.")
    return stack_p.bind(*operands, axis=canonicalize_axis(axis, _ndim(operands[0]) + 1))


def unstack(x, axis: int = 0) -> tuple:
    """`x` cut into its slices along `axis`, each without that axis (the inverse of stack).

        >>> lax.unstack(jnp.array([[1, 2], [3, 4]]), axis=1)
        (Array([1, 3], dtype=int32), Array([2, 4], dtype=int32))
    """
    return tuple(unstack_p.bind(x, axis=canonicalize_axis(axis, _ndim(x))))


def tile(operand, reps):
    """`operand` repeated `reps[i]` times along each dimension i (one count per dimension).

        >>> lax.tile(jnp.array([[1, 2]]), (2, 2))
        Array([[1, 2, 1, 2],
               [1, 2, 1, 2]], dtype=int32)
    """
    reps = tuple(reps)
    try:
        counts = tuple(operator.index(r) for r in reps)
    except TypeError:
        try:
            _refuse_counts(operand, reps)
        except Exception as e:
            # JAX's is the tile primitive's shape rule, raised under eager dispatch's boundary:
            # filtered, with JAX's note (only on this error path)
            filter_before_raising(e, sys._getframe())
            raise
        raise
    return tile_p.bind(operand, reps=counts)


def _refuse_counts(operand, reps) -> None:
    """JAX's error for a count that is no int (lax.tile(x, (3.0,))): its tile multiplies the
    shape by the counts as given, and the shape's check refuses the float sizes that gives
    ("Shapes must be 1D sequences of concrete values of integer type, got (np.float64(6.0),)")."""
    shape = np.shape(operand)
    _check_tile_rank(len(shape), reps)
    canonicalize_shape(tuple(np.multiply(shape, reps)))


__all__ = ["broadcast_in_dim_p", "reshape_p", "squeeze_p", "transpose_p", "rev_p",
           "concatenate_p", "split_p", "iota_p", "broadcast", "broadcast_in_dim",
           "broadcast_shapes", "broadcast_to_rank", "reshape", "squeeze", "expand_dims",
           "transpose", "rev", "concatenate", "split", "iota", "broadcasted_iota", "collapse",
           "stack_p", "unstack_p", "tile_p", "stack", "unstack", "tile", "broadcast_like",
           "shape_as_value"]

# the mesh axes their results are unreduced and reduced over (JAX's ur rules)
sharding_types.ur_rules[squeeze_p] = sharding_types.keeps_ur_rule
sharding_types.ur_rules[split_p] = sharding_types.keeps_ur_rule
sharding_types.ur_rules[concatenate_p] = sharding_types.same_sets_ur_rule
sharding_types.ur_rules[stack_p] = sharding_types.same_sets_ur_rule
sharding_types.ur_rules[broadcast_in_dim_p] = sharding_types.broadcast_ur_rule
sharding_types.ur_rules[reshape_p] = sharding_types.reshape_ur_rule
sharding_types.ur_rules[transpose_p] = sharding_types.keeps_ur_rule
