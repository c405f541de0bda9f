"""Lowering with symbolic dimensions, for the ops over windows whose sizes may be symbolic:
a convolution whose padding is symbolic (its 'SAME' padding of a symbolic input size) is
JAX's `stablehlo.dynamic_conv`, the padding an operand; a window reduction whose window,
strides, dilations or padding are symbolic is JAX's `stablehlo.dynamic_reduce_window`
custom call, its sizes operands. jaxlib's shape refinement makes each the static op again
when the export is called. Constant ones keep their op, typed with `?`
(_symbolic_lowering.py's rules)."""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.primitive import lowering_rules
from ..core.symbolic import is_symbolic
from ..lax import convolution, windowed
from ..lax import reductions as _reductions
from ..xla import stablehlo as hlo


def _padding_operand(ctx, padding):
    """A tensor<Nx2xi32> of the (low, high) pairs, symbolic ones computed."""
    symbolic, n = ctx.module_ctx.symbolic, len(padding)
    flat = symbolic.shape(ctx.block, [d for pair in padding for d in pair])
    return ctx.block.op1("stablehlo.reshape", [flat], f"tensor<{n}x2xi32>")


def conv(ctx, lhs, rhs, **params):
    """conv_general_dilated: `stablehlo.dynamic_conv` where its padding is symbolic (JAX's
    rule); its own rule otherwise. A symbolic stride, dilation or group count is JAX's
    NotImplementedError."""
    if any(is_symbolic(d) for name in ("window_strides", "lhs_dilation", "rhs_dilation")
           for d in params[name]) or is_symbolic(params["feature_group_count"]) or \
            is_symbolic(params["batch_group_count"]):
        raise NotImplementedError("Convolutions with non-static strides, dilation, "
                                  "feature_group_count, or batch_group_count")
    padding = params["padding"]
    if not any(is_symbolic(d) for pair in padding for d in pair) or \
            dtypes.issubdtype(ctx.avals_in[0].dtype, np.complexfloating):
        return lowering_rules[convolution.conv_general_dilated_p](ctx, lhs, rhs, **params)
    attrs = convolution.conv_attrs(**{**{k: params[k] for k in (
        "window_strides", "lhs_dilation", "rhs_dilation", "dimension_numbers",
        "feature_group_count", "batch_group_count", "precision")}, "padding": None})
    return ctx.op1("stablehlo.dynamic_conv", [lhs, rhs, _padding_operand(ctx, padding)], attrs)


def reducer_function(ctx, kind: str, dtype) -> hlo.Function:
    """`reduce_window_<dtype>_reducer(a, b) -> a <kind> b`, a function of the module (a
    custom call names its computation; a region cannot be passed)."""
    scalar = hlo.tensor_type((), dtype)
    fn = ctx.module_ctx.module.function(f"reduce_window_{np.dtype(dtype).name}_reducer",
                                        [scalar, scalar])
    a, b = fn.args
    body = fn.body
    if kind == "logaddexp":
        out = _reductions._logaddexp(ctx.with_block(body), body, dtype, a, b)
    elif kind in ("max", "min") and dtypes.issubdtype(dtype, np.complexfloating):
        out = _reductions._minmax_complex(ctx.with_block(body), body, kind, dtype, a, b)
    else:
        out = body.op1(_reductions._HLO_OPS[kind], [a, b], scalar)
    fn.set_results([out])
    return fn


def dynamic_reduce_window(ctx, operands, inits, reducer, window, strides, padding,
                          base_dilation=None, window_dilation=None) -> list:
    """JAX's `stablehlo.dynamic_reduce_window` custom call: the reduce_window of `operands`
    from `inits` by the module function `reducer`, its sizes operands (tensor<Nxi32> each,
    the padding tensor<Nx2xi32>)."""
    symbolic, rank = ctx.module_ctx.symbolic, len(window)
    ones = (1,) * rank
    sizes = [symbolic.shape(ctx.block, s) for s in (
        window, strides, base_dilation or ones, window_dilation or ones)]
    pads = _padding_operand(ctx, padding) if rank else \
        ctx.constant(np.zeros((0, 2), np.int32))
    return ctx.op("stablehlo.custom_call", [*operands, *inits, *sizes, pads],
                  {"call_target_name": '"stablehlo.dynamic_reduce_window"',
                   "api_version": "2 : i32", "called_computations": f"[@{reducer.name}]"})


_WINDOW_PARAMS = ("window_dimensions", "window_strides", "padding", "base_dilation",
                  "window_dilation")
_MONOIDS = {"reduce_window_sum": "add", "reduce_window_max": "max", "reduce_window_min": "min"}


def _symbolic_window(params) -> bool:
    return any(is_symbolic(d) for name in _WINDOW_PARAMS for v in (params.get(name) or ())
               for d in (v if isinstance(v, tuple) else (v,)))


def _window_args(params) -> dict:
    return dict(window=params["window_dimensions"], strides=params["window_strides"],
                padding=params["padding"], base_dilation=params.get("base_dilation"),
                window_dilation=params.get("window_dilation"))


def window_reductions() -> dict:
    """The rules of the window reductions under symbolic shapes: their own op (typed with
    `?`) where the window's sizes are constants, the dynamic_reduce_window custom call
    where one is symbolic (as JAX's mlir.reduce_window)."""
    rules = {}
    for prim in (windowed.reduce_window_sum_p, windowed.reduce_window_max_p,
                 windowed.reduce_window_min_p):
        def monoid(ctx, x, *, _kind=_MONOIDS[prim.name], _rule=lowering_rules[prim],
                   **params):
            if not _symbolic_window(params):
                return _rule(ctx, x, **params)
            dtype = ctx.avals_in[0].dtype
            init = ctx.constant(_reductions._identity(_kind, dtype))
            return dynamic_reduce_window(ctx, [x], [init], reducer_function(ctx, _kind, dtype),
                                         **_window_args(params))[0]
        rules[prim] = monoid
    rules[windowed.reduce_window_p] = _generic
    return rules


def _generic(ctx, *values, jaxpr, **params):
    """reduce_window with a computation: the computation a module function."""
    if not _symbolic_window(params):
        return lowering_rules[windowed.reduce_window_p](ctx, *values, jaxpr=jaxpr, **params)
    n = len(values) // 2
    scalars = [hlo.tensor_type((), a.dtype) for a in ctx.avals_in[n:]]
    fn = ctx.module_ctx.module.function("generic_reduce_window_reducer", scalars * 2)
    fn.set_results(ctx.lower_jaxpr(jaxpr, fn.args, block=fn.body))
    return dynamic_reduce_window(ctx, values[:n], values[n:], fn, **_window_args(params))
