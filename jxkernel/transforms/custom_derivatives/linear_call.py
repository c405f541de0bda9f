"""linear_call: a function linear in some of its arguments, with a transpose of its own, and
the `linear_call` primitive it binds (its jvp the same call on the tangents, its transpose
the user's function; no batching rule, as in JAX 0.10.2).
"""
from __future__ import annotations

import functools

from ...core.avals import get_aval
from ...core.interpret import eval_jaxpr
from ...core.ir import Literal
from ...core.numpy_eval import call_rule
from ...core.primitive import (Primitive, abstract_eval_rules, impl_rules, jvp_rules,
                               lowering_rules, numpy_rules, transpose_rules)
from ...core.staging import convert_constvars_to_invars, trace_to_jaxpr
from ...tree_util import tree_flatten, tree_unflatten, treedef_tuple
from ..ad_util import Zero, instantiate, zeros
from ..api_util import flatten_fun
from .call_rules import _literal_residual


def linear_call(fun, fun_transpose, residual_args, linear_args):
    """Call `fun(residual_args, linear_args)`, linear in `linear_args`, whose transpose is
    `fun_transpose(residual_args, cotangents)` (and the transpose of that is `fun` again).

    >>> def custom_id(x):
    ...     return linear_call(lambda _, x: x, lambda _, t: 7.0, (), x)
    >>> float(custom_id(1.0)), float(jax.linear_transpose(custom_id, 1.0)(1.0)[0])
    (1.0, 7.0)
    """
    operands_res, res_tree = tree_flatten(residual_args)
    operands_lin, lin_tree = tree_flatten(linear_args)
    f, out_tree = flatten_fun(fun, treedef_tuple((res_tree, lin_tree)))
    res_avals = [get_aval(x) for x in operands_res]
    lin_avals = [get_aval(x) for x in operands_lin]
    callee, f_consts = convert_constvars_to_invars(trace_to_jaxpr(f, [*res_avals, *lin_avals]))
    t, t_out_tree = flatten_fun(fun_transpose, treedef_tuple((res_tree, out_tree())))

    @functools.cache      # traced when first transposed, as JAX's
    def transpose_thunk():
        closed = trace_to_jaxpr(t, [*res_avals, *callee.out_avals])
        if t_out_tree() != lin_tree:
            raise TypeError(f"transpose output pytree structure must match that of linear "
                            f"inputs, got output structure {t_out_tree()} and input "
                            f"structure {lin_tree}.")
        return convert_constvars_to_invars(closed)
    out = linear_call_p.bind(*f_consts, *operands_res, *operands_lin, callee=callee,
                             transpose_thunk=transpose_thunk, num_callee_consts=len(f_consts),
                             num_res=len(operands_res))
    return tree_unflatten(out_tree(), out)


linear_call_p = Primitive("linear_call", multiple_results=True)


def _linear_call_impl(*args, callee, **_):
    # (an output the function returned as a Python constant comes back as that value, as
    # JAX's TypedFloat, not as the jaxpr's Literal)
    outs = eval_jaxpr(callee.jaxpr, callee.consts, *args)
    return [_literal_residual(o) if type(o) is Literal else o for o in outs]


def _linear_call_jvp(primals, tangents, *, callee, transpose_thunk, num_callee_consts, num_res):
    # linear in its linear operands: the tangent is the same call on their tangents (the
    # constants' and residuals' tangents are zero: JAX asserts it)
    n = num_callee_consts + num_res
    params = dict(callee=callee, transpose_thunk=transpose_thunk,
                  num_callee_consts=num_callee_consts, num_res=num_res)
    outs = linear_call_p.bind(*primals, **params)
    if all(type(t) is Zero for t in tangents[n:]):
        return outs, [Zero(get_aval(o)) for o in outs]
    tangents_out = linear_call_p.bind(*primals[:n], *map(instantiate, tangents[n:]), **params)
    return outs, tangents_out


def _linear_call_transpose(cts, *args, callee, transpose_thunk, num_callee_consts, num_res):
    transpose, t_consts = transpose_thunk()
    f_consts = args[:num_callee_consts]
    operands_res = args[num_callee_consts:num_callee_consts + num_res]
    cts_avals = transpose.in_avals[len(t_consts) + num_res:]
    cts = [zeros(a) if type(ct) is Zero else ct for ct, a in zip(cts, cts_avals)]
    cts_out = linear_call_p.bind(*t_consts, *operands_res, *cts, callee=transpose,
                                 transpose_thunk=lambda: (callee, list(f_consts)),
                                 num_callee_consts=len(t_consts), num_res=num_res)
    return [None] * (num_callee_consts + num_res) + list(cts_out)


abstract_eval_rules[linear_call_p] = lambda *avals, callee, **_: callee.out_avals
impl_rules[linear_call_p] = _linear_call_impl
lowering_rules[linear_call_p] = lambda ctx, *args, callee, **_: ctx.lower_jaxpr(callee, list(args))
numpy_rules[linear_call_p] = call_rule("callee")
jvp_rules[linear_call_p] = _linear_call_jvp
transpose_rules[linear_call_p] = _linear_call_transpose
# (no batching rule: JAX 0.10.2 has none either)
