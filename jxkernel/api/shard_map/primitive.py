"""shard_map's primitive and its rules: one `shard_map` equation holds the body traced with
local (per-device) types; its outputs have global types (out_specs say how the blocks are
put together). It lowers to Shardy's `sdy.manual_computation`; jvp, transpose and vmap
build new shard_map equations; with NumPy each manual axis is a vmap axis.

The public function is in __init__.py; the eager, device-by-device run in eager.py;
the argument and spec checks in checks.py; partial evaluation and checkpoint policies in
residuals.py (registered by call.py, which binds every equation); the NumPy rule in
numpy_rule.py; smap in smap.py.
"""
from __future__ import annotations

import contextlib
import math

import numpy as np

from ...core import dtypes
from ...core import compile_record
from ...core.config import config
from ...core import physical, sharding_types, vma
from ...core import avals as _avals
from ...core.avals import ShapedArray, explicit_axes, get_aval, make_ur, typed_sharding
from ...core.axis_env import bound_axis
from ...core.interpret import eval_jaxpr
from ...core.dce import dce_closed_outputs, dce_jaxpr_outputs, dce_rules, prune_rules, pruned_body
from ...core.ir import ClosedJaxpr, param_printers
from ...core.lru import LRU, TRACES
from ...core.mesh import AbstractMesh, AxisType, NamedSharding, PartitionSpec, _mesh_state
from ...core.primitive import (
    Primitive,
    abstract_eval_rules,
    axis_batching_rules,
    impl_rules,
    jvp_rules,
    lowering_rules,
    numpy_rules,
    sharding_typing_rules,
    transpose_rules,
)
from ...core.staging import convert_constvars_to_invars, trace_to_jaxpr
from ...core.trace import current_trace
from ...lax.elementwise import div
from ...lax.parallel import psum_p
from ...transforms import batch_util as bu
from ...transforms.ad import jvp_jaxpr, transpose_jaxpr
from ...transforms.ad_util import Zero, instantiate, is_undefined
from ...transforms.batching import batch_jaxpr
from ...xla import stablehlo as hlo
from ...xla.dispatch import invalid_value, primitive_jaxpr
from ...xla.lowering import NeedsMesh
from ...xla.sharded import run_jaxpr
from ...xla.sharding import mesh_symbol, sdy_dims
from . import numpy_rule

P = PartitionSpec
shard_map_p = Primitive("shard_map", multiple_results=True)


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
    # (a body nested in another keeps the outer body's axes; under
    # jax.remove_size_one_mesh_axis_from_type none of size 1, as JAX's types)
    named = frozenset(a for a in _named_axes(spec)
                      if not (config.jax_remove_size_one_mesh_axis_from_type and sizes[a] == 1))
    if check_vma and (spec.unreduced or spec.reduced):
        # a summand on each device, or a value typed so that its cotangent is one (JAX's
        # mat.unreduced, mat.reduced: core/vma.py)
        _avals.sharding_types_seen = True
        return ShapedArray(shape, aval.dtype, aval.weak_type, aval.vma | named,
                           ur=make_ur(spec.unreduced, spec.reduced))
    return ShapedArray(shape, aval.dtype, aval.weak_type,
                       aval.vma | named if check_vma else aval.vma)


def _global_aval(aval, spec, mesh, manual_axes=frozenset()) -> ShapedArray:
    """The value of type `aval` on every device, put together as `spec` says (varying over
    an enclosing body's axes only)."""
    sizes = mesh.shape
    shape = tuple(n * math.prod(sizes[a] for a in axes)
                  for n, axes in zip(aval.shape, spec._axes(len(aval.shape))))
    return ShapedArray(shape, aval.dtype, aval.weak_type, aval.vma - manual_axes)


def _unmentioned(spec, manual_axes, mesh) -> tuple:
    """The manual axes `spec` does not split over, nor says the value is unreduced over (in
    mesh order): the value is one over them."""
    named = _named_axes(spec) | spec.unreduced
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
        # get_abstract_mesh() in the body: the mesh with its manual axes Manual, as JAX's
        self.outer, _mesh_state.abstract = _mesh_state.abstract, _manual_abstract(*self.body)
        mesh = self.body[0]
        self.outer_mesh, _mesh_state.body_mesh = _mesh_state.body_mesh, \
            mesh if type(mesh) is not AbstractMesh else None
        for b in self.bound:
            b.__enter__()

    def __exit__(self, *exc):
        for b in reversed(self.bound):
            b.__exit__()
        _mesh_state.abstract, _mesh_state.body_mesh = self.outer, self.outer_mesh
        _bodies.pop()


def _manual_abstract(mesh, manual) -> AbstractMesh:
    """`mesh`'s AbstractMesh with the axes of `manual` typed Manual."""
    abstract = mesh.abstract_mesh
    return AbstractMesh(abstract.axis_sizes, abstract.axis_names,
                        tuple(AxisType.Manual if a in manual else t
                              for a, t in zip(abstract.axis_names, abstract.axis_types)),
                        _device=abstract._device)


def _vmap_mesh_axes(kind) -> frozenset:
    """The mesh axes the vmaps around this point split their batch over: their inputs'
    Explicit axes (`kind="explicit"`, where no spmd_axis_name is given) or their
    spmd_axis_name (`kind="spmd"`)."""
    found, trace = set(), current_trace()
    while trace is not None:
        axis_data = getattr(trace, "axis_data", None)
        if axis_data is not None:
            spmd = axis_data.spmd_name
            axes = spmd if kind == "spmd" else axis_data.explicit_mesh_axis if spmd is None \
                else None
            found.update(axes or ())
        trace = trace.parent
    return frozenset(found)


def _outer_manual() -> frozenset:
    """The manual axes of the shard_map bodies being traced around this one."""
    return _bodies[-1][1] if _bodies else frozenset()


# ------------------------------------------------------------------ the primitive's rules
def _abstract_eval(*avals, jaxpr, mesh, in_specs, out_specs, check_vma, newly_manual_axes):
    outs = [_global_aval(a, s, mesh, newly_manual_axes)
            for a, s in zip(jaxpr.out_avals, out_specs)]
    if not explicit_axes(mesh):
        return outs
    # over a mesh with Explicit axes: the results' types say how out_specs split them
    # (f32[6@i]), as JAX's; manual over part of the mesh, so too where the body's results
    # are untyped or split over no axis (a body typing them over the axes left automatic
    # keeps its types)
    whole = newly_manual_axes == frozenset(mesh.axis_names)
    return [a.update(sharding=typed_sharding(NamedSharding(mesh, s if whole or
                                                           inner.split is None else
                                                           _joined_spec(s, inner, mesh)),
                                             len(a.shape)))
            for a, s, inner in zip(outs, out_specs, jaxpr.out_avals)]


def _joined_spec(spec, inner, mesh) -> PartitionSpec:
    """A partly manual body's result split as `spec` over the manual axes and as its type
    says over the Explicit axes left to the body (JAX's _unshard_shaped_array), dimension by
    dimension."""
    ndim = len(inner.shape)
    parts = []
    for outer_axes, inner_axes in zip(spec._axes(ndim), inner.split.spec._axes(ndim)):
        axes = tuple(outer_axes) + tuple(a for a in inner_axes if a in mesh.axis_names)
        parts.append(None if not axes else axes[0] if len(axes) == 1 else axes)
    return P(*parts, unreduced=spec.unreduced, reduced=spec.reduced)


def _bind(body: ClosedJaxpr, args, mesh, in_specs, out_specs, check_vma, manual_axes):
    """Bind shard_map_p on `body`; its constants become replicated leading operands."""
    body, consts = convert_constvars_to_invars(body)
    return shard_map_p.bind(*consts, *args, jaxpr=body, mesh=mesh,
                            in_specs=(P(),) * len(consts) + tuple(in_specs),
                            out_specs=tuple(out_specs), check_vma=check_vma,
                            newly_manual_axes=manual_axes)


def _sharding_text(spec, ndim, mesh, manual_axes, name="mesh") -> str:
    """The block sharding of a manual computation's operand or result; where some mesh axes
    stay automatic, each dimension is left open to them (`{"x", ?}`), as JAX writes it.
    `name`: the mesh's symbol in the module."""
    if manual_axes == frozenset(mesh.axis_names):
        return sdy_dims(NamedSharding(mesh, spec), ndim, name)
    dims = ", ".join("{" + "".join(f'"{a}", ' for a in axes) + "?}" for axes in spec._axes(ndim))
    return f"<@{name}, [{dims}]>"


def _lowering(ctx, *args, jaxpr, mesh, in_specs, out_specs, check_vma, newly_manual_axes):
    module_ctx = ctx.module_ctx
    if isinstance(mesh, AbstractMesh):      # traced over an AbstractMesh: the jit's devices
        if module_ctx.mesh is None or module_ctx.mesh.shape_tuple != mesh.shape_tuple:
            raise ValueError(
                f"shard_map over the AbstractMesh {mesh} inside a jit whose arguments are not "
                f"placed on a mesh of that shape ({module_ctx.mesh}): pass `jax.Array`s with a "
                f"NamedSharding over such a mesh, or call it under `jax.set_mesh(mesh)`")
        mesh = module_ctx.mesh
    if module_ctx.mesh is None:     # jit catches this and partitions the program over the mesh
        raise NeedsMesh("shard_map inside a program compiled for one device", mesh)
    if module_ctx.mesh != mesh and module_ctx.mesh._ids != mesh._ids:
        raise ValueError(f"shard_map's mesh {mesh} differs from the mesh {module_ctx.mesh} the "
                         f"enclosing jit is partitioned over; use one mesh")
    # the same devices named otherwise (pmap's axis inside a jit whose arguments are sharded
    # over a mesh of their own): a second mesh declared next to the module's, as JAX's
    name = mesh_symbol(module_ctx.module, module_ctx.mesh, mesh)
    outer = module_ctx.manual            # a body nested in another is manual over both's axes
    # manual over axes of size 1 alone, each device's block is the whole value: the body is
    # lowered in place, with no manual computation, as JAX's (XLA runs no partitioner for a
    # module of one partition, and a host callback in a manual computation there fails)
    inline = math.prod(mesh.shape[a] for a in newly_manual_axes) == 1
    block = None if inline else ctx.new_block([hlo.aval_type(a) for a in jaxpr.in_avals])
    module_ctx.manual = (mesh, newly_manual_axes | (outer[1] if outer else frozenset()))
    symbolic = module_ctx.symbolic       # jax.export with symbolic shapes: what the body,
    if symbolic is not None and not inline:       # isolated from main's sizes, computes with
        module_ctx.symbolic = symbolic.for_region(block, jaxpr.in_avals, block.args)
    try:
        # rules lowered by tracing a function (scan's while loop) see the body's types
        with vma.checking(module_ctx.manual[1], mesh.axis_names) if check_vma else \
                contextlib.nullcontext():
            outs = ctx.lower_jaxpr(jaxpr, list(args) if inline else block.args, block)
    finally:
        module_ctx.manual, module_ctx.symbolic = outer, symbolic
    if inline:
        return outs
    block.ret(outs, op="sdy.return")
    ins = ", ".join(_sharding_text(s, len(a.shape), mesh, newly_manual_axes, name)
                    for s, a in zip(in_specs, ctx.avals_in))
    outs_text = ", ".join(_sharding_text(s, len(a.shape), mesh, newly_manual_axes, name)
                          for s, a in zip(out_specs, ctx.avals_out))
    manual = ", ".join(f'"{a}"' for a in mesh.axis_names if a in newly_manual_axes)
    return ctx.op("sdy.manual_computation", list(args), regions=[block], attrs={
        "in_shardings": f"#sdy.sharding_per_value<[{ins}]>",
        "out_shardings": f"#sdy.sharding_per_value<[{outs_text}]>",
        "manual_axes": f"#sdy<manual_axes{{{manual}}}>"})


def _impl(*args, **params):
    """Run eagerly: one program of this equation, partitioned over the mesh (on the NumPy
    backend's devices, the equation run by its NumPy rule: xla/numpy_sharded.py)."""
    avals = tuple(get_aval(a) for a in args)
    outs = run_jaxpr(_one_equation(avals, params), "shard_map", list(args), params["mesh"],
                     on_compile=_log_compile)
    if config._debug_values:      # (JAX's eager shard_map checks each operation's results)
        kind = invalid_value(outs)
        if kind is not None:
            raise FloatingPointError(
                f"Invalid value ({kind}) encountered in sharded computation.")
    return outs


def _log_compile(avals, shardings, phases, platform):
    """An eager shard_map's program in the compile log, as jit's are (the notebook's count,
    the Compilations panel, %jxcompiles). Eager, as JAX's eager shard_map is: one program per
    equation run, named by no function of the user's (a jit of it is the user's)."""
    compile_record.record_compiled(
        "shard_map", tuple((f"args[{i}]", f"{a.str_short(True)} {s.spec}")
                           for i, (a, s) in enumerate(zip(avals, shardings))), phases, platform,
        origin=compile_record.EAGER)


_equations = LRU(TRACES)     # (avals, params) -> the one-equation ClosedJaxpr run eagerly


def _one_equation(avals, params) -> ClosedJaxpr:
    key = (avals, tuple(params.items()))
    if key not in _equations:     # without its dead code, as JAX's jit of each equation
        _equations[key] = dce_closed_outputs(
            ClosedJaxpr(primitive_jaxpr(shard_map_p, avals, params), []), True, True)[0]
    return _equations[key]


# a body over typed keys is made physical as it was traced: its manual axes bound, varying
physical.body_contexts[shard_map_p] = lambda params: _axes_bound(
    params["mesh"], params["newly_manual_axes"], params["check_vma"])


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
    # a cotangent's spec has the primal's unreduced and reduced axes swapped (JAX's
    # to_ct_spec): the cotangent of a reduced value is a summand on each device
    ct_in_specs = [_ct_spec(s) for s, lin in zip(in_specs, linear) if lin]
    out_specs = [_ct_spec(s) for s in out_specs]
    with _axes_bound(mesh, newly_manual_axes, check_vma):
        body = transpose_jaxpr(jaxpr, linear)
        if not check_vma:
            body = _spread_and_sum(body, len(nonlinear), mesh, newly_manual_axes,
                                   out_specs, ct_in_specs)
    in_cts = iter(_bind(body, nonlinear + cts, mesh,
                        [s for s, lin in zip(in_specs, linear) if not lin] + out_specs,
                        ct_in_specs, check_vma, newly_manual_axes))
    return [next(in_cts) if lin else None for lin in linear]


def _ct_spec(spec):
    return spec.update(unreduced=spec.reduced, reduced=spec.unreduced) \
        if spec.unreduced or spec.reduced else spec


def _spread_and_sum(transposed, n_nonlinear, mesh, manual_axes, ct_specs, in_specs):
    """`transposed` with each cotangent divided by the devices that share it, and each input's
    cotangent summed over the devices that share that input."""
    sizes = mesh.shape

    def body(*args):
        nonlinear, cts = args[:n_nonlinear], list(args[n_nonlinear:])
        for i, spec in enumerate(ct_specs):
            n = math.prod(sizes[a] for a in _unmentioned(spec, manual_axes, mesh))
            if n != 1 and dtypes.issubdtype(cts[i].aval.dtype, np.inexact):
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
    """vmap of a shard_map: the batch axis leads every block, split over vmap's
    spmd_axis_name (each block holds its share of the batch; JAX's _shard_map_batch), else
    over no mesh axis."""
    vals = [v if d is bu.not_mapped else bu.moveaxis(v, d, 0) for v, d in zip(vals, dims)]
    in_dims = [bu.not_mapped if d is bu.not_mapped else 0 for d in dims]
    spmd = axis_data.spmd_name
    if spmd is not None:
        for what, specs in (("in_specs", in_specs), ("out_specs", out_specs)):
            if set(spmd) & {a for s in specs for a in _named_axes(s)} and \
                    not config.jax_disable_vmap_shmap_error:
                raise ValueError(f"vmap spmd_axis_name cannot appear in shard_map {what}")
        axis_data = type(axis_data)(axis_data.name,
                                    axis_data.size // math.prod(mesh.shape[a] for a in spmd),
                                    axis_data.ema, spmd)
    elif axis_data.explicit_mesh_axis is not None and \
            set(axis_data.explicit_mesh_axis) <= newly_manual_axes:
        # the mapped inputs' batch dimension is split over Explicit mesh axes: it stays split
        # over them through the body (each device maps over its share, as JAX's, where
        # those axes stay Explicit around the body) and the results are typed so
        spmd = axis_data.explicit_mesh_axis
        for what, specs in (("in_specs", in_specs), ("out_specs", out_specs)):
            if set(spmd) & {a for s in specs for a in _named_axes(s)}:
                raise ValueError(f"vmapped away explicit mesh axis cannot appear in shard_map "
                                 f"{what}")
        axis_data = type(axis_data)(axis_data.name,
                                    axis_data.size // math.prod(mesh.shape[a] for a in spmd))
    with _axes_bound(mesh, newly_manual_axes, check_vma):
        body, _ = batch_jaxpr(jaxpr, axis_data, in_dims,
                              force_out_batched=[True] * len(out_specs))
    lead = lambda s: P(None if spmd is None else spmd[0] if len(spmd) == 1 else spmd,  # noqa: E731
                       *s)
    outs = _bind(body, vals, mesh,
                 [s if d is bu.not_mapped else lead(s) for s, d in zip(in_specs, in_dims)],
                 [lead(s) for s in out_specs], check_vma, newly_manual_axes)
    return outs, [0] * len(outs)


def _prune(eqn):
    """A shard_map equation taking only the operands its body reads, their in_specs with them
    (JAX's shard_map dce rule): pmap's jit then drops an argument its function never reads."""
    body = eqn.params["jaxpr"]
    closed = isinstance(body, ClosedJaxpr)
    pruned, kept = pruned_body(body.jaxpr if closed else body)
    if kept is None:
        return eqn
    return eqn.replace(invars=[eqn.invars[i] for i in kept], params=dict(
        eqn.params, jaxpr=ClosedJaxpr(pruned, body.consts) if closed else pruned,
        in_specs=tuple(eqn.params["in_specs"][i] for i in kept)))


def _dce(used_outs, eqn):
    """JAX's shard_map dce rule: only the used results, and the operands (with their
    in_specs) the body reads for them."""
    body = eqn.params["jaxpr"]
    closed = isinstance(body, ClosedJaxpr)
    pruned, used_ins = dce_jaxpr_outputs(body.jaxpr if closed else body, used_outs)
    if all(used_ins) and all(used_outs):
        return used_ins, eqn
    params = dict(eqn.params, jaxpr=ClosedJaxpr(pruned, body.consts) if closed else pruned,
                  in_specs=tuple(s for s, u in zip(eqn.params["in_specs"], used_ins) if u),
                  out_specs=tuple(s for s, u in zip(eqn.params["out_specs"], used_outs) if u))
    return used_ins, eqn.replace(invars=[v for v, u in zip(eqn.invars, used_ins) if u],
                                 outvars=[v for v, u in zip(eqn.outvars, used_outs) if u],
                                 params=params)


abstract_eval_rules[shard_map_p] = _abstract_eval
prune_rules[shard_map_p] = _prune
dce_rules[shard_map_p] = _dce
lowering_rules[shard_map_p] = _lowering
impl_rules[shard_map_p] = _impl
numpy_rules[shard_map_p] = numpy_rule.run
jvp_rules[shard_map_p] = _jvp
transpose_rules[shard_map_p] = _transpose
axis_batching_rules[shard_map_p] = _batching
# its results' types come from out_specs (_abstract_eval), not from the operands' types
sharding_typing_rules[shard_map_p] = sharding_types.typed_by_abstract_eval
# a mesh taken from set_mesh's context shows as the abstract mesh, as JAX's equation has it
param_printers[shard_map_p] = lambda p: [
    ("check_vma", p["check_vma"]), ("in_specs", p["in_specs"]), ("jaxpr", p["jaxpr"]),
    ("mesh", p["mesh"].abstract_mesh if getattr(p["mesh"], "from_context", False)
     else p["mesh"]),
    ("newly_manual_axes", p["newly_manual_axes"]), ("out_specs", p["out_specs"])]

