"""jxkernel.api.checkify, as jax._src.checkify (jax.experimental.checkify): run-time checks in
staged code, as values.

`check(pred, msg)` raises at once when run eagerly; inside `jit`, `scan`, ... it cannot raise,
so `checkify(f)` turns every check in `f` into an `Error` value returned beside `f`'s result
(JAX's functionalization), optionally adding automatic checks (NaNs, division by zero,
out-of-bounds indexing):

    >>> def f(x):
    ...     check(x > 0, "{x} needs to be positive!", x=x)
    ...     return 1 / x
    >>> err, out = jax.jit(checkify(f))(-3.0)
    >>> err.get()
    '-3.0 needs to be positive! (`check` failed)'

How, as JAX: `check` binds `check_p` with the error it makes (an eager `check_p` raises; a
staged one cannot be lowered). `checkify` traces `f` (closed over its arguments) to a jaxpr and
runs it again with an interpreter that threads an `Error` through the equations
(`checkify_jaxpr_flat`): `check_p` equations merge their error into it, the primitives of
`error_checks` add automatic checks, `jit`, `cond`, `scan` and `while` get bodies that take and
return the error, and the other primitives holding jaxprs (`checkpoint`, `custom_jvp_call`,
`custom_vjp_call`) have their body run through the interpreter where it has something to check.
An Error is a pytree: per kind of error (its `ErrorEffect`) a predicate, the code of the first
failing check and its payload (the values the message formats); each code's metadata (the
exception's pytree structure) rides as auxiliary data. The errors, the Error value and
`check_p` are checkify_errors.py's (this module's names, as JAX's are jax._src.checkify's);
here are the interpreter, the checks each primitive adds, and the public functions.
"""
from __future__ import annotations

import functools

import numpy as np

from .. import lax
from ..core.traceback_util import api_boundary
from .. import numpy as jnp
from ..core import dtypes
from ..core.avals import get_aval
from ..core.ir import ClosedJaxpr, Jaxpr, literal_value
from ..transforms.ad_util import Zero
from ..core.primitive import all_primitives
from ..core.interpret import read_atom
from ..core.source_info import creation_frames, installed_package, traced_source_info
from ..core.staging import convert_constvars_to_invars, trace_to_jaxpr
from ..core.trace import Tracer
from ..lax import cond, scan, slicing, while_loop  # noqa: F401  (primitives checked below)
from ..lax.cond import _bind_cond
from ..transforms import custom_derivatives, jit  # noqa: F401  (primitives checked below)
from ..transforms.jit.pinned import pin_of
from ..transforms.jit.primitive import _rebound
from ..tree_util import tree_flatten, tree_leaves, tree_map, tree_unflatten  # noqa: F401 (JAX's)
from ..xla.array import Array
from . import remat  # noqa: F401  (checkpoint_p, checked below)
from .checkify_errors import (  # noqa: F401  (all jax._src.checkify's names)
    BatchedError, DivisionByZeroError, Error, ErrorCategory, ErrorEffect, FailedCheckError,
    JaxException, JaxRuntimeError, NaNError, OOBError, _check_error, _reduce_any_error,
    assert_func, check_p, functionalization_error, init_error, update_error)
from .shard_map.call import _shard_map
from .shard_map.primitive import P, shard_map_p

__all__ = ["Error", "ErrorCategory", "JaxRuntimeError", "all_checks", "automatic_checks",
           "check", "check_error", "checkify", "debug_check", "div_checks", "float_checks",
           "index_checks", "init_error", "nan_checks", "user_checks"]


# ------------------------------------------------------------------ the interpreter
def checkify_jaxpr_flat(jaxpr: Jaxpr, consts, enabled_errors, error: Error, *args):
    """(error, outputs) of `jaxpr` on `args`: each equation bound on the current trace, the
    error threaded through the rules of `error_checks`."""
    env = dict(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))
    read = functools.partial(read_atom, env)

    for eqn in jaxpr.eqns:
        invals = [read(v) for v in eqn.invars]
        rule = error_checks.get(eqn.primitive)
        if rule is None:
            outs = eqn.primitive.bind(*invals, **eqn.params)
        else:       # rules compute with jnp: literals as values (weak ones as Python scalars)
            outer, _checking[0] = _checking[0], eqn.source_info
            try:
                error, outs = rule(error, enabled_errors, *map(literal_value, invals),
                                   **eqn.params)
            finally:
                _checking[0] = outer
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    return error, [read(v) for v in jaxpr.outvars]


def checkify_jaxpr(closed: ClosedJaxpr, enabled_errors, error: Error, *args):
    return checkify_jaxpr_flat(closed.jaxpr, closed.consts, enabled_errors, error, *args)


def _checkified_jaxpr(closed: ClosedJaxpr, enabled_errors, error: Error, in_avals):
    """`closed` as a jaxpr taking (error leaves, inputs) and returning (error leaves, outputs),
    with the output error's treedef and the kinds of error it tracks."""
    err_leaves, err_tree = tree_flatten(error)
    n = len(err_leaves)
    found = {}

    def fun(*vals):
        err = tree_unflatten(err_tree, list(vals[:n]))
        err, outs = checkify_jaxpr(closed, enabled_errors, err, *vals[n:])
        leaves, found["tree"] = tree_flatten(err)
        found["effects"] = set(err._pred)
        return [*leaves, *outs]

    avals = [get_aval(x) for x in err_leaves] + list(in_avals)
    checked = trace_to_jaxpr(fun, avals)
    return checked, found["tree"], found["effects"]


def _error_effects(closed, enabled_errors, error, in_avals) -> set:
    return _checkified_jaxpr(closed, enabled_errors, error, in_avals)[2]


def _sub_jaxprs(params):
    for v in params.values():
        for x in (v if isinstance(v, (tuple, list)) else [v]):
            if isinstance(x, ClosedJaxpr):
                yield x.jaxpr
            elif isinstance(x, Jaxpr):
                yield x


def _has_checks(jaxpr: Jaxpr, enabled_errors) -> bool:
    """Whether running `jaxpr` through the interpreter can record anything."""
    for eqn in jaxpr.eqns:
        kinds = _CHECKED_BY.get(eqn.primitive)
        if eqn.primitive is check_p or (kinds and kinds & set(enabled_errors)):
            return True
        if any(_has_checks(j, enabled_errors) for j in _sub_jaxprs(eqn.params)):
            return True
    return False


# ------------------------------------------------------------------ automatic checks
error_checks: dict = {}     # primitive -> rule(error, enabled_errors, *args, **params)
_CHECKED_BY: dict = {}      # primitive -> the kinds of error its rule can record


# the source of the equation the interpreter is checking (None outside it): where an
# automatic check's NaN or out-of-bounds index was made in the user's code
_checking = [None]


def _traceback():
    """Where the check is, as JAX's get_traceback: the equation being checked, or the user's
    line calling `check` (with its callers up to the traced function). Messages do not show
    it; a failed check's exception carries it as its traceback, so a notebook names the line
    where the NaN was made or the check failed, as under JAX."""
    return _checking[0] if _checking[0] is not None else _learners(traced_source_info(1))


def _learners(info):
    """`info` and its callers less the frames of installed packages and frozen modules: an
    eager check's stack holds the kernel's loop above the cell (runpy, traitlets, tornado),
    which the learner need not read. `info` as it is where no frame would be left."""
    frames = [f for f in creation_frames(info, 1 << 30)
              if not f.file.startswith("<frozen") and installed_package(f.file) is None]
    kept = None
    for frame in frames:                  # outermost first: each the caller of the next
        kept = frame._replace(caller=kept)
    return kept if kept is not None else info


def _nan_check(prim, error, enabled_errors, *in_vals, **params):
    out = prim.bind(*in_vals, **params)
    return _record_nans(prim, error, enabled_errors, out), out


def _record_nans(prim, error, enabled_errors, out):
    if NaNError not in enabled_errors:
        return error
    outs = out if prim.multiple_results else [out]
    flags = [jnp.any(jnp.isnan(x)) for x in outs if dtypes.is_inexact(get_aval(x).dtype)]
    if not flags:
        return error
    return assert_func(error, functools.reduce(jnp.logical_or, flags),
                       NaNError(_traceback(), prim.name))


# JAX's list of the primitives that can make a NaN (checkify.nan_primitives)
_NAN_PRIMITIVES = [
    "acos", "acosh", "add", "asin", "asinh", "atan2", "atan", "atanh", "bessel_i0e",
    "bessel_i1e", "cbrt", "conv_general_dilated", "cos", "cosh", "cumlogsumexp", "cummax",
    "cummin", "cumprod", "cumsum", "digamma", "dot_general", "erf_inv", "erf", "erfc", "exp",
    "expm1", "fft", "igamma_grad_a", "igamma", "igammac", "integer_pow", "lgamma",
    "custom_linear_solve", "log1p", "log", "logistic", "mul", "pad", "pow", "psum", "reduce",
    "reduce_prod", "reduce_sum", "reduce_window", "reduce_window_sum",
    "regularized_incomplete_beta", "rem", "rng_uniform", "rsqrt", "sin", "sinh", "sqrt", "sub",
    "tan", "tanh"]


def no_indices(indices) -> bool:
    """Whether an indexing reads or writes at no index (an empty index array; a 0-d operand's
    dynamic slice has no start either): nothing can be out of bounds. JAX 0.10.2's checks fail
    there (the first index out of bounds of none: "attempt to get argmin of an empty
    sequence", for a 0-d dynamic_slice and an empty gather of an index vector); jxkernel's
    pass, as the indexing does."""
    return 0 in np.shape(indices)


def _oob_payload(oob_mask, indices, dims_map, operand_shape):
    # the first out-of-bounds index, its axis and that axis's size, for the message
    flat_idx = jnp.argmin(jnp.logical_not(oob_mask))
    multi_idx = jnp.unravel_index(flat_idx, jnp.shape(indices))
    oob_axis = jnp.array(list(dims_map), np.int32)[multi_idx[-1]]
    oob_axis_size = jnp.array(operand_shape, np.int32)[oob_axis]
    oob_index = jnp.ravel(indices)[flat_idx]
    return jnp.stack([oob_index.astype(np.int32), oob_axis, oob_axis_size])


def _dynamic_slice_check(error, enabled_errors, operand, *start_indices, slice_sizes):
    out = lax.dynamic_slice_p.bind(operand, *start_indices, slice_sizes=slice_sizes)
    if OOBError not in enabled_errors or not start_indices:     # (0-d: see no_indices)
        return error, out
    starts = jnp.stack([jnp.asarray(i) for i in start_indices])
    dims = np.array(np.shape(operand), starts.dtype)
    oob = (starts < 0) | (starts + np.array(slice_sizes, starts.dtype) > dims)
    payload = _oob_payload(oob, starts, range(np.ndim(operand)), np.shape(operand))
    return assert_func(error, jnp.any(oob), OOBError(_traceback(), "dynamic_slice",
                                                     np.shape(operand), payload)), out


def _dynamic_update_slice_check(error, enabled_errors, operand, update, *start_indices):
    out = lax.dynamic_update_slice_p.bind(operand, update, *start_indices)
    if OOBError not in enabled_errors or not start_indices:
        return error, out
    starts = jnp.stack([jnp.asarray(i) for i in start_indices])
    oob = (starts < 0) | (starts + np.array(np.shape(update), starts.dtype) >
                          np.array(np.shape(operand), starts.dtype))
    payload = _oob_payload(oob, starts, range(np.ndim(operand)), np.shape(operand))
    return assert_func(error, jnp.any(oob), OOBError(_traceback(), "dynamic_update_slice",
                                                     np.shape(operand), payload)), out


def _gather_check(error, enabled_errors, operand, indices, **params):
    out = lax.gather_p.bind(operand, indices, **params)
    if OOBError not in enabled_errors or no_indices(indices):
        return error, out
    # as gather's own clamping: an index may go up to the axis size less the slice size
    dnums, slice_sizes = params["dimension_numbers"], params["slice_sizes"]
    index_map = np.array(dnums.start_index_map, np.int64)
    upper = np.array(np.shape(operand))[index_map] - np.array(slice_sizes)[index_map]
    # (bounds of the indices' own rank: no rank promotion, which tests may set to 'raise')
    upper = np.broadcast_to(upper.astype(np.dtype(get_aval(indices).dtype)), np.shape(indices))
    oob = (indices < 0) | (indices > upper)
    payload = _oob_payload(oob, indices, dnums.start_index_map, np.shape(operand))
    return assert_func(error, jnp.any(oob), OOBError(_traceback(), "gather", np.shape(operand),
                                                     payload)), out


def _div_check(error, enabled_errors, x, y):
    if DivisionByZeroError in enabled_errors:
        error = assert_func(error, jnp.any(jnp.equal(y, 0)), DivisionByZeroError(_traceback()))
    return _nan_check(lax.div_p, error, enabled_errors, x, y)


def _scatter_check(prim, error, enabled_errors, operand, indices, updates, **params):
    out = prim.bind(operand, indices, updates, **params)
    if OOBError not in enabled_errors:
        return error, out
    if no_indices(indices):
        return _record_nans(prim, error, enabled_errors, out), out
    dnums = params["dimension_numbers"]
    sizes, pos = [], 0
    for i in range(np.ndim(operand)):
        # (a batching axis has no window either: JAX 0.10.2's check raises IndexError there,
        # for a vmapped scatter's, as a transpose of a batched gather makes)
        if i in dnums.inserted_window_dims or i in dnums.operand_batching_dims:
            sizes.append(1)
        else:
            sizes.append(np.shape(updates)[dnums.update_window_dims[pos]])
            pos += 1
    upper = np.array([np.shape(operand)[i] - sizes[i]
                      for i in dnums.scatter_dims_to_operand_dims], np.int64)
    idx_dtype = np.dtype(get_aval(indices).dtype)
    upper = np.minimum(upper, dtypes.iinfo(idx_dtype).max).astype(idx_dtype)
    oob = (indices < 0) | (indices > np.broadcast_to(upper, np.shape(indices)))
    payload = _oob_payload(oob, indices, dnums.scatter_dims_to_operand_dims, np.shape(operand))
    error = assert_func(error, jnp.any(oob), OOBError(_traceback(), prim.name,
                                                      np.shape(operand), payload))
    return _record_nans(prim, error, enabled_errors, out), out


def _check_discharge(error, enabled_errors, *args, err_tree, debug):
    """A check met under checkify: its failures of enabled kinds join the error."""
    new = tree_unflatten(err_tree, list(args))
    for effect in new._pred:
        if effect.error_type in enabled_errors:
            error = update_error(error, new._pred[effect], new._code[effect], {},
                                 new._payload[effect], effect)
    return error._replace(_metadata={**new._metadata, **error._metadata}), []


# ------------------------------------------------------------------ primitives with bodies
def _without_metadata(error: Error) -> Error:
    # branches and iterations carry the values; each check's metadata is gathered aside
    return error._replace(_metadata={})


def _jit_check(error, enabled_errors, *vals, jaxpr, donated_invars, **params):
    pinned = pin_of(params)
    if not _has_checks(jaxpr.jaxpr, enabled_errors):
        return error, _rebound(params, jaxpr, vals, donated_invars, pinned)
    err_leaves = tree_flatten(error)[0]
    checked, out_tree, _ = _checkified_jaxpr(jaxpr, enabled_errors, error,
                                             [get_aval(v) for v in vals])
    # (the error's leaves: new operands and results, unspecified)
    outs = _rebound(params, checked, [*err_leaves, *vals],
                    (False,) * len(err_leaves) + tuple(donated_invars),
                    pinned and pinned.after(len(err_leaves))._replace(
                        outs=(None,) * (len(checked.out_avals) - len(pinned.outs)) + pinned.outs))
    n = out_tree.num_leaves
    return tree_unflatten(out_tree, outs[:n]), outs[n:]


def _shard_map_check(error, enabled_errors, *vals, jaxpr, mesh, in_specs, out_specs,
                     check_vma, newly_manual_axes):
    """shard_map (and so pmap, a jit of one): each device checks its block; the per-device
    errors come back stacked over the manual axes, a batched error (`get` names each failed
    device: "at mapped index i: ..."), as JAX's."""
    body = jaxpr if isinstance(jaxpr, ClosedJaxpr) else ClosedJaxpr(jaxpr, ())
    if not _has_checks(body.jaxpr, enabled_errors):
        return error, shard_map_p.bind(*vals, jaxpr=jaxpr, mesh=mesh, in_specs=in_specs,
                                       out_specs=out_specs, check_vma=check_vma,
                                       newly_manual_axes=newly_manual_axes)
    err_leaves, err_tree = tree_flatten(error)
    found = {}

    def checked(errs, args):
        err, outs = checkify_jaxpr(body, enabled_errors, tree_unflatten(err_tree, list(errs)),
                                   *args)
        leaves, found["tree"] = tree_flatten(err)
        return [lax.expand_dims(x, (0,)) for x in leaves], list(outs)

    stacked = P(tuple(a for a in mesh.axis_names if a in newly_manual_axes))
    errs, outs = _shard_map(checked, out_specs=(stacked, list(out_specs)),
                            in_specs=(P(), tuple(in_specs)), mesh=mesh,
                            axis_names=newly_manual_axes, check_vma=check_vma,
                            eager=False)(err_leaves, tuple(vals))
    return tree_unflatten(found["tree"], errs), outs


def _inline_check(prim, body_param, error, enabled_errors, *vals, **params):
    """checkpoint: its body run through the interpreter where it has checks (a
    transformation applied later sees the plain body), else bound as it is."""
    body = params[body_param]
    if not _has_checks(body.jaxpr if isinstance(body, ClosedJaxpr) else body, enabled_errors):
        return error, prim.bind(*vals, **params)
    if isinstance(body, Jaxpr):
        body = ClosedJaxpr(body, [])
    return checkify_jaxpr(body, enabled_errors, error, *vals)


def _custom_rule_check(prim, rules, error, enabled_errors, *vals, call_jaxpr, num_consts,
                       **params):
    """custom_jvp and custom_vjp calls, as JAX's: their function is checked, their rules are
    not (checks of a rule need checkify of jvp or grad). The call stays a custom call, the
    error's leaves its first arguments after the consts; where a rule runs (jvp or grad of
    checkify) the error passes through it unchanged, with no check's metadata."""
    if not _has_checks(call_jaxpr.jaxpr, enabled_errors):
        return error, prim.bind(*vals, call_jaxpr=call_jaxpr, num_consts=num_consts, **params)
    avals = [get_aval(v) for v in vals]
    start = error._add_placeholder_effects(_error_effects(call_jaxpr, enabled_errors, error,
                                                          avals))
    err_leaves, start_tree = tree_flatten(start)
    checked, out_tree, _ = _checkified_jaxpr(call_jaxpr, enabled_errors, start, avals)
    n, ran_rule = len(err_leaves), []
    wrapped = {name: cls(params[name], n, ran_rule) for name, cls in rules.items()}
    outs = prim.bind(*vals[:num_consts], *err_leaves, *vals[num_consts:],
                     call_jaxpr=_error_after_consts(checked, n, num_consts),
                     num_consts=num_consts, **{**params, **wrapped})
    return tree_unflatten(start_tree if ran_rule else out_tree, outs[:n]), outs[n:]


def _error_after_consts(closed: ClosedJaxpr, n: int, num_consts: int) -> ClosedJaxpr:
    """`closed` over (error leaves, consts, args) as one over (consts, error leaves, args)."""
    j = closed.jaxpr
    invars = j.invars[n:n + num_consts] + j.invars[:n] + j.invars[n + num_consts:]
    return ClosedJaxpr(Jaxpr(j.constvars, invars, j.outvars, j.eqns), closed.consts)


def _no_tangents(leaves) -> list:
    return [Zero(get_aval(x).to_tangent_aval()) for x in leaves]


class _ErrorThroughJVP:
    """A custom_jvp_call's jvp rule taking the error's `n` leaves first: they pass through,
    with zero tangents. `ran` is appended to when it runs."""

    def __init__(self, jvp, n, ran):
        self.jvp, self.n, self.ran = jvp, n, ran
        self.__name__ = getattr(jvp, "__name__", "jvp")

    def __call__(self, primals, tangents):
        self.ran.append(True)
        errs = primals[:self.n]
        outs, out_tangents = self.jvp(list(primals[self.n:]), list(tangents[self.n:]))
        return [*errs, *outs], [*_no_tangents(errs), *out_tangents]


class _ErrorThroughFwd:
    """A custom_vjp_call's fwd taking the error's `n` leaves first: they pass through; its
    `bwd` gives them zero cotangents."""

    def __init__(self, fwd, n, ran):
        self.fwd, self.n, self.ran = fwd, n, ran
        self.__name__ = getattr(fwd, "__name__", "fwd")

    def __call__(self, primals, perturbed=None):
        self.ran.append(True)
        errs = primals[:self.n]
        outs, residuals = self.fwd(list(primals[self.n:]),
                                   None if perturbed is None else list(perturbed[self.n:]))
        return [*errs, *outs], residuals


class _ErrorThroughBwd:
    """The bwd of `_ErrorThroughFwd`'s call: zero cotangents for the error's leaves."""

    def __init__(self, bwd, n, ran):
        self.bwd, self.n = bwd, n
        self.__name__ = getattr(bwd, "__name__", "bwd")

    def __call__(self, residuals, cts):
        errs = [Zero(c.aval) if type(c) is Zero else Zero(get_aval(c).to_tangent_aval())
                for c in cts[:self.n]]
        return [*errs, *self.bwd(residuals, list(cts[self.n:]))]


def _cond_check(error, enabled_errors, index, *ops, branches, **params):
    if not any(_has_checks(b.jaxpr, enabled_errors) for b in branches):
        return error, lax.cond_p.bind(index, *ops, branches=branches, **params)
    avals = [get_aval(x) for x in ops]
    effects = set().union(*(_error_effects(b, enabled_errors, error, avals) for b in branches))
    merged = _without_metadata(error._add_placeholder_effects(effects))
    metadata = dict(error._metadata)

    def branch(closed):
        def run(err, ops):
            err, outs = checkify_jaxpr(closed, enabled_errors, err, *ops)
            metadata.update(err._metadata)
            return _without_metadata(err), outs
        return run

    err, outs = _bind_cond(index, [branch(b) for b in branches], (merged, list(ops)),
                           tuple(f"branch {i}" for i in range(len(branches))), **params)
    return err._replace(_metadata=metadata), outs


def _scan_check(error, enabled_errors, *vals, reverse, length, jaxpr, num_consts, num_carry,
                unroll):
    if not _has_checks(jaxpr.jaxpr, enabled_errors):
        return error, lax.scan_p.bind(*vals, reverse=reverse, length=length, jaxpr=jaxpr,
                                      num_consts=num_consts, num_carry=num_carry,
                                      unroll=unroll)
    consts, carry, xs = (vals[:num_consts], vals[num_consts:num_consts + num_carry],
                         vals[num_consts + num_carry:])
    x_avals = [get_aval(x).update(shape=get_aval(x).shape[1:]) for x in xs]
    avals = [get_aval(x) for x in (*consts, *carry)] + x_avals
    merged = _without_metadata(error._add_placeholder_effects(
        _error_effects(jaxpr, enabled_errors, error, avals)))
    metadata = dict(error._metadata)

    def body(c, x):
        err, carry = c
        err, outs = checkify_jaxpr(jaxpr, enabled_errors, err, *consts, *carry, *x)
        metadata.update(err._metadata)
        return (_without_metadata(err), outs[:num_carry]), outs[num_carry:]

    (err, carry_out), ys = lax.scan(body, (merged, list(carry)), list(xs), length=length,
                                    reverse=reverse, unroll=unroll)
    return err._replace(_metadata=metadata), [*carry_out, *ys]


def _while_check(error, enabled_errors, *vals, cond_jaxpr, body_jaxpr, cond_nconsts,
                 body_nconsts):
    if cond_jaxpr.out_avals[0].shape:        # a vmapped while's batched predicate (JAX's words)
        raise ValueError("Checkify does not support batched while-loops "
                         "(checkify-of-vmap-of-while). \nHint: if possible, move the vmap to "
                         "the outer level to get vmap-of-checkify-of-while.")
    if not (_has_checks(cond_jaxpr.jaxpr, enabled_errors) or
            _has_checks(body_jaxpr.jaxpr, enabled_errors)):
        return error, lax.while_p.bind(*vals, cond_jaxpr=cond_jaxpr, body_jaxpr=body_jaxpr,
                                       cond_nconsts=cond_nconsts, body_nconsts=body_nconsts)
    cond_consts = vals[:cond_nconsts]
    body_consts = vals[cond_nconsts:cond_nconsts + body_nconsts]
    carry = vals[cond_nconsts + body_nconsts:]
    # the condition's checks run before the loop and after each iteration, as in JAX
    error, _ = checkify_jaxpr(cond_jaxpr, enabled_errors, error, *cond_consts, *carry)
    avals = [get_aval(x) for x in carry]
    effects = (_error_effects(body_jaxpr, enabled_errors, error,
                              [get_aval(x) for x in body_consts] + avals) |
               _error_effects(cond_jaxpr, enabled_errors, error,
                              [get_aval(x) for x in cond_consts] + avals))
    merged = _without_metadata(error._add_placeholder_effects(effects))
    metadata = dict(error._metadata)

    def cond_fun(c):
        _, carry = c
        return checkify_jaxpr(cond_jaxpr, frozenset(), init_error, *cond_consts, *carry)[1][0]

    def body_fun(c):
        err, carry = c
        err, carry = checkify_jaxpr(body_jaxpr, enabled_errors, err, *body_consts, *carry)
        err, _ = checkify_jaxpr(cond_jaxpr, enabled_errors, err, *cond_consts, *carry)
        metadata.update(err._metadata)
        return _without_metadata(err), list(carry)

    err, carry_out = lax.while_loop(cond_fun, body_fun, (merged, list(carry)))
    return err._replace(_metadata=metadata), carry_out


def _register_rules():
    """Fill `error_checks` (on first use: every primitive it checks is loaded by this module's
    imports, pmap's and remat's included)."""
    for name in _NAN_PRIMITIVES:
        prim = all_primitives.get(name)
        if prim is not None:
            error_checks[prim] = functools.partial(_nan_check, prim)
            _CHECKED_BY[prim] = {NaNError}
    checked = [("dynamic_slice", _dynamic_slice_check, {OOBError}),
               ("dynamic_update_slice", _dynamic_update_slice_check, {OOBError}),
               ("gather", _gather_check, {OOBError}),
               ("div", _div_check, {DivisionByZeroError, NaNError})]
    for name in ("scatter", "scatter-add", "scatter-mul", "scatter-min", "scatter-max"):
        prim = all_primitives[name]
        checked.append((name, functools.partial(_scatter_check, prim), {OOBError, NaNError}))
    for name, rule, kinds in checked:
        error_checks[all_primitives[name]] = rule
        _CHECKED_BY[all_primitives[name]] = kinds
    error_checks[check_p] = _check_discharge
    error_checks[all_primitives["jit"]] = _jit_check
    error_checks[all_primitives["cond"]] = _cond_check
    error_checks[all_primitives["scan"]] = _scan_check
    error_checks[all_primitives["while"]] = _while_check
    error_checks[shard_map_p] = _shard_map_check
    error_checks[all_primitives["remat2"]] = functools.partial(
        _inline_check, all_primitives["remat2"], "jaxpr")
    for name, rules in (("custom_jvp_call", {"jvp": _ErrorThroughJVP}),
                        ("custom_vjp_call", {"fwd": _ErrorThroughFwd, "bwd": _ErrorThroughBwd})):
        prim = all_primitives[name]
        error_checks[prim] = functools.partial(_custom_rule_check, prim, rules)


# ------------------------------------------------------------------ the public API
user_checks = frozenset({FailedCheckError})
nan_checks = frozenset({NaNError})
index_checks = frozenset({OOBError})
div_checks = frozenset({DivisionByZeroError})
float_checks = nan_checks | div_checks
automatic_checks = float_checks | index_checks
all_checks = automatic_checks | user_checks


def errors_of(closed: ClosedJaxpr, errors, *args) -> Error:
    """The Error `closed` makes on `args`, its automatic checks of the kinds in `errors` (its
    outputs dropped: a jit of this computes only what the checks read). The notebook runs a
    user's jitted program's index checks so (notebook/notes/index_calls.py)."""
    if not error_checks:
        _register_rules()
    return checkify_jaxpr(closed, frozenset(errors), init_error, *args)[0]


def checkify(f, errors=user_checks):
    """`f` returning `(Error, output)`: its checks (and the automatic checks of the
    categories in `errors`) as a value instead of raised.

    >>> err, out = checkify(lambda x: 1 / x, errors=div_checks)(jnp.array(0.0))
    >>> err.get()
    'division by zero'
    """
    errors = frozenset(errors)

    @functools.wraps(f)
    @api_boundary
    def checked_fun(*args, **kwargs):
        if not error_checks:
            _register_rules()
        found = {}

        def closed():
            leaves, found["tree"] = tree_flatten(f(*args, **kwargs))
            return leaves

        # traced closed over the arguments, as JAX's: they become the jaxpr's constants
        jaxpr = trace_to_jaxpr(closed, [])
        error, outs = checkify_jaxpr(jaxpr, errors, init_error)
        return error, tree_unflatten(found["tree"], outs)
    return checked_fun


def check(pred, msg: str, *fmt_args, debug: bool = False, **fmt_kwargs) -> None:
    """Record a failure with message `msg` (formatted with the arrays `fmt_args`,
    `fmt_kwargs`) where the scalar `pred` is False: raises JaxRuntimeError when run eagerly;
    staged, it must be functionalized by `checkify`.

    >>> check(jnp.array(1) > 0, "must be positive")      # holds: nothing happens
    """
    _check(pred, msg, debug, *fmt_args, **fmt_kwargs)


def _check(pred, msg, debug, *fmt_args, **fmt_kwargs):
    if not is_scalar_pred(pred):
        name = "debug_check" if debug else "check"
        raise TypeError(f"{name} takes a scalar pred as argument, got {pred}")
    for arg in tree_leaves((fmt_args, fmt_kwargs)):
        if not isinstance(arg, (Array, Tracer, np.ndarray)):
            raise TypeError(f"Formatting arguments to checkify.check need to be PyTrees of "
                            f"arrays, but got {arg!r} of type {type(arg)}.")
    new_error = FailedCheckError(_traceback(), msg, *fmt_args, **fmt_kwargs)
    error = assert_func(init_error, jnp.logical_not(pred), new_error)
    _check_error(error, debug=debug)


def is_scalar_pred(pred) -> bool:
    if isinstance(pred, bool):
        return True
    if isinstance(pred, (Array, Tracer)):
        aval = get_aval(pred)
        return aval.shape == () and aval.dtype == np.dtype(bool)
    return False


def debug_check(pred, msg: str, *fmt_args, **fmt_kwargs) -> None:
    """A check that only `checkify` runs; elsewhere it does nothing."""
    _check(pred, msg, True, *fmt_args, **fmt_kwargs)


def check_error(error: Error) -> None:
    """Raise JaxRuntimeError if `error` holds a failure; functionalized by `checkify`.

    >>> err, _ = checkify(lambda: check(jnp.array(False), "no"))()
    >>> check_error(err)
    Traceback (most recent call last):
    jxkernel._src.checkify.JaxRuntimeError: no (`check` failed)
    """
    if not isinstance(error, Error):
        raise TypeError(f"check_error takes an Error as argument, got type {type(error)} "
                        f"instead.")
    _check_error(error, debug=False)
