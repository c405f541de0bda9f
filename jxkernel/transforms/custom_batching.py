"""custom_vmap: a function that brings its own rule for vmap.

    >>> @custom_vmap
    ... def f(x, y):
    ...     return x + y
    >>> @f.def_vmap
    ... def f_vmap_rule(axis_size, in_batched, xs, ys):
    ...     return xs * ys, True             # (batched output, which outputs are batched)
    >>> jax.vmap(f)(jnp.arange(3), jnp.arange(1, 4))
    Array([0, 2, 6], dtype=int32)

Outside vmap the function runs as written. Otherwise it is traced to a jaxpr and bound as
one `custom_vmap_call` equation carrying the rule, as in JAX: its batching rule calls the
user's rule with the batched arguments (batch axis first) and a pytree of flags saying which
are batched; its JVP is again a custom_vmap call, of the body's JVP with a rule that is the
JVP of the user's rule (vmapped over whatever only the primals or only the tangents carry).
Reverse mode is not supported (JAX's neither): wrap the function in custom_vjp for that.
"""
from __future__ import annotations

import functools
import operator

from ..core.avals import get_aval
from ..core.traceback_util import api_boundary
from ..core.interpret import eval_jaxpr
from ..core.numpy_eval import call_rule
from ..core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules, impl_rules,
                              jvp_rules, lowering_rules, numpy_rules)
from ..core.staging import convert_constvars_to_invars, trace_to_jaxpr
from ..core.trace import _ctx, eval_trace
from ..tree_util import (tree_flatten, tree_map, tree_structure, tree_unflatten,
                         treedef_tuple)
from . import batch_util as bu
from .ad import jvp, jvp_jaxpr
from .ad_util import instantiate
from .api_util import flatten_fun, update_wrapper
from .batching import AxisData, batch_subtrace
from .custom_derivatives.function import _WrapsFun, _resolve_args


class custom_vmap(_WrapsFun):
    """Customize how `fun` batches under vmap: see `def_vmap` (module docstring example)."""

    def __init__(self, fun):
        update_wrapper(self, fun)
        self.fun, self.vmap_rule = fun, None

    def def_vmap(self, vmap_rule):
        """Set `vmap_rule(axis_size, in_batched, *args) -> (out, out_batched)`: `args` have
        their batch axis first where `in_batched` (a pytree of bools like the arguments) says
        so; `out_batched` is a pytree of bools like `out`. Returns the rule (a decorator)."""
        self.vmap_rule = vmap_rule
        return vmap_rule

    @api_boundary
    def __call__(self, *args, **kwargs):
        name = getattr(self.fun, "__name__", "<unnamed function>")
        try:
            args = tuple(_resolve_args(self.fun, args, kwargs, "custom_vmap"))
        except TypeError as e:
            raise TypeError(f"The input arguments to the custom_vmap-decorated function {name} "
                            f"could not be resolved to positional-only arguments. Binding "
                            f"failed with the error:\n{e}") from e
        if self.vmap_rule is None:
            raise AttributeError(f"No batching rule defined for custom_vmap function {name} "
                                 f"using def_vmap.")
        if _ctx.trace is eval_trace:         # no transformation: the body is the answer
            return self.fun(*args)
        leaves, in_tree = tree_flatten(args)
        flat, out_tree = flatten_fun(self.fun, in_tree)
        closed = trace_to_jaxpr(flat, [get_aval(x) for x in leaves])
        call, consts = convert_constvars_to_invars(closed)
        outs = custom_vmap_call_p.bind(
            *consts, *leaves, call=call, rule=_ClosedRule(self.vmap_rule, len(consts)),
            in_tree=treedef_tuple((tree_structure(list(consts)), in_tree)),
            out_tree=out_tree())
        return tree_unflatten(out_tree(), outs)


class _ClosedRule:
    """The user's rule over (consts, args): the body's closed-over values are never batched
    (a batched one would have been an argument of the vmapped function)."""

    def __init__(self, rule, num_consts):
        functools.update_wrapper(self, rule)
        self.rule, self.num_consts = rule, num_consts

    def __call__(self, axis_size, all_in_batched, consts, args):
        consts_batched, in_batched = all_in_batched
        if any(tree_flatten(consts_batched)[0]):
            raise NotImplementedError(
                f"custom_vmap function {_rule_name(self.rule)} closes over a value that vmap "
                f"batches: pass it as an argument instead")
        return _call_rule(self.rule, axis_size, in_batched, args)

    def __str__(self):                   # how the jaxpr prints the rule, as in JAX
        return str(self.rule)


def _rule_name(rule) -> str:
    return getattr(rule, "__name__", "<unnamed rule>")


def _call_rule(rule, axis_size, in_batched, args):
    return rule(axis_size, list(in_batched), *args)


def _check_rule_trees(rule, original_out_tree, out_tree, out_batched_tree):
    if out_tree != out_batched_tree:
        raise ValueError(f"structure of output value and output batching specification "
                         f"returned by custom vmap rule ({_rule_name(rule)}) do not match.\n"
                         f"Output values: {out_tree}\nBatching spec: {out_batched_tree}")
    if out_tree != original_out_tree:
        raise ValueError(f"structure of output returned by custom vmap rule "
                         f"({_rule_name(rule)}) does not match that of original custom-vmapped "
                         f"function.\nOriginal output: {original_out_tree}\n"
                         f"Rule output: {out_tree}")


# ------------------------------------------------------------------ the primitive
custom_vmap_call_p = Primitive("custom_vmap_call", multiple_results=True)


def _custom_vmap_batching(axis_data, vals, dims, *, call, rule, in_tree, out_tree):
    size = axis_data.size
    vals = [v if d is bu.not_mapped else bu.moveaxis(v, d, 0) for v, d in zip(vals, dims)]
    in_batched = tree_unflatten(in_tree, [d is not bu.not_mapped for d in dims])
    out, out_batched = _call_rule(rule, size, in_batched, tree_unflatten(in_tree, vals))
    outs, tree1 = tree_flatten(out)
    flags, tree2 = tree_flatten(out_batched)
    _check_rule_trees(rule, out_tree, tree1, tree2)
    return outs, [0 if b else bu.not_mapped for b in flags]


def _custom_vmap_jvp(primals, tangents, *, call, rule, in_tree, out_tree):
    """JAX's rule: a custom_vmap call of the body's JVP whose rule is the JVP of `rule`."""
    tangents = [instantiate(t) for t in tangents]
    jvp_call, _ = jvp_jaxpr(call, [True] * len(primals), True)
    outs = custom_vmap_call_p.bind(
        *primals, *tangents, call=jvp_call, rule=_JVPOfRule(rule, out_tree),
        in_tree=treedef_tuple((in_tree, in_tree)), out_tree=treedef_tuple((out_tree, out_tree)))
    return outs[:len(outs) // 2], outs[len(outs) // 2:]


class _JVPOfRule:
    """The vmap rule of a custom_vmap function's JVP: the user's rule sees what primals and
    tangents both batch, and is vmapped (as JAX's, over one more axis) over what only one of
    them batches; outputs are batched where the rule or that vmap made them so."""

    def __init__(self, rule, out_tree):
        self.rule, self.out_tree = rule, out_tree
        self.__name__ = f"jvp_of_{_rule_name(rule)}"

    def __call__(self, axis_size, in_batched, primals, tangents):
        batched_p, batched_t = in_batched
        both = tree_map(operator.and_, batched_p, batched_t)
        extra_p = tree_map(lambda p, t: 0 if p and not t else None, batched_p, batched_t)
        extra_t = tree_map(lambda p, t: 0 if t and not p else None, batched_p, batched_t)
        out_both = []

        def rule_out(*ps):
            out, out_batched = _call_rule(self.rule, axis_size, both, ps)
            _check_rule_trees(self.rule, self.out_tree, tree_structure(out),
                              tree_structure(out_batched))
            out_both.append(out_batched)
            return out

        leaves, tree = tree_flatten((primals, tangents))
        out_tree = []

        def jvp_of_rule(*xs):
            out, treedef = tree_flatten(jvp(rule_out, *map(tuple, tree_unflatten(tree, xs))))
            out_tree.append(treedef)
            return out
        # vmapped over what only one batches, as JAX's vmap_unrestricted: each output batched
        # or not as the rule makes it (an unbatched primal's output stays unbatched)
        axes = tree_flatten((extra_p, extra_t), is_leaf=lambda x: x is None)[0]
        outs, dims = batch_subtrace(jvp_of_rule, AxisData(None, axis_size), leaves, axes)
        outs = [o if d is bu.not_mapped else bu.moveaxis(o, d, 0) for o, d in zip(outs, dims)]
        out_p, out_t = tree_unflatten(out_tree[0], outs)
        extra_p, extra_t = tree_unflatten(out_tree[0], [d is not bu.not_mapped for d in dims])
        return (out_p, out_t), (tree_map(operator.or_, out_both[-1], extra_p),
                                tree_map(operator.or_, out_both[-1], extra_t))


abstract_eval_rules[custom_vmap_call_p] = lambda *avals, call, **_: call.out_avals
impl_rules[custom_vmap_call_p] = lambda *args, call, **_: eval_jaxpr(call.jaxpr, call.consts,
                                                                     *args)
numpy_rules[custom_vmap_call_p] = call_rule("call")
lowering_rules[custom_vmap_call_p] = lambda ctx, *args, call, **_: ctx.call_jaxpr(
    call, args, "custom_vmap_call")
jvp_rules[custom_vmap_call_p] = _custom_vmap_jvp
axis_batching_rules[custom_vmap_call_p] = _custom_vmap_batching
