"""custom_vjp: a function with its own forward and backward rules, the `custom_vjp_call`
primitive it binds, and `custom_lin`, the equation it becomes under differentiation.

    >>> f = custom_vjp(lambda x: x * 2.0)
    >>> f.defvjp(lambda x: (x * 2.0, None), lambda res, g: (g * 3.0,))
    >>> float(jax.grad(f)(1.0))
    3.0

Its call first checks the arguments as JAX does (a tracer among `nondiff_argnums`, or closed
over under jax_custom_vjp3; Refs passed in reach the rules as they are). Under a JVP fwd runs
at once on the primals (`_vjp_directly`); elsewhere the function is traced and bound as one
`custom_vjp_call` equation carrying fwd and bwd over flat lists (`vjp_rules.py`).
Differentiated, the call is its fwd plus a `custom_lin` equation, linear in the tangents,
whose transpose is the user's bwd; vmap batches the body and both rules; dead-code
elimination cuts the body and fwd to the used outputs.
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes, sharding_types
from ...core.avals import get_aval
from ...core.config import config
from ...core.dce import dce_rules
from ...core.errors import UnexpectedTracerError, ref_type
from ...core.ir import name_not_a_param, param_printers
from ...core.name_stack import replaying
from ...core.partial_eval import PartialEvalTrace
from ...core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules, impl_rules,
                               jvp_rules, lowering_rules, numpy_rules, sharding_typing_rules,
                               transpose_rules)
from ...core.source_info import add_user_context
from ...core.staging import is_ref, live_ref, making_refs, ref_get
from ...core.errors import jax_class_name
from ...core.trace import Tracer, _ctx, set_current_trace
from ...tree_util import keystr, tree_flatten, tree_flatten_with_path, tree_unflatten
from .. import batch_util as bu
from ..api_util import positional_parameters
from ..ad import always_transposed
from ..ad_util import Zero, instantiate
from ..custom_vjp_remat import optimize_remat_of_custom_vjp_fwd
from .call_rules import (_batch_rule, _batched_call, _closure_error, _literal_residual,
                         _match_dim, _pick, _register_call_rules, _type_text, _unbatched_call,
                         _used_call_jaxpr)
from .function import _CustomFunction, _resolve_args, _split, _trace_call
from .vjp_rules import _FlatVJPRule


def _vjp_directly(custom, nondiff, in_tree, primals, tangents, n_args, name):
    rule = _FlatVJPRule(custom, nondiff, in_tree, None, n_args, name,
                        [get_aval(x) for x in primals])
    outs, out_tangents = _custom_vjp_call_jvp(primals, tangents, call_jaxpr=None, fwd=rule,
                                              bwd=rule.bwd, num_consts=0,
                                              symbolic_zeros=custom.symbolic_zeros, name=name)
    return outs, out_tangents, rule.out_tree


class custom_vjp(_CustomFunction):
    """A function with a custom VJP: `defvjp(fwd, bwd)`; fwd returns (out, residuals),
    bwd(residuals, cotangent) returns a tuple of cotangents, one per argument."""
    _rule_attr = "fwd"
    _missing_rule = "No VJP defined for custom_vjp function {name} using defvjp."
    _under_jvp = staticmethod(_vjp_directly)

    def __init__(self, fun, nondiff_argnums=(), nondiff_argnames=()):
        super().__init__(fun, nondiff_argnums, nondiff_argnames)
        self.fwd = self.bwd = None

    def defvjp(self, fwd, bwd, symbolic_zeros=False, optimize_remat=False):
        if optimize_remat:      # fwd runs as fun where its residuals go unread (under remat)
            fwd = optimize_remat_of_custom_vjp_fwd(self.fun, None, fwd, None,
                                                   self.nondiff_argnums, symbolic_zeros)
        self.fwd, self.bwd, self.symbolic_zeros = fwd, bwd, symbolic_zeros

    def __call__(self, *args, **kwargs):
        if self.fwd is not None and any(map(is_ref, args)):
            _check_refs_passed_once(self.fun, args)
            derived, rest = _closing_over_refs(self, args)
            return derived(*rest, **kwargs)
        if self.nondiff_argnums and self.fwd is not None:
            _check_nondiff_static(self, _resolve_args(self.fun, args, kwargs, "custom_vjp"))
        if config.jax_custom_vjp3 and self.fwd is not None:
            _check_no_closed_over_tracers(self, _resolve_args(self.fun, args, kwargs,
                                                              "custom_vjp"))
        return super().__call__(*args, **kwargs)

    def _bind(self, jaxpr, consts, leaves, nondiff, in_tree, out_tree, n_args, name):
        rule = _FlatVJPRule(self, nondiff, in_tree, out_tree, n_args, name,
                            [get_aval(x) for x in leaves])
        rule.out_avals = jaxpr.out_avals
        return custom_vjp_call_p.bind(*consts, *leaves, call_jaxpr=jaxpr, fwd=rule, bwd=rule.bwd,
                                      num_consts=len(consts), symbolic_zeros=self.symbolic_zeros,
                                      name=name)


def _check_nondiff_static(custom, args) -> None:
    """JAX's UnexpectedTracerError where a nondiff_argnums argument of a custom_vjp holds a
    tracer (its words; those of its custom_vjp3 rewrite under jax_custom_vjp3)."""
    nondiff, _ = _split(args, custom.nondiff_argnums)
    if not any(isinstance(x, Tracer) for x in tree_flatten(nondiff)[0]):
        return
    if config.jax_custom_vjp3:
        raise UnexpectedTracerError("custom_vjp inputs marked with nondiff_argnums must be "
                                    "static, not Tracers")
    raise UnexpectedTracerError(
        "Found a JAX Tracer object passed as an argument to a custom_vjp function in a "
        "position indicated by nondiff_argnums as non-differentiable. Tracers cannot be passed "
        "as non-differentiable arguments to custom_vjp functions; instead, nondiff_argnums "
        "should only be used for arguments that can't be or contain JAX tracers, e.g. "
        "function-valued arguments. In particular, array-valued arguments should typically not "
        "be indicated as nondiff_argnums.")




def _check_no_closed_over_tracers(custom, args) -> None:
    """Under jax_custom_vjp3, JAX's UnexpectedTracerError where the function closes over a
    tracer (its custom_vjp3 traces the function and refuses tracers among the constants)."""
    nondiff, dyn = _split(args, custom.nondiff_argnums)
    _, consts, *_ = _trace_call(custom.fun, nondiff, dyn, custom.nondiff_argnums, len(args))
    tracer = next((c for c in consts if isinstance(c, Tracer)), None)
    if tracer is not None:
        raise UnexpectedTracerError(
            f"custom_vjp-decorated function {custom.fun} closed over a "
            f"{jax_class_name(type(tracer))} of type {_type_text(tracer.aval)}, but custom_vjp "
            f"functions can't close over Tracers. Rewrite {custom.fun} to take it as an "
            f"explicit input.")


def _check_refs_passed_once(fun, args) -> None:
    """JAX's error for one Ref passed as two arguments of a custom_vjp function."""
    names = positional_parameters(fun) or []
    refs = [i for i, a in enumerate(args) if is_ref(a)]
    for n, i in enumerate(refs):
        for j in refs[n + 1:]:
            if args[i] is args[j]:
                name = [names[k] if k < len(names) else f"args[{k}]" for k in (i, j)]
                raise ValueError(
                    f"only one reference to a mutable array may be passed as an argument to a "
                    f"function, but custom_vjp function {fun!r} got the same mutable array "
                    f"reference of type {ref_type(args[i])} at {name[0]} and {name[1]}.")


def _closing_over_refs(custom, args) -> tuple:
    """(a custom_vjp closing over `args`' Refs, the other arguments): the Refs reach fun, fwd
    and bwd as they are, not as values to differentiate; bwd's cotangent for each (None) is
    dropped, and a Ref among fwd's residuals is kept beside them. JAX's array_refs guide
    stashes gradients so: `bwd(grads_ref, g)` writes `grads_ref[...] = g`. A Ref holding a
    traced value (`moved`) is passed by that value instead, so that the cotangent bwd returns
    for it reaches the value the Ref was made from, as JAX's (its fun and fwd may not write
    it then)."""
    nondiff = custom.nondiff_argnums     # (a Ref among them stays an argument)
    refs = {i: a for i, a in enumerate(args) if is_ref(a) and i not in nondiff}
    rest_at = [i for i in range(len(args)) if i not in refs]
    diff = [i for i in range(len(args)) if i not in nondiff]
    kept = {}                          # fwd's residual Refs, by leaf index, and the tree
    # A Ref holding a traced value (made from a differentiated one, or a jit's): its value
    # goes in as one more argument, differentiated as JAX's, the cotangent bwd returns for
    # the Ref its gradient; the rules see a Ref of it (`fresh`), which they may not write
    moved = [i for i in refs if isinstance(ref_get(live_ref(refs[i])), Tracer)]
    values = [ref_get(live_ref(refs[i])) for i in moved]
    fresh, held = {}, {}

    def full(given):
        rest = iter(given[:len(rest_at)])
        new_ref = making_refs["new_ref"]
        fresh.update((i, new_ref(v)) for i, v in zip(moved, given[len(rest_at):]))
        held.update((i, ref_get(fresh[i])) for i in moved)
        return [fresh[i] if i in fresh else live_ref(refs[i]) if i in refs else next(rest)
                for i in range(len(args))]

    def unwritten(what):
        for i in moved:
            if ref_get(fresh[i]) is not held[i]:
                raise NotImplementedError(
                    f"custom_vjp {what} function {getattr(custom, what)!r} wrote the mutable "
                    f"array reference of type {ref_type(fresh[i])} it was given, which holds "
                    f"a traced value (a jit's, or one being differentiated): not supported by "
                    f"jxkernel (pass the value and return the new one instead)")

    def fun(*rest):
        out = custom.fun(*full(rest))
        unwritten("fun")
        for leaf in tree_flatten(out)[0]:
            if is_ref(leaf):            # (JAX's words, for a Ref passed in too)
                raise ValueError(f"custom_vjp primal function {custom.fun!r} returned a mutable "
                                 f"array reference of type {ref_type(leaf)} that was not an "
                                 f"argument.")
        return out

    def fwd(*rest):
        out, res = custom.fwd(*full(rest))
        unwritten("fwd")
        for path, leaf in tree_flatten_with_path((out, res))[0]:
            if is_ref(leaf) and all(leaf is not a and leaf is not live_ref(a)
                                    for a in (*args, *fresh.values())):     # (JAX's words)
                raise ValueError(f"custom_vjp fwd function {custom.fwd!r} returned a mutable "
                                 f"array reference of type {ref_type(leaf)} at output tree "
                                 f"path {keystr(path)} that was not an argument.")
        leaves, kept["tree"] = tree_flatten(res)
        # (a Ref a jit's stand-in stood for kept as that stand-in: a later call's bwd, the
        # jvp cached, writes that call's Ref)
        stood = {id(live_ref(r)): r for r in refs.values()}
        stood.update((id(fresh[i]), refs[i]) for i in moved)
        kept["refs"] = {i: stood.get(id(leaf), leaf) for i, leaf in enumerate(leaves)
                        if is_ref(leaf)}
        return out, [None if is_ref(leaf) else leaf for leaf in leaves]

    def bwd(*given):
        *static, res, g = given          # (nondiff_argnums' values first, as bwd takes them)
        # (a jit's stand-in, its trace ended: the Ref its call passed, core/staging.py)
        res = tree_unflatten(kept["tree"], [live_ref(kept["refs"][i]) if i in kept["refs"]
                                            else leaf for i, leaf in enumerate(res)])
        cts = custom.bwd(*static, res, g)
        if not isinstance(cts, (tuple, list)):
            return cts
        by_arg = dict(zip(diff, cts))
        return (*(ct for i, ct in zip(diff, cts) if i not in refs),
                *(by_arg.get(i) for i in moved))
    fun.__name__ = fun.__qualname__ = getattr(custom.fun, "__name__", "f")
    derived = custom_vjp(fun, nondiff_argnums=tuple(rest_at.index(i) for i in nondiff))
    derived.defvjp(fwd, bwd, custom.symbolic_zeros)
    return derived, [*(a for i, a in enumerate(args) if i not in refs), *values]


custom_vjp_call_p = Primitive("custom_vjp_call", multiple_results=True)
custom_lin_p = Primitive("custom_lin", multiple_results=True)
always_transposed.add(custom_lin_p)      # its transpose is the user's bwd: always called


def _custom_vjp_call_jvp(primals, tangents, *, call_jaxpr, fwd, bwd, num_consts,
                         symbolic_zeros, name):
    if any(type(t) is not Zero for t in tangents[:num_consts]):
        raise _closure_error(name)
    args, arg_tangents = primals[num_consts:], tangents[num_consts:]
    with set_current_trace(_primal_trace(primals)):
        outs, residuals = fwd(list(args), [type(t) is not Zero for t in arg_tangents])
    out_avals = tuple(get_aval(o) for o in outs)     # weak kept, as JAX's to_tangent_aval
    if all(type(t) is Zero for t in arg_tangents):
        return outs, [Zero(a) for a in out_avals]
    # only the nonzero tangents are its operands, `in_zeros` flagging the others, as JAX's
    in_zeros = tuple(type(t) is Zero for t in arg_tangents)
    tangents_out = custom_lin_p.bind(*residuals, *[t for t in arg_tangents if type(t) is not Zero],
                                     num_res=len(residuals), bwd=bwd, out_avals=out_avals,
                                     symbolic_zeros=symbolic_zeros, in_zeros=in_zeros)
    # an integer output's tangent (float0 in JAX) is a symbolic zero, as JAX's
    # maybe_jvp_tracer makes it: a loop carrying that output carries no tangent for it
    return outs, [t if dtypes.has_tangent(a.dtype) else Zero(a)
                  for t, a in zip(tangents_out, out_avals)]


def _primal_trace(primals):
    """Where fwd runs: under grad, linearization's partial evaluation knows every primal, and
    fwd runs on the trace above it, where the primal computation runs (as under JAX's
    LinearizeTrace; a function fwd calls then sees the trace fwd does: Flax's Variables
    made there stay updatable)."""
    trace = _ctx.trace
    if isinstance(trace, PartialEvalTrace) and not any(trace.is_unknown(p) for p in primals):
        return trace.parent
    return trace


def _custom_lin_impl(*args, **params):
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


def _custom_lin_transpose(cts, *args, num_res, bwd, out_avals, symbolic_zeros, in_zeros):
    # A scalar residual reaches us as a jaxpr Literal, never handed to the user's bwd as our
    # IR object: one fwd returned as a Python scalar comes back as that scalar (JAX gives a
    # TypedFloat, a float subclass); a 0-d Array or NumPy scalar comes back as an Array of its
    # dtype and weak type, as JAX's bwd gets it (`jnp.cos(x)` of a Python float: weak f32).
    residuals = [_literal_residual(a) for a in args[:num_res]]
    if not cts:     # no differentiable output: JAX's linearize drops the equation, bwd never runs
        return [None] * num_res + [Zero(a.aval) for a in args[num_res:]]
    if not symbolic_zeros:
        cts = [_instantiate_ct(c) if type(c) is Zero else c for c in cts]
    try:
        cts_in = bwd(list(residuals), list(cts))
    except Exception as e:
        # as JAX's backward pass: the error's cause is the user's frames that called the
        # custom_vjp function (the equation being transposed), before grad rewrote it
        add_user_context(e, replaying.source_info)
        raise
    return [None] * num_res + [ct for ct, zero in zip(cts_in, in_zeros) if not zero]


def _instantiate_ct(zero):
    """A zero cotangent as bwd receives it: an integer or boolean output's is float0 zeros
    of its shape (a NumPy array: no data to put on a device), as JAX passes it, not zeros
    of the output's own dtype."""
    if not dtypes.has_tangent(zero.aval.dtype):
        return np.zeros(zero.aval.shape, dtypes.float0)
    return instantiate(zero)


def _custom_vjp_call_batching(axis_data, vals, dims, *, call_jaxpr, fwd, bwd, num_consts,
                              symbolic_zeros, name):
    params = dict(num_consts=num_consts, symbolic_zeros=symbolic_zeros, name=name)
    if _unbatched_call(axis_data, dims):     # nothing batched: the call stays as it is
        outs = custom_vjp_call_p.bind(*vals, call_jaxpr=call_jaxpr, fwd=fwd, bwd=bwd, **params)
        return outs, [bu.not_mapped] * len(outs)
    if any(d is not bu.not_mapped for d in dims):     # (bwd's cotangents then all batched)
        vals = [bu.bdim_at_front(v, d, axis_data.size, axis_data.explicit_mesh_axis)
                for v, d in zip(vals, dims)]
        dims = [0] * len(vals)
    vals, in_dims, batched, out_dims = _batched_call(axis_data, vals, dims, call_jaxpr)
    fwd_b = _BatchedFwd(fwd, axis_data, in_dims[num_consts:], out_dims)
    bwd_b = _BatchedBwd(bwd, axis_data, in_dims[num_consts:], out_dims, lambda: fwd_b.res_dims)
    outs = custom_vjp_call_p.bind(*vals, call_jaxpr=batched, fwd=fwd_b, bwd=bwd_b, **params)
    return outs, out_dims


class _BatchedFwd:
    """A fwd rule run under the vmap that batched its call: outputs moved to the batched
    body's `out_dims`, residuals left where the rule put them (`res_dims`, which bwd reads,
    as JAX's bwd_in_dims: an unbatched residual stays unbatched)."""
    res_dims = ()

    def __init__(self, fwd, axis_data, in_dims, out_dims):
        self.fwd, self.axis_data, self.in_dims, self.out_dims = fwd, axis_data, in_dims, out_dims
        self.__name__ = getattr(fwd, "__name__", "fwd")

    def __call__(self, primals, perturbed=None):
        n_out = []

        def rule(xs):
            outs, residuals = self.fwd(list(xs), perturbed)
            n_out.append(len(outs))
            return [*outs, *residuals]
        outs, dims = _batch_rule(rule, self.axis_data, primals, self.in_dims)
        self.res_dims = dims[n_out[0]:]
        outs = [_match_dim(self.axis_data, x, d, dst)
                for x, d, dst in zip(outs, dims, self.out_dims + self.res_dims)]
        return outs[:n_out[0]], outs[n_out[0]:]


class _BatchedBwd:
    """A bwd rule run under the vmap that batched its call: residuals batched at `res_dims()`
    (the batched fwd's), each output's cotangent at that output's dim `out_dims` (a symbolic
    zero unbatched, of its per-example type); each input's cotangent moved to that input's dim
    `in_dims` (summed over the batch for an unbatched input)."""

    def __init__(self, bwd, axis_data, in_dims, out_dims, res_dims):
        self.bwd, self.axis_data, self.in_dims, self.out_dims = bwd, axis_data, in_dims, out_dims
        self.res_dims = res_dims
        self.__name__ = getattr(bwd, "__name__", "bwd")

    def __call__(self, residuals, cotangents):
        n = len(residuals)
        outs, dims = _batch_rule(lambda xs: self.bwd(list(xs[:n]), list(xs[n:])), self.axis_data,
                                 [*residuals, *cotangents], [*self.res_dims(), *self.out_dims])
        return [_match_dim(self.axis_data, x, d, dst, sum_match=True)
                for x, d, dst in zip(outs, dims, self.in_dims)]


_register_call_rules(custom_vjp_call_p, _custom_vjp_call_jvp, _custom_vjp_call_batching)
# name first, then the others alphabetically, as JAX 0.10.2 prints them
# (num_consts only where there are some)
param_printers[custom_vjp_call_p] = lambda p: [
    ("name", p["name"]), ("bwd", p["bwd"].__name__), ("call_jaxpr", p["call_jaxpr"]),
    ("fwd", p["fwd"].__name__), *[("num_consts", p["num_consts"])] * bool(p["num_consts"]),
    ("symbolic_zeros", p["symbolic_zeros"])]
name_not_a_param.add(custom_vjp_call_p)


# dead-code elimination (JAX's, as call_rules.py says): fwd's results cut to the used, bwd
# given zeros for the others
class _UsedOutputsFwd:
    """A fwd rule giving only the used outputs (its residuals all)."""
    def __init__(self, fwd, used):
        self.fwd, self.used, self.__name__ = fwd, used, getattr(fwd, "__name__", "fwd")

    def __call__(self, primals, perturbed=None):
        outs, residuals = self.fwd(primals, perturbed)
        return _pick(outs, self.used), residuals


class _UsedOutputsBwd:
    """A bwd rule given cotangents of the used outputs only: zeros for the others."""
    def __init__(self, bwd, used, out_avals, symbolic_zeros):
        self.bwd, self.used, self.out_avals = bwd, used, out_avals
        self.symbolic_zeros, self.__name__ = symbolic_zeros, getattr(bwd, "__name__", "bwd")

    def __call__(self, residuals, cts):
        given = iter(cts)
        full = [next(given) if u else (Zero(a) if self.symbolic_zeros else instantiate(Zero(a)))
                for u, a in zip(self.used, self.out_avals)]
        return self.bwd(residuals, full)


def _custom_vjp_call_dce(used_outs, eqn):
    p = eqn.params
    params = dict(p, call_jaxpr=_used_call_jaxpr(eqn, used_outs),
                  fwd=_UsedOutputsFwd(p["fwd"], used_outs),
                  bwd=_UsedOutputsBwd(p["bwd"], used_outs, p["call_jaxpr"].out_avals,
                                      p["symbolic_zeros"]))
    return [True] * len(eqn.invars), eqn.replace(outvars=_pick(eqn.outvars, used_outs),
                                                 params=params)


dce_rules[custom_vjp_call_p] = _custom_vjp_call_dce

abstract_eval_rules[custom_lin_p] = lambda *avals, out_avals, **_: list(out_avals)
sharding_types.own_ur_rules.add(custom_lin_p)      # (out_avals carry a body's sets)
# ... and the tangents' shardings (Explicit axes): its results are typed as out_avals say
sharding_typing_rules[custom_lin_p] = lambda in_avals, params, out_avals: list(out_avals)
impl_rules[custom_lin_p] = _custom_lin_impl
transpose_rules[custom_lin_p] = _custom_lin_transpose
param_printers[custom_lin_p] = lambda p: [          # (alphabetically, out_avals left out, as JAX)
    ("bwd", p["bwd"].__name__), ("in_zeros", list(p["in_zeros"])), ("num_res", p["num_res"]),
    ("symbolic_zeros", p["symbolic_zeros"])]


def _custom_lin_lowering(ctx, *args, **params):
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


def _custom_lin_jvp(primals, tangents, **params):
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


def _custom_lin_batching(axis_data, vals, dims, *, num_res, bwd, out_avals, symbolic_zeros,
                         in_zeros):
    """vmap of a linearized custom_vjp: everything batched at 0, and bwd vmapped."""
    size = axis_data.size
    vals = [bu.bdim_at_front(v, d, size) for v, d in zip(vals, dims)]
    batched_avals = tuple(a.update(shape=(size,) + a.shape) for a in out_avals)
    outs = custom_lin_p.bind(*vals, num_res=num_res,
                             bwd=_BatchedBwd(bwd, axis_data, [0] * len(in_zeros),
                                             [0] * len(out_avals), lambda: [0] * num_res),
                             out_avals=batched_avals, symbolic_zeros=symbolic_zeros,
                             in_zeros=in_zeros)
    return outs, [0] * len(outs)


lowering_rules[custom_lin_p] = _custom_lin_lowering
# the NumPy backend runs a jitted jvp of a custom_vjp into JAX's TypeError, as XLA's lowering
numpy_rules[custom_lin_p] = _custom_lin_impl
jvp_rules[custom_lin_p] = _custom_lin_jvp
axis_batching_rules[custom_lin_p] = _custom_lin_batching
