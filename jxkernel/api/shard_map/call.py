"""A shard_map-wrapped function called: its arguments checked (checks.py), then
run eagerly device by device (eager.py) or traced with local types into one
`shard_map` equation (primitive.py), the trace cached per signature and place.
"""
from __future__ import annotations

from ...core import vma
from ...core.avals import NO_UR, explicit_axes, get_aval
from ...core.compile_record import log_trace_miss
from ...core.config import config
from ...core.lru import LRU, SIGNATURES
from ...core.staging import convert_constvars_to_invars, is_ref, trace_to_jaxpr
from ...core.mesh import AbstractMesh, NamedSharding
from ...core.source_info import traced_call_site, users_function
from ...core.trace import EvalTrace, Tracer, _ctx, current_trace
from ...core.traceback_util import api_boundary
from ...transforms.api_util import flatten_fun, wraps
from ...tree_util import tree_flatten, tree_unflatten
from .checks import (
    Infer,
    _check_args,
    _check_explicit_args,
    _check_out_ranks,
    _check_vma,
    _checked_mesh,
    _concrete_mesh,
    _flat_in_specs,
    _flat_out_specs,
    _fun_name,
)
from .eager import _run_eagerly, _runs_eagerly
from ..state import new_ref
from .primitive import (
    P,
    _axes_bound,
    _bodies,
    _manual_abstract,
    _local_aval,
    _named_axes,
    _outer_manual,
    shard_map_p,
)

# shard_map_p's rules for linearizing through it and for checkpoint policies inside a body:
# this module binds every shard_map equation, so importing them here gives them to every one
from . import residuals  # noqa: F401,E402


@api_boundary
def _shard_map(f, *, out_specs, in_specs, mesh, axis_names, check_vma, eager=True):
    """`f` as a shard_map: each call checks its arguments, then runs eagerly (outside any
    transformation, when `eager`) or binds one shard_map equation of the body traced for
    the call's types (cached per signature and place)."""
    if not callable(f):
        raise TypeError(f"shard_map requires a callable for its first argument, but got {f} "
                        f"of type {type(f)}.")

    traces = LRU(SIGNATURES)   # signature -> its traced body, so a call in a loop binds one jaxpr

    @wraps(f)             # outside the boundary, as vmap's: `__wrapped__` is the user's f
    @api_boundary
    def wrapped(*args):
        mesh_, manual = _checked_mesh(mesh, axis_names, in_specs, out_specs, check_vma)
        flat_args, in_tree = tree_flatten(args)
        if isinstance(mesh_, AbstractMesh) and type(current_trace()) is EvalTrace \
                and not _bodies:
            # run now: on the devices of the context's mesh or of the arguments (traced, the
            # mesh stays abstract and the enclosing jit's mesh lowers it)
            mesh_ = _concrete_mesh(mesh_, flat_args)
        specs = _flat_in_specs(in_specs, args, flat_args, mesh_, manual)
        refs = [i for i, x in enumerate(flat_args) if is_ref(x) and specs[i] is not None]
        if refs and type(current_trace()) is not EvalTrace:
            return _through_refs(f, args, flat_args, in_tree, specs, refs, in_specs,
                                 out_specs, mesh, axis_names, check_vma, eager)
        static = [s is None for s in specs]
        dyn = [x for x, s in zip(flat_args, static) if not s]
        dyn_specs = tuple(s for s in specs if s is not None)
        avals = tuple(get_aval(x) for x in dyn)
        _check_explicit_args(mesh_, manual, dyn, dyn_specs, avals)
        if eager and _runs_eagerly(mesh_, manual):
            _check_args(f, mesh_, args, flat_args, specs, avals, static, in_specs)
            return _run_eagerly(_staged, f, flat_args, in_tree, static, dyn, dyn_specs, avals,
                                out_specs, mesh_, check_vma)
        # The body's trace depends on where the call is: inside another body the manual axes
        # are fewer, the named axes around it are read at trace time (lax.axis_size), and an
        # enclosing check_vma body types the values (pvary). A trace made in one place and
        # reused in another would skip that place's out_specs check.
        key = (in_tree, avals, dyn_specs, mesh_, manual, _outer_manual(), config._trace_state) + \
            vma.trace_place() if not any(static) else None
        _log_body_miss(f)
        found = traces.get(key) if key is not None else None
        if found is None:
            _check_args(f, mesh_, args, flat_args, specs, avals, static, in_specs)
            found = _trace_body(f, flat_args, in_tree, static, avals, dyn_specs, out_specs,
                                mesh_, manual, check_vma)
            if key is not None and not any(isinstance(c, Tracer) for c in found[1]):
                traces[key] = found
        body, consts, out_tree, flat_out = found
        outs = shard_map_p.bind(*consts, *dyn, jaxpr=body, mesh=mesh_,
                                in_specs=(P(),) * len(consts) + dyn_specs,
                                out_specs=flat_out, check_vma=check_vma,
                                newly_manual_axes=manual)
        return tree_unflatten(out_tree, outs)
    return wrapped


def _through_refs(f, args, flat_args, in_tree, specs, refs, in_specs, out_specs, mesh,
                  axis_names, check_vma, eager):
    """A traced call given Refs (a jit's Ref arguments): each Ref's value goes in as an
    array split as its spec says, the body gets a Ref of its block (`new_ref`) and gives
    back that Ref's last value, split so again, written into the Ref after the call: the
    writes JAX's shard_map makes through a Ref operand, as values (JAX stages the Ref itself:
    `b:Ref{f32[2]{V:x}}` in the body's jaxpr). An eager call refuses Refs (as JAX's does)."""
    def body(*leaves):
        leaves = list(leaves)
        made = {i: new_ref(leaves[i]) for i in refs}
        out = f(*tree_unflatten(in_tree, [made.get(i, x) for i, x in enumerate(leaves)]))
        return out, [made[i][...] for i in refs]

    values = [x[...] if i in refs else x for i, x in enumerate(flat_args)]
    specs_in = in_specs if in_specs is Infer else tuple(tree_unflatten(in_tree, specs))
    out, finals = _shard_map(body, out_specs=(out_specs, [specs[i] for i in refs]),
                             in_specs=specs_in, mesh=mesh, axis_names=axis_names,
                             check_vma=check_vma, eager=eager)(
        *tree_unflatten(in_tree, values))
    for i, v in zip(refs, finals):
        flat_args[i][...] = v
    return out


def _log_body_miss(f) -> None:
    """With jax_explain_cache_misses on, JAX's TRACING CACHE MISS for a shard_map body staged
    into a trace (inside jit, make_jaxpr): JAX 0.10.2 traces it anew at each such call, a
    function never seen ("never seen function: body", with the re-defined hint where its call
    site traced one before), logged before the body's trace; jxkernel keeps the trace
    (`traces`), but logs what JAX logs. Not for jxkernel's own bodies (pmap's `_fun`)."""
    if not config.jax_explain_cache_misses:
        return
    user = users_function(f)
    if user is not None and not getattr(f, "_logs_no_miss", False):
        log_trace_miss(user.function, f"{user.file}:{user.line}", traced_call_site(),
                       fun_id=id(f))


def _trace_body(f, flat_args, in_tree, static, avals, dyn_specs, out_specs, mesh, manual,
                check_vma) -> tuple:
    """(body taking its constants first, the constants, out tree, out specs) of `f` traced
    with local types; raises JAX's errors for bad out_specs and unchecked replication."""
    local = [_local_aval(a, s, mesh, check_vma) for a, s in zip(avals, dyn_specs)]
    if manual != frozenset(mesh.axis_names):    # (typed over the Explicit axes left)
        local = [_body_typed(a, l, mesh, manual | _outer_manual())
                 for a, l in zip(avals, local)]
    flat, out_tree = flatten_fun(f, in_tree)

    def body(*xs):
        # (staged here where JAX runs it eagerly, under vmap or grad, by its ShardMapTrace: no
        # jit for jax.extend.core's unsafe_am_i_under_a_jit_DO_NOT_USE)
        _ctx.trace.shard_map_body = True
        it = iter(xs)
        leaves = flat(*[x if s else next(it) for x, s in zip(flat_args, static)])
        out_struct = tree_unflatten(out_tree(), [0] * len(leaves))
        specs = _flat_out_specs(out_specs, out_struct)
        _check_out_ranks(f, out_specs, out_struct, specs, [get_aval(x) for x in leaves])
        if check_vma:       # an output split over axes it is the same along varies over them
            leaves = [_varying_as(x, s) for x, s in zip(leaves, specs)]
        return leaves

    with _axes_bound(mesh, manual, check_vma):
        closed = trace_to_jaxpr(body, local)
    out_struct = tree_unflatten(out_tree(), [0] * len(closed.out_avals))
    flat_out = tuple(_flat_out_specs(out_specs, out_struct))
    if check_vma:
        _check_vma(_fun_name(f), mesh, manual, closed.out_avals, flat_out, out_struct)
    opened, consts = convert_constvars_to_invars(closed)
    return opened, consts, out_tree(), flat_out


def _body_typed(aval, local, mesh, manual):
    """`local` (a partly manual body's input) typed over the Explicit axes left to the body
    as its argument `aval` is split over them, on the mesh with the manual axes Manual (JAX's
    _shard_shaped_array); as it is where none is."""
    sharding = aval.split
    if sharding is None or manual >= explicit_axes(mesh):
        return local
    ndim = len(aval.shape)
    parts = []
    for axes in sharding.spec._axes(ndim):
        kept = tuple(a for a in axes if a not in manual)
        parts.append(None if not kept else kept[0] if len(kept) == 1 else kept)
    return local.update(sharding=NamedSharding(_manual_abstract(mesh, manual), P(*parts)))


def _varying_as(x, spec):
    """`x` typed as varying over every axis `spec` names, and unreduced over its unreduced
    axes (each device's value its summand: JAX's vary_unreduced_cast, which refuses a value
    not varying over them); JAX's error where its reduced axes are not the value's."""
    if spec is None:
        return x
    missing = frozenset(_named_axes(spec)) - vma.vma_of(x)
    x = vma.pvary(x, missing) if missing else x
    unreduced, reduced = getattr(get_aval(x), "ur", NO_UR)
    if spec.unreduced - unreduced:
        x = vma.vary_unreduced_cast(x, spec.unreduced - unreduced)
        unreduced = spec.unreduced
    for kind, have, want in (("unreduced", unreduced, spec.unreduced),
                             ("reduced", reduced, spec.reduced)):
        if have != want:
            raise ValueError(f"out_specs passed to shard_map should be equal to the {kind} "
                             f"present on the out_aval. Got out_specs={spec} and "
                             f"out_aval={get_aval(x).str_short(True)}")
    return x


def _staged(f, mesh, in_specs, out_specs, check_vma=False):
    """The traced (never eager) shard_map of `f` over the whole mesh: what each step of an
    eager run is (eager.py)."""
    return _shard_map(f, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                      axis_names=frozenset(), check_vma=check_vma, eager=False)
