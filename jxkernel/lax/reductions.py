"""Reductions: reduce_{sum,prod,max,min,and,or,xor}, argmax/argmin, the generic
`reduce` over a traced computation, and the cumulative ops cumsum/cumprod/cummax/
cummin/cumlogsumexp. Each primitive is followed by its rules.

    >>> lax.reduce_sum(jnp.ones((2, 3)), (1,))
    Array([3., 3.], dtype=float32)

Reductions lower to `stablehlo.reduce` with a one-op region; argmax/argmin to a
two-operand reduce over (value, iota); cumulative ops to `stablehlo.reduce_window`
with a window as long as the axis, padded on one side (what JAX emits on CPU).
"""
from __future__ import annotations

import functools
import math
import operator
import re

import numpy as np

from ..core.config import config
from ..core import dtypes, sharding_types
from ..core.avals import ShapedArray, get_aval
from ..core.interpret import eval_jaxpr
from ..core.mesh import NamedSharding
# declared in core so that transforms/ can bind it; its rules are here
from ..core.interpreter_primitives import reduce_sum_p
from ..core.ir import param_printers
from ..core.numpy_eval import eval_jaxpr_numpy
from ..core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules,
                              batching_rules, jvp_rules, lowering_rules, numpy_rules,
                              sharding_rules, sharding_typing_rules)
from ..core.staging import trace_to_jaxpr
from ..core.trace import Tracer
from ..core.interpreter_primitives import typed_constant
from ..tree_util import tree_flatten, tree_unflatten, treedef_tuple
from ..xla import stablehlo as hlo
from ..transforms import ad_util as ad
from ..transforms import batch_util as bu
from ..transforms.ad import jvp_flat
from ..transforms.api_util import flatten_fun
from ..transforms.batching import vmap
from . import _lowering as hl
from . import shapes, slicing
from .sharding import canonicalize_sharding as _canonicalize_sharding
from ._rules import ANY, COMPLEX, FLOAT, INTEGRAL, NUMERIC, check_dtype, refuse_token
from .conversion import _convert_element_type, convert_element_type
from .elementwise import (add, bitwise_and, bitwise_or, bitwise_xor, div, eq, exp,
                          extreme_zeros, log, max, min, mul, select, signed_zeros, sub)


def _long_str(aval) -> str:
    """`int32[1,3]` (`~float32[]` when weak), as JAX writes avals in reduction errors."""
    return f"{'~' if aval.weak_type else ''}{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


def _dtype_check(name, accepted=NUMERIC, kind="number"):
    """A check that `name` accepts the operand's dtype, with JAX's message."""
    def check(aval):
        if aval.dtype not in accepted:
            raise TypeError(f"{name} does not accept dtype {aval.dtype.name}. Accepted dtypes are "
                            f"subtypes of {kind}.")
    return check


def _check_logical(aval):
    # JAX asks NumPy's issubdtype, which does not place ml_dtypes' int2/int4/uint2/uint4
    # among the integers: they are refused (jnp.all/any cast to bool first, so they work)
    if aval.dtype not in INTEGRAL or aval.dtype in dtypes.INTN_DTYPES:
        raise TypeError(f"logical reduction requires operand dtype bool or int, got "
                        f"{aval.dtype.name}.")


def _ints(axes) -> tuple:
    """`axes` as a message prints them: vmap's shifted axes are NumPy integers, which print as
    np.int64(3)."""
    return tuple(int(a) for a in axes)


def _reduced_shape(operand, axes) -> tuple:
    if len(axes) != len(set(axes)):
        raise ValueError(f"duplicate value in 'axes' of reduction: {_ints(axes)}")
    if not all(0 <= a < operand.ndim for a in axes):
        raise ValueError(f"reduction axes {_ints(axes)} contains out-of-bounds indices for "
                         f"{_long_str(operand)}.")
    return tuple(d for i, d in enumerate(operand.shape) if i not in axes)


def _logical_reduced_shape(operand, axes) -> tuple:
    """JAX's shape rule of reduce_and/or/xor: the dtype first, then np.delete(shape, axes),
    whose IndexError for an axis outside [-ndim, ndim) is JAX's class (ours names the axes;
    a negative or repeated axis within them is refused as the other reductions refuse it)."""
    _check_logical(operand)
    if not all(-operand.ndim <= a < operand.ndim for a in axes):
        raise IndexError(f"reduction axes {_ints(axes)} contains out-of-bounds indices for "
                         f"{_long_str(operand)}.")
    return _reduced_shape(operand, axes)


# ------------------------------------------------------------------ reducer regions
def _identity(kind: str, dtype):
    """The identity element of the monoid `kind` in `dtype` (the reduce's init value)."""
    dtype = np.dtype(dtype)
    if kind in ("add", "or", "xor"):
        return np.zeros((), dtype)
    if kind == "mul":
        return np.ones((), dtype)
    if kind == "and":
        return np.array(-1).astype(dtype)          # all bits set; True for bool
    if kind in ("max", "logaddexp"):
        return np.array(complex(-np.inf, 0), dtype) if dtypes.is_complex(dtype) else \
            hl.min_value(dtype)
    return np.array(complex(np.inf, 0), dtype) if dtypes.is_complex(dtype) else hl.max_value(dtype)


_HLO_OPS = {"add": "stablehlo.add", "mul": "stablehlo.multiply", "max": "stablehlo.maximum",
            "min": "stablehlo.minimum", "and": "stablehlo.and", "or": "stablehlo.or",
            "xor": "stablehlo.xor"}


def _minmax_complex(ctx, block, kind, dtype, x, y):
    """max/min of complex scalars, comparing (real, imag) lexicographically as JAX does."""
    part = np.float32 if dtype == dtypes.complex64 else np.float64
    real_t = hlo.tensor_type((), part)
    scalar = ShapedArray((), part)
    rctx = ctx.with_block(block)
    cmp = "GT" if kind == "max" else "LT"
    rx, ry = (block.op1("stablehlo.real", [v], real_t) for v in (x, y))
    ix, iy = (block.op1("stablehlo.imag", [v], real_t) for v in (x, y))
    real_eq = hl.compare(rctx, rx, ry, "EQ", scalar)
    which = hl.select(rctx, real_eq, hl.compare(rctx, ix, iy, cmp, scalar),
                      hl.compare(rctx, rx, ry, cmp, scalar), ShapedArray((), np.bool_))
    return block.op1("stablehlo.select", [which, x, y], x.type)


def _logaddexp(ctx, block, dtype, x, y):
    """log(exp(x) + exp(y)) without overflow; -inf + -inf (NaN difference) gives x + y."""
    t = x.type
    big = block.op1("stablehlo.maximum", [x, y], t)
    diff = block.op1("stablehlo.subtract", [x, y], t)
    is_nan = hl.compare(ctx.with_block(block), diff, diff, "NE", ShapedArray((), dtype))
    total = block.op1("stablehlo.add", [x, y], t)
    neg = block.op1("stablehlo.negate", [block.op1("stablehlo.abs", [diff], t)], t)
    soft = block.op1("stablehlo.add", [big, block.op1(
        "stablehlo.log_plus_one", [block.op1("stablehlo.exponential", [neg], t)], t)], t)
    return block.op1("stablehlo.select", [is_nan, total, soft], t)


def _region(ctx, kind: str, dtype):
    """A reducer region `(a, b) -> a <kind> b` over scalars of `dtype`."""
    scalar = hlo.tensor_type((), dtype)
    block = ctx.region_block([scalar, scalar])
    a, b = block.args
    if kind == "logaddexp":
        out = _logaddexp(ctx, block, dtype, a, b)
    elif kind in ("max", "min") and dtypes.is_complex(dtype):
        out = _minmax_complex(ctx, block, kind, dtype, a, b)
    else:
        out = block.op1(_HLO_OPS[kind], [a, b], scalar)
    block.ret([out])
    return block


def _reduce_lowering(kind):
    def lower(ctx, x, *, axes, **params):
        dtype = ctx.avals_in[0].dtype
        init = ctx.constant(_identity(kind, dtype))
        return ctx.op1("stablehlo.reduce", [x, init], {"dimensions": hlo.i64_array(axes)},
                       regions=[_region(ctx, kind, dtype)])
    return lower


# the NumPy ufunc of each monoid: reductions reduce with it, cumulative ops accumulate
_NP_UFUNCS = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum,
              "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
              "logaddexp": np.logaddexp}


def _accumulation_dtype(dtype) -> np.dtype:
    """float32 for floats narrower than it (their sums and products accumulate there, as
    jnp's do, then round once: XLA's order of narrow additions is its own); int8 (uint8) for
    ml_dtypes' narrow ints, whose low bits are the same (NumPy has no max or min for them);
    else dtype."""
    if dtype in dtypes.INTN_DTYPES:
        return np.dtype(np.uint8 if dtype in dtypes.UNSIGNED_DTYPES else np.int8)
    return np.dtype(np.float32) if dtypes.is_float(dtype) and dtype.itemsize < 4 else dtype


def _reduce_numpy(kind):
    """Reduce with the monoid's ufunc from its identity, in the operand's dtype (NumPy would
    widen small integers; narrow floats accumulate in float32); maximum and minimum
    propagate NaN, as XLA's do."""
    ufunc = _NP_UFUNCS[kind]

    def rule(x, *, axes, **params):
        acc = _accumulation_dtype(x.dtype)
        if kind == "add" and x.dtype in _SEQUENTIAL_SUMS:
            if math.prod(x.shape[a] for a in axes) <= _SEQUENTIAL_MOST:
                return _sequential_sum(x, tuple(axes))
            if len(axes) == 1 and x.size < _TREE_SUMS_BELOW:
                return _tree_sum(x, axes[0])
        out = ufunc.reduce(x.astype(acc, copy=False), axis=tuple(axes), dtype=acc,
                           initial=_identity(kind, acc)).astype(x.dtype, copy=False)
        if kind in ("max", "min"):      # (np.maximum keeps the first of -0.0 and 0.0)
            out = signed_zeros(out, np.any(extreme_zeros(x, kind), axis=tuple(axes)), kind)
        return out
    return rule


# XLA's CPU code sums a few elements one after another, in row-major order from 0 (measured,
# float32 and float64: every reduction of up to 21 elements over any axes, 1-D ones of up to
# 32, bit for bit); NumPy's pairwise sum adds eight partial sums from 8 elements on. Up to 16:
# sequentially here too; more along one axis: in XLA's windows of 32 (_tree_sum, below).
_SEQUENTIAL_SUMS = frozenset(map(np.dtype, ("float32", "float64")))
_SEQUENTIAL_MOST = 16


# Along one axis XLA's CPU compiler (its TreeReductionRewriter, window 32) first sums windows
# of 32, the axis padded with zeros on both sides to a multiple of 32 (the odd one high), each
# one after another, then the window sums the same way, until 32 or fewer are left, summed
# one after another (so up to 32 sequentially). Measured bit for bit, float32 and float64, on
# one axis of 17 to 4,080 elements and of arrays of up to 4,080 (JAX 0.10.2, either
# optimization level); arrays of 4,096 elements or more XLA sums in other orders (NumPy's
# pairwise sum then, within REDUCTION's bound), as it does over two or more axes.
_TREE_WINDOW = 32
_TREE_SUMS_BELOW = 4096


def _tree_sum(x, axis) -> np.ndarray:
    """The sum of x over `axis` in XLA's CPU order (above).

        >>> x = np.float32([1e8] + [1.0] * 39)   # (1e8 + 19 ones) + 20 ones, as JAX's CPU
        >>> float(_tree_sum(x, 0)), float(np.sum(x))
        (100000016.0, 100000032.0)
    """
    rows = np.moveaxis(x, axis, -1)
    while rows.shape[-1] > _TREE_WINDOW:
        n = rows.shape[-1]
        windows = -(-n // _TREE_WINDOW)
        low = (windows * _TREE_WINDOW - n) // 2
        padded = np.zeros(rows.shape[:-1] + (windows * _TREE_WINDOW,), x.dtype)
        padded[..., low:low + n] = rows
        rows = _sequential_sum(padded.reshape(rows.shape[:-1] + (windows, _TREE_WINDOW)),
                               (rows.ndim,))
    return _sequential_sum(rows, (rows.ndim - 1,))


def _sequential_sum(x, axes) -> np.ndarray:
    """The sum over `axes` of x, adding their elements in row-major order to 0."""
    kept = [d for d in range(x.ndim) if d not in axes]
    # (the count named, not -1: an empty kept axis leaves -1 nothing to infer from)
    rows = x.transpose(kept + list(axes)).reshape([x.shape[d] for d in kept]
                                                  + [math.prod(x.shape[a] for a in axes)])
    total = np.zeros(rows.shape[:-1], x.dtype)
    for j in range(rows.shape[-1]):
        total = total + rows[..., j]
    return total


# ------------------------------------------------------------------ reduce_{sum,...}
def _reduction(name, kind, check=None, keep_weak=True, prim=None, shape_rule=_reduced_shape):
    """A reduction primitive over `axes`; `check(aval)` rejects dtypes (None: any dtype).
    `prim`: one declared elsewhere, given its rules here."""
    prim = prim or Primitive(name)

    def abstract(operand, *, axes, **params):
        refuse_token(name, operand)
        # JAX's shape rule before its dtype rule: a bool sum along an axis out of bounds is
        # told of the axis (standard_abstract_eval)
        shape = shape_rule(operand, axes)
        if check is not None:
            check(operand)
        return ShapedArray(shape, operand.dtype, operand.weak_type and keep_weak)

    abstract_eval_rules[prim] = abstract
    lowering_rules[prim] = _reduce_lowering(kind)
    numpy_rules[prim] = _reduce_numpy(kind)
    return prim


# params: axes, out_sharding
reduce_sum_p = _reduction("reduce_sum", "add", _dtype_check("reduce_sum"), prim=reduce_sum_p)
_reduce_sum_abstract = abstract_eval_rules[reduce_sum_p]


def _reduce_sum_abstract_eval(operand, *, axes, **params):
    out = _reduce_sum_abstract(operand, axes=axes, **params)   # the axes and dtype checked
    # JAX's jax_allow_f16_reductions=False (part of its dtype rule, after its shape rule): a
    # half-precision sum of more than one element (one that can lose precision) is refused
    if not config.jax_allow_f16_reductions and operand.dtype in (dtypes.float16, dtypes.bfloat16) \
            and any(operand.shape[d] != 1 for d in axes):
        raise ValueError(f"reduce_sum on operand {operand.str_short(True)} is not allowed when "
                         f"jax_allow_f16_reductions=False.")
    return out


abstract_eval_rules[reduce_sum_p] = _reduce_sum_abstract_eval
reduce_prod_p = _reduction("reduce_prod", "mul", _dtype_check("reduce_prod"))
reduce_max_p = _reduction("reduce_max", "max")   # any dtype; complex compares lexicographically
reduce_min_p = _reduction("reduce_min", "min")
reduce_and_p = _reduction("reduce_and", "and", keep_weak=False,
                          shape_rule=_logical_reduced_shape)
reduce_or_p = _reduction("reduce_or", "or", keep_weak=False, shape_rule=_logical_reduced_shape)
reduce_xor_p = _reduction("reduce_xor", "xor", keep_weak=False,
                          shape_rule=_logical_reduced_shape)


def _check_shifted_axes(x, d, axes, shifted) -> None:
    """JAX's reducer_batcher finds the result's batch dim by deleting the shifted axes from
    the batched operand's dims (np.delete), which raises IndexError for one outside them,
    before any shape rule's ValueError; ours names the user's axes and one example's shape."""
    ndim = len(bu.shape(x))
    if all(-ndim <= a < ndim for a in shifted):
        return
    aval = get_aval(x)
    example = aval.update(shape=aval.shape[:d] + aval.shape[d + 1:])
    raise IndexError(f"reduction axes {_ints(axes)} contains out-of-bounds indices for "
                     f"{_long_str(example)} (the shape of one example under vmap).")


def _shifted_axes(x, d, axes) -> tuple:
    """The axes of the batched operand that `axes` of one example are."""
    # np.int64s, as JAX's reducer_batcher computes them with np.where (they print as
    # np.int64(1)); built without NumPy's per-call cost
    shifted = tuple(np.int64(a if a < d else a + 1) for a in axes)
    _check_shifted_axes(x, d, axes, shifted)
    return shifted


def _reducer_batcher(prim):
    """A reduction leaves the batch dim where it is and shifts its axes past it."""
    def rule(vals, dims, *, axes, **params):
        (x,), (d,) = vals, dims
        axes = _shifted_axes(x, d, axes)
        return prim.bind(x, axes=axes, **params), d - sum(1 for a in axes if a < d)
    return rule


def _reduce_sum_batching(axis_data, vals, dims, *, axes, out_sharding=None):
    """reduce_sum's: the reducers', its out_sharding= given the batch axis (JAX's
    reducer_batcher, get_sharding_for_vmap: P(None,) of a sum batched over x is P('x', None))."""
    (x,), (d,) = vals, dims
    if d is bu.not_mapped:
        return reduce_sum_p.bind(x, axes=axes, out_sharding=out_sharding), d
    axes = _shifted_axes(x, d, axes)
    d_out = d - sum(1 for a in axes if a < d)
    if isinstance(out_sharding, NamedSharding):
        out_sharding = bu.sharding_for_vmap(axis_data, out_sharding, d_out,
                                            len(bu.shape(x)) - len(axes))
    return reduce_sum_p.bind(x, axes=axes, out_sharding=out_sharding), d_out


def _reduce_sum_transpose(ct, operand, *, axes, out_sharding=None):
    shape = operand.aval.shape        # the cotangent spreads back over the reduced axes
    kept = tuple(np.delete(np.arange(len(shape)), axes))    # np.int64s, as JAX's
    # typed as the operand (JAX's): broadcasting a reduced cotangent cannot say the split
    # (as the operand's cotangent: unreduced where the operand is reduced)
    return [shapes.broadcast_in_dim(ct, shape, kept,
                                    out_sharding=operand.aval.to_ct_aval().split)]


def _reduce_chooser_jvp(g, ans, operand, *, axes):
    """The tangent at the extremum's location; ties share it equally (a mean over them)."""
    keep_shape = [1 if i in axes else d for i, d in enumerate(bu.shape(operand))]
    location = convert_element_type(eq(operand, shapes.reshape(ans, keep_shape)),
                                    ad.aval_of(g).dtype)
    counts = reduce_sum(location, axes)
    return div(reduce_sum(mul(g, location), axes), counts)


def _jvp_of(fun, primals, tangents):
    """jvp of `fun` (flat lists in and out) at the current level, for rules that are the
    derivative of a composite (as JAX's call api.jvp)."""
    return jvp_flat(fun, list(primals), list(tangents))


def _reduce_jvp(reducer, init_values, primals, tangents, axes):
    """JAX's jvp of a monoid reduction: the reduced axes go first, flattened to one, and are
    halved until one element is left, combining halves with the elementwise `reducer`
    (a list of arrays per half in, a list out). Differentiating this tree of elementwise
    ops gives the derivative (the reduce op itself has no usable one, e.g. for products
    with zeros)."""
    shape = bu.shape(primals[0])
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    new_shape = (math.prod(shape[a] for a in axes),) + tuple(shape[i] for i in kept)
    flat = lambda x: shapes.reshape(x, new_shape, tuple(axes) + kept)
    primals = [flat(x) for x in primals]
    tangents = [ad.Zero(t.aval.update(shape=new_shape)) if type(t) is ad.Zero else flat(t)
                for t in tangents]
    pad_config = [(0, 1, 0)] + [(0, 0, 0)] * len(kept)

    def tree(*xs):
        while bu.shape(xs[0])[0] > 1:
            n = bu.shape(xs[0])[0]
            n1 = (n + 1) // 2
            xs1 = [slicing.slice_in_dim(x, 0, n1) for x in xs]
            xs2 = [slicing.slice_in_dim(x, n1, None) for x in xs]
            if n - n1 != n1:        # odd: the second half gets an identity at its end
                xs2 = [slicing.pad(x, i, pad_config) for x, i in zip(xs2, init_values)]
            xs = reducer(*xs1, *xs2)
        if bu.shape(xs[0])[0] == 0:
            return [shapes.broadcast_in_dim(i, new_shape[1:], ()) for i in init_values]
        return [shapes.squeeze(x, (0,)) for x in xs]
    return _jvp_of(tree, primals, tangents)


def _reduce_prod_jvp(primals, tangents, *, axes):
    one = typed_constant(1, ad.aval_of(primals[0]).dtype)
    (out,), (t_out,) = _reduce_jvp(lambda x, y: [mul(x, y)], [one], primals, tangents, axes)
    return out, t_out


ad.deflinear2(reduce_sum_p, _reduce_sum_transpose)
ad.defjvp(reduce_max_p, _reduce_chooser_jvp)
ad.defjvp(reduce_min_p, _reduce_chooser_jvp)
jvp_rules[reduce_prod_p] = _reduce_prod_jvp
for _p in (reduce_and_p, reduce_or_p, reduce_xor_p):       # bool/int only: no tangents
    ad.defjvp_zero(_p)
for _p in (reduce_prod_p, reduce_max_p, reduce_min_p, reduce_and_p, reduce_or_p, reduce_xor_p):
    batching_rules[_p] = _reducer_batcher(_p)
axis_batching_rules[reduce_sum_p] = _reduce_sum_batching
for _p in (reduce_sum_p, reduce_prod_p, reduce_max_p, reduce_min_p, reduce_and_p, reduce_or_p):
    sharding_rules[_p] = sharding_types.reduction_rule
sharding_types.ur_rules[reduce_sum_p] = sharding_types.reduce_sum_ur_rule
# a given out_sharding= types the sum, as JAX's _reduce_sum_sharding_rule returns it
sharding_typing_rules[reduce_sum_p] = sharding_types.given_or_rule(reduce_sum_p, "out_sharding",
                                                                   standard=True)

# ------------------------------------------------------------------ argmax, argmin
argmax_p = Primitive("argmax")
argmin_p = Primitive("argmin")


def _argminmax_abstract_eval(operand, *, axes, index_dtype):
    axis, = axes
    if not 0 <= axis < operand.ndim:
        raise ValueError(f"Invalid axis {axis} for operand shape {operand.shape}")
    if operand.shape[axis] < 1:
        raise ValueError(f"argmin and argmax require non-empty reduced dimension. "
                         f"operand.shape={operand.shape} axis={axis}")
    if not dtypes.is_int(index_dtype):
        raise TypeError(f"index_dtype must be an integer type, but got "
                        f"{np.dtype(index_dtype).name}")
    shape = operand.shape[:axis] + operand.shape[axis + 1:]
    return ShapedArray(shape, index_dtype, False)


def _check_argminmax_inits(aval, index_dtype) -> None:
    """JAX's TypeError for a 64-bit operand or index dtype without x64 ('allow' mode): its
    lowering reduces from NumPy identities, which are narrowed to 32 bits, so reduce's dtype
    check refuses them (JAX raises when it compiles, not when it traces)."""
    if dtypes.is_canonical(aval.dtype) and dtypes.is_canonical(index_dtype):
        return
    operands = [aval.update(weak_type=False), ShapedArray(aval.shape, index_dtype)]
    inits = [ShapedArray((), dtypes.canonicalize_dtype(a.dtype)) for a in operands]
    raise _init_dtype_error(operands, inits)


def _check_ordered(dtype, direction) -> None:
    """JAX's error for a complex operand: its argmax and argmin trace one (make_jaxpr shows
    it), and refuse it where they are lowered, in the words of the comparison their reducer
    makes (lax.gt for argmax, lax.lt for argmin)."""
    if dtype in COMPLEX:
        check_dtype(direction.lower(), ShapedArray((), dtype), ANY - COMPLEX, position=0)


def _argminmax_lowering(direction, identity):
    """JAX's reducer over (value, index) pairs, emitted as is so results match bit for bit:
    take the first pair's value if it compares `direction` or is NaN (so NaN wins), and its
    index also on equal values with a smaller index (so the first occurrence wins)."""
    def lower(ctx, x, *, axes, index_dtype):
        aval = ctx.avals_in[0]
        _check_ordered(aval.dtype, direction)
        _check_argminmax_inits(aval, index_dtype)
        scalar, index = ShapedArray((), aval.dtype), ShapedArray((), index_dtype)
        iota = hl.iota(ctx, aval.shape, index_dtype, axes[0])
        inits = [ctx.constant(identity(aval.dtype)), ctx.constant(np.zeros((), index_dtype))]
        block = ctx.new_block([hl.aval_type(scalar), hl.aval_type(index)] * 2)
        rctx = ctx.with_block(block)
        val_a, idx_a, val_b, idx_b = block.args
        pick_a = block.op1("stablehlo.or", [hl.compare(rctx, val_a, val_b, direction, scalar),
                                            hl.compare(rctx, val_a, val_a, "NE", scalar)],
                           hl.aval_type(ShapedArray((), np.bool_)))
        tie = block.op1("stablehlo.and", [hl.compare(rctx, val_a, val_b, "EQ", scalar),
                                          hl.compare(rctx, idx_a, idx_b, "LT", index)],
                        pick_a.type)
        pick_idx = block.op1("stablehlo.or", [pick_a, tie], pick_a.type)
        block.ret([hl.select(rctx, pick_a, val_a, val_b, scalar),
                   hl.select(rctx, pick_idx, idx_a, idx_b, index)])
        out_vals = hlo.tensor_type(ctx.avals_out[0].shape, aval.dtype)
        return ctx.op("stablehlo.reduce", [x, iota, *inits], {"dimensions": hlo.i64_array(axes)},
                      regions=[block], result_types=[out_vals, hl.aval_type(ctx.avals_out[0])])[1]
    return lower


# NumPy's arg-reductions also take the first NaN, else the first occurrence of the extreme
def _argminmax_numpy(np_fun, direction):
    def run(x, *, axes, index_dtype):
        _check_ordered(x.dtype, direction)          # (NumPy orders complex numbers: JAX not)
        _check_argminmax_inits(ShapedArray(x.shape, x.dtype), index_dtype)  # as its lowering
        return np_fun(x, axes[0]).astype(index_dtype)
    return run


numpy_rules[argmax_p] = _argminmax_numpy(np.argmax, "GT")
numpy_rules[argmin_p] = _argminmax_numpy(np.argmin, "LT")


def _argminmax_abstract(name):
    def rule(operand, **params):
        refuse_token(name, operand)
        return _argminmax_abstract_eval(operand, **params)
    return rule


abstract_eval_rules[argmax_p] = _argminmax_abstract("argmax")
abstract_eval_rules[argmin_p] = _argminmax_abstract("argmin")
lowering_rules[argmax_p] = hl.widen_2bit(_argminmax_lowering("GT", hl.min_value))
lowering_rules[argmin_p] = hl.widen_2bit(_argminmax_lowering("LT", hl.max_value))
for _p in (argmax_p, argmin_p):         # integer results: zero tangents
    ad.defjvp_zero(_p)
    batching_rules[_p] = _reducer_batcher(_p)
for _p in (argmax_p, argmin_p):
    sharding_rules[_p] = sharding_types.reduction_rule

# ------------------------------------------------------------------ reduce (generic)
reduce_p = Primitive("reduce", multiple_results=True)


def _reduce_abstract_eval(*avals, computation, jaxpr, dimensions):
    operands, inits = avals[:len(avals) // 2], avals[len(avals) // 2:]
    if any(a.shape != () for a in inits):
        raise ValueError(f"reduce found non-scalar initial value: {[a.shape for a in inits]}")
    if [a.dtype for a in operands] != [a.dtype for a in inits]:
        raise _init_dtype_error(operands, inits)
    if len({a.shape for a in operands}) > 1:
        raise TypeError(f"reduce operands must have equal shapes, got "
                        f"{', '.join(str(a.shape) for a in operands)}")
    return [ShapedArray(_reduced_shape(op, dimensions), op.dtype, op.weak_type and init.weak_type)
            for op, init in zip(operands, inits)]


def _init_dtype_error(operands, inits) -> TypeError:
    """JAX's reduce_p error where operand and init value dtypes differ."""
    return TypeError(
        f"reduce operand dtypes should match corresponding initial value dtypes, got "
        f"operands=[{', '.join(map(_aval_repr, operands))}] and "
        f"initial_values=[{', '.join(map(_aval_repr, inits))}]")


def _aval_repr(aval) -> str:
    weak = ", weak_type=True" if aval.weak_type else ""
    return f"ShapedArray({_long_str(aval).lstrip('~')}{weak})"


def _reduce_generic_lowering(ctx, *values, computation, jaxpr, dimensions):
    """The region runs `jaxpr` in its own dtypes: where widen_2bit gave the reduce int8 for
    int2, the region converts its arguments back to int2 and its results up again. Exact:
    every value the region sees is an int2 value (an operand's, an init's or its own
    result's), and int2 arithmetic such as an add wraps in int2, as it would unwidened."""
    n = len(values) // 2
    scalars = [ShapedArray((), a.dtype) for a in ctx.avals_in[n:]]
    block = ctx.new_block([hl.aval_type(s) for s in scalars] * 2)
    rctx = ctx.with_block(block)
    args = [hl.convert(rctx, x, s, a.dtype)
            for x, s, a in zip(block.args, scalars * 2, jaxpr.in_avals)]
    outs = ctx.lower_jaxpr(jaxpr, args, block=block)
    block.ret([hl.convert(rctx, x, a, s.dtype)
               for x, a, s in zip(outs, jaxpr.out_avals, scalars)])
    return ctx.op("stablehlo.reduce", list(values), {"dimensions": hlo.i64_array(dimensions)},
                  regions=[block])


def _reduce_params(params):
    # JAX shows the function's repr with its address masked (so printing is deterministic)
    shown = re.sub(r" at 0x([0-9a-fA-F]+)", lambda m: " at 0x" + "X" * len(m.group(1)),
                   repr(params["computation"]))
    return [("computation", shown), ("dimensions", params["dimensions"]),
            ("jaxpr", params["jaxpr"])]




def _reduce_generic_numpy(*values, computation, jaxpr, dimensions):
    """The computation's jaxpr applied to whole arrays (its equations are elementwise): the
    reduced dimensions flattened last, halves combined pairwise until one is left, then
    combined with the init values. XLA fixes no order either."""
    n = len(values) // 2
    operands, inits = values[:n], values[n:]
    keep = [d for d in range(operands[0].ndim) if d not in dimensions]
    kept = tuple(operands[0].shape[d] for d in keep)
    size = math.prod(operands[0].shape[d] for d in dimensions)
    xs = [x.transpose(keep + list(dimensions)).reshape(kept + (size,)) for x in operands]
    while xs[0].shape[-1] > 1:
        h = xs[0].shape[-1] // 2
        pairs = eval_jaxpr_numpy(jaxpr, (), *[x[..., :h] for x in xs],
                                 *[x[..., h:2 * h] for x in xs])
        xs = [np.concatenate([p, x[..., 2 * h:]], -1) for p, x in zip(pairs, xs)]
    outs = [np.broadcast_to(i, kept) for i in inits]
    if size:
        outs = eval_jaxpr_numpy(jaxpr, (), *outs, *[x[..., 0] for x in xs])
    return [np.broadcast_to(o, kept).astype(i.dtype, copy=False) for o, i in zip(outs, inits)]


abstract_eval_rules[reduce_p] = _reduce_abstract_eval
lowering_rules[reduce_p] = hl.widen_2bit(_reduce_generic_lowering)
numpy_rules[reduce_p] = _reduce_generic_numpy
param_printers[reduce_p] = _reduce_params


def _reduce_batching(vals, dims, *, computation, jaxpr, dimensions):
    """The operands share one batch dim (the first batched one's) and the reduced dimensions
    shift past it; the region is unchanged since it sees scalars."""
    n = len(vals) // 2
    if any(d is not bu.not_mapped for d in dims[n:]):
        raise NotImplementedError("vmap of lax.reduce with batched initial values is not "
                                  "supported (as in JAX); map over the operands only")
    size = bu.axis_size_of(vals, dims)
    bdim = next(d for d in dims if d is not bu.not_mapped)
    operands = [bu.moveaxis(x, d, bdim) if d is not bu.not_mapped else
                shapes.broadcast_in_dim(x, bu.shape(x)[:bdim] + (size,) + bu.shape(x)[bdim:],
                                        tuple(i + (i >= bdim) for i in range(bu.ndim(x))))
                for x, d in zip(vals[:n], dims[:n])]
    dimensions = tuple(a + (a >= bdim) for a in dimensions)
    outs = reduce_p.bind(*operands, *vals[n:], computation=computation, jaxpr=jaxpr,
                         dimensions=dimensions)
    return outs, [bdim - sum(a < bdim for a in dimensions)] * n


def _reduce_jvp_rule(primals, tangents, *, computation, jaxpr, dimensions):
    """As JAX: the region, vmapped over every non-reduced dim plus the halving one, combines
    halves in a differentiable tree; tangents of the initial values are not supported."""
    n = len(primals) // 2
    if any(type(t) is not ad.Zero for t in tangents[n:]):
        raise NotImplementedError("Gradient of general lax.reduce with non-zero tangents for "
                                  "initial values to reduction not implemented")
    reducer = lambda *xs: eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *xs)
    for _ in range(bu.ndim(primals[0]) - len(dimensions) + 1):
        reducer = vmap(reducer)
    return _reduce_jvp(reducer, primals[n:], primals[:n], tangents[:n], dimensions)


batching_rules[reduce_p] = _reduce_batching
jvp_rules[reduce_p] = _reduce_jvp_rule

# ------------------------------------------------------------------ cumulative ops
def _cumulative(name, kind, check=None):
    prim = Primitive(name)
    check = check or _dtype_check(name)

    def abstract(operand, *, axis, reverse):
        refuse_token(name, operand)
        # JAX's order: its shape rule (the axis) before its dtype rule
        if axis < 0:
            raise ValueError("XLA operations do not allow negative axes")
        if axis >= operand.ndim:
            raise ValueError(f"axis {axis} is out of bounds for array of shape {operand.shape}")
        check(operand)
        return operand

    def lower(ctx, x, *, axis, reverse):
        """A window as long as the axis over the operand padded with n-1 identities before
        (after, if reverse) it: output i reduces elements 0..i (i..n-1)."""
        aval = ctx.avals_in[0]
        n, rank = aval.shape[axis], aval.ndim
        if n == 0:
            return x
        window = [1] * rank
        window[axis] = n
        padding = [[0, 0] for _ in range(rank)]
        padding[axis] = [0, n - 1] if reverse else [n - 1, 0]
        ones = hlo.i64_array([1] * rank)
        attrs = {"window_dimensions": hlo.i64_array(window), "window_strides": ones,
                 "base_dilations": ones, "window_dilations": ones,
                 "padding": hlo.dense_i64(padding)}
        init = ctx.constant(_identity(kind, aval.dtype))
        return ctx.op1("stablehlo.reduce_window", [x, init], attrs,
                       regions=[_region(ctx, kind, aval.dtype)])

    def numpy(x, *, axis, reverse):
        acc = _accumulation_dtype(x.dtype)
        y = np.flip(x, axis) if reverse else x
        y = _NP_UFUNCS[kind].accumulate(y.astype(acc, copy=False), axis=axis, dtype=acc)
        y = (np.flip(y, axis) if reverse else y).astype(x.dtype, copy=False)
        if kind in ("max", "min"):        # (np.maximum keeps the first of -0.0 and 0.0)
            found = extreme_zeros(np.flip(x, axis) if reverse else x, kind)
            found = np.logical_or.accumulate(found, axis)
            y = signed_zeros(y, np.flip(found, axis) if reverse else found, kind)
        return y

    abstract_eval_rules[prim] = abstract
    lowering_rules[prim] = lower
    numpy_rules[prim] = numpy
    return prim


cumsum_p = _cumulative("cumsum", "add")
cumprod_p = _cumulative("cumprod", "mul")
cummax_p = _cumulative("cummax", "max")
cummin_p = _cumulative("cummin", "min")
# JAX accepts any number here but fails for integers while lowering; we say so up front
cumlogsumexp_p = _cumulative("cumlogsumexp", "logaddexp",
                             _dtype_check("cumlogsumexp", FLOAT, "floating"))


def _cumulative_batching(prim):
    def rule(vals, dims, *, axis, reverse):
        (x,), (d,) = vals, dims
        return prim.bind(x, axis=axis + (d <= axis), reverse=reverse), d
    return rule


def _cumulative_jvp(combine, prim=None):
    """JAX's rule: differentiate the parallel prefix scan by `combine` (reduce_window,
    which the primitive lowers to, is not differentiable to every order). With `prim`, the
    primal output is the primitive's own (the scan's combine is less exact)."""
    def rule(primals, tangents, *, axis, reverse):
        # JAX's jvp never type-checks the primitive: its associative_scan takes the axis as
        # jnp does (a negative one counts from the end; out of bounds, its ValueError)
        scan_axis = shapes.canonicalize_axis(axis, bu.ndim(primals[0]))
        scan = lambda x: [_prefix_scan(combine, x, scan_axis, reverse)]
        (out,), (t_out,) = _jvp_of(scan, primals, tangents)
        return (out if prim is None else
                prim.bind(*primals, axis=scan_axis, reverse=reverse)), t_out
    return rule


def _prefix_scan(op, x, axis, reverse):
    """JAX's associative_scan of one array: combine adjacent pairs, scan that half-size
    array recursively (giving the odd outputs), then the even outputs from those."""
    sl = functools.partial(slicing.slice_in_dim, axis=axis)

    def scan(x):
        n = bu.shape(x)[axis]
        if n < 2:
            return x
        odd = scan(op(sl(x, 0, -1, 2), sl(x, 1, None, 2)))
        even = op(sl(odd, 0, -1) if n % 2 == 0 else odd, sl(x, 2, None, 2))
        return _interleave(shapes.concatenate([sl(x, 0, 1), even], axis), odd, axis)
    x = shapes.rev(x, (axis,)) if reverse else x
    out = scan(x)
    return shapes.rev(out, (axis,)) if reverse else out


def _interleave(a, b, axis):
    """a[0], b[0], a[1], b[1], ... along `axis` (a as long as b or one longer): both
    spread out by interior padding with zeros, then added."""
    same = bu.shape(a)[axis] == bu.shape(b)[axis]
    a_pad, b_pad = [(0, 0, 0)] * bu.ndim(a), [(0, 0, 0)] * bu.ndim(b)
    a_pad[axis], b_pad[axis] = (0, int(same), 1), (1, int(not same), 1)
    zero = typed_constant(0, ad.aval_of(a).dtype)
    op = bitwise_or if zero.dtype == np.bool_ else add
    return op(slicing.pad(a, zero, a_pad), slicing.pad(b, zero, b_pad))


def _logaddexp_fn(x, y):
    """log(exp(x) + exp(y)) for cumlogsumexp's jvp, as m + log(exp(x - m) + exp(y - m)) with
    m = stop_gradient(max(x, y)): its derivatives to every order are those of JAX's lax
    logaddexp, whose custom jvp is t_x exp(x - out) + t_y exp(y - out) (differentiating
    max + log1p(exp(-|x - y|)) is wrong at ties, through |x - y| and max)."""
    m = ad.stop_gradient(max(x, y))
    finite = eq(sub(m, m), typed_constant(0, ad.aval_of(m).dtype))
    m = select(finite, m, ad.broadcast_to(typed_constant(0, ad.aval_of(m).dtype), ad.aval_of(m)))
    return add(m, log(add(exp(sub(x, m)), exp(sub(y, m)))))


ad.deflinear2(cumsum_p, lambda ct, x, *, axis, reverse: [cumsum(ct, axis, not reverse)])
jvp_rules[cumprod_p] = _cumulative_jvp(mul)
jvp_rules[cummax_p] = _cumulative_jvp(max)
jvp_rules[cummin_p] = _cumulative_jvp(min)
jvp_rules[cumlogsumexp_p] = _cumulative_jvp(_logaddexp_fn, cumlogsumexp_p)
for _p in (cumsum_p, cumprod_p, cummax_p, cummin_p, cumlogsumexp_p):
    batching_rules[_p] = _cumulative_batching(_p)
for _p in (cumsum_p, cumprod_p, cummax_p, cummin_p, cumlogsumexp_p):
    sharding_rules[_p] = sharding_types.cumulative_rule


# ------------------------------------------------------------------ lax functions
def _axes(axes) -> tuple:
    return tuple(operator.index(a) for a in axes)


def reduce_sum(operand, axes, *, out_sharding=None):
    """Sum over `axes` (no upcasting of narrow types).

    >>> lax.reduce_sum(jnp.arange(6).reshape(2, 3), (0,))
    Array([3, 5, 7], dtype=int32)
    """
    # (a PartitionSpec under set_mesh: a NamedSharding over its AbstractMesh, as JAX's)
    out_sharding = _canonicalize_sharding(out_sharding, "reduce_sum")
    return reduce_sum_p.bind(operand, axes=_axes(axes), out_sharding=out_sharding)


def _reducer(prim, what: str, note: str = ""):
    """The lax function `prim.name(operand, axes)`: `what` over `axes`, binding `prim`.
    ``lax.reduce_max(jnp.array([1, 3]), (0,))`` is 3; ``lax.reduce_prod`` of it, 3."""
    def reduce(operand, axes):
        return prim.bind(operand, axes=_axes(axes))
    reduce.__name__ = reduce.__qualname__ = prim.name
    reduce.__doc__ = f"{what} over `axes`{note}."
    return reduce


reduce_prod = _reducer(reduce_prod_p, "Product")
reduce_max = _reducer(reduce_max_p, "Maximum", " (NaN propagates)")
reduce_min = _reducer(reduce_min_p, "Minimum", " (NaN propagates)")
reduce_and = _reducer(reduce_and_p, "Bitwise AND", " of a bool or integer array (`all` for bools)")
reduce_or = _reducer(reduce_or_p, "Bitwise OR", " of a bool or integer array (`any` for bools)")
reduce_xor = _reducer(reduce_xor_p, "Bitwise XOR", " of a bool or integer array (parity for bools)")


def argmax(operand, axis, index_dtype):
    """Index of the maximum along `axis`: the first one on ties, the first NaN if any.

    >>> lax.argmax(jnp.array([1., 3., 3.]), 0, jnp.int32)
    Array(1, dtype=int32)
    """
    return argmax_p.bind(operand, axes=(operator.index(axis),),
                         index_dtype=dtypes.canonicalize_user_dtype(index_dtype, "argmax"))


def argmin(operand, axis, index_dtype):
    """Index of the minimum along `axis`: the first one on ties, the first NaN if any."""
    return argmin_p.bind(operand, axes=(operator.index(axis),),
                         index_dtype=dtypes.canonicalize_user_dtype(index_dtype, "argmin"))


def cumsum(operand, axis=0, reverse=False):
    """Cumulative sum along `axis` (from the end if `reverse`).

    >>> lax.cumsum(jnp.array([1, 2, 3]))
    Array([1, 3, 6], dtype=int32)
    """
    return cumsum_p.bind(operand, axis=int(axis), reverse=bool(reverse))


def cumprod(operand, axis=0, reverse=False):
    """Cumulative product along `axis`."""
    return cumprod_p.bind(operand, axis=int(axis), reverse=bool(reverse))


def cummax(operand, axis=0, reverse=False):
    """Cumulative maximum along `axis`."""
    return cummax_p.bind(operand, axis=int(axis), reverse=bool(reverse))


def cummin(operand, axis=0, reverse=False):
    """Cumulative minimum along `axis`."""
    return cummin_p.bind(operand, axis=int(axis), reverse=bool(reverse))


def cumlogsumexp(operand, axis=0, reverse=False):
    """Cumulative log(sum(exp(x))) along `axis`, computed stably."""
    return cumlogsumexp_p.bind(operand, axis=int(axis), reverse=bool(reverse))


# --- generic reduce: a known monoid becomes its primitive, anything else a traced region
_MONOIDS = {add: ("add", reduce_sum), mul: ("mul", reduce_prod), max: ("max", reduce_max),
            min: ("min", reduce_min), bitwise_or: ("or", reduce_or),
            bitwise_and: ("and", reduce_and), bitwise_xor: ("xor", reduce_xor)}


def _concrete(x):
    """The value of `x` if it is known while tracing (not a traced value), else None."""
    if isinstance(x, Tracer):
        return x.to_concrete_value()
    try:
        return np.asarray(x)
    except Exception:
        return None


def _monoid_reducer(computation, inits):
    """The reduce_* function `computation` with `inits` stands for, as JAX recognizes it:
    a lax op applied from its identity (bitwise ops only on bools and integers)."""
    found = _MONOIDS.get(computation) if len(inits) == 1 else None
    if found is None:
        return None
    kind, reducer = found
    value = _concrete(inits[0])
    aval = get_aval(inits[0])
    if value is None or aval.shape != ():
        return None
    if kind in ("and", "or", "xor") and aval.dtype not in INTEGRAL:
        return None
    return reducer if np.equal(value, _identity(kind, aval.dtype)) else None


def _flat_operands(operands, init_values) -> tuple:
    """(operand leaves, init value leaves, their treedef) of lax.reduce and reduce_window, with
    JAX's errors where the two pytrees differ."""
    flat_operands, tree = tree_flatten(operands)
    flat_inits, init_tree = tree_flatten(init_values)
    if tree != init_tree:
        raise ValueError(f"Operands must have the same tree structure as init_values: "
                         f"{tree} vs. {init_tree}")
    if len(flat_operands) != len(flat_inits):
        raise ValueError(f"Must have same total number of operands as init_values: "
                         f"{len(flat_operands)} vs. {len(flat_inits)}")
    return flat_operands, flat_inits, tree


def reduce(operands, init_values, computation, dimensions, out_sharding=None):
    """Reduce `operands` (a pytree of arrays) over `dimensions` with `computation`, a
    monoid whose identities are `init_values` (a pytree of scalars of the same structure).
    `out_sharding`: the result's, for a sum only (reduce_sum's); a traced region drops it,
    as JAX's does.

    >>> lax.reduce(jnp.arange(4.), 0., lax.add, (0,))            # becomes reduce_sum
    Array(6., dtype=float32)
    >>> lax.reduce(jnp.arange(1., 5.), 1., lambda a, b: a * b, (0,))  # a traced region
    Array(24., dtype=float32)
    """
    flat_operands, flat_inits, tree = _flat_operands(operands, init_values)
    dimensions = _axes(dimensions)
    monoid = _monoid_reducer(computation, flat_inits)
    if monoid is not None:
        weak = dtypes.is_weakly_typed(flat_operands[0]) and dtypes.is_weakly_typed(flat_inits[0])
        if out_sharding is not None and monoid is not reduce_sum:
            raise NotImplementedError       # (JAX's, bare: only reduce_sum takes one)
        out = monoid(flat_operands[0], dimensions) if out_sharding is None else \
            reduce_sum(flat_operands[0], dimensions, out_sharding=out_sharding)
        return out if out.weak_type == weak else _convert_element_type(out, out.dtype, weak)
    init_avals = tuple(get_aval(v) for v in flat_inits)
    jaxpr, out_tree = _reduction_jaxpr(computation, init_avals, tree)
    outs = reduce_p.bind(*flat_operands, *flat_inits, computation=computation, jaxpr=jaxpr,
                         dimensions=dimensions)
    return tree_unflatten(out_tree, outs)


@functools.lru_cache(maxsize=1024)
def _reduction_jaxpr(computation, init_avals, init_tree, name="reduce"):
    """The jaxpr of `computation(xs, ys)` on scalars, cached so eager calls hit the
    executable cache (the jaxpr is part of reduce's params); `name` is the operation's, for
    errors."""
    flat, out_tree = flatten_fun(computation, treedef_tuple([init_tree, init_tree]))
    scalars = [a.update(shape=()) for a in init_avals]
    closed = trace_to_jaxpr(flat, scalars * 2)
    if any(isinstance(c, Tracer) for c in closed.consts):
        raise NotImplementedError("Reduction computations can't close over Tracers. Please "
                                  "open an issue at https://github.com/jax-ml/jax.")
    outs = closed.out_avals
    if name == "reduce_window" and out_tree() != init_tree:     # JAX's class and words
        raise ValueError(f"reduce_window output must have the same tree structure as the "
                         f"operands {init_tree} vs. {out_tree()}")
    if out_tree() != init_tree or [(a.shape, a.dtype) for a in outs] != \
            [((), a.dtype) for a in init_avals]:
        raise TypeError(
            f"{name} computation must return scalars of the init values' structure and dtypes "
            f"({init_tree}: {', '.join(a.dtype.name for a in init_avals)}), got {out_tree()}: "
            f"{', '.join(a.str_short(True) for a in outs)}")
    return closed, out_tree()
