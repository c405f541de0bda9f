"""custom_jvp: a function with its own JVP rule, and the `custom_jvp_call` primitive it binds.

    >>> f = custom_jvp(lambda x: x * 2.0)
    >>> _ = f.defjvp(lambda primals, tangents: (f(*primals), tangents[0] * 3.0))
    >>> float(jax.grad(f)(1.0))
    3.0

Under a JVP the rule runs at once on the primals (`_jvp_directly`); elsewhere the function is
traced and bound as one `custom_jvp_call` equation carrying the rule over flat lists
(`_FlatJVPRule`, which checks what the rule returns, in JAX's words). The equation's rules: its
jvp calls the rule, vmap batches the body and the rule, linearizing inlines the body, dead-code
elimination cuts both to the used outputs. `CustomJVPCallPrimitive` also binds with JAX's
`subfuns`, as libraries that interpret jaxprs rebind it.
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.avals import get_aval
from ...core.dce import dce_rules
from ...core.interpret import eval_jaxpr
from ...core.ir import name_not_a_param, param_printers
from ...core.name_stack import current_names, with_name_stack
from ...core.partial_eval import PartialEvalTrace
from ...core.primitive import Primitive, partial_eval_rules
from ...core.staging import convert_constvars_to_invars, trace_to_jaxpr
from ...core.trace import _ctx, set_current_trace
from ...tree_util import tree_flatten, tree_map, tree_unflatten
from .. import batch_util as bu
from ..ad_util import Zero, add_tangents, float0, instantiate
from ..linear_util import wrap_init
from .call_rules import (_batch_rule, _batched_call, _closure_error, _literal_as_array,
                         _match_dim, _pick, _register_call_rules, _type_text, _types_differ,
                         _types_tree, _unbatched_call, _used_call_jaxpr)
from .function import _CustomFunction, _merge


def _zero_tangent(aval):
    # (an extended dtype with tangents of its own, Flax's fp8_meta32, gets its rules' zero)
    return np.zeros(aval.shape, float0) if not dtypes.has_tangent(aval.dtype) else \
        instantiate(Zero(aval))       # weak as its primal, as in JAX


def _jvp_directly(custom, nondiff, in_tree, primals, tangents, n_args, name):
    rule = _FlatJVPRule(custom, nondiff, in_tree, None, n_args, name)
    outs, out_tangents = _custom_jvp_call_jvp(primals, tangents, call_jaxpr=None, jvp=rule,
                                              num_consts=0, symbolic_zeros=custom.symbolic_zeros,
                                              name=name)
    return outs, out_tangents, rule.out_tree


class custom_jvp(_CustomFunction):
    """A function with a custom JVP rule; see `defjvp` and `defjvps`."""
    _rule_attr = "jvp"
    _missing_rule = "No JVP defined for custom_jvp function {name} using defjvp."
    _under_jvp = staticmethod(_jvp_directly)

    def __init__(self, fun, nondiff_argnums=(), nondiff_argnames=()):
        super().__init__(fun, nondiff_argnums, nondiff_argnames)
        self.jvp = None

    def defjvp(self, jvp, symbolic_zeros=False):
        """Set the rule `jvp(primals, tangents) -> (primal_out, tangent_out)` (a decorator)."""
        self.jvp, self.symbolic_zeros = jvp, symbolic_zeros
        return jvp

    def defjvps(self, *jvps):
        """One rule per argument: `jvp_i(tangent_i, primal_out, *primals)`; None: zero."""
        def jvp(primals, tangents):
            out = self(*primals)
            total = None
            for fn, t in zip(jvps, tangents):
                if fn is None:
                    continue
                contribution = fn(t, out, *primals)
                total = contribution if total is None else _tree_add(total, contribution)
            return out, total if total is not None else _tree_zeros_like(out)
        self.defjvp(jvp)

    def _bind(self, jaxpr, consts, leaves, nondiff, in_tree, out_tree, n_args, name):
        rule = _FlatJVPRule(self, nondiff, in_tree, out_tree, n_args, name)
        rule.out_avals = jaxpr.out_avals
        return custom_jvp_call_p.bind(*consts, *leaves, call_jaxpr=jaxpr, jvp=rule,
                                      num_consts=len(consts), symbolic_zeros=self.symbolic_zeros,
                                      name=name)


def _tree_add(a, b):
    return tree_map(add_tangents, a, b)


def _tree_zeros_like(tree):
    return tree_map(lambda x: instantiate(Zero(get_aval(x))), tree)


class _FlatJVPRule:
    """The user's jvp rule over flat lists, checking what it returns."""
    out_avals = None        # the function's output types, where it was traced (for messages)

    def __init__(self, custom, nondiff, in_tree, out_tree, n_args, name):
        self.custom, self.nondiff, self.in_tree, self.out_tree = custom, nondiff, in_tree, out_tree
        self.n_args, self.__name__ = n_args, getattr(custom.jvp, "__name__", f"{name}_jvp")
        self.name = name

    def __call__(self, primals, tangents):
        c = self.custom
        primals = [_literal_as_array(p) for p in primals]
        args = _merge(self.nondiff, tree_unflatten(self.in_tree, primals), c.nondiff_argnums,
                      self.n_args)
        dyn_tangents = tree_unflatten(self.in_tree, tangents)
        try:
            out = c.jvp(tuple(args), tuple(dyn_tangents)) if not c.nondiff_argnums else \
                c.jvp(*self.nondiff, tuple(a for i, a in enumerate(args)
                                           if i not in c.nondiff_argnums), tuple(dyn_tangents))
        except TypeError as e:
            if _not_entered(e):          # the rule's own signature refused the call: its card
                e.custom_jvp = c         # (views/error_cards/custom_rules.py) reads these
            raise
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            error = TypeError(f"Custom JVP rule {self.__name__} for function {self.name} must "
                              f"produce a pair (list or tuple of length two) representing "
                              f"primal and tangent outputs, but got {out}.")
            # (how many it gave, None for a bare value: no tracer kept on the error)
            error.custom_jvp = c
            error.jvp_returned = len(out) if isinstance(out, (tuple, list)) else None
            raise error
        p_leaves, p_tree = tree_flatten(out[0])
        t_leaves, t_tree = tree_flatten(out[1])
        if p_tree != t_tree:
            raise TypeError(f"Custom JVP rule {self.__name__} for function {self.name} must "
                            f"produce primal and tangent outputs with equal container (pytree) "
                            f"structures, but got {p_tree} and {t_tree} respectively.")
        if self.out_tree is None:        # called directly: the function was not traced
            self.out_tree = p_tree
        elif p_tree != self.out_tree:
            raise TypeError(
                f"Custom JVP rule {self.__name__} for function {self.name} must produce a pair "
                f"(list or tuple of length two) where the first element represents the primal "
                f"output (equal in value to the output of the custom_jvp-decorated function "
                f"{self.name}, and in particular of the same container/pytree structure), but "
                f"instead the JVP rule output's first element had container/pytree structure:\n"
                f"    {_types_tree(p_tree, p_leaves)}\nwhile the custom_jvp-decorated function "
                f"{self.name} had output container/pytree structure:\n"
                f"    {_types_tree(self.out_tree, self.out_avals)}.")
        if _types_differ(p_leaves, self.out_avals):
            raise TypeError(
                f"Custom JVP rule {self.__name__} for function {self.name} must produce a pair "
                f"(list or tuple of length two) where the first element represents the primal "
                f"output (equal in value to the output of the custom_jvp-decorated function "
                f"{self.name}, and in particular with leaves of the same shape/dtype), but "
                f"instead the JVP rule output's first element had shapes/dtypes of:\n"
                f"    {_types_tree(p_tree, p_leaves)}\nwhile the custom_jvp-decorated function "
                f"{self.name} had output shapes/dtypes of:\n"
                f"    {_types_tree(self.out_tree, self.out_avals)}")
        _check_tangent_shapes(p_leaves, t_leaves)
        return p_leaves, t_leaves


def _not_entered(error) -> bool:
    """Whether `error` was raised by the call of the user's rule itself (its signature), not
    inside it: the traceback ends in the frame that called it."""
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code is _FlatJVPRule.__call__.__code__


def _check_tangent_shapes(primals, tangents):
    """JAX's TypeError where a jvp rule's tangent output has not its primal output's shape."""
    bad = [(get_aval(p), t) for p, t in zip(primals, tangents)
           if get_aval(p).shape != tuple(np.shape(t))]    # (a float0 tangent has no aval)
    if not bad:
        return
    text = lambda a, t: _type_text(a, np.shape(t))     # noqa: E731
    if len(primals) == 1:
        (a, t), = bad
        raise TypeError(f"Custom JVP rule must produce primal and tangent outputs with "
                        f"corresponding shapes and dtypes. Expected {_type_text(a)} (tangent type "
                        f"of {_type_text(a)}) but got {text(a, t)}.")
    raise TypeError("Custom JVP rule must produce primal and tangent outputs with corresponding "
                    "shapes and dtypes, but got:\n" + "\n".join(
                        f"  primal {_type_text(a)} with tangent {text(a, t)}, expecting tangent "
                        f"{_type_text(a)}" for a, t in bad))


class CustomJVPCallPrimitive(Primitive):
    """custom_jvp_call, bound with jxkernel's params (`call_jaxpr`, the flat `jvp` rule,
    `num_consts`, `symbolic_zeros`, `name`) or, as JAX's is, with `subfuns=(fun, jvp)`: what
    `get_bind_params` gives an interpreter of jaxprs to bind it again (Equinox's finaliser
    calls `fun.call_wrapped` on the equation's inputs instead)."""
    __slots__ = ()

    def get_bind_params(self, params) -> dict:
        """JAX's bind params: `subfuns` = (the body over consts and inputs, the rule over
        consts, inputs and their tangents, giving outputs then tangents), `symbolic_zeros`.

        >>> f = custom_jvp(lambda x: x * 2.0)
        >>> _ = f.defjvp(lambda p, t: (f(*p), t[0] * 3.0))
        >>> eqn, = jax.make_jaxpr(f)(1.0).jaxpr.eqns
        >>> fun, jvp = eqn.primitive.get_bind_params(eqn.params)["subfuns"]
        >>> [float(v) for v in fun.call_wrapped(5.0) + jvp.call_wrapped(5.0, 1.0)]
        [10.0, 10.0, 3.0]
        """
        p = dict(params)
        call_jaxpr, jvp, num_consts = p.pop("call_jaxpr"), p.pop("jvp"), p.pop("num_consts")
        name = p.pop("name")
        p["subfuns"] = (wrap_init(_JaxprFun(call_jaxpr, name)),
                        wrap_init(_LiftedJVP(jvp, num_consts)))
        return p

    def bind(self, *args, subfuns=None, **params):
        if subfuns is not None:
            args, params = _params_of_subfuns(subfuns, args, params)
        return super().bind(*args, **params)


class _JaxprFun:
    """A custom_jvp_call's body as a function (JAX's `core.jaxpr_as_fun`), its jaxpr kept so
    that binding it again rebinds the very equation."""

    def __init__(self, call_jaxpr, name):
        self.call_jaxpr, self.__name__ = call_jaxpr, name

    def __call__(self, *args):
        return eval_jaxpr(self.call_jaxpr.jaxpr, self.call_jaxpr.consts, *args)


class _LiftedJVP:
    """A flat jvp rule as JAX's `lift_jvp` gives it: over (consts, primals, the consts'
    tangents, the tangents), returning the outputs then their tangents."""

    def __init__(self, rule, num_consts):
        self.rule, self.num_consts = rule, num_consts
        self.__name__ = getattr(rule, "__name__", "jvp")

    def __call__(self, *xs):
        n = len(xs) // 2
        outs, tangents = self.rule(list(xs[self.num_consts:n]), list(xs[n + self.num_consts:]))
        return [*outs, *tangents]


class _FlatWrappedJVP:
    """Another's JAX-style jvp WrappedFun (over primals then tangents, giving outputs then
    tangents) as jxkernel's flat rule."""

    def __init__(self, jvp):
        self.jvp, self.__name__ = jvp, getattr(jvp, "__name__", "jvp")

    def __call__(self, primals, tangents):
        out = self.jvp.call_wrapped(*primals, *[instantiate(t) if type(t) is Zero else t
                                                for t in tangents])
        return list(out[:len(out) // 2]), list(out[len(out) // 2:])


def _params_of_subfuns(subfuns, args, params):
    """(args, jxkernel's params) of a bind with JAX's `subfuns`: the equation they came from,
    or, for other WrappedFuns, the body traced at the arguments' types."""
    fun, jvp = subfuns
    body, rule = getattr(fun, "f", None), getattr(jvp, "f", None)
    if type(body) is _JaxprFun and type(rule) is _LiftedJVP and not (fun.transforms or
                                                                     jvp.transforms):
        return args, dict(params, call_jaxpr=body.call_jaxpr, jvp=rule.rule,
                          num_consts=rule.num_consts, name=body.__name__)
    closed = trace_to_jaxpr(lambda *xs: list(fun.call_wrapped(*xs)), [get_aval(a) for a in args])
    jaxpr, consts = convert_constvars_to_invars(closed)
    name = getattr(fun, "__name__", None) or getattr(body, "__name__", "custom_jvp_call")
    return (*consts, *args), dict(params, call_jaxpr=jaxpr, jvp=_FlatWrappedJVP(jvp),
                                  num_consts=len(consts), name=name)


custom_jvp_call_p = CustomJVPCallPrimitive("custom_jvp_call", multiple_results=True)


def _custom_jvp_call_jvp(primals, tangents, *, call_jaxpr, jvp, num_consts, symbolic_zeros,
                         name):
    if any(type(t) is not Zero for t in tangents[:num_consts]):
        raise _closure_error(name)
    args, arg_tangents = primals[num_consts:], tangents[num_consts:]
    if not symbolic_zeros:
        arg_tangents = [_zero_tangent(t.aval) if type(t) is Zero else t for t in arg_tangents]
    trace = _ctx.trace
    if type(trace) is not PartialEvalTrace:
        return _float0_as_zero(*jvp(list(args), list(arg_tangents)))
    # Linearizing (grad, vjp): JAX stages the rule's tangent equations with their whole name
    # stack inside a trace that keeps its own, so they are named under the transformations
    # twice (`transpose(jvp(jvp()))/mul` once transposed); the primal ones once, as here
    start, names = len(trace.eqns), current_names()[trace.name_base:]
    outs = jvp(list(args), list(arg_tangents))
    for eqn in trace.eqns[start:]:
        info = eqn.source_info
        if info is not None:
            eqn.source_info = with_name_stack(info, names + info.name_stack)
    return _float0_as_zero(*outs)


def _float0_as_zero(outs, tangents) -> tuple:
    """A rule's float0 tangent (`zero_from_primal` of an integer) is a symbolic zero, as JAX's
    maybe_jvp_tracer makes it: a loop carrying it then carries no tangent for it."""
    return outs, [Zero(get_aval(p)) if type(t) is not Zero and
                  getattr(t, "dtype", None) == float0 else t for p, t in zip(outs, tangents)]


def _custom_jvp_call_batching(axis_data, vals, dims, *, call_jaxpr, jvp, num_consts,
                              symbolic_zeros, name):
    params = dict(num_consts=num_consts, symbolic_zeros=symbolic_zeros, name=name)
    if _unbatched_call(axis_data, dims):     # nothing batched: the call stays as it is
        outs = custom_jvp_call_p.bind(*vals, call_jaxpr=call_jaxpr, jvp=jvp, **params)
        return outs, [bu.not_mapped] * len(outs)
    # unbatched inputs stay unbatched, as in JAX: a predicate made unbatched inside (Equinox's
    # error_if reduces it over the batch) keeps its cond a cond, not a select of both branches
    vals, in_dims, batched, out_dims = _batched_call(axis_data, vals, dims, call_jaxpr)
    rule = _BatchedJVPRule(jvp, axis_data, in_dims[num_consts:], out_dims)
    outs = custom_jvp_call_p.bind(*vals, call_jaxpr=batched, jvp=rule, **params)
    return outs, out_dims


class _BatchedJVPRule:
    """A jvp rule run under the vmap that batched its call: primals batched at `in_dims`,
    each tangent as its primal (a symbolic zero unbatched); outputs and their tangents
    moved to the batched body's `out_dims`."""

    def __init__(self, jvp, axis_data, in_dims, out_dims):
        self.jvp, self.axis_data, self.in_dims, self.out_dims = jvp, axis_data, in_dims, out_dims
        self.__name__ = getattr(jvp, "__name__", "jvp")

    def __call__(self, primals, tangents):
        n = len(primals)

        def rule(xs):
            outs, out_tangents = self.jvp(list(xs[:n]), list(xs[n:]))
            return [*outs, *out_tangents]
        outs, dims = _batch_rule(rule, self.axis_data, [*primals, *tangents], self.in_dims * 2)
        outs = [_match_dim(self.axis_data, x, d, dst)
                for x, d, dst in zip(outs, dims, self.out_dims * 2)]
        return outs[:len(outs) // 2], outs[len(outs) // 2:]


_register_call_rules(custom_jvp_call_p, _custom_jvp_call_jvp, _custom_jvp_call_batching)


def _custom_jvp_call_partial_eval(trace, args, params):
    """Linearizing reaches a custom_jvp call only when its inputs are tangents (it was used
    inside another primitive's jvp rule): then it is just its body, inlined so that its
    equations can be transposed, as JAX does."""
    jaxpr = params["call_jaxpr"]
    with set_current_trace(trace):
        return eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args)


partial_eval_rules[custom_jvp_call_p] = _custom_jvp_call_partial_eval
param_printers[custom_jvp_call_p] = lambda p: [
    ("name", p["name"]), ("call_jaxpr", p["call_jaxpr"]), ("jvp", p["jvp"].__name__),
    *[("num_consts", p["num_consts"])] * bool(p["num_consts"]),
    ("symbolic_zeros", p["symbolic_zeros"])]
name_not_a_param.add(custom_jvp_call_p)


# dead-code elimination (JAX's, as call_rules.py says): the rule's results cut to the used
class _UsedOutputsJVP:
    """A jvp rule giving only the used outputs' primals and tangents."""
    def __init__(self, jvp, used):
        self.jvp, self.used, self.__name__ = jvp, used, getattr(jvp, "__name__", "jvp")

    def __call__(self, primals, tangents):
        outs, tangents_out = self.jvp(primals, tangents)
        return _pick(outs, self.used), _pick(tangents_out, self.used)


def _custom_jvp_call_dce(used_outs, eqn):
    params = dict(eqn.params, call_jaxpr=_used_call_jaxpr(eqn, used_outs),
                  jvp=_UsedOutputsJVP(eqn.params["jvp"], used_outs))
    return [True] * len(eqn.invars), eqn.replace(outvars=_pick(eqn.outvars, used_outs),
                                                 params=params)


dce_rules[custom_jvp_call_p] = _custom_jvp_call_dce
