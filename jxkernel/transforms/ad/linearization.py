"""linearize: the JVP run inside a `PartialEvalTrace` where the tangents are unknown, so the
primal computation runs and the tangent computation is staged as a linear jaxpr, whose
consts are the residuals (what vjp transposes, what `linearize` hands back as f_jvp).

    >>> y, f_jvp = linearize(jnp.sin, 0.0)
    >>> f_jvp(2.0)
    Array(2., dtype=float32, weak_type=True)
"""
from __future__ import annotations

import functools

from ...core.traceback_util import api_boundary
from ...core import dtypes, vma
from ...core.avals import get_aval
from ...core.dce import dce_closed
from ...core.interpret import eval_jaxpr
from ...core.interpreter_primitives import convert_element_type
from ...core.literals import typed_scalar
from ...core.trace import Tracer, new_trace
from ..ad_util import Zero, instantiate
from ..api_util import check_callable
from ...tree_util import Partial, tree_flatten, tree_unflatten
from ...core.partial_eval import PartialEvalTrace
from .forward import LinearizeTracer, _flatten_fun, jvp_flat


# ------------------------------------------------------------------ linearize
def linearize_flat(fun, primals):
    """(primal outputs, linear ClosedJaxpr from input tangents to output tangents).

    The linear jaxpr's consts are the residuals: values of the primal computation that
    the tangent computation needs.
    """
    in_avals = [get_aval(p) for p in primals]
    primals = [_pinned_primal(p, a) for p, a in zip(primals, in_avals)]
    with new_trace(PartialEvalTrace) as pe:
        # an extended dtype's tangents are its rules' tangent dtype (primal_tangent_dtype's)
        tangents_in = [pe.new_arg(a.to_tangent_aval()) if dtypes.has_tangent(a.dtype)
                       else Zero(a) for a in in_avals]
        primal_out, tangent_out = jvp_flat(fun, primals, tangents_in, LinearizeTracer)
        # A zero or known output tangent is still an output of the linear jaxpr.
        tangent_out = [instantiate(t) if type(t) is Zero else t for t in tangent_out]
        # the tangents' dead code goes, and with it the residuals only it read (JAX DCEs
        # its linear jaxpr: what vjp keeps and saved_residuals lists)
        linear = dce_closed(pe.to_jaxpr(tangent_out))
    differentiable = [type(t) is not Zero for t in tangents_in]
    for p in primal_out:
        if isinstance(p, Tracer) and getattr(p, "_trace", None) is pe:
            # an operation without a reverse-mode rule mixed tangents into primal values
            raise ValueError("Linearization failed to produce known values for all output "
                             "primals. This is typically caused by attempting to differentiate "
                             "a function uses an operation that does not support reverse-mode "
                             "autodiff.")
    return primal_out, linear, differentiable


def _pinned_primal(p, aval):
    """`p` typed as `aval` where its dtype was only implied: the tangents are typed now, so an
    enable_x64 block inside the function must not widen the primal under them. A Python
    scalar becomes one carrying its dtype (JAX's canonicalize_value: a TypedFloat, which an
    identity or a custom_vjp's Python arithmetic gives back as a float), a NumPy array the
    mode narrows an array.

    >>> _pinned_primal(0.5, get_aval(0.5))
    TypedFloat(0.5, dtype=float32)
    """
    if type(p) not in (bool, int, float, complex) and getattr(p, "dtype", None) == aval.dtype \
            or not dtypes.has_tangent(aval.dtype):
        return p        # (an integer input has no tangent: it passes as given, as in JAX)
    if type(p) in (float, complex):
        return typed_scalar(p, aval.dtype)
    return convert_element_type(p, aval.dtype, weak_type=aval.weak_type)


@api_boundary
def linearize(fun, *primals, has_aux=False):
    """(fun(*primals), f_jvp): f_jvp(*tangents) is the JVP at primals, reusing residuals."""
    check_callable(fun)
    p_leaves, p_tree = tree_flatten(primals)
    flat, out_info = _flatten_fun(fun, p_tree, has_aux)
    primal_out, linear, differentiable = linearize_flat(flat, p_leaves)
    out_tree, aux = out_info()
    # as JAX's: a Partial whose leaves are the residuals, so that f_jvp passes in and out of
    # jit and vmap as a pytree (Equinox's checkpointed loops return it from a jitted function)
    in_avals = tuple(get_aval(p) for p in p_leaves)
    f_jvp = Partial(functools.partial(_apply_linearized, linear.jaxpr, p_tree, in_avals,
                                      tuple(differentiable), out_tree), list(linear.consts))
    return (tree_unflatten(out_tree, primal_out), f_jvp) + aux


def _apply_linearized(jaxpr, p_tree, in_avals, differentiable, out_tree, residuals, *tangents):
    """The JVP at the linearization point: the linear jaxpr on the differentiable tangents."""
    t_leaves, t_tree = tree_flatten(tangents)
    if t_tree != p_tree:
        raise TypeError(f"linearized function called on tangents of structure {t_tree}, "
                        f"expected {p_tree}")
    for primal, t in zip(in_avals, t_leaves):
        _check_linearized_tangent(primal, get_aval(t))
    ins = [t for t, d in zip(t_leaves, differentiable) if d]
    return tree_unflatten(out_tree, eval_jaxpr(jaxpr, residuals, *ins))


def _check_linearized_tangent(primal, tangent) -> None:
    """JAX's ValueError for a tangent whose shape or dtype is not the primal's tangent type
    (an int primal's is float0), weak types aside."""
    expected = primal.to_tangent_aval()
    p_vma, t_vma = getattr(primal, "vma", frozenset()), getattr(tangent, "vma", frozenset())
    if (tangent.shape, tangent.dtype) != (expected.shape, expected.dtype) or p_vma != t_vma:
        # in a shard_map body the two must vary over the same manual axes (JAX's hint)
        hints = []
        if left := t_vma - p_vma:
            hints.append(f"applying `jax.lax.pcast(..., {vma.in_mesh_order(left)}, "
                         f"to='varying')` to the primal value passed to `jax.linearize`")
        if left := p_vma - t_vma:
            hints.append(f"applying `jax.lax.pcast(..., {vma.in_mesh_order(left)}, "
                         f"to='varying')` to the tangent value passed to the callable `f_jvp` "
                         f"returned by `jax.linearize`")
        extra = " \nThis might be fixed by:\n" + "\n".join(f"  * {h};" for h in hints) \
            if hints else ""
        raise ValueError(f"linearized function called on tangent values inconsistent with the "
                         f"original primal values:\nGot tangent aval {tangent} for primal aval "
                         f"{primal} but expected {expected}.{extra}")
