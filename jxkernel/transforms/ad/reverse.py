"""Reverse mode: `vjp` (linearize, then transpose the linear jaxpr on the cotangent the
pullback is given), `value_and_grad` and `grad` (vjp with a cotangent of one), with JAX's
checks of their inputs, outputs and cotangents.

    >>> grad(lambda x: x ** 3)(2.0)
    Array(12., dtype=float32, weak_type=True)
"""
from __future__ import annotations

import collections
import itertools
import sys
import weakref

import numpy as np

from ...core.traceback_util import api_boundary
from ...core import dtypes
from ...core.avals import abstract_token, get_aval
from ...core.errors import jax_type_text
from ...core.interpreter_primitives import convert_element_type
from ...core.interpreter_primitives import reshard as _reshard
from ...core.mesh import NamedSharding, PartitionSpec
from ...core.source_info import function_source_info, learner_frame
from ...core.staging import is_ref
from ...core.trace import Tracer
from ..ad_util import Zero, float0, instantiate
from ...tree_util import equality_errors_pytreedef, keystr, tree_flatten, tree_unflatten
from ..api_util import (argnums_in_range, check_callable, ensure_index, partial_over,
                        wraps)
from .forward import _flatten_fun, _tangent_aval
from .linearization import _pinned_primal, linearize_flat
from .transposition import backward_pass
from .pullback import VJP, NotNeeded


@api_boundary
def vjp(fun, *primals, has_aux=False):
    """(fun(*primals), vjp_fn): vjp_fn(cotangent) gives the cotangents of the primals.

    >>> y, f_vjp = vjp(jnp.sin, 0.0)
    >>> f_vjp(1.0)
    (Array(1., dtype=float32, weak_type=True),)
    """
    check_callable(fun)
    p_leaves, p_tree = tree_flatten(primals)
    if any(map(is_ref, p_leaves)):
        return _vjp_with_refs(fun, p_leaves, p_tree, has_aux)
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

    pullback.jaxpr = jaxpr              # (VJP.jaxpr, as JAX's: the linear program)
    residuals, args_res, slots = _input_residuals(list(linear.consts), p_tree, p_leaves)
    vjp_fn = VJP(pullback, residuals, getattr(fun, "__name__", "fun"), args_res, slots)
    return (tree_unflatten(out_tree, primal_out), vjp_fn) + aux


def _vjp_with_refs(fun, p_leaves, p_tree, has_aux):
    """vjp of `fun` at primals some of which are Refs: `fun` runs on them as given (reading
    and writing them, as JAX's vjp runs it), differentiated with respect to the others. Its
    vjp function refuses to give the Refs' cotangents, as JAX 0.10.2's fails there."""
    refs = [i for i, p in enumerate(p_leaves) if is_ref(p)]

    def closing(*rest):
        rest = iter(rest)
        return fun(*tree_unflatten(p_tree, [p_leaves[i] if i in refs else next(rest)
                                            for i in range(len(p_leaves))]))
    closing.__name__ = getattr(fun, "__name__", "fun")
    # differentiated values written into them keep their primal, as new_ref's
    # kind="no_grad_no_remat" (api/state.py): their tangents are no one's to read, the vjp
    # function giving none
    kinds = [(p_leaves[i], getattr(p_leaves[i], "_kind", None)) for i in refs
             if hasattr(p_leaves[i], "_kind")]
    for ref, _ in kinds:
        ref._kind = "no_grad_no_remat"
    try:
        out, _, *aux = vjp(closing, *[p for i, p in enumerate(p_leaves) if i not in refs],
                           has_aux=has_aux)
    finally:
        for ref, kind in kinds:
            ref._kind = kind

    def vjp_fn(*_):
        raise ValueError(
            f"this vjp function cannot give a cotangent for the Ref passed as primal leaf "
            f"{refs[0]} (of type {p_leaves[refs[0]].aval}): JAX 0.10.2's fails there too "
            f"(\"Expected cotangent type {p_leaves[refs[0]].aval} but got ...\"). Differentiate "
            f"with respect to the other arguments (jax.grad's argnums, or jax.vjp of a "
            f"function closing over the Ref).")
    return (out, vjp_fn, *aux)


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


def _check_grad_input(aval, allow_int, holomorphic, name):
    if aval is abstract_token:      # (no dtype in JAX's: the function's own check refuses it)
        return
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
        # JAX's words alone: the notebook's card gives jacrev, the sum and vmap(grad) there
        raise TypeError(f"Gradient only defined for scalar-output functions. Output had shape: "
                        f"{aval.shape}.")
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


def grad_input_aval(leaf):
    """The aval of an input grad (jacrev, jacfwd) differentiates; a value of no JAX type (a
    str, an object of an unregistered class) worded as JAX 0.10.2's input checks word it (its
    dtypes.dtype): the type unquoted, a full stop (vmap's and jit's words quote it)."""
    try:
        aval = get_aval(leaf)
    except TypeError as e:
        if "is not a valid JAX type" not in str(e):
            raise
        raise TypeError(f"Argument '{leaf}' of type {jax_type_text(leaf)} is not a valid JAX "
                        f"type.") from None
    if dtypes.is_string(getattr(aval, "dtype", None)):     # (a StringDType Array: no math)
        raise TypeError(f"Argument '{leaf}' of type {jax_type_text(leaf)} is not a valid JAX "
                        f"type.")
    return aval


def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False,
                   reduce_axes=()):
    """A function returning (fun(*args), the gradient w.r.t. args[argnums])."""
    check_callable(fun)     # at once, as JAX: grad(3) fails where it is written
    argnums = ensure_index(argnums)     # (so does argnums=1.5, in Python's words, as JAX's)
    @wraps(fun, docstr=_VALUE_AND_GRAD_DOC, argnums=argnums)
    @api_boundary
    def value_and_grad_f(*args, **kwargs):
        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        if any(not -len(args) <= i < len(args) for i in nums):     # grad's words, as JAX's
            raise TypeError(f"differentiating with respect to argnums={argnums} requires at "
                            f"least {max(nums) + 1} positional arguments to be passed by the "
                            f"caller, but got only {len(args)} positional arguments.")
        partial_fun, dyn = partial_over(fun, argnums_in_range(nums, len(args)), args, kwargs)
        for leaf in tree_flatten(dyn)[0]:
            _check_grad_input(grad_input_aval(leaf), allow_int, holomorphic, "grad")

        if has_aux:
            out, f_vjp, aux = vjp(partial_fun, *dyn, has_aux=True)
        else:
            out, f_vjp = vjp(partial_fun, *dyn)
        _check_scalar_output(out, "grad", holomorphic)
        grads = f_vjp(_one(get_aval(out)))
        g = grads[0] if isinstance(argnums, int) else grads
        if grad_calls is not None:
            _record_grad(value_and_grad_f, args, kwargs, out, g)
        return ((out, aux), g) if has_aux else (out, g)
    made_by[value_and_grad_f] = ("value_and_grad", fun, argnums, has_aux)
    return value_and_grad_f


# What each function grad and value_and_grad returned differentiates: (the api, fun, argnums,
# has_aux). An error card reads it to rewrite a call of `g = jax.grad(f, argnums=1)` made
# earlier, `g(xs)`, as `jax.jacrev(f, argnums=1)(xs)` (views/error_cards/grad.py); JAX's
# functions keep no such record. Weak: an entry goes with its function.
made_by: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


# The gradients the user's lines computed, while the notebook looks for NaN in them
# (notebook/notes/nan_notes.py sets a short deque, gradient_calls.py's, and reads and clears it
# after each cell; None: nothing is recorded): outside any trace, appended as (value_and_grad's
# function, args, kwargs, the value, the gradient, the user's (file, line) that asked); under a
# trace (jit's, vmap's), the same given to its `traced`, tracers among them (it keeps what
# stands for their values, never a tracer: a jitted function's values, only its program has).
grad_calls: collections.deque | None = None


def _record_grad(vg, args, kwargs, out, g) -> None:
    """Adds a gradient to grad_calls, at the learner's own line that asked for it, past a
    library's (`nnx.value_and_grad(loss_fn)(model, x)` in a cell: Flax's autodiff.py calls
    value_and_grad); none where no line of the learner's did."""
    frame = learner_frame(sys._getframe(2))
    if frame is None:
        return
    call = (vg, args, kwargs, out, g, (frame.f_code.co_filename, frame.f_lineno))
    if any(isinstance(leaf, Tracer) for leaf in tree_flatten((out, g))[0]):
        grad_calls.traced(call)
    else:
        grad_calls.append(call)


def grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False, reduce_axes=()):
    """The gradient of scalar-valued `fun` w.r.t. args[argnums].

    >>> grad(lambda x: x ** 3)(2.0)
    Array(12., dtype=float32, weak_type=True)
    """
    vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

    @wraps(fun, docstr=_GRAD_DOC, argnums=argnums)
    @api_boundary
    def grad_f(*args, **kwargs):
        if has_aux:
            (_, aux), g = vg(*args, **kwargs)
            return g, aux
        return vg(*args, **kwargs)[1]
    made_by[grad_f] = ("grad", fun, argnums, has_aux)
    return grad_f


def _one(aval):
    """grad's seed: a 1 of the output's type; over a mesh with Explicit axes laid out as the
    output's type says (replicated: the output is a scalar), as JAX's lax._one."""
    one = convert_element_type(np.ones((), aval.dtype), aval.dtype, aval.weak_type)
    if aval.split is None:
        return one
    mesh = aval.split.mesh
    # typed as the output's cotangent (JAX's _one_vjp): unreduced where it is reduced
    ct = aval.to_ct_aval().split.spec
    return _reshard(one, NamedSharding(getattr(mesh, "abstract_mesh", mesh),
                                       PartitionSpec(unreduced=ct.unreduced, reduced=ct.reduced)))
