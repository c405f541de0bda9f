"""JAX's CallPrimitive (jax.extend.core): a primitive that calls a function, bound as
`p.bind(*args, subfuns=(fun,), **params)` with `fun` a WrappedFun. Eagerly it runs its impl
rule on the function (`call_impl` calls it); under a trace its equation holds the function
traced to a jaxpr (`call_jaxpr`), which jvp and vmap transform and bind the primitive again
with, as JAX's process_call does. Lowering and transposition are a library's to register
(JAX 0.10.2 has neither for a CallPrimitive of one's own).

    >>> p = CallPrimitive("my_call"); _ = p.def_impl(call_impl)
    >>> fun = wrap_init(lambda x: [x * 2.0], debug_info=None)
    >>> p.bind(jnp.ones(2), subfuns=(fun,))
    [Array([2., 2.], dtype=float32)]
"""
from __future__ import annotations

from ..core.interpret import eval_jaxpr
from ..core.ir import call_primitives
from ..core.avals import get_aval
from ..core.partial_eval import partial_eval_jaxpr
from ..core.numpy_eval import call_rule
from ..core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules, impl_rules,
                              jvp_rules, lowering_rules, numpy_rules, partial_eval_rules,
                              transpose_rules)
from ..core.staging import convert_constvars_to_invars, trace_to_jaxpr
from ..core.trace import _ctx, eval_trace, set_current_trace
from .ad import jvp_jaxpr, transpose_jaxpr
from .ad_util import Zero, instantiate, is_undefined
from .batching import batch_jaxpr
from .linear_util import wrap_init


def call_impl(f, *args, **params):
    """The impl of a call primitive: the function itself, on the arguments."""
    del params              # (they parameterize the primitive, not the function)
    return f.call_wrapped(*args)


class CallPrimitive(Primitive):
    """A primitive whose one function operand comes as `subfuns=(fun,)` (multiple results)."""
    call_primitive = True
    skip_canonicalization = True

    def __init__(self, name: str):
        super().__init__(name, multiple_results=True)
        abstract_eval_rules[self] = _abstract_eval
        jvp_rules[self] = _jvp(self)
        axis_batching_rules[self] = _batching(self)
        partial_eval_rules[self] = _partial_eval(self)
        call_primitives.add(self)

    def bind(self, *args, subfuns=None, call_jaxpr=None, **params):
        """Eagerly the impl rule on `fun`; under a trace, one equation with `fun` traced at
        the arguments' types (a jaxpr's equation, rebound, passes its `call_jaxpr`)."""
        fun = subfuns[0] if subfuns is not None else _as_fun(call_jaxpr)
        if _ctx.trace is eval_trace:
            impl = impl_rules.get(self)
            if impl is None:
                raise NotImplementedError(f"Evaluation rule for '{self.name}' not implemented")
            return impl(fun, *args, **params)
        closed = trace_to_jaxpr(lambda *xs: list(fun.call_wrapped(*xs)),
                                [get_aval(x) for x in args])
        jaxpr, consts = convert_constvars_to_invars(closed)
        return _ctx.trace.process_primitive(self, (*consts, *args),
                                            dict(params, call_jaxpr=jaxpr))

    def get_bind_params(self, params) -> dict:
        """JAX's: the function of the equation's `call_jaxpr` as `subfuns`."""
        params = dict(params)
        return dict(params, subfuns=(_as_fun(params.pop("call_jaxpr")),))


def _as_fun(closed):
    """`closed` (a ClosedJaxpr) as the WrappedFun evaluating it."""
    return wrap_init(lambda *args: eval_jaxpr(closed.jaxpr, closed.consts, *args),
                     debug_info=None)


def _abstract_eval(*avals, call_jaxpr, **params):
    return call_jaxpr.out_avals


def _jvp(prim):
    def rule(primals, tangents, *, call_jaxpr, **params):
        """The primitive again, on the jvp of its function (primal and tangent results)."""
        nonzeros = [type(t) is not Zero for t in tangents]
        jaxpr, out_nonzeros = jvp_jaxpr(call_jaxpr, nonzeros)
        outs = prim.bind(*primals, *[t for t in tangents if type(t) is not Zero],
                         call_jaxpr=jaxpr, **params)
        n = len(call_jaxpr.out_avals)
        rest = iter(outs[n:])
        return outs[:n], [next(rest) if nz else Zero(a)
                          for nz, a in zip(out_nonzeros, call_jaxpr.out_avals)]
    return rule


def _batching(prim):
    def rule(axis_data, vals, dims, *, call_jaxpr, **params):
        """The primitive again, on its function batched."""
        batched, out_dims = batch_jaxpr(call_jaxpr, axis_data, dims)
        return prim.bind(*vals, call_jaxpr=batched, **params), out_dims
    return rule


def _partial_eval(prim):
    def rule(trace, args, params):
        """Linearizing: the primitive on the known part of its function now, and an equation
        of it on the unknown part (taking the residuals), as JAX's partial_eval of a call."""
        rest = {k: v for k, v in params.items() if k != "call_jaxpr"}
        unknowns = [trace.is_unknown(x) for x in args]
        known, unknown, out_unknowns, n_res = partial_eval_jaxpr(params["call_jaxpr"], unknowns)
        with set_current_trace(trace.parent):
            known_outs = prim.bind(*[x for x, u in zip(args, unknowns) if not u],
                                   call_jaxpr=known, **rest)
        n_known = len(known_outs) - n_res
        unknown_jaxpr, unknown_consts = convert_constvars_to_invars(unknown)
        atoms = [trace.to_atom(x) for x in (*unknown_consts, *known_outs[n_known:])] + \
            [trace.to_atom(x) for x, u in zip(args, unknowns) if u]
        unknown_outs = iter(trace.add_eqn(atoms, prim, dict(rest, call_jaxpr=unknown_jaxpr),
                                          unknown_jaxpr.out_avals))
        known_iter = iter(known_outs[:n_known])
        return [next(unknown_outs) if u else next(known_iter) for u in out_unknowns]
    return rule


# ------------------------------------------------------------------ JAX's core.call_p
def _core_call_lowering(ctx, *args, call_jaxpr, **params):
    """JAX's core_call_lowering: the body as a private function `core_call`, called; its
    ops named by their own name stack (`bar/add`), the call by the equation's (`.../call`)."""
    return ctx.call_jaxpr(call_jaxpr, list(args), name="core_call")


def _core_call_transpose(cts, *args, call_jaxpr, **params):
    """The call again, of its body transposed in its linear operands (JAX's call_transpose)."""
    linear = [is_undefined(a) for a in args]
    transposed = transpose_jaxpr(call_jaxpr, linear)
    outs = iter(call_p.bind(*[a for a, lin in zip(args, linear) if not lin],
                            *[instantiate(ct) for ct in cts], call_jaxpr=transposed, **params))
    return [next(outs) if lin else None for lin in linear]


# JAX's `core.call_p` (jax._src.core's): its equation holds the traced body, lowered as a
# call of a private function; its body printed with names of its own, as JAX's
call_p = CallPrimitive("call")
call_p.def_impl(call_impl)
call_primitives.discard(call_p)
lowering_rules[call_p] = _core_call_lowering
transpose_rules[call_p] = _core_call_transpose
numpy_rules[call_p] = call_rule("call_jaxpr")
