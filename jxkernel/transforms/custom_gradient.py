"""custom_gradient and closure_convert, built on custom_vjp as JAX builds them.

    >>> from jxkernel import grad
    >>> @custom_gradient
    ... def f(x):
    ...     return x ** 2, lambda g: (g * x,)
    >>> grad(f)(3.0)
    Array(3., dtype=float32, weak_type=True)
"""
from __future__ import annotations

import functools

import numpy as np

from ..core import dtypes
from ..core.avals import abstract_token, get_aval
from ..core.staging import JaxprTracer as StagingTracer
from ..core.interpret import eval_jaxpr, held_values
from ..core.literals import TypedNdArray
from ..core.trace import Tracer
from ..tree_util import register_pytree_node_class, tree_flatten, tree_unflatten, treedef_is_leaf
from .ad import DualTracer
from .api_util import flatten_fun
from .batching import BatchTracer
from .custom_derivatives import custom_vjp
from ..core.staging import trace_to_jaxpr


@register_pytree_node_class
class _Residuals:
    """The gradient rule as a jaxpr, with the values it closes over as the pytree's leaves (so
    they travel as custom_vjp residuals, whatever trace made them)."""

    def __init__(self, jaxpr, in_tree, out_tree, consts):
        self.jaxpr, self.in_tree, self.out_tree, self.consts = jaxpr, in_tree, out_tree, consts

    def tree_flatten(self):
        return self.consts, (self.jaxpr, self.in_tree, self.out_tree)

    @classmethod
    def tree_unflatten(cls, aux, consts):
        return cls(*aux, list(consts))


def _scalar_of(x):
    """A rule's result that is a constant of its jaxpr (a Python scalar it returned, a
    primal vjp keeps as one) as JAX's eval gives it: that scalar carrying its dtype, a
    NumPy one as a TypedNdArray (JAX's literal holds NumPy data so: `np.float32(3.0)`
    returned by a rule is `TypedNdArray(3., dtype=float32)`, not a NumPy scalar)."""
    if isinstance(x, (np.ndarray, np.generic)) and type(x) is not TypedNdArray:
        return TypedNdArray(np.asarray(x))      # (the literal's value, its dtype canonical)
    return x        # (a literal output: eval_jaxpr gives its value so, interpret.literal_result)


def custom_gradient(fun):
    """`fun(*args)` returns ``(out, rule)``; the result is a function returning `out` whose VJP is
    ``rule(cotangent) -> tuple of cotangents, one per argument``. The rule may close over
    `fun`'s intermediates but must not branch in Python on their values.

        >>> from jxkernel import grad
        >>> @custom_gradient
        ... def f(x, y):
        ...     return x * y, lambda g: (g * y, g * x)
        >>> grad(f, argnums=(0, 1))(3., 4.)
        (Array(4., dtype=float32, weak_type=True), Array(3., dtype=float32, weak_type=True))
    """
    @custom_vjp
    def wrapped(*args, **kwargs):
        return fun(*args, **kwargs)[0]

    def fwd(*args, **kwargs):
        ans, rule = fun(*args, **kwargs)
        ans_flat, out_tree = tree_flatten((ans,))
        in_trees = []

        def flat_rule(*cts):
            grads = rule(*tree_unflatten(out_tree, cts))
            leaves, in_tree = tree_flatten(grads)
            in_trees.append(in_tree)
            return leaves
        closed = trace_to_jaxpr(flat_rule, [get_aval(x) for x in ans_flat])
        return ans, _Residuals(closed.jaxpr, in_trees[0], out_tree, list(closed.consts))

    def bwd(res, cts):
        cts_flat, out_tree = tree_flatten((cts,))
        if out_tree != res.out_tree:
            raise TypeError(f"custom_gradient: the cotangent's structure {out_tree} differs from "
                            f"the output's {res.out_tree}")
        grads = tree_unflatten(res.in_tree, [_scalar_of(g) for g in held_values(eval_jaxpr(
            res.jaxpr, res.consts, *cts_flat))])
        return (grads,) if treedef_is_leaf(res.in_tree) else grads

    wrapped.defvjp(fwd, bwd)
    return wrapped


def maybe_perturbed(x) -> bool:
    """Whether `x` may carry a nonzero tangent (JAX's _maybe_perturbed heuristic, which
    closure_convert hoists by): not a concrete value, nor a value staged by jit whose type
    has no tangent (an integer's), nor a batched one whose batched value is neither.

        >>> maybe_perturbed(1.0)
        False
        >>> _ = jax.jvp(lambda x: print(maybe_perturbed(x)) or x, (1.0,), (1.0,))
        True
    """
    if not isinstance(x, Tracer):
        return False
    if isinstance(x, DualTracer):
        return True
    if type(x) is StagingTracer:     # staged by jit: differentiable later, if its type is
        return dtypes.has_tangent(x.aval.dtype) and x.aval is not abstract_token
    if type(x) is BatchTracer:
        return maybe_perturbed(x.val)
    return True                      # (another transformation's: it may carry one)


def closure_convert(fun, *example_args):
    """``(converted, consts)``: `converted(*args, *consts)` computes `fun(*args)`, with the traced
    values `fun` closes over (which may carry derivatives) hoisted out as `consts`, so that
    functions handed to custom_vjp/custom_jvp as non-differentiable arguments stay pure.
    Concrete closed-over values stay inside. `example_args` fix the argument types.

        >>> def outer(w):
        ...     f = lambda x: x * w
        ...     g, consts = closure_convert(f, 1.0)    # consts == [w] when w is traced
    """
    flat_args, in_tree = tree_flatten(example_args)
    in_avals = [get_aval(x) for x in flat_args]
    if not callable(fun):       # JAX's words (its cache of the conversion, keyed by `fun`)
        raise TypeError("the first argument must be callable")
    flat_fun, out_tree = flatten_fun(fun, in_tree)
    closed = trace_to_jaxpr(flat_fun, in_avals)
    hoisted = [maybe_perturbed(c) for c in closed.consts]
    const_args = [c for c, h in zip(closed.consts, hoisted) if h]
    kept = [c for c, h in zip(closed.consts, hoisted) if not h]
    jaxpr, out_tree = closed.jaxpr, out_tree()

    @functools.wraps(fun)
    def converted(*args_and_consts):
        n_args = len(args_and_consts) - len(const_args)
        args, extra = args_and_consts[:n_args], iter(args_and_consts[n_args:])
        kept_iter = iter(kept)
        consts = [next(extra) if h else next(kept_iter) for h in hoisted]
        all_args, in_tree2 = tree_flatten(tuple(args))
        if in_tree2 != in_tree:
            raise TypeError("The inputs to the closure produced by closure_convert must have the "
                            "same Pytree structure as the example arguments passed when "
                            f"closure_convert was called. Expected {in_tree}, but got {in_tree2}")
        return tree_unflatten(out_tree, held_values(eval_jaxpr(jaxpr, consts, *all_args)))
    return converted, const_args


# their home in JAX, where they answer under the alias too (jax._src.custom_derivatives,
# jxkernel/_jax/custom_derivatives.py), as custom_jvp's and custom_vjp's
custom_gradient.__module__ = closure_convert.__module__ = "jxkernel._src.custom_derivatives"
