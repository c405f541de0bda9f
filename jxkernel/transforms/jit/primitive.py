"""The `jit` primitive and its rules: a jitted call inside another transformation is one
`jit` equation holding the traced jaxpr (with its consts where all are concrete, else passing
them as operands: `consts_kept`), which grad, vmap, linearize and an enclosing jit handle as
they handle any primitive, through these rules.

    >>> jxkernel.make_jaxpr(jxkernel.grad(jxkernel.jit(jnp.sin)))(1.0).eqns[0].primitive
    jit

Run eagerly (a transformation re-binds it), a jit equation compiles once per jaxpr and
operand types; over a mesh (a sharding constraint inside, or sharded operands) it runs
through xla/sharded.py.
"""
from __future__ import annotations

import contextlib
import dataclasses
import sys
import time
import weakref
from typing import NamedTuple

import numpy as np

from ...core import compile_record, sharding_types, watches
from ...core.config import config
from ...core.interpret import eval_at_call_site, eval_jaxpr
from ...core.dce import (dce_closed_outputs, dce_jaxpr, dce_rules, effect_aware_dce,
                         prune_rules, pruned_body)
from ...core.device_assignment import check_device_assignment, placement, program_devices
from ...core.ir import (ClosedJaxpr, Jaxpr, Literal, Var, call_primitives,
                        default_hidden_params, param_printers)
from ...core.lru import LRU, PROGRAMS, TRACES, WeakLRU
from ...core.mesh import (UNSPECIFIED, _mesh_state, empty_concrete_mesh, get_mesh,
                          on_context_mesh)
from ...core.partial_eval import PartialEvalTrace, partial_eval_jaxpr
from ...core.numpy_eval import call_rule
from ...core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules, impl_rules,
                               jvp_rules, lowering_rules, numpy_rules, partial_eval_rules,
                               sharding_typing_rules, staging_rules, transpose_rules)
from ...core.source_info import traced_call_site
from ...core.staging import JaxprTrace, convert_constvars_to_invars, is_ref
from ...core.trace import Tracer, _ctx, set_current_trace
from ...xla import client as _client
from ...xla import pipeline
from ...xla.array import Array, is_plain
from ...xla.dispatch import (InvalidJitOutput, check_jitted_values, invalid_value,
                             rerun_deoptimized, to_device)
from ...xla.compiler import Phases
from ...xla.lowering import NeedsMesh
from ...tree_util import tree_leaves
from ..ad import jvp_jaxpr, refs_as_values, transpose_jaxpr
from ..api_util import merge_static
from ..ad_util import Zero, is_undefined
from ..batch_util import not_mapped
from ..batching import BatchTrace, BatchTracer, batch_jaxpr
from . import refs as jit_refs
from .cache import ON_ONE_DEVICE
from .pinned import (check_context, check_split, eager_placement, has_pins, params as pin_params,
                     pin_of, refuse_mesh)

jit_p = Primitive("jit", multiple_results=True)


def eqn_params(jaxpr, n_in: int, donated_invars, name, keep_unused, inline, ctx_mesh=None,
               pin=None, compiler_options_kvs=()) -> dict:
    """A jit equation's params over `n_in` operands, as JAX 0.10.2's (its keys, in its
    order): jaxpr, in_shardings, out_shardings, in_layouts, out_layouts (pinned.params: from
    `pin`, a Pin or None), donated_invars, ctx_mesh (set_mesh's mesh, else the empty one:
    `context_mesh()`), name, keep_unused, inline, compiler_options_kvs (JAX allows compiler
    options on a top-level jit only: () on every equation)."""
    return {"jaxpr": jaxpr, **pin_params(pin, n_in, len(jaxpr.out_avals)),
            "donated_invars": tuple(donated_invars),
            "ctx_mesh": context_mesh() if ctx_mesh is None else ctx_mesh, "name": name,
            "keep_unused": keep_unused, "inline": inline,
            "compiler_options_kvs": compiler_options_kvs}


def context_mesh():
    """The ctx_mesh of a jit equation bound now, as JAX's get_ctx_mesh: set_mesh's mesh, else
    use_abstract_mesh's AbstractMesh where an axis of it is Explicit, else the empty Mesh."""
    if on_context_mesh():
        return get_mesh()
    abstract = _mesh_state.abstract         # (not a `with mesh:` block's: JAX's has none)
    return abstract if abstract is not None and abstract.explicit_axes else empty_concrete_mesh


def _rebound(params, jaxpr, args, donated_invars, pin):
    """`_bind_jit` of a rule's new equation over `jaxpr` and `args`, its other params
    (name, ctx_mesh, ...) the rewritten equation's `params`; `pin` its placements."""
    return _bind_jit(jaxpr, args, donated_invars, params["name"], params["keep_unused"],
                     params["inline"], params["ctx_mesh"], pin,
                     params["compiler_options_kvs"])


def _jit_abstract_eval(*avals, jaxpr, **_):
    return jaxpr.out_avals


def _jit_lowering(ctx, *args, jaxpr, name, **params):
    # a pinned jit's placements: its function's operands and results constrained to them
    pinned = pin_of(params)
    return ctx.call_jaxpr(jaxpr, args, name, pinned and (pinned.ins, pinned.outs))


def _jit_impl(*args, jaxpr, name, donated_invars, inline, keep_unused, **params):
    """A jit equation run eagerly (e.g. by a transformation that re-binds it): compile once;
    a pinned jit's (its in_shardings/out_shardings: pinned.pin_of) on its device. Under
    jax_debug_nans/infs a NaN/inf it makes raises InvalidJitOutput, for what bound it to
    rerun it op by op."""
    outs = _jit_run(args, jaxpr, name, donated_invars, inline, keep_unused, pin_of(params))
    if config._debug_values:
        kind = invalid_value(outs)
        if kind is not None:
            raise InvalidJitOutput(kind, name)
    return outs


def _jit_run(args, jaxpr, name, donated_invars, inline, keep_unused, pinned=None):
    check_device_assignment(jaxpr.out_avals, lambda: program_devices(
        jaxpr, [placement(a) for a in args], (), keep_unused))
    if has_pins(jaxpr, pinned):     # on its device (an argument split over a mesh: JAX's error)
        check_split(pinned, args)
    elif any_sharded(args) or _partitioned and (jaxpr, None) in _partitioned or \
            on_context_mesh():            # over a mesh (set_mesh's: as JAX runs it there)
        # loads with the first mesh or sharded Array: `import jxkernel` needs neither
        from ...xla.sharded import run_jaxpr
        outs = run_jaxpr(jaxpr, name, args, _partitioned.get((jaxpr, None)) or get_mesh(),
                         on_compile=lambda avals, _, phases, platform: _record_compile(
                             jaxpr, name, avals, phases, platform))
        for a, donated in zip(args, donated_invars):     # (as a call deletes what it donates)
            if donated and hasattr(a, "is_deleted") and not a.is_deleted():
                a.delete()
        return outs
    try:
        return _jit_impl_one_device(args, jaxpr, name, donated_invars, pinned, keep_unused)
    except NeedsMesh as e:                  # a sharding constraint inside
        _partitioned[jaxpr, None] = e.mesh
        return _jit_run(args, jaxpr, name, donated_invars, inline, keep_unused, pinned)


_partitioned = WeakLRU(TRACES)   # (jaxpr, None) -> the mesh its sharding constraints need


def _jit_impl_one_device(args, jaxpr, name, donated_invars, pinned=None, keep_unused=True):
    # where a call would run it: committed Arrays (or pinned jits) decide, else the default
    # device, its results then uncommitted
    device, committed = eager_placement(args, jaxpr, pinned)
    leaves = [a if is_plain(a) and a.device == device else to_device(a, device) for a in args]
    key = (jaxpr, (tuple(a.aval for a in leaves), device))
    exe = _impl_cache.get(key)
    if exe is None:
        donated = (False,) * len(jaxpr.consts) + tuple(donated_invars)
        exe, phases = pipeline.compile_jaxpr(jaxpr.jaxpr, [device], name=name, donated=donated,
                                             keep_unused=keep_unused)
        _impl_cache[key] = exe
        _record_compile(jaxpr, name, [a.aval for a in leaves], phases,
                        _client.platform_of(device))
    outs = exe.with_committed(committed).call_arrays(
        [to_device(c, device) for c in jaxpr.consts] + leaves)
    # (a jitted function under an eager vmap: the notebook's watch)
    eager = watches.eager(_impl_watches, key, lambda: jaxpr, name) if watches.makers else None
    if eager is not None:
        eager.called(leaves, outs, time.perf_counter())
    return outs


def one_device_program(jaxpr, args):
    """The executable an eager jit equation over `jaxpr` compiled for `args` (Arrays, all on
    one device, none split over a mesh), or None: what `_jit_impl` would run them with, for
    a caller that runs it again without the bind (high.py's rerun of a capturing jit)."""
    if not args or any_sharded(args) or on_context_mesh() or (jaxpr, None) in _partitioned:
        return None
    try:
        device = eager_placement(args, jaxpr, None)[0]      # (as _jit_impl_one_device's)
    except ValueError:
        return None
    return _impl_cache.get((jaxpr, (tuple(a.aval for a in args), device)))


def _record_compile(jaxpr, name, avals, phases, platform):
    """Record _compile_event's event, a jitted function's counted with its jit's own compiles
    (its caches' history, as a call's are): grad(f) after f(x) is f's compile #2, where
    counted apart it was #1 and its note said "the log was cleared since its first"."""
    event = _compile_event(jaxpr, name, avals, phases, platform)
    jitted = event.key
    compile_record.record(event, counted_as=getattr(jitted, "_history", None))


def _compile_event(jaxpr, name, avals, phases, platform):
    """The log's event for a jit equation compiled by a transformation (grad or vmap of a
    jitted function): the first program made from a trace of the user's function that missed
    JAX's tracing cache is that function's compile, with the miss's cause (`traced_under`),
    as JAX logs such a miss once; any other (grad's backward pass, a new batch size, `name`
    jxkernel's own: vmap(nn.relu)) is eager work, as JAX logs none."""
    signature = tuple((f"args[{i}]", a.str_short(True)) for i, a in enumerate(avals))
    origin = _origins.get(jaxpr)
    jitted = origin and not origin.told and origin.jitted()
    if not jitted:
        return compile_record.CompileEvent(
            name, None, signature, "a transformed jitted function (its jaxpr was rewritten by "
            "vmap/grad/...)", phases, platform, origin=compile_record.EAGER)
    origin.told = True
    source = jitted._source_text()
    signature = _named_as_the_miss(signature, origin.signature)
    return compile_record.CompileEvent(
        jitted._name, source, signature, origin.reason, phases, platform, key=jitted,
        changes=origin.changes, origin=compile_record.origin_of(source, jitted._by_user),
        traced_at=origin.site, jax_lines=origin.jax_lines,
        logged_at_trace=origin.event is not None)


def _named_as_the_miss(signature, named) -> tuple:
    """A transformed program's `signature` ("args[0]: f32[8,4]") in the names the miss of the
    learner's function says (`named`, "x: f32[4]", as JAX's message): one input for each of
    the function's, each the program's type (value_and_grad's "w: f32[4]", vmap's batched
    "x: f32[8,4]"); where the program takes more (hessian's tangents), the function's own.

        >>> _named_as_the_miss((("args[0]", "f32[8,4]"),), (("x", "f32[4]"),))
        (('x', 'f32[8,4]'),)
        >>> _named_as_the_miss((("args[0]", "f32[3]"), ("args[1]", "f32[3,3]")),
        ...                    (("w", "f32[3]"),))
        (('w', 'f32[3]'),)
    """
    if not named:
        return signature
    traced = [(name, aval) for name, aval in named if not aval.startswith("static ")]
    if len(traced) == len(signature):        # (a static argument is no input of the program)
        return tuple((name, aval) for (name, _), (_, aval) in zip(traced, signature)) + \
            tuple((name, aval) for name, aval in named if aval.startswith("static "))
    return tuple(named)


# ------------------------------------------------------------------ whose program it is
class _Origin:
    """The jitted function a jit equation's jaxpr was traced from, why that trace missed,
    whether a compile has told it yet, the user's line that traced it (`site`), JAX's
    lines for a different input pytree (`jax_lines`) and the signature the trace was
    explained at, in the learner's names (`signature`)."""
    __slots__ = ("jitted", "reason", "changes", "told", "site", "jax_lines", "event",
                 "signature")

    def __init__(self, jitted, reason, changes, told, site=None, jax_lines=(), event=None,
                 signature=None):
        self.jitted, self.reason, self.changes, self.told = weakref.ref(jitted), reason, \
            changes, told
        self.site, self.jax_lines, self.signature = site, jax_lines, signature
        # a stage's trace (eval_shape, .trace, .lower): the event its compile records, its
        # miss logged at the trace already (compile_record.trace_missed)
        self.event = event


# a jit equation's jaxpr, and each jaxpr grad, vmap and linearize make from it, -> its _Origin
# (weakly by the jaxpr, as the programs are kept)
_origins = weakref.WeakKeyDictionary()
_seen_under = weakref.WeakKeyDictionary()     # Jitted -> its signatures traced under them


# a jit equation's jaxpr -> (weakly) the jit object whose trace made it (traced_under)
_traced_by = weakref.WeakKeyDictionary()


def traced_by(jaxpr, jitted) -> bool:
    """Whether `jitted` itself traced `jaxpr` (inside another trace: jit(outer) calling it,
    make_jaxpr of it), which its later call at the top level finds in its own cache, as
    JAX's jit object does (no "Finished tracing" logged for that lookup)."""
    ref = _traced_by.get(jaxpr)
    return ref is not None and ref() is jitted


def traced_under(jitted, jaxpr, closed, miss, stage_trace_s=None, leaves=None) -> None:
    """`jaxpr` (a jit equation's, made from `closed`) is `jitted`'s: a trace that missed, the
    cause explained against its signatures before (`miss()`, the compile record's Miss), or
    an eager compile's trace reused, or a sibling jit's (`miss` None): nothing to tell.
    `stage_trace_s`: the seconds of a stage's trace made at the top level (eval_shape,
    `.trace`, `.lower`), whose miss JAX logs there, not at the compile that uses it."""
    if miss is not None:
        try:
            _traced_by[jaxpr] = weakref.ref(jitted)
        except TypeError:
            pass
    if compile_record.origin_of(jitted._source_text(), jitted._by_user) != compile_record.USER:
        return                                      # jxkernel's own jits: eager work
    if miss is None or any(entry.jaxpr is closed for entry in jitted._cache.values()):
        _origins[jaxpr] = _Origin(jitted, None, (), True)
        return
    found = miss()
    if stage_trace_s is not None and _staged_into() is None:
        site = traced_call_site()
        found = dataclasses.replace(found, consts=tuple(
            c for c in closed.consts if not is_ref(c)))      # (a Ref's value is each call's)
        event = compile_record.trace_missed(found, Phases(stage_trace_s),
                                            _client.platform_of(found.device), site)
        if event is not None:
            _origins[jaxpr] = _Origin(jitted, event.reason, event.changes, False, site,
                                      event.jax_lines, event, event.signature)
            return
    inside = _staged_into()
    reason, changes, signature, jax_lines = compile_record.traced_under_transformation(
        found, _seen_under.setdefault(jitted, []), _under_vmap(leaves), inside)
    # the line that traced it, as JAX names it (no further out than the trace it is part
    # of: "" for make_jaxpr's trace of the jit): JAX logs the miss there, though a later
    # call compiles it
    site = traced_call_site()
    _origins[jaxpr] = _Origin(jitted, reason, changes, inside is not None, site, jax_lines,
                              signature=signature)
    if inside is not None:
        # traced inside another traced function (grad(inner) inside jit(outer)): its jit
        # equation is inlined into that program and nothing compiles of its own, so the miss
        # is told now, at the trace, as JAX logs it; a later direct call reusing the trace
        # compiles without a miss
        source = jitted._source_text()
        event = compile_record.record(compile_record.CompileEvent(
            jitted._name, source, signature, reason, Phases(),
            _client.platform_of(found.device), key=jitted, changes=changes,
            origin=compile_record.origin_of(source, jitted._by_user), inlined_into=inside,
            traced_at=site, jax_lines=jax_lines))
        compile_record.traced_inside(event, tuple(c for c in closed.consts if not is_ref(c)),
                                     jit_refs.host_reads(closed))   # what it read from outside


def _under_vmap(leaves=None) -> bool:
    """Whether the current trace batches (a jitted function called under vmap sees rows).
    Not where the jit's `leaves` (its arguments, where known) are derivatives' tracers whose
    primals no vmap maps: jacfwd and hessian vmap over tangents alone, and the function sees
    the learner's whole array, not a row (hessian_of_jit_new_shape)."""
    trace = _ctx.trace
    while trace is not None:
        if isinstance(trace, BatchTrace):
            return not _only_tangents_mapped(leaves or ())
        trace = trace.parent
    return False


def _only_tangents_mapped(leaves) -> bool:
    """Whether some of `leaves` are a derivative's tracers (a primal and its tangent) and none
    of their primals, followed down, is a vmap's mapped value."""
    duals = [x for x in leaves if isinstance(x, Tracer) and hasattr(x, "tangent")]
    return bool(duals) and not any(_primal_mapped(x) for x in leaves)


def _primal_mapped(x) -> bool:
    """Whether `x`, through its primals (jvp's, grad's), is a value a vmap maps."""
    for _ in range(64):                 # as deep as transformations nest, at most
        if isinstance(x, BatchTracer):
            if x.batch_dim is not not_mapped:
                return True
            x = x.val
        elif isinstance(x, Tracer) and hasattr(x, "tangent"):
            x = x.primal
        else:
            return False
    return False


def _staged_into() -> str | None:
    """The traced function the current trace stages into ("jit(outer)", a scan's body,
    "make_jaxpr(f)"), as its user wrote it; None where a jit equation bound now runs eagerly
    (grad, vmap or linearize at top level, which compile it: _jit_impl tells the miss then)."""
    trace = _ctx.trace
    while trace is not None:
        if isinstance(trace, JaxprTrace) and not isinstance(trace, PartialEvalTrace):
            info = trace.debug_info
            if info is None:
                return "another traced function"
            return f"{info.shown_as or info.transformation}({info.fun_name})"
        trace = trace.parent
    return None


def untold(jaxpr) -> bool:
    """Whether `jaxpr`'s trace (under a transformation) missed and no compile has told it yet
    (eval_shape, or a jit inlined into another's program, compile nothing of it); the caller,
    a compile reusing that trace, tells it now."""
    origin = _origins.get(jaxpr)
    if origin is None or origin.told:
        return False
    origin.told = True
    return True


def traced_at(jaxpr):
    """The user's line whose trace made `jaxpr` (a jit's, traced by eval_shape, `.trace` or
    `.lower`, or under grad), "file:line:column (qualname)" as JAX's log names it ("" inside
    a trace with no line of the user's between), where that trace missed; else None."""
    origin = _origins.get(jaxpr)
    return None if origin is None else origin.site


def told(trace) -> tuple:
    """(whether a call's compile tells a tracing miss, the user's line that traced, the event
    of that trace where a stage made it: trace_event) for a compile of `trace`, a jit's trace
    reused (jit._traces's entry), or None: its own trace, whose miss it tells at its own line
    (None)."""
    return (True, None, None) if trace is None else \
        (untold(trace[0]), traced_at(trace[0]), trace_event(trace[0]))


# a function's keys whose trace raised (by its jits' shared cache: their miss logged once, as
# JAX's: raised_trace_logged)
_raised_keys: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@contextlib.contextmanager
def raised_trace_logged(jitted, key, device, *miss_args):
    """Around a call's own trace of `jitted` at cache `key`: a trace that raises (a traced
    `if`) logs its miss and "Finished tracing f for jit" first, as JAX 0.10.2 does: it explains
    a miss before tracing, and the key joins what later misses are explained against, so the
    same failing call again logs its trace's line alone. `miss_args` make the compile
    record's Miss."""
    start = time.perf_counter()
    try:
        with compile_record.misses_held(jitted):   # (JAX's order: this jit's miss first)
            yield
    except Exception:
        raised = _raised_keys.setdefault(jitted._cache, set())  # (per function: its jits share it)
        seconds = time.perf_counter() - start
        if key in raised:
            compile_record.log_traced(jitted._name, seconds)
        elif config.jax_explain_cache_misses or config.jax_log_compiles:
            raised.add(key)
            compile_record.trace_missed(jitted._miss(*miss_args, device), Phases(seconds),
                                        _client.platform_of(device), traced_call_site())
        compile_record.release_held()       # (what its trace met, after its own miss)
        raise


def traced_inside(jitted, treedef, statics, avals, dyn_args, dyn_kwargs):
    """(ClosedJaxpr, out_tree, seconds): a jit's trace inside another trace (its bind path),
    the misses it meets held for its own (compile_record.misses_held). One that raises (a
    jitted helper's traced `if`, inside jit(step) or make_jaxpr) logs its miss first, as JAX
    explains it before tracing, once per key, with no "Finished tracing" of its own (JAX
    logs the outer trace's)."""
    try:
        return compile_record.traced_held(jitted, treedef, statics, avals, dyn_args, dyn_kwargs)
    except Exception:
        key = (treedef, avals, statics, config._trace_state)
        raised = _raised_keys.setdefault(jitted._cache, set())  # (per function: its jits share it)
        if config.jax_explain_cache_misses and key not in raised:
            raised.add(key)
            device = _client.default_device()
            compile_record.trace_missed(
                jitted._miss(treedef, statics, avals, dyn_args, dyn_kwargs, device), Phases(0.0),
                _client.platform_of(device), traced_call_site())
            compile_record.release_held()     # (what its trace met, after its own miss)
        raise


def lowered_now(jaxpr, lower_s: float) -> None:
    """A stage's trace of `jaxpr` lowered by `.lower()` before anything compiled it: its
    lowering logged now, as JAX logs it (compile_record.log_lowering), once."""
    origin = _origins.get(jaxpr)
    if origin is not None and origin.event is not None and not origin.told and \
            not origin.event.logged_at_lowering:
        origin.event = compile_record.log_lowering(dataclasses.replace(
            origin.event, phases=Phases(origin.event.phases.trace_s, lower_s)))


def trace_event(jaxpr):
    """The event a stage's trace of `jaxpr` made (eval_shape's, `.trace`'s, `.lower`'s: its
    miss logged then), which the first compile of it records; else None."""
    origin = _origins.get(jaxpr)
    return None if origin is None else origin.event


def told_by_lowering(traced, lower_s: float, platforms: tuple = ()) -> None:
    """`traced` (a jit's Traced stage) lowered outside a call (jax.export, for `platforms`):
    its trace is a miss of the function's tracing cache and its module a lowering, as JAX logs
    both ("Compiling jit(f)" too, XLA's line not: nothing compiles), so it is logged as the
    function's compile, explained as a call's, which a later call is then compared with
    ("x: f32[n] -> f32[3]"). A trace reused (f(x) then export(f)(x)) is no miss: its lowering's
    lines alone are logged, as JAX's, the first time it is exported for these platforms (JAX's
    lowering cache holds the rest)."""
    if getattr(traced, "_miss", None) is None:
        return
    jaxpr = traced._shared_jaxpr
    try:
        lowered = _exported_for.setdefault(jaxpr, set())
    except TypeError:                 # (a jaxpr not weakly referenceable: told each time)
        lowered = set()
    first, _ = platforms not in lowered, lowered.add(platforms)
    if untold(jaxpr):
        compile_record.compiled(traced._miss(), Phases(traced.trace_s, lower_s),
                                _client.platform_of(_client.default_device()),
                                traced_at=traced_at(jaxpr), event=trace_event(jaxpr),
                                exported=True)
    elif traced.trace_s and _origins.get(jaxpr) is None:
        # traced now, a jit of jxkernel's own whose trace no miss told (traced_under leaves
        # them out: eager work elsewhere): Exported.vjp()'s fun_vjp_jax, a jit in JAX too,
        # whose "Finished tracing" JAX logs with its lowering, as a first call's
        compile_record.compiled(traced._miss(), Phases(traced.trace_s, lower_s),
                                _client.platform_of(_client.default_device()), exported=True)
    elif first:
        compile_record.log_export_lowering(traced._miss(), Phases(0.0, lower_s))


# a jit's trace -> the platforms it was exported for (JAX lowers each once, then its
# lowering cache has it: no lines)
_exported_for: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _derived(new, old):
    """`new`, made from `old` by a transformation, is the same function's program."""
    origin = _origins.get(old)
    if origin is not None:
        _origins[new] = origin
    return new


# weakly by the jaxpr, as JAX's caches of jaxprs: a transformed jit's program goes with it
_impl_cache = WeakLRU(PROGRAMS)   # (jaxpr, (avals, device)) -> Executable
# the same key -> the watches.Eager of a program the notebook watches, or None (an LRU: its
# watch holds the jaxpr, which a weak key would then keep alive)
_impl_watches = LRU(PROGRAMS)


def _jit_staging(trace: JaxprTrace, args, params):
    """Staged inside another trace: one `jit` equation, or its body inlined if inline=True."""
    if params["inline"]:
        jaxpr = params["jaxpr"]
        with set_current_trace(trace):      # (its equations at the call's line, as JAX's)
            outs = eval_at_call_site(jaxpr.jaxpr, jaxpr.consts, *args)
        # a literal result (`lambda x: jnp.array(1)`) is a value of this trace, as JAX's
        return [trace.tracer_type(trace, x.aval, None, x.val) if type(x) is Literal else x
                for x in outs]
    atoms = [trace.to_atom(x) for x in args]
    return trace.add_eqn(atoms, jit_p, params, params["jaxpr"].out_avals)


def _jit_params(params) -> list:
    """JAX's _pjit_pp_rule: name, then the rest sorted, each where it says something (a
    donated operand, keep_unused, and `_default_hidden`'s); never inline."""
    shown = [(k, v) for k, v in params.items() if k not in ("name", "inline") and not (
        k == "donated_invars" and not any(v) or k == "keep_unused" and not v or
        _default_hidden(k, v))]
    return [("name", params["name"]), *sorted(shown, key=lambda kv: kv[0])]


def _default_hidden(key, value) -> bool:
    """Whether a jit equation's param is at the default JAX's printer hides (as the notebook's
    jaxpr view does): no sharding or layout given, no context mesh, no compiler options."""
    return key in ("in_shardings", "out_shardings") and all(s is UNSPECIFIED for s in value) \
        or key in ("in_layouts", "out_layouts") and all(x is None for x in value) \
        or key == "ctx_mesh" and value.empty or key == "compiler_options_kvs" and not value


def consts_kept(closed: ClosedJaxpr) -> bool:
    """Whether a jit equation holds `closed` with its consts: as JAX's, when all are concrete
    (`jit[jaxpr={ lambda d:f32[3]; b:f32[3]. ...}] b`); where one is a tracer of an enclosing
    trace (which params must not hold) or a Ref (read at each call), all are operands."""
    return all(type(c) in _CONCRETE for c in closed.consts)


_CONCRETE = (Array, np.ndarray)


def _bind_jit(jaxpr, args, donated_invars, name, keep_unused, inline, ctx_mesh=None, pin=None,
              compiler_options_kvs=()):
    """Bind jit_p on a (transformed) jaxpr; its consts, unless it keeps them (`consts_kept`),
    first as explicit operands (placed where the program runs: unspecified). `pin`: its
    placements (a pinned.Pin), or None."""
    if jaxpr.consts and not consts_kept(jaxpr):
        converted, consts = convert_constvars_to_invars(jaxpr)
        jaxpr = _derived(converted, jaxpr)
        pin = pin and pin.after(len(consts))
        args = [*consts, *args]
        donated_invars = (False,) * len(consts) + tuple(donated_invars)
    return jit_p.bind(*args, **eqn_params(jaxpr, len(args), donated_invars, name, keep_unused,
                                          inline, ctx_mesh, pin, compiler_options_kvs))


def _jit_batching(axis_data, vals, dims, *, jaxpr, donated_invars, **params):
    """vmap of a jit equation: one jit equation over the batched jaxpr (batched even when no
    operand is, since the body may use the axis, e.g. through axis_index)."""
    batched, out_dims = batch_jaxpr(jaxpr, axis_data, dims)
    outs = _rebound(params, _derived(batched, jaxpr), vals, donated_invars, pin_of(params))
    return outs, out_dims


def _jit_jvp(primals, tangents, *, jaxpr, donated_invars, **params):
    """jvp of a jit equation: one jit equation computing primal and tangent outputs."""
    nonzeros = [type(t) is not Zero for t in tangents]
    new_jaxpr, out_nonzeros = jvp_jaxpr(jaxpr, nonzeros)
    nz_tangents = [t for t in tangents if type(t) is not Zero]
    pinned = pin_of(params)
    outs = _rebound(params, _derived(new_jaxpr, jaxpr), list(primals) + nz_tangents,
                    tuple(donated_invars) + (False,) * len(nz_tangents),
                    pinned and pinned.jvp(nonzeros, out_nonzeros))
    n = len(jaxpr.out_avals)
    rest = iter(outs[n:])
    return outs[:n], [next(rest) if nz else Zero(a) for nz, a in zip(out_nonzeros, jaxpr.out_avals)]


def _jit_transpose(cts, *args, jaxpr, name, **params):
    """Transpose of a (linear) jit equation: a jit equation running the transposed jaxpr."""
    linear = [is_undefined(a) for a in args]
    nonlinear = [a for a in args if not is_undefined(a)]
    nonzero = tuple(type(ct) is not Zero for ct in cts)    # zero cotangents: pruned, as JAX's
    cts = [ct for ct in cts if type(ct) is not Zero]
    transposed = _derived(transpose_jaxpr(jaxpr, linear, nonzero, refs=True), jaxpr)
    # (Refs a custom_vjp's bwd wrote: their values passed, written back after)
    transposed, written = refs_as_values(transposed)
    pinned = pin_of(params)
    try:
        outs = _rebound(dict(params, name=name), transposed, nonlinear + cts,
                        (False,) * (len(nonlinear) + len(cts)),
                        pinned and pinned.transposed(linear, nonzero))
    except InvalidJitOutput as e:
        kind = e.kind           # (not the exception: its traceback holds this frame)
    else:
        outs = iter(written(outs))
        return [next(outs) if lin else None for lin in linear]
    # the backward pass again, op by op, as JAX's (outside the handler: the operation's error
    # is its own, not raised "during handling" of the jit's)
    rerun_deoptimized(kind, name, lambda: eval_jaxpr(
        transposed.jaxpr, transposed.consts, *nonlinear, *cts), _BACKWARD_RERUN_LINE)


# what JAX prints when the backward pass of a jitted function made a NaN/inf it checks for
_BACKWARD_RERUN_LINE = ("Invalid nan value encountered in the backward pass of a jax.jit "
                        "function. Calling the de-optimized backward pass.")


_consts_as_invars_cache = WeakLRU(TRACES)   # (closed, None) -> (jaxpr, consts)


def _consts_as_invars(closed: ClosedJaxpr) -> tuple:
    """convert_constvars_to_invars, the same ClosedJaxpr for the same `closed` (split jaxprs are
    cached): what later transforms it (transposition, which traces custom_vjp bwd rules) is
    cached by the jaxpr, so a second grad of a jitted function traces nothing again."""
    found = _consts_as_invars_cache.get((closed, None))
    if found is None:
        found = convert_constvars_to_invars(closed)
        if not any(isinstance(c, Tracer) for c in found[1]):
            _consts_as_invars_cache[closed, None] = found
    return found


def _jit_partial_eval(trace, args, params):
    """Linearizing through a jit: its known part runs now as one jit call; the unknown part
    (taking the residuals) is staged as another jit equation."""
    unknowns = [trace.is_unknown(x) for x in args]
    known_jaxpr, unknown_jaxpr, out_unknowns, n_res = partial_eval_jaxpr(params["jaxpr"], unknowns)
    known_jaxpr, unknown_jaxpr, n_res = _prune_residuals(known_jaxpr, unknown_jaxpr, n_res)
    known_args = [x for x, u in zip(args, unknowns) if not u]
    known_jaxpr, forwarded = _forwarding(known_jaxpr, known_args, n_res)
    _derived(known_jaxpr, params["jaxpr"])
    pinned = pin_of(params)           # (a pinned jit's: each part its placements)
    n_computed = sum(x is None for x in forwarded)
    with set_current_trace(trace.parent):
        known_outs = _rebound(params, known_jaxpr, known_args, (False,) * len(known_args),
                              pinned and pinned.split(unknowns, out_unknowns, n_computed, 0)[0])
    n_known = len(known_outs) - n_computed
    computed = iter(known_outs[n_known:])
    residuals = [next(computed) if x is None else x for x in forwarded]
    unknown = _derived(unknown_jaxpr, params["jaxpr"])
    unknown_jaxpr, unknown_consts = _consts_as_invars(unknown)
    _derived(unknown_jaxpr, unknown)
    atoms = [trace.to_atom(x) for x in unknown_consts + residuals] + \
        [trace.to_atom(x) for x, u in zip(args, unknowns) if u]
    unknown_outs = iter(trace.add_eqn(atoms, jit_p, eqn_params(
        unknown_jaxpr, len(atoms), (False,) * len(atoms), params["name"],
        params["keep_unused"], params["inline"], params["ctx_mesh"],
        pinned and pinned.split(unknowns, out_unknowns, n_res, len(unknown_consts))[1],
        params["compiler_options_kvs"]), unknown_jaxpr.out_avals))
    known_iter = iter(known_outs[:n_known])
    return [next(unknown_outs) if u else next(known_iter) for u in out_unknowns]


def _forwarding(known: ClosedJaxpr, known_args, n_res: int) -> tuple:
    """(the known part without the residuals that are its inputs or consts, per residual that
    input, that const's value, or None): a residual that is a known input is that input
    itself, as JAX forwards it (its placement, not the known call's, then places the unknown
    part); one that is a const it holds (`consts_kept`) is that const, as in JAX's."""
    found = _forwarded.get((known, None))
    if found is None:          # (one jaxpr per known part: its program compiles once)
        kj = known.jaxpr
        n_known = len(kj.outvars) - n_res
        index = {v: i for i, v in enumerate(kj.invars)}
        if consts_kept(known):
            index.update((v, _Const(c)) for v, c in zip(kj.constvars, known.consts))
        where = [index.get(v) if isinstance(v, Var) else None for v in kj.outvars[n_known:]]
        kept = kj.outvars[:n_known] + [v for v, i in zip(kj.outvars[n_known:], where)
                                       if i is None]
        found = (known if len(kept) == len(kj.outvars) else
                 ClosedJaxpr(Jaxpr(kj.constvars, kj.invars, kept, kj.eqns), known.consts), where)
        if not any(isinstance(c, Tracer) for c in known.consts):
            _forwarded[known, None] = found
    pruned, where = found
    return pruned, [None if i is None else i.value if type(i) is _Const else known_args[i]
                    for i in where]


class _Const(NamedTuple):
    """A residual that is a const of the known part: its value."""
    value: object


_forwarded = WeakLRU(TRACES)   # (known part, None) -> (it without forwarded residuals, where)


def _prune_residuals(known, unknown, n_res):
    """The residuals the unknown part never reads left out of both parts, and the known
    equations that only computed them (JAX's pjit partial eval DCEs the unknown jaxpr and
    keeps only the residuals it uses: a jvp stopped by stop_gradient leaves none behind)."""
    uj = dce_jaxpr(unknown.jaxpr)
    if uj is not unknown.jaxpr:
        unknown = ClosedJaxpr(uj, unknown.consts)
    used = {v for e in uj.eqns for v in e.invars if isinstance(v, Var)} | \
        {v for v in uj.outvars if isinstance(v, Var)}
    keep = [v in used for v in uj.invars[:n_res]]
    if all(keep):
        return known, unknown, n_res
    kj = known.jaxpr
    n_known_out = len(kj.outvars) - n_res
    outvars = kj.outvars[:n_known_out] + [v for v, k in zip(kj.outvars[n_known_out:], keep) if k]
    known = ClosedJaxpr(dce_jaxpr(Jaxpr(kj.constvars, kj.invars, outvars, kj.eqns)),
                        known.consts)
    invars = [v for v, k in zip(uj.invars[:n_res], keep) if k] + uj.invars[n_res:]
    unknown = ClosedJaxpr(Jaxpr(uj.constvars, invars, uj.outvars, uj.eqns), unknown.consts)
    return known, unknown, sum(keep)


_pruned: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # ClosedJaxpr -> _prune's


def _jit_prune(eqn):
    """A jit equation taking only the operands its function reads (JAX's pjit dce rule; not
    with keep_unused, nor with Refs): an enclosing jit then drops an argument only passed
    there, and the private function it lowers to takes the others. One pruned jaxpr per
    jaxpr, so that calls of one jitted function still share one function in the module."""
    params, closed = eqn.params, eqn.params["jaxpr"]
    if params["keep_unused"] or closed.ref_writes:
        return eqn
    found = _pruned.get(closed)
    if found is None:
        body, kept = pruned_body(closed.jaxpr)
        found = _pruned[closed] = (kept is not None and ClosedJaxpr(body, closed.consts), kept)
    pruned, kept = found
    if kept is None:
        return eqn
    pick = lambda values: type(values)(values[i] for i in kept)     # noqa: E731
    params = dict(params, jaxpr=pruned, donated_invars=pick(params["donated_invars"]),
                  in_shardings=pick(params["in_shardings"]),
                  in_layouts=pick(params["in_layouts"]))
    return eqn.replace(invars=list(pick(eqn.invars)), params=params)


def _jit_dce(used_outs, eqn):
    """JAX's pjit dce rule: only the used results, and the operands they read (whole with
    keep_unused, a device pin or Refs)."""
    params, closed = eqn.params, eqn.params["jaxpr"]
    if params["keep_unused"] or closed.ref_writes or pin_of(params) is not None:
        return [True] * len(eqn.invars), eqn
    body, used = dce_closed_outputs(closed, used_outs)     # (cached: one jaxpr per pruning)
    if body is closed:
        return used, eqn
    ins = lambda values: tuple(x for x, u in zip(values, used) if u)         # noqa: E731
    outs = lambda values: tuple(x for x, u in zip(values, used_outs) if u)   # noqa: E731
    return used, eqn.replace(invars=list(ins(eqn.invars)), outvars=list(outs(eqn.outvars)),
                             params=dict(params, jaxpr=body,
                                         donated_invars=ins(params["donated_invars"]),
                                         in_shardings=ins(params["in_shardings"]),
                                         in_layouts=ins(params["in_layouts"]),
                                         out_shardings=outs(params["out_shardings"]),
                                         out_layouts=outs(params["out_layouts"])))


abstract_eval_rules[jit_p] = _jit_abstract_eval
dce_rules[jit_p] = _jit_dce
effect_aware_dce.add(jit_p)
lowering_rules[jit_p] = _jit_lowering
numpy_rules[jit_p] = call_rule("jaxpr")
impl_rules[jit_p] = _jit_impl
staging_rules[jit_p] = _jit_staging
jvp_rules[jit_p] = _jit_jvp
transpose_rules[jit_p] = _jit_transpose
partial_eval_rules[jit_p] = _jit_partial_eval
axis_batching_rules[jit_p] = _jit_batching
sharding_typing_rules[jit_p] = sharding_types.call_typing
param_printers[jit_p] = _jit_params
default_hidden_params[jit_p] = _default_hidden
prune_rules[jit_p] = _jit_prune
call_primitives.add(jit_p)


def any_sharded(leaves) -> bool:
    """Whether an argument is split over a mesh (only possible once xla/sharding.py is loaded,
    as every public way to a Mesh loads it: jax.sharding, jax.make_mesh; so the check costs
    one lookup in processes that never shard)."""
    if "jxkernel.xla.sharding" not in sys.modules:
        return False
    # loads with the first mesh or sharded Array: `import jxkernel` needs neither
    from ...xla.sharded import any_sharded
    return any_sharded(leaves)




def over_mesh(jitted, args, leaves, treedef, statics, avals, dyn_args, dyn_kwargs, refs):
    """A jit call's results where it runs over a mesh: given shardings or sharded arguments,
    or called under set_mesh (JAX runs it over the mesh's devices then, Refs and compiler
    options too). Else ON_ONE_DEVICE."""
    context = not (jitted._sharded or any_sharded(leaves))
    if context and not on_context_mesh():
        if jitted._device is not None:      # (a device= pjit in a `with mesh:` block: JAX's error)
            check_context(jitted)
        return ON_ONE_DEVICE
    if jitted._device is not None:      # pinned: on its device, or JAX's error (pinned.py)
        refuse_mesh(jitted, None, leaves, dyn_args, dyn_kwargs,
                    get_mesh() if on_context_mesh() else None)
        return ON_ONE_DEVICE
    # loads with the first mesh or sharded Array: `import jxkernel` needs neither
    from .sharded import call_jitted
    out = call_jitted(jitted, args, leaves, treedef, statics, avals, dyn_args, dyn_kwargs,
                      context, _bind_plain)
    if out is not ON_ONE_DEVICE and config._debug_values:    # as on one device (a pmap's too)
        check_jitted_values(jitted._name, jitted._fun, tree_leaves(out),
                            *unjitted_arguments(statics, dyn_args, dyn_kwargs))
    return out


def _bind_plain(args, jaxpr, name, keep_unused):
    """A jit equation over `jaxpr` bound on `args`: nothing donated, placed or inlined."""
    n = len(args)
    return jit_p.bind(*args, **eqn_params(jaxpr, n, (False,) * n, name, keep_unused, False))


def unjitted_arguments(statics, dyn_args, dyn_kwargs) -> tuple:
    """(args, kwargs) of a jit's call again, its static arguments merged back (`statics`:
    (name, value, position or None) per static one, as Arguments.split gives them)."""
    static_by_pos = {pos: value for _, value, pos in statics if pos is not None}
    static_kw = {name: value for name, value, pos in statics if pos is None}
    return (merge_static(static_by_pos, dyn_args, len(dyn_args) + len(static_by_pos)),
            {**dyn_kwargs, **static_kw})


def rerun_if_invalid(jitted, statics, dyn_args, dyn_kwargs, bind):
    """`bind()` (a jit called under vmap or jvp); if running it made a NaN/inf being checked
    for (InvalidJitOutput), the function again op by op instead, as JAX's jit call."""
    try:
        return bind()
    except InvalidJitOutput as e:
        kind, name = e.kind, e.name     # (not the exception: its traceback holds this frame)
    # (outside the handler: the operation's error is its own, not raised "during handling")
    args, kwargs = unjitted_arguments(statics, dyn_args, dyn_kwargs)
    rerun_deoptimized(kind, name, lambda: jitted._fun(*args, **kwargs))
