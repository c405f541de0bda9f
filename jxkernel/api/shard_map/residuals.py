"""shard_map's residuals: linearizing through a shard_map (its partial eval: the known part
runs as one shard_map, the unknown part is staged as another, the residuals passing between
them) and a checkpoint policy's values saved inside a body (remat_saved.py's split rule).

    >>> import jxkernel as jax, jxkernel.numpy as jnp, numpy as np
    >>> from jxkernel._jax._src.ad_checkpoint import saved_residuals
    >>> P, mesh = jax.sharding.PartitionSpec, jax.sharding.Mesh(np.array(jax.devices()[:1]), 'x')
    >>> f = jax.checkpoint(jax.shard_map(lambda a: jnp.sin(jnp.sin(a)), mesh=mesh,
    ...                                  in_specs=P('x'), out_specs=P('x')),
    ...                    policy=jax.checkpoint_policies.everything_saveable)
    >>> [a.str_short() for a, _ in saved_residuals(f, jnp.arange(4.0))]
    ['float32[4]', 'float32[4]']
"""
from __future__ import annotations

from ...core.interpret import eval_jaxpr
from ...core.ir import ClosedJaxpr, Jaxpr, Var
from ...core.avals import NO_UR, get_aval
from ...core.partial_eval import partial_eval_jaxpr
from ...core.primitive import partial_eval_rules
from ...core.staging import convert_constvars_to_invars, trace_to_jaxpr
from ...core.trace import set_current_trace
from ...lax.shapes import expand_dims, squeeze
from ..remat_saved import saved_and_recomputed, split_rules
from .primitive import P, _abstract_eval, _axes_bound, _bind, shard_map_p


def _partial_eval(trace, args, params):
    """Linearizing through a shard_map: the known part runs now as one shard_map, the unknown
    part is staged as another. A residual that is a known operand or result of the body is
    passed on as that value (JAX's forwarding: `saved_residuals` names the argument); each
    other leaves the first shard_map as a result split over the axes it varies over (all
    manual axes with check_vma=False) along its first dimension, a scalar as one element."""
    jaxpr, mesh, manual = params["jaxpr"], params["mesh"], params["newly_manual_axes"]
    in_specs, out_specs = params["in_specs"], params["out_specs"]
    check = params["check_vma"]
    unknowns = [trace.is_unknown(x) for x in args]
    with _axes_bound(mesh, manual, check):
        known, unknown, out_unknowns, n_res = partial_eval_jaxpr(jaxpr, unknowns)
        unknown, unknown_consts = convert_constvars_to_invars(unknown)
        n_known = len(known.out_avals) - n_res
        outvars = known.jaxpr.outvars
        # where each residual comes from: ("in", i) a known operand, ("out", i) a known
        # result, ("res", i) the i-th residual result of the known shard_map
        origins, fresh = [], []
        for r in outvars[n_known:]:
            if r in known.jaxpr.invars:
                origins.append(("in", known.jaxpr.invars.index(r)))
            elif r in outvars[:n_known]:
                origins.append(("out", outvars.index(r)))
            else:
                origins.append(("res", len(fresh)))
                fresh.append(r)
        known = _with_residuals_stacked(ClosedJaxpr(
            Jaxpr(known.jaxpr.constvars, known.jaxpr.invars, outvars[:n_known] + fresh,
                  known.jaxpr.eqns), known.consts), len(fresh))
        promoted = [len(unknown_consts) + i for i, (kind, _) in enumerate(origins)
                    if kind == "res"]
        unknown = _with_residuals_unstacked(unknown, promoted)
    rest = dict(check_vma=check, manual_axes=manual)
    known_in_specs = [s for s, u in zip(in_specs, unknowns) if not u]
    known_out_specs = [s for s, u in zip(out_specs, out_unknowns) if not u]
    res_specs = [_residual_spec(v.aval, mesh, manual, check) for v in fresh]
    known_args = [x for x, u in zip(args, unknowns) if not u]
    with set_current_trace(trace.parent):
        known_outs = _bind(known, known_args, mesh, known_in_specs,
                           known_out_specs + res_specs, **rest)
    residuals, specs = [], []
    for kind, i in origins:
        residuals.append(known_args[i] if kind == "in" else known_outs[i] if kind == "out"
                         else known_outs[n_known + i])
        specs.append(known_in_specs[i] if kind == "in" else known_out_specs[i]
                     if kind == "out" else res_specs[i])
    operands = unknown_consts + residuals + [x for x, u in zip(args, unknowns) if u]
    unknown_specs = [P()] * len(unknown_consts) + specs + \
        [s for s, u in zip(in_specs, unknowns) if u]
    unknown_out_specs = tuple(s for s, u in zip(out_specs, out_unknowns) if u)
    eqn_params = dict(jaxpr=unknown, mesh=mesh, in_specs=tuple(unknown_specs),
                      out_specs=unknown_out_specs, check_vma=check,
                      newly_manual_axes=manual)
    avals = _abstract_eval(jaxpr=unknown, **{k: v for k, v in eqn_params.items()
                                              if k != "jaxpr"})
    unknown_outs = iter(trace.add_eqn([trace.to_atom(x) for x in operands], shard_map_p,
                                      eqn_params, avals))
    known_iter = iter(known_outs[:n_known])
    return [next(unknown_outs) if u else next(known_iter) for u in out_unknowns]


def _residual_spec(aval, mesh, manual, check_vma) -> P:
    """How a residual leaves a shard_map body (JAX's nospec): its first dimension split over
    the manual axes it varies over (with check_vma=False, all of them), unreduced and reduced
    over those its type says (so the staged body sees it typed as the known one made it)."""
    axes = aval.vma & frozenset(manual) if check_vma else frozenset(manual)
    names = tuple(a for a in mesh.axis_names if a in axes)
    unreduced, reduced = getattr(aval, "ur", NO_UR) if check_vma else NO_UR
    return P(names, unreduced=unreduced, reduced=reduced) if names else \
        P(unreduced=unreduced, reduced=reduced)


def _with_residuals_stacked(known: ClosedJaxpr, n_res: int) -> ClosedJaxpr:
    """`known` with each of its last `n_res` outputs (the residuals, whose first dimension the
    devices' blocks are stacked along, as JAX's) of rank one at least: a scalar as one
    element."""
    n_out = len(known.out_avals) - n_res

    def body(*args):
        outs = eval_jaxpr(known.jaxpr, known.consts, *args)
        return list(outs[:n_out]) + [r if get_aval(r).shape else expand_dims(r, (0,))
                                     for r in outs[n_out:]]
    return trace_to_jaxpr(body, known.in_avals)


def _with_residuals_unstacked(unknown: ClosedJaxpr, scalars) -> ClosedJaxpr:
    """`unknown` taking each residual input at the indices `scalars` that is a scalar as the
    known part gave it, as one element."""
    avals = list(unknown.in_avals)
    scalars = [i for i in scalars if not avals[i].shape]
    for i in scalars:
        avals[i] = avals[i].update(shape=(1,))

    def body(*args):
        args = list(args)
        for i in scalars:
            args[i] = squeeze(args[i], (0,))
        return eval_jaxpr(unknown.jaxpr, unknown.consts, *args)
    return trace_to_jaxpr(body, avals)


def _remat_split(eqn, used, policy):
    """A checkpoint's policy inside a shard_map body (api/remat_saved.py's split rules): the
    forward shard_map returns the values the policy saves in the body, the recomputing one
    takes them. Each saved value leaves the body as _partial_eval's residuals do."""
    p = eqn.params
    closed, mesh, manual = p["jaxpr"], p["mesh"], p["newly_manual_axes"]
    known, saved, recompute = saved_and_recomputed(closed.jaxpr, used, policy)
    if not saved:
        return None
    n_out = len(known.outvars)
    forward = ClosedJaxpr(Jaxpr(known.constvars, known.invars, known.outvars + saved,
                                known.eqns), closed.consts)
    again = ClosedJaxpr(recompute, closed.consts)
    blocks = [v.aval if v.aval.shape else v.aval.update(shape=(1,)) for v in saved]
    n_in = len(closed.in_avals)

    def forward_body(*args):
        outs = eval_jaxpr(forward.jaxpr, forward.consts, *args)
        return outs[:n_out] + [r if get_aval(r).shape else expand_dims(r, (0,))
                               for r in outs[n_out:]]

    def recompute_body(*args):
        res = [r if v.aval.shape else squeeze(r, (0,)) for r, v in zip(args[n_in:], saved)]
        return eval_jaxpr(again.jaxpr, again.consts, *args[:n_in], *res)

    with _axes_bound(mesh, manual, p["check_vma"]):
        forward = trace_to_jaxpr(forward_body, list(closed.in_avals))
        again = trace_to_jaxpr(recompute_body, list(closed.in_avals) + blocks)
    res_specs = tuple(_residual_spec(v.aval, mesh, manual, p["check_vma"]) for v in saved)
    out_specs = tuple(p["out_specs"]) + res_specs
    avals = _abstract_eval(*[v.aval for v in eqn.invars], jaxpr=forward, mesh=mesh,
                           in_specs=p["in_specs"], out_specs=out_specs,
                           check_vma=p["check_vma"], newly_manual_axes=manual)
    inner = [Var(a) for a in avals[n_out:]]
    known_eqn = eqn.replace(outvars=eqn.outvars + inner,
                            params=dict(p, jaxpr=forward, out_specs=out_specs))
    recompute_eqn = eqn.replace(
        invars=eqn.invars + inner, outvars=[v for v, u in zip(eqn.outvars, used) if u],
        params=dict(p, jaxpr=again, in_specs=tuple(p["in_specs"]) + res_specs,
                    out_specs=tuple(s for s, u in zip(p["out_specs"], used) if u)))
    return known_eqn, inner, recompute_eqn


partial_eval_rules[shard_map_p] = _partial_eval
split_rules[shard_map_p] = _remat_split
