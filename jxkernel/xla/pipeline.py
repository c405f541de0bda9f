"""The compile pipeline: jaxpr -> StableHLO text -> XLA executable -> a callable Executable.

    >>> closed = jax.make_jaxpr(lambda x: x * 2)(np.ones(3, np.float32))
    >>> exe, phases = compile_jaxpr(closed.jaxpr, jax.devices()[:1], name="f")
    >>> phases.cache in ("compiled", "memory", "disk")    # "memory" or "disk" on a hit
    True
    >>> exe(np.ones(3, np.float32))
    [Array([2., 2., 2.], dtype=float32)]

Every compile goes through here: jit (and its AOT stages `.lower()` / `.compile()`), pmap,
a jit partitioned over a mesh, eager primitives on a cache miss, and so %%jit and the
timing views. `lower` and `compile` are the two halves, for callers that keep the lowered
module (AOT `Lowered`); `compile_jaxpr` is both. Each compile is told by one record,
compiler.Phases, which the recompile log (compile_log.CompileEvent.phases) and timing read.
"""
from __future__ import annotations

import dataclasses
import time

from ..core.dce import dce_jaxpr, prune_unused_inputs
from ..core.avals import MemorySpace, mem_space_to_kind
from ..core.ir import Jaxpr, jaxprs_in_params
from ..core.primitive import numpy_lowering_rules
from ..core.symbolic import is_symbolic
from ..core.physical import has_keys, is_extended, physicalize
from . import client as _client
from .compiler import compile_module
from .executable import Executable
from . import relayout
from . import numpy_sharded
from ..core.numpy_simplify import inline_calls
from .lowering import (NeedsMesh, alias_plan, check_one_device_effects, lower_module,
                       set_up_donors)
from .effect_tokens import check_lowerable, ordered_library_effects
from .numpy_device import NumpyDevice, unsupported
from .numpy_user_rules import run_user_rules


@dataclasses.dataclass(frozen=True)
class Module:
    """A jaxpr lowered for `devices`: its StableHLO `text` and what compiling it needs."""
    text: str
    module_ctx: object                 # lowering.ModuleContext (host callbacks, mesh...)
    devices: tuple
    out_avals: tuple
    donated: tuple                     # per input (constvars first): donated or not
    propagate_outputs: tuple | None    # partitioned: per result, whether XLA picks its layout
    lower_s: float
    jaxpr: object = None               # for the NumPy backend: the jaxpr it runs, not lowered
    arg_shardings: tuple | None = None  # and over a mesh, its inputs' (numpy_sharded reads them)
    kept: tuple | None = None          # the inputs it takes (constvars first), None: all
    tokens: tuple = ()                 # the ordered effects its main takes tokens for
    aliased: tuple = ()                # NumPy backend, one device: (donated input, its result)
    # one device: per result the memory kind jit's out_shardings put it in (None: 'device'),
    # where one names another ('pinned_host'): its Array says so (Executable's out_kinds)
    out_kinds: tuple | None = None


def lower(jaxpr, devices, *, name: str, donated=None, mesh=None, arg_shardings=None,
          result_shardings=None, locations=False, platforms=None, result_names=None,
          arg_names=None, keep_unused=True, aliases=None, one_device=None,
          rules=None, embedded=None, layouts=None) -> Module:
    """`jaxpr` (a Jaxpr: constvars, then invars) lowered to StableHLO for `devices`: one
    device, or with a `mesh` one partition per device (xla/sharded.py).
    `platforms`: lower for other platforms than the devices' (("gpu",), ("cpu", "gpu")), as
    JAX's `lower(lowering_platforms=...)` does; a module for one still compiles for `devices`.
    `result_names`: per result its path (`result['w']`), JAX's `jax.result_info`;
    `arg_names`: per input after the constvars its name (`params['w']`), which names its HLO
    parameter. `keep_unused=False` (jit's default) lowers without the equations whose results
    nothing reads and without the inputs nothing reads, as JAX's jit (core/dce.py): the
    module's `kept` says which inputs it takes (its executable drops the others from each
    call's, `donated` and `arg_shardings` are the kept ones'). `aliases`: {input index:
    result index} of donated inputs whose result is fixed (a Ref's final value). `one_device`:
    which inputs and results are given a sharding on the one device (lowering.lower_module).
    `rules`: another rule table (lowering.LoweringParameters' overrides). `embedded`:
    {constvar index: its host value} of the closed-over constants written into the module as
    `stablehlo.constant`s, as JAX 0.10.2 writes every one (its default, simplified constants
    off): the module does not take them (`kept` leaves them out, each call's are dropped);
    on one device lowered by XLA only, else they stay arguments. `layouts`: None, or (per
    invar, per result) the layout jit's Formats give it (Layout.AUTO, a Layout or None),
    lowered as JAX's `mhlo.layout_mode` (xla/layout.py)."""
    kept, n_consts, n_inputs = None, len(jaxpr.constvars), len(jaxpr.constvars + jaxpr.invars)
    # (the NumPy backend's module text, `Lowered.as_text()`, XLA's CPU module: JAX's too)
    embed = {jaxpr.constvars[i]: value for i, value in embedded.items()} \
        if embedded and mesh is None and not has_keys(jaxpr) and (
            type(devices[0]) is not NumpyDevice or platforms is not None or locations) else {}
    # (inputs of symbolic shapes: JAX's main takes every input, after the variables)
    if not keep_unused and not any(is_symbolic(d) for v in jaxpr.invars
                                   for d in getattr(v.aval, "shape", ())):
        jaxpr, kept = prune_unused_inputs(dce_jaxpr(jaxpr, prune_calls=True),
                                          keep=aliases or ())
    if embed:
        jaxpr, kept, embed = _embedding(jaxpr, kept, embed)
    if layouts is not None:            # (per input, constvars first: theirs are XLA's default)
        layouts = ([None] * n_consts + list(layouts[0]), list(layouts[1]))
        if kept is not None:
            layouts = ([layouts[0][i] for i in kept], layouts[1])
    if kept is not None:
        donated, arg_shardings, arg_names, aliases, one_device = _kept_only(
            kept, n_consts, n_inputs, donated, arg_shardings, arg_names, aliases, one_device)
    # typed keys become their uint32 data here (core/physical.py), for XLA and the NumPy
    # backend alike; the results' types stay the keys' (the executable wraps them again)
    out_avals = tuple(jaxpr.out_avals)
    key_ndims = None
    if mesh is not None and has_keys(jaxpr):    # (their ranks: lowering's _unsharded_keys)
        key_ndims = tuple([len(v.aval.shape) if is_extended(v.aval) else None for v in vs]
                          for vs in (jaxpr.constvars + jaxpr.invars, jaxpr.outvars))
    jaxpr = physicalize(jaxpr)
    devices = tuple(devices)
    if type(devices[0]) is NumpyDevice:
        needed = None if mesh is not None else numpy_sharded.mesh_needed(jaxpr)
        if needed is not None:            # as XLA's lowering would: jit partitions it then
            raise NeedsMesh(f"a sharding constraint or shard_map inside a program for one "
                            f"device (over {needed})", needed)
        if platforms is None and not locations:
            # the NumPy backend runs the jaxpr itself (numpy_backend.py): nothing to lower,
            # but what lowering does besides (numpy_lowering_rules, its checks); a library's
            # rule that emits elementwise operations or none runs as them (numpy_user_rules.py)
            check_lowerable(jaxpr)
            if mesh is not None and mesh.size > 1:
                check_one_device_effects(jaxpr, mesh)
            # (the ordered effects it has, before run_user_rules drops their equations: its
            # calls pass their runtime tokens on, as XLA's programs do)
            tokens = tuple(ordered_library_effects(jaxpr.effects))
            jaxpr = run_user_rules(jaxpr)
            if mesh is not None and mesh.size > 1:
                program = inline_calls(jaxpr)
                _numpy_lowering(program, devices, mesh, numpy_sharded.lowering_layouts(
                    program, mesh, arg_shardings))
            else:
                _numpy_lowering(jaxpr, devices)
            aliased = ()
            if donated is not None:
                # what XLA's lowering would donate after all: one no result takes is kept
                # (not deleted by calls), with JAX's warning (set_up_aliases); on one device
                # the results XLA would write into a donated input's buffer (alias_plan)
                if mesh is None:
                    plan, donated = alias_plan(jaxpr, donated, aliases, layouts)
                    aliased = tuple((i, j) for i, j in plan.items() if j is not None)
                else:
                    donated = set_up_donors(jaxpr, donated, arg_shardings, result_shardings,
                                            layouts)[1]
            return Module("", None, devices, out_avals,
                          tuple(donated) if donated is not None else (), None, 0.0, jaxpr,
                          None if arg_shardings is None else tuple(arg_shardings), kept,
                          tokens, aliased=aliased,
                          out_kinds=_out_kinds(mesh, result_shardings, out_avals))
        platforms = platforms or ("cpu",)    # its text (Lowered.as_text): XLA's CPU module
    platforms = tuple(platforms or (_client.platform_of(devices[0]),))
    start = time.perf_counter()
    text, module_ctx = lower_module(
        jaxpr, name=name, platform=platforms[0], platforms=platforms, donated=donated,
        mesh=mesh, arg_shardings=arg_shardings, result_shardings=result_shardings,
        locations=locations, result_names=result_names, arg_names=arg_names, aliases=aliases,
        one_device=one_device, rules=rules, devices=devices, tokens=True, embedded=embed,
        key_ndims=key_ndims, layouts=layouts)
    lower_s = time.perf_counter() - start
    propagate = None if mesh is None else tuple(s is None for s in result_shardings)
    out_kinds = _out_kinds(mesh, result_shardings, out_avals)
    # what is donated after all (set_up_aliases: an unusable donation is dropped, with a warning)
    return Module(text, module_ctx, devices, out_avals,
                  tuple(module_ctx.donated) if donated is not None else (), propagate, lower_s,
                  kept=kept, tokens=module_ctx.tokens, out_kinds=out_kinds)


def _out_kinds(mesh, result_shardings, out_avals) -> tuple | None:
    """Module.out_kinds: on one device, per result the memory kind its sharding names, else
    the one its type's memory space names (a host-typed result: the module's attributes
    place it there, as JAX's propagated memory kinds); None where all are 'device'."""
    if mesh is not None:
        return None
    asked = result_shardings or [None] * len(out_avals)
    kinds = tuple(getattr(s, "memory_kind", None) or (
        None if getattr(a, "memory_space", None) in (None, MemorySpace.Device, MemorySpace.Any)
        else mem_space_to_kind(a.memory_space)) for s, a in zip(asked, out_avals))
    return None if all(k in (None, "device") for k in kinds) else kinds


def _embedding(jaxpr, kept, embed) -> tuple:
    """(`jaxpr` without the constvars `embed` writes in, the inputs kept (indices among the
    original ones, constvars first), {constvar: value} of those it still reads) where `kept`
    (None: all) are `jaxpr`'s inputs."""
    embed = {v: embed[v] for v in jaxpr.constvars if v in embed}
    if not embed:
        return jaxpr, kept, embed
    inputs = jaxpr.constvars + jaxpr.invars
    kept = tuple(range(len(inputs))) if kept is None else kept
    kept = tuple(i for v, i in zip(inputs, kept) if v not in embed)
    return (Jaxpr([v for v in jaxpr.constvars if v not in embed], jaxpr.invars,
                  jaxpr.outvars, jaxpr.eqns), kept, embed)


def _numpy_lowering(jaxpr, devices, mesh=None, layouts=None) -> None:
    """Run the numpy_lowering_rules of `jaxpr`'s equations and its inner jaxprs' (over a mesh
    of several devices, a mesh_lowering_rule with its operand's layout where there is one)."""
    for eqn in jaxpr.eqns:
        over_mesh = numpy_sharded.mesh_lowering_rules.get(eqn.primitive) if mesh else None
        if over_mesh is not None:
            first = eqn.invars[0] if eqn.invars else None
            over_mesh(eqn.params, mesh, (layouts or {}).get(first))
            continue
        found = numpy_lowering_rules.get(eqn.primitive)
        if found is not None:
            found(eqn.params, devices)
        for inner in jaxprs_in_params(eqn.params):
            _numpy_lowering(inner, devices, mesh)


def _kept_only(kept, n_consts, n_inputs, donated, arg_shardings, arg_names, aliases,
               one_device):
    """`lower`'s per-input options for the `kept` inputs alone (indices among the n_inputs,
    constvars first; `arg_names` and `one_device`'s inputs are per invar, the last ones)."""
    def pick(values, n=0):
        return values if values is None else [values[i - n] for i in kept if i >= n]
    if one_device is not None:           # (its inputs: the last invars', leaves past Refs)
        ins = [False] * (n_inputs - n_consts - len(one_device[0])) + list(one_device[0])
        one_device = (tuple(pick(ins, n_consts)), one_device[1])
    return (pick(donated), pick(arg_shardings), pick(arg_names, n_consts),
            aliases and {kept.index(i): j for i, j in aliases.items()}, one_device)


def compile_loaded(module: Module, trace_s: float = 0.0, compiler_options=None) -> tuple:
    """(jaxlib LoadedExecutable, Phases) of a lowered module, through the executable caches
    (`compiler_options`: XLA's options by name, as `compile_module` takes them)."""
    if type(module.devices[0]) is NumpyDevice:      # (explain's optimized HLO, for one)
        raise unsupported("XLA's compiled program (its optimized HLO and costs)",
                          "run under JAX_PLATFORMS=cpu for XLA's view of it")
    loaded, phases = compile_module(module.text, module.devices,
                                    host_callbacks=module.module_ctx.host_callbacks,
                                    propagate_outputs=module.propagate_outputs,
                                    compiler_options=compiler_options)
    return loaded, dataclasses.replace(phases, trace_s=trace_s, lower_s=module.lower_s)


def compile(module: Module, label: str, *, trace_s: float = 0.0, executable=Executable,
            compiler_options=None, **options) -> tuple:
    """(Executable, Phases) of a lowered module. `executable` is the Executable class to
    make (called as Executable is, with `options` as keywords); `label` names it in errors;
    `compiler_options` are XLA's options by name."""
    if module.out_kinds is not None:
        options = {**options, "out_kinds": module.out_kinds}
    if module.jaxpr is not None:               # the NumPy backend's (lower made it so)
        # loads with the first program on the NumPy backend: XLA's runs never need it
        from .numpy_backend import compile_numpy
        return compile_numpy(module, label, trace_s, executable,
                             compiler_options=compiler_options, **_kept_options(module, options))
    loaded, phases = compile_loaded(module, trace_s, compiler_options)
    relayout.watch_program(loaded, module.text)    # (jit's Formats: other layouts' buffers)
    return executable(loaded, module.out_avals, module.devices, label, module.donated,
                      **_kept_options(module, options)), phases


def _kept_options(module: Module, options: dict) -> dict:
    """The executable's options where the module takes some inputs only: `kept` (each call
    drops the others first, as JAX's ExecuteReplicated does), and the kept inputs' names and
    types (its errors name those)."""
    if module.tokens:
        options = {**options, "tokens": module.tokens}
    if module.kept is None:
        return options
    for name in ("arg_names", "in_avals"):
        if options.get(name) is not None:
            given = options[name]
            options = {**options, name: [given[i] for i in module.kept if i < len(given)]}
    return {**options, "kept": module.kept}


def compile_jaxpr(jaxpr, devices, *, name: str, label: str | None = None, donated=None,
                  trace_s: float = 0.0, executable=Executable, keep_unused=True,
                  **options) -> tuple:
    """(Executable, Phases): `jaxpr` lowered and compiled for `devices` (one device; see
    `lower`, and its `keep_unused`). `label` (default `name`) names the executable in
    errors; `executable` and `options` as in `compile`."""
    module = lower(jaxpr, devices, name=name, donated=donated, keep_unused=keep_unused)
    return compile(module, label or name, trace_s=trace_s, executable=executable, **options)
