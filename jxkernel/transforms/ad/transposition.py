"""Transposition: `backward_pass` walks a linear jaxpr backwards with each primitive's
transpose rule; `transpose_jaxpr`, a jaxpr's transpose as a jaxpr (the transpose rule of
the primitives holding a jaxpr); and `linear_transpose`, the public function on it.

    >>> linear_transpose(lambda x: 2.0 * x, 1.0)(3.0)
    (Array(6., dtype=float32, weak_type=True),)
"""
from __future__ import annotations

import contextlib
import functools

from ...core.traceback_util import api_boundary
from ...core import dtypes
from ...core.avals import ShapedArray, get_aval, shaped_abstractify
from ...core.interpret import literal_operand
from ...core.interpreter_primitives import convert_element_type
from ...core.ir import ClosedJaxpr, Jaxpr, Literal, Var
from ...core.mesh import run_under_recorded_mesh
from ...core.lru import TRACES, WeakLRU
from ...core.name_stack import current_names, replay, replaying
from ...core.primitive import rule as _rule
from ...core.source_info import add_user_context
from ...core.trace import Tracer
from ..ad_util import UndefinedPrimal, Zero, add_tangents, bilinear, instantiate
from ...tree_util import Partial, tree_flatten, tree_unflatten
from ..api_util import flatten_fun
from ...core.staging import is_ref, ref_get, ref_set, trace_to_jaxpr


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

    # (an untyped linear value made under a recorded mesh with no Explicit axes, auto_axes'
    # body: its type names that mesh, as JAX's aval does, so a reshard out of it transposes
    # back into it)
    made_under: dict = {}

    def read_primal(atom):
        if type(atom) is Literal:
            return literal_operand(atom)
        if atom in linear_vars:
            aval = undefined.get(atom, atom.aval)
            mesh = made_under.get(atom)
            return UndefinedPrimal(aval if mesh is None or type(aval) is not ShapedArray
                                   else aval.over_mesh(mesh))
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
                if eqn.mesh is not None and eqn.mesh.axis_names and \
                        not eqn.mesh.explicit_axes:
                    made_under.update(dict.fromkeys(eqn.outvars, eqn.mesh))
            else:
                replay(eqn.source_info, outer, outer_names)
                with _recorded_mesh(eqn):
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
            cts_out = [ct_env.pop(v) if v in ct_env else Zero(_ct_aval(v.aval))
                       for v in eqn.outvars]
            if all(type(c) is Zero for c in cts_out) and eqn.primitive not in always_transposed:
                continue
            if eqn.primitive in bilinear and any(type(v) is Var and v in unwanted
                                                 for v in eqn.invars):
                continue
            invals = list(map(read_primal, eqn.invars))
            ct_arg = cts_out if eqn.primitive.multiple_results else cts_out[0]
            replay(eqn.source_info, outer, transposed_names)
            try:
                with _recorded_mesh(eqn):
                    cts_in = _rule("transpose", eqn.primitive)(ct_arg, *invals, **eqn.params)
            except (FloatingPointError, ZeroDivisionError) as e:
                # jax_debug_nans' error in the backward pass: its cause is where the user's
                # code made the equation, as JAX's backward pass attaches it
                add_user_context(e, eqn.source_info)
                raise
            for v, ct in zip(eqn.invars, cts_in):
                write_ct(v, ct)
        return [(ct_env.pop(v) if v in ct_env else Zero(_ct_aval(v.aval))) if is_linear else None
                for v, is_linear in zip(jaxpr.invars, flags)]
    finally:
        replay(None, outer, outer_names)


def _recorded_mesh(eqn):
    """The context `eqn` runs or is transposed in: the mesh it was recorded under, as JAX's
    backward pass enters `eqn.ctx.manager` (auto_axes' body is over its Auto mesh: eagerly,
    its gather's transpose, a scatter-add, is checked against that mesh, not set_mesh's)."""
    context = None if eqn.mesh is None else run_under_recorded_mesh(eqn.mesh)
    return contextlib.nullcontext() if context is None else context


# ------------------------------------------------------------------ jaxpr-level rule
_transposed_jaxprs = WeakLRU(TRACES)


def transpose_jaxpr(closed: ClosedJaxpr, linear, nonzero_cts=None,
                    refs: bool = False) -> ClosedJaxpr:
    """A jaxpr mapping (non-linear inputs, output cotangents) to cotangents of the linear
    inputs (zeros instantiated). `nonzero_cts` (one flag per output, default all): the outputs
    whose cotangents it takes; the others' are symbolic zeros, so that what only they feed is
    not transposed (JAX's jit transpose prunes them so: an eigenvector's 1/(w_j - w_i) factor
    never multiplies a zero cotangent into NaN where eigenvalues repeat). `refs`: a Ref made
    outside that a custom_vjp's bwd reads or writes is a const of the result, its final value
    one more output (`ref_writes`), for a consumer that binds it with `refs_as_values`."""
    nonzero_cts = (True,) * len(closed.out_avals) if nonzero_cts is None else tuple(nonzero_cts)
    key = (closed, (tuple(linear), nonzero_cts, refs))
    found = _transposed_jaxprs.get(key)
    if found is not None:
        return found
    nonlin_avals = [a for a, lin in zip(closed.in_avals, linear) if not lin]
    lin_avals = [a for a, lin in zip(closed.in_avals, linear) if lin]
    # (a cotangent's type: unreduced where the output is reduced and the other way round)
    ct_avals = [_ct_aval(a) for a, nz in zip(closed.out_avals, nonzero_cts) if nz]

    def fun(*args):
        nonlin, given = args[:len(nonlin_avals)], iter(args[len(nonlin_avals):])
        cts = [next(given) if nz else Zero(_ct_aval(a))
               for a, nz in zip(closed.out_avals, nonzero_cts)]
        cts_in = backward_pass(closed.jaxpr, closed.consts, list(linear), list(nonlin), cts,
                               transform_stack=False)
        return [instantiate(c) if type(c) is Zero else c
                for c, lin in zip(cts_in, linear) if lin]

    # ("lift": a Ref a custom_vjp's bwd writes, made outside, is a const whose final value is
    # one more output, `ref_writes`, which the consumer writes back, core/staging.py)
    found = trace_to_jaxpr(fun, nonlin_avals + ct_avals, ref_policy="lift" if refs else None)
    for aval, out in zip(lin_avals, found.out_avals):
        assert aval.shape == out.shape, (aval, out)
    if not any(isinstance(c, Tracer) or is_ref(c) for c in closed.consts + found.consts):
        _transposed_jaxprs[key] = found       # (a Ref's: each call's own)
    return found


def refs_as_values(closed: ClosedJaxpr) -> tuple:
    """(`closed` with each Ref among its consts replaced by the Ref's value where the caller
    runs, a function of its outputs writing the trailing ones, `ref_writes`'s, back into their
    Refs and returning the others): how a transposed jaxpr whose custom_vjp bwd wrote a Ref
    made outside (`transpose_jaxpr`'s "lift") is bound and its writes kept."""
    if not any(is_ref(c) for c in closed.consts):
        return closed, list
    plain = ClosedJaxpr(closed.jaxpr, [ref_get(c) if is_ref(c) else c for c in closed.consts])

    def written(outs):
        n = len(outs) - len(closed.ref_writes)
        for i, value in zip(closed.ref_writes, outs[n:]):
            ref_set(closed.consts[i], value)
        return list(outs[:n])
    return plain, written


def _ct_aval(aval):
    """`aval` with its unreduced and reduced axes swapped, as a cotangent's type has them
    (JAX's to_ct_aval; the dtype kept as jxkernel's transposes expect it)."""
    return aval.sets_swapped() if type(aval) is ShapedArray else aval


# ------------------------------------------------------------------ linear_transpose
@api_boundary
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
                            f"{a.str_short(True)} but got {get_aval(c).str_short(True)}")
    cts = backward_pass(jaxpr, consts, [True] * len(in_avals), [], ct_leaves)
    return tree_unflatten(in_tree, [_cast_like(instantiate(c), a)
                                    for c, a in zip(cts, in_avals)])


def _cast_like(ct, aval):
    """A cotangent with its primal's dtype. Its weak type is what the backward computation
    gave (as in JAX: the gradient of |z|^2 at a Python complex is strong, real_p's transpose
    building it from a strong zero)."""
    ct_aval = get_aval(ct)
    if ct_aval.dtype == aval.dtype:
        return ct
    return convert_element_type(ct, aval.dtype, ct_aval.weak_type)
