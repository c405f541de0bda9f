"""shard_map: write the per-device program yourself, with collectives over mesh axes.

    >>> mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))      # 8 devices
    >>> f = shard_map(lambda a: lax.psum(a, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P())
    >>> f(jnp.arange(8.0)).tolist()                  # each device holds 2; the 4 blocks summed
    [12.0, 16.0]

The body is traced once with *local* shapes (each dimension divided by the mesh axes its
in_spec names) into a `shard_map` equation whose outputs have *global* shapes (out_specs say
how the local blocks are put together). The equation lowers to Shardy's
`sdy.manual_computation` inside a program partitioned over the mesh (xla/sharded.py); in its
body the collectives of lax/parallel.py address devices by their position in the mesh
(`mesh_groups`). A shard_map run eagerly, or under a jit without shardings, is partitioned
over its own mesh.
"""
from __future__ import annotations

import contextlib
import functools
import math

import numpy as np

from ..core import compile_record
from ..core.config import config
from ..core import vma
from ..core.avals import ShapedArray, explicit_axes, get_aval, public_type, typed_sharding
from ..core.interpret import eval_jaxpr
from ..core.ir import ClosedJaxpr, param_printers
from ..core.lru import LRU, PROGRAMS, SIGNATURES, TRACES
from ..core.mesh import (
    AxisType,
    DuplicateSpecError,
    Mesh,
    NamedSharding,
    PartitionSpec,
    get_mesh,
)
from ..core.partial_eval import partial_eval_jaxpr
from ..core.primitive import (
    Primitive,
    abstract_eval_rules,
    axis_batching_rules,
    impl_rules,
    jvp_rules,
    lowering_rules,
    numpy_rules,
    partial_eval_rules,
    sharding_typing_rules,
    transpose_rules,
)
from ..core.axis_env import bound_axis, visible_axes
from ..core.staging import convert_constvars_to_invars, trace_to_jaxpr
from ..core.trace import (EvalTrace, Trace, Tracer, current_trace, new_trace,
                          set_current_trace)
from ..transforms import batch_util as bu
from ..transforms.ad_util import Zero, instantiate, is_undefined
from ..xla.lowering import NeedsMesh
from ..lax.elementwise import div
from ..lax.parallel import psum_p
from ..lax.shapes import expand_dims, squeeze
from ..tree_util import (
    broadcast_prefix,
    keystr,
    prefix_errors,
    tree_flatten,
    tree_flatten_with_path,
    tree_unflatten,
)
from ..xla import stablehlo as hlo
from ..xla.dispatch import primitive_jaxpr
from ..xla.sharded import ShardedArray, run_jaxpr
from ..xla.sharding import sdy_dims
from ..transforms.ad import jvp_jaxpr, transpose_jaxpr
from ..transforms.api_util import flatten_fun, wraps
from ..transforms.batching import AxisData, batch_jaxpr
from ..core.numpy_eval import eval_closed_jaxpr_numpy

P = PartitionSpec
shard_map_p = Primitive("shard_map", multiple_results=True)


class _InferType:
    """in_specs' default: take each argument's spec from its sharding (Explicit axes only)."""

    def __repr__(self):
        return "Infer"


Infer = _InferType()


# ------------------------------------------------------------------ shapes
def _named_axes(spec: PartitionSpec) -> set:
    """Every mesh axis `spec` splits some dimension over."""
    return {a for axes in spec._axes(0) for a in axes}


def _local_aval(aval, spec, mesh, check_vma=False) -> ShapedArray:
    """The block one device sees of a value of global type `aval` split as `spec` (varying
    over the axes `spec` names, when types are checked)."""
    sizes = mesh.shape
    shape = tuple(n // math.prod(sizes[a] for a in axes)
                  for n, axes in zip(aval.shape, spec._axes(len(aval.shape))))
    # (a body nested in another keeps the outer body's axes)
    return ShapedArray(shape, aval.dtype, aval.weak_type,
                       aval.vma | frozenset(_named_axes(spec)) if check_vma else aval.vma)


def _global_aval(aval, spec, mesh, manual_axes=frozenset()) -> ShapedArray:
    """The value of type `aval` on every device, put together as `spec` says (varying over
    an enclosing body's axes only)."""
    sizes = mesh.shape
    shape = tuple(n * math.prod(sizes[a] for a in axes)
                  for n, axes in zip(aval.shape, spec._axes(len(aval.shape))))
    return ShapedArray(shape, aval.dtype, aval.weak_type, aval.vma - manual_axes)


def _unmentioned(spec, manual_axes, mesh) -> tuple:
    """The manual axes `spec` does not split over (in mesh order): the value is one over them."""
    named = _named_axes(spec)
    return tuple(a for a in mesh.axis_names if a in manual_axes and a not in named)


# (mesh, manual axes) of each shard_map body being traced, innermost last: a shard_map in
# a body takes that mesh, and its body is manual over both bodies' axes
_bodies: list = []


class _axes_bound:
    """The mesh's manual axes are named axes while a body is traced (lax.axis_size sees them);
    with `check_vma` the body's types carry the axes each value varies over (core/vma.py)."""

    def __init__(self, mesh, manual_axes, check_vma=False):
        self.bound = [bound_axis(a, s) for a, s in zip(mesh.axis_names, mesh.axis_sizes)
                      if a in manual_axes]
        self.body = (mesh, manual_axes | _outer_manual())
        if check_vma:
            self.bound.append(vma.checking(self.body[1], mesh.axis_names))

    def __enter__(self):
        _bodies.append(self.body)
        for b in self.bound:
            b.__enter__()

    def __exit__(self, *exc):
        for b in reversed(self.bound):
            b.__exit__()
        _bodies.pop()


def _outer_manual() -> frozenset:
    """The manual axes of the shard_map bodies being traced around this one."""
    return _bodies[-1][1] if _bodies else frozenset()


# ------------------------------------------------------------------ the primitive's rules
def _abstract_eval(*avals, jaxpr, mesh, in_specs, out_specs, check_vma, newly_manual_axes):
    outs = [_global_aval(a, s, mesh, newly_manual_axes)
            for a, s in zip(jaxpr.out_avals, out_specs)]
    if newly_manual_axes != frozenset(mesh.axis_names) or not explicit_axes(mesh):
        return outs
    # manual over a whole mesh with Explicit axes: the results' types say how out_specs
    # split them (f32[6@i]), as JAX's
    return [a.update(sharding=typed_sharding(NamedSharding(mesh, s), len(a.shape)))
            for a, s in zip(outs, out_specs)]


def _bind(body: ClosedJaxpr, args, mesh, in_specs, out_specs, check_vma, manual_axes):
    """Bind shard_map_p on `body`; its constants become replicated leading operands."""
    body, consts = convert_constvars_to_invars(body)
    return shard_map_p.bind(*consts, *args, jaxpr=body, mesh=mesh,
                            in_specs=(P(),) * len(consts) + tuple(in_specs),
                            out_specs=tuple(out_specs), check_vma=check_vma,
                            newly_manual_axes=manual_axes)


def _sharding_text(spec, ndim, mesh, manual_axes) -> str:
    """The block sharding of a manual computation's operand or result; where some mesh axes
    stay automatic, each dimension is left open to them (`{"x", ?}`), as JAX writes it."""
    if manual_axes == frozenset(mesh.axis_names):
        return sdy_dims(NamedSharding(mesh, spec), ndim)
    dims = ", ".join("{" + "".join(f'"{a}", ' for a in axes) + "?}" for axes in spec._axes(ndim))
    return f"<@mesh, [{dims}]>"


def _lowering(ctx, *args, jaxpr, mesh, in_specs, out_specs, check_vma, newly_manual_axes):
    module_ctx = ctx.module_ctx
    if module_ctx.mesh is None:     # jit catches this and partitions the program over the mesh
        raise NeedsMesh("shard_map inside a program compiled for one device", mesh)
    if module_ctx.mesh != mesh and (module_ctx.mesh._ids, module_ctx.mesh.axis_names) != \
            (mesh._ids, mesh.axis_names):
        raise ValueError(f"shard_map's mesh {mesh} differs from the mesh {module_ctx.mesh} the "
                         f"enclosing jit is partitioned over; use one mesh")
    outer = module_ctx.manual            # a body nested in another is manual over both's axes
    block = ctx.new_block([hlo.aval_type(a) for a in jaxpr.in_avals])
    module_ctx.manual = (mesh, newly_manual_axes | (outer[1] if outer else frozenset()))
    try:
        # rules lowered by tracing a function (scan's while loop) see the body's types
        with vma.checking(module_ctx.manual[1], mesh.axis_names) if check_vma else \
                contextlib.nullcontext():
            outs = ctx.lower_jaxpr(jaxpr, block.args, block)
    finally:
        module_ctx.manual = outer
    block.ret(outs, op="sdy.return")
    ins = ", ".join(_sharding_text(s, len(a.shape), mesh, newly_manual_axes)
                    for s, a in zip(in_specs, ctx.avals_in))
    outs_text = ", ".join(_sharding_text(s, len(a.shape), mesh, newly_manual_axes)
                          for s, a in zip(out_specs, ctx.avals_out))
    manual = ", ".join(f'"{a}"' for a in mesh.axis_names if a in newly_manual_axes)
    return ctx.op("sdy.manual_computation", list(args), regions=[block], attrs={
        "in_shardings": f"#sdy.sharding_per_value<[{ins}]>",
        "out_shardings": f"#sdy.sharding_per_value<[{outs_text}]>",
        "manual_axes": f"#sdy<manual_axes{{{manual}}}>"})


def _impl(*args, **params):
    """Run eagerly: one program of this equation, partitioned over the mesh."""
    avals = tuple(get_aval(a) for a in args)
    return run_jaxpr(_one_equation(avals, params), "shard_map", list(args), params["mesh"],
                     on_compile=_log_compile)


def _log_compile(avals, shardings, phases, platform):
    """An eager shard_map's program in the compile log, as jit's are (the notebook's count,
    the Compilations panel, %jxcompiles). Eager, as JAX's eager shard_map is: one program per
    equation run, named by no function of the user's (a jit of it is the user's)."""
    compile_record.record_compiled(
        "shard_map", tuple((f"args[{i}]", f"{a.str_short()} {s.spec}")
                           for i, (a, s) in enumerate(zip(avals, shardings))), phases, platform,
        origin=compile_record.EAGER)


_equations = LRU(TRACES)     # (avals, params) -> the one-equation ClosedJaxpr run eagerly


def _one_equation(avals, params) -> ClosedJaxpr:
    key = (avals, tuple(params.items()))
    found = _equations.get(key)
    if found is None:
            found = _equations[key] = ClosedJaxpr(primitive_jaxpr(shard_map_p, avals, params), [])
    return found


def _jvp(primals, tangents, *, jaxpr, mesh, in_specs, out_specs, check_vma,
         newly_manual_axes):
    """One shard_map computing primal and tangent outputs; a tangent is split as its primal."""
    nonzeros = [type(t) is not Zero for t in tangents]
    with _axes_bound(mesh, newly_manual_axes, check_vma):
        body, out_nonzeros = jvp_jaxpr(jaxpr, nonzeros)
    tangent_specs = [s for s, nz in zip(in_specs, nonzeros) if nz]
    out_tangent_specs = [s for s, nz in zip(out_specs, out_nonzeros) if nz]
    outs = _bind(body, list(primals) + [t for t in tangents if type(t) is not Zero], mesh,
                 list(in_specs) + tangent_specs, list(out_specs) + out_tangent_specs,
                 check_vma, newly_manual_axes)
    n = len(out_specs)
    rest = iter(outs[n:])
    return outs[:n], [next(rest) if nz else Zero(get_aval(o))
                      for nz, o in zip(out_nonzeros, outs[:n])]


def _transpose(cts, *args, jaxpr, mesh, in_specs, out_specs, check_vma, newly_manual_axes):
    """The transposed body as a shard_map. With check_vma the body's types say where values
    are the same on every device, and their transposes (pvary's is a psum) sum cotangents
    where they must. Without, a value one over some manual axes (its spec leaves them out)
    stands for one copy per device: its cotangent is divided among the devices on the way in
    and summed over them on the way out (JAX's rule with check_vma=False)."""
    linear = [is_undefined(a) for a in args]
    nonlinear = [a for a in args if not is_undefined(a)]
    cts = [instantiate(ct) for ct in cts]
    with _axes_bound(mesh, newly_manual_axes, check_vma):
        body = transpose_jaxpr(jaxpr, linear)
        if not check_vma:
            body = _spread_and_sum(body, len(nonlinear), mesh, newly_manual_axes,
                                   list(out_specs), [s for s, lin in zip(in_specs, linear) if lin])
    in_cts = iter(_bind(body, nonlinear + cts, mesh,
                        [s for s, lin in zip(in_specs, linear) if not lin] + list(out_specs),
                        [s for s, lin in zip(in_specs, linear) if lin], check_vma,
                        newly_manual_axes))
    return [next(in_cts) if lin else None for lin in linear]


def _spread_and_sum(transposed, n_nonlinear, mesh, manual_axes, ct_specs, in_specs):
    """`transposed` with each cotangent divided by the devices that share it, and each input's
    cotangent summed over the devices that share that input."""
    sizes = mesh.shape

    def body(*args):
        nonlinear, cts = args[:n_nonlinear], list(args[n_nonlinear:])
        for i, spec in enumerate(ct_specs):
            n = math.prod(sizes[a] for a in _unmentioned(spec, manual_axes, mesh))
            if n != 1 and np.issubdtype(cts[i].aval.dtype, np.inexact):
                cts[i] = div(cts[i], np.asarray(n, cts[i].aval.dtype))
        outs = eval_jaxpr(transposed.jaxpr, transposed.consts, *nonlinear, *cts)
        summed = []
        for o, spec in zip(outs, in_specs):
            axes = _unmentioned(spec, manual_axes, mesh)
            summed.append(psum_p.bind(o, axes=axes, axis_index_groups=None)[0] if axes else o)
        return summed
    return trace_to_jaxpr(body, transposed.in_avals)


def _batching(axis_data, vals, dims, *, jaxpr, mesh, in_specs, out_specs, check_vma,
              newly_manual_axes):
    """vmap of a shard_map: the batch axis leads every block and is split over no mesh axis."""
    vals = [v if d is bu.not_mapped else bu.moveaxis(v, d, 0) for v, d in zip(vals, dims)]
    in_dims = [bu.not_mapped if d is bu.not_mapped else 0 for d in dims]
    with _axes_bound(mesh, newly_manual_axes, check_vma):
        body, _ = batch_jaxpr(jaxpr, axis_data, in_dims,
                              force_out_batched=[True] * len(out_specs))
    lead = lambda s: P(None, *s)        # noqa: E731
    outs = _bind(body, vals, mesh,
                 [s if d is bu.not_mapped else lead(s) for s, d in zip(in_specs, in_dims)],
                 [lead(s) for s in out_specs], check_vma, newly_manual_axes)
    return outs, [0] * len(outs)


def _partial_eval(trace, args, params):
    """Linearizing through a shard_map: the known part runs now as one shard_map, the unknown
    part is staged as another. Residuals differ per device, so each leaves the first one with
    a new leading axis split over all manual axes and enters the second one alike."""
    jaxpr, mesh, manual = params["jaxpr"], params["mesh"], params["newly_manual_axes"]
    in_specs, out_specs = params["in_specs"], params["out_specs"]
    unknowns = [trace.is_unknown(x) for x in args]
    with _axes_bound(mesh, manual, params["check_vma"]):
        known, unknown, out_unknowns, n_res = partial_eval_jaxpr(jaxpr, unknowns)
        unknown, unknown_consts = convert_constvars_to_invars(unknown)
        known = _with_residuals_stacked(known, n_res)
        unknown = _with_residuals_unstacked(unknown, len(unknown_consts), n_res)
    res_spec = P(tuple(a for a in mesh.axis_names if a in manual))
    rest = dict(check_vma=params["check_vma"], manual_axes=manual)
    known_out_specs = [s for s, u in zip(out_specs, out_unknowns) if not u]
    with set_current_trace(trace.parent):
        known_outs = _bind(known, [x for x, u in zip(args, unknowns) if not u], mesh,
                           [s for s, u in zip(in_specs, unknowns) if not u],
                           known_out_specs + [res_spec] * n_res, **rest)
    n_known = len(known_out_specs)
    operands = unknown_consts + list(known_outs[n_known:]) + \
        [x for x, u in zip(args, unknowns) if u]
    unknown_specs = [P()] * len(unknown_consts) + [res_spec] * n_res + \
        [s for s, u in zip(in_specs, unknowns) if u]
    unknown_out_specs = tuple(s for s, u in zip(out_specs, out_unknowns) if u)
    eqn_params = dict(jaxpr=unknown, mesh=mesh, in_specs=tuple(unknown_specs),
                      out_specs=unknown_out_specs, check_vma=params["check_vma"],
                      newly_manual_axes=manual)
    avals = _abstract_eval(jaxpr=unknown, **{k: v for k, v in eqn_params.items()
                                              if k != "jaxpr"})
    unknown_outs = iter(trace.add_eqn([trace.to_atom(x) for x in operands], shard_map_p,
                                      eqn_params, avals))
    known_iter = iter(known_outs[:n_known])
    return [next(unknown_outs) if u else next(known_iter) for u in out_unknowns]


def _with_residuals_stacked(known: ClosedJaxpr, n_res: int) -> ClosedJaxpr:
    """`known` with each of its last `n_res` outputs given a leading axis of one."""
    n_out = len(known.out_avals) - n_res

    def body(*args):
        outs = eval_jaxpr(known.jaxpr, known.consts, *args)
        return list(outs[:n_out]) + [expand_dims(r, (0,)) for r in outs[n_out:]]
    return trace_to_jaxpr(body, known.in_avals)


def _with_residuals_unstacked(unknown: ClosedJaxpr, n_consts: int, n_res: int) -> ClosedJaxpr:
    """`unknown` taking each residual with the leading axis of one that the known part added."""
    avals = list(unknown.in_avals)
    for i in range(n_consts, n_consts + n_res):
        avals[i] = avals[i].update(shape=(1,) + avals[i].shape)

    def body(*args):
        args = list(args)
        for i in range(n_consts, n_consts + n_res):
            args[i] = squeeze(args[i], (0,))
        return eval_jaxpr(unknown.jaxpr, unknown.consts, *args)
    return trace_to_jaxpr(body, avals)


def _stacked_blocks(x, spec, manual, sizes) -> tuple:
    """(x's blocks stacked along leading axes, one per manual axis spec splits x over, in
    mesh order; those axes): a dimension split over axes (a, b) is a's blocks of b's."""
    shape, where = [], {}
    for n, axes in zip(x.shape, spec._axes(x.ndim)):
        for a in axes:
            where[a] = len(shape)
            shape.append(sizes[a])
        shape.append(n // math.prod(sizes[a] for a in axes))
    split = [a for a in manual if a in where]
    lead = [where[a] for a in split]
    return x.reshape(shape).transpose(lead + [i for i in range(len(shape)) if i not in lead]), split


def _joined_blocks(y, spec, manual, sizes):
    """The global value of results y stacked along one leading axis per manual axis (mesh
    order), put together as spec says: block 0 along the axes spec leaves out (the result
    is the same on all of them)."""
    block = y.shape[len(manual):]
    dims = spec._axes(len(block))
    named = [a for a in manual if any(a in axes for axes in dims)]
    y = y[tuple(slice(None) if a in named else 0 for a in manual)]
    order = []
    for d, axes in enumerate(dims):
        order += [named.index(a) for a in axes] + [len(named) + d]
    return y.transpose(order).reshape(
        [n * math.prod(sizes[a] for a in axes) for n, axes in zip(block, dims)])


@functools.lru_cache(maxsize=None)
def _closed_body(jaxpr) -> ClosedJaxpr:
    """The body as one ClosedJaxpr per body, so batch_jaxpr's cache finds it again."""
    return jaxpr if isinstance(jaxpr, ClosedJaxpr) else ClosedJaxpr(jaxpr, [])


def _numpy(*args, jaxpr, mesh, in_specs, out_specs, check_vma, newly_manual_axes):
    """With NumPy (one device) each manual mesh axis is a vmap axis: the operands' blocks
    stacked along leading axes, the body batched over them (innermost axis first, its
    collectives reducing along them as vmap's rules do), the results' blocks put together."""
    manual = [a for a in mesh.axis_names if a in newly_manual_axes]
    sizes = mesh.shape
    blocks, splits = zip(*[_stacked_blocks(x, s, manual, sizes)
                           for x, s in zip(args, in_specs)]) if args else ((), ())
    body = _closed_body(jaxpr)
    for a in reversed(manual):
        body, _ = batch_jaxpr(body, AxisData(a, sizes[a]),
                              [0 if a in split else bu.not_mapped for split in splits],
                              force_out_batched=[True] * len(out_specs))
    return [_joined_blocks(y, s, manual, sizes)
            for y, s in zip(eval_closed_jaxpr_numpy(body, *blocks), out_specs)]


abstract_eval_rules[shard_map_p] = _abstract_eval
partial_eval_rules[shard_map_p] = _partial_eval
lowering_rules[shard_map_p] = _lowering
impl_rules[shard_map_p] = _impl
numpy_rules[shard_map_p] = _numpy
jvp_rules[shard_map_p] = _jvp
transpose_rules[shard_map_p] = _transpose
axis_batching_rules[shard_map_p] = _batching
# its results' types come from out_specs (_abstract_eval), not from the operands' types
sharding_typing_rules[shard_map_p] = lambda in_avals, params, out_avals: out_avals
# a mesh taken from set_mesh's context shows as the abstract mesh, as JAX's equation has it
param_printers[shard_map_p] = lambda p: [
    ("check_vma", p["check_vma"]), ("in_specs", p["in_specs"]), ("jaxpr", p["jaxpr"]),
    ("mesh", p["mesh"].abstract_mesh if getattr(p["mesh"], "from_context", False)
     else p["mesh"]),
    ("newly_manual_axes", p["newly_manual_axes"]), ("out_specs", p["out_specs"])]


# ------------------------------------------------------------------ eagerly, device by device
# As in JAX 0.10.2, a shard_map called outside any transformation runs its body eagerly: each
# value in the body is one block per device (a ShardMapTracer), each primitive runs at once on
# every device's blocks (a small shard_map of that one primitive), and `print(x)` in the body
# shows each device's block. Inside jit (or grad, vmap, ...) the body is traced as above.
def _runs_eagerly(mesh, manual) -> bool:
    """Called outside any transformation and any body, manual over the whole mesh."""
    return type(current_trace()) is EvalTrace and not _bodies and \
        manual == frozenset(mesh.axis_names)


def _every(mesh) -> PartitionSpec:
    """A leading dimension split over every mesh axis: one row per device, in mesh order."""
    return P(tuple(mesh.axis_names))


def _add_singleton(x):
    return expand_dims(x, (0,))


def _rem_singleton(x):
    return squeeze(x, (0,))


_eager_maps = LRU(PROGRAMS)  # what each eager step runs, so its trace and program are reused


def _staged_map(key, make):
    """The shard_map `make()` builds (traced and compiled once per `key`)."""
    found = _eager_maps.get(key)
    if found is None:
        found = _eager_maps[key] = make()
    return found


def _staged(f, mesh, in_specs, out_specs, check_vma=False):
    return _shard_map(f, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                      axis_names=frozenset(), check_vma=check_vma, eager=False)


class _outside_the_body:
    """While an eager body runs, its steps run as programs of their own: not typed by the
    body's check_vma (JAX runs them with the body's types erased too)."""

    def __enter__(self):
        self.saved = vma.checked[:]
        vma.checked.clear()

    def __exit__(self, *exc):
        vma.checked[:] = self.saved


def _stacked(x, spec, mesh):
    """`x` (split as `spec`) as one row per device: each device's block, stacked."""
    return _staged_map(("stack", spec, mesh), lambda: _staged(
        _add_singleton, mesh, spec, _every(mesh)))(x)


def _unstacked(val, aval, spec, mesh, check_vma):
    """The per-device blocks `val` put together as `spec` says: JAX's way, one row per
    coordinate of the axes the blocks vary over, then a shard_map of `_rem_singleton` from
    there to `spec` (so an out_spec leaving out one of those axes raises its error, naming
    `_rem_singleton`, as JAX's does)."""
    varying = [a for a in mesh.axis_names if a in aval.vma] if check_vma else \
        list(mesh.axis_names)
    src = P(tuple(varying)) if varying else P()
    rows = _staged_map(("rows", src, mesh), lambda: _staged(lambda b: b, mesh, _every(mesh),
                                                               src))(val)
    return _staged_map(("match", src, spec, mesh, check_vma), lambda: _staged(
        _rem_singleton, mesh, src, spec, check_vma))(rows)


class ShardMapTracer(Tracer):
    """A value of a shard_map body run eagerly: `val` holds every device's block, stacked
    (one row per device, in mesh order); its type is one block's, varying over the axes the
    blocks may differ along.

        On cpu:0 at mesh coordinates (i,) = (0,):          (what print shows)
        [0. 1. 2.]
    """
    __slots__ = ("val", "_aval")

    def __init__(self, trace, val, aval):
        self._trace, self.val, self._aval = trace, val, aval

    aval = property(lambda self: self._aval)

    def to_concrete_value(self):
        # the same on every device: Python may read it (the first device's block)
        return None if self._aval.vma else np.asarray(self.val)[0]

    def __str__(self):
        mesh = self._trace.mesh
        names = f"({', '.join(map(str, mesh.axis_names))},)"
        blocks = np.asarray(self.val)
        return "\n".join(f"On {device} at mesh coordinates {names} = {idx}:\n{block}\n"
                         for (idx, device), block in zip(np.ndenumerate(mesh.devices), blocks))

    __repr__ = __str__

    def _short_repr(self):
        return f"ShardMapTracer({self._aval.str_short()})"


class ShardMapTrace(Trace):
    def __init__(self, parent, mesh, check_vma):
        super().__init__(parent)
        self.mesh, self.check_vma = mesh, check_vma

    def unpack(self, x):
        """(stacked blocks or a constant, one block's type, whether stacked)."""
        if type(x) is ShardMapTracer and x._trace is self:
            return x.val, x._aval, True
        if isinstance(x, Tracer):
            self.check_foreign_tracer(x)
        return x, get_aval(x), False

    def process_primitive(self, prim, args, params):
        vals, avals, stacked = zip(*map(self.unpack, args)) if args else ((), (), ())
        step, out_avals = _eager_step(prim, params, tuple(avals), tuple(stacked), self.mesh,
                                      self.check_vma)
        with set_current_trace(self.parent), _outside_the_body():
            outs = step(*vals)
        outs = [ShardMapTracer(self, o, a) for o, a in zip(outs, out_avals)]
        return outs if prim.multiple_results else outs[0]

    def describe_self(self):
        return f"shard_map (run eagerly over {self.mesh})"


def _eager_step(prim, params, avals, stacked, mesh, check_vma):
    """(a function of the stacked blocks and constants giving the results' stacked blocks,
    the results' types): `prim` traced on one block's types, run on every device."""
    try:
        key = (prim, tuple(params.items()), avals, stacked, mesh, check_vma)
        hash(key)
    except TypeError:
        key = None
    found = _eager_maps.get(key) if key is not None else None
    if found is not None:
        return found
    manual = frozenset(mesh.axis_names)

    def one(*xs):
        out = prim.bind(*xs, **params)
        return list(out) if prim.multiple_results else [out]
    with _axes_bound(mesh, manual, check_vma):
        closed = trace_to_jaxpr(one, list(avals))

    def step(*blocks):
        xs = [_rem_singleton(b) if s else b for b, s in zip(blocks, stacked)]
        return [_add_singleton(o) for o in eval_jaxpr(closed.jaxpr, closed.consts, *xs)]
    every = _every(mesh)
    run = _staged(step, mesh, tuple(every if s else P() for s in stacked), every)
    found = (run, closed.out_avals)
    if key is not None:
        _eager_maps[key] = found
    return found


def _run_eagerly(f, flat_args, in_tree, static, dyn, dyn_specs, avals, out_specs, mesh,
                 check_vma):
    manual = frozenset(mesh.axis_names)
    blocks = [_stacked(x, s, mesh) for x, s in zip(dyn, dyn_specs)]
    local = [_local_aval(a, s, mesh, check_vma) for a, s in zip(avals, dyn_specs)]
    flat, out_tree = flatten_fun(f, in_tree)
    bound = [bound_axis(a, n) for a, n in zip(mesh.axis_names, mesh.axis_sizes)]
    if check_vma:
        bound.append(vma.checking(manual, mesh.axis_names))
    with contextlib.ExitStack() as stack:
        for b in bound:
            stack.enter_context(b)
        trace = stack.enter_context(new_trace(ShardMapTrace, mesh, check_vma))
        it = iter([ShardMapTracer(trace, b, a) for b, a in zip(blocks, local)])
        leaves = flat(*[x if s else next(it) for x, s in zip(flat_args, static)])
        outs = [trace.unpack(x) for x in leaves]
    out_struct = tree_unflatten(out_tree(), [0] * len(outs))
    specs = _flat_out_specs(out_specs, out_struct)
    _check_out_ranks(f, out_specs, out_struct, specs, [a for _, a, _ in outs])
    results = [_unstacked(v if st else _stacked(v, P(), mesh), a, s, mesh, check_vma)
               for (v, a, st), s in zip(outs, specs)]
    return tree_unflatten(out_tree(), results)


# ------------------------------------------------------------------ check_vma
def _check_vma(fun_name, mesh, manual_axes, out_avals, out_specs, out_struct):
    """JAX's error for an out_spec that leaves out a manual axis the output varies along
    (its type says which)."""
    ordered = lambda axes: ",".join(a for a in mesh.axis_names if a in axes)    # noqa: E731
    msgs = []
    paths = [p for p, _ in tree_flatten_with_path(out_struct)[0]]
    for path, spec, aval in zip(paths, out_specs, out_avals):
        varying = aval.vma
        missing = [a for a in _unmentioned(spec, manual_axes, mesh) if a in varying]
        if not missing:
            continue
        unmentioned = [a for a in mesh.axis_names if a not in _named_axes(spec)]
        where = f"out_specs{keystr(path)}" if paths != [()] else "out_specs"
        if len(unmentioned) > 1:
            need = ordered(_named_axes(spec))
            msgs.append(f"* {where} is {spec!r} which implies that the corresponding output "
                        f"value is only varying across mesh axes {{{need}}} and not "
                        f"{{{ordered(missing)}}}, but it was inferred to be possibly varying "
                        f"over {{{ordered(varying)}}}")
        else:
            msgs.append(f"* {where} is {spec!r} which implies that the corresponding output "
                        f"value is replicated across mesh axis '{unmentioned[0]}', but could "
                        f"not infer replication over any axes")
    if not msgs:
        return
    if len(msgs) == 1:
        msgs = [msgs[0][2:]]
    raise ValueError(
        f"shard_map applied to the function '{fun_name}' was given out_specs which require "
        f"replication which can't be statically inferred given the mesh:\n\n"
        f"The mesh given has shape {mesh.axis_sizes} with corresponding axis names "
        f"{mesh.axis_names}.\n\n" + "\n\n".join(msgs) + "\n\n"
        "Check if these output values are meant to be replicated over those mesh axes. If "
        "not, consider revising the corresponding out_specs entries. If so, consider "
        "disabling the check by passing the check_vma=False argument to `jax.shard_map`.")


# ------------------------------------------------------------------ the API
def shard_map(f=None, /, *, out_specs, in_specs=Infer, mesh=None, axis_names=frozenset(),
              check_vma=True):
    """Map `f` over the blocks of its arguments on the devices of `mesh` (see the module
    docstring); usable as a decorator with keyword arguments.

    >>> @functools.partial(shard_map, mesh=mesh, in_specs=P('x'), out_specs=P('x'))
    ... def scale(block):
    ...     return block * (lax.axis_index('x') + 1)
    >>> scale(jnp.ones(8)).tolist()
    [1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0]

    With `check_vma` (the default) the body's types carry the manual axes each value
    varies over (`jax.typeof(x).mat.varying`, core/vma.py): `pvary` is inserted where a
    value the same on every device meets a varying one, psum becomes `psum_invariant`, and
    an output whose out_spec leaves out an axis it varies over raises JAX's error. `grad`
    taken inside the body then sums a replicated input's gradient over the devices (the
    transpose of pvary is a psum), as JAX does; with check_vma=False each device keeps its
    own. `axis_names` may name some of the mesh axes only: the body is manual over those
    and XLA partitions it over the others, where another shard_map (without `mesh`) may be
    manual over them. Explicit axes are not checked against the arguments' shardings.
    """
    kwargs = dict(out_specs=out_specs, in_specs=in_specs, mesh=mesh, axis_names=axis_names,
                  check_vma=check_vma)
    if f is None:
        return lambda g: _shard_map(g, **kwargs)
    return _shard_map(f, **kwargs)


def _fun_name(f) -> str:
    return getattr(f, "__name__", str(f))


def _shard_map(f, *, out_specs, in_specs, mesh, axis_names, check_vma, eager=True):
    if not callable(f):
        raise TypeError(f"shard_map requires a callable for its first argument, but got {f} "
                        f"of type {type(f)}.")

    traces = LRU(SIGNATURES)   # signature -> its traced body, so a call in a loop binds one jaxpr

    @wraps(f)
    def wrapped(*args):
        mesh_, manual = _checked_mesh(mesh, axis_names, in_specs, out_specs)
        flat_args, in_tree = tree_flatten(args)
        specs = _flat_in_specs(in_specs, args, flat_args, mesh_, manual)
        static = [s is None for s in specs]
        dyn = [x for x, s in zip(flat_args, static) if not s]
        dyn_specs = tuple(s for s in specs if s is not None)
        avals = tuple(get_aval(x) for x in dyn)
        _check_explicit_args(mesh_, manual, dyn, dyn_specs, avals)
        if eager and _runs_eagerly(mesh_, manual):
            _check_args(f, mesh_, args, flat_args, specs, avals, static)
            return _run_eagerly(f, flat_args, in_tree, static, dyn, dyn_specs, avals, out_specs,
                                mesh_, check_vma)
        # The body's trace depends on where the call is: inside another body the manual axes
        # are fewer, the named axes around it are read at trace time (lax.axis_size), and an
        # enclosing check_vma body types the values (pvary). A trace made in one place and
        # reused in another would skip that place's out_specs check.
        key = (in_tree, avals, dyn_specs, mesh_, manual, _outer_manual(), visible_axes(),
               vma.checked[-1] if vma.checked else None, config._trace_state) \
            if not any(static) else None
        found = traces.get(key) if key is not None else None
        if found is None:
            _check_args(f, mesh_, args, flat_args, specs, avals, static)
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


def _trace_body(f, flat_args, in_tree, static, avals, dyn_specs, out_specs, mesh, manual,
                check_vma) -> tuple:
    """(body taking its constants first, the constants, out tree, out specs) of `f` traced
    with local types; raises JAX's errors for bad out_specs and unchecked replication."""
    local = [_local_aval(a, s, mesh, check_vma) for a, s in zip(avals, dyn_specs)]
    flat, out_tree = flatten_fun(f, in_tree)

    def body(*xs):
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


def _varying_as(x, spec):
    """`x` typed as varying over every axis `spec` names."""
    missing = frozenset(_named_axes(spec)) - vma.vma_of(x) if spec is not None else ()
    return vma.pvary(x, missing) if missing else x


def _checked_mesh(mesh, axis_names, in_specs, out_specs):
    """(the mesh, its manual axes), with JAX's errors for a missing mesh or bad axis names.
    In another shard_map's body the mesh is that body's, and the axes it is not manual over."""
    context = _bodies[-1][0] if _bodies else get_mesh()
    if mesh is None:
        if context is None:
            raise ValueError("The context mesh cannot be empty. Use `jax.set_mesh(mesh)` to "
                             "enter into a mesh context")
        mesh = context.as_from_context() if isinstance(context, Mesh) else context
    elif context is not None and context.abstract_mesh != mesh.abstract_mesh:
        raise ValueError(f"The context mesh {context} should match the mesh passed to "
                         f"shard_map {mesh}")
    if not isinstance(mesh, Mesh):
        raise TypeError(f"shard_map requires a `jax.sharding.Mesh` instance for its second "
                        f"argument, but got {mesh} of type {type(mesh)}.")
    if not isinstance(axis_names, (set, frozenset)):
        raise TypeError(f"`axis_names` argument of shard_map should be of type `frozenset` or "
                        f"`set`. Got type: {type(axis_names)}")
    outer = _outer_manual()
    manual = frozenset(axis_names) or frozenset(mesh.axis_names) - outer
    if manual & outer:
        raise ValueError(f"shard_map with axis_names={set(manual)} inside the body of a shard_map "
                         f"manual over {set(outer)}: a nested shard_map can be manual only over "
                         f"other mesh axes; pass axis_names without {set(manual & outer)}")
    if not manual <= frozenset(mesh.axis_names):
        raise ValueError(f"jax.shard_map requires axis_names={manual} to be a subset of "
                         f"mesh.axis_names={frozenset(mesh.axis_names)}")
    if in_specs is Infer and not all(t is AxisType.Explicit for a, t in
                                     zip(mesh.axis_names, mesh.axis_types) if a in manual):
        types = ", ".join(str(t) for a, t in zip(mesh.axis_names, mesh.axis_types)
                          if a in manual)
        raise TypeError(f"shard_map in_specs argument must be a pytree of "
                        f"`jax.sharding.PartitionSpec` instances, but it was `None` when "
                        f"axis_names={manual} are of type {types}")
    if in_specs is not Infer and in_specs is not None:
        _check_spec_names("in_specs", in_specs, manual, mesh)
    _check_spec_names("out_specs", out_specs, manual, mesh)
    return mesh, manual


def _spec_leaves(specs) -> list:
    return [s for s in tree_flatten(specs, is_leaf=lambda s: s is None or isinstance(s, P))[0]
            if isinstance(s, P)]


def _check_spec_names(what, specs, manual, mesh) -> None:
    for spec in _spec_leaves(specs):
        seen = set()
        for axes in spec._axes(0):
            for a in axes:
                if a not in manual:
                    names = ", ".join(repr(n) for n in mesh.axis_names if n in manual)
                    raise ValueError(f"shard_map {what} argument must refer to an axis marked "
                                     f"as manual (frozenset({{{names}}})), but:\n\n  {what} refers to "
                                     f"{a!r}\n\nCheck the {what} values passed to shard_map.")
                if a in seen:
                    raise DuplicateSpecError(
                        f"A single NamedSharding spec specification can map every mesh axis "
                        f"to at most one positional dimension, but {spec!r} has duplicate "
                        f"entries for `{a}`")
                seen.add(a)


def _inferred_spec(x) -> PartitionSpec:
    """An argument's spec from its own sharding: a sharded array's, or (a tracer under jit)
    the one its type carries on Explicit axes, as JAX reads typeof(x).sharding."""
    if type(x) is ShardedArray:
        return x.sharding.spec
    spec = getattr(getattr(get_aval(x), "sharding", None), "spec", None)
    return spec if isinstance(spec, PartitionSpec) else P()


def _flat_in_specs(in_specs, args, flat_args, mesh, manual) -> list:
    """One PartitionSpec (or None: a static argument) per leaf of `args`."""
    if in_specs is Infer:           # Explicit axes: each argument's own sharding
        return [_inferred_spec(x) for x in flat_args]
    is_leaf = lambda s: s is None or isinstance(s, P)    # noqa: E731
    if is_leaf(in_specs):
        return [in_specs] * len(flat_args)
    try:
        return broadcast_prefix(in_specs, args, is_leaf=is_leaf)
    except ValueError:
        e, *_ = prefix_errors(in_specs, args, is_leaf)
        raise e("shard_map in_specs") from None


def _flat_out_specs(out_specs, out_struct) -> list:
    is_leaf = lambda s: s is None or isinstance(s, P)    # noqa: E731
    if is_leaf(out_specs):
        return [out_specs] * len(tree_flatten(out_struct)[0])
    try:
        return broadcast_prefix(out_specs, out_struct, is_leaf=is_leaf)
    except ValueError:
        e, *_ = prefix_errors(out_specs, out_struct, is_leaf)
        raise e("shard_map out_specs") from None


def _arg_descriptions(f, args, flat_args) -> list:
    """Per leaf: ('args[0]', where known ", where args[0] is bound to f's parameter 'a'")."""
    import inspect
    try:
        params = list(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        params = []
    out = []
    for i, a in enumerate(args):
        bound = f", where args[{i}] is bound to {_fun_name(f)}'s parameter '{params[i]}'" \
            if i < len(params) else ""
        out.extend((f"args[{i}]{keystr(path)}", bound)
                   for path, _ in tree_flatten_with_path(a)[0])
    return out


def _type_text(aval) -> str:
    """'float32[6,8]' (or 'float32[2]{V:x}' inside a body), as JAX's shard_map errors write a
    type."""
    return str(aval.strip_weak_type())


def _check_args(f, mesh, args, flat_args, specs, avals, static) -> None:
    """JAX's errors for an in_spec longer than its argument's rank, or that does not divide
    it evenly."""
    names = [n for n, s in zip(_arg_descriptions(f, args, flat_args), static) if not s]
    fun = _fun_name(f)
    dyn_specs = [s for s in specs if s is not None]
    for (name, bound), spec, aval in zip(names, dyn_specs, avals):
        if len(spec) > len(aval.shape):
            raise ValueError(
                f"shard_map applied to the function '{fun}' was given an in_specs entry which "
                f"is too long to be compatible with the corresponding input value from the "
                f"function:\n\nin_specs is {spec!r} which has length {len(spec)}, but the "
                f"passed {name}{bound}, has shape {_type_text(aval)}, which has rank "
                f"{len(aval.shape)} (and {len(aval.shape)} < {len(spec)})\n\nEntries in "
                f"in_specs must be of length no greater than the number of axes in the "
                f"corresponding input value.\n\nEither revise the spec to be shorter, or "
                f"modify '{fun}' so that its inputs have sufficient rank.")
    sizes = mesh.shape
    for (name, bound), spec, aval in zip(names, dyn_specs, avals):
        for d, axes in enumerate(spec._axes(len(aval.shape))):
            n = math.prod(sizes[a] for a in axes)
            if aval.shape[d] % n:
                where = f"mesh axis '{axes[0]}'" if len(axes) == 1 else f"mesh axes {axes}"
                raise ValueError(
                    f"shard_map applied to the function '{fun}' was given argument arrays "
                    f"with axis sizes that are not evenly divisible by the corresponding mesh "
                    f"axis sizes:\n\nThe mesh given has shape {mesh.axis_sizes} with "
                    f"corresponding axis names {mesh.axis_names}.\n\nthe passed {name} of "
                    f"shape {_type_text(aval)}{bound}, corresponds to in_specs of value "
                    f"{spec!r}, "
                    f"which maps array axis {d} (of size {aval.shape[d]}) to {where} (of size "
                    f"{n}), but {n} does not evenly divide {aval.shape[d]}\n\nArray "
                    f"arguments' axis sizes must be evenly divisible by the mesh axis or axes "
                    f"indicated by the corresponding elements of the argument's in_specs "
                    f"entry. Consider checking that in_specs are correct, and if so consider "
                    f"changing the mesh axis sizes or else padding the input and adapting "
                    f"'{fun}' appropriately.")


def _check_explicit_args(mesh, manual, dyn, specs, avals) -> None:
    """Manual over Explicit axes only, each argument must already be split as its in_spec
    says (its type tells): JAX's error otherwise (shard_map does not reshard)."""
    if manual != frozenset(mesh.axis_names) or \
            any(t is not AxisType.Explicit for t in mesh.axis_types):
        return
    for x, spec, aval in zip(dyn, specs, avals):
        ndim = len(aval.shape)
        typed = public_type(aval, x).sharding.spec
        if typed._axes(ndim) != spec._axes(ndim):
            wanted = P(*[None if not a else a[0] if len(a) == 1 else a
                         for a in spec._axes(ndim)])
            raise ValueError(
                f"in_specs passed to shard_map: {wanted} does not match the specs of the "
                f"input: {typed} for arg: {aval}. `in_specs` is an optional "
                f"argument so you can omit specifying it and shard_map will infer the "
                f"in_specs from the arguments. If you want to reshard your inputs, you can "
                f"use `jax.reshard` on the arguments and then pass those args to shard_map.")


def _check_out_ranks(f, out_specs, out_struct, flat_out, out_avals) -> None:
    fun = _fun_name(f)
    paths = [p for p, _ in tree_flatten_with_path(out_struct)[0]]
    for path, spec, aval in zip(paths, flat_out, out_avals):
        if spec is None or len(spec) <= len(aval.shape):
            continue
        where = f"out_specs{keystr(path)}" if paths != [()] else "out_specs"
        msg = (f"shard_map applied to the function '{fun}' was given an out_specs entry which "
               f"is too long to be compatible with the corresponding output value from the "
               f"function:\n\n{where} is {spec!r} which has length {len(spec)}, but "
               f"{fun}(*args){keystr(path)} has shape {_type_text(aval)}, which has rank "
               f"{len(aval.shape)} (and {len(aval.shape)} < {len(spec)})\n\nEntries in "
               f"out_specs must be of length no greater than the number of axes in the "
               f"corresponding output value.\n\nEither revise the spec to be shorter, or "
               f"modify '{fun}' so that its outputs have sufficient rank.")
        if not aval.shape:
            msg += ("\n\nFor scalar values (rank 0), consider using an out_specs entry of "
                    "`P()`, where `P = jax.sharding.PartitionSpec`. In particular, for rank 0 "
                    "outputs which are not constant over the mesh, add at least one "
                    "(singleton) axis to them so that they can be concatenated using "
                    "out_specs.")
        raise ValueError(msg)


# ------------------------------------------------------------------ smap
def _axis_spec(axis_name, axis) -> PartitionSpec:
    """The PartitionSpec splitting dimension `axis` over `axis_name` (None: replicated)."""
    return PartitionSpec() if axis is None else PartitionSpec(*[None] * axis, axis_name)


def smap(f=None, /, *, in_axes=Infer, out_axes, axis_name):
    """shard_map over the one mesh axis `axis_name` of the context mesh (`jax.set_mesh`),
    with vmap-like `in_axes`/`out_axes` saying which dimension each argument and result
    is split along (None: not split). `in_axes` may be left out on an Explicit axis.

    >>> with jax.set_mesh(jax.make_mesh((1,), ("x",), (jax.sharding.AxisType.Auto,))):
    ...     smap(lambda v: v * 2, in_axes=0, out_axes=0, axis_name="x")(jnp.arange(3.0))
    Array([0., 2., 4.], dtype=float32)
    """
    if f is None:
        return lambda g: smap(g, in_axes=in_axes, out_axes=out_axes, axis_name=axis_name)
    if isinstance(axis_name, (list, tuple)):
        raise TypeError(f"smap axis_name should be a `str` or a `Hashable`, but got {axis_name}")
    if in_axes is not None and in_axes is not Infer and not isinstance(in_axes, (int, tuple)):
        raise TypeError("smap in_axes must be an int, None, jax.sharding.Infer, or a tuple of "
                        "entries corresponding to the positional arguments passed to the "
                        f"function, but got {in_axes}.")
    is_none = lambda x: x is None
    if in_axes is not Infer and not all(isinstance(a, int) for a in tree_flatten(
            in_axes, is_leaf=is_none)[0] if a is not None):
        raise TypeError("smap in_axes must be an int, None, jax.sharding.Infer, or (nested) "
                        f"container with those types as leaves, but got {in_axes}.")
    if not all(isinstance(a, int) for a in tree_flatten(out_axes, is_leaf=is_none)[0]
               if a is not None):
        raise TypeError("smap out_axes must be an int, None, or (nested) container with those "
                        f"types as leaves, but got {out_axes}.")
    spec = functools.partial(_axis_spec, axis_name)
    specs = functools.partial(_map_axes, spec)
    mapped = shard_map(f, mesh=None, in_specs=Infer if in_axes is Infer else specs(in_axes),
                       out_specs=specs(out_axes), axis_names={axis_name}, check_vma=True)

    @functools.wraps(f)
    def call(*args):
        mesh = get_mesh()
        if in_axes is Infer and mesh is not None and axis_name in mesh.axis_names and \
                mesh.axis_types[mesh.axis_names.index(axis_name)] is not AxisType.Explicit:
            kind = mesh.axis_types[mesh.axis_names.index(axis_name)]
            raise TypeError(f"in_axes was not specified when axis_name={frozenset([axis_name])} was "
                            f"of type {kind}")
        return mapped(*args)
    return call


def _map_axes(spec, axes):
    """`axes` (an int, None or a pytree of them) with each entry a PartitionSpec."""
    leaves, tree = tree_flatten(axes, is_leaf=lambda x: x is None)
    return tree_unflatten(tree, [spec(a) for a in leaves])
