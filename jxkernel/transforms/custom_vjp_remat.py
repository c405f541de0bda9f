"""custom_vjp's `optimize_remat`: a forward rule that runs as the primal function wherever its
residuals go unread (JAX's `optimize_remat_of_custom_vjp_fwd` and its `remat_opt` primitive).

Under checkpoint, the forward pass keeps only the primal outputs and the backward pass
recomputes the residuals; fwd then need not run twice in full: its equation, `remat_opt`,
carries fwd's jaxpr and (traced on demand) the primal function's, and dead-code elimination
turns it into the primal function once no residual is read.

    >>> fwd = optimize_remat_of_custom_vjp_fwd(lambda x: x, None, lambda x: (2 * x, (x,)), None)
    >>> jax.jit(lambda x: fwd(x)[0])(1.0)       # residual unread: the primal function runs
    Array(1., dtype=float32, weak_type=True)
"""
from __future__ import annotations

import inspect

from ..core.avals import get_aval
from ..core.dce import dce_jaxpr_outputs, dce_rules
from ..core.interpret import eval_jaxpr
from ..core.ir import ClosedJaxpr, param_printers
from ..core.numpy_eval import call_rule
from ..core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules, impl_rules,
                              jvp_rules, lowering_rules, numpy_rules)
from ..core.staging import convert_constvars_to_invars, trace_to_jaxpr
from ..tree_util import tree_flatten, tree_unflatten
from .ad import jvp_jaxpr
from .ad_util import Zero
from .api_util import wraps
from .batching import batch_jaxpr

# operands: fwd's consts, then the primal arguments; results: the residuals, then the
# primal outputs (JAX's order). `fun_jaxpr`: a thunk giving the primal function's ClosedJaxpr
remat_opt_p = Primitive("remat_opt", multiple_results=True)


def optimize_remat_of_custom_vjp_fwd(fun, debug_fun, fwd, debug_fwd, nondiff_argnums=(),
                                     symbolic_zeros=False):
    """`fwd` as one `remat_opt` equation per call, which DCE turns into `fun` where the
    residuals are unread. `debug_fun`/`debug_fwd` are JAX's debug infos (unused here)."""
    if symbolic_zeros:
        raise NotImplementedError("remat optimization for custom_vjp does not support "
                                  "symbolic zeros")

    @wraps(fwd)
    def wrapped_fwd(*args, **kwargs):
        args = _positional(fun, args, kwargs)
        static = {i: args[i] for i in nondiff_argnums}
        dyn = [a for i, a in enumerate(args) if i not in static]
        leaves, in_tree = tree_flatten(dyn)
        avals = [get_aval(x) for x in leaves]
        trees = {}

        def flat(f, key):
            def run(*xs):
                it = iter(tree_unflatten(in_tree, xs))
                out = f(*[static[i] if i in static else next(it) for i in range(len(args))])
                leaves_out, trees[key] = tree_flatten(out)
                return leaves_out
            return run

        closed = trace_to_jaxpr(flat(fwd, "fwd"), avals)
        primal_tree, res_tree = trees["fwd"].children()
        n_res = res_tree.num_leaves
        fwd_jaxpr, consts = convert_constvars_to_invars(_residuals_first(closed, n_res))
        fun_jaxpr = _Memo(lambda: trace_to_jaxpr(flat(fun, "fun"), avals))
        outs = remat_opt_p.bind(*consts, *leaves, num_consts=len(consts), num_res=n_res,
                                fwd_jaxpr=fwd_jaxpr, fun_jaxpr=fun_jaxpr)
        res, primal_out = outs[:n_res], outs[n_res:]
        return tree_unflatten(primal_tree, primal_out), tree_unflatten(res_tree, res)
    return wrapped_fwd


def _positional(fun, args, kwargs):
    """`args` and `kwargs` as positional arguments of `fun` (JAX's resolve_kwargs)."""
    if not kwargs:
        return tuple(args)
    bound = inspect.signature(fun).bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.args


def _residuals_first(closed: ClosedJaxpr, n_res: int) -> ClosedJaxpr:
    """fwd's flat results (primal outputs, residuals) reordered residuals first."""
    j = closed.jaxpr
    n_out = len(j.outvars) - n_res
    return ClosedJaxpr(type(j)(j.constvars, j.invars, j.outvars[n_out:] + j.outvars[:n_out],
                               j.eqns), closed.consts)


class _Memo:
    """A thunk traced once: the primal function's jaxpr, made only if DCE asks for it."""
    def __init__(self, make):
        self.make, self.value = make, None

    def __call__(self):
        if self.value is None:
            self.value = self.make()
        return self.value


def _remat_opt_jvp(primals, tangents, *, num_consts, num_res, fwd_jaxpr, fun_jaxpr):
    # fwd's JVP, inline (JAX keeps a remat_opt of the JVPs; the values are the same)
    nonzeros = [type(t) is not Zero for t in tangents]
    jvp, out_nonzeros = jvp_jaxpr(fwd_jaxpr, nonzeros, instantiate=True)
    outs = eval_jaxpr(jvp.jaxpr, jvp.consts, *primals, *[t for t in tangents
                                                           if type(t) is not Zero])
    n = len(fwd_jaxpr.out_avals)
    return outs[:n], outs[n:]


def _remat_opt_batching(axis_data, vals, dims, *, num_consts, num_res, fwd_jaxpr, fun_jaxpr):
    every = [True] * len(fwd_jaxpr.out_avals)
    batched, _ = batch_jaxpr(fwd_jaxpr, axis_data, dims, force_out_batched=every)

    def batched_fun():
        fun = fun_jaxpr()
        return batch_jaxpr(fun, axis_data, dims[num_consts:],
                           force_out_batched=[True] * len(fun.out_avals))[0]
    outs = remat_opt_p.bind(*vals, num_consts=num_consts, num_res=num_res, fwd_jaxpr=batched,
                            fun_jaxpr=_Memo(batched_fun))
    return outs, [0] * len(outs)


def _remat_opt_dce(used_outs, eqn):
    """JAX's remat_opt dce rule: a residual read keeps fwd (its arguments all, so that a later
    DCE may still choose the primal function); none read runs the primal function."""
    p = eqn.params
    nc, n_res = p["num_consts"], p["num_res"]
    outvars = [v for v, u in zip(eqn.outvars, used_outs) if u]
    if any(used_outs[:n_res]):
        keep = [False] * nc + [True] * (len(eqn.invars) - nc)
        body, used_ins = dce_jaxpr_outputs(p["fwd_jaxpr"].jaxpr, used_outs, instantiate=keep)
        params = dict(p, fwd_jaxpr=ClosedJaxpr(body, p["fwd_jaxpr"].consts),
                      num_consts=sum(used_ins[:nc]), num_res=sum(used_outs[:n_res]))
        return used_ins, eqn.replace(invars=[v for v, u in zip(eqn.invars, used_ins) if u],
                                     outvars=outvars, params=params)
    fun = p["fun_jaxpr"]()
    body, used_args = dce_jaxpr_outputs(fun.jaxpr, used_outs[n_res:])
    primal = ClosedJaxpr(body, fun.consts)
    params = dict(p, fwd_jaxpr=primal, num_consts=0, num_res=0, fun_jaxpr=lambda: primal)
    used_ins = [False] * nc + used_args
    return used_ins, eqn.replace(invars=[v for v, u in zip(eqn.invars, used_ins) if u],
                                 outvars=outvars, params=params)


abstract_eval_rules[remat_opt_p] = lambda *avals, fwd_jaxpr, **_: fwd_jaxpr.out_avals
impl_rules[remat_opt_p] = lambda *args, fwd_jaxpr, **_: eval_jaxpr(fwd_jaxpr.jaxpr,
                                                                   fwd_jaxpr.consts, *args)
lowering_rules[remat_opt_p] = lambda ctx, *args, fwd_jaxpr, **_: \
    ctx.lower_jaxpr(fwd_jaxpr, list(args))
numpy_rules[remat_opt_p] = call_rule("fwd_jaxpr")
jvp_rules[remat_opt_p] = _remat_opt_jvp
axis_batching_rules[remat_opt_p] = _remat_opt_batching
dce_rules[remat_opt_p] = _remat_opt_dce     # (no transpose: its JVP is fwd's, inline)
param_printers[remat_opt_p] = lambda p: [("fwd_jaxpr", p["fwd_jaxpr"]),
                                         ("num_consts", p["num_consts"]),
                                         ("num_res", p["num_res"])]
