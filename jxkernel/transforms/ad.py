"""Automatic differentiation: forward mode by JVP, reverse mode by linearize + transpose.

    >>> grad(lambda x: jnp.sin(x) * x)(1.0)
    Array(1.3817732, dtype=float32, weak_type=True)

- `JVPTrace` carries (primal, tangent) pairs; each primitive's jvp rule (in lax/)
  maps them forward. Traces have identities, so nested derivatives of the same
  kind never confuse their tangents (`grad(lambda x: grad(lambda y: x * y)(1.))(1.)`).
- `linearize` runs the JVP inside a `PartialEvalTrace` where tangents are unknown:
  the primal computation runs, the tangent computation is staged as a linear jaxpr.
- `vjp` transposes that linear jaxpr (`backward_pass`), walking it backwards with
  each primitive's transpose rule. `grad` is vjp with a cotangent of one.
"""
from __future__ import annotations

import dataclasses
import functools
import itertools

import numpy as np

from ..core import dtypes
from ..core.avals import ShapedArray, get_aval, shaped_abstractify
from ..core.dce import dce_closed
from ..core.interpret import eval_jaxpr, literal_operand
from ..core.interpreter_primitives import convert_element_type, reshard_p
from ..core.mesh import NamedSharding, PartitionSpec
from ..core.ir import ClosedJaxpr, Jaxpr, Literal, Var
from ..core.literals import typed_scalar
from ..core.lru import TRACES, WeakLRU
from ..core.primitive import rule as _rule
from ..core.source_info import (current_names, function_source_info, name_scope, replay,
                                replaying)
from ..core.trace import Trace, Tracer, current_trace, new_trace, set_current_trace, value_text
from .ad_util import UndefinedPrimal, Zero, add_tangents, bilinear, float0, instantiate

instantiate_zeros = instantiate
from ..tree_util import (Partial, equality_errors_pytreedef, keystr, register_dataclass,
                         register_pytree_node, tree_flatten, tree_map, tree_unflatten)
from .jit_refs import is_ref
from .api_util import flatten_fun, split_aux, wraps
from ..core.partial_eval import PartialEvalTrace
from ..core.staging import trace_to_jaxpr


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
            return f"GradTracer(primal={primal}, typeof(tangent)={tangent.aval.str_short()})"
        return f"JVPTracer(primal={primal}, tangent={value_text(tangent)})"


class JVPTracer(DualTracer):
    __slots__ = ()


class LinearizeTracer(DualTracer):
    # JAX's type under grad (code that tells jvp from grad by the tracer's type sees it)
    __slots__ = ()


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


def jvp(fun, primals, tangents, has_aux=False):
    """(fun(*primals), the directional derivative along `tangents`).

    >>> jvp(jnp.sin, (0.0,), (1.0,))
    (Array(0., dtype=float32, weak_type=True), Array(1., dtype=float32, weak_type=True))
    """
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
        if pa.shape != ta.shape:
            raise ValueError(f"jvp called with different primal and tangent shapes; got primal "
                             f"shape {pa.shape} and tangent shape as {ta.shape}")
        # an integer or boolean primal's tangent is float0 (JAX refuses an int or float one)
        expected = pa.dtype if dtypes.is_inexact(pa.dtype) else np.dtype(float0)
        if expected != t_dtype:
            raise TypeError(f"primal and tangent arguments to jax.jvp do not match; dtypes must "
                            f"be equal, or in case of int/bool primal dtype the tangent dtype "
                            f"must be float0. Got primal dtype {_dtype_name(pa.dtype)} and so "
                            f"expected tangent dtype {_dtype_name(expected)}, but got tangent "
                            f"dtype {_dtype_name(t_dtype)} instead.")
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
    return "float0" if dtype == float0 else dtype.name


def _tangent_input_aval(t):
    if _is_float0(t):
        return ShapedArray(t.shape, np.float32)
    return get_aval(t)


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


def linearize(fun, *primals, has_aux=False):
    """(fun(*primals), f_jvp): f_jvp(*tangents) is the JVP at primals, reusing residuals."""
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
    if (tangent.shape, tangent.dtype) != (expected.shape, expected.dtype):
        raise ValueError(f"linearized function called on tangent values inconsistent with the "
                         f"original primal values:\nGot tangent aval {tangent} for primal aval "
                         f"{primal} but expected {expected}.")


# ------------------------------------------------------------------ transposition
# Primitives whose transpose runs even when every cotangent reaching it is zero: a custom
# VJP's `bwd` may return what it likes whatever its cotangents (Flax's fp8 layers return their
# updated statistics as the "gradient" of the history input), and JAX calls it with the zeros
# instantiated. Others are skipped: their cotangents would all be zero.
always_transposed: set = set()


def backward_pass(jaxpr: Jaxpr, consts, linear, nonlinear_args, cotangents_out,
                  transform_stack=True, linear_avals=None, unwanted=frozenset()) -> list:
    """Cotangents of `jaxpr`'s inputs flagged `linear`, given its outputs' cotangents and the
    values of the other inputs (`nonlinear_args`, in order); None for non-linear inputs.

    Equations with no linear input (they only compute from residuals) run forward first.
    What each step records is named under the equation's own name stack, the transposed
    ones under `transpose` first (`jit(f)/transpose(jvp())/mul`), as JAX's backward pass
    names them, unless `transform_stack` is False (a jaxpr-level transpose: a jit's, a loop's).
    `linear_avals` (one per input, None: the input's own): the type a linear input's
    transpose rules see, as JAX's accumulators carry it (a scan's carry: its cotangent's type,
    so that the transpose of a weak carry's convert_element_type converts to the strong type
    it already has, and stages nothing). `unwanted`: linear inputs whose cotangent no one
    reads (`VJP.with_refs(DontWant())`): a bilinear equation's transpose into one of them is
    skipped, as JAX's NullAccum skips it (x * y: y's cotangent alone is computed).
    """
    primal_env: dict = dict(zip(jaxpr.constvars, consts))
    undefined = {v: a for v, a in zip(jaxpr.invars, linear_avals) if a is not None} \
        if linear_avals is not None else {}
    linear_vars = set()
    nonlinear_inputs = iter(nonlinear_args)
    flags = linear
    for v, is_linear in zip(jaxpr.invars, flags):
        if is_linear:
            linear_vars.add(v)
        else:
            primal_env[v] = next(nonlinear_inputs)

    def read_primal(atom):
        if type(atom) is Literal:
            return literal_operand(atom)
        if atom in linear_vars:
            return UndefinedPrimal(undefined.get(atom, atom.aval))
        return primal_env[atom]

    # the equations each step records get the line of the equation it runs or transposes, as
    # JAX's backward pass does (else the frame running the transformation: an IPython magic's)
    outer = replaying.source_info
    outer_names = current_names()
    transposed_names = (*outer_names, "transpose(") if transform_stack else outer_names
    try:
        linear_eqns = []
        for eqn in jaxpr.eqns:
            if any(type(a) is Var and a in linear_vars for a in eqn.invars):
                linear_vars.update(eqn.outvars)
                linear_eqns.append(eqn)
            else:
                replay(eqn.source_info, outer, outer_names)
                outs = eqn.primitive.bind(*map(read_primal, eqn.invars), **eqn.params)
                primal_env.update(zip(eqn.outvars,
                                      outs if eqn.primitive.multiple_results else [outs]))

        ct_env: dict = {}

        def write_ct(v, ct):
            if type(v) is not Var or type(ct) is Zero or ct is None or v not in linear_vars:
                return
            ct_env[v] = add_tangents(ct_env[v], ct) if v in ct_env else ct

        for v, ct in zip(jaxpr.outvars, cotangents_out):
            write_ct(v, ct)
        for eqn in reversed(linear_eqns):
            cts_out = [ct_env.pop(v, Zero(v.aval)) for v in eqn.outvars]
            if all(type(c) is Zero for c in cts_out) and eqn.primitive not in always_transposed:
                continue
            if eqn.primitive in bilinear and any(type(v) is Var and v in unwanted
                                                 for v in eqn.invars):
                continue
            invals = list(map(read_primal, eqn.invars))
            ct_arg = cts_out if eqn.primitive.multiple_results else cts_out[0]
            replay(eqn.source_info, outer, transposed_names)
            cts_in = _rule("transpose", eqn.primitive)(ct_arg, *invals, **eqn.params)
            for v, ct in zip(eqn.invars, cts_in):
                write_ct(v, ct)
        return [ct_env.pop(v, Zero(v.aval)) if is_linear else None
                for v, is_linear in zip(jaxpr.invars, flags)]
    finally:
        replay(None, outer, outer_names)


# ------------------------------------------------------------------ vjp, grad
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


def vjp(fun, *primals, has_aux=False):
    """(fun(*primals), vjp_fn): vjp_fn(cotangent) gives the cotangents of the primals.

    >>> y, f_vjp = vjp(jnp.sin, 0.0)
    >>> f_vjp(1.0)
    (Array(1., dtype=float32, weak_type=True),)
    """
    p_leaves, p_tree = tree_flatten(primals)
    in_avals = [get_aval(p) for p in p_leaves]
    # pinned here, so that a residual that is an input is that very object (args_res)
    p_leaves = [_pinned_primal(p, a) for p, a in zip(p_leaves, in_avals)]
    flat, out_info = _flatten_fun(fun, p_tree, has_aux)
    primal_out, linear, differentiable = linearize_flat(flat, p_leaves)
    out_tree, aux = out_info()
    out_avals = [_tangent_aval(p) for p in primal_out]
    # the pullback holds the linear jaxpr alone: its constants (the residuals, tracers where
    # vjp ran inside a jit) are the VJP's leaves, not held by its structure (a leak else)
    jaxpr = linear.jaxpr

    def pullback(residuals, ct, dont_want=()):
        """The primals' cotangents; `dont_want` (per primal leaf, VJP.with_refs's DontWant):
        those whose cotangent is not wanted, left out of the backward pass where it can."""
        ct_leaves, ct_tree = tree_flatten(ct)
        if ct_tree != out_tree:
            _ct_tree_error(fun, out_tree, ct_tree)
        checked = []
        for c, a in zip(ct_leaves, out_avals):
            # (a float0 array has no aval: its own dtype and shape)
            _check_ct_aval(c if getattr(c, "dtype", None) == float0 else get_aval(c), a)
            # an integer/bool output has no tangent: whatever its cotangent holds is zero
            checked.append(c if dtypes.has_tangent(a.dtype) else Zero(a))
        unwanted = frozenset(itertools.compress(jaxpr.invars, [
            n for n, d in zip(dont_want, differentiable) if d]))
        cts = backward_pass(jaxpr, residuals, [True] * len(jaxpr.invars), [], checked,
                            unwanted=unwanted)
        cts = iter(cts)
        result = []
        for aval, d, skip in itertools.zip_longest(in_avals, differentiable, dont_want[
                :len(in_avals)]):
            if d:           # as the backward pass gave it: JAX casts no cotangent (a custom
                # bwd's float32 one for a bfloat16 input stays float32); an unwanted one as
                # it came (JAX's DidntWant instantiates no zeros)
                ct = next(cts)
                result.append(ct if skip else instantiate(ct))
            else:
                result.append(np.zeros(aval.shape, float0))
        return tree_unflatten(p_tree, result)

    residuals, args_res, slots = _input_residuals(list(linear.consts), p_tree, p_leaves)
    vjp_fn = VJP(pullback, residuals, getattr(fun, "__name__", "fun"), args_res, slots)
    return (tree_unflatten(out_tree, primal_out), vjp_fn) + aux


def _input_residuals(residuals, p_tree, p_leaves) -> tuple:
    """The residuals that are inputs themselves, apart (JAX's `args_res`: a user may drop
    them from the VJP while it waits and hand them back before calling it): (the residuals,
    None where an input's; per argument its leaves as tuples, as JAX's `tuptree_map`, each the
    pinned input or NotNeeded() where the backward pass reads none of it; (residual index,
    input leaf) per input residual)."""
    where = {id(p): i for i, p in enumerate(p_leaves)}
    slots = []
    for j, r in enumerate(residuals):
        i = where.get(id(r))
        if i is not None and p_leaves[i] is r:
            slots.append((j, i))
            residuals[j] = None
    used = {i for _, i in slots}
    marked = [x if i in used else NotNeeded() for i, x in enumerate(p_leaves)]
    args_res = list(p_tree.walk(lambda xs, _: tuple(xs), lambda x: x, marked))
    return residuals, args_res, tuple(slots)


class VJP:
    """The pullback `vjp` returns: `f_vjp(cotangent)`. A pytree whose leaves are the residuals
    (and whose structure holds the linear program), so it passes through `jit` as an argument.

    >>> y, f_vjp = jax.vjp(lambda x: x * x, 3.0)
    >>> jax.jit(lambda f, ct: f(ct))(f_vjp, 1.0)
    (Array(6., dtype=float32, weak_type=True),)
    """
    # args_res: the inputs that are residuals, per argument (NotNeeded() where none is): as
    # JAX's, settable (`f_vjp.args_res = [None, None]` frees them while the VJP waits; they
    # are set back before it is called); `_slots` says where each goes among the residuals
    __slots__ = ("_pullback", "residuals", "_name", "args_res", "_slots",
                 "__weakref__")   # (jit holds it weakly)

    def __init__(self, pullback, residuals, name, args_res=(), slots=()):
        self._pullback, self.residuals, self._name = pullback, residuals, name
        self.args_res, self._slots = list(args_res), slots

    @property
    def opaque_residuals(self) -> list:
        """The residuals that are not inputs (JAX's name): what the VJP itself keeps."""
        taken = {j for j, _ in self._slots}
        return [r for j, r in enumerate(self.residuals) if j not in taken]

    def _all_residuals(self) -> list:
        full = list(self.residuals)
        # the inputs as JAX reads them back: the leaves of args_res, NotNeeded() as a leaf
        inputs = tree_flatten(self.args_res, is_leaf=lambda x: isinstance(x, NotNeeded))[0]
        for j, i in self._slots:
            if i >= len(inputs) or isinstance(inputs[i], NotNeeded):
                raise ValueError(f"The VJP's args_res is {self.args_res!r}: set each argument "
                                 f"back to its primal input before calling the VJP function.")
            full[j] = inputs[i]
        return full

    def __call__(self, ct, *extra):
        if extra:
            raise TypeError(
                f"The function returned by `jax.vjp` applied to {self._name} was called with "
                f"{len(extra) + 1} arguments, but functions returned by `jax.vjp` must be called "
                f"with a single argument corresponding to the single value returned by the "
                f"function being differentiated (even if that returned value is a tuple or other "
                f"container): call f_vjp((ct1, ct2)), not f_vjp(ct1, ct2).")
        return self._pullback(self._all_residuals(), ct)

    def _call_wanting(self, ct, dont_want):
        """self(ct), the cotangents flagged in `dont_want` (per primal leaf) not computed."""
        return self._pullback(self._all_residuals(), ct, dont_want)

    def with_refs(self, *maybe_ct_refs):
        """The pullback, taking per primal where its cotangent goes: `GradValue()` (returned,
        the default), `DontWant()` (not wanted: `DidntWant()` comes back) or a Ref (the
        cotangent added into it: `GradRef()` comes back), as JAX's `jax.ad` classes say.

        >>> _, f_vjp = jax.vjp(lambda x, y: x * y, 2.0, 3.0)
        >>> f_vjp.with_refs(jax.ad.GradValue(), jax.ad.DontWant())(1.0)
        (Array(3., dtype=float32, weak_type=True), DidntWant())
        """
        return Partial(_pullback_into, self, maybe_ct_refs)

    def __repr__(self):
        return f"VJP(fun={self._name}, residuals={len(self.residuals)})"


# ------------------------------------------------------------------ jax.ad
# Where a primal's cotangent goes in `VJP.with_refs` (JAX's classes of jax/_src/api.py): as a
# value (GradValue), nowhere (DontWant, answered by DidntWant) or into a Ref (GradRef back).
@dataclasses.dataclass(frozen=True, slots=True)
class GradValue:
    pass


@dataclasses.dataclass(frozen=True, slots=True)
class DontWant:
    pass


@register_dataclass
@dataclasses.dataclass(frozen=True, slots=True)
class GradRef:
    pass


@register_dataclass
@dataclasses.dataclass(frozen=True, slots=True)
class DidntWant:
    pass


@register_dataclass
@dataclasses.dataclass(frozen=True, slots=True)
class NotNeeded:
    """An argument of which the VJP keeps nothing (`f_vjp.args_res`), as JAX's api.NotNeeded."""


def _pullback_into(vjp_fn, maybe_ct_refs, ct):
    """vjp_fn(ct), each primal's cotangent sent where `maybe_ct_refs` says (VJP.with_refs)."""
    if not maybe_ct_refs:
        return vjp_fn(ct)
    wanted, wanted_tree = tree_flatten(maybe_ct_refs)
    dont_want = [isinstance(w, DontWant) for w in wanted]
    cts, in_tree = tree_flatten(vjp_fn._call_wanting(ct, dont_want) if any(dont_want)
                                else vjp_fn(ct))
    if wanted_tree != in_tree:
        raise Exception(f"vjp with_refs: expected a tree of the primals' structure {in_tree}, "
                        f"got {wanted_tree}")
    out = []
    for ct_leaf, want in zip(cts, wanted):
        if is_ref(want):
            want[...] = want[...] + ct_leaf        # accumulated, as JAX's RefAccum
            out.append(GradRef())
        else:
            out.append(DidntWant() if isinstance(want, DontWant) else ct_leaf)
    return tree_unflatten(in_tree, out)


register_pytree_node(VJP,
                     lambda v: ((v.residuals, v.args_res), (v._pullback, v._name, v._slots)),
                     lambda meta, kids: VJP(meta[0], list(kids[0]), meta[1], kids[1], meta[2]))


def _ct_tree_error(fun, out_tree, ct_tree):
    """JAX's error for a vjp function given a cotangent of another structure than the output."""
    info = function_source_info(fun)
    where = (f"{info.function} at {info.file}:{info.line}" if info is not None
             else getattr(fun, "__name__", "fun"))
    lines = "\n".join(f"  * out{keystr(path)} was a {thing1} in the original output, but a "
                      f"{thing2} here, so {explanation}."
                      for path, thing1, thing2, explanation
                      in equality_errors_pytreedef(out_tree, ct_tree))
    raise ValueError(f"unexpected tree structure.\n\nThe argument to a VJP function returned by "
                     f"`jax.vjp` must match the pytree\nstructure of the differentiated function "
                     f"{where}.\n\nBut the tree structures differ:\n{lines}")


def _check_ct_aval(ct_aval, out_aval):        # ct_aval: an aval, or a float0 array
    """JAX's check of one cotangent: the output's shape, and its dtype, or any dtype where
    the output is an integer or bool (its cotangent type is float0)."""
    expected_dtype = out_aval.to_tangent_aval().dtype if dtypes.has_tangent(out_aval.dtype) \
        else float0
    if ct_aval.shape == out_aval.shape and (expected_dtype == float0
                                            or ct_aval.dtype == expected_dtype):
        return
    text = lambda dtype, shape: (f"{'float0' if dtype == float0 else np.dtype(dtype).name}"
                                 f"[{','.join(map(str, shape))}]")
    raise ValueError(f"unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
                     f"{text(ct_aval.dtype, ct_aval.shape)}, but expected "
                     f"{text(expected_dtype, out_aval.shape)} because the corresponding output "
                     f"of the differentiated function had JAX type "
                     f"{text(out_aval.dtype, out_aval.shape)}")


def _cast_like(ct, aval):
    """A cotangent with its primal's dtype. Its weak type is what the backward computation
    gave (as in JAX: the gradient of |z|^2 at a Python complex is strong, real_p's transpose
    building it from a strong zero)."""
    ct_aval = get_aval(ct)
    if ct_aval.dtype == aval.dtype:
        return ct
    return convert_element_type(ct, aval.dtype, ct_aval.weak_type)


def _check_grad_input(aval, allow_int, holomorphic, name):
    if holomorphic:
        if not dtypes.is_complex(aval.dtype):
            raise TypeError(f"{name} with holomorphic=True requires inputs with complex dtype, "
                            f"but got {aval.dtype.name}.")
    elif not dtypes.is_inexact(aval.dtype) and not allow_int:
        raise TypeError(f"{name} requires real- or complex-valued inputs (input dtype that is a "
                        f"sub-dtype of np.inexact), but got {aval.dtype.name}. If you want to use "
                        f"Boolean- or integer-valued inputs, use vjp or set allow_int to True.")


def _check_scalar_output(out, name, holomorphic):
    try:
        aval = get_aval(out)
    except TypeError as e:          # a tuple, a dict, None: JAX's words
        error = TypeError(f"Gradient only defined for scalar-output functions. Output was "
                          f"{out!r}.")
        error.output = out          # the notebook's error card reads what it was
        raise error from e
    if aval.shape:
        raise TypeError(f"Gradient only defined for scalar-output functions. Output had shape: "
                        f"{aval.shape}.\nFor non-scalar outputs use jacrev / jacfwd (the Jacobian) "
                        f"or vjp with a cotangent of that shape.")
    check_output_dtype(name, holomorphic, aval)


def check_output_dtype(name, holomorphic, aval):
    """The output checks of reverse-mode derivatives (grad, jacrev), JAX's words."""
    if holomorphic:
        if not dtypes.is_complex(aval.dtype):
            raise TypeError(f"{name} with holomorphic=True requires outputs with complex dtype, "
                            f"but got {aval.dtype.name}.")
    elif dtypes.is_complex(aval.dtype):
        raise TypeError(f"{name} requires real-valued outputs (output dtype that is a "
                        f"sub-dtype of np.floating), but got {aval.dtype.name}. For "
                        f"holomorphic differentiation, pass holomorphic=True. For "
                        f"differentiation of non-holomorphic functions involving complex "
                        f"outputs, use jax.vjp directly.")
    elif not dtypes.is_float(aval.dtype):
        raise TypeError(f"{name} requires real-valued outputs (output dtype that is a sub-dtype "
                        f"of np.floating), but got {aval.dtype.name}. For differentiation of "
                        f"functions with integer outputs, use jax.vjp directly.")


_GRAD_DOC = ("Gradient of {fun} with respect to positional argument(s) {argnums}. Takes the "
             "same arguments as {fun} but returns the gradient, which has the same shape as "
             "the arguments at positions {argnums}.")
_VALUE_AND_GRAD_DOC = (
    "Value and gradient of {fun} with respect to positional argument(s) {argnums}. Takes the "
    "same arguments as {fun} but returns a two-element tuple where the first element is the "
    "value of {fun} and the second element is the gradient, which has the same shape as the "
    "arguments at positions {argnums}.")


def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False,
                   reduce_axes=()):
    """A function returning (fun(*args), the gradient w.r.t. args[argnums])."""
    @wraps(fun, docstr=_VALUE_AND_GRAD_DOC, argnums=argnums)
    def value_and_grad_f(*args, **kwargs):
        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        for i in nums:
            if not -len(args) <= i < len(args):
                raise TypeError(f"differentiating with respect to argnums={argnums} requires at "
                                f"least {max(nums) + 1} positional arguments to be passed by the "
                                f"caller, but got only {len(args)} positional arguments.")
        nums = tuple(i % len(args) for i in nums)
        dyn = tuple(args[i] for i in nums)
        for leaf in tree_flatten(dyn)[0]:
            _check_grad_input(get_aval(leaf), allow_int, holomorphic, "grad")

        def partial_fun(*dyn_args):
            full = list(args)
            for i, a in zip(nums, dyn_args):
                full[i] = a
            return fun(*full, **kwargs)

        if has_aux:
            out, f_vjp, aux = vjp(partial_fun, *dyn, has_aux=True)
        else:
            out, f_vjp = vjp(partial_fun, *dyn)
        _check_scalar_output(out, "grad", holomorphic)
        grads = f_vjp(_one(get_aval(out)))
        g = grads[0] if isinstance(argnums, int) else grads
        return ((out, aux), g) if has_aux else (out, g)
    return value_and_grad_f


def grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False, reduce_axes=()):
    """The gradient of scalar-valued `fun` w.r.t. args[argnums].

    >>> grad(lambda x: x ** 3)(2.0)
    Array(12., dtype=float32, weak_type=True)
    """
    vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

    @wraps(fun, docstr=_GRAD_DOC, argnums=argnums)
    def grad_f(*args, **kwargs):
        if has_aux:
            (_, aux), g = vg(*args, **kwargs)
            return g, aux
        return vg(*args, **kwargs)[1]
    return grad_f


def _one(aval):
    """grad's seed: a 1 of the output's type; over a mesh with Explicit axes laid out as the
    output's type says (replicated: the output is a scalar), as JAX's lax._one."""
    one = convert_element_type(np.ones((), aval.dtype), aval.dtype, aval.weak_type)
    if aval.sharding is None:
        return one
    mesh = aval.sharding.mesh
    return reshard_p.bind(one, sharding=NamedSharding(getattr(mesh, "abstract_mesh", mesh),
                                                       PartitionSpec()))


# ------------------------------------------------------------------ jaxpr-level rules
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


_transposed_jaxprs = WeakLRU(TRACES)


def transpose_jaxpr(closed: ClosedJaxpr, linear, nonzero_cts=None) -> ClosedJaxpr:
    """A jaxpr mapping (non-linear inputs, output cotangents) to cotangents of the linear
    inputs (zeros instantiated). `nonzero_cts` (one flag per output, default all): the outputs
    whose cotangents it takes; the others' are symbolic zeros, so that what only they feed is
    not transposed (JAX's jit transpose prunes them so: an eigenvector's 1/(w_j - w_i) factor
    never multiplies a zero cotangent into NaN where eigenvalues repeat)."""
    nonzero_cts = (True,) * len(closed.out_avals) if nonzero_cts is None else tuple(nonzero_cts)
    key = (closed, (tuple(linear), nonzero_cts))
    found = _transposed_jaxprs.get(key)
    if found is not None:
        return found
    nonlin_avals = [a for a, lin in zip(closed.in_avals, linear) if not lin]
    lin_avals = [a for a, lin in zip(closed.in_avals, linear) if lin]
    ct_avals = [a for a, nz in zip(closed.out_avals, nonzero_cts) if nz]

    def fun(*args):
        nonlin, given = args[:len(nonlin_avals)], iter(args[len(nonlin_avals):])
        cts = [next(given) if nz else Zero(a) for a, nz in zip(closed.out_avals, nonzero_cts)]
        cts_in = backward_pass(closed.jaxpr, closed.consts, list(linear), list(nonlin), cts,
                               transform_stack=False)
        return [instantiate(c) if type(c) is Zero else c
                for c, lin in zip(cts_in, linear) if lin]

    found = trace_to_jaxpr(fun, nonlin_avals + ct_avals)
    for aval, out in zip(lin_avals, found.out_avals):
        assert aval.shape == out.shape, (aval, out)
    if not any(isinstance(c, Tracer) for c in closed.consts):
        _transposed_jaxprs[key] = found
    return found


# ------------------------------------------------------------------ linear_transpose
def linear_transpose(fun, *primals, reduce_axes=()):
    """The transpose of linear `fun` at input types of `primals`: a function mapping output
    cotangents to input cotangents (a tuple).

    >>> f_t = linear_transpose(lambda x: 2.0 * x, 1.0)
    >>> f_t(3.0)
    (Array(6., dtype=float32, weak_type=True),)
    """
    leaves, in_tree = tree_flatten(primals)
    # only types matter: avals and ShapeDtypeStructs do, as in JAX (Equinox passes avals)
    in_avals = [shaped_abstractify(x) for x in leaves]
    flat, out_tree = flatten_fun(fun, in_tree)
    # forward=False: JAX traces with partial evaluation, which keeps an identity
    # broadcast_in_dim; its transpose is a reduce_sum[axes=()] (jnp.linalg.solve's vecmat)
    closed = trace_to_jaxpr(flat, in_avals, forward=False)
    _check_transposable([a.dtype for a in in_avals], [a.dtype for a in closed.out_avals])
    # a Partial whose leaves are the constants, as JAX's: it passes in and out of jit
    return Partial(functools.partial(_transposed, closed.jaxpr, closed.out_avals, in_avals,
                                     in_tree, out_tree()), list(closed.consts))


def _check_transposable(in_dtypes, out_dtypes) -> None:
    """JAX's TypeError unless every input and output is inexact, or every one an integer."""
    every = in_dtypes + out_dtypes
    if not (all(dtypes.is_inexact(d) for d in every) or all(dtypes.is_int(d) for d in every)):
        raise TypeError(f"linear_transpose only supports [float or complex] -> [float or "
                        f"complex], and integer -> integer functions, but got {in_dtypes} -> "
                        f"{out_dtypes}.")


def _transposed(jaxpr, out_avals, in_avals, in_tree, out_tree, consts, *cotangents):
    """linear_transpose's function: the input cotangents of these output cotangents."""
    ct_leaves, ct_tree = tree_flatten(cotangents[0] if len(cotangents) == 1 else cotangents)
    if ct_tree != out_tree:
        raise TypeError(f"cotangent tree does not match function output, expected {out_tree} "
                        f"but got {ct_tree}")
    for c, a in zip(ct_leaves, out_avals):
        if get_aval(c).shape != a.shape or get_aval(c).dtype != a.dtype:
            raise TypeError(f"cotangent type does not match function output, expected "
                            f"{a.str_short()} but got {get_aval(c).str_short()}")
    cts = backward_pass(jaxpr, consts, [True] * len(in_avals), [], ct_leaves)
    return tree_unflatten(in_tree, [_cast_like(instantiate(c), a)
                                    for c, a in zip(cts, in_avals)])
