"""eval_jaxpr_p: a primitive that runs a closed jaxpr on its operands (JAX's
`jax._src.lax.eval_jaxpr.eval_jaxpr_p`: `eval_jaxpr_p.bind(*args, jaxpr=closed)`), for code
that holds a jaxpr and wants to call it as one operation.

    >>> closed = jax.make_jaxpr(lambda x: [x * 2.0])(1.0)
    >>> eval_jaxpr_p.bind(jnp.float32(3.0), jaxpr=closed)
    [Array(6., dtype=float32)]

Eagerly and under jit it runs (and compiles) the jaxpr's equations in place; differentiation and
batching transform the jaxpr and run the result in place, so every transformation of the body's
primitives applies (JAX stages it as a `closed_call`).
"""
from ..core.interpret import eval_jaxpr
from ..core.numpy_eval import call_rule
from ..core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules, impl_rules,
                              jvp_rules, lowering_rules, numpy_rules, transpose_rules)
from ..transforms import batch_util as bu
from ..transforms.ad import jvp_jaxpr, transpose_jaxpr
from ..transforms.ad_util import Zero, instantiate, is_undefined
from ..transforms.batching import batch_jaxpr

eval_jaxpr_p = Primitive("eval_jaxpr", multiple_results=True)


def _run(closed, *args) -> list:
    return list(eval_jaxpr(closed.jaxpr, closed.consts, *args))


def _eval_jaxpr_jvp(primals, tangents, *, jaxpr):
    """The jvp of the body, run in place: the body's own primitives carry the rules (so its
    tangent part linearizes and transposes as they do)."""
    nonzeros = [type(t) is not Zero for t in tangents]
    jvp_closed, out_nonzeros = jvp_jaxpr(jaxpr, nonzeros)
    outs = _run(jvp_closed, *primals, *[t for t in tangents if type(t) is not Zero])
    n = len(jaxpr.out_avals)
    rest = iter(outs[n:])
    return outs[:n], [next(rest) if nz else Zero(a.strip_weak_type())
                      for nz, a in zip(out_nonzeros, jaxpr.out_avals)]


def _eval_jaxpr_batching(axis_data, vals, dims, *, jaxpr):
    """The batched body, run in place: its batched results have their batch axis first."""
    batched, out_dims = batch_jaxpr(jaxpr, axis_data, list(dims))
    return _run(batched, *vals), [bu.not_mapped if d is bu.not_mapped else 0 for d in out_dims]


def _eval_jaxpr_transpose(cts, *args, jaxpr):
    """The body transposed in its linear operands, run in place (as linear_transpose of a
    function binding it needs)."""
    linear = [is_undefined(a) for a in args]
    transposed = transpose_jaxpr(jaxpr, linear)
    outs = iter(_run(transposed, *[a for a, lin in zip(args, linear) if not lin],
                     *[instantiate(ct) for ct in cts]))
    return [next(outs) if lin else None for lin in linear]


abstract_eval_rules[eval_jaxpr_p] = lambda *avals, jaxpr: list(jaxpr.out_avals)
impl_rules[eval_jaxpr_p] = lambda *args, jaxpr: _run(jaxpr, *args)
lowering_rules[eval_jaxpr_p] = lambda ctx, *args, jaxpr: ctx.lower_jaxpr(jaxpr, list(args))
numpy_rules[eval_jaxpr_p] = call_rule("jaxpr")
jvp_rules[eval_jaxpr_p] = _eval_jaxpr_jvp
axis_batching_rules[eval_jaxpr_p] = _eval_jaxpr_batching
transpose_rules[eval_jaxpr_p] = _eval_jaxpr_transpose
