"""checkpoint (remat): recompute a function's intermediates in the backward pass instead of
storing them.

    >>> jax.grad(checkpoint(lambda x: jnp.sin(jnp.sin(x))))(1.0)    # same value, fewer residuals
    Array(0.36003947, dtype=float32, weak_type=True)

The function becomes one `checkpoint` equation. When it is linearized, its inputs
are kept as residuals, plus the intermediates its `policy` calls saveable
(`policy(prim, *in_avals, **params) -> bool`, asked of each forward equation, as
JAX's `checkpoint_policies`); the staged (unknown) part re-runs the rest of the
forward computation from them, so transposition recomputes what it needs.
`checkpoint_name(x, "name")` tags a value for the name-based policies.
"""
from __future__ import annotations


import dataclasses
import inspect
import logging
import re
import types
import weakref

from ..core.traceback_util import api_boundary
from ..core.avals import get_aval
from ..core.interpret import eval_jaxpr, held_values
from ..core.ir import ClosedJaxpr, Jaxpr, param_printers
from ..core.lru import LRU, SIGNATURES
from ..core.name_stack import current_names, name_scope, replaying_names, set_names
from ..core.numpy_eval import call_rule
from ..core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules, batching_rules,
                              impl_rules, jvp_rules, lowering_rules, numpy_rules,
                              partial_eval_rules, sharding_typing_rules, transpose_rules)
from ..core.config import config
from ..core import sharding_types, vma
from ..core.compile_record import log_trace_miss, trace_difference
from ..core.source_info import caller_frame, traced_call_site, users_function
from ..core.trace import Tracer, set_current_trace
from ..transforms.ad_util import Zero, instantiate, is_undefined
from ..transforms.batch_util import vectorized_batcher
from ..lax.dot import dot_general_p
from ..lax.tokens import eager_tokens
from ..lax.io_effects import check_remat_partial_eval
from ..lax._cf_bodies import _valid_results
from ..tree_util import (broadcast_prefix, keystr, tree_flatten, tree_flatten_with_path,
                         tree_map, tree_unflatten)
from ..transforms.ad import jvp_jaxpr, refs_as_values, transpose_jaxpr
from ..transforms.api_util import flatten_fun, merge_static, wraps
from ..transforms.batching import batch_jaxpr
from ..core.dce import dce_jaxpr_outputs
from ..core.partial_eval import partial_eval_jaxpr
from .remat_saved import (Offloadable, Recompute, RecomputeType, Saveable,  # noqa: F401
                          SaveableType, rounded_where_saved, saved_and_recomputed)
from ..core.errors import ConcretizationTypeError
from ..core.source_info import function_source_info
from ..core.staging import DebugInfo, convert_constvars_to_invars, is_ref, trace_to_jaxpr
from ..transforms.jit.args import python_inputs
from ..transforms.jit import refs as jit_refs
from ..transforms.jit.primitive import jit_p

remat_p = Primitive("remat2", multiple_results=True)     # JAX 0.10.2's name for it


@api_boundary
def checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=()):
    """`fun` whose intermediates are recomputed, not stored, when differentiated."""
    # (anything else as given, checked when called: _static_positions)
    static_argnums = (static_argnums,) if isinstance(static_argnums, int) else static_argnums
    if isinstance(prevent_cse, list):
        prevent_cse = tuple(prevent_cse)
    if not isinstance(prevent_cse, (tuple, bool)):
        raise TypeError(f"prevent_cse must be a bool or tuple of bools, got "
                        f"{type(prevent_cse)=}")

    if isinstance(policy, str):     # JAX fails only once differentiated: keep where it was given
        frame = caller_frame(1)
        policy = _PolicyName(policy)
        policy.given_at = (frame.f_code.co_filename, frame.f_lineno)

    @wraps(fun)
    @api_boundary
    def remat_fun(*args):
        # traced even when called eagerly, as JAX's: the trace is what is cached (below)
        static = {i: args[i] for i in _static_positions(static_argnums, len(args))}
        dyn = [a for i, a in enumerate(args) if i not in static]
        leaves, in_tree = tree_flatten(tuple(dyn))
        jaxpr, consts, out_tree, closed = _traced(fun, static, len(args), in_tree, leaves)
        arrays = jit_refs.without_refs(leaves, jit_refs.ref_positions(leaves))
        outs = remat_p.bind(*jit_refs.values_for(consts, leaves), *arrays, jaxpr=jaxpr,
                            prevent_cse=_per_input(prevent_cse, len(consts), tuple(dyn)),
                            differentiated=False, policy=policy)
        # a Ref passed or made outside: read and written as jit's are (transforms/jit/refs.py)
        return tree_unflatten(out_tree, eager_tokens(jit_refs.write_back(closed, outs, leaves)))
    return remat_fun


def _static_positions(static_argnums, nargs) -> tuple:
    """The positions static_argnums names among `nargs` arguments, a negative one counted from
    the end; JAX's errors in its order and words: one before the first argument (its
    debug_info's check, which skips one past the last: a name, 1.0 or None fails there in
    Python's words), then anything but a tuple of ints (a list, True, 1.5), then one past the
    last (remat's own)."""
    for d in static_argnums:
        if d >= nargs:
            continue
        if d < -nargs:
            raise ValueError(f"Positional argument indices, e.g. for `static_argnums`, must "
                             f"have value greater than or equal to -len(args) and less than "
                             f"len(args), but got value {d} for len(args) == {nargs}.")
    if type(static_argnums) is not tuple or any(type(d) is not int for d in static_argnums):
        raise TypeError(f"the `static_argnums` argument to `jax.checkpoint` / `jax.remat` "
                        f"must be an int, tuple of ints or, bool, but got value "
                        f"{static_argnums}")
    if not all(d < nargs for d in static_argnums):
        raise ValueError(f"the `static_argnums` argument to `jax.checkpoint` / `jax.remat` can "
                         f"only take integer values greater than or equal to `-len(args)` and "
                         f"less than `len(args)`, but got {static_argnums}, while `len(args)` "
                         f"= {nargs}")
    return tuple(sorted({d % nargs for d in static_argnums}))


# traces of checkpointed functions, per function: as JAX's (a weakref_lru_cache on the
# function), a second call with the same types reuses the trace, even through another
# checkpoint(fun, policy=...) wrapper; a global the function reads that changed since is
# not seen (JAX's gradient-checkpointing guide shows that)
_traces = weakref.WeakKeyDictionary()


def _traced(fun, static, nargs, in_tree, leaves):
    """(jaxpr with its consts as leading inputs, consts, out_tree, the ClosedJaxpr) of `fun`
    at these types; a Ref among the consts is read anew at each call."""
    avals = tuple(x.aval if is_ref(x) else get_aval(x) for x in leaves)
    key = (tuple(sorted(static.items())), nargs, in_tree, avals, config._trace_state) + \
        vma.trace_place()
    try:
        per_fun = _traces.get(fun)
        if per_fun is None:                # bounded: a function called with ever new shapes
            per_fun = _traces[fun] = LRU(SIGNATURES)
        found = per_fun.get(key)
    except TypeError:                      # not weakly referable, or an unhashable static
        per_fun, found = None, None
    if found is not None:
        return found
    user = users_function(fun)
    if user is not None and config.jax_explain_cache_misses:
        log_trace_miss(user.function, f"{user.file}:{user.line}", traced_call_site(2),
                       trace_difference(per_fun, key, lambda: _leaf_names(fun, static, nargs,
                                                                          in_tree, leaves)),
                       fun_id=id(fun))
    flat, out_tree = flatten_fun(lambda *dyn: fun(*merge_static(static, dyn, nargs)), in_tree)
    # named as JAX names it ("tracing the function f at FILE:1 for checkpoint / remat ...
    # depends on the value of the argument flag"), so the error and its card say which
    name, source = getattr(fun, "__name__", "<unnamed function>"), function_source_info(fun)
    names = tuple(_leaf_names(fun, static, nargs, in_tree, leaves))
    info = DebugInfo(name, source, "checkpoint / remat", names, python_inputs(leaves))
    flat = _valid_results(flat, info, out_tree)     # a str returned: JAX's words, naming fun
    try:
        # a Ref argument traced as jit traces one (its stand-in), with jit's errors
        closed = jit_refs.traced(flat, leaves, avals, info, f"{name}" + (
            f" at {source.file}:{source.line}" if source else ""), lambda: names)
    except ConcretizationTypeError as e:    # JAX's remat adds where static_argnums is shown
        if e.args and isinstance(e.args[0], str) and "for checkpoint / remat" in e.args[0]:
            e.args = (e.args[0] + _STATIC_ARGNUMS_HINT, *e.args[1:])
        raise
    jaxpr, consts = convert_constvars_to_invars(closed)
    found = (jaxpr, consts, out_tree(), closed)
    if user is not None:
        _lineage[jaxpr] = _Lineage(user.function, f"{user.file}:{user.line}", "", object(), ())
    if per_fun is not None and not any(isinstance(c, Tracer) for c in consts):
        per_fun[key] = found                 # tracers die with their trace
    return found


remat = checkpoint

# JAX's words after a concretization error raised tracing a checkpointed function
_STATIC_ARGNUMS_HINT = (
    "\n\nConsider using the `static_argnums` parameter for `jax.remat` or `jax.checkpoint`. "
    "See the `jax.checkpoint` docstring and its example involving `static_argnums`:\n"
    "https://docs.jax.dev/en/latest/_autosummary/jax.checkpoint.html\n")


def _per_input(prevent_cse, n_consts: int, args: tuple):
    """A tuple prevent_cse (a prefix of the arguments' tree) as one flag per flat input, the
    consts' False (JAX's): only the flagged inputs pass through the optimization barrier."""
    if isinstance(prevent_cse, bool):
        return prevent_cse
    return (False,) * n_consts + tuple(broadcast_prefix(prevent_cse, args))


def _flags(prevent_cse, keep, extra: int = 0):
    """A per-input prevent_cse for the inputs `keep` flags, then `extra` new ones (True)."""
    if isinstance(prevent_cse, bool):
        return prevent_cse
    return tuple(f for f, k in zip(prevent_cse, keep) if k) + (True,) * extra


# What JAX's jax_explain_cache_misses tells of checkpoint's traces. JAX traces the function
# (cached on it and its input types: above), then, under grad, the JVP of that jaxpr (cached
# on the jaxpr and which tangents are nonzero) and the transpose of its partial evaluation
# (cached on that jaxpr, the unknowns and the policy): each of these a new function object to
# its tracing cache, "never seen function", none a compile. So that the log says what JAX's
# says, each jaxpr checkpoint makes carries its lineage (the user's function, the trace it
# comes from, the steps since), and a derivation not made before is logged as JAX's caches
# would trace it anew. The notebook's notes tell the jit's compiles only (docs/seeing_inside.md).
@dataclasses.dataclass(frozen=True)
class _Lineage:
    function: str           # the user's checkpointed function, and where it was defined
    source: str
    call_site: str          # where the derivation was asked for (JAX's "TRACING CACHE MISS at")
    trace: object           # a token per trace of the function: the jaxprs derived from it
    steps: tuple            # ("jvp", nonzeros), ("partial_eval", unknowns, policy), ...


_lineage: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()    # ClosedJaxpr -> _Lineage
_derived = LRU(SIGNATURES)          # (trace token, steps) JAX's caches would hold a trace of


def _derive(parent, child, step, traced: bool, call_site=None) -> None:
    """`child` is `parent` after `step`; where JAX traces a function to make it (`traced`) and
    has not made it before, log JAX's "never seen function"."""
    lineage = _lineage.get(parent)
    if lineage is None:
        return
    if call_site is None:       # (a frame walk: only where the log is on)
        call_site = traced_call_site(3) if config.jax_explain_cache_misses else ""
    mine = dataclasses.replace(lineage, call_site=call_site, steps=lineage.steps + (step,))
    _lineage[child] = mine
    key = (mine.trace, mine.steps)
    if traced and key not in _derived:     # (a function object of its own to JAX: its id)
        log_trace_miss(mine.function, mine.source, call_site, fun_id=id(child))
    _derived[key] = True


def _by_identity(policy):
    """A policy as a cache key: itself where hashable (JAX's caches key on it), else its id."""
    try:
        hash(policy)
        return policy
    except TypeError:
        return id(policy)


def _leaf_names(fun, static, nargs, in_tree, leaves) -> list:
    """JAX's name per input leaf of a checkpointed function: "x", "params['w']"."""
    try:
        params = [p.name for p in inspect.signature(fun).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    dyn = tree_unflatten(in_tree, leaves)
    positions = [i for i in range(nargs) if i not in static]
    names = []
    for i, arg in zip(positions, dyn):
        base = params[i] if i < len(params) else f"args[{i}]"
        names += [base + keystr(p) for p, _ in tree_flatten_with_path(arg)[0]]
    return names


def _remat_lowering(ctx, *args, jaxpr, prevent_cse, differentiated, policy):
    flags = [prevent_cse] * len(args) if isinstance(prevent_cse, bool) else list(prevent_cse)
    if differentiated and any(flags):
        # keep XLA from merging the recomputation with the original forward pass (only the
        # inputs a per-input prevent_cse flags pass through the barrier)
        barred = [a for a, f in zip(args, flags) if f]
        passed = ctx.renamed("remat2").op("stablehlo.optimization_barrier", barred,
                                          result_types=[a.type for a in barred])
        # (typed as the inputs, as JAX's barrier lowering constrains its results)
        passed = iter(ctx.typed_as([v for v, f in zip(ctx.avals_in, flags) if f], passed))
        args = [next(passed) if f else a for a, f in zip(args, flags)]
    # named `checkpoint/sin`, as JAX's remat lowering names its jaxpr
    return ctx.lower_jaxpr(jaxpr, list(args), scope="checkpoint")


def _remat_jvp(primals, tangents, *, jaxpr, prevent_cse, differentiated, policy):
    nonzeros = [type(t) is not Zero for t in tangents]
    new_jaxpr, out_nonzeros = jvp_jaxpr(jaxpr, nonzeros)
    _derive(jaxpr, new_jaxpr, ("jvp", tuple(nonzeros)), traced=True)
    nz = [t for t in tangents if type(t) is not Zero]
    outs = remat_p.bind(*primals, *nz, jaxpr=new_jaxpr,
                        prevent_cse=_flags(prevent_cse, [True] * len(primals), len(nz)),
                        differentiated=True, policy=policy)
    n = len(jaxpr.out_avals)
    rest = iter(outs[n:])
    return outs[:n], [next(rest) if z else Zero(a) for z, a in zip(out_nonzeros, jaxpr.out_avals)]


def _remat_partial_eval(trace, args, params):
    """Known outputs are computed now, with the intermediates the policy saves; the unknown
    part is staged as a checkpoint equation that takes the saved values and the inputs
    (not all intermediate residuals) and recomputes the rest from them."""
    check_remat_partial_eval(params["jaxpr"])
    unknowns = [trace.is_unknown(x) for x in args]
    jaxpr = params["jaxpr"]
    known_jaxpr, unknown_jaxpr, out_unknowns, n_res = partial_eval_jaxpr(jaxpr, unknowns)
    known_args = [x for x, u in zip(args, unknowns) if not u]
    n_known_out = len(known_jaxpr.out_avals) - n_res
    # which forward values to save by the policy (into conds and scans), and the jaxpr
    # recomputing the residuals from the known inputs and those (api/remat_saved.py)
    if isinstance(params["policy"], str) and known_jaxpr.jaxpr.eqns:
        raise _policy_name_error(params["policy"])
    k, saved_vars, recompute_res = saved_and_recomputed(
        known_jaxpr.jaxpr, [False] * n_known_out + [True] * n_res, params["policy"])
    residual_jaxpr = ClosedJaxpr(recompute_res, known_jaxpr.consts)
    # the forward part is evaluated in the outer trace, not in a checkpoint of its own, as JAX's
    # remat_partial_eval hoists it (`core.eval_jaxpr(jaxpr_known, ...)`), without the equations
    # that only fed residuals it does not save (DCE keeps effectful ones: a debug callback
    # still runs once); under grad the primal `sin` equations print outside the remat2
    forward, _ = dce_jaxpr_outputs(Jaxpr(k.constvars, k.invars,
                                         k.outvars[:n_known_out] + saved_vars, k.eqns),
                                   True, instantiate=True)
    forward = rounded_where_saved(forward, saved_vars)
    known_outs = []
    if forward.outvars or forward.eqns:
        with set_current_trace(trace.parent):
            known_outs = eval_jaxpr(forward, known_jaxpr.consts, *known_args)
    known_outs, saved = known_outs[:n_known_out], known_outs[n_known_out:]
    n_saved = len(saved)

    def recompute(*xs):
        # the saved values first, then the inputs in their order, as JAX's staged jaxpr
        # takes its residuals
        ins = xs[n_saved:]
        known_in = [x for x, u in zip(ins, unknowns) if not u]
        # the recomputation is named `rematted_computation/sin`, as JAX's
        with name_scope("rematted_computation"):
            residuals = eval_jaxpr(residual_jaxpr.jaxpr, residual_jaxpr.consts, *known_in,
                                   *xs[:n_saved])
        return eval_jaxpr(unknown_jaxpr.jaxpr, unknown_jaxpr.consts, *residuals,
                          *[x for x, u in zip(ins, unknowns) if u])
    recompute_jaxpr = trace_to_jaxpr(recompute, [v.aval for v in saved_vars] + [
        a if u else get_aval(x) for x, a, u in zip(args, jaxpr.in_avals, unknowns)])
    # only what the recomputation reads goes in, as JAX's dce of its staged jaxpr: a
    # function linear in x keeps no residual of x (`saved_residuals` lists none)
    recompute_jaxpr, used = _reading_only(recompute_jaxpr)
    if _logger.isEnabledFor(_log_level()):
        _log_residuals([a for a, u, k in zip(args, used[n_saved:], unknowns) if u and not k],
                       forward, saved_vars)
    # (no trace of a function in JAX's: it rewrites the jaxpr; its transpose is traced, there)
    step = ("partial_eval", tuple(unknowns), _by_identity(params["policy"]))
    _derive(jaxpr, recompute_jaxpr, step, traced=False)
    atoms = [trace.to_atom(x) for x, keep in zip([*saved, *args], used) if keep]
    cse = params["prevent_cse"]        # per input: the saved values' True, as JAX's residuals'
    if not isinstance(cse, bool):
        cse = _flags([True] * n_saved + list(cse), used)
    # JAX's remat partial eval records its equation with the whole name stack where the
    # linearization's own trace keeps what was pushed since it began, so under grad the staged
    # checkpoint is named under jvp twice (`transpose(jvp(jvp()))/remat2` once transposed)
    names = current_names()
    with replaying_names():
        set_names(names + names[trace.name_base:])
        unknown_outs = iter(trace.add_eqn(atoms, remat_p, dict(params, jaxpr=recompute_jaxpr,
                                                               differentiated=True,
                                                               prevent_cse=cse),
                                          recompute_jaxpr.out_avals))
    known_iter = iter(known_outs)
    return [next(unknown_outs) if u else next(known_iter) for u in out_unknowns]


_logger = logging.getLogger("jxkernel.checkpoint")


def _log_level() -> int:
    """JAX's: WARNING with jax_log_checkpoint_residuals, else DEBUG."""
    return logging.WARNING if config.jax_log_checkpoint_residuals else logging.DEBUG


def _log_residuals(inputs, forward: Jaxpr, saved) -> None:
    """JAX's log of what a checkpoint keeps: the inputs its recomputation reads, and the
    intermediates its policy saved, each with where it comes from."""
    made = {v: (e, e.outvars.index(v)) for e in forward.eqns for v in e.outvars}
    sources = [(_long(v.aval), produced_by(*made[v])) for v in saved if v in made]
    text = ("remat-decorated function " +
            "saving inputs with shapes:\n" * bool(inputs) +
            "".join(f"  {_long(get_aval(x))}\n" for x in inputs) +
            "and " * (bool(inputs) and bool(sources)) +
            "saving these intermediates:\n" * bool(sources) +
            "".join(f"  {t} from {s}\n" for t, s in sources))
    _logger.log(_log_level(), text)


def _long(aval) -> str:
    """A type as JAX's log writes it, its dtype's whole name: `float32[3]`."""
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


def _reading_only(closed: ClosedJaxpr):
    """(`closed` without dead code and the inputs it then does not read, which inputs stay)."""
    jaxpr, used = dce_jaxpr_outputs(closed.jaxpr, True)
    return ClosedJaxpr(jaxpr, closed.consts), used


def call_jaxpr(eqn):
    """The jaxpr a jit or checkpoint equation calls (None for others)."""
    jaxpr = eqn.params.get("jaxpr") if eqn.primitive in (jit_p, remat_p) else None
    return getattr(jaxpr, "jaxpr", jaxpr)


def produced_by(eqn, index) -> str:
    """JAX's words for where result `index` of `eqn` comes from (saved_residuals', the
    residual log's): `named 'y' from f.py:3:4 (f)`, `output of sin from ...`."""
    where = eqn.source_info if eqn.source_info is not None else "unknown"
    if eqn.primitive is name_p:
        return f"named '{eqn.params['name']}' from {where}"
    if eqn.primitive is jit_p:
        return f"output of jitted function '{eqn.params['name']}' from {where}"
    if eqn.primitive is remat_p:        # JAX inlines the saved part of a checkpoint
        inner = call_jaxpr(eqn)
        for inner_eqn in inner.eqns:
            if inner.outvars[index] in inner_eqn.outvars:
                return produced_by(inner_eqn, inner_eqn.outvars.index(inner.outvars[index]))
    return f"output of {eqn.primitive.name} from {where}"


def _remat_transpose(cts, *args, jaxpr, prevent_cse, differentiated, policy):
    linear = [is_undefined(a) for a in args]
    nonlinear = [a for a in args if not is_undefined(a)]
    transposed = transpose_jaxpr(jaxpr, linear, refs=True)
    lineage = _lineage.get(jaxpr)     # told where the staged part was made, as JAX's source info
    _derive(jaxpr, transposed, ("transpose", tuple(linear), tuple(type(c) is Zero for c in cts)),
            traced=True, call_site=None if lineage is None else lineage.call_site)
    # Refs a custom_vjp's bwd wrote: their values (a tracer where a trace runs: operands)
    bound, written = refs_as_values(transposed)
    consts, prevent = [], _flags(prevent_cse, [not lin for lin in linear], len(cts))
    if any(isinstance(c, Tracer) for c in bound.consts):
        bound, consts = convert_constvars_to_invars(bound)
        prevent = prevent if isinstance(prevent, bool) else (False,) * len(consts) + prevent
    outs = iter(written(remat_p.bind(*consts, *nonlinear, *[instantiate(c) for c in cts],
                                     jaxpr=bound, prevent_cse=prevent, differentiated=True,
                                     policy=policy)))
    return [next(outs) if lin else None for lin in linear]


def _remat_batching(axis_data, vals, dims, *, jaxpr, **params):
    batched, out_dims = batch_jaxpr(jaxpr, axis_data, dims)
    return remat_p.bind(*vals, jaxpr=batched, **params), out_dims


abstract_eval_rules[remat_p] = lambda *avals, jaxpr, **_: jaxpr.out_avals
# (run eagerly, its results reach the user: a literal one as its value, as JAX's)
impl_rules[remat_p] = lambda *args, jaxpr, **_: held_values(
    eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args))
lowering_rules[remat_p] = _remat_lowering
numpy_rules[remat_p] = call_rule("jaxpr")
jvp_rules[remat_p] = _remat_jvp
transpose_rules[remat_p] = _remat_transpose
# results typed as the body's, unreduced and reduced sets included (JAX's call_ur_rule)
sharding_typing_rules[remat_p] = sharding_types.call_typing
partial_eval_rules[remat_p] = _remat_partial_eval
axis_batching_rules[remat_p] = _remat_batching
# alphabetical, as JAX prints them
param_printers[remat_p] = lambda p: [("differentiated", p["differentiated"]),
                                     ("jaxpr", p["jaxpr"]), ("policy", _policy_text(p["policy"])),
                                     ("prevent_cse", p["prevent_cse"])]


class _Text(str):
    """A parameter's text printed as is (no quotes)."""
    def __repr__(self):
        return str(self)


class _PolicyName(str):
    """`policy='dots_saveable'` as given (a str, equal to it), with the (file, line) of the
    jax.checkpoint call that gave it, which the error's card names and rewrites."""
    given_at = None


def _policy_name_error(name: str) -> TypeError:
    """JAX's error for `policy='dots_saveable'` (it calls the policy, a string, per equation
    while differentiating), carrying the name and the policies there are, for the notebook's
    card (views/error_cards/custom_rules.py)."""
    error = TypeError("'str' object is not callable")
    error.policy, error.policies = str(name), sorted(vars(checkpoint_policies))
    error.policy_given_at = getattr(name, "given_at", None)
    return error


def _policy_text(policy):
    # JAX prints str(policy) with the address masked (`<function nothing_saveable at
    # 0xXXXXXXXXXXXX>`, core.pp_kv_pair); None stays None
    if policy is None or not callable(policy):
        return policy
    return _Text(re.sub(r" at 0x([0-9a-fA-F]+)", lambda m: " at 0x" + "X" * len(m.group(1)),
                        str(policy)))


# ------------------------------------------------------------------ checkpoint_name
name_p = Primitive("name")


def checkpoint_name(x, name: str):
    """`x` (any pytree) unchanged, tagged `name` for the name-based checkpoint policies
    (save_only_these_names, save_any_names_but_these).

    >>> f = checkpoint(lambda x: jnp.sin(checkpoint_name(jnp.sin(x), "mid")),
    ...                policy=checkpoint_policies.save_only_these_names("mid"))
    """
    return tree_map(lambda leaf: name_p.bind(leaf, name=name), x)


def _name_jvp(primals, tangents, *, name):
    (x,), (t,) = primals, tangents
    return name_p.bind(x, name=name), t          # the tangent stays unnamed, as in JAX


abstract_eval_rules[name_p] = lambda x, *, name: x
impl_rules[name_p] = lambda x, *, name: x
lowering_rules[name_p] = lambda ctx, x, *, name: x
numpy_rules[name_p] = lambda x, *, name: x
jvp_rules[name_p] = _name_jvp
batching_rules[name_p] = vectorized_batcher(name_p)


# ------------------------------------------------------------------ policies
# A policy is asked `policy(prim, *input_avals, **params)` for each forward equation whose
# output the backward pass needs: True saves the output, False recomputes it.
def everything_saveable(*_, **__) -> bool:
    """Save every intermediate (as if there were no checkpoint)."""
    return True


def nothing_saveable(*_, **__) -> bool:
    """Recompute every intermediate from the inputs (checkpoint's default)."""
    return False


@dataclasses.dataclass(frozen=True)
class DotsSaveable:
    """Save the results of matrix products (dot_general), optionally only those without batch
    dimensions; recompute the rest."""
    only_if_no_batch_dims: bool

    def __call__(self, prim, *avals, **params):
        if prim is not dot_general_p:
            return False
        if not self.only_if_no_batch_dims:
            return True
        (_, _), (lhs_batch, rhs_batch) = params["dimension_numbers"]
        return not lhs_batch and not rhs_batch


dots_saveable = checkpoint_dots = DotsSaveable(False)
dots_with_no_batch_dims_saveable = checkpoint_dots_with_no_batch_dims = DotsSaveable(True)


@dataclasses.dataclass(frozen=True)
class SaveOnlyTheseNames:
    """Save only values tagged by checkpoint_name with one of `saveable_names`."""
    saveable_names: frozenset

    def __call__(self, prim, *avals, **params):
        return prim is name_p and params["name"] in self.saveable_names


@dataclasses.dataclass(frozen=True)
class SaveAnyNamesButThese:
    """Save only values tagged by checkpoint_name, except those named in `names`."""
    names: frozenset

    def __call__(self, prim, *avals, **params):
        return prim is name_p and params["name"] not in self.names


def save_only_these_names(*names):
    return SaveOnlyTheseNames(frozenset(names))


def save_any_names_but_these(*names):
    return SaveAnyNamesButThese(frozenset(names))


def save_anything_except_these_names(*names_not_to_save):
    """JAX 0.10.2's version saves everything (the names are ignored there too)."""
    return everything_saveable


def offload_dot_with_no_batch_dims(offload_src, offload_dst):
    """dots_with_no_batch_dims_saveable, offloading those results to `offload_dst` memory
    between the passes instead of saving them where they are (Offloadable)."""
    def policy(prim, *_, **params):
        if prim is dot_general_p:
            (_, _), (lhs_batch, rhs_batch) = params["dimension_numbers"]
            if not lhs_batch and not rhs_batch:
                return Offloadable(src=offload_src, dst=offload_dst)
        return Recompute
    return policy


def save_and_offload_only_these_names(*, names_which_can_be_saved, names_which_can_be_offloaded,
                                      offload_src, offload_dst):
    """save_only_these_names, with the names `names_which_can_be_offloaded` offloaded to
    `offload_dst` memory between the passes (Offloadable)."""
    saved, offloaded = set(names_which_can_be_saved), set(names_which_can_be_offloaded)
    both = saved & offloaded
    if both:
        raise ValueError(
            "The names should be exclusive and should not intersect in "
            "`names_which_can_be_saved` and `names_which_can_be_offloaded`. Got "
            f"names_which_can_be_saved={saved}, names_which_can_be_offloaded={offloaded} and "
            f"the intersection={both}")

    def policy(prim, *_, **params):
        if prim is name_p and params["name"] in saved:
            return Saveable
        if prim is name_p and params["name"] in offloaded:
            return Offloadable(src=offload_src, dst=offload_dst)
        return Recompute
    return policy


def save_from_both_policies(policy_1, policy_2):
    """Save what either policy saves."""
    def policy(prim, *avals, **params):
        out1, out2 = policy_1(prim, *avals, **params), policy_2(prim, *avals, **params)
        if not (isinstance(out1, bool) and isinstance(out2, bool)):
            raise ValueError(f"The return value of the policies should be a boolean. Got: {out1} "
                             f"and {out2}. Please write a custom policy function directly, "
                             "rather than using this helper function.")
        return out1 or out2
    return policy


checkpoint_policies = types.SimpleNamespace(
    everything_saveable=everything_saveable, nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable, checkpoint_dots=checkpoint_dots,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=checkpoint_dots_with_no_batch_dims,
    save_anything_except_these_names=save_anything_except_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_only_these_names=save_only_these_names,
    save_from_both_policies=save_from_both_policies,
    offload_dot_with_no_batch_dims=offload_dot_with_no_batch_dims,
    save_and_offload_only_these_names=save_and_offload_only_these_names)
