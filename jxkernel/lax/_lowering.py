"""StableHLO helpers for lowering rules: broadcasting, conversion, comparison, reducer
regions, and `lower_fun` (lower a primitive by tracing its definition in other primitives).
"""
from __future__ import annotations

import functools

import numpy as np

from ..core import dtypes
from ..core.config import config
from ..core.avals import ShapedArray, context_abstract_mesh
from ..core.ir import ClosedJaxpr
from ..core.name_stack import replaying
from ..core.numpy_eval import eval_closed_jaxpr_numpy
from ..core.numpy_simplify import simplify_divisions
from ..core.staging import trace_to_jaxpr
from ..core.physical import physicalize_closed
from ..xla import stablehlo as hlo
from ..xla.lowering import RULE_SOURCE, LoweringRuleContext, operand_typed_as


def aval_type(aval) -> str:
    return hlo.tensor_type(aval.shape, aval.dtype)


def broadcast_in_dim(ctx: LoweringRuleContext, value, shape, dtype, dims):
    """`value` broadcast to `shape`, its dimension i becoming dimension dims[i]."""
    if ctx.module_ctx.symbolic is not None:          # jax.export: sizes may be symbolic
        return ctx.module_ctx.symbolic.broadcast_in_dim(ctx, value, shape, dtype, dims)
    return ctx.block.op1("stablehlo.broadcast_in_dim", [value],
                         hlo.tensor_type(tuple(shape), dtype),
                         {"broadcast_dimensions": hlo.i64_array(dims)}, loc=ctx.loc)


def broadcast_operands(ctx: LoweringRuleContext, values, avals=None, shape=None) -> list:
    """Operands of an elementwise op, each broadcast to the result shape where it differs
    (rank-0 operands and size-1 dimensions stretch)."""
    avals = avals if avals is not None else ctx.avals_in
    shape = tuple(shape if shape is not None else ctx.avals_out[0].shape)
    out_aval = ctx.avals_out[0] if ctx.avals_out else None
    typed = out_aval is not None and out_aval.split is not None and out_aval.shape == shape
    out = []
    for v, a in zip(values, avals):
        if a.shape != shape:
            dims = range(len(shape)) if a.shape else ()
            v = broadcast_in_dim(ctx, v, shape, a.dtype, list(dims))
        if typed:     # over Explicit axes: each operand laid out as the result (as JAX's)
            v = operand_typed_as(ctx, v, a, out_aval)
        out.append(v)
    return out


def iota(ctx: LoweringRuleContext, shape, dtype, dimension: int):
    """0, 1, 2... along `dimension` of an array of `shape`."""
    if ctx.module_ctx.symbolic is not None:          # jax.export: sizes may be symbolic
        return ctx.module_ctx.symbolic.iota(ctx, shape, dtype, dimension)
    return ctx.block.op1("stablehlo.iota", [], hlo.tensor_type(tuple(shape), dtype),
                         {"iota_dimension": hlo.i64_attr(dimension)}, loc=ctx.loc)


def splat(ctx: LoweringRuleContext, value, dtype, shape=()):
    """A constant filled with `value`: a scalar constant, broadcast if `shape` is not ()."""
    scalar = ctx.constant(np.asarray(value, dtype=dtype))
    return scalar if not shape else broadcast_in_dim(ctx, scalar, shape, dtype, [])


def convert(ctx: LoweringRuleContext, value, aval_in, dtype):
    """`value` converted to `dtype` (a no-op when it already has it)."""
    if np.dtype(aval_in.dtype) == np.dtype(dtype):
        return value
    return ctx.block.op1("stablehlo.convert", [value], hlo.tensor_type(aval_in.shape, dtype),
                         loc=ctx.loc)


# XLA's CPU backend (jaxlib 0.10.2) and 2-bit integers: a concatenate aborts the process
# (ir_array.cc "Check failed: bit_offset != nullptr"), a reduce of several operands (argmax,
# argmin, lax.reduce of an int2 and an int32) and a sort with an index operand (argsort,
# unique, lexsort) are refused, top_k's iota gets int2's element size (refused by the
# verifier), and a sort of int2 alone returns values in no order at all. JAX 0.10.2 emits
# the same ops and fails the same ways (docs/jaxlib.md, §10); int4 is fine.
_WIDER = {dtypes.int2: np.dtype(np.int8), dtypes.uint2: np.dtype(np.uint8)}


def widen_2bit(rule):
    """`rule` run on int8 (uint8) where an operand or result is int2 (uint2): the operands
    converted up, the 2-bit results converted back. For the ops that move and compare
    elements (concatenate, sort, top_k, argmax's reduce): int8 holds each int2 value, orders
    them alike (signed int2 sign-extends), and a result is one of the operands' values, so it
    converts back exactly (lax.reduce's region converts its arguments back and runs its
    computation in 2 bits). Done on every platform, not only the CPU: it is exact anywhere,
    and XLA's GPU handling of these ops is unchecked."""
    @functools.wraps(rule)
    def lower(ctx: LoweringRuleContext, *args, **params):
        if not any(getattr(a, "dtype", None) in _WIDER for a in (*ctx.avals_in, *ctx.avals_out)):
            return rule(ctx, *args, **params)
        wide = [a.update(dtype=_WIDER[a.dtype]) if getattr(a, "dtype", None) in _WIDER else a
                for a in (*ctx.avals_in, *ctx.avals_out)]
        wide_in, wide_out = wide[:len(ctx.avals_in)], wide[len(ctx.avals_in):]
        args = [convert(ctx, x, a, w.dtype) for x, a, w in zip(args, ctx.avals_in, wide_in)]
        outs = rule(ctx.with_avals(wide_in, wide_out), *args, **params)
        single = not isinstance(outs, (list, tuple))
        outs = [convert(ctx, x, w, a.dtype)
                for x, a, w in zip([outs] if single else outs, ctx.avals_out, wide_out)]
        return outs[0] if single else outs
    return lower


def compare_type(dtype) -> str:
    if dtypes.is_inexact(dtype):
        return "FLOAT"
    if dtypes.is_signed(dtype):
        return "SIGNED"
    return "UNSIGNED"         # unsigned ints and bool


def compare(ctx: LoweringRuleContext, x, y, direction: str, aval, total_order=False):
    """Elementwise comparison of two values of type `aval`, giving booleans."""
    kind = "TOTALORDER" if total_order and dtypes.is_inexact(aval.dtype) else \
        compare_type(aval.dtype)
    return ctx.block.op1(
        "stablehlo.compare", [x, y], hlo.tensor_type(aval.shape, np.bool_),
        {"comparison_direction": hlo.enum("comparison_direction", direction),
         "compare_type": hlo.enum("comparison_type", kind)}, loc=ctx.loc)


def select(ctx: LoweringRuleContext, pred, on_true, on_false, aval):
    return ctx.block.op1("stablehlo.select", [pred, on_true, on_false], aval_type(aval),
                         loc=ctx.loc)


def binary_region(ctx: LoweringRuleContext, hlo_op: str, dtype, n: int = 1):
    """A reducer region `(a, b) -> hlo_op(a, b)` over scalars of `dtype` (for reduce, scan,
    scatter); `n` > 1 makes a variadic reducer of n such pairs."""
    scalar = hlo.tensor_type((), dtype)
    block = ctx.region_block([scalar] * (2 * n))
    outs = [block.op1(hlo_op, [block.args[i], block.args[n + i]], scalar) for i in range(n)]
    block.ret(outs)
    return block


def min_value(dtype):
    """The identity of max: -inf for floats, the smallest int (int4's own -8, from
    dtypes.iinfo: NumPy's iinfo refuses ml_dtypes' narrow ints), False."""
    dtype = np.dtype(dtype)
    if dtypes.is_inexact(dtype):
        return np.array(-np.inf, dtype)
    if dtype == np.bool_:
        return np.array(False)
    return np.array(dtypes.iinfo(dtype).min, dtype)


def max_value(dtype):
    """The identity of min: +inf for floats, the largest int, True."""
    dtype = np.dtype(dtype)
    if dtypes.is_inexact(dtype):
        return np.array(np.inf, dtype)
    if dtype == np.bool_:
        return np.array(True)
    return np.array(dtypes.iinfo(dtype).max, dtype)


# ------------------------------------------------------------------ lower_fun
def lower_fun(fun, multiple_results: bool = False):
    """A lowering rule that traces `fun(*operands, **params)` (written with lax ops) into a
    jaxpr and lowers that inline. Good for primitives defined in terms of others."""
    def rule(ctx: LoweringRuleContext, *args, **params):
        jaxpr = _traced(fun, multiple_results, tuple(ctx.avals_in), tuple(sorted(params.items())))
        module_ctx = ctx.module_ctx
        outer, module_ctx.rule_source = module_ctx.rule_source, ctx.source_info
        try:        # its own equations located at this one (lowering.RULE_SOURCE says why)
            outs = ctx.lower_jaxpr(jaxpr, args)
        finally:
            module_ctx.rule_source = outer
        return outs if multiple_results else outs[0]
    return rule


def numpy_fun(fun, multiple_results: bool = False):
    """The NumPy rule twin of `lower_fun`: the same traced jaxpr of `fun`, evaluated with
    NumPy, so the primitive computes with NumPy what its lowering has XLA compute."""
    def rule(*args, **params):
        avals = tuple(ShapedArray(x.shape, x.dtype) for x in args)
        outs = eval_closed_jaxpr_numpy(
            _traced_for_numpy(fun, multiple_results, avals, tuple(sorted(params.items()))),
            *args)
        return outs if multiple_results else outs[0]
    return rule


def _traced(fun, multiple_results, avals, params):
    """`fun` traced on `avals` (a ClosedJaxpr, physical), cached per the avals' exact
    shardings and the mesh in context too: avals typed over an Explicit mesh's abstract mesh
    without naming an axis equal plain ones, but a jaxpr traced from them, or under
    set_mesh, has results typed over that mesh, which a program for one device refuses."""
    return _traced_cached(fun, multiple_results, avals, tuple(a.split for a in avals),
                          context_abstract_mesh(), params, config._trace_state)


@functools.lru_cache(maxsize=4096)
def _traced_cached(fun, multiple_results, avals, shardings, mesh, params, trace_state):
    # (`trace_state`: the options a trace depends on, as in jit's keys: a rule drawing random
    # bits traces again under another jax_threefry_partitionable)
    kwargs = dict(params)

    def flat(*args):
        out = fun(*args, **kwargs)
        return list(out) if multiple_results else [out]
    # the equations `fun` makes record RULE_SOURCE, not the line running now (one that
    # happened to lower it first); those it binds again from a jaxpr it holds (a scan's
    # body) keep theirs. (Typed keys `fun` makes of its operands' data become that data
    # again: core/physical.py)
    saved, replaying.source_info = replaying.source_info, RULE_SOURCE
    try:
        return physicalize_closed(trace_to_jaxpr(flat, list(avals)))
    finally:
        replaying.source_info = saved


@functools.lru_cache(maxsize=4096)
def _traced_for_numpy(fun, multiple_results, avals, params):
    """`_traced`'s jaxpr as XLA runs it inline in a program: its divisions rewritten."""
    closed = _traced(fun, multiple_results, avals, params)
    return ClosedJaxpr(simplify_divisions(closed.jaxpr), closed.consts)

