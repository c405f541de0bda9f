"""jxkernel.ad_checkpoint, as jax.ad_checkpoint: checkpoint (remat), checkpoint_name and the
checkpoint policies, which choose the intermediates the backward pass keeps.

    >>> from jxkernel.ad_checkpoint import checkpoint, checkpoint_name, checkpoint_policies
    >>> f = checkpoint(lambda x: jnp.sin(jnp.sin(x)), policy=checkpoint_policies.dots_saveable)

`print_saved_residuals(f, *args)` lists what the backward pass of `f` keeps, and where each
value comes from.
"""
from ..core.avals import get_aval
from ..core.dce import dce_jaxpr_outputs
from ..core.interpret import eval_jaxpr
from ..core.ir import Literal
from ..core.staging import convert_constvars_to_invars, trace_to_jaxpr
from ..lax.elementwise import reduce_precision_p
from ..transforms.ad import linearize_flat
from ..transforms.api_util import flatten_fun
from ..transforms.batching import _arg_names
from ..transforms.make_jaxpr import make_jaxpr
from .remat import (  # noqa: F401
    call_jaxpr as _call_jaxpr,
    produced_by as _produced_by,
    checkpoint,
    checkpoint_dots,
    checkpoint_dots_with_no_batch_dims,
    checkpoint_name,
    checkpoint_policies,
    dots_saveable,
    dots_with_no_batch_dims_saveable,
    everything_saveable,
    name_p,
    nothing_saveable,
    remat,
    remat_p,
    save_any_names_but_these,
    save_anything_except_these_names,
    save_from_both_policies,
    save_only_these_names,
)
from ..transforms.custom_derivatives import custom_vjp
from ..tree_util import register_pytree_node_class, tree_flatten, tree_unflatten
from .remat_saved import SAVED_WHATEVER_THE_POLICY, Offloadable, Recompute, Saveable  # noqa: F401


def saved_residuals(f, *args, **kwargs) -> list:
    """(aval, where it comes from) for each value reverse-mode differentiation of `f` at
    `args` keeps for the backward pass: what a checkpoint policy decides about."""
    leaves, in_tree = tree_flatten((args, kwargs))
    names = _arg_names(f, args, kwargs)

    flat_f, _ = flatten_fun(lambda a, kw: f(*a, **kw), in_tree)
    closed = make_jaxpr(lambda *xs: list(linearize_flat(flat_f, xs)[1].consts))(*leaves)
    return _residual_sources(closed.jaxpr, names)


def _residual_sources(jaxpr, arg_names) -> list:
    """JAX's order: literals, constants, arguments, then results in equation order; each
    value once, traced through jit and checkpoint equations to where it is computed."""
    producers = {v: (i, eqn) for i, eqn in enumerate(jaxpr.eqns) for v in eqn.outvars}
    rounded = {e.outvars[0]: e.invars[0] for e in jaxpr.eqns if e.primitive is reduce_precision_p}
    consts, args = {v: i for i, v in enumerate(jaxpr.constvars)}, \
        {v: i for i, v in enumerate(jaxpr.invars)}
    found = {}
    for n, atom in enumerate(jaxpr.outvars):
        if isinstance(atom, Literal):
            found[(0, n)] = (atom.aval, "from a literal")
            continue
        atom = rounded.get(atom, atom)      # rounding only: the operand is what is kept
        key, text = _outer_source(atom, producers, consts, args, arg_names)
        found.setdefault(key, (atom.aval, text))
    return [found[k] for k in sorted(found)]


def _outer_source(var, producers, consts, args, arg_names) -> tuple:
    if var in consts:
        return (1, consts[var]), "from a constant"
    if var in args:
        return (2, args[var]), f"from the argument {arg_names[args[var]]}"
    i, eqn = producers[var]
    inner = _forwarded_input(eqn, eqn.outvars.index(var))
    if inner is not None:               # a call returning one of its inputs as it is
        return _outer_source(inner, producers, consts, args, arg_names)
    return (3, i, eqn.outvars.index(var)), _produced_by(eqn, eqn.outvars.index(var))


def _forwarded_input(eqn, index):
    """The outer operand a jit/checkpoint equation returns unchanged as result `index`."""
    inner = _call_jaxpr(eqn)
    if inner is None or inner.outvars[index] not in inner.invars:
        return None
    return eqn.invars[inner.invars.index(inner.outvars[index])]


def print_saved_residuals(f, *args, **kwargs) -> None:
    """Print what `saved_residuals` finds, one residual a line, as JAX does.

    >>> print_saved_residuals(lambda x, y: jnp.sum(x * y), jnp.ones(3), jnp.float32(2.0))
    f32[3] from the argument x
    f32[] from the argument y
    """
    for aval, source in saved_residuals(f, *args, **kwargs):
        print(f"{aval.str_short(True)} {source}")


def custom_remat(f, f1, f2, fbwd, *, static_argnums=(), static_argnames=()):
    """`f` with a reverse mode of its own that recomputes from saved residuals (JAX's
    `jax._src.ad_checkpoint.custom_remat`): the forward pass runs `f1(*args) -> (out, res)`
    and keeps only `res` (and the arguments `f2` reads); the backward pass rematerializes
    with `f2(res, *args) -> (out, res2)` and `fbwd(res2, g)` gives one cotangent per
    positional argument. Keyword arguments are not differentiated; static ones are passed as
    they are. Under `checkpoint`, `res` is saved whatever the policy, as JAX's remat3 saves
    it, so nothing of `f1` is recomputed.

    >>> sin = custom_remat(jnp.sin, lambda x: (jnp.sin(x), jnp.cos(x)),
    ...                    lambda cos_x, x: (jnp.sin(x), cos_x), lambda cos_x, g: (cos_x * g,))
    >>> jax.grad(sin)(0.0)
    Array(1., dtype=float32, weak_type=True)
    """
    def call(*args, **kwargs):
        static = {i % len(args): args[i] for i in static_argnums}
        fixed = {k: v for k, v in kwargs.items() if k in static_argnames}

        def run(fun, *front, dyn):
            it = iter(dyn)
            full = [static[i] if i in static else next(it) for i in range(len(args))]
            return fun(*front, *full, **fixed, **kw_of(dyn))

        def kw_of(dyn):
            return {} if not kwargs else dict(zip(dynamic_kw, dyn[len(dyn) - len(dynamic_kw):]))

        dynamic_kw = [k for k in kwargs if k not in fixed]

        @custom_vjp
        def remat_fun(*dyn):
            return run(f, dyn=dyn)

        def fwd(*dyn):
            out, res = run(f1, dyn=dyn)
            res = checkpoint_name(res, SAVED_WHATEVER_THE_POLICY)
            return out, _Rematerialization.traced(lambda r, d: run(f2, r, dyn=d)[1], res, dyn)

        def bwd(rematerialization, g):
            return (*fbwd(rematerialization.res2(), g), *[None] * len(dynamic_kw))

        remat_fun.defvjp(fwd, bwd)
        dyn = [a for i, a in enumerate(args) if i not in static] + [kwargs[k] for k in dynamic_kw]
        return remat_fun(*dyn)
    return call


@register_pytree_node_class
class _Rematerialization:
    """custom_remat's `f2(res, *args)[1]` as a jaxpr, traced in the forward pass and pruned to
    what computes `res2`: its leaves are the values it reads (`res`, the arguments it needs,
    its constants), the residuals the backward pass keeps; JAX's remat drops the rest of
    `f2` (its `out`, the arguments only that reads) the same way, by DCE."""

    def __init__(self, jaxpr, res2_tree, leaves):
        self.jaxpr, self.res2_tree, self.leaves = jaxpr, res2_tree, leaves

    @classmethod
    def traced(cls, f2, res, dyn):
        ins, in_tree = tree_flatten((res, list(dyn)))
        trees = []

        def flat(*xs):
            res2, tree = tree_flatten(f2(*tree_unflatten(in_tree, xs)))
            trees.append(tree)
            return res2
        closed, consts = convert_constvars_to_invars(
            trace_to_jaxpr(flat, [get_aval(x) for x in ins]))
        jaxpr, used = dce_jaxpr_outputs(closed.jaxpr, True)
        reads = [x for x, u in zip([*consts, *ins], used) if u]
        return cls(jaxpr, trees[0], reads)

    def res2(self):
        return tree_unflatten(self.res2_tree, eval_jaxpr(self.jaxpr, [], *self.leaves))

    def tree_flatten(self):
        return self.leaves, (self.jaxpr, self.res2_tree)

    @classmethod
    def tree_unflatten(cls, aux, leaves):
        return cls(*aux, list(leaves))
