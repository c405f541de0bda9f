"""Forward mode: the JVP trace and its tracers, which carry (primal, tangent) pairs through
each primitive's jvp rule; `jvp_flat` and `jvp` on it, and `jvp_jaxpr`, a jaxpr's JVP as a
jaxpr (the jvp rule of jit, cond, scan, while and the other primitives holding a jaxpr).

    >>> jvp(jnp.sin, (0.0,), (1.0,))
    (Array(0., dtype=float32, weak_type=True), Array(1., dtype=float32, weak_type=True))

Traces have identities, so nested derivatives of the same kind never confuse their tangents
(`grad(lambda x: grad(lambda y: x * y)(1.))(1.)`).
"""
from __future__ import annotations

import numpy as np

from ...core.traceback_util import api_boundary
from ...core import dtypes
from ...core.avals import ShapedArray, get_aval
from ...core.interpret import eval_jaxpr
from ...core.ir import ClosedJaxpr, Literal
from ...core.lru import TRACES, WeakLRU
from ...core.name_stack import name_scope
from ...core.primitive import rule as _rule
from ...core.trace import (PrettyText, Trace, Tracer, aval_text, current_trace, new_trace,
                           set_current_trace, value_text)
from ..ad_util import Zero, float0, instantiate

instantiate_zeros = instantiate
from ...tree_util import tree_flatten, tree_map, tree_unflatten
from ..api_util import check_callable, flatten_fun, split_aux
from ...core.partial_eval import PartialEvalTrace
from ...core.staging import trace_to_jaxpr


class PrimalTracer(Tracer):
    """A tracer standing for its `primal` and what its trace carries beside it (a tangent,
    Taylor coefficients): its type and concrete value are the primal's."""
    __slots__ = ()

    @property
    def aval(self):
        return get_aval(self.primal)

    def to_concrete_value(self):
        p = self.primal
        return p.to_concrete_value() if isinstance(p, Tracer) else p


class DualTracer(PrimalTracer):
    """A primal and its tangent: jvp's JVPTracer, or under grad/vjp/linearize (the tangent
    staged by partial evaluation) a LinearizeTracer, as JAX names their types."""
    __slots__ = ("primal", "tangent")

    def __init__(self, trace, primal, tangent):
        self._trace, self.primal, self.tangent = trace, primal, tangent

    def _short_repr(self):
        """JAX's names: a GradTracer under grad/vjp/linearize (the tangent is being staged by
        partial evaluation), a JVPTracer under jvp."""
        primal, tangent = value_text(self.primal), self.tangent
        if isinstance(tangent, Tracer) and isinstance(tangent._trace, PartialEvalTrace):
            return f"GradTracer(primal={primal}, typeof(tangent)={tangent.aval.str_short(True)})"
        return f"JVPTracer(primal={primal}, tangent={value_text(tangent)})"

    def _pp_contents(self) -> list:
        """Its primal and tangent, for `_pretty_print(verbose=True)`: a tangent being staged by
        partial evaluation as JAX's linearize stages it, in a jit trace (`JitTracer(f16[])`)."""
        tangent = self.tangent
        if isinstance(tangent, Tracer) and isinstance(tangent._trace, PartialEvalTrace):
            tangent = PrettyText(f"JitTracer({aval_text(tangent.aval)})")
        return [("primal", self.primal), ("tangent", tangent)]


class JVPTracer(DualTracer):
    __slots__ = ()
    # its class as JAX's messages print it (core/errors.py's jax_type_text: has_aux's "but got
    # type <class 'jax._src.interpreters.ad.JVPTracer'>"), JAX's own path, where jit's
    # DynamicJaxprTracer answers under jxkernel's (no jxkernel module holds this name)
    _jax_class_path = "jax._src.interpreters.ad.JVPTracer"


class LinearizeTracer(DualTracer):
    # JAX's type under grad (code that tells jvp from grad by the tracer's type sees it)
    __slots__ = ()
    _jax_class_path = "jax._src.interpreters.ad.LinearizeTracer"


class JVPTrace(Trace):
    tracer_type = JVPTracer          # (linearize_flat's is a LinearizeTracer)

    def unpack(self, x):
        if type(x) is self.tracer_type and x._trace is self:
            return x.primal, x.tangent
        if isinstance(x, Tracer):
            self.check_foreign_tracer(x)
        return x, Zero(_tangent_aval(x))

    def process_primitive(self, prim, args, params):
        primals, tangents = zip(*map(self.unpack, args)) if args else ((), ())
        with set_current_trace(self.parent):
            if all(type(t) is Zero for t in tangents):
                return prim.bind(*primals, **params)
            primal_out, tangent_out = _rule("jvp", prim)(list(primals), list(tangents), **params)
        if prim.multiple_results:
            return [self.wrap(p, t) for p, t in zip(primal_out, tangent_out)]
        return self.wrap(primal_out, tangent_out)

    def wrap(self, primal, tangent):
        return primal if type(tangent) is Zero else self.tracer_type(self, primal, tangent)

    def describe_self(self):
        return "jvp/grad"


def _aux_values(aux):
    """has_aux's auxiliary output as values, not tracers of the differentiating trace: JAX
    returns it without derivative (so it does not leak that trace's tracers)."""
    trace = current_trace()
    if type(trace) is not JVPTrace:
        return aux
    return tree_map(lambda x: trace.unpack(x)[0] if isinstance(x, Tracer) else x, aux)


def _tangent_aval(x) -> ShapedArray:
    if type(x) is Literal:
        return x.aval
    if isinstance(x, np.ndarray) and x.dtype == float0:
        # a float0 value (an inner jvp's integer tangent) is a constant without derivative
        return ShapedArray(x.shape, np.dtype(bool))
    return get_aval(x)


# ------------------------------------------------------------------ jvp
def jvp_flat(fun, primals, tangents, tracer_type=JVPTracer, transform_stack=True):
    """(primal outputs, tangent outputs) of flat `fun` (Zero tangents allowed). The equations
    it records are named under `jvp` (`jit(f)/jvp()/sin`), as JAX's ad.jvp names them, unless
    `transform_stack` is False (a jaxpr's jvp, whose equations keep their own names)."""
    with new_trace(JVPTrace) as trace:
        trace.tracer_type = tracer_type
        ins = [p if type(t) is Zero else tracer_type(trace, p, t)
               for p, t in zip(primals, tangents)]
        if transform_stack:
            with name_scope("jvp("):
                outs = fun(*ins)
        else:
            outs = fun(*ins)
        pairs = [trace.unpack(o) for o in outs]
    return [p for p, _ in pairs], [t for _, t in pairs]


@api_boundary
def jvp(fun, primals, tangents, has_aux=False):
    """(fun(*primals), the directional derivative along `tangents`).

    >>> jvp(jnp.sin, (0.0,), (1.0,))
    (Array(0., dtype=float32, weak_type=True), Array(1., dtype=float32, weak_type=True))
    """
    check_callable(fun)
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("primal and tangent arguments to jax.jvp must be tuples or lists; found "
                        f"{type(primals).__name__} and {type(tangents).__name__}.")
    p_leaves, p_tree = tree_flatten(primals)     # as given: a tuple's tangents in a list
    t_leaves, t_tree = tree_flatten(tangents)    # differ (JAX's check)
    if p_tree != t_tree:
        raise TypeError(f"primal and tangent arguments to jax.jvp must have the same tree "
                        f"structure; primals have tree structure {p_tree} whereas tangents have "
                        f"tree structure {t_tree}.")
    for p, t in zip(p_leaves, t_leaves):
        pa, ta = get_aval(p), _tangent_input_aval(t)
        t_dtype = np.dtype(float0) if _is_float0(t) else ta.dtype
        # an integer or boolean primal's tangent is float0 (JAX refuses an int or float one);
        # its dtypes checked before its shapes, as JAX's
        expected = pa.dtype if dtypes.is_inexact(pa.dtype) else np.dtype(float0)
        if expected != t_dtype:
            # JAX's words, its missing space after "float0." and its float0 printed as
            # NumPy prints the structured dtype included (recorded: learner_advanced_cases)
            raise TypeError(f"primal and tangent arguments to jax.jvp do not match; dtypes must "
                            f"be equal, or in case of int/bool primal dtype the tangent dtype "
                            f"must be float0.Got primal dtype {_dtype_name(pa.dtype)} and so "
                            f"expected tangent dtype {_dtype_name(expected)}, but got tangent "
                            f"dtype {_dtype_name(t_dtype)} instead.")
        if pa.shape != ta.shape:        # (JAX's words: its "shapes;Got", no space)
            raise ValueError(f"jvp called with different primal and tangent shapes;Got primal "
                             f"shape {pa.shape} and tangent shape as {ta.shape}")
    t_leaves = [Zero(get_aval(p)) if not dtypes.is_inexact(get_aval(p).dtype) else t
                for p, t in zip(p_leaves, t_leaves)]
    flat, out_info = _flatten_fun(fun, p_tree, has_aux)
    primal_out, tangent_out = jvp_flat(flat, p_leaves, t_leaves)
    # integer/bool outputs have float0 tangents, as in JAX
    tangent_out = [instantiate(t) if dtypes.is_inexact(_tangent_aval(p).dtype) else
                   np.zeros(np.shape(p), float0) for p, t in zip(primal_out, tangent_out)]
    tree, aux = out_info()
    return (tree_unflatten(tree, primal_out), tree_unflatten(tree, tangent_out)) + aux


def _is_float0(t) -> bool:
    return isinstance(t, np.ndarray) and t.dtype == float0


def _dtype_name(dtype) -> str:
    """A dtype as JAX's jvp error names it: float0 as NumPy prints its structured dtype.

        >>> _dtype_name(np.dtype(float0)), _dtype_name(np.dtype("int32"))
        ("[('float0', 'V')]", 'int32')
    """
    return str(np.dtype(float0)) if dtype == float0 else dtype.name


def _tangent_input_aval(t):
    if _is_float0(t):
        return ShapedArray(t.shape, np.float32)
    return get_aval(t)


# ------------------------------------------------------------------ functions over pytrees
# (jvp's, linearize's and vjp's, with has_aux)
def _flatten_fun(fun, in_tree, has_aux):
    """(flat fun, getter of (output treedef, `(aux,)` with has_aux else `()`)); aux comes
    back as values, not the differentiating trace's tracers, and is rebuilt from its leaves
    by the getter, after that trace has ended (as JAX unflattens it: objects it rebuilds,
    such as Flax NNX's Variables, belong to the caller's trace)."""
    if not has_aux:
        flat, out_tree = flatten_fun(fun, in_tree)
        return flat, lambda: (out_tree(), ())
    flat, out_info = flatten_fun(lambda *args: _with_aux_values(fun(*args)), in_tree, True)

    def info():
        out_tree, (aux_leaves, aux_tree) = out_info()
        return out_tree, (tree_unflatten(aux_tree, aux_leaves),)
    return flat, info


def _with_aux_values(out):
    out, aux = split_aux(out)
    leaves, aux_tree = tree_flatten(aux)
    return out, (_aux_values(leaves), aux_tree)


# ------------------------------------------------------------------ jaxpr-level rule
_jvp_jaxprs = WeakLRU(TRACES)   # weakly by the ClosedJaxpr, as JAX's weakref_lru_cache


def jvp_jaxpr(closed: ClosedJaxpr, nonzeros, instantiate=False) -> tuple:
    """(jaxpr mapping primals + nonzero tangents to primal outs + tangent outs, out nonzeros).
    Zero output tangents are left out of the outputs (flagged False), unless `instantiate`
    (a bool, or one per output) asks for them as real zeros."""
    n_out = len(closed.out_avals)
    inst = tuple(instantiate) if isinstance(instantiate, (list, tuple)) else (instantiate,) * n_out
    key = (closed, (tuple(nonzeros), inst))
    found = _jvp_jaxprs.get(key)
    if found is not None:
        return found
    n = len(closed.in_avals)
    # a tangent has its primal's type, weak type included, as in JAX (an extended dtype's:
    # its rules' tangent dtype)
    tangent_avals = [a.to_tangent_aval() for a, nz in zip(closed.in_avals, nonzeros) if nz]
    out_nonzeros = []

    def fun(*args):
        primals, tangent_iter = args[:n], iter(args[n:])
        tangents = [next(tangent_iter) if nz else Zero(a)
                    for a, nz in zip(closed.in_avals, nonzeros)]
        p_out, t_out = jvp_flat(lambda *xs: eval_jaxpr(closed.jaxpr, closed.consts, *xs),
                                primals, tangents, transform_stack=False)
        t_out = [instantiate_zeros(t) if force and type(t) is Zero else t
                 for t, force in zip(t_out, inst)]
        out_nonzeros.extend(type(t) is not Zero for t in t_out)
        return list(p_out) + [t for t in t_out if type(t) is not Zero]

    jaxpr = trace_to_jaxpr(fun, list(closed.in_avals) + tangent_avals)
    found = (jaxpr, tuple(out_nonzeros))
    if not any(isinstance(c, Tracer) for c in closed.consts):
        _jvp_jaxprs[key] = found
    return found
