"""Why a jitted function compiled again: each compile compared with the nearest signature
compiled before, as Changes (what differs, its kind, and the fix in a sentence and in code).

    >>> f = jxkernel.jit(lambda x: x * 2)
    >>> f(jnp.ones(3)); f(jnp.ones(4))
    >>> [str(c) for c in jxkernel.compile_events()[-1].changes]
    ['x: shape f32[3] -> f32[4]']

What differs between two signatures, and each fix, is signature_changes/'s; this module
finds the signatures of a jit's miss (the function's lineage, its closure, its options),
says why in the log, and words the recompile guard's refusal.

The record itself (events, subscribers, cache hits, the recompile guard) is low, in
jxkernel/core/compile_record.py: jit publishes each cache miss there, and this module, installed
as its explainer, says why. `jxkernel.compile_log` is this module, so its names are here too.
"""
from __future__ import annotations

import collections
import dataclasses
import functools
import inspect
import linecache
import logging
import os
import re
import sys
import types
import weakref

import numpy as np

from ..core.config import _TRACE_OPTIONS, _USER_CONTEXTS, config
from ..core.partial_eval import PartialEvalTrace
from ..core.staging import JaxprTrace
from ..core.trace import _ctx
from ..transforms.api_util import body_arg_names
from ..core import compile_record as _record
from ..core.compile_record import (  # noqa: F401  (jxkernel.compile_log: the record's names too)
    MAX_EVENTS, CompileEvent, Miss, cache_hits, clear, compile_events, events_since,
    fail_on_any_recompile, fail_on_recompile, failing_on_any_recompile, failing_on_recompile,
    function_key, last_seq, no_recompile, record, record_compiled, signature_text, subscribe,
    unlogged)
from ..core.errors import RecompileError
from ..core.source_info import user_source_info
from .source import cell_name
from ..xla import client as _client
from ..xla.compiler import Phases
# (noqa F401: jxkernel.compile_log is this module, and the Changes' names are its names too)
from .signature_changes.change import (  # noqa: F401
    _JIT_OPTIONS, KINDS, Change, Signature, explanation_text)
from .signature_changes.closed_over import _COMPARE_MAX, _Large
from .signature_changes.compare import distance, explain, explain_changes  # noqa: F401
from .signature_changes.fixes import _refixed, for_function
from .signature_changes.fresh_functions import (
    _CELL_RERUN_FIX, _CLOSURE_FRESH_FIX, _METHOD_FRESH_FIX, _PARTIAL_FRESH_FIX,
    _WRAPPER_FRESH_FIX, fresh_jit_change)
from .signature_changes.input_types import rows_under_vmap
from .signature_changes.nearest import change_distance, jax_order, nearest
from .argument_uses import uses
from . import outside_values
from .outside_values import reads_from_outside
# ------------------------------------------------------------------ explaining a jit's miss
def _config_of(device, jitted=None) -> tuple:
    """The configuration a compiled program is specialised on, as jit's cache key has it:
    x64, the device, and the jit's own options that make another program (two jits of one
    function with other donate_argnums share the trace, not the program)."""
    found = (("jax_enable_x64", bool(config.jax_enable_x64)),
             ("device", f"{_client.platform_of(device)}:{device.id}"))
    # the other options a trace depends on (jit's key holds them): a call inside
    # `with jax.default_matmul_precision(...)` names the option, as JAX does
    found += tuple((name, getattr(config, name)) for name in _TRACE_OPTIONS
                   if name != "jax_enable_x64")
    found += _user_contexts()
    if jitted is None:
        return found
    return found + tuple((name, _option_text(getattr(jitted, attr, None)))
                         for name, attr in _JIT_OPTIONS)


def _user_contexts() -> tuple:
    """(name, value) per jax.make_user_context context, as jit's cache key holds their values:
    "ctx (user context #3)", the name the user's code holds it by and its place among the
    contexts made (two contexts held by one name, as a cell run twice makes, stay apart; the
    explanation shows "ctx (user context)")."""
    found = []
    for index, context in enumerate(_USER_CONTEXTS):
        # named once: a later name would make an earlier signature's context look another
        label = getattr(context, "_shown_as", None) or context.label or \
            f"the context made at {context.made_at}"
        context._shown_as = label
        found.append((f"{label} (user context #{index})", context.value))
    return tuple(found)


def _option_text(value) -> str:
    if isinstance(value, (set, frozenset)):
        value = tuple(sorted(value, key=str))
    elif isinstance(value, dict):
        value = dict(sorted(value.items()))
    return repr(value)


_LINEAGES: collections.OrderedDict = collections.OrderedDict()
# (cell file, qualname, code) -> deque of (a weak reference to the jitted callable, one to the
# jit, Signature): the callable itself is what JAX's tracing cache is keyed on
_MAX_LINEAGES, _PER_LINEAGE = 1024, 16
_PER_FUNCTION = 1024      # signatures a jit's history keeps (as many as its cache: SIGNATURES)
_CONSTS_KEPT = 16         # of which the newest keep their closed-over constants, to compare


def _user_function(fun):
    """The function a jitted callable really runs: through functools.partial, bound methods
    and `functools.wraps` wrappers (a %%jit cell's jitted `cell` wraps the cell's own code:
    every cell's wrapper has the same code, the cells do not)."""
    for _ in range(32):
        if isinstance(fun, functools.partial):
            fun = fun.func
        elif getattr(fun, "__func__", None) is not None and hasattr(fun, "__self__"):
            fun = fun.__func__
        elif getattr(fun, "__wrapped__", None) is not None:
            fun = fun.__wrapped__
        else:
            break
    return fun


_CELL_FILE = re.compile(r"^<ipython-input-\d+-([0-9a-f]+)>$")


def _code_key(fun):
    """What makes two function objects "the same code", as a re-run cell or a lambda made
    anew in a loop: equal code objects (bytecode, constants, names, first line) in the same
    file, a notebook cell's file named by its content (IPython's execution count dropped),
    and the same qualified name. None when there is no code to compare."""
    code = getattr(_user_function(fun), "__code__", None)
    if code is None:
        return None
    found = _CELL_FILE.match(code.co_filename)
    return (found.group(1) if found else code.co_filename,
            getattr(code, "co_qualname", code.co_name), code)


def _weak(fun):
    try:
        return weakref.ref(fun)
    except TypeError:                # not weakly referable: never taken for the same object
        return lambda: None


def _lineage(fun) -> collections.deque:
    """The recent signatures compiled for `fun`'s code by any jit object (a lambda made anew
    in a loop shares its code), to explain a jit called anew each time."""
    return _lineage_in(_LINEAGES, fun)


def _lineage_in(table, fun) -> collections.deque:
    """`fun`'s code's recent signatures in `table` (jits' or bodies'), kept bounded."""
    key = _code_key(fun)
    if key is None:          # no code to recognise it by (an id could be reused): no lineage
        return collections.deque(maxlen=_PER_LINEAGE)
    found = table.get(key)
    if found is None:
        found = table[key] = collections.deque(maxlen=_PER_LINEAGE)
        if len(table) > _MAX_LINEAGES:
            table.popitem(last=False)
    return found


def _closure_names(fun) -> dict:
    """id(value) -> the name `fun` reads it by: its closure variables and the globals its
    code names."""
    code = getattr(fun, "__code__", None)
    if code is None:
        return {}
    names = {}
    for name, cell in zip(code.co_freevars, getattr(fun, "__closure__", None) or ()):
        try:
            names[id(cell.cell_contents)] = name
        except ValueError:                # a cell not yet filled
            pass
    found = getattr(fun, "__globals__", {})
    for name in code.co_names:
        if name in found:
            names.setdefault(id(found[name]), name)
    return names


def _named_consts(fun, consts) -> tuple:
    """The closed-over constants named as the function's source names them, where it names
    them directly (a global or a closure variable), else by position."""
    by_id = _closure_names(fun)
    return tuple((by_id.get(id(c), f"constant {i}"),
                  _Large(c) if int(np.prod(getattr(c, "shape", ()))) > _COMPARE_MAX else c)
                 for i, c in enumerate(consts))


def _named_signature(named, static_named) -> tuple:
    return tuple((n, a.str_short() + (" (weak)" if a.weak_type else "")) for n, a in named) + \
        tuple((n, f"static {v!r}") for n, v in static_named)


def _explain(miss: Miss) -> tuple:
    """(named avals, named statics, the nearest earlier Signature or None, reason, changes,
    the new Signature).

    As JAX's tracing cache, which is keyed on the Python function (not the jit object): a
    first compile of this jit object is compared with what other jit objects of the *same
    function object* compiled (jit(f) and jit(f, static_argnums=1): "n was traced, is static
    now"). A function object never seen is a first call ("never seen function"); when
    another object of the same code compiled before (a lambda made anew in a loop, a cell
    run again) it says so (fresh_jit), and nothing more: the new object is the cause."""
    named = tuple(zip(miss.names, miss.avals))
    static_named = tuple((n, v) for n, v, _ in miss.statics)
    new = Signature(named, miss.treedef, static_named, _config_of(miss.device, miss.jitted),
                    None if miss.consts is None else _named_consts(miss.jitted._fun, miss.consts),
                    by_keyword=tuple(n for n, _, pos in miss.statics if pos is None))
    closest = nearest(miss.history, new)
    if closest is None:
        fun = miss.jitted._fun
        seen = [sig for ref, owner, sig, _ in tuple(_lineage(fun))
                if owner() is not miss.jitted and ref() is fun]
        closest = nearest(seen, new)
        if closest is None:
            return named, static_named, None, "first call", _fresh_jit_changes(miss.jitted), \
                new
    changes = for_function(explain_changes(closest, new), miss.jitted._fun, uses)
    reason = explain(closest.named, named, closest.treedef, miss.treedef, closest.statics,
                     static_named, [c for c in changes if c.kind == "structure"])
    if changes and (reason.startswith("a changed configuration") or
                    any(c.kind in ("traced", "config") for c in changes)):     # say which
        reason = "; ".join(map(str, changes))
    return named, static_named, closest, reason, changes, new


def _fresh_jit_changes(jitted) -> tuple:
    """A function object never seen, of the same code as one compiled before (jit(lambda)
    made anew in a loop, a cell run again): the fresh_jit change, alone."""
    fun = jitted._fun
    # a copy first: jits of the same code compiled on other threads append to the deque
    # (iterating it meanwhile raised "deque mutated during iteration": benchmarks/stress.py)
    others = [(owner, sig, cell) for ref, owner, sig, cell in tuple(_lineage(fun))
              if owner() is not jitted and ref() is not fun]
    if not others:
        return ()
    _, sig, cell = others[-1]
    now = _cell_of(fun)
    compiled_for = signature_text((p, a.str_short()) for p, a in sig.named)
    change = fresh_jit_change(f"jit({jitted._name}) compiled for ({compiled_for})")
    free = getattr(getattr(_user_function(fun), "__code__", None), "co_freevars", ())
    if isinstance(fun, functools.partial):      # jit(partial(g, k)) made anew
        change = _refixed(change, _PARTIAL_FRESH_FIX,
                          func=getattr(fun.func, "__name__", "g"))
    elif getattr(fun, "__func__", None) is not None and hasattr(fun, "__self__"):
        change = _refixed(change, _METHOD_FRESH_FIX,       # jax.jit(m.apply) made anew
                          method=getattr(fun.__func__, "__name__", "method"))
    elif _user_function(fun) is not fun:       # jit(jax.grad(loss)) made anew
        change = _refixed(change, _WRAPPER_FRESH_FIX, func=_user_function(fun).__name__,
                          wrapper=_wrapper_name(fun))
    elif free:                  # a closure made anew (a factory): its values may differ
        change = _refixed(change, _CLOSURE_FRESH_FIX, names=", ".join(free),
                          first=free[0])
    elif cell is not None and now is not None and cell != now:   # a cell run again
        change = _refixed(change, _CELL_RERUN_FIX, before=cell, now=now,
                          fname=_jit_name(jitted), fun=_jit_name(jitted)
                          if jitted._name.isidentifier() else "lambda ...: ...")
    return (change,)


def _wrapper_name(fun) -> str:
    """What made the outermost wrapper of a function: "jax.grad" for jxkernel's grad (its
    wrapper's code is grad.<locals>.grad_f), else the wrapper's own outer name (a decorator):
    _wrapper_name(jax.grad(loss)) == "jax.grad"."""
    code = getattr(fun, "__code__", None)
    if code is None:
        return type(fun).__name__
    outer = getattr(code, "co_qualname", code.co_name).split(".")[0]
    return f"jax.{outer}" if _source_internal(code.co_filename) else outer


def _cell_of(fun) -> str | None:
    """'In[3]': the notebook cell run that defined `fun` (asked as it compiles: a re-run
    cell's file is named by its content, so In[2]'s file is In[3]'s once it ran again), or
    None outside a cell."""
    code = getattr(_user_function(fun), "__code__", None)
    return cell_name(code.co_filename) if code is not None else None


def _jit_name(jitted) -> str:
    """A name to write the fix with: the function's, or f for a lambda."""
    name = jitted._name
    return name if name.isidentifier() else "f"


# the reason of a compile that reused its trace under a transformation (no tracing miss)
REUSED_TRACE = ("traced before (under grad or vmap, inside another traced function, by "
                "eval_shape or .lower): compiled now, without tracing again")


def compiled(miss: Miss, phases, backend: str, traced: bool = True) -> CompileEvent:
    """The event of a jit cache miss that compiled: why, against the nearest earlier
    signature (which joins the jit's history); `traced` False: it reused its trace under a
    transformation, which JAX's tracing cache holds too (no miss, REUSED_TRACE)."""
    named, static_named, _, reason, changes, new = _explain(miss)
    options = dict(_JIT_OPTIONS)
    if not traced and not (changes and all(c.kind == "config" and c.path in options
                                           for c in changes)):
        # (a jit of other options reusing another's trace keeps its cause: the options)
        reason, changes = REUSED_TRACE, ()
    if _record.logged():    # a tool's compile (a workshop check's) is not the user's: the
        _remember(miss, new)  # explanations name only what the log shows
    jitted = miss.jitted
    source = _source_of(jitted)
    event = CompileEvent(jitted._name, source, _named_signature(named, static_named), reason,
                         phases, backend, key=jitted, changes=changes,
                         origin=_record.origin_of(source, jitted._by_user), miss=traced)
    if traced and event.origin == _record.USER and _record.logged():
        outside_values.traced(_user_function(jitted._fun), event)  # what it read from outside
    return event


def _remember(miss: Miss, new) -> None:
    """`new` joins the jit's history and its function's lineage (what later misses of it, or
    of a new jit of the same code, are explained against)."""
    miss.history.append(new)
    if len(miss.history) > _PER_FUNCTION:    # a function compiled for ever new shapes
        del miss.history[:-_PER_FUNCTION]
    if len(miss.history) > _CONSTS_KEPT:     # older signatures forget their constants' values
        old = miss.history[-_CONSTS_KEPT - 1]
        if old.consts is not None:
            miss.history[-_CONSTS_KEPT - 1] = dataclasses.replace(old, consts=None)
    jitted = miss.jitted
    # the jit held weakly: the log keeps no dropped jit alive, and a new jit may take a dropped
    # one's id
    _lineage(jitted._fun).append((_weak(jitted._fun), _weak(jitted),
                                  dataclasses.replace(new, consts=None), _cell_of(jitted._fun)))


def traced_under_transformation(miss: Miss, seen: list, under_vmap: bool = False) -> tuple:
    """(reason, changes, signature as written) of `miss`, a jitted function traced anew under
    a transformation, against its compiles' signatures and `seen`, its earlier traces under
    transformations (JAX's tracing cache holds both); the new signature joins `seen`, not the
    compiles'. `under_vmap`: a shape change is of the rows vmap gives it (rows_under_vmap)."""
    named, static_named, _, reason, changes, new = _explain(dataclasses.replace(
        miss, history=list(miss.history) + seen))
    if under_vmap:
        changes = rows_under_vmap(changes)
    seen.append(dataclasses.replace(new, consts=None))
    del seen[:-_PER_FUNCTION]
    return reason, changes, _named_signature(named, static_named)


# ------------------------------------------------------------------ control-flow bodies
# A scan, while_loop or fori_loop body, a cond or switch branch, is traced once per input types
# and reused (lax/_cf_util.trace_fun), as JAX's trace_to_jaxpr cache keeps it by the function
# object; a miss of that cache is told here as a retrace (nothing compiles of its own: it is
# part of the loop's program), explained against the same function's earlier traces, as JAX's
# jax_explain_cache_misses explains it: the tracing context, then the pytree, then what it was
# traced for (JAX's "Debug info doesn't match"), then the input types, the first that differ
# from the closest earlier trace.
_BODY_API = {"scan body": "lax.scan", "cond branch": "lax.cond", "switch branch": "lax.switch",
             "while_loop body": "lax.while_loop", "while_loop cond": "lax.while_loop",
             # (a body's trace is told for these, JAX's names: lax/_cf_util.py)
             "scan": "lax.scan", "cond": "lax.cond", "switch": "lax.switch",
             "while_body": "lax.while_loop", "while_cond": "lax.while_loop",
             "fori_loop": "lax.fori_loop"}
# what the user passes that a body's inputs come from, per API and the body's parameter (for
# the fixes' code): scan's carry is init, its x a slice of xs; fori_loop's i comes from lower
# (and upper), its carry from init_val
_BODY_INPUT = {"lax.scan": ("init", "xs"), "lax.fori_loop": ("lower", "init_val"),
               "lax.while_loop": ("init_val",), "lax.cond": ("operand",),
               "lax.switch": ("operand",)}


def _body_input(user, api, path) -> str:
    """The argument of `api` that the body's input at `path` comes from."""
    given = _BODY_INPUT.get(api, ("the operands",))
    try:
        params = [p.name for p in inspect.signature(user).parameters.values()]
    except (TypeError, ValueError):
        params = []
    root = re.match(r"[^\[.]*", path).group(0)
    index = params.index(root) if root in params else 0
    return given[min(index, len(given) - 1)]
_BODY_SEEN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # fun -> [(what, sig)]
_BODY_LINEAGES: collections.OrderedDict = collections.OrderedDict()   # code key -> deque


_BODY_CONFIG: list = [None, ()]      # [config._trace_state it was made from, the config]


def _body_config() -> tuple:
    """What a body's trace is keyed on besides its inputs: the tracing options (x64 among
    them) and the jax.make_user_context values, as jit's; made again only when they change
    (config._trace_state is a new tuple then)."""
    state = config._trace_state
    if _BODY_CONFIG[0] is not state:
        _BODY_CONFIG[:] = [state, tuple((name, getattr(config, name))
                                        for name in _TRACE_OPTIONS) + _user_contexts()]
    return _BODY_CONFIG[1]


_BODY_TEXTS: dict = {}       # named avals -> their signature as written (a body's repeat)


def _body_signature(named) -> tuple:
    found = _BODY_TEXTS.get(named)
    if found is None:
        if len(_BODY_TEXTS) > 4096:
            _BODY_TEXTS.clear()
        found = _BODY_TEXTS[named] = _named_signature(named, ())
    return found


def _body_severity(old_what, old: Signature, what, new: Signature) -> int:
    """JAX's order of what to name (diff_tracing_cache_keys): the tracing context (0), the
    pytree (1), what it was traced for (2), the types (3); 4: the same key (its trace was not
    kept: it closed over an enclosing trace's values)."""
    if old.config != new.config:
        return 0
    if old.treedef != new.treedef:
        return 1
    if old_what != what:
        return 2
    return 3 if old.named != new.named else 4


def _body_lineage(user) -> collections.deque:
    return _lineage_in(_BODY_LINEAGES, user)


def body_traced(fun, in_tree, in_avals, what: str, source, promoted: bool = False) -> None:
    """Log the trace of control-flow body `fun` (a miss of its trace cache), where the
    function is the user's: a retrace event inside the loop or the traced function running
    it, with why (compile_record.body_traced). `promoted`: the loop's own retrace with weak
    carries promoted to what the body returned, not a call given other types."""
    user, api, namer = getattr(fun, "_jx_traced_as", (fun, _BODY_API.get(what, what), None))
    if source is None or _source_internal(source.file):
        return                          # jxkernel's own bodies (lax.map's): not the user's
    named = tuple(zip(body_arg_names(user, in_tree, namer), in_avals))
    new = Signature(named, in_tree, (), _body_config())
    try:
        seen = _BODY_SEEN.setdefault(fun, [])
    except TypeError:                   # not weakly referable: no history
        seen = []
    changes = _body_changes(fun, user, api, what, new, seen, promoted)
    if seen and not changes:
        reason = ("traced again: its earlier trace for these inputs closed over values of an "
                  "enclosing trace, so it was not kept")
    elif changes and changes[0].kind != "fresh_body":
        reason = "; ".join(map(str, changes))
    else:
        reason = "first call"
    seen.append((what, new))
    del seen[:-_PER_FUNCTION]
    lineage = _body_lineage(user)
    if not any(w == what and sig == new for _, w, sig in lineage):   # a few, each once
        lineage.append((_weak(fun), what, new))
    name = getattr(user, "__name__", type(user).__name__)
    event = CompileEvent(name, f"{source.file}:{source.line}", _body_signature(named),
                         reason, Phases(), _client.platform_of(_client.default_device()),
                         key=fun, changes=changes, origin=_record.USER,
                         inlined_into=_body_inside(api))
    record(event)
    outside_values.traced(_user_function(user), event)      # what it read from outside


def _body_changes(fun, user, api, what, new, seen, promoted=False) -> tuple:
    """What differs from the closest earlier trace of `fun` (JAX's order), or for a function
    never traced: a trace of it for jit (JAX's "Debug info doesn't match"), or another
    function object of the same code traced before (a lambda made anew)."""
    if seen:
        # JAX's order (signature_changes/nearest.py's jax_order): the first of equals by its text
        old_what, old = min(reversed(seen), key=lambda e: (    # (equal: the latest)
            _body_severity(e[0], e[1], what, new), *jax_order(e[1], new)[1:],
            change_distance(e[1], new)))
        severity = _body_severity(old_what, old, what, new)
        if severity == 2:
            return (_traced_for_change(user, api, old_what, what),)
        if severity == 4:
            return ()
        kinds = {0: ("config",), 1: ("structure",), 3: ("shape", "dtype", "weak_type")}
        found = tuple(_body_fixed(c, user, api, promoted) for c in explain_changes(old, new)
                      if c.kind in kinds[severity])
        if not found and severity == 1:
            found = (Change("(inputs)", "structure", str(old.treedef), str(new.treedef),
                            _BODY_STRUCTURE_FIX.format(fun=_fname(user), api=api,
                                                       path="(inputs)"), ""),)
        return found
    if getattr(fun, "_jx_traced_as", None) is None and \
            any(ref() is user for ref, *_ in tuple(_lineage(user))):
        return (_traced_for_change(user, api, "jit", what),)
    others = [(w, sig) for ref, w, sig in tuple(_body_lineage(user)) if ref() is not fun]
    if not others:
        return ()
    return (_fresh_body_change(user, api, what, new, others),)


def _fname(user) -> str:
    return getattr(user, "__name__", type(user).__name__)


def _body_fixed(change: Change, user, api, promoted: bool = False) -> Change:
    """`change` with a body's fix: the types a body sees come from what is passed to the
    loop or cond, so the fix is there (a jit's pad-the-argument code would not apply). A
    promoted carry's fix starts the loop from the type the body returns: casting it back
    to the start's dtype would make the carry's types differ, which JAX refuses."""
    if change.kind == "config":
        return change
    given = _body_input(user, api, change.path)
    promoted = promoted and change.kind in ("dtype", "weak_type")
    fill = dict(fun=_fname(user), api=api, path=change.path, old=change.old,
                new=change.new, given=given,
                dtype=(change.new if promoted else change.old).split("[")[0])
    dtype = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64",
             "i32": "int32", "i64": "int64", "bool": "bool_"}.get(fill["dtype"], "float32")
    if change.kind == "weak_type":
        dtype = {"f": "float32", "i": "int32"}.get(change.new[:1], dtype)
    fill["dtype"] = dtype
    fix, snippet = _PROMOTED_FIX if promoted else _BODY_FIXES[change.kind]
    return dataclasses.replace(change, fix=fix.format(**fill), snippet=snippet.format(**fill))


_BODY_FIXES = {
    "shape": ("{fun} is traced once per input types and then reused: {path} has a new shape, "
              "so it is traced again (and the {api} runs as a new program). Expected when "
              "the data changes shape; to trace it once, give the {api} the same shapes "
              "every time (pad to a few fixed sizes).", ""),
    "dtype": ("{path} came as {new} (before: {old}): the {api} was given another dtype, so "
              "{fun} is traced again. Cast what you pass to the {api} ({given}) to one dtype.",
              "{given} = jnp.asarray({given}, jnp.{dtype})    # what you pass to {api}"),
    "weak_type": ("A Python scalar is weakly typed and an array is not, so {path} flipping "
                  "between them traces {fun} again. Pass the {api} the same kind every time "
                  "(weak types: https://docs.jax.dev/en/latest/type_promotion.html#weak-types).",
                  "{given} = jnp.asarray({given}, jnp.{dtype})    # always a (strong) array"),
    "structure": ("The pytree structure of what {fun} is given changed ({path}: {old} -> "
                  "{new}), and every structure traces anew. Give the {api} the same keys and "
                  "fields every time (zeros instead of a missing entry).", ""),
}
# JAX's rule (lax's _promote_weak_typed_inputs): a weakly typed carry whose body returns
# another dtype is promoted and the body traced again, in the same call
_PROMOTED_FIX = (
    "{path} started as {old} (a Python number: weakly typed) and {fun} returns {new} for it: "
    "the {api} promoted the start to {new} and traced {fun} again, in this one call (as JAX "
    "does; the result is the same). To trace it once, start from the type {fun} returns.",
    "{given} = jnp.asarray({given}, jnp.{dtype})    # the type {fun} returns")
_BODY_STRUCTURE_FIX = _BODY_FIXES["structure"][0].replace("({path}: {old} -> {new})",
                                                          "({path})")


def _traced_for_change(user, api, old, new) -> Change:
    fix = (f"{_fname(user)} was traced for {old} before and now as a {new} ({api}): as in "
           f"JAX, a function's trace is kept per use, so each use traces it once. Nothing to "
           f"fix: later calls of each reuse their trace.")
    return Change("(traced for)", "traced_for", old, new, fix, "")


def _fresh_body_change(user, api, what, new, others) -> Change:
    """A new function object of the same code as a body traced before (a lambda or a def made
    anew each time its line runs). The fix is a claim tested here: one function object would
    have reused an earlier trace only where one was for the same inputs."""
    name = _fname(user)
    free = reads_from_outside(_user_function(user))
    same = any(w == what and sig == new for w, sig in others)
    head = (f"This is a new function object of the same code as one {api} traced before (a "
            f"lambda or def made anew each time its line runs): {api} keeps a body's trace by "
            f"the function object, so each new one is traced again.")
    if free:
        names = ", ".join(free)
        fix = (f"{head} It reads {names} from outside (a closure or a global): one function "
               f"object would keep the value {names} had when first traced, and reuse that "
               f"trace after {names} changes. Make it once, taking {names} as an "
               f"input ({'in the carry' if api != 'lax.cond' and api != 'lax.switch' else 'an operand'}: "
               f"traced, one trace for all values).")
        snippet = (f"def {name if name.isidentifier() else 'body'}(..., {free[0]}):    "
                   f"# once, outside the loop: {free[0]} passed in, not closed over")
    elif same:
        fix = (f"{head} Define it once (outside the loop, or outside the function being "
               f"traced) and pass the same object: its trace for these inputs is reused.")
        snippet = (f"def {name if name.isidentifier() else 'body'}(...):    # once, then "
                   f"pass the same function to {api}")
    else:
        _, sig = others[-1]
        differs = explain_changes(sig, new)
        told = ", ".join(map(str, differs[:2])) or "its inputs"
        fix = (f"{head} Its inputs differ from the earlier traces' too ({told}), so one "
               f"function object would be traced again here as well: nothing to fix for this "
               f"trace (defining it once saves the traces whose inputs repeat).")
        snippet = ""
    _, last = others[-1]
    was = signature_text(_body_signature(last.named))
    return Change("(function object)", "fresh_body", f"{name} traced for ({was})",
                  "a new function object", fix, snippet)


def _body_inside(api) -> str:
    """What the body's trace is part of: the traced function running the loop ("jit(f)", a
    body "lax.scan(outer)"), or, run eagerly, the loop itself ("lax.scan")."""
    trace = _ctx.trace
    while trace is not None:
        if isinstance(trace, JaxprTrace) and not isinstance(trace, PartialEvalTrace):
            info = trace.debug_info
            if info is None:
                return api
            return f"{_BODY_API.get(info.transformation, info.transformation)}({info.fun_name})"
        trace = trace.parent
    return api


def _source_of(jitted) -> str | None:
    """Where the jitted function was defined ("file:line"); for a functools.partial or a
    wrapper, where the function it runs was."""
    found = jitted._source_text()
    if found is None:
        code = getattr(_user_function(jitted._fun), "__code__", None)
        if code is not None:
            found = f"{code.co_filename}:{code.co_firstlineno}"
    return found


def refusal(miss: Miss) -> RecompileError:
    """The error of a miss that fail_on_recompile refuses: pointing at the caller, with what
    changed and how to fix it as notes. The message names the function as the user wrote it
    (the name the calling frame holds it by) and the switch that is on, never an internal
    key; a jitted function inside jxkernel (jnp.sum) is named by the user's call."""
    named, static_named, closest, reason, changes, _ = _explain(miss)
    jitted = miss.jitted
    where = user_source_info()
    err = RecompileError(jitted._name, jitted.function_key,
                         signature_text(_named_signature(closest.named, closest.statics)),
                         signature_text(_named_signature(named, static_named)),
                         reason, where)
    err.changes = changes
    err.args = (_refusal_text(jitted, err, where),)
    library = _is_library(jitted)
    if changes and not library:
        err.add_note("What changed, and the fix:\n" + explanation_text(changes))
    elif library:
        err.add_note("A library function compiles once per input type (shape, dtype) it is "
                     "given, as your own jitted functions do. Under the guard, call it with "
                     "the types it compiled for, or run it once with each type before turning "
                     "the guard on.")
    return err


def _is_library(jitted) -> bool:
    """Whether the jitted function is jxkernel's own (jnp.sum's inner jit), not one the user
    made (`summed = jax.jit(jnp.sum)` in a cell is the user's, named as the user holds it)."""
    source = getattr(jitted, "_source", None)
    return not getattr(jitted, "_by_user", False) and source is not None and \
        _source_internal(source.file)


def _source_internal(filename: str) -> bool:
    return filename.startswith(_PACKAGE_DIR)


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _user_frame():
    """The innermost frame outside jxkernel (the user's call), or None."""
    frame = sys._getframe(1)
    while frame is not None and _source_internal(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def _name_in_caller(target) -> str | None:
    """The name the user's calling frame holds `target` by (a local, then a global)."""
    frame = _user_frame()
    if frame is None:
        return None
    for scope in (frame.f_locals, frame.f_globals):
        for name, value in list(scope.items()):
            if value is target and not name.startswith("_"):
                return name
    return None


def _refusal_text(jitted, err, where) -> str:
    at = f"called at {where.file}:{where.line}\n" if where is not None else ""
    per_function = bool(getattr(jitted, "_fail_on_recompile", False))
    signatures = (f"  compiled for: ({err.old_signature})\n"
                  f"  called with:  ({err.new_signature})\n")
    if per_function:
        name = _name_in_caller(jitted)
        switch = "fail_on_recompile is on for it"
        allow = (f"jxkernel.compile_log.fail_on_recompile({name}, False) (in a notebook: "
                 f"%jxguard off {name})" if name else
                 f"%jxguard off {jitted._name} in a notebook, or "
                 f"jxkernel.compile_log.fail_on_recompile(f, False), f being your "
                 f"jit({jitted._name})")
    else:
        switch = "no_recompile() is on (every jitted function; %jxguard on in a notebook)"
        allow = ("leaving the `with no_recompile():` block (%jxguard off), or "
                 "jxkernel.compile_log.fail_on_any_recompile(False)")
    if _is_library(jitted):
        line = ""
        if where is not None:
            text = linecache.getline(where.file, where.line).strip()
            line = f" `{text}`" if text else ""
        return (f"The call{line} would compile a jitted function inside jxkernel again, "
                f"because its input changed ({err.reason}), and {switch}.\n" + signatures + at +
                f"Call it with the types it compiled for, or allow recompiling by {allow}.")
    return (f"jit({jitted._name}) would recompile because {err.reason}, and {switch}.\n" +
            signatures + at +
            f"Call it with the compiled signature, or allow recompiling "
            f"{'with ' if per_function else 'by '}{allow}.")


def explain_miss(event: CompileEvent, call_site=None) -> str:
    """What `jax_explain_cache_misses` logs for `event`, in the shape of JAX's message: where
    the call is, the function, and each difference from the nearest earlier signature.

        >>> print(explain_miss(CompileEvent("f", "a.py:3", (), "first call", Phases(), "cpu")))
        TRACING CACHE MISS:
          never seen function:
            f defined at a.py:3
    """
    if not (_users(event) and event.miss):
        return ""                  # not logged (the filter below drops an empty message)
    where = "" if call_site is None else \
        f" at {call_site.file}:{call_site.line} ({call_site.function})"
    defined = "" if event.source is None else f" defined at {event.source}"
    lines = [f"TRACING CACHE MISS{where}:"]
    # a retrace inside another traced function (its program is part of that one's, if any)
    inlined = [] if event.compiled else [f"  (traced inside {event.inlined_into}: nothing "
                                         "compiled of its own)"]
    fresh = [c for c in event.changes if c.kind in ("fresh_jit", "fresh_body")]
    if event.reason == "first call":            # as JAX: a function object not traced before
        lines += ["  never seen function:", f"    {event.function}{defined}"]
        if fresh:       # JAX guesses this from the call site; here the code is the same
            done = "compiled" if fresh[0].kind == "fresh_jit" else "traced"
            lines += [f"  but seen another function defined on the same line, of the same "
                      f"code, {done} before ({fresh[0].old}): the function is being "
                      "re-defined, preventing caching", explanation_text(fresh)]
        return "\n".join(lines + inlined)
    lines.append(f"  for {event.function}{defined}")
    if not event.changes:
        lines.append(f"  {event.reason}")
        return "\n".join(lines + inlined)
    lines += ["  all previously seen cache keys differ. For the closest previous key:"]
    heading = _JAX_HEADING.get(event.changes[0].kind)
    if heading:                                 # the kind of difference, in JAX's words
        lines.append(f"  {heading}")
    lines.append(explanation_text(event.changes, jax_words=True))
    return "\n".join(lines + inlined)


# JAX's line naming the kind of difference (partial_eval.diff_tracing_cache_keys)
_JAX_HEADING = {"shape": "different input types:", "dtype": "different input types:",
                "weak_type": "different input types:", "structure": "different input pytree:",
                "static": "different input pytree:", "traced": "different input pytree:",
                "config": "Tracing context doesn't match, e.g. due to config or context "
                          "manager.",
                "traced_for": "Debug info doesn't match."}


def _users(event: CompileEvent) -> bool:
    """Whether `event` is a compile JAX's jax_explain_cache_misses would explain: a miss of a
    function the user wrote (JAX skips its own files), not a jitted function inside
    jxkernel (jnp.sum's), an eager operation's program or a transformed jit's (vmap of a
    jitted function: no source), which JAX does not log as tracing misses."""
    if event.source is None:
        return False
    return not _source_internal(event.source.rsplit(":", 1)[0])


class _UsersMissesOnly(logging.Filter):
    """Drops the empty messages explain_miss gives for compiles JAX would not explain."""

    def filter(self, record) -> bool:
        return bool(record.getMessage())


if not any(isinstance(f, _UsersMissesOnly) for f in _record._logger.filters):
    _record._logger.addFilter(_UsersMissesOnly())
_record.install_explainer(sys.modules[__name__])   # this module explains every miss
