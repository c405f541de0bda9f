"""Sorting: sort (several operands, lexicographic on the first `num_keys`, optionally
stable) and top_k. Each primitive is followed by its rules.

    >>> lax.sort(jnp.array([3., 1., 2.]))
    Array([1., 2., 3.], dtype=float32)

Floats sort in JAX's total order: -inf < ... < -0.0 == 0.0 < ... < inf < NaN; the
comparator first maps -0.0 to 0.0 and every NaN to one NaN, so zeros of either sign
keep their order under a stable sort and all NaNs go to the end. Complex numbers
sort by (real, imag).
"""
from __future__ import annotations

import operator

import numpy as np

from ..core import dtypes, sharding_types
from ..core.avals import ShapedArray
from ..core.errors import InconclusiveDimensionOperation
from ..core.symbolic import index_or_symbolic, is_symbolic
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                              lowering_rules, numpy_rules, sharding_rules,
                              sharding_typing_rules)
from ..xla import client as _client
from ..xla import stablehlo as hlo
from ..xla.ffi import custom_call
from ..transforms import ad_util as ad
from ..transforms import batch_util as bu
from . import _lowering as hl
from . import shapes, slicing

# ------------------------------------------------------------------ sort
sort_p = Primitive("sort", multiple_results=True)


def _sort_abstract_eval(*operands, dimension, is_stable, num_keys):
    if not operands:
        raise TypeError("Sort requires at least one operand")
    if any(a.shape != operands[0].shape for a in operands[1:]):
        raise TypeError(f"Arguments to sort must have equal shapes, got: "
                        f"{' '.join(str(a.shape) for a in operands)}")
    if not 0 <= dimension < operands[0].ndim:
        raise ValueError(f"axis {dimension} is out of bounds for array of dimension "
                         f"{operands[0].ndim}")
    if not 1 <= num_keys <= len(operands):
        raise ValueError(f"num_keys={num_keys} must be between 1 and len(operand)={len(operands)}")
    return list(operands)


def _canonical_float(ctx, x, aval):
    """x with -0.0 made 0.0 and every NaN made the one positive quiet NaN."""
    zero = ctx.constant(np.zeros((), aval.dtype))
    x = hl.select(ctx, hl.compare(ctx, x, zero, "EQ", aval), zero, x, aval)
    nan = ctx.constant(np.array(np.nan, aval.dtype))
    return hl.select(ctx, hl.compare(ctx, x, x, "NE", aval), nan, x, aval)


def _sort_keys(ctx, x, aval):
    """The scalar keys `x` is ordered by, most significant first, with their avals."""
    if dtypes.is_complex(aval.dtype):
        part = ShapedArray((), np.float32 if aval.dtype == dtypes.complex64 else np.float64)
        return [(_canonical_float(ctx, ctx.block.op1(op, [x], hl.aval_type(part)), part), part)
                for op in ("stablehlo.real", "stablehlo.imag")]
    if dtypes.is_float(aval.dtype):
        return [(_canonical_float(ctx, x, aval), aval)]
    return [(x, aval)]


def _sort_comparator(ctx, avals, num_keys):
    """The region `less_than(a0, b0, a1, b1, ...)`: lexicographic over the keys of the first
    `num_keys` operands, each compared in total order (JAX's _sort_lt_comparator)."""
    scalars = [ShapedArray((), a.dtype) for a in avals]
    block = ctx.new_block([hl.aval_type(s) for s in scalars for _ in range(2)])
    rctx = ctx.with_block(block)
    keys = []
    for i in range(num_keys):
        a, b = block.args[2 * i], block.args[2 * i + 1]
        keys += zip(_sort_keys(rctx, a, scalars[i]), _sort_keys(rctx, b, scalars[i]))
    less = None
    for (a, aval), (b, _) in reversed(keys):
        lt = hl.compare(rctx, a, b, "LT", aval, total_order=True)
        if less is not None:
            eq = hl.compare(rctx, a, b, "EQ", aval, total_order=True)
            tie = block.op1("stablehlo.and", [eq, less], lt.type)
            lt = block.op1("stablehlo.or", [lt, tie], lt.type)
        less = lt
    block.ret([less])
    return block


def _sort_lowering(ctx, *operands, dimension, is_stable, num_keys):
    return ctx.op("stablehlo.sort", list(operands),
                  {"dimension": hlo.i64_attr(dimension), "is_stable": hlo.bool_attr(is_stable)},
                  regions=[_sort_comparator(ctx, ctx.avals_in, num_keys)])




def _as_compared(key):
    """A float32/float64 sort key as XLA's CPU comparator reads it: a subnormal as zero (its
    `x == 0` canonicalization reads with DAZ), so it ties with 0.0; the values sorted keep it.
    A narrower float (bfloat16, the float8s, float16) is compared as float32, which holds each
    of its values exactly: ml_dtypes' own sort leaves NaNs where they were and the numbers
    around them unsorted (argsort of bfloat16 [3, nan, 1] is [0, 1, 2])."""
    if dtypes.is_float(key.dtype) and key.dtype.itemsize < 4:
        return key.astype(np.float32)
    if key.dtype not in (np.float32, np.float64):
        return key
    return np.where(np.abs(key) < dtypes.finfo(key.dtype).tiny, key.dtype.type(0), key)


def _sort_numpy(*operands, dimension, is_stable, num_keys):
    """A stable lexicographic sort over the first num_keys operands (complex ones by real,
    then imaginary part). NumPy's order is the lowering's total order: NaN last, -0.0 equal
    to 0.0; ties keep their order (a valid order for is_stable=False too)."""
    keys = []
    for x in operands[:num_keys]:
        keys += [np.real(x), np.imag(x)] if dtypes.is_complex(x.dtype) else [x]
    keys = [_as_compared(k) for k in keys]
    if len(keys) == 1:
        perm = np.argsort(keys[0], axis=dimension, kind="stable")
    else:
        perm = np.lexsort(keys[::-1], axis=dimension)
    return [np.take_along_axis(x, perm, dimension) for x in operands]


abstract_eval_rules[sort_p] = _sort_abstract_eval
lowering_rules[sort_p] = hl.widen_2bit(_sort_lowering)
numpy_rules[sort_p] = _sort_numpy


def _gather_along(t, idx, axis, numpy_ints=False):
    """t[..., idx[..., 0], ...] along `axis`: take_along_axis as one gather, every other dim
    a gather batch dim. `idx` has t's shape but for `axis`, plus a trailing 1. `numpy_ints`:
    the batch dims as np.delete gives them, as JAX's sort JVP (`np.int64(0)` in a jaxpr;
    top_k's are Python's)."""
    rank = bu.ndim(t)
    batch = tuple(np.delete(np.arange(rank), axis)) if numpy_ints else \
        tuple(i for i in range(rank) if i != axis)
    dnums = slicing.GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=(axis,), start_index_map=(axis,),
        operand_batching_dims=batch, start_indices_batching_dims=batch)
    return slicing.gather(t, idx, dnums, (1,) * rank,
                          mode=slicing.GatherScatterMode.PROMISE_IN_BOUNDS)


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    """Sort an iota along with the operands: it comes out as the permutation, which moves
    the tangents the way the operands moved."""
    shape = bu.shape(primals[0])
    try:
        small = all(d <= dtypes.iinfo(np.uint32).max for d in shape)
    except InconclusiveDimensionOperation:     # jax.export: symbolic sizes count as small
        small = True
    index_dtype = np.uint32 if small else np.uint64
    *out, perm = sort_p.bind(*primals, shapes.broadcasted_iota(index_dtype, shape, dimension),
                             dimension=dimension, is_stable=is_stable, num_keys=num_keys)
    perm = shapes.expand_dims(perm, (len(shape),))
    return out, [t if type(t) is ad.Zero else _gather_along(t, perm, dimension, True)
                 for t in tangents]


def _sort_batching(vals, dims, *, dimension, is_stable, num_keys):
    """Every operand gets the first batched operand's batch dim (unbatched ones are
    broadcast to its type, as JAX's: sort wants its operands typed alike); the sort
    dimension shifts past it."""
    proto, bdim = next((x, d) for x, d in zip(vals, dims) if d is not bu.not_mapped)
    rest = tuple(i for i in range(bu.ndim(proto)) if i != bdim)
    sharding = ad.aval_of(proto).split
    args = [shapes.broadcast_in_dim(x, bu.shape(proto), rest, out_sharding=sharding)
            if d is bu.not_mapped
            else bu.moveaxis(x, d, bdim) for x, d in zip(vals, dims)]
    return (sort_p.bind(*args, dimension=dimension + (bdim <= dimension), is_stable=is_stable,
                        num_keys=num_keys), [bdim] * len(args))


jvp_rules[sort_p] = _sort_jvp
batching_rules[sort_p] = _sort_batching
sharding_typing_rules[sort_p] = sharding_types.sort_typing

# ------------------------------------------------------------------ top_k
top_k_p = Primitive("top_k", multiple_results=True)


def _top_k_abstract_eval(operand, *, k, axis):
    if dtypes.is_complex(operand.dtype):
        raise ValueError("top_k is not compatible with complex inputs.")
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    if not operand.shape:
        raise TypeError(f"top_k operand must have >= 1 dimension, got {operand.shape}")
    if not 0 <= axis < operand.ndim:
        raise ValueError(f"axis argument out of range: axis={axis} for "
                         f"operand.shape={operand.shape}")
    shape = list(operand.shape)
    int32_max = dtypes.iinfo(np.int32).max       # (JAX allows one past it: indices 0..int32_max)
    if not is_symbolic(shape[axis]) and shape[axis] > int32_max + 1:
        raise ValueError(f"top_k returns int32 indices, which will overflow for array dimensions "
                         f"larger than the maximum int32 ({int32_max}). Got "
                         f"operand.shape={operand.shape}")
    if shape[axis] < k:
        raise ValueError(f"k argument to top_k must be no larger than size along axis; got k={k} "
                         f"with shape={shape} and axis={axis}")
    shape[axis] = k
    if not isinstance(k, (int, np.integer)) and not is_symbolic(k):    # (a float: JAX's words)
        raise TypeError(f"Shapes must be 1D sequences of concrete values of integer type, got "
                        f"{shape}.")
    # JAX's indices keep the operand's weak type (operand.update(dtype=int32)); so do we
    return [ShapedArray(shape, operand.dtype, operand.weak_type),
            ShapedArray(shape, np.int32, operand.weak_type)]


def _top_k_lowering(ctx, operand, *, k, axis):
    """chlo.top_k works on the last axis: transpose `axis` there and back. Like JAX, NaN
    counts as largest and ties keep the lower index first."""
    aval = ctx.avals_in[0]
    perm = list(range(aval.ndim))
    perm[axis], perm[-1] = perm[-1], perm[axis]

    def swap(x, shape, dtype):
        if axis == aval.ndim - 1:
            return x
        return ctx.op1("stablehlo.transpose", [x], {"permutation": hlo.i64_array(perm)},
                       result_type=hlo.tensor_type(tuple(shape[p] for p in perm), dtype))

    operand = swap(operand, aval.shape, aval.dtype)
    moved = tuple(aval.shape[p] for p in perm[:-1]) + (k,)
    result_types = [hlo.tensor_type(moved, aval.dtype), hlo.tensor_type(moved, np.int32)]
    if is_symbolic(k):
        # jax.export with a symbolic k: JAX's custom call taking k as an operand (shape
        # refinement makes it a chlo.top_k)
        values, indices = ctx.op("stablehlo.custom_call", [
            operand, ctx.module_ctx.symbolic.dim(ctx.block, k)], {
            "call_target_name": '"stablehlo.dynamic_top_k"', "api_version": "2 : i32"},
            result_types=result_types)
    else:
        values, indices = ctx.op("chlo.top_k", [operand], {"k": hlo.i64_attr(k)},
                                 result_types=result_types)
    return [swap(values, moved, aval.dtype), swap(indices, moved, np.int32)]




def _total_order(x):
    """Integers ordered as the floats `x` are in IEEE total order (-NaN < -inf < -0.0 < 0.0 <
    inf < NaN), by their bits; other dtypes as they are."""
    if dtypes.is_float(x.dtype):
        bits = x.view(np.dtype(f"i{x.dtype.itemsize}"))
        return np.where(bits < 0, bits ^ dtypes.iinfo(bits.dtype).max, bits)
    return x


def _top_k_numpy(operand, *, k, axis):
    """The k largest along `axis` in total order, as chlo.top_k (NaN largest, -0.0 below 0.0),
    ties lower index first: a stable ascending sort of the reversed operand, read backwards."""
    n = operand.shape[axis]
    key = np.flip(_total_order(operand), axis)
    order = np.flip(np.argsort(key, axis=axis, kind="stable"), axis)
    indices = (n - 1 - order).take(np.arange(k), axis)
    return [np.take_along_axis(operand, indices, axis), indices.astype(np.int32)]


abstract_eval_rules[top_k_p] = _top_k_abstract_eval
lowering_rules[top_k_p] = hl.widen_2bit(_top_k_lowering)
numpy_rules[top_k_p] = _top_k_numpy


def _top_k_jvp(primals, tangents, *, k, axis):
    """The tangents at the chosen indices."""
    values, indices = top_k_p.bind(*primals, k=k, axis=axis)
    idx = shapes.reshape(indices, bu.shape(indices) + (1,))       # JAX's spelling here
    return [values, indices], [_gather_along(tangents[0], idx, axis),
                               ad.Zero(ad.aval_of(indices))]


def _top_k_batching(vals, dims, *, k, axis):
    (x,), (d,) = vals, dims
    return top_k_p.bind(x, k=k, axis=axis + (d <= axis)), [d, d]


jvp_rules[top_k_p] = _top_k_jvp
batching_rules[top_k_p] = _top_k_batching
sharding_rules[top_k_p] = sharding_types.top_k_rule


# ------------------------------------------------------------------ approx_top_k
# JAX's approximate top-k (TPU's algorithm): XLA's ApproxTopK custom call, as JAX's, which XLA
# expands on other platforms into its fallback, the exact top k (a sort).
approx_top_k_p = Primitive("approx_top_k", multiple_results=True)


def _approx_top_k_abstract_eval(operand, *, k, reduction_dimension, recall_target, is_max_k,
                                reduction_input_size_override, aggregate_to_topk):
    if k <= 0:
        raise ValueError(f"k must be positive, got {k}")
    if len(operand.shape) == 0:
        raise TypeError(f"approx_top_k operand must have >= 1 dimension, got {operand.shape}")
    dims = list(operand.shape)
    if dims[reduction_dimension] < k:
        raise ValueError(f"k must be smaller than the size of reduction_dim "
                         f"{dims[reduction_dimension]}, got {k}")
    if not dtypes.is_float(operand.dtype):
        raise ValueError("operand must be a floating type")
    size = dims[reduction_dimension]
    if aggregate_to_topk:
        dims[reduction_dimension] = k
    elif not is_symbolic(size) and not is_symbolic(k):
        # XLA's size of the reduction's output, TPU's bins (the fallback sorts and keeps
        # that many)
        dims[reduction_dimension] = _reduction_output_size(
            size, len(dims), k, recall_target, reduction_input_size_override)
    else:
        raise NotImplementedError(
            f"approx_top_k with aggregate_to_topk=False not yet implemented when either the "
            f"`k` ({k}) or the  reduction dimension size ({size}) are symbolic")
    return [ShapedArray(tuple(dims), operand.dtype, operand.weak_type),
            ShapedArray(tuple(dims), np.int32)]


def _reduction_output_size(size, rank, k, recall_target, size_override) -> int:
    return _client.approx_top_k_reduction_output_size(size, rank, k, recall_target,
                                                      size_override)


def _approx_top_k_lowering(ctx, operand, *, k, reduction_dimension, recall_target, is_max_k,
                           reduction_input_size_override, aggregate_to_topk):
    """JAX 0.10.2's: XLA's `ApproxTopK` custom call (the operand, an iota of its indices
    along the axis, the initial value and -1), comparing with a function of the module
    (`top_k_gt_f32_comparator`); `is_fallback` on every platform but the TPU, where XLA's
    CPU and GPU compilers expand it into a sort (the exact top k). A symbolic k (jax.export):
    `stablehlo.dynamic_approx_top_k`, k an operand and the results' shapes after it (shape
    refinement makes it an ApproxTopK)."""
    aval = ctx.avals_in[0]
    axis = reduction_dimension % aval.ndim
    fallback = ctx.platform != "tpu"
    if fallback:
        ctx.default_rule()
    comparator = _approx_top_k_comparator(ctx, aval.dtype, is_max_k, fallback)
    symbolic = getattr(ctx.module_ctx, "symbolic", None)
    index_aval = ShapedArray(aval.shape, np.int32)
    if any(map(is_symbolic, aval.shape)):
        iota = symbolic.iota(ctx, aval.shape, np.int32, axis)
    else:
        iota = ctx.op1("stablehlo.iota", [], {"iota_dimension": hlo.i64_attr(axis)},
                       result_type=hlo.aval_type(index_aval))
    minus_one = ctx.constant(np.int32(-1))
    init = ctx.constant(np.asarray(-np.inf if is_max_k else np.inf, aval.dtype))
    config = {"reduction_dim": hlo.i64_attr(axis),
              "recall_target": f"{hlo._float_text(np.float32(recall_target), np.float32)} : f32",
              "aggregate_to_topk": hlo.bool_attr(aggregate_to_topk),
              "reduction_input_size_override": hlo.i64_attr(reduction_input_size_override)}
    if fallback:
        config["is_fallback"] = "true"
    operands = [operand, iota, init, minus_one]
    if is_symbolic(k):
        target = "stablehlo.dynamic_approx_top_k"
        operands.append(symbolic.dim(ctx.block, k))
    else:
        target = "ApproxTopK"
        config["top_k"] = hlo.i64_attr(k)
    return custom_call(ctx, target, operands, ctx.avals_out, backend_config=None,
                       operand_layouts=None, result_layouts=None, api_version=1,
                       extra_attributes={
                           "backend_config": '""', "called_computations": f"[@{comparator}]",
                           "mhlo.backend_config": "{" + ", ".join(
                               f"{name} = {value}" for name, value in sorted(config.items()))
                           + "}"})


def _approx_top_k_comparator(ctx, dtype, is_max_k, fallback) -> str:
    """The name of a new function of the module, first among them as JAX inserts it,
    comparing two values (and two indices it ignores): `top_k_gt_f32_comparator`. One per
    equation (and platform kind): lowered again for another platform of the module
    (lowering.lower_per_platform's tries), it is the same function."""
    module_ctx = ctx.module_ctx
    key = None if ctx.source_info is None else \
        ("approx_top_k comparator", id(ctx.source_info), np.dtype(dtype).name, is_max_k,
         fallback)
    found = module_ctx.functions.get(key) if key is not None else None
    if found is not None:
        return found[1].name
    module = module_ctx.module
    scalar = hlo.tensor_type((), dtype)
    name = module.unique_name(f"top_k_{'gt' if is_max_k else 'lt'}_"
                              f"{hlo.element_type(dtype)}_comparator")
    fn = hlo.Function(module, name, [scalar, scalar, "tensor<i32>", "tensor<i32>"],
                      public=None)
    module.functions.insert(0, fn)
    result = fn.body.op1("stablehlo.compare", fn.args[:2], "tensor<i1>", {
        "comparison_direction": hlo.enum("comparison_direction", "GT" if is_max_k else "LT")})
    fn.results, fn.result_types, fn.result_attrs = [result], ["tensor<i1>"], [None]
    fn.body.ret([result])
    if key is not None:         # (its source_info kept alive with it: its id stays unique)
        module_ctx.functions[key] = (ctx.source_info, fn)
    return name


def _approx_top_k_jvp(primals, tangents, **params):
    """The tangents at the chosen indices, as JAX's (a gather along the reduced axis)."""
    values, indices = approx_top_k_p.bind(*primals, **params)
    if type(tangents[0]) is ad.Zero:
        return [values, indices], [ad.Zero(ad.aval_of(values)), ad.Zero(ad.aval_of(indices))]
    axis = params["reduction_dimension"] % len(bu.shape(indices))
    idx = shapes.reshape(indices, bu.shape(indices) + (1,))
    return [values, indices], [_gather_along(tangents[0], idx, axis),
                               ad.Zero(ad.aval_of(indices))]


def _approx_top_k_batching(vals, dims, *, reduction_dimension, **params):
    (x,), (d,) = vals, dims
    kept = [i for i in range(len(bu.shape(x))) if i != d]
    return approx_top_k_p.bind(x, reduction_dimension=kept[reduction_dimension], **params), [d, d]


abstract_eval_rules[approx_top_k_p] = _approx_top_k_abstract_eval
lowering_rules[approx_top_k_p] = _approx_top_k_lowering


def _approx_top_k_numpy(x, *, k, reduction_dimension, is_max_k, **params):
    """Exact, as the CPU lowering: top_k (of the negation, for the smallest); without
    aggregate_to_topk, as many as XLA's reduction output size."""
    axis = reduction_dimension % x.ndim
    if not params["aggregate_to_topk"]:
        k = _reduction_output_size(x.shape[axis], x.ndim, k, params["recall_target"],
                                   params["reduction_input_size_override"])
    if is_max_k:
        return _top_k_numpy(x, k=k, axis=axis)
    values, indices = _top_k_numpy(-x, k=k, axis=axis)
    return [-values, indices]


numpy_rules[approx_top_k_p] = _approx_top_k_numpy
jvp_rules[approx_top_k_p] = _approx_top_k_jvp
batching_rules[approx_top_k_p] = _approx_top_k_batching


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """The `k` largest values along `reduction_dimension` and their int32 indices, largest
    first. JAX's algorithm is approximate on TPU only; on CPU and GPU (and here) the exact
    top k, equal values keeping the lower index first.

    >>> lax.approx_max_k(jnp.array([[1., 5., 3.], [4., 2., 6.]]), 2)
    [Array([[5., 3.],
           [6., 4.]], dtype=float32), Array([[1, 2],
           [2, 0]], dtype=int32)]
    """
    return list(approx_top_k_p.bind(        # (a list, as JAX's bind gives)
        operand, k=index_or_symbolic(k),
        reduction_dimension=operator.index(reduction_dimension),
        recall_target=float(recall_target), is_max_k=True,
        reduction_input_size_override=reduction_input_size_override,
        aggregate_to_topk=bool(aggregate_to_topk)))


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """The `k` smallest values along `reduction_dimension` and their int32 indices, smallest
    first (exact here, as JAX's fallback off TPU).

    >>> lax.approx_min_k(jnp.array([4., 1., 3.]), 2)
    [Array([1., 3.], dtype=float32), Array([1, 2], dtype=int32)]
    """
    return list(approx_top_k_p.bind(
        operand, k=index_or_symbolic(k),
        reduction_dimension=operator.index(reduction_dimension),
        recall_target=float(recall_target), is_max_k=False,
        reduction_input_size_override=reduction_input_size_override,
        aggregate_to_topk=bool(aggregate_to_topk)))


# ------------------------------------------------------------------ lax functions
def _canonical_axis(axis, ndim) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim if ndim else axis


def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """Sort `operand` along `dimension`; given a sequence of arrays, sort them all by the
    first `num_keys` (lexicographically) and return a tuple.

    >>> lax.sort((jnp.array([2, 1, 2]), jnp.array([0., 1., 2.])))
    (Array([1, 2, 2], dtype=int32), Array([1., 0., 2.], dtype=float32))
    """
    if isinstance(operand, (list, tuple)):
        if len(operand) == 0:
            raise TypeError("Sort requires at least one operand")
        if not 1 <= num_keys <= len(operand):
            raise ValueError(f"num_keys={num_keys} must be between 1 and "
                             f"len(operand)={len(operand)}")
        dimension = _canonical_axis(dimension, np.ndim(operand[0]))
        return tuple(sort_p.bind(*operand, dimension=dimension, is_stable=bool(is_stable),
                                 num_keys=int(num_keys)))
    if num_keys != 1:
        raise ValueError(f"num_keys={num_keys} must equal 1 for a single operand.")
    dimension = _canonical_axis(dimension, np.ndim(operand))
    return sort_p.bind(operand, dimension=dimension, is_stable=bool(is_stable), num_keys=1)[0]


def sort_key_val(keys, values, dimension=-1, is_stable=True):
    """Sort `keys` along `dimension` and apply the same permutation to `values`."""
    dimension = _canonical_axis(dimension, np.ndim(keys))
    k, v = sort_p.bind(keys, values, dimension=dimension, is_stable=bool(is_stable), num_keys=1)
    return k, v


def _is_constant_dim(d) -> bool:
    """Whether `d` is a known integer (operator.index takes it): not a float, a tracer or a
    symbolic size."""
    try:
        operator.index(d)
        return True
    except Exception:           # noqa: BLE001 (a tracer's error is its own class)
        return False


def top_k(operand, k, *, axis=-1):
    """The `k` largest entries along `axis` (default: the last) and their int32 indices,
    largest first; equal values keep the lower index first.

    >>> lax.top_k(jnp.array([9., 3., 6., 4., 10.]), 3)
    [Array([10.,  9.,  6.], dtype=float32), Array([4, 0, 2], dtype=int32)]
    """
    # JAX's order: a known integer made an int, then `k < 0` as given (a traced k: its bool
    # conversion's error; a string: Python's comparison's), a float left to the shape rule
    if _is_constant_dim(k):
        k = operator.index(k)
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    axis = _canonical_axis(axis, np.ndim(operand))
    return list(top_k_p.bind(operand, k=k, axis=axis))      # a list, as JAX returns it
