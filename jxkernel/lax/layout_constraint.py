"""The primitive of jax.experimental.layout.with_layout_constraint: the value itself, laid out
in memory as `layout` says (its dimensions from major to minor) where XLA places it. Lowered
to XLA's `LayoutConstraint` custom call, which XLA's layout assignment honours and then
removes (JAX's lowering, jax/_src/pjit.py). jxkernel's Arrays are read and written
row-major, so what a program gives back holds the same values whatever layout was asked.

    >>> from jxkernel.experimental.layout import Layout
    >>> layout_constraint_p.bind(jnp.arange(3.0), layout=Layout((0,)))
    Array([0., 1., 2.], dtype=float32)

(`Layout` is jxkernel._jax.experimental.layout's: the rules read its `major_to_minor` and
`update` alone.)
"""
from __future__ import annotations

from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, compiled_impl,
                              impl_rules, lowering_rules, numpy_rules)
from ..transforms import ad_util as ad
from ..transforms import batch_util as bu
from ..xla import stablehlo as hlo
from ..xla.array import Array
from ..xla.ffi import layout as layout_attr

layout_constraint_p = Primitive("layout_constraint")


def _impl(x, *, layout):
    """Eagerly: the value through a program that lays it out so (JAX's copies it too)."""
    if not isinstance(x, Array):
        raise ValueError(f"with_layout_constraint in eager mode can only be applied to "
                         f"jax.Arrays. Got {type(x)}")
    return compiled_impl[0](layout_constraint_p, (x,), {"layout": layout})


def _lowering(ctx, x, *, layout):
    ndim = len(ctx.avals_in[0].shape)
    # XLA reads the result's layout (minor to major); the operand's it ignores (JAX's: any)
    return ctx.op1("stablehlo.custom_call", [x], {
        "call_target_name": '"LayoutConstraint"', "backend_config": '""',
        "api_version": hlo.i32_attr(1),
        "operand_layouts": f"[{layout_attr(tuple(range(ndim)))}]",
        "result_layouts": f"[{layout_attr(tuple(layout.major_to_minor)[::-1])}]"})


def _batching(vals, dims, *, layout):
    """Under vmap: JAX's layout for the batched value (get_layout_for_vmap: every dimension
    one further, 0 inserted at the batch dimension's position)."""
    x, d = vals[0], dims[0]
    if d is bu.not_mapped:
        return layout_constraint_p.bind(x, layout=layout), d
    shifted = [m + 1 for m in layout.major_to_minor]
    shifted.insert(d, 0)
    return layout_constraint_p.bind(x, layout=layout.update(major_to_minor=tuple(shifted))), d


abstract_eval_rules[layout_constraint_p] = lambda aval, *, layout: aval
impl_rules[layout_constraint_p] = _impl
lowering_rules[layout_constraint_p] = _lowering
numpy_rules[layout_constraint_p] = lambda x, *, layout: x    # (NumPy's arrays: row-major)
batching_rules[layout_constraint_p] = _batching
ad.deflinear2(layout_constraint_p,
              lambda ct, x, *, layout: [layout_constraint_p.bind(ct, layout=layout)])
