"""The decorated function custom_jvp and custom_vjp both are, and its call.

`_CustomFunction` wraps `fun`, binds as a method, and on a call resolves the arguments to
positions (`_resolve_args`, JAX's TypeError where they do not bind). Outside any
transformation `fun` just runs; under a JVP, or partial evaluation that knows every input,
the call runs directly (`_call_directly`: the subclass's `_under_jvp` calls its rule at once
on the primals); under the other transformations `fun` is traced (`_trace_call`) and the
subclass binds its primitive (`_bind`).
"""
from __future__ import annotations

import functools
import inspect

from ...core.traceback_util import api_boundary
from ...core.avals import get_aval
from ...core.partial_eval import PartialEvalTrace
from ...core.config import config
from ...core.ir import check_effects, custom_derivatives_allowed_effects
from ...core.staging import convert_constvars_to_invars, trace_to_jaxpr
from ...core.trace import Tracer, _ctx, eval_trace, set_current_trace
from ...tree_util import tree_flatten, tree_unflatten
from ..ad import JVPTrace
from ..ad_util import Zero
from ..api_util import flatten_fun, resolve_kwargs, update_wrapper


def _resolve_args(fun, args, kwargs, kind="custom_jvp"):
    """All arguments as positions, defaults filled in (custom rules see positional primals,
    and nondiff_argnums may name a parameter the caller left to its default), as JAX does;
    arguments that do not bind raise JAX's TypeError naming the `kind`-decorated function."""
    try:
        return resolve_kwargs(fun, args, kwargs)
    except TypeError as e:
        raise TypeError(f"The input arguments to the {kind}-decorated function "
                        f"{getattr(fun, '__name__', fun)} could not be resolved to "
                        f"positional-only arguments. Binding failed with the error:\n{e}") from e


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


def _nondiff_positions(fun, argnums, argnames) -> tuple:
    """The sorted positions of the non-differentiable arguments, named by position or by
    parameter name (JAX's nondiff_argnames: a name is its parameter's position)."""
    positions = set(argnums)
    if argnames:
        params = list(inspect.signature(fun).parameters)
        positions.update(params.index(n) for n in argnames if n in params)
    return tuple(sorted(positions))


class _WrapsFun:
    """What custom_jvp, custom_vjp and custom_vmap share as wrappers of `self.fun`: binding
    as a method, and (as JAX's custom_api_util.forward_attr) reaching a rule-defining method
    of the wrapped function through the wrapper: `def_vmap` of a custom_vmap under a
    custom_vjp, `defvjp` of a custom_vjp under a custom_vmap."""

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def __getattr__(self, name):
        if name.startswith("def") and "fun" in self.__dict__:
            return getattr(self.fun, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


class _CustomFunction(_WrapsFun):
    """What custom_jvp and custom_vjp share: wrapping `fun`, binding as a method, and the
    call (run directly where the rule applies at once, else trace `fun` and bind the
    subclass's primitive). Subclasses name their rule's attribute and how to bind it."""
    _rule_attr = _missing_rule = None

    def __init__(self, fun, nondiff_argnums=(), nondiff_argnames=()):
        update_wrapper(self, fun)
        self.fun, self.nondiff_argnums = fun, _nondiff_positions(fun, nondiff_argnums,
                                                                 nondiff_argnames)
        self.symbolic_zeros = False

    @api_boundary
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
        if config.jax_enable_checks:    # (JAX's refusal is its jaxpr type check's)
            check_effects([jaxpr], custom_derivatives_allowed_effects,
                          f"`{type(self).__name__}`")
        outs = self._bind(jaxpr, consts, leaves, nondiff, in_tree, out_tree, len(args), name)
        return tree_unflatten(out_tree, outs)
