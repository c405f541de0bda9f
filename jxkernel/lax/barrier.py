"""optimization_barrier: values pass through unchanged, but XLA may not move work across.

    >>> lax.optimization_barrier((x, y))          # a pytree in, the same pytree out

It keeps the compiler from merging or fusing computations on either side (remat uses it
to stop the recomputation being merged with the forward pass). Outside a compiled
function it does nothing visible.
"""
from __future__ import annotations

from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, impl_rules,
                              jvp_rules, lowering_rules, numpy_rules, transpose_rules)
from ..tree_util import tree_flatten, tree_unflatten
from ..transforms.ad_util import instantiate

optimization_barrier_p = Primitive("optimization_barrier", multiple_results=True)


def optimization_barrier(operand, /):
    """`operand` (any pytree of arrays) unchanged, behind a barrier to compiler optimizations.

    >>> jax.jit(lambda x: lax.optimization_barrier(lax.sin(x)) + lax.sin(x))(0.)
    Array(0., dtype=float32, weak_type=True)
    """
    leaves, tree = tree_flatten(operand)
    return tree_unflatten(tree, optimization_barrier_p.bind(*leaves))


def _barrier_lowering(ctx, *args):
    if not args:
        return []
    return ctx.op("stablehlo.optimization_barrier", list(args), result_types=[a.type for a in args])


def _barrier_jvp(primals, tangents):
    # primals and tangents each behind a barrier of their own, as JAX does
    tangents = [instantiate(t) for t in tangents]
    return optimization_barrier_p.bind(*primals), optimization_barrier_p.bind(*tangents)


def _barrier_transpose(cts, *args):
    return optimization_barrier_p.bind(*[instantiate(c) for c in cts])


abstract_eval_rules[optimization_barrier_p] = lambda *avals: list(avals)
lowering_rules[optimization_barrier_p] = _barrier_lowering
numpy_rules[optimization_barrier_p] = lambda *args: list(args)     # nothing to reorder
jvp_rules[optimization_barrier_p] = _barrier_jvp
transpose_rules[optimization_barrier_p] = _barrier_transpose
batching_rules[optimization_barrier_p] = lambda vals, dims: (
    optimization_barrier_p.bind(*vals), list(dims))


# ------------------------------------------------------------------ dce_sink
# Marks a value as used, so the computation producing it stays: an equation with no
# results. With prevent_mlir_dce, XLA keeps it too (a side-effecting custom call, the
# `dce_sink` target jaxlib registers); without, the program drops it as usual.
dce_sink_p = Primitive("dce_sink", multiple_results=True)


def dce_sink(val, *, prevent_mlir_dce: bool = False) -> None:
    """Mark every array in the pytree `val` as used.

    >>> jax.make_jaxpr(lambda x: lax.dce_sink(x * 2) or x)(1.0).eqns[1].primitive.name
    'dce_sink'
    """
    for leaf in tree_flatten(val)[0]:
        dce_sink_p.bind(leaf, prevent_mlir_dce=prevent_mlir_dce)


def _dce_sink_lowering(ctx, x, *, prevent_mlir_dce):
    if not prevent_mlir_dce:
        return []
    from ..xla import ffi     # deferred: needed only by a program that keeps its sinks
    return ffi.custom_call(ctx, "dce_sink", [x], [], backend_config="{}",
                           operand_layouts=[ffi.row_major(a.ndim) for a in ctx.avals_in],
                           result_layouts=[], has_side_effect=True)


def _dce_sink_jvp(primals, tangents, **params):
    dce_sink_p.bind(*primals, **params)       # (a tangent needs no sink: nothing reads it)
    return [], []


abstract_eval_rules[dce_sink_p] = lambda x, **params: []
impl_rules[dce_sink_p] = lambda x, **params: []
lowering_rules[dce_sink_p] = _dce_sink_lowering
numpy_rules[dce_sink_p] = lambda x, **params: []
jvp_rules[dce_sink_p] = _dce_sink_jvp
transpose_rules[dce_sink_p] = lambda cts, x, **params: [None]
batching_rules[dce_sink_p] = lambda vals, dims, **params: (dce_sink_p.bind(*vals, **params), [])
