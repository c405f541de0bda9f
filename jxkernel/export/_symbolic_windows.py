"""Lowering with symbolic dimensions, for the ops over windows whose sizes may be symbolic:
a convolution whose padding is symbolic (its 'SAME' padding of a symbolic input size) is
JAX's `stablehlo.dynamic_conv`, the padding an operand; a window reduction whose window,
strides, dilations or padding are symbolic is JAX's `stablehlo.dynamic_reduce_window`
custom call, its sizes operands. jaxlib's shape refinement makes each the static op again
when the export is called. Constant ones keep their op, typed with `?`
(_symbolic_lowering.py's rules)."""
from __future__ import annotations

import numpy as np

from ..core.primitive import lowering_rules
from ..core.symbolic import is_symbolic
from ..lax import convolution


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
            np.issubdtype(ctx.avals_in[0].dtype, np.complexfloating):
        return lowering_rules[convolution.conv_general_dilated_p](ctx, lhs, rhs, **params)
    attrs = convolution.conv_attrs(**{**{k: params[k] for k in (
        "window_strides", "lhs_dilation", "rhs_dilation", "dimension_numbers",
        "feature_group_count", "batch_group_count", "precision")}, "padding": None})
    return ctx.op1("stablehlo.dynamic_conv", [lhs, rhs, _padding_operand(ctx, padding)], attrs)
