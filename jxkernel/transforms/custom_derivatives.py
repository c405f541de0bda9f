"""custom_jvp and custom_vjp: functions that bring their own derivative rule.

    >>> @custom_jvp
    ... def log1pexp(x):
    ...     return jnp.log(1. + jnp.exp(x))
    >>> @log1pexp.defjvp
    ... def log1pexp_jvp(primals, tangents):
    ...     x, = primals; t, = tangents
    ...     return log1pexp(x), t * jax.nn.sigmoid(x)

Outside any transformation they just run. Under a JVP (jvp, grad, vjp) the rule
is called at once on the primals, as in JAX, so outside jit it sees concrete values
and Python control flow on them works. Under the other transformations the function
is traced to a jaxpr and bound as one `custom_jvp_call` / `custom_vjp_call` equation
that carries the rule; a JVP of that equation calls the rule, everything else uses
the jaxpr.
A custom_vjp under differentiation becomes its `fwd` plus a `custom_lin`
equation, linear in the tangents, whose transpose is the user's `bwd`.
"""
from __future__ import annotations

import dataclasses
import functools
import inspect

import numpy as np

from ..core import dtypes, sharding_types
from ..core.config import config
from ..core.avals import ShapedArray, dim_inserted, dim_removed, get_aval
from ..core.dce import dce_jaxpr_outputs, dce_rules
from ..core.interpret import eval_jaxpr
from ..core.interpreter_primitives import convert_element_type, reduce_sum
from ..core.ir import ClosedJaxpr, Literal, param_printers
from ..core.literals import TypedNdArray, typed_scalar
from ..core.numpy_eval import call_rule
from ..core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules, impl_rules,
                              jvp_rules, lowering_rules, numpy_rules, partial_eval_rules,
                              sharding_typing_rules, transpose_rules)
from ..core.source_info import current_names, with_name_stack
from ..core.errors import UnexpectedTracerError
from ..core.trace import Tracer, _ctx, _jax_name, eval_trace, set_current_trace
from . import batch_util as bu
from .ad_util import Zero, add_tangents, float0, instantiate, zeros
from ..tree_util import (keystr, tree_flatten, tree_flatten_with_path, tree_map,
                         tree_structure, tree_unflatten, treedef_tuple)
from .ad import JVPTrace, always_transposed
from .api_util import flatten_fun, update_wrapper
from .jit_refs import is_ref
from .batching import batch_jaxpr, batch_subtrace, vmap
from .custom_vjp_remat import optimize_remat_of_custom_vjp_fwd
from .linear_util import wrap_init
from ..core.partial_eval import PartialEvalTrace
from ..core.staging import convert_constvars_to_invars, trace_to_jaxpr


def _resolve_args(fun, args, kwargs, kind="custom_jvp"):
    """All arguments as positions, defaults filled in (custom rules see positional primals,
    and nondiff_argnums may name a parameter the caller left to its default), as JAX does;
    arguments that do not bind raise JAX's TypeError naming the `kind`-decorated function."""
    try:
        return _bind_positions(fun, args, kwargs)
    except TypeError as e:
        raise TypeError(f"The input arguments to the {kind}-decorated function "
                        f"{getattr(fun, '__name__', fun)} could not be resolved to "
                        f"positional-only arguments. Binding failed with the error:\n{e}") from e


def _bind_positions(fun, args, kwargs):
    if isinstance(fun, functools.partial):     # a partial's signature is opaque, as in JAX
        return args if not kwargs else _keywords_unresolved(kwargs)
    bound = inspect.signature(fun).bind(*args, **kwargs)
    bound.apply_defaults()
    if any(k in kwargs for k in bound.kwargs):
        _keywords_unresolved([k for k in bound.kwargs if k in kwargs])
    return bound.args


def _keywords_unresolved(names):
    raise TypeError(f"The following keyword arguments could not be resolved to positions: "
                    f"{', '.join(names)}")


def _split(args, nondiff_argnums):
    return ([a for i, a in enumerate(args) if i in nondiff_argnums],
            [a for i, a in enumerate(args) if i not in nondiff_argnums])


def _merge(nondiff, dyn, nondiff_argnums, n):
    nd, dy = iter(nondiff), iter(dyn)
    return [next(nd) if i in nondiff_argnums else next(dy) for i in range(n)]


def _trace_call(fun, nondiff, dyn, nondiff_argnums, n_args):
    """(jaxpr taking consts then flat inputs, consts, in_tree, out_tree, flat inputs)."""
    leaves, in_tree = tree_flatten(tuple(dyn))
    flat, out_tree = flatten_fun(
        lambda *dyn: fun(*_merge(nondiff, dyn, nondiff_argnums, n_args)), in_tree)
    closed = trace_to_jaxpr(flat, [get_aval(x) for x in leaves])
    jaxpr, consts = convert_constvars_to_invars(closed)
    return jaxpr, consts, in_tree, out_tree(), leaves


def _closure_error(name):
    return ValueError(
        f"Detected differentiation of a custom_jvp/custom_vjp function ({name}) with respect to "
        f"a closed-over value. That isn't supported because the custom rule only specifies how "
        f"to differentiate the function with respect to its explicit inputs. Pass the value as "
        f"an argument instead.")


def _zero_tangent(aval):
    # (an extended dtype with tangents of its own, Flax's fp8_meta32, gets its rules' zero)
    return np.zeros(aval.shape, float0) if not dtypes.has_tangent(aval.dtype) else \
        instantiate(Zero(aval))       # weak as its primal, as in JAX


# ====================================================================== called directly
def _runs_directly(trace, args) -> bool:
    """Whether a custom function called under `trace` skips tracing its body, as in JAX: under
    a JVP the rule is called at once on the primals (concrete ones outside jit, so Python
    control flow on values works in the rule and in the function it calls), and where
    partial evaluation knows every input the call runs on the enclosing trace."""
    if type(trace) is JVPTrace:
        return True
    if isinstance(trace, PartialEvalTrace):
        return not any(trace.is_unknown(x) for x in tree_flatten(args)[0])
    return False


def _call_directly(custom, trace, args, name, under_jvp):
    if type(trace) is not JVPTrace:            # partial evaluation, every input known
        with set_current_trace(trace.parent):
            return custom(*args)
    nondiff, dyn = _split(args, custom.nondiff_argnums)
    leaves, in_tree = tree_flatten(tuple(dyn))
    primals, tangents = zip(*map(trace.unpack, leaves)) if leaves else ((), ())
    with set_current_trace(trace.parent):
        if all(type(t) is Zero for t in tangents):
            return custom(*_merge(nondiff, tree_unflatten(in_tree, primals),
                                  custom.nondiff_argnums, len(args)))
        outs, out_tangents, out_tree = under_jvp(custom, nondiff, in_tree, list(primals),
                                                 list(tangents), len(args), name)
    return tree_unflatten(out_tree, [trace.wrap(p, t) for p, t in zip(outs, out_tangents)])


def _jvp_directly(custom, nondiff, in_tree, primals, tangents, n_args, name):
    rule = _FlatJVPRule(custom, nondiff, in_tree, None, n_args, name)
    outs, out_tangents = _custom_jvp_call_jvp(primals, tangents, call_jaxpr=None, jvp=rule,
                                              num_consts=0, symbolic_zeros=custom.symbolic_zeros,
                                              name=name)
    return outs, out_tangents, rule.out_tree


def _vjp_directly(custom, nondiff, in_tree, primals, tangents, n_args, name):
    rule = _FlatVJPRule(custom, nondiff, in_tree, None, n_args, name,
                        [get_aval(x) for x in primals])
    outs, out_tangents = _custom_vjp_call_jvp(primals, tangents, call_jaxpr=None, fwd=rule,
                                              bwd=rule.bwd, num_consts=0,
                                              symbolic_zeros=custom.symbolic_zeros, name=name)
    return outs, out_tangents, rule.out_tree


def _nondiff_positions(fun, argnums, argnames) -> tuple:
    """The sorted positions of the non-differentiable arguments, named by position or by
    parameter name (JAX's nondiff_argnames: a name is its parameter's position)."""
    positions = set(argnums)
    if argnames:
        params = list(inspect.signature(fun).parameters)
        positions.update(params.index(n) for n in argnames if n in params)
    return tuple(sorted(positions))


class _CustomFunction:
    """What custom_jvp and custom_vjp share: wrapping `fun`, binding as a method, and the
    call (run directly where the rule applies at once, else trace `fun` and bind the
    subclass's primitive). Subclasses name their rule's attribute and how to bind it."""
    _rule_attr = _missing_rule = None

    def __init__(self, fun, nondiff_argnums=(), nondiff_argnames=()):
        update_wrapper(self, fun)
        self.fun, self.nondiff_argnums = fun, _nondiff_positions(fun, nondiff_argnums,
                                                                 nondiff_argnames)
        self.symbolic_zeros = False

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def __getattr__(self, name):
        # as JAX's custom_api_util.forward_attr: a rule-defining method of the wrapped function
        # (`def_vmap` of a custom_vmap under a custom_vjp) is reached through the wrapper
        if name.startswith("def") and "fun" in self.__dict__:
            return getattr(self.fun, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __call__(self, *args, **kwargs):
        name = getattr(self.fun, "__name__", "f")
        if getattr(self, self._rule_attr) is None:
            raise AttributeError(self._missing_rule.format(name=name))
        args = _resolve_args(self.fun, args, kwargs, type(self).__name__)
        trace = _ctx.trace
        if trace is eval_trace or (getattr(trace, "evaluates_concrete", False) and not any(
                isinstance(x, Tracer) for x in tree_flatten(args)[0])):
            return self.fun(*args)      # (concrete under ensure_compile_time_eval, as JAX's)
        if _runs_directly(trace, args):
            return _call_directly(self, trace, args, name, self._under_jvp)
        nondiff, dyn = _split(args, self.nondiff_argnums)
        jaxpr, consts, in_tree, out_tree, leaves = _trace_call(
            self.fun, nondiff, dyn, self.nondiff_argnums, len(args))
        outs = self._bind(jaxpr, consts, leaves, nondiff, in_tree, out_tree, len(args), name)
        return tree_unflatten(out_tree, outs)


# ====================================================================== custom_jvp
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
        out = c.jvp(tuple(args), tuple(dyn_tangents)) if not c.nondiff_argnums else \
            c.jvp(*self.nondiff, tuple(a for i, a in enumerate(args) if i not in c.nondiff_argnums),
                  tuple(dyn_tangents))
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError(f"Custom JVP rule {self.__name__} for function {self.name} must "
                            f"produce a pair (list or tuple of length two) representing primal "
                            f"and tangent outputs, but got {out}.")
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


def _types_differ(leaves, avals) -> bool:
    """Whether a rule's outputs differ in shape or dtype from the function's (JAX's
    core.typematch: weak types aside); never where the function was not traced."""
    return avals is not None and any(
        get_aval(x).shape != a.shape or get_aval(x).dtype != a.dtype
        for x, a in zip(leaves, avals))


def _types_tree(tree, leaves) -> str:
    """A pytree of values as JAX's messages print it: each leaf its short type, unquoted
    (`(float32[], float32[])`); None where the values are not known."""
    if leaves is None:
        return str(tree)
    texts = [_type_text(x if isinstance(x, ShapedArray) else get_aval(x)) for x in leaves]
    return str(tree_unflatten(tree, texts)).replace("'", "")


def _type_text(aval, shape=None) -> str:
    """A type as JAX's custom rules' messages print it: `float32[3]` (the dtype's full name)."""
    return f"{np.dtype(aval.dtype).name}[{','.join(map(str, aval.shape if shape is None else shape))}]"


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


def _unbatched_call(axis_data, dims) -> bool:
    """Whether a custom call under vmap stays as it is: nothing batched, and no axis name a
    collective in it could name (under a named axis its body and rules are batched, as JAX
    always batches them, so that `psum(x, 'i')` of an unbatched `x` sums over the axis)."""
    return all(d is bu.not_mapped for d in dims) and axis_data.name is None


def _batched_call(axis_data, vals, dims, call_jaxpr) -> tuple:
    """(inputs batched at 0 or not, their dims, the batched body, its out dims) of a custom
    call: every output batched at 0 where any input is, else as the body makes it."""
    size, ema = axis_data.size, axis_data.explicit_mesh_axis
    vals = [v if d is bu.not_mapped else bu.bdim_at_front(v, d, size, ema)
            for v, d in zip(vals, dims)]
    in_dims = [bu.not_mapped if d is bu.not_mapped else 0 for d in dims]
    force = [True] * len(call_jaxpr.out_avals) if any(d == 0 for d in in_dims) else None
    batched, out_dims = batch_jaxpr(call_jaxpr, axis_data, in_dims, force_out_batched=force)
    return vals, in_dims, batched, list(out_dims)


def _batch_rule(rule, axis_data, vals, dims) -> tuple:
    """(outputs, dims) of a custom rule over flat `vals` batched at `dims`, as JAX's
    batch_custom_jvp_subtrace: a symbolic zero goes in unbatched, of its per-example type."""
    vals = [Zero(dim_removed(v.aval, d)) if type(v) is Zero and d is not bu.not_mapped else v
            for v, d in zip(vals, dims)]
    dims = [bu.not_mapped if type(v) is Zero else d for v, d in zip(vals, dims)]
    return batch_subtrace(lambda *xs: rule(xs), axis_data, vals, dims)


def _match_dim(axis_data, x, src, dst, sum_match=False):
    """`x`, batched at `src`, moved to `dst` (JAX's _matchaxis_symzeros): a symbolic zero
    gets its type there; with `sum_match`, a batched cotangent of an unbatched input is
    summed over the batch."""
    size, ema = axis_data.size, axis_data.explicit_mesh_axis
    if src == dst:
        return x
    if dst is bu.not_mapped:
        if not sum_match:
            raise ValueError(f"a custom rule under vmap gave an output batched along axis "
                             f"{axis_data.name!r} where the function's output is not batched")
        return Zero(dim_removed(x.aval, src)) if type(x) is Zero else \
            reduce_sum(x, axes=(src,))
    if type(x) is Zero:
        aval = x.aval if src is bu.not_mapped else dim_removed(x.aval, src)
        return Zero(dim_inserted(aval, dst, size, ema))
    return bu.move_to(x, src, dst, size, ema)


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


def _register_call_rules(prim, jvp_rule, batching_rule):
    """The rules custom_jvp_call and custom_vjp_call share: outside differentiation and
    batching each is just its traced body, `call_jaxpr`."""
    abstract_eval_rules[prim] = lambda *avals, call_jaxpr, **_: call_jaxpr.out_avals
    impl_rules[prim] = lambda *args, call_jaxpr, **_: eval_jaxpr(
        call_jaxpr.jaxpr, call_jaxpr.consts, *args)
    # inlined, as JAX's lowering does (its ops named `jit(f)/sin`, not under a call)
    lowering_rules[prim] = lambda ctx, *args, call_jaxpr, **_: \
        ctx.lower_jaxpr(call_jaxpr, list(args))
    numpy_rules[prim] = call_rule("call_jaxpr")
    jvp_rules[prim] = jvp_rule
    axis_batching_rules[prim] = batching_rule
    sharding_typing_rules[prim] = sharding_types.call_typing


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
    ("symbolic_zeros", p["symbolic_zeros"])]


# ====================================================================== custom_vjp
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
        if not self.nondiff_argnums and self.fwd is not None and any(map(is_ref, args)):
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
        raise _tracer_error("custom_vjp inputs marked with nondiff_argnums must be static, not "
                            "Tracers")
    raise _tracer_error(
        "Found a JAX Tracer object passed as an argument to a custom_vjp function in a "
        "position indicated by nondiff_argnums as non-differentiable. Tracers cannot be passed "
        "as non-differentiable arguments to custom_vjp functions; instead, nondiff_argnums "
        "should only be used for arguments that can't be or contain JAX tracers, e.g. "
        "function-valued arguments. In particular, array-valued arguments should typically not "
        "be indicated as nondiff_argnums.")


def _tracer_error(message) -> UnexpectedTracerError:
    """JAX's UnexpectedTracerError, its message ending with the link to its documentation."""
    return UnexpectedTracerError(f"{message}\nSee https://docs.jax.dev/en/latest/errors.html"
                                 f"#jax.errors.UnexpectedTracerError")


def _check_no_closed_over_tracers(custom, args) -> None:
    """Under jax_custom_vjp3, JAX's UnexpectedTracerError where the function closes over a
    tracer (its custom_vjp3 traces the function and refuses tracers among the constants)."""
    nondiff, dyn = _split(args, custom.nondiff_argnums)
    _, consts, *_ = _trace_call(custom.fun, nondiff, dyn, custom.nondiff_argnums, len(args))
    tracer = next((c for c in consts if isinstance(c, Tracer)), None)
    if tracer is not None:
        raise _tracer_error(
            f"custom_vjp-decorated function {custom.fun} closed over a "
            f"{_jax_name(type(tracer))} of type {_type_text(tracer.aval)}, but custom_vjp "
            f"functions can't close over Tracers. Rewrite {custom.fun} to take it as an "
            f"explicit input.")


def _closing_over_refs(custom, args) -> tuple:
    """(a custom_vjp closing over `args`' Refs, the other arguments): the Refs reach fun, fwd
    and bwd as they are, not as values to differentiate; bwd's cotangent for each (None) is
    dropped, and a Ref among fwd's residuals is kept beside them. JAX's array_refs guide
    stashes gradients so: `bwd(grads_ref, g)` writes `grads_ref[...] = g`."""
    refs = {i: a for i, a in enumerate(args) if is_ref(a)}
    kept = {}                          # fwd's residual Refs, by leaf index, and the tree

    def full(rest):
        rest = iter(rest)
        return [refs[i] if i in refs else next(rest) for i in range(len(args))]

    def fun(*rest):
        return custom.fun(*full(rest))

    def fwd(*rest):
        out, res = custom.fwd(*full(rest))
        leaves, kept["tree"] = tree_flatten(res)
        kept["refs"] = {i: leaf for i, leaf in enumerate(leaves) if is_ref(leaf)}
        return out, [None if is_ref(leaf) else leaf for leaf in leaves]

    def bwd(res, g):
        res = tree_unflatten(kept["tree"], [kept["refs"].get(i, leaf) for i, leaf in
                                            enumerate(res)])
        cts = custom.bwd(res, g)
        return tuple(ct for i, ct in enumerate(cts) if i not in refs) \
            if isinstance(cts, (tuple, list)) else cts
    fun.__name__ = fun.__qualname__ = getattr(custom.fun, "__name__", "f")
    derived = custom_vjp(fun)
    derived.defvjp(fwd, bwd, custom.symbolic_zeros)
    return derived, [a for i, a in enumerate(args) if i not in refs]


@dataclasses.dataclass
class CustomVJPPrimal:
    """What a custom_vjp's fwd gets for each primal leaf when `symbolic_zeros=True`: the
    value, and whether it is perturbed (has a nonzero tangent).

    >>> f = custom_vjp(lambda x, y: x * y)
    >>> f.defvjp(lambda x, y: (print(x.perturbed, y.perturbed) or x.value * y.value,
    ...                        (x.value, y.value)),
    ...          lambda res, g: (res[1] * g, res[0] * g), symbolic_zeros=True)
    >>> float(jax.grad(f)(2.0, 3.0))
    True False
    3.0
    """
    value: object
    perturbed: bool


def _literal_as_array(x):
    """A jaxpr's literal argument as custom rules see one in JAX: an array of its type (a
    weak type kept), with `shape` and `dtype` (Equinox's loops read them)."""
    if type(x) is not Literal:
        return x
    return convert_element_type(np.asarray(x.val, x.aval.dtype), x.aval.dtype, x.aval.weak_type)


class _FlatVJPRule:
    """fwd and bwd over flat lists; bwd checks the cotangents it gets back."""
    out_avals = None        # the function's output types, where it was traced (for messages)

    def __init__(self, custom, nondiff, in_tree, out_tree, n_args, name, in_avals):
        self.custom, self.nondiff, self.in_tree, self.out_tree = custom, nondiff, in_tree, out_tree
        self.n_args, self.name, self.in_avals = n_args, name, in_avals
        self.res_tree = None
        # the user's fwd's name, as JAX prints it (`fwd=<lambda>` for a lambda)
        self.__name__ = getattr(custom.fwd, "__name__", f"{name}_fwd")
        self.bwd = _FlatBwd(self)

    def __call__(self, primals, perturbed=None):
        """fwd on the flat `primals`; with symbolic_zeros each leaf reaches fwd as a
        CustomVJPPrimal, `perturbed` saying whether its tangent is nonzero (default: all)."""
        c = self.custom
        primals = [_literal_as_array(p) for p in primals]
        if c.symbolic_zeros:
            flags = [True] * len(primals) if perturbed is None else perturbed
            primals = [CustomVJPPrimal(p, bool(f)) for p, f in zip(primals, flags)]
        args = _merge(self.nondiff, tree_unflatten(self.in_tree, primals), c.nondiff_argnums,
                      self.n_args)
        out = c.fwd(*args)
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError(f"Custom VJP fwd rule {self.__name__} for function {self.name} must "
                            f"produce a pair (list or tuple of length two) where the first "
                            f"element represents the primal output (equal to those of the "
                            f"custom_vjp-decorated function {self.name}) and the second element "
                            f"represents residuals (i.e. values stored from the forward pass for "
                            f"use on the backward pass), but instead of a pair the fwd rule "
                            f"{self.__name__} produced {out}.")
        out_leaves, out_tree = tree_flatten(out[0])
        if self.out_tree is None:        # called directly: the function was not traced
            self.out_tree = out_tree
        elif out_tree != self.out_tree:
            raise TypeError(
                f"Custom VJP fwd rule {self.__name__} for function {self.name} must produce a "
                f"pair (list or tuple of length two) where the first element represents the "
                f"primal output (equal to the output of the custom_vjp-decorated function "
                f"{self.name}) and the second element represents residuals (i.e. values stored "
                f"from the forward pass for use on the backward pass), but instead the fwd "
                f"rule output's first element had container/pytree structure:\n"
                f"    {_types_tree(out_tree, out_leaves)}\nwhile the custom_vjp-decorated "
                f"function {self.name} had output container/pytree structure:\n"
                f"    {_types_tree(self.out_tree, self.out_avals)}.")
        if _types_differ(out_leaves, self.out_avals):
            raise _fwd_type_error(self, out_tree, out_leaves)
        res_leaves, self.res_tree = tree_flatten(out[1])
        return out_leaves, res_leaves


def _fwd_type_error(rule, out_tree, out_leaves) -> TypeError:
    """JAX's TypeError where fwd's primal outputs differ in shape or dtype from the function's
    (in its custom_vjp3 rewrite's words under jax_custom_vjp3: the first that differs)."""
    if config.jax_custom_vjp3:
        paths = [keystr(p) for p, _ in tree_flatten_with_path(
            tree_unflatten(out_tree, [0] * out_tree.num_leaves))[0]]
        path, x, a = next((p, x, a) for p, x, a in zip(paths, out_leaves, rule.out_avals)
                          if get_aval(x).shape != a.shape or get_aval(x).dtype != a.dtype)
        return TypeError(f"at {path}, got fwd output type {_type_text(get_aval(x))} which "
                         f"doesn't match primal output type {_type_text(a)}")
    return TypeError(
        f"Custom VJP fwd rule {rule.__name__} for function {rule.name} must produce a pair "
        f"(list or tuple of length two) where the first element represents the primal output "
        f"(equal to the output of the custom_vjp-decorated function {rule.name}) and the "
        f"second element represents residuals (i.e. values stored from the forward pass for "
        f"use on the backward pass), but instead the fwd rule output's first element had "
        f"shapes/dtypes of:\n    {_types_tree(out_tree, out_leaves)}\nwhile the "
        f"custom_vjp-decorated function {rule.name} had output shapes/dtypes of:\n"
        f"    {_types_tree(rule.out_tree, rule.out_avals)}")


class _FlatBwd:
    def __init__(self, rule: _FlatVJPRule):
        self.rule = rule
        self.__name__ = getattr(rule.custom.bwd, "__name__", f"{rule.name}_bwd")

    def __call__(self, residuals, cotangents):
        r, c = self.rule, self.rule.custom
        res = tree_unflatten(r.res_tree, residuals)
        cts = tree_unflatten(r.out_tree, cotangents)
        out = c.bwd(*r.nondiff, res, cts) if c.nondiff_argnums else c.bwd(res, cts)
        if not isinstance(out, (tuple, list)):
            raise TypeError(f"Custom VJP bwd rule must produce an output with the same container "
                            f"(pytree) structure as the args tuple of the primal function, and "
                            f"in particular must produce a tuple of length equal to the number "
                            f"of arguments to the primal function, but got bwd output structure "
                            f"{tree_structure(out)} for primal input structure {r.in_tree}.")
        n_dyn = r.n_args - len(c.nondiff_argnums)
        if len(out) != n_dyn:
            raise TypeError(f"Custom VJP bwd rule must produce an output with the same container "
                            f"(pytree) structure as the args tuple of the primal function, and in "
                            f"particular must produce a tuple of length equal to the number of "
                            f"arguments to the primal function, but got bwd output of length "
                            f"{len(out)} for {n_dyn} arguments of {r.name}.")
        leaves = []
        for i, (ct, primal_tree) in enumerate(zip(out, r.in_tree.children())):
            avals = _avals_of(primal_tree, r, i)
            if ct is None:
                leaves.extend(Zero(a) for a in avals)
                continue
            # JAX's rule: the cotangent's structure is a prefix of the argument's, a leaf
            # (or None) standing for a whole subtree (Flax's State of arrays for its Params)
            dummy = tree_unflatten(primal_tree, [object()] * primal_tree.num_leaves)
            try:
                flat = _prefix_leaves(ct, dummy)
            except ValueError:
                raise TypeError(f"Custom VJP bwd rule must produce an output with the same "
                                f"container (pytree) structure as the args tuple of the primal "
                                f"function; for argument {i} of {r.name} the bwd rule produced "
                                f"{tree_structure(ct)} but the primal has {primal_tree}.") from None
            leaves.extend(Zero(a) if x is None else x for x, a in zip(flat, avals))
        paths = [keystr(p) for p, _ in tree_flatten_with_path(
            tree_unflatten(r.in_tree, [0] * r.in_tree.num_leaves))[0]]
        for ct, aval, path in zip(leaves, r.in_avals, paths):
            if type(ct) is Zero and not _same_type(ct.aval, aval):
                raise ValueError(
                    f"Custom VJP bwd rule produced a SymbolicZero with a shape/dtype that does "
                    f"not match the corresponding input tangent shape/dtype: at output{path} "
                    f"the SymbolicZero had shape/dtype {_type_text(ct.aval)} while the "
                    f"corresponding input had shape/dtype {_type_text(aval)}. Consider just "
                    f"returning a None here instead of a SymbolicZero object.")
            if type(ct) is not Zero and get_aval(ct).shape != aval.shape and \
                    not config.jax_disable_bwd_checks:
                raise ValueError(f"Custom VJP bwd rule must produce an output with the same "
                                 f"type as the args tuple of the primal function, but at "
                                 f"output{path} the bwd rule produced an output of type "
                                 f"{_type_text(get_aval(ct))} corresponding to an input of type "
                                 f"{_type_text(aval)}, so the shapes do not match")
        return leaves


def _prefix_leaves(prefix, full) -> list:
    """The leaves of `prefix` (None a leaf), each repeated once per leaf of the subtree of `full`
    it covers, as JAX's _flatten_bwd finds them: the trees it maps over are rebuilt from the
    cotangents themselves, so a pytree type whose unflatten refuses None works."""
    out = []

    def add(x, sub):
        out.extend([x] * tree_structure(sub).num_leaves)
        return x
    tree_map(add, prefix, full, is_leaf=lambda x: x is None)
    return out


def _same_type(a, b) -> bool:
    """Whether two values' tangents have one type, weak types aside (JAX's typecompat)."""
    a, b = a.to_tangent_aval(), b.to_tangent_aval()
    return a.shape == b.shape and a.dtype == b.dtype


def _avals_of(subtree, rule, index):
    start = sum(t.num_leaves for t in rule.in_tree.children()[:index])
    return rule.in_avals[start:start + subtree.num_leaves]


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


def _literal_residual(x):
    if type(x) is Literal and type(x.val) in (bool, int, float, complex):
        return typed_scalar(x.val, x.aval.dtype)      # JAX's TypedFloat (a float subclass)
    if isinstance(x, (np.ndarray, np.generic)):     # host data stays so: JAX's TypedNdArray
        return x if type(x) is TypedNdArray else TypedNdArray(np.asarray(x))
    return _literal_as_array(x)


def _custom_lin_transpose(cts, *args, num_res, bwd, out_avals, symbolic_zeros, in_zeros):
    # A scalar residual reaches us as a jaxpr Literal, never handed to the user's bwd as our
    # IR object: one fwd returned as a Python scalar comes back as that scalar (JAX gives a
    # TypedFloat, a float subclass); a 0-d Array or NumPy scalar comes back as an Array of its
    # dtype and weak type, as JAX's bwd gets it (`jnp.cos(x)` of a Python float: weak f32).
    residuals = [_literal_residual(a) for a in args[:num_res]]
    if not cts:     # no differentiable output: JAX's linearize drops the equation, bwd never runs
        return [None] * num_res + [Zero(a.aval) for a in args[num_res:]]
    if not symbolic_zeros:
        cts = [instantiate(c) if type(c) is Zero else c for c in cts]
    cts_in = bwd(list(residuals), list(cts))
    return [None] * num_res + [ct for ct, zero in zip(cts_in, in_zeros) if not zero]


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
param_printers[custom_vjp_call_p] = lambda p: [
    ("name", p["name"]), ("bwd", p["bwd"].__name__), ("call_jaxpr", p["call_jaxpr"]),
    ("fwd", p["fwd"].__name__), ("symbolic_zeros", p["symbolic_zeros"])]


# ------------------------------------------------------------------ dead-code elimination
# JAX's dce rules of custom_jvp_call and custom_vjp_call: the call computes only the results
# used; every operand stays (the rules may read any), the rules' results cut to match.
def _pick(xs, used):
    return [x for x, u in zip(xs, used) if u]


class _UsedOutputsJVP:
    """A jvp rule giving only the used outputs' primals and tangents."""
    def __init__(self, jvp, used):
        self.jvp, self.used, self.__name__ = jvp, used, getattr(jvp, "__name__", "jvp")

    def __call__(self, primals, tangents):
        outs, tangents_out = self.jvp(primals, tangents)
        return _pick(outs, self.used), _pick(tangents_out, self.used)


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


def _used_call_jaxpr(eqn, used_outs):
    closed = eqn.params["call_jaxpr"]
    jaxpr, _ = dce_jaxpr_outputs(closed.jaxpr, used_outs, instantiate=True)
    return ClosedJaxpr(jaxpr, closed.consts)


def _custom_jvp_call_dce(used_outs, eqn):
    params = dict(eqn.params, call_jaxpr=_used_call_jaxpr(eqn, used_outs),
                  jvp=_UsedOutputsJVP(eqn.params["jvp"], used_outs))
    return [True] * len(eqn.invars), eqn.replace(outvars=_pick(eqn.outvars, used_outs),
                                                 params=params)


def _custom_vjp_call_dce(used_outs, eqn):
    p = eqn.params
    params = dict(p, call_jaxpr=_used_call_jaxpr(eqn, used_outs),
                  fwd=_UsedOutputsFwd(p["fwd"], used_outs),
                  bwd=_UsedOutputsBwd(p["bwd"], used_outs, p["call_jaxpr"].out_avals,
                                      p["symbolic_zeros"]))
    return [True] * len(eqn.invars), eqn.replace(outvars=_pick(eqn.outvars, used_outs),
                                                 params=params)


dce_rules[custom_jvp_call_p] = _custom_jvp_call_dce
dce_rules[custom_vjp_call_p] = _custom_vjp_call_dce

abstract_eval_rules[custom_lin_p] = lambda *avals, out_avals, **_: list(out_avals)
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
jvp_rules[custom_lin_p] = _custom_lin_jvp
axis_batching_rules[custom_lin_p] = _custom_lin_batching


# ====================================================================== linear_call
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
