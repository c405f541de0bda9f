"""optimization_barrier: values pass through unchanged, but XLA may not move work across.

    >>> lax.optimization_barrier((x, y))          # a pytree in, the same pytree out

It keeps the compiler from merging or fusing computations on either side (remat uses it
to stop the recomputation being merged with the forward pass). Outside a compiled
function it does nothing visible.
"""
from __future__ import annotations

from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                              lowering_rules, transpose_rules)
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
jvp_rules[optimization_barrier_p] = _barrier_jvp
transpose_rules[optimization_barrier_p] = _barrier_transpose
batching_rules[optimization_barrier_p] = lambda vals, dims: (
    optimization_barrier_p.bind(*vals), list(dims))
