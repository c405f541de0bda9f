"""The ahead-of-time stages of a jitted function, as JAX keeps them (jax/_src/stages.py):
`Traced` (the jaxpr), `Lowered` (the StableHLO module) and `Compiled` (XLA's executable), what
they share (`ArgInfo`, the texts and IRs of other dialects), and the errors of calling a
Compiled with arguments it was not compiled for. `jxkernel.stages` (JAX's `jax.stages`)
gives them JAX's names.

    >>> compiled = jax.jit(lambda x: x * 2).trace(np.ones(2, np.float32)).lower().compile()
    >>> compiled.args_info[0][0].shape
    (2,)
"""
from __future__ import annotations

import copy
import os
import sys

import dataclasses
import time
import typing
import weakref
from types import SimpleNamespace

import numpy as np

from ...core import compile_record, jaxpr_cost, vma
from ...core.axis_env import visible_axes
from ...core.config import config
from ...core.lru import LRU, SIGNATURES
from ...core.source_info import (PACKAGE_DIR, Traceback, is_jxkernel_file,
                                is_user_filename)
from ...core.mesh import on_context_mesh
from ...core.monitoring import test_event
from ...core.staging import convert_constvars_to_invars, is_ref
from ...core.trace import Tracer, _ctx, eval_trace, jax_type_text
from ...core.traceback_util import api_boundary
from ...core.avals import NO_UR, ShapedArray, ShapeDtypeStruct, abstract_token
from ...tree_util import equality_errors_pytreedef, keystr, tree_flatten, tree_unflatten
from ...xla import client as _client
from ...xla import pipeline
from ...xla import relayout
from ...xla.disk_cache import cache_lines_held
from ...xla.effect_tokens import library_effects
from ...xla.array import Array, is_plain
from ...xla.layout import Format
from ...xla.transfers import float0_as_bools, put_on_device
from ...xla.lowering import NeedsMesh, at_site
from . import refs as jit_refs
from .captured_constants import check_captured_constants, embedded
from .high import is_high_trace
from .args import (abstract_leaf_aval, check_arg_layouts, flat_pinned, layout_modes, leaf_aval,
                   out_formats, result_memories, result_paths, token_carriers)
from .cache import NOWHERE, Entry, compiled_trace, sibling_trace, stage_key
from .pinned import committed_at, one_device_given, program_placement
from .primitive import (any_sharded, lowered_now, trace_event, traced_at, traced_by,
                        traced_under, untold)

# Options passed to XLA's compiler by name (JAX's `Lowered.compile(compiler_options=...)`).
CompilerOptions = dict[str, typing.Union[str, bool]]


@typing.runtime_checkable
class Wrapped(typing.Protocol):
    """What `jit` returns: callable, and staged by `.trace(...)` and `.lower(...)`."""

    def __call__(self, *args, **kwargs): ...

    def trace(self, *args, **kwargs) -> Traced: ...

    def lower(self, *args, **kwargs) -> Lowered: ...


@dataclasses.dataclass(frozen=True)
class ArgInfo:
    """One argument's type and whether it is donated.

    >>> ArgInfo(ShapedArray((2,), np.float32), False).shape
    (2,)
    """
    _aval: ShapedArray
    donated: bool

    @property
    def shape(self):
        return self._aval.shape

    @property
    def dtype(self):
        return self._aval.dtype


def args_info(traced: Traced):
    """A pytree like `traced.in_tree` of ArgInfo, one per non-static argument leaf."""
    avals = traced.jaxpr.in_avals
    donated = traced.donated or (False,) * len(avals)
    return tree_unflatten(traced._in_tree, [ArgInfo(a, bool(d)) for a, d in zip(avals, donated)])


# ------------------------------------------------------------------ texts and IRs
_DIALECTS = ("stablehlo", "mlir", "hlo")


def _check_dialect(dialect: str) -> None:
    if dialect not in _DIALECTS:
        raise ValueError(f"unknown dialect: {dialect}. jxkernel gives 'stablehlo' (also "
                         f"called 'mlir') and 'hlo'.")


# Modules lowered of a trace, by the trace and what else shaped them, held while the trace
# lives (in jit's caches): JAX's lowering cache (pjit's _pjit_lower, a weakref_lru_cache on
# the jaxpr), which a call after `.lower(x)`, or `.lower(x)` after a call, finds
_LOWERED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # ClosedJaxpr -> {key: Module}
# ... and the programs `.compile()` made of them: ClosedJaxpr -> {id(Module): (Module, Entry)}
_COMPILED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class _LowerCounts:
    """How often lower_jit found a trace's module lowered already (hits) and lowered one
    (misses): what JAX's lowering cache reports (`jax._src.pjit._pjit_lower.cache_info()`)."""
    hits = misses = 0


LOWER_COUNTS = _LowerCounts()


def lower_jit(jitted, closed, in_tree, out_tree, device, donated_leaves, platforms=None,
              locations=False, arg_names=None, one_device=None, rules=None,
              arg_layouts=None) -> pipeline.Module:
    """`closed`, a jitted function's trace of arguments `in_tree` ((args, kwargs)) and
    results `out_tree`, lowered for `device` (or for `platforms`);
    `arg_names`, one per input leaf ("x", "params['w']"), name its HLO parameters;
    `one_device`, pinned.one_device_given's, the inputs and results given a sharding;
    `rules`, another rule table (LoweringParameters'); `arg_layouts`, per input leaf the
    layout of a committed Array laid out otherwise than row-major (relayout.arg_layouts),
    which the program takes it in where jit's Formats give it none. Lowered once per trace
    and key.

    >>> f = jax.jit(lambda x: x * 2); traced = f.trace(1.0)
    >>> args = (f, traced.jaxpr, traced.in_tree, traced.out_tree, jax.devices()[0], (False,))
    >>> lower_jit(*args) is lower_jit(*args)
    True
    """
    layouts = layout_modes(jitted, closed, in_tree, out_tree, arg_layouts)
    if platforms is not None or locations or rules is not None:     # (a tool's: not kept)
        return _lower_jit(jitted, closed, out_tree, device, donated_leaves, layouts,
                          platforms, locations, arg_names, one_device, rules)
    key = (jitted._name, jitted._keep_unused, out_tree, device,
           tuple(donated_leaves or ()), tuple(arg_names or ()), one_device, repr(layouts))
    lowered = _LOWERED.setdefault(closed, {})
    if key in lowered:
        LOWER_COUNTS.hits += 1
    else:
        LOWER_COUNTS.misses += 1
        lowered[key] = _lower_jit(jitted, closed, out_tree, device, donated_leaves, layouts,
                                  None, False, arg_names, one_device, None)
    return lowered[key]


def program_of(jitted, closed, out_tree, module, trace_s, leaf_names) -> tuple:
    """(Entry, Phases) of a call's program, `module` lowered from the trace `closed`: the one
    a `.compile()` of that very module made, with Phases None (JAX's Lowered keeps its
    executable: a call lowering the same program compiles nothing, a keep_unused jit's too),
    else compiled now."""
    found = _COMPILED.get(closed, {}).get(id(module))
    if found is not None:
        return found[1], None
    # the persistent cache's lines wait on the Phases for the call's record, which logs them
    # after its tracing miss, as JAX logs them (it traces before it lowers and compiles)
    with cache_lines_held():
        return build_entry(jitted, closed, out_tree, module, trace_s, leaf_names,
                           compiler_options=jitted._compiler_options)


def build_entry(jitted, closed, out_tree, module, trace_s=0.0, leaf_names=None,
                compiler_options=None) -> tuple:
    """(Entry, Phases) of `jitted`'s program: `module` (from `lower_jit`) compiled with XLA's
    `compiler_options`, its constants put on device."""
    names = leaf_names if leaf_names is None else \
        [f"<closed-over constant {i}>" for i in range(len(closed.consts))] + list(leaf_names)
    exe, phases = pipeline.compile(module, f"jit({jitted._name})", trace_s=trace_s,
                                   arg_names=names, compiler_options=compiler_options)
    # not jxkernel's jit (a library's too): JAX's ValueError for a donated Array (deleted.py)
    exe.user_jit = jitted._by_user or not is_jxkernel_file(jitted._source_text() or "")
    device = module.devices[0]          # (an Array there already: used, not committed)
    consts = tuple(c if is_plain(c) and c.device == device or is_ref(c) else
                   put_on_device(c, device) for c in closed.consts)     # (a Ref: each call's)
    entry = Entry(exe, consts, out_tree, closed, module.text, any(module.donated))
    return entry, phases


def _lower_jit(jitted, closed, out_tree, device, donated_leaves, layouts, platforms,
               locations, arg_names, one_device, rules) -> pipeline.Module:
    """lower_jit's lowering, `layouts` its layout_modes (worked out once, for its key too)."""
    check_captured_constants(closed)
    jaxpr, donated_refs, aliases = jit_refs.donating(closed)     # (each Ref updated in place)
    donated = donated_refs + (donated_leaves or (False,) * len(jaxpr.invars))
    if layouts is not None:           # (Refs first, their final values last: none given)
        ins = list(layouts[0])[-len(jaxpr.invars):] if jaxpr.invars else []
        layouts = ([None] * (len(jaxpr.invars) - len(ins)) + ins,
                   list(layouts[1]) + [None] * len(aliases))
    memories = result_memories(jitted, out_tree)    # (out_shardings in 'pinned_host')
    return pipeline.lower(jaxpr, [device], name=jitted._name, donated=donated, layouts=layouts,
                          platforms=platforms, result_names=result_paths(out_tree)
                          + [None] * len(aliases),     # (Refs' final values last)
                          result_shardings=None if memories is None else
                          memories + [None] * len(aliases),
                          locations=locations, arg_names=arg_names,
                          keep_unused=jitted._keep_unused, aliases=aliases,
                          one_device=one_device, rules=rules, embedded=embedded(closed))


def portable():
    """xla/portable.py, jaxlib's other forms of a module (MLIR's print, HLO, the cost model)."""
    from ...xla import portable as module     # loads when one is first asked for: runs need none
    return module


def lowered_text(lowered: Lowered, dialect: str, debug_info: bool) -> str:
    """`Lowered.as_text(dialect, debug_info=...)`: StableHLO as MLIR prints it (as JAX's does),
    or XLA's HLO; debug_info puts each op's source line on it."""
    _check_dialect(dialect)
    text = located_text(lowered) if debug_info else lowered._text
    return portable().hlo_text(text, debug_info) if dialect == "hlo" else \
        portable().printed_text(text, debug_info)


def located_text(lowered: Lowered) -> str:
    """The module's text with JAX's locations: each op's name stack around its frames (its
    line and callers up to its jit's function, then, in main, where `.lower()` was called),
    lowered again so (the program run is lowered without). The NumPy backend's: its text."""
    with at_site(getattr(lowered, "_site", ())):
        if getattr(lowered, "_partitioning", None) is not None:
            # partitioned over a mesh (a shard_map inside, sharded arguments): lowered so again
            text = lowered._partitioning.again(lowered.traced, "named").module.text
        else:
            traced = lowered.traced
            text = lower_jit(traced.jitted, traced.jaxpr, traced.in_tree, traced.out_tree,
                             lowered.device, traced.donated, lowered._platforms or None,
                             "named", traced.arg_names, one_device_given(traced),
                             getattr(lowered, "_rules", None), lowered._arg_layouts).text
    return text or lowered._text


def compiler_ir(text: str, dialect: str):
    """`Lowered.compiler_ir`: jaxlib's `ir.Module` for "stablehlo", its XlaComputation for "hlo"."""
    _check_dialect(dialect)
    return portable().xla_computation(text) if dialect == "hlo" else portable().mlir_module(text)


# ------------------------------------------------------------------ calling a Compiled
def check_call_signature(in_tree, arg_names, in_avals, args, kwargs, got_avals) -> None:
    """Raise JAX's TypeError for a call whose pytree or argument types differ from those the
    program was compiled for (`in_tree`, its leaves' `arg_names` and `in_avals`)."""
    _, treedef = tree_flatten((args, kwargs))
    if treedef != in_tree:
        raise TypeError(_tree_mismatch(in_tree, treedef))
    names = arg_names or [f"args[{i}]" for i in range(len(got_avals))]
    lines = [f"Argument '{name}' compiled with {want.strip_weak_type()} and called with "
             f"{got.strip_weak_type()}"
             for name, want, got in zip(names, in_avals, got_avals)
             if want.strip_weak_type() != got.strip_weak_type()]
    raise TypeError("Argument types differ from the types for which this computation was "
                    "compiled. Perhaps you are calling the compiled executable with a "
                    "different enable_x64 mode than when it was AOT compiled? The mismatches "
                    "are:\n" + "\n".join(lines))


def check_argument_formats(arrays, required, arg_names, layouts=None) -> None:
    """JAX's ValueError for committed Arrays placed or laid out otherwise than a Compiled was
    compiled for (`required`: per argument its sharding, None where the program drops it;
    `layouts`: per argument the layout XLA compiled its parameter for, None where dropped,
    or None for all: no Array is laid out otherwise than row-major before relayout.watch);
    host values and uncommitted Arrays move there, laid out so (pxla's
    check_array_xla_sharding_layout_match, which tells five mismatches at most)."""
    errors = [_sharding_line(x, want, name) for x, want, name in zip(arrays, required, arg_names)
              if _sharding_differs(x, want)] if layouts is None else \
        _mismatches(arrays, required, layouts, arg_names)
    if errors:
        kinds = {kind for _, kind in errors}
        kind = "shardings and layouts" if len(kinds) > 1 else f"{kinds.pop()}s"
        count = f"the {len(errors)} mismatches" if len(errors) < 5 else \
            f"5 mismatches out of {len(errors)}"
        raise ValueError(f"Computation was compiled for input {kind} that disagree with the "
                         f"{kind} of arguments passed to it. Here are {count}:\n" +
                         "\n".join(text for text, _ in errors[:5]))


def _sharding_differs(x, want) -> bool:
    return want is not None and isinstance(x, Array) and x.committed and \
        not (x.sharding.is_equivalent_to(want, x.ndim) or
             want.is_equivalent_to(x.sharding, x.ndim))


def _sharding_line(x, want, name) -> tuple:
    return (f"{_typed(x, name)}:\n  Passed sharding: {x.sharding}\n  Required sharding: {want}",
            "sharding")


def _mismatches(arrays, required, layouts, arg_names) -> list:
    """check_argument_formats' (line, kind) per mismatch where layouts are checked too: each
    argument's sharding line, then its layout line, as JAX lists them."""
    errors = []
    for x, want, laid, name in zip(arrays, required, layouts, arg_names):
        if _sharding_differs(x, want):
            errors.append(_sharding_line(x, want, name))
        if laid is None or not isinstance(x, Array) or not x.committed or x.is_deleted():
            continue
        have = x.format.layout
        if have is not None and have != laid:
            errors.append((f"{_typed(x, name)}:\n  Passed layout: {have}\n  Required layout: "
                           f"{laid}", "layout"))
    return errors


def _typed(x, name) -> str:
    """An argument as JAX's mismatch lines name it: "Argument x with shape float32[8,2]"."""
    return f"Argument {name} with shape {np.dtype(x.dtype).name}[{','.join(map(str, x.shape))}]"


def _tree_mismatch(want, got) -> str:
    errors = list(equality_errors_pytreedef(want, got))     # (a leaf: "pytree leaf", as JAX's)
    where = lambda path: ("args" + keystr(path[1:]) if path and path[0].idx == 0 else
                          "kwargs" + keystr(path[1:])) if path else "the arguments"
    details = "\n".join(f"    * at {where(path)}, seen {seen} but now given {now}, so {why}"
                        for path, seen, now, why in errors)
    return (f"Function compiled with input pytree does not match the input pytree it was "
            f"called with. There are {len(errors)} mismatches, including:\n{details}")


# ------------------------------------------------------------------ the stages
class _Stage:
    """The signature every stage tells, as JAX's Traced, Lowered and Compiled do."""

    # JAX's flag for a stage whose calls refuse keyword arguments (the old pmap's): none does
    _no_kwargs = False

    @property
    def fun_name(self) -> str:
        return self._traced.jitted._name

    @property
    def in_tree(self):
        """The (args, kwargs) pytree of the non-static arguments."""
        return self._traced._in_tree

    @property
    def in_avals(self):
        """The inputs' types; a sharded jit's typed by its shardings over Explicit axes."""
        partitioning = getattr(self, "_partitioning", None)
        return tree_unflatten(self.in_tree, self._traced.jaxpr.in_avals if partitioning is None
                              else partitioning.typed_in_avals())

    @property
    def args_info(self):
        return args_info(self._traced)

    @property
    def donate_argnums(self) -> tuple:
        return tuple(sorted(self._traced.jitted._donate_argnums))


def trace_jitted(jitted, args, kwargs, high=False) -> Traced:
    """`jit(f).trace(*args, **kwargs)`: f traced at the arguments' types (a Ref argument as
    refs.py says), not compiled. `high` (eval_shape's): a trace staging hijax values is
    kept high, as JAX's trace (a Box argument, made, returned or closed over), not lowered,
    nor kept for a call."""
    dyn_args, dyn_kwargs, statics = jitted._split(args, kwargs)
    leaves, treedef = token_carriers(*tree_flatten((dyn_args, dyn_kwargs)))
    refs = jit_refs.ref_positions(leaves)

    def names():
        return jitted._leaf_names(dyn_args, dyn_kwargs)
    avals = tuple(x.aval if i in refs else
                  abstract_leaf_aval(x, lambda i=i: names()[i], jitted._fun)
                  for i, x in enumerate(leaves))
    signature = (treedef, avals, statics, config._trace_state)
    found = None if refs else trace_lookup(jitted, signature,
                                           lambda: _traced_before(jitted, signature))
    # (the misses its trace meets held for its own, logged after it: JAX's order)
    closed, out_tree, trace_s = (*found, 0.0) if found is not None else \
        compile_record.traced_held(jitted, treedef, statics, avals, dyn_args, dyn_kwargs, high)
    donated = jitted._donated_leaves(dyn_args, dyn_kwargs)
    traced = Traced(jitted, closed, out_tree, jit_refs.without_refs(donated, refs), leaves,
                    in_tree=treedef, arg_names=jit_refs.without_refs(names(), refs),
                    trace_s=trace_s)
    if not (refs or high and is_high_trace(closed)):
        _remember_trace(jitted, traced, signature, lambda: jitted._miss(
            treedef, statics, avals, dyn_args, dyn_kwargs, _client.default_device()),
            reused=found is not None)
    return traced


# Jitted's `.trace`, `.lower` and `.eval_shape`, each a traceback boundary as JAX's stages
@api_boundary
def stage_trace(self, *args, **kwargs) -> Traced:
    """Trace only: `.jaxpr` is the ClosedJaxpr; `.lower()` continues."""
    return trace_jitted(self, args, kwargs)


@api_boundary
def stage_lower(self, *args, **kwargs) -> Lowered:
    """Trace and lower: `.as_text()` is the StableHLO module; `.compile()` continues."""
    return self.trace(*args, **kwargs).lower()


@api_boundary
def stage_eval_shape(self, *args, **kwargs):
    """The output's ShapeDtypeStructs, as jax.eval_shape of the jitted function."""
    return self.trace(*args, **kwargs).out_info


stage_trace.__name__, stage_lower.__name__, stage_eval_shape.__name__ = "trace", "lower", \
    "eval_shape"


def trace_lookup(jitted, signature, find=None):
    """`find()`, a jit's lookup of a trace for `signature` made before (a `_cache` key's
    first four parts; no `find`: the jit's own, else a sibling jit's), timed: what it found
    (None: to be traced anew), told by looked_up."""
    start = time.perf_counter()
    found = find() if find is not None else \
        jitted._traces.get(signature + NOWHERE) or sibling_trace(jitted, signature)
    mine = found is not None and traced_by(found[0], jitted)    # (its own cache's: no line)
    looked_up(jitted, signature, time.perf_counter() - start if found is not None and
              not mine else None)
    return found


def looked_up(jitted, signature, lookup_s: float | None) -> None:
    """`jitted` has the trace for `signature` (a `_cache` key's first four parts) now:
    `lookup_s`, the seconds it took to find one another made (None: traced anew, which its
    compile event or stage logs). JAX's jit object keeps what it found in a cache of its own,
    and its first lookup in the shared tracing cache is timed and logged as a trace ("Finished
    tracing f for jit": eval_shape(f) then jit(f)(x), or jit(f, donate_argnums=0) after
    jit(f)), a later one by the same object is not (jit(f).trace(x) then its call): so here,
    where the user asked for it (a view's or a library's own lookups are not theirs to see)."""
    seen = jitted._looked_up
    if seen is None:
        seen = jitted._looked_up = LRU(SIGNATURES)     # (an LRU: jax.clear_caches empties it)
    if signature in seen:
        return
    seen[signature] = True
    if lookup_s is not None and _asked_by_user():
        compile_record.log_traced(jitted._name, lookup_s)


# jit's, make_jaxpr's, eval_shape's and jax.export's own frames: what called them asked
# (and the traceback boundary's wrapper, core/traceback_util.py, around each entry point)
_API_DIRS = tuple(f"{PACKAGE_DIR}{d}{os.sep}" for d in ("transforms", "export")) + (
    f"{PACKAGE_DIR}core{os.sep}traceback_util.py",)


def _asked_by_user() -> bool:
    """Whether the first frame above the API's own (jit's call, `.trace`, eval_shape, ...) is
    the user's: not a view's (`explain`, the stepper), nor a jnp function's."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_API_DIRS):
        frame = frame.f_back
    return frame is not None and is_user_filename(frame.f_code.co_filename)


def _shares_traces(jitted) -> bool:
    """Whether a stage's trace and a call's are one (JAX's tracing cache): not under named
    axes, nor for a jit with shardings (its calls trace with constraints), nor a tool's."""
    return not (visible_axes() or not compile_record.logged() or jitted._sharded or
                jitted._in_shardings is not None or jitted._out_shardings is not None)


def _traced_before(jitted, signature):
    """(ClosedJaxpr, out_tree) a call or an earlier stage traced for `signature`, reused as
    JAX's tracing cache is (f(x) then f.lower(x): no second trace, no miss; inside another
    trace too, where f.lower(x) then f(x) trace once); else None."""
    if jitted._sharded and _ctx.trace is eval_trace and compile_record.logged() and \
            not visible_axes():             # (a jit over a mesh: sharded.py's call path's)
        found = jitted._traces.get(stage_key(jitted, signature))
        return (found[3], found[2]) if found is not None else None
    if not _shares_traces(jitted):
        return None
    if _ctx.trace is not eval_trace:
        found = jitted._traces.get(signature + vma.trace_place())
        return (found[3], found[2]) if found is not None else None
    found = jitted._traces.get(signature + NOWHERE) or sibling_trace(jitted, signature)
    return (found[3], found[2]) if found is not None else \
        compiled_trace(jitted._cache, signature)


def _remember_trace(jitted, traced, signature, miss, reused=False) -> None:
    """As JAX's tracing cache holds what `.trace`/`.lower` traced: a call at the same types
    reuses the trace (the first compile made from it tells its miss, once: a `.compile()` of
    it, or the call's: primitive.untold), and `.compile()`'s executable is that call's
    program too (`_share_program`). Top-level traces only (a trace inside another, under
    named axes, is the bind path's; nor a tool's, inside compile_record.unlogged()). Inside
    another trace, a call there reuses it as the bind path's own trace (Flax's summary lowers
    each module's method, then calls it, inside its parent's trace). `reused`: the trace is
    another's (a sibling jit's: _traced_before), no miss of the tracing cache to tell."""
    if visible_axes() or not compile_record.logged():
        return
    jaxpr, consts = convert_constvars_to_invars(traced.jaxpr)
    if any(isinstance(c, Tracer) for c in consts):      # tracers die with their trace
        return
    traced._signature = signature          # (a jit over a mesh finds its call's program by it)
    if jitted._sharded and _ctx.trace is eval_trace:    # (sharded.py's call path reuses it)
        jitted._traces.setdefault(stage_key(jitted, signature),
                                  (jaxpr, consts, traced.out_tree, traced.jaxpr))
    if _ctx.trace is not eval_trace:
        if _shares_traces(traced.jitted):
            key = signature + vma.trace_place()
            if key not in jitted._traces:
                jitted._traces[key] = (jaxpr, consts, traced.out_tree, traced.jaxpr)
                traced_under(jitted, jaxpr, traced.jaxpr, miss)
        return
    key = signature + NOWHERE
    if key not in jitted._traces:
        jitted._traces[key] = (jaxpr, consts, traced.out_tree, traced.jaxpr)
        traced_under(jitted, jaxpr, traced.jaxpr, None if reused else miss, traced.trace_s)
    if jitted._traces[key][3] is traced.jaxpr:
        traced._call_key, traced._shared_jaxpr, traced._miss = signature, jaxpr, miss


def _compiled_before(lowered):
    """The jit cache's entry for the call whose trace `lowered` lowered (a call or an earlier
    `.compile()` compiled it), as JAX's Lowered keeps its executable: None where it differs
    (compiler options, other rules or platforms) or none was compiled yet."""
    traced = lowered.traced
    if not lowered._plain or lowered._platforms or lowered.device is None:
        return None
    found = _COMPILED.get(traced.jaxpr, {}).get(id(lowered._module))
    if found is not None:                            # a `.compile()` of the same module's
        return found[1]
    if getattr(traced, "_call_key", None) is None:
        return None
    found = traced.jitted._cache.get(_call_key(traced, lowered.device))
    return found if getattr(found, "jaxpr", None) is traced.jaxpr and \
        getattr(found, "text", None) == lowered._module.text else None


def _call_key(traced, device) -> tuple:
    """The jit cache's key of a call at `traced`'s signature on `device`, its leaves as
    committed as `traced`'s (pinned.committed_at: JAX's lowering holds which are)."""
    leaves = traced._leaves
    dyn_args = tree_unflatten(traced._in_tree, leaves)[0] if traced._in_tree is not None \
        else ()
    return traced._call_key + (device, committed_at(traced.jitted, leaves, dyn_args))


def _share_program(lowered, entry) -> bool | None:
    """Put `.compile()`'s executable in the jit's cache for the call whose trace it compiled
    (as JAX's call after `.lower(x).compile()` compiles nothing); whether this compile is the
    first made from the trace (its tracing miss, told once), None for a trace not shared."""
    traced = lowered.traced
    if getattr(traced, "_call_key", None) is None:
        return None
    # (not a keep_unused=True jit's: its siblings' calls share the cache, but not its program:
    # its own call finds it by its lowered module, jit.py's _compile)
    if lowered._partitioning is None and not lowered._platforms and \
            getattr(lowered, "_plain", False) and lowered.device is not None and \
            not traced.jitted._keep_unused:
        traced.jitted._cache.setdefault(_call_key(traced, lowered.device), entry)
    return untold(traced._shared_jaxpr)


class Traced(_Stage):
    def __init__(self, jitted, jaxpr, out_tree, donated, leaves, in_tree=None, arg_names=None,
                 trace_s=0.0):
        self.jitted, self.jaxpr, self.out_tree, self.donated = jitted, jaxpr, out_tree, donated
        self._leaves = leaves
        self._in_tree, self.arg_names = in_tree, arg_names
        self.trace_s = trace_s          # seconds tracing took: the first of the compile phases
        # the call's cache key (less the device) and the jaxpr whose trace a call at these
        # types reuses, where it does (_remember_trace)
        self._call_key = self._shared_jaxpr = self._miss = None
        self._signature = None          # (treedef, avals, statics, trace state), where kept

    _traced = property(lambda self: self)

    def taking(self, in_tree) -> Traced:
        """This trace of a function of flat arguments, as one taking them in the pytree
        `in_tree` (of (args, kwargs), the same leaves): pmap's Lowered and Compiled are
        called with pmap's arguments."""
        traced = copy.copy(self)
        traced._in_tree = in_tree
        return traced

    @property
    def result_avals(self) -> list:
        """The function's results' types (after them the jaxpr returns the Refs' final values:
        transforms/jit/refs.py)."""
        avals = self.jaxpr.out_avals
        return avals[:len(avals) - len(self.jaxpr.ref_writes)]

    @property
    def out_avals(self):
        return tree_unflatten(self.out_tree, self.result_avals)

    @property
    def out_info(self):
        """The outputs' types, a pytree of ShapeDtypeStructs (weak types kept, as JAX's), each
        with the SingleDeviceSharding jit's out_shardings gives it, or its type's sharding."""
        shardings = [a.sharding if getattr(a, "split", None) is not None else None
                     for a in self.result_avals]       # (over the AbstractMesh, as JAX's)
        if self.jitted._pinned is not None and \
                self.jitted._out_shardings is not None:
            shardings = [g or s for g, s in zip(flat_pinned(self.jitted._out_shardings, (
                tree_unflatten(self.out_tree, [0] * len(shardings)))), shardings)]
        # a Format's layout given by out_shardings: the result's format (JAX's `_dll`)
        shardings = [s if f is None else f for s, f in
                     zip(shardings, out_formats(self.jitted, self.out_tree, len(shardings)))]
        # (a token's type is itself, as JAX's eval_shape gives it)
        # (in a shard_map body, with the manual axes it varies over, as JAX's)
        return tree_unflatten(self.out_tree, [
            a if a is abstract_token else ShapeDtypeStruct(
                a.shape, a.dtype, a.weak_type, s,
                manual_axis_type=a.mat if getattr(a, "vma", None) or
                getattr(a, "ur", NO_UR) is not NO_UR else None)
            for a, s in zip(self.result_avals, shardings)])

    def lower(self, *, lowering_platforms: tuple | None = None,
              _private_parameters=None) -> Lowered:
        """The program lowered for its device, or for `lowering_platforms` (JAX's names:
        "cpu", "cuda", "tpu"; "gpu" is the CUDA backend where one starts), as JAX lowers it:
        e.g. for a CUDA GPU on a machine without one. A module for one platform compiles for
        the device still (plain StableHLO runs there; a GPU library call does not); one for
        several takes the platform index first, as jax.export's modules do.
        `_private_parameters`: JAX's mlir.LoweringParameters (its override_lowering_rules)."""
        rules = _private_parameters.rules() if _private_parameters is not None else None
        platforms = None
        # (a Ref over a mesh: a call runs over it, a stage on one device so far, the sharded
        # program's partitioning taking no Refs)
        sharded = self.jitted._sharded or any_sharded(
            jit_refs.without_refs(self._leaves, jit_refs.ref_positions(self._leaves)))
        if not (sharded or lowering_platforms or rules is not None) and \
                jit_refs.uses_refs(self.jaxpr) and \
                jit_refs.ref_mesh(self.jaxpr, self._leaves) is not None:
            # a Ref over a mesh: its value's program, partitioned over it (as a call runs)
            return jit_refs.LoweredOverRefs(self)
        if lowering_platforms:
            platforms = tuple(_client.lowering_platform(_client.jax_platform(p))
                              for p in lowering_platforms)
        if not (sharded or
                on_context_mesh() and self.jitted._device is None):   # (set_mesh: as a call)
            # where its used arguments, its own pin or the pinned jits inside it place it
            device, committed = program_placement(
                self.jitted, self.jaxpr, self.jitted._device, True, self._leaves,
                *tree_unflatten(self._in_tree, self._leaves))
            try:
                return Lowered(self, device, platforms=platforms, committed=committed,
                               rules=rules)
            except NeedsMesh as e:              # a sharding constraint inside: partitioned
                self.jitted._sharded, self.jitted._constraint_mesh = True, e.mesh
        if rules is not None:
            raise NotImplementedError("lower(_private_parameters=LoweringParameters("
                                      "override_lowering_rules=...)) of a program partitioned "
                                      "over a mesh is not implemented")
        # partitioned over a mesh; jit over a mesh loads with the first mesh or sharded Array:
        # `import jxkernel` needs neither
        from .sharded import stage_abstract, stage_partitioning
        if platforms is None or not sharded:
            return Lowered(self, None, stage_partitioning(self))
        # for `lowering_platforms`: a program whose only mesh is an AbstractMesh (no set_mesh),
        # as JAX lowers it for no devices (`.compile(device_assignment=)` then names them)
        partitioning = stage_abstract(self, platforms)
        if partitioning.abstract is None:
            raise NotImplementedError("lower(lowering_platforms=...) of a program partitioned "
                                      "over a device Mesh is not implemented: give its "
                                      "shardings over mesh.abstract_mesh")
        return Lowered(self, None, partitioning, platforms=platforms)


class Lowered(_Stage):
    # per argument leaf the layout of a committed Array laid out otherwise than row-major,
    # which the program takes it in where jit's Formats give none (relayout.arg_layouts), as
    # a call compiles it and JAX's lower resolves it; None where no argument is
    _arg_layouts = None

    def __init__(self, traced: Traced, device, partitioning=None, platforms=None,
                 committed=True, rules=None):
        self.traced, self.device = traced, device
        self._rules = rules                      # another rule table (LoweringParameters')
        self._committed = committed       # results committed (a call's, as jit's decides)
        self._traced = traced
        self._partitioning = partitioning        # a sharded jit's (transforms/jit/sharded.py)
        self._platforms = platforms or ()        # lowered for these (`lowering_platforms`)
        self._texts: dict = {}                   # (dialect, debug_info) -> as_text()
        # the user's frames lowering it (JAX's locations end main's ops in them)
        self._site = tuple(zip(*Traceback.get_traceback().raw_frames()))
        if partitioning is not None:
            self.device = partitioning.mesh.devices.flat[0]
            self._module = partitioning.module
        else:
            # (JAX's ValueError for an Array laid out otherwise than jit's Format: as a call)
            check_arg_layouts(traced.jitted, traced.jaxpr, traced.in_tree, traced.out_tree,
                              traced._leaves)
            self._arg_layouts = relayout.arg_layouts(traced._leaves)
            self._module = lower_jit(traced.jitted, traced.jaxpr, traced.in_tree,
                                     traced.out_tree, device, traced.donated, platforms,
                                     arg_names=traced.arg_names,
                                     one_device=one_device_given(traced), rules=rules,
                                     arg_layouts=self._arg_layouts)
            if platforms is None and rules is None and traced._shared_jaxpr is not None:
                # the call's program lowered: JAX logs "Compiling jit(f)" here, not later
                lowered_now(traced._shared_jaxpr, getattr(self._module, "lower_s", 0.0))
        self._module_text = self._module.text

    @property
    def _lowering(self) -> SimpleNamespace:
        """JAX's private view of the lowering that JAX's tests read: its `const_args`
        (ConstArgs) and its `compile_args`' "ordered_effects" and "unordered_effects", a
        library's effects of the program (the ordered ones take tokens: xla/effect_tokens.py)."""
        ordered, unordered = library_effects(self.traced.jaxpr.jaxpr.effects)
        return SimpleNamespace(const_args=const_args(self).const_args,
                               compile_args={"ordered_effects": list(ordered),
                                             "unordered_effects": list(unordered)})

    @property
    def _text(self) -> str:
        """The module's StableHLO text. The NumPy backend runs the jaxpr unlowered: its text is
        then XLA's CPU module for the same program, lowered when first asked for."""
        if not self._module_text and \
                getattr(getattr(self, "_module", None), "jaxpr", None) is not None and \
                getattr(self, "_partitioning", None) is not None:
            # (over a mesh: a one-device mesh's sharding constraints need it)
            self._module_text = self._partitioning.cpu_text()
        elif not self._module_text and \
                getattr(getattr(self, "_module", None), "jaxpr", None) is not None:
            traced = self.traced
            self._module_text = lower_jit(traced.jitted, traced.jaxpr, traced.in_tree,
                                          traced.out_tree, self.device, traced.donated,
                                          ("cpu",),
                                          arg_names=traced.arg_names,
                                          one_device=one_device_given(traced),
                                          rules=self._rules,
                                          arg_layouts=self._arg_layouts).text
        return self._module_text

    @_text.setter
    def _text(self, text: str) -> None:       # (pmap's Lowered sets its own)
        self._module_text = text

    def as_text(self, dialect: str | None = None, *, debug_info: bool = False) -> str:
        """The module as text: StableHLO (default), or XLA's HLO with dialect="hlo";
        debug_info=True adds each op's source line."""
        key = (dialect or "stablehlo", debug_info)
        if key not in self._texts:               # jaxlib parses and prints: once is enough
            self._texts[key] = lowered_text(self, *key)
        return self._texts[key]

    def compiler_ir(self, dialect: str | None = None):
        """The module as jaxlib's MLIR `ir.Module` ("stablehlo", the default), each op at
        JAX's location (its name stack around its frames: `located_text`), or its
        `XlaComputation` ("hlo")."""
        dialect = dialect or "stablehlo"
        if dialect != "stablehlo":
            return compiler_ir(self._text, dialect)
        if "located" not in self._texts:
            self._texts["located"] = located_text(self)
        return compiler_ir(self._texts["located"], dialect)

    def cost_analysis(self) -> dict | None:
        """XLA's cost estimate of the module before optimization (flops, bytes accessed...);
        None on a GPU or TPU (a PJRT plugin has none, as in JAX): compile() first."""
        if getattr(self._module, "jaxpr", None) is not None:     # the NumPy backend's
            return jaxpr_cost.cost_analysis(self._module.jaxpr)
        return portable().unoptimized_cost_analysis(self._text, self.device)

    @property
    def out_info(self):
        """The outputs' types as JAX's `Lowered.out_info` gives them: a pytree of
        ShapeDtypeStructs; lowering forgets weak types, and the sharding is not chosen yet.

        >>> jax.jit(lambda x: (x * 2, 1)).lower(1.0).out_info
        (ShapeDtypeStruct(shape=(), dtype=float32), ShapeDtypeStruct(shape=(), dtype=int32))
        """
        _no_token_results(self.traced.jaxpr.out_avals, compiled=False)
        if self._partitioning is not None:      # each given or typed output's sharding
            return tree_unflatten(self.traced.out_tree, self._partitioning.out_structs())
        out_tree, avals = self.traced.out_tree, self.traced.jaxpr.out_avals
        if self.traced.jitted._pinned is not None:   # SingleDeviceShardings
            given = flat_pinned(self.traced.jitted._out_shardings,
                                tree_unflatten(out_tree, [0] * len(avals)))
            return tree_unflatten(out_tree, [ShapeDtypeStruct(a.shape, a.dtype, sharding=s)
                                             for a, s in zip(avals, given)])
        return _out_structs(out_tree, avals)

    out_tree = property(lambda self: self.traced.out_tree)

    def _check_device_assignment(self, given: tuple) -> None:
        """JAX's ValueError where `given` (compile's device_assignment) is not the program's
        devices: its mesh's, in order, or its one device."""
        own = tuple(self._partitioning.mesh._flat_devices) if self._partitioning is not None \
            else (self.device,)
        if given != own:
            raise ValueError(
                f"device_assignment passed to `.compile` must match the device_assignment "
                f"calculated from array shardings and out_shardings. Got device ids passed to "
                f"compile {[d.id for d in given]} on platform {given[0].platform.upper()} and "
                f"devices ids calculated from array shardings and out_shardings "
                f"{[d.id for d in own]} on platform {own[0].platform.upper()}")

    def _compile_for(self, devices: tuple, compiler_options) -> Compiled:
        """compile() of a program lowered over an AbstractMesh alone: partitioned again over
        `devices` (its axes laid over them in order) and lowered for them, as JAX compiles
        its module for the device assignment given; JAX's RuntimeError without one."""
        if not devices:
            raise RuntimeError("device_assignment cannot be `None` during compilation. "
                               "Please pass a tuple of devices to "
                               "`.compile(device_assignment=)`")
        traced = self.traced
        plan = self._partitioning.over_devices(traced, devices)
        options = {**(traced.jitted._compiler_options or {}), **(compiler_options or {})}
        # (a program of this `.compile()` alone: calls of the jit never run it)
        return Compiled(self, *plan.compile(traced.trace_s, options or None, keep=False))

    def compile(self, compiler_options: dict | None = None, *,
                device_assignment: tuple | None = None) -> Compiled:
        """The executable of this module (compiled once: `.lower()` keeps what it lowered).
        `compiler_options` sets XLA's options by name ({"xla_cpu_enable_fast_math": False});
        an unknown name raises JaxRuntimeError. `device_assignment`: the devices it runs
        on, which must be those its arguments' and results' shardings chose (JAX's error)."""
        traced = self.traced
        abstract = getattr(self._partitioning, "abstract", None)
        if abstract is not None:            # lowered over an AbstractMesh alone
            return self._compile_for(tuple(device_assignment or ()), compiler_options)
        if device_assignment is not None:
            self._check_device_assignment(tuple(device_assignment))
        if len(self._platforms) > 1:
            names = tuple(_client.JAX_NAMES.get(p, p) for p in self._platforms)
            raise ValueError(
                f"Lowered.compile(): this module was lowered for the platforms {names}: its "
                f"main takes the platform index first, which a jitted call does not pass (JAX "
                f"0.10.2 cannot compile it either). To run one program on several platforms, "
                f"use jax.export.export(jit(f), platforms={names}) and call the Exported; to "
                f"compile here, lower for one platform: .lower() or "
                f".lower(lowering_platforms=({names[0]!r},))")
        if any(not isinstance(d, (int, np.integer)) for a in traced.jaxpr.in_avals
               for d in getattr(a, "shape", ())):
            # main takes the dimension variables (jax.global_constant): JAX refines its shapes
            # before compiling, which fails with no values for them (JAX's ValueError)
            raise ValueError("Error refining shapes. Define JAX_DUMP_IR_TO to dump the module.")
        # the program a call would compile (not one lowered with other rules)
        self._plain = not compiler_options and self._rules is None
        if traced.jitted._compiler_options or compiler_options:
            compiler_options = {**(traced.jitted._compiler_options or {}),
                                **(compiler_options or {})}
        if self._partitioning is not None:
            return Compiled(self, *self._partitioning.compiled(self, compiler_options))
        found = _compiled_before(self)
        if found is not None:          # a call's program: not compiled again (JAX's neither)
            return Compiled(self, found, None)
        compiled = Compiled(self, *build_entry(traced.jitted, traced.jaxpr, traced.out_tree,
                                               self._module, traced.trace_s,
                                               compiler_options=compiler_options))
        if self._plain and self._module is not None:     # (kept with its module, as JAX's)
            _COMPILED.setdefault(traced.jaxpr, {})[id(self._module)] = (self._module,
                                                                       compiled._entry)
        return compiled


@dataclasses.dataclass(frozen=True)
class ConstArgs:
    """JAX's `Lowered._lowering` and `Compiled._params` as far as their `const_args` go: the
    closed-over constants the program takes as arguments. JAX 0.10.2 writes every one into
    the module (its default), so its are empty; jxkernel's are the Refs, key arrays and
    Arrays over several devices it passes instead, and every one on the NumPy backend."""
    const_args: list


def const_args(lowered) -> ConstArgs:
    """`lowered`'s program's ConstArgs: its trace's consts its module takes (`kept`)."""
    consts = lowered.traced.jaxpr.consts
    kept = getattr(getattr(lowered, "_module", None), "kept", None)
    return ConstArgs([c for i, c in enumerate(consts) if kept is None or i in kept])


@dataclasses.dataclass(frozen=True)
class KeptArguments:
    """A compiled jit's arguments its program takes (`Compiled._executable`)."""
    _kept_var_idx: set
    in_avals: list


class Compiled(_Stage):
    """An executable for one signature: call it with arguments of that signature.
    `phases`: what tracing, lowering and compiling it took (a pipeline.Phases)."""

    def __init__(self, lowered, entry, phases):
        self.lowered, self._entry, self.phases = lowered, entry, phases
        # the (avals, placements) signatures called so far (_count_slow_call's: JAX's C++
        # fast path spares later calls of each)
        self._fast_signatures = set()
        self._traced = lowered.traced
        # (its inputs' types are the Lowered's, typed by a sharded jit's shardings)
        self._partitioning = getattr(lowered, "_partitioning", None)
        if phases is None:              # a program compiled before (_compiled_before)
            return
        # logged as jit's calls are (the notebook's count, Compilations, %jxcompiles)
        jitted = self._traced.jitted
        device = (lowered._module.devices[0] if lowered._module is not None
                  else _client.default_device())
        told = _share_program(lowered, entry)
        if told is not None:        # a call's trace: explained as the call's compile would be
            miss = self._traced._miss()
            compile_record.compiled(dataclasses.replace(miss, consts=tuple(
                c for c in entry.jaxpr.consts if not is_ref(c)), jaxpr=entry.jaxpr), phases,
                _client.platform_of(device), told, traced_at(self._traced._shared_jaxpr),
                trace_event(self._traced._shared_jaxpr))
            return
        compile_record.record(compile_record.CompileEvent(
            jitted._name, jitted._source_text(),
            tuple((f"args[{i}]", a.str_short(True)) for i, a in enumerate(entry.jaxpr.in_avals)),
            "ahead of time: .lower(...).compile()", phases, _client.platform_of(device),
            key=jitted))

    def __call__(self, *args, **kwargs):
        """Call with the non-static arguments only (static ones were fixed by `lower`)."""
        leaves, treedef = tree_flatten((args, kwargs))
        if _ctx.trace is not eval_trace:   # compiled for one signature: no transformation
            for x in leaves:
                if isinstance(x, Tracer):
                    raise TypeError("Cannot apply JAX transformations to a function lowered and "
                                    "compiled for a particular signature. Detected argument of "
                                    f"Tracer type {jax_type_text(x)}.")
        expected = self._entry.jaxpr.in_avals
        refs = jit_refs.ref_positions(leaves)         # each call's Refs (refs.py)
        arrays = jit_refs.without_refs(leaves, refs)
        got = [leaf_aval(x, lambda: "?") for x in arrays]
        if treedef != self.in_tree or \
                [a.strip_weak_type() for a in got] != [a.strip_weak_type() for a in expected]:
            try:
                check_call_signature(self.in_tree, self._traced.arg_names, expected, args,
                                     kwargs, got)
            except TypeError as e:      # for the notebook's card: a static argument given again
                e.compiled_call = {"function": self.fun_name, "given": len(args),
                                   "static": self._traced._signature[2]}
                raise
        jitted = self._traced.jitted            # device= moves any argument, as device_put
        forced = jitted._device is not None and jitted._pinned is None
        if not refs and not forced:     # (a committed Array elsewhere: JAX's error)
            check_argument_formats(arrays, self._required(), self._traced.arg_names or
                                   [f"args[{i}]" for i in range(len(arrays))],
                                   self._required_layouts())
        self._count_slow_call(refs, arrays, got)
        if self.lowered._partitioning is not None:             # each laid out as compiled for
            outs = self._entry.exe.call_buffers(self._entry.arguments(leaves))
        else:
            exe = self._entry.exe.with_committed(self.lowered._committed)
            consts = jit_refs.call_consts(self._entry, leaves)
            device, kept = self.lowered.device, exe.kept   # (an Array elsewhere moved there;
            outs = exe.call_arrays([x if isinstance(x, Array) and not (   # one not kept stays)
                is_plain(x) and x.device != device or forced and x.devices() != {device}) or
                kept is not None and i not in kept
                else put_on_device(float0_as_bools(x), device)
                for i, x in enumerate((*consts, *arrays))])
            outs = jit_refs.write_back_donated(self._entry.jaxpr, outs, leaves)
        return tree_unflatten(self._entry.out_tree, outs)

    out_tree = property(lambda self: self._entry.out_tree)

    def _count_slow_call(self, refs, arrays, avals) -> None:
        """JAX's "stages_compiled_call" (`jtu.count_aot_jit_cpp_cache_miss`): its Compiled's
        Python call, which JAX's C++ dispatch spares once a call of these types and
        placements made its fast path (jxkernel's one path counts as JAX's would: the first
        call of each signature, and every call passing Refs, which have none)."""
        signature = (tuple(avals), tuple(getattr(x, "sharding", None) if isinstance(x, Array)
                                         else type(x) for x in arrays))
        seen = self._fast_signatures
        try:
            if not refs and signature in seen:
                return
            seen.add(signature)
        except TypeError:                       # (an unhashable sharding: no fast path)
            pass
        test_event("stages_compiled_call")

    def _required(self) -> list:
        """Per argument leaf the sharding it must have, None where the program drops it."""
        return tree_flatten(self.input_shardings, is_leaf=lambda s: s is None)[0]

    # per argument leaf the layout XLA compiled its parameter for (`_required_layouts`)
    _layouts_required = None

    def _required_layouts(self) -> list | None:
        """Per argument leaf the layout XLA compiled its parameter for, None where the
        program drops it; None for all until relayout.watch (every buffer is row-major, as
        every program's parameters are, until a layout is asked for)."""
        if not relayout.watching:
            return None
        if self._layouts_required is None:
            self._layouts_required = [f.layout for f in tree_flatten(
                self.input_formats, is_leaf=lambda f: isinstance(f, Format))[0]]
        return self._layouts_required

    @property
    def _params(self) -> ConstArgs:
        return const_args(self.lowered)

    @property
    def _executable(self) -> KeptArguments:
        """What JAX's `Compiled._executable` tells of its arguments: `_kept_var_idx`, those
        the program takes (jit drops the ones its function never reads, unless keep_unused),
        and their `in_avals`."""
        entry = self._entry             # (a partitioned one's constants: its const_bufs)
        n = len(entry.consts if hasattr(entry, "consts") else entry.const_bufs)
        kept = entry.exe.kept
        avals = self._entry.jaxpr.in_avals           # (the arguments': the consts come first)
        idx = set(range(len(avals))) if kept is None else {i - n for i in kept if i >= n}
        return KeptArguments(idx, [a for i, a in enumerate(avals) if i in idx])

    def as_text(self) -> str:
        """The optimized HLO XLA compiled."""
        return self._entry.exe.optimized_hlo()

    def cost_analysis(self) -> dict:
        return self._entry.exe.cost_analysis()

    def memory_analysis(self):
        """XLA's memory sizes of the program (argument_size_in_bytes, temp_size_in_bytes...)."""
        return self._entry.exe.memory_stats()

    def runtime_executable(self):
        """jaxlib's LoadedExecutable behind this Compiled."""
        return getattr(self._entry.exe.loaded, "_loaded", self._entry.exe.loaded)

    @property
    def input_shardings(self):
        """Where each argument must live: a pytree like `in_tree` of shardings, None for one
        the program does not take (as JAX's: jit drops the arguments its function never
        reads, unless keep_unused)."""
        entry, n = self._entry, self.in_tree.num_leaves
        partitioned = self.lowered._partitioning is not None
        shardings = entry.in_shardings if partitioned else [self._sharding()] * n
        if entry.exe.kept is None:
            return tree_unflatten(self.in_tree, shardings)
        c = len(entry.const_bufs if partitioned else entry.consts)    # (the kept: consts first)
        return tree_unflatten(self.in_tree, [s if c + i in entry.exe.kept else None
                                             for i, s in enumerate(shardings)])

    @property
    def output_shardings(self):
        if self.lowered._partitioning is not None:
            return tree_unflatten(self._entry.out_tree, self._entry.exe.out_shardings)
        return tree_unflatten(self._entry.out_tree, [self._sharding()] *
                              self._entry.out_tree.num_leaves)

    @property
    def input_formats(self):
        """Per argument a `Format`: the layout XLA compiled the program to take it in, with
        its sharding (Format(None, None) for one the program drops, as JAX's); a pytree
        (args, kwargs) like `input_shardings`."""
        params, _ = self._entry.exe.layouts()
        shardings = tree_flatten(self.input_shardings, is_leaf=lambda s: s is None)[0]
        kept = self._executable._kept_var_idx
        laid = iter(params[len(params) - len(kept):])       # (the kept constants first)
        return tree_unflatten(self.in_tree, [Format(next(laid), s) if i in kept else Format()
                                             for i, s in enumerate(shardings)])

    @property
    def output_formats(self):
        """Per result a `Format`: its layout as XLA compiled it, with its sharding."""
        _, results = self._entry.exe.layouts()
        shardings = tree_flatten(self.output_shardings)[0]
        return tree_unflatten(self._entry.out_tree, list(map(Format, results, shardings)))

    def _sharding(self):
        # xla/sharding.py loads with the first mesh or sharded Array (any_sharded's sign)
        from ...xla.sharding import SingleDeviceSharding
        return SingleDeviceSharding(self._device)

    _device = property(lambda self: self.lowered.device)     # (where a one-device one runs)

    @property
    def out_info(self):
        """The outputs' types with where they live (a SingleDeviceSharding each), as JAX's
        `Compiled.out_info`, less its `format` (jxkernel does not model layouts)."""
        _no_token_results(self._entry.jaxpr.out_avals, compiled=True)
        if self.lowered._partitioning is not None:          # each output's own sharding
            return tree_unflatten(self._entry.out_tree, [
                ShapeDtypeStruct(a.shape, a.dtype, sharding=s)
                for a, s in zip(self._entry.jaxpr.out_avals, self._entry.exe.out_shardings)])
        return _out_structs(self._entry.out_tree, self._entry.jaxpr.out_avals, self._sharding())


def _no_token_results(avals, compiled: bool) -> None:
    """JAX's refusal of a token result in `out_info` (a token has no shape or dtype; the
    Traced stage's out_info gives its type itself): Lowered's AttributeError, and Compiled's
    AssertionError, which JAX raises bare and jxkernel says why (it gave the token's carrier,
    a bool[0] array, which no program returns)."""
    if any(a is abstract_token for a in avals):
        if compiled:
            raise AssertionError("Compiled.out_info has no ShapeDtypeStruct for a token "
                                 "result (JAX asserts so); Traced.out_info gives its type")
        raise AttributeError("'AbstractToken' object has no attribute 'shape'")


def _out_structs(out_tree, avals, sharding=None):
    """A pytree of ShapeDtypeStructs (no weak types) for outputs of these types."""
    return tree_unflatten(out_tree, [ShapeDtypeStruct(a.shape, a.dtype, sharding=sharding)
                                     for a in avals])
