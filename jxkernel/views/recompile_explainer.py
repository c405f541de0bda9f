"""Why a jitted function compiled again: each compile compared with the nearest signature
compiled before, as Changes (what differs, its kind, and the fix in a sentence and in code).

    >>> import jxkernel, jxkernel.numpy as jnp
    >>> f = jxkernel.jit(lambda x: x * 2)
    >>> _ = f(jnp.ones(3)); _ = f(jnp.ones(4))        # the second call compiles again
    >>> [str(c) for c in jxkernel.compile_events()[-1].changes]
    ['x: shape f32[3] -> f32[4]']

What differs between two signatures, and each fix, is signature_changes/'s; this module
finds the signatures of a jit's miss (the function's lineage, its closure, its options),
says why in the log, and words the recompile guard's refusal. A control-flow body's retrace
is body_retraces.py's; what both know of a user's function (the same code across cells, its
lineage, its constants' names) is traced_functions.py's.

The record itself (events, subscribers, cache hits, the recompile guard) is low, in
jxkernel/core/compile_record.py: jit publishes each cache miss there, and this module, installed
as its explainer, says why. `jxkernel.compile_log` is this module, so its names are here too.
"""
from __future__ import annotations

import dataclasses
import functools
import inspect
import linecache
import logging
import sys

from ..core.config import _TRACE_OPTIONS, config
from ..core.traceback_util import boundary_inner
from ..core import compile_record as _record, miss_words
from ..core.compile_record import (  # noqa: F401  (jxkernel.compile_log: the record's names too)
    MAX_EVENTS, CompileEvent, Miss, cache_hits, clear, compile_events, events_since,
    fail_on_any_recompile, fail_on_recompile, failing_on_any_recompile, failing_on_recompile,
    function_key, last_seq, no_recompile, record, record_compiled, signature_text, subscribe,
    unlogged)
from ..core.errors import RecompileError
from ..core.source_info import (
    installed_package, is_jxkernel_file, is_user_filename, learner_source_info, user_source_info)
from .source import cell_name
from .guard_status import where_of  # noqa: F401  (a FunctionKey names its place by it)
from ..xla import client as _client
# (noqa F401: jxkernel.compile_log is this module, and the Changes' names are its names too)
from .signature_changes.change import (  # noqa: F401
    _JIT_OPTIONS, KINDS, Change, Signature, explanation_text)
from .signature_changes.compare import distance, explain, explain_changes  # noqa: F401
from .signature_changes.fixes import _refixed, for_function
from .signature_changes.fresh_functions import (
    _CELL_RERUN_DECORATED_FIX, _CELL_RERUN_FIX, _CELL_RERUN_NAMED_FIX, _CLOSURE_FRESH_FIX,
    _CLOSURE_FUNCTIONS_FIX, _FACTORY_AT_CALL_FIX,
    holding_functions, _DEFAULTS_AT_CALL_FIX,
    _DEFAULTS_FRESH_FIX, _HOIST_CALL_FIX, _HOIST_FIX, _HOIST_WRAPPER_FIX,
    _INIT_METHOD_CELL_FIX, _INIT_METHOD_FRESH_FIX, _INIT_METHOD_MOVED_FIX, _INSTANCE_CELL_FIX,
    _INSTANCE_FRESH_FIX, _JIT_OF_JIT_FIX,
    _METHOD_AT_CALL_FIX,
    _METHOD_FRESH_FIX, _METHOD_NEW_OBJECT_FIX, _NESTED_DEF_FIX, _PARTIAL_AT_CALL_FIX,
    _PARTIAL_FRESH_FIX, _RELOADED_EDITED_FIX, _RELOADED_FIX, _TIMEIT_HOIST_FIX,
    _WRAPPER_FRESH_FIX, fresh_jit_change, partial_call, reloaded_module)
from .static_attributes import bound_to
from .signature_changes.made_once import (
    defaults_at_the_call, hoistable_call, hoistable_line, hoistable_wrapper_line,
    made_by_a_cell, made_in_the_loop, method_at_the_call, movable_nested_def, partial_at_the_call,
    timeit_call)
from .signature_changes.factory_defs import factory_at_the_call
from .signature_changes.learner_paths import in_learners_names
from .signature_changes.statics import _pytree_fields
from .signature_changes.structure import none_made_neutral
from .signature_changes.at_the_calls import (at_the_calls, bound_where_called,
                                               made_anew_at_the_call)
from .signature_changes.at_the_calls import calls_it_by_name
from .signature_changes.input_types import grown_step_by_step, slices_in_a_loop
from .signature_changes.vmap_rows import rows_under_vmap
from .signature_changes.nearest import nearest
from .argument_uses import field_uses, jit_decorated_def, jitted_lambda_line, uses
# (compile_record calls body_traced: this module is the explainer)
from .body_retraces import body_traced  # noqa: F401
from .traced_functions import (  # noqa: F401  (forget_function: compile_record calls it too)
    _CONSTS_KEPT, _PER_FUNCTION, _instance_call, _lineage, _named_consts, _named_signature,
    _source_of, _user_contexts, _user_function, _weak, call_source_of, edited_lineage,
    forget_function, miss_site, name_without_source, signature_tree_lines)
from . import outside_values
from ..core.mesh import get_mesh, on_context_mesh
from .signature_changes.config_changes import COMMITTED, CONTEXT_MESH


# ------------------------------------------------------------------ explaining a jit's miss
def _config_of(device, jitted=None, committed=()) -> tuple:
    """The configuration a compiled program is specialised on, as jit's cache key has it:
    x64, the device, the arguments committed to it (`committed`, their names), and the jit's
    own options that make another program (two jits of one function with other
    donate_argnums share the trace, not the program)."""
    found = (("jax_enable_x64", bool(config.jax_enable_x64)),
             ("device", _client.device_name(device)),
             (COMMITTED, tuple(committed)))
    # the other options a trace depends on (jit's key holds them): a call inside
    # `with jax.default_matmul_precision(...)` names the option, as JAX does
    found += tuple((name, getattr(config, name)) for name in _TRACE_OPTIONS
                   if name != "jax_enable_x64")
    found += _user_contexts()
    # set_mesh's mesh: JAX's trace context holds it (abstract_mesh_context_manager, None
    # outside a block); a call inside one traces again where one outside compiled
    found += ((CONTEXT_MESH, repr(get_mesh().abstract_mesh) if on_context_mesh() else "None"),)
    if jitted is None:
        return found
    return found + tuple((name, _option_text(getattr(jitted, attr, None)))
                         for name, attr in _JIT_OPTIONS)


def _option_text(value) -> str:
    if isinstance(value, (set, frozenset)):
        value = tuple(sorted(value, key=str))
    elif isinstance(value, dict):
        value = dict(sorted(value.items()))
    return repr(value)


def _explain(miss: Miss) -> tuple:
    """(named avals, named statics, the nearest earlier Signature or None, reason, changes,
    the new Signature).

    As JAX's tracing cache, which is keyed on the Python function (not the jit object): a
    first compile of this jit object is compared with what other jit objects of the *same
    function object* compiled (jit(f) and jit(f, static_argnums=1): "n was traced, is static
    now"). A function object never seen is a first call ("never seen function"); when
    another object of the same code compiled before (a lambda made anew in a loop, a cell
    run again) it says so (fresh_jit), and nothing more: the new object is the cause."""
    new = _signature(miss)
    named, static_named = new.named, new.statics
    closest = nearest(miss.history, new)
    if closest is None:
        fun = miss.jitted._fun
        seen = [sig for ref, owner, sig, _ in tuple(_lineage(fun))
                if owner() is not miss.jitted and ref() is fun]
        closest = nearest(seen, new)
        if closest is None:
            return named, static_named, None, "first call", _fresh_jit_changes(miss.jitted), new
    changes = grown_step_by_step(explain_changes(closest, new), miss.history, new,
                                 made_anew_at_the_call(miss.jitted, new))
    # (None made an array of the value that keeps the result: by how the source uses it)
    changes = [none_made_neutral(c, miss.jitted._fun, field_uses) for c in changes]
    changes = at_the_calls(for_function(changes, miss.jitted._fun, uses, jit_decorated_def,
                                        jitted_lambda_line), miss.jitted, closest, new)
    changes = bound_where_called(changes, miss.jitted, new)
    # where the program runs last, and an argument committed on one side only said alone: JAX's
    # tracing cache holds neither (a miss's cause is the rest, which its message names)
    changes = tuple(sorted(changes, key=_placement))
    if any(not _placement(c) for c in changes):
        changes = tuple(c for c in changes if c.kind != "committed")
    reason = explain(closest.named, named, closest.treedef, miss.treedef, closest.statics,
                     static_named, [c for c in changes if c.kind == "structure"])
    if changes and (reason.startswith("a changed configuration") or
                    any(c.kind in ("traced", "config", "committed") for c in changes)):
        reason = "; ".join(map(str, changes))
    return named, static_named, closest, reason, changes, new


def _signature(miss: Miss) -> Signature:
    """What `miss` is specialised on, as the explainer compares it."""
    return Signature(tuple(zip(miss.names, miss.avals)), miss.treedef,
                     tuple((n, v) for n, v, _ in miss.statics),
                     _config_of(miss.device, miss.jitted, [miss.names[i] for i in
                                                           miss.committed if i < len(miss.names)]),
                     None if miss.consts is None else _named_consts(miss.jitted._fun, miss.consts),
                     by_keyword=tuple(n for n, _, pos in miss.statics if pos is None),
                     static_at=tuple(pos for _, _, pos in miss.statics),
                     site=_call_line(miss.jitted), arg_names=miss.arg_names,
                     numbers=frozenset(miss.names[i] for i in miss.numbers
                                       if i < len(miss.names)))


def _call_line(jitted):
    """The line that made the call, as the fixes read it (signature_changes/at_the_calls.py):
    the learner's, past a library's own call of the jit it made, where the learner's line
    calls it by its name with its parameters (nnx.jit's `g(jnp.ones((n, 2)))`: the argument
    the padding fix names); else the call's, as JAX's log names it (the library's line)."""
    site = user_source_info()
    if site is not None and installed_package(site.file) and _the_learners_own(jitted):
        learners = learner_source_info()
        if learners is not None and calls_it_by_name(learners, jitted):
            return learners
    return site


def _the_learners_own(jitted) -> bool:
    """Whether the function a library jitted is the learner's, its parameters theirs (nnx.jit
    wraps it, functools.wraps keeping it as __wrapped__); not a wrapper of the library's own
    taking other parameters (Equinox's fun_wrapped(dynamic_donate, dynamic_nodonate, static),
    whose paths learner_paths.py names)."""
    try:
        code = inspect.unwrap(jitted._fun).__code__
    except (AttributeError, ValueError, TypeError):
        return False
    return is_user_filename(code.co_filename) and not installed_package(code.co_filename)


def traced_outside(miss: Miss) -> None:
    """`miss`'s function traced outside its jits' calls and stages (make_jaxpr's trace, which
    JAX's one tracing cache holds as a jit's): the signature joins the function's lineage (not
    a jit's history: nothing compiled), so that a later compile of it at another signature
    is explained against it, as JAX's miss is ("now f32[2] and before f32[3]")."""
    fun = miss.jitted._fun
    _lineage(fun).append((_weak(fun), _weak(miss.jitted),
                          dataclasses.replace(_signature(miss), consts=None), _cell_of(fun)))


def _fresh_jit_changes(jitted) -> tuple:
    """A function object never seen, of the same code as one compiled before (jit(lambda)
    made anew in a loop, a cell run again): the fresh_jit change, alone."""
    fun = jitted._fun
    # a copy first: jits of the same code compiled on other threads append to the deque
    # (iterating it meanwhile raised "deque mutated during iteration": benchmarks/stress.py)
    others = [(owner, sig, cell) for ref, owner, sig, cell in tuple(_lineage(fun))
              if owner() is not jitted and ref() is not fun]
    if not others:
        return _edited_and_reloaded(jitted)
    _, sig, cell = others[-1]
    now = _cell_of(fun)
    compiled_for = signature_text((p, a.str_short(True)) for p, a in sig.named)
    change = fresh_jit_change(f"jit({jitted._name}) compiled for ({compiled_for})")
    free = getattr(getattr(_user_function(fun), "__code__", None), "co_freevars", ())
    if isinstance(fun, functools.partial):      # jit(partial(g, k)) made anew
        at_call = partial_at_the_call(fun, user_source_info())
        change = _refixed(change, _PARTIAL_FRESH_FIX,
                          func=getattr(fun.func, "__name__", "g"), **partial_call(fun)) \
            if at_call is None else _refixed(change, _PARTIAL_AT_CALL_FIX, **at_call)
    elif getattr(fun, "__func__", None) is not None and hasattr(fun, "__self__"):
        method = getattr(fun.__func__, "__name__", "method")
        attr = _held_by(fun.__self__, jitted)
        if attr is not None and _jits_in_init(type(fun.__self__), method):
            moved = made_in_the_loop(fun.__self__, user_source_info())
            # (not in a loop: the object made by a cell, run again)
            by_cell = None if moved is not None else made_by_a_cell(
                user_source_info(), _bound_to(fun.__func__, fun.__self__), attr)
            cls = type(fun.__self__).__name__
            change = _refixed(change, _INIT_METHOD_MOVED_FIX, method=method, made=moved[0],
                              code=moved[1], cls=cls) if moved is not None else \
                _refixed(change, _INIT_METHOD_CELL_FIX, method=method, attr=attr, cls=cls,
                         **by_cell) if by_cell is not None else \
                _refixed(change, _INIT_METHOD_FRESH_FIX, method=method, attr=attr, cls=cls)
        else:                                   # jax.jit(m.apply) made anew
            at_call = method_at_the_call(fun, user_source_info())
            change = _refixed(change, _METHOD_FRESH_FIX, method=method) if at_call is None \
                else _refixed(change, _METHOD_NEW_OBJECT_FIX if at_call.pop("new") else
                              _METHOD_AT_CALL_FIX, **at_call)
    elif callable(getattr(fun, "lower", None)) and getattr(fun, "_fun", None) is not None:
        # jax.jit(f) of an f jitted already (`f = jax.jit(f)` run again): no wrapper to name
        change = _refixed(change, _JIT_OF_JIT_FIX, func=_user_function(fun).__name__)
    elif _user_function(fun) is not fun:       # jit(jax.grad(loss)) made anew
        site, wrapped = user_source_info(), _user_function(fun)
        at_call = hoistable_call(fun, site, wrapped)
        above = hoistable_wrapper_line(fun, site, wrapped)
        change = _refixed(change, _HOIST_CALL_FIX, **at_call) if at_call is not None else \
            _refixed(change, _HOIST_WRAPPER_FIX, func=wrapped.__name__, made=above[0],
                     code=above[1], wrapper=_wrapper_name(fun)) if above is not None else \
            _refixed(change, _WRAPPER_FRESH_FIX, func=wrapped.__name__,
                     wrapper=_wrapper_name(fun))
    elif _instance_call(fun) is not None:      # jax.jit(Model(k)): a new object each time
        kind = type(fun).__name__
        fields = _pytree_fields(fun)
        register = (f"jax.tree_util.register_pytree_node(\n    {kind}, lambda m: (("
                    f"{', '.join(f'm.{k}' for k in fields)},), None), "
                    f"lambda _, leaves: {kind}(*leaves))") if fields else \
            f"jax.tree_util.register_pytree_node({kind}, flatten, unflatten)    # its fields"
        # (not in a loop: a cell run again)
        by_cell = made_by_a_cell(user_source_info(), _bound_to(type(fun).__call__, jitted))
        change = _refixed(change, _INSTANCE_CELL_FIX, kind=kind, **by_cell) \
            if by_cell is not None else \
            _refixed(change, _INSTANCE_FRESH_FIX, kind=kind, register=register)
    elif _defaulted(fun) and (cell is None or cell == now):    # `lambda x, k=k:` in a loop
        names = _defaulted(fun)
        at_call = defaults_at_the_call(fun, user_source_info())
        change = _refixed(change, _DEFAULTS_FRESH_FIX, names=", ".join(names),
                          first=names[0]) if at_call is None else \
            _refixed(change, _DEFAULTS_AT_CALL_FIX, **at_call)
    elif free and holding_functions(_user_function(fun), free) and \
            jitted._name.isidentifier():   # closing over an optimizer: static, not traced
        (held, kind, what), *_ = holding_functions(_user_function(fun), free)
        change = _refixed(change, _CLOSURE_FUNCTIONS_FIX, names=", ".join(free), held=held,
                          kinds=kind, what=what, fun=jitted._name)
    elif free and (factory := factory_at_the_call(fun, user_source_info())) is not None:
        # make_step(lr)(w, g): the factory's def once, lr passed
        change = _refixed(change, _FACTORY_AT_CALL_FIX, **factory)
    elif free:                  # a closure made anew (a factory): its values may differ
        change = _refixed(change, _CLOSURE_FRESH_FIX, names=", ".join(free),
                          first=free[0])
    elif reloaded_module(fun) is not None:     # importlib.reload(module), same code
        module, func = reloaded_module(fun), fun.__qualname__
        change = _refixed(change, _RELOADED_FIX, module=module, func=func,
                          **_reload_fill(module, func, jit_decorated_def(fun) is not None))
    elif cell is not None and now is not None and cell != now:   # a cell run again
        def_line = jit_decorated_def(fun)
        # a jitted lambda bound by a cell's line (`sq = jax.jit(lambda x: ...)`): that line
        by_cell = None if jitted._name.isidentifier() or def_line is not None else \
            made_by_a_cell(user_source_info(), _bound_to(fun, jitted))
        change = _refixed(change, _CELL_RERUN_NAMED_FIX, before=cell, now=now, **by_cell) \
            if by_cell is not None and "lambda" in by_cell["line"] else \
            _refixed(change, _CELL_RERUN_FIX if def_line is None else
                     _CELL_RERUN_DECORATED_FIX, before=cell, now=now,
                     fname=_jit_name(jitted), fun=_jit_name(jitted)
                     if jitted._name.isidentifier() else "lambda ...: ...",
                     def_line=def_line)
    elif timeit_call(fun, learner_source_info()) is not None:   # %timeit jax.jit(lambda ...)(x)
        change = _refixed(change, _TIMEIT_HOIST_FIX, **timeit_call(fun, learner_source_info()))
    elif hoistable_line(fun) is not None:       # jit(lambda ...) made anew by a loop
        line, code = hoistable_line(fun)
        change = _refixed(change, _HOIST_FIX, line=line, code=code)
    elif hoistable_call(fun, user_source_info()) is not None:  # jax.jit(lambda ...)(x)
        change = _refixed(change, _HOIST_CALL_FIX, **hoistable_call(fun, user_source_info()))
    elif movable_nested_def(fun) is not None:   # @jax.jit def inner inside a function
        change = _refixed(change, _NESTED_DEF_FIX, **movable_nested_def(fun))
    return (change,)


def _edited_and_reloaded(jitted) -> tuple:
    """A function never seen, of a module reloaded after an edit (importlib.reload, or
    IPython's %autoreload), whose earlier code compiled: the fresh_jit change, told as that
    reload (JAX 0.10.2 says "never seen function", with its "re-defined repeatedly?" hint
    where the call site traced the old one: recompile_cells_reference.json's
    jitted_def_in_module_edited_and_reloaded); () for any other function."""
    fun = jitted._fun
    module, before = reloaded_module(fun), edited_lineage(fun)
    if module is None or before is None:
        return ()
    sig = before[-1][2]
    compiled_for = signature_text((p, a.str_short(True)) for p, a in sig.named)
    func = fun.__qualname__
    decorated = jit_decorated_def(fun) is not None
    return (_refixed(fresh_jit_change(f"jit({jitted._name}) compiled for ({compiled_for})"),
                     _RELOADED_EDITED_FIX, module=module, func=func, **_reload_fill(
                         module, func, decorated)),)


def _reload_fill(module: str, func: str, decorated: bool) -> dict:
    """How a reload's fix names the jit to call after it: the module's own (`@jax.jit` on
    its def), or one made once after the reload."""
    return dict(jit_once=f"call {module}.{func} (jitted by its decorator) after it"
                if decorated else f"jit {module}.{func} once after each reload",
                jitted="" if decorated else
                f"{func}_jit = jax.jit({module}.{func})    # once after the reload\n",
                call=f"{module}.{func}" if decorated else f"{func}_jit")


def _bound_to(function, obj):
    """Whether a name holds `obj` in the globals of `function` (a cell's class's method: the
    notebook's names), as a predicate of the name."""
    names = getattr(function, "__globals__", {})
    return lambda name: names.get(name) is obj


def _held_by(obj, jitted) -> str | None:
    """The attribute of `obj` holding `jitted` (`self.step = jax.jit(self._step)`: "step")."""
    return next((k for k, v in getattr(obj, "__dict__", {}).items() if v is jitted), None)


def _jits_in_init(cls, method: str) -> bool:
    """Whether `cls.__init__` reads jit and `method` (`self.step = jax.jit(self._step)`)."""
    names = getattr(getattr(cls.__init__, "__code__", None), "co_names", ())
    return "jit" in names and method in names


def _defaulted(fun) -> list:
    """The parameters of a plain function that have defaults (`lambda x, k=k: ...` -> ["k"]);
    [] for other callables."""
    code, defaults = getattr(fun, "__code__", None), getattr(fun, "__defaults__", None)
    names = list(code.co_varnames[:code.co_argcount][-len(defaults):]) \
        if code is not None and defaults else []
    return names + list(getattr(fun, "__kwdefaults__", None) or ())


def _wrapper_name(fun) -> str:
    """What made the outermost wrapper: "jax.grad" for jxkernel's grad (grad.<locals>.grad_f,
    inside its traceback boundary), else the wrapper's outer name: a decorator's."""
    code = getattr(boundary_inner(fun), "__code__", None)
    if code is None:
        return type(fun).__name__
    outer = getattr(code, "co_qualname", code.co_name).split(".")[0]
    return f"jax.{outer}" if is_jxkernel_file(code.co_filename) else outer


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


def _placement(change) -> bool:
    """Whether `change` is of where the program runs (the device, or an argument committed to
    it or not): JAX's tracing cache holds neither, its compile cache both (no tracing miss:
    the same trace compiled again)."""
    return change.kind == "committed" or change.kind == "config" and change.path == "device"


# the reason of a compile that reused its trace under a transformation (no tracing miss)
REUSED_TRACE = ("traced before (under grad or vmap, inside another traced function, by "
                "eval_shape, .lower or jax.export): compiled now, without tracing again")


# pmap's jit of `_fun` (the one jit marked `_logs_no_miss`) compiled again for where its
# arguments were: JAX 0.10.2 compiles one program for arguments pmap lays out over its devices
# itself (a NumPy array, or one put on a device) and one for arguments laid out there already
# (a pmap's output), whichever came first, and putting them on one device saves nothing
# (JAX 101's `jax.pmap(convolve)(xs, jax.pmap(convolve)(xs, ws))`; tutorial_notes3_cases.py)
PMAP_LAYOUT = (
    "a pmap's output (laid out over pmap's devices already) and an array pmap lays out there "
    "itself (a NumPy array, or one on a single device) compile one program each, as JAX's "
    "pmap does: the same trace, compiled again. Nothing to fix: later calls of either kind "
    "reuse their program (putting an argument on one device first does not save it).")


def _pmap_layout(reason, changes):
    """A pmap's placement-only compile (its arguments committed on one side, or the trace
    reused): its reason and changes said as PMAP_LAYOUT, the committed changes' fix too."""
    if reason == REUSED_TRACE:
        return f"compiled again for its arguments' layout: {PMAP_LAYOUT}", changes
    if not changes or not all(_placement(c) for c in changes):
        return reason, changes
    changes = tuple(dataclasses.replace(c, fix=PMAP_LAYOUT[0].upper() + PMAP_LAYOUT[1:],
                                        snippet="") if c.kind == "committed" else c
                    for c in changes)
    return reason, changes


def compiled(miss: Miss, phases, backend: str, traced: bool = True,
             traced_at=None) -> CompileEvent:
    """The event of a jit cache miss that compiled: why, against the nearest earlier
    signature (which joins the jit's history); `traced` False: it reused its trace under a
    transformation, which JAX's tracing cache holds too (no miss, REUSED_TRACE); `traced_at`:
    the user's line that traced it earlier (eval_shape's), where JAX logs the miss."""
    named, static_named, closest, reason, changes, new = _explain(miss)
    if not traced and not (changes and all(c.kind == "config" and c.path in dict(_JIT_OPTIONS)
                                           or _placement(c) for c in changes)):
        # (a jit of other options reusing another's trace keeps its cause: the options; a
        # program for another device or other committed arguments, its placement)
        reason, changes = REUSED_TRACE, ()
    if miss.jitted._logs_no_miss and closest is not None:
        reason, changes = _pmap_layout(reason, changes)
    if _record.logged():    # a tool's compile (a workshop check's) is not the user's: the
        _remember(miss, new)  # explanations name only what the log shows
    jitted = miss.jitted
    source, call_source = _source_of(jitted), call_source_of(jitted)
    origin = _record.origin_of(source, jitted._by_user)
    site, same_site = None, False
    if traced and reason == "first call" and origin == _record.USER and _record.logged():
        # JAX says a function is re-defined only at a call site that traced another before,
        # so a new object of jitted code is told there only (not jit(partial(g, k)) once);
        # the site is the trace's (eval_shape's line, where JAX logs it), the note's the call's
        site = user_source_info()
        traced_site = site if traced_at is None else traced_at
        same_site = traced_site is not None and _record.seen_miss_site(miss_site(traced_site))
        if not same_site:
            changes = tuple(c for c in changes if c.kind != "fresh_jit")
    # another device alone (JAX's compile cache keys it, its lowering cache does not:
    # tests/data/compile_level_reference.json's every_device logs one "Compiling" line)
    reused = not traced and closest is not None and \
        [k for k, v in closest.config if dict(new.config).get(k) != v] == ["device"]
    event = CompileEvent(jitted._name, source, _named_signature(named, static_named), reason,
                         phases, backend, key=jitted, changes=changes, origin=origin,
                         lowering_reused=reused,
                         miss=traced, call_site=site, same_site=same_site, traced_at=traced_at,
                         jax_lines=signature_tree_lines(closest, new, changes),
                         call_source=call_source, call_class=None if call_source is None
                         else type(_user_function(jitted._fun)).__name__)
    bound = bound_to(jitted._fun) if traced and _record.logged() else None
    if traced and event.origin == _record.USER and _record.logged():
        # what it read from outside; jax.jit(m.predict), jax.jit(m): m's fields too
        outside_values.traced(_user_function(jitted._fun) if bound is None else bound[0],
                              event, miss.consts, miss.host_reads,
                              statics=miss.statics, bound=bound and bound[1:])
    elif bound is not None and event.origin == _record.LIBRARY:
        # a library's object jitted whole (Flax's jax.jit(model)): its fields alone, the
        # object being the learner's (the library's own globals are no value of theirs)
        outside_values.traced(bound[0], event, miss.consts, miss.host_reads,
                              bound=bound[1:], fields_only=True)
    return in_learners_names(event, miss.statics, closest, changes)     # eqx.filter_jit's


def traced_inside(event: CompileEvent, consts, host_reads) -> None:
    """What a jit traced inside another's trace (`event`) read from outside: its trace is
    kept, inlined into that program and reused by its own later calls (stale_more_cases.py's
    inner_alone, new_outer: JAX's too)."""
    jitted = event.key
    if event.origin == _record.USER and getattr(jitted, "_fun", None) is not None:
        outside_values.traced(_user_function(jitted._fun), event, consts, host_reads,
                              inner_jit=True)


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


def traced_under_transformation(miss: Miss, seen: list, under_vmap: bool = False,
                                inside: str | None = None) -> tuple:
    """(reason, changes, signature as written, JAX's tree lines) of `miss`, a jitted function
    traced anew under
    a transformation, against its compiles' signatures and `seen`, its earlier traces under
    transformations (JAX's tracing cache holds both); the new signature joins `seen`, not the
    compiles'. `under_vmap`: a shape change is of the rows vmap gives it (rows_under_vmap);
    `inside`: the traced function it is traced into, a loop's body's slices told as such
    (slices_in_a_loop)."""
    named, static_named, closest, reason, changes, new = _explain(dataclasses.replace(
        miss, history=list(miss.history) + seen))
    if reason == "first call" and any(c.kind == "fresh_jit" for c in changes):
        # as at a call (compiled()): a new jit of the same code is told only where JAX says
        # it may be re-defined, a call site that traced another before (Custom derivative
        # rules' `vmap(jit(grad(log1pexp)))(xs)` on the line after `jit(grad(log1pexp))(3.)`:
        # one jit object reused for both misses too, its row being strong, so "make it once"
        # saved nothing; JAX logs "never seen function", no hint)
        site = user_source_info()
        if site is None or not _record.seen_miss_site(miss_site(site)):
            changes = tuple(c for c in changes if c.kind != "fresh_jit")
    if under_vmap:
        changes = rows_under_vmap(changes, miss.jitted)
    elif inside is not None:
        changes = slices_in_a_loop(changes, inside, miss.jitted._name)
    seen.append(dataclasses.replace(new, consts=None))
    del seen[:-_PER_FUNCTION]
    return reason, changes, _named_signature(named, static_named), \
        signature_tree_lines(closest, new, changes)


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
    # the NumPy backend compiles nothing: there the refused miss is a trace (miss_words)
    numpy = not miss_words.compiles(_platform(miss))
    err.args = (_refusal_text(jitted, err, where, numpy),)
    library = _is_library(jitted)
    if changes and not library:
        said = tuple(dataclasses.replace(c, fix=miss_words.traced_said(c.fix))
                     for c in changes) if numpy else changes
        err.add_note("What changed, and the fix:\n" + explanation_text(said))
    elif library:
        err.add_note("A library function compiles once per input type (shape, dtype) it is "
                     "given, as your own jitted functions do. Under the guard, call it with "
                     "the types it compiled for, or run it once with each type before turning "
                     "the guard on.")
    return err


def _platform(miss) -> str:
    """The platform the refused call would run on: its device's, else the default one."""
    device = miss.device
    return _client.platform_of(device) if device is not None else _client.default_backend()


def _is_library(jitted) -> bool:
    """Whether the jitted function is jxkernel's own (jnp.sum's inner jit), not one the user
    made (`summed = jax.jit(jnp.sum)` in a cell is the user's, named as the user holds it)."""
    source = getattr(jitted, "_source", None)
    return not getattr(jitted, "_by_user", False) and source is not None and \
        is_jxkernel_file(source.file)


def _user_frame():
    """The innermost frame of the user's (the user's call), or None: not jxkernel's, nor the
    standard library's or the shell's (sched.run holds the function it calls as `action`, and
    a fix naming that cannot work)."""
    frame = sys._getframe(1)
    while frame is not None and not is_user_filename(frame.f_code.co_filename):
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


def _refusal_text(jitted, err, where, numpy: bool = False) -> str:
    """The guard's refusal; `numpy`: on the NumPy backend, which compiles nothing, of a trace
    ("would trace again", "traced for")."""
    at = f"called at {where.file}:{where.line}\n" if where is not None else ""
    per_function = bool(getattr(jitted, "_fail_on_recompile", False))
    signatures = (f"  traced for:  ({err.old_signature})\n  called with: ({err.new_signature})\n"
                  if numpy else f"  compiled for: ({err.old_signature})\n"
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
    if numpy:
        return (f"jit({jitted._name}) would trace again because {err.reason}, and {switch}.\n" +
                signatures + at +
                f"Call it with the traced signature, or allow a new trace "
                f"{'with ' if per_function else 'by '}{allow}.")
    return (f"jit({jitted._name}) would recompile because {err.reason}, and {switch}.\n" +
            signatures + at +
            f"Call it with the compiled signature, or allow recompiling "
            f"{'with ' if per_function else 'by '}{allow}.")


def explain_miss(event: CompileEvent, call_site=None, own: bool = True) -> str:
    """What `jax_explain_cache_misses` logs for `event`, in the shape of JAX's message: where
    the call is (`call_site`: a SourceInfo, or JAX's text of it, "" where no line of the
    user's is in the trace), the function, and each difference from the nearest earlier
    signature; with `own`, jxkernel's lines too, indented under JAX's (fixes, "(jxkernel: ...)").

        >>> from jxkernel.xla.compiler import Phases
        >>> print(explain_miss(CompileEvent("f", "a.py:3", (), "first call", Phases(), "cpu")))
        TRACING CACHE MISS:
          never seen function:
            f defined at a.py:3
    """
    if not (_users(event) and event.miss):
        return ""                  # not logged (the filter below drops an empty message)
    # JAX's summary of the frame: file:line:column (qualname), no column at 0 (SourceInfo)
    where = "" if call_site is None else f" at {call_site}"
    # a callable JAX knows no file of is named as JAX names it, defined nowhere
    nameless = None if event.source is not None else _nameless(event)
    function = event.function if nameless is None else nameless
    defined = "" if event.source is None else f" defined at {event.source}"
    lines = [f"TRACING CACHE MISS{where}:"]
    # a retrace inside another traced function (its program is part of that one's, if any):
    # jxkernel's line, marked as such (JAX logs the miss and says nothing of where)
    inlined = [] if event.compiled or not own else [
        f"  (jxkernel: traced inside {event.inlined_into}; nothing compiled of its own)"]
    fresh = [c for c in event.changes if c.kind in ("fresh_jit", "fresh_body")]
    if event.reason == "first call":            # as JAX: a function object not traced before
        fun = getattr(event.key, "_fun", event.key)     # JAX's id of the object traced
        lines += ["  never seen function:",
                  f"    {function}{'' if fun is None else f' id={id(fun)}'}{defined}"]
        if event.same_site or fresh:        # JAX's guess from the call site, in its words
            lines += _record.SAME_SITE_HINT
        if fresh and own:                   # and what jxkernel knows: the code is the same
            done = "compiled" if fresh[0].kind == "fresh_jit" else "traced"
            lines += [f"  (it is: a new object of the same code, {done} before "
                      f"({fresh[0].old}))", explanation_text(fresh)]
        return "\n".join(lines + inlined)
    lines.append(f"  for {function}{defined}")
    if not event.changes:
        lines.append(f"  {event.reason}")
        return "\n".join(lines + inlined)
    lines += ["  all previously seen cache keys differ. For the closest previous key:"]
    changes = [c for c in event.changes if not _placement(c)] or event.changes
    heading = _JAX_HEADING.get(changes[0].kind)
    if heading:                                 # the kind of difference, in JAX's words
        lines.append(f"  {heading}")
    lines += event.jax_lines                    # and JAX's own lines for it, where known
    if any(c.path == CONTEXT_MESH for c in changes):
        # a trace context's difference hides the rest (diff_tracing_cache_keys: the context,
        # or the trees, or ...): the arguments' types split on another mesh go unsaid
        changes = [c for c in changes if c.kind == "config"]
    told = explanation_text(changes, jax_words=True, fixes=own).split("\n")
    typed = [i for i, line in enumerate(told) if line.startswith("  * at ")]
    if heading == "different input types:" and any("{weak_type=" in told[i] for i in typed):
        # a weak type differs (JAX writes it then): JAX's link on weak types, glued to its
        # message's last line, its last type's
        told[typed[-1]] += WEAK_TYPES_DOC
    return "\n".join(lines + told + inlined)


WEAK_TYPES_DOC = "https://docs.jax.dev/en/latest/type_promotion.html#weak-types"
# JAX's line naming the kind of difference (partial_eval.diff_tracing_cache_keys)
_JAX_HEADING = {"shape": "different input types:", "dtype": "different input types:",
                "weak_type": "different input types:", "structure": "different input pytree:",
                "static": "different input pytree:", "traced": "different input pytree:",
                "config": "Tracing context doesn't match, e.g. due to config or context "
                          "manager.",
                "traced_for": "Debug info doesn't match."}


def _users(event: CompileEvent) -> bool:
    """Whether `event` is a compile JAX's jax_explain_cache_misses would explain: a miss of a
    function the user wrote (JAX asks source_info_util.is_user_filename of its file), not a
    jitted function inside jxkernel (jnp.sum's) or a library registered with
    source_info.register_exclusion, an eager operation's program or a transformed jit's
    (vmap of a jitted function: no source), which JAX does not log as tracing misses."""
    if event.source is None:
        # a callable of no file (jax.jit(Model())): JAX asks no file, and logs it
        return _nameless(event) is not None
    return is_user_filename(event.source.rsplit(":", 1)[0])


def _nameless(event: CompileEvent) -> str | None:
    """JAX's name for the user's jitted callable of `event` that has no file to name
    (`<unknown>`: traced_functions.name_without_source), else None (a function with code, an
    eager operation's program, a transformed jit's, or a jit gone since)."""
    fun = getattr(event.key, "_fun", None)
    if event.origin != _record.USER or fun is None:
        return None
    return name_without_source(fun)


class _UsersMissesOnly(logging.Filter):
    """Drops the empty messages explain_miss gives for compiles JAX would not explain."""

    def filter(self, record) -> bool:
        return bool(record.getMessage())


if not any(isinstance(f, _UsersMissesOnly) for f in _record._logger.filters):
    _record._logger.addFilter(_UsersMissesOnly())
_record.install_explainer(sys.modules[__name__])   # this module explains every miss
