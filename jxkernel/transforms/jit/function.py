"""jit: trace once per input signature, compile with XLA, cache, and publish every miss.

    >>> @jit
    ... def f(x, n):
    ...     return x * n
    >>> f(jnp.ones(3), 2.0)
    Array([2., 2., 2.], dtype=float32)

Cache key: the function, statics, the dynamic arguments' pytree and each leaf's (shape, dtype,
weak_type), which are committed, the device, x64. A miss goes to core/compile_record.py, whose
explainer (views/recompile_explainer.py) says why. Under another transformation a jitted call is
one `jit` equation (primitive.py); stages.py: `.trace`/`.lower`/`.compile`; cache.py; args.py.
"""
from __future__ import annotations

import functools
import inspect
import time
import warnings

import numpy as np

from ...core import compile_record, symbolic, watches
from ...core.config import config
from ...core.monitoring import test_event
from ...core.native import native
from ...core.source_info import made_by_user
from .high import CapturedHigh, call_high, has_high, has_high_tracer, remember_high
from ...core.staging import DebugInfo, is_ref
from ...core.trace import Tracer, _ctx, eval_trace
from ...core.traceback_util import api_boundary, filter_raised, register_boundary
from ...tree_util import default_registry as _registry, tree_flatten, tree_unflatten
from ...tree_util import recursion_room as _room
from ...xla import client as _client, relayout
from ...xla.array import ARRAY_TYPES, Array, _CNamed, buffers, is_plain
from ...xla.dispatch import check_jitted_values
from ...xla.placement import all_placed, found_for, placement_of, signature
from ...xla.lowering import NeedsMesh
from ...xla.scalars import host_placement, is_host_array, scalar_kinds, scalar_signature
from ..api_util import (check_callable, flatten_fun, results_outside, fun_name, merge_static,
                        update_wrapper)
from .args import (SCALAR_TYPES, Arguments, arguments_placed, check_no_kwargs, constant_handlers,
                   set_jit_shardings, leaf_aval, not_a_jax_type, python_inputs, static_key, Token,
                   token_carriers)
from .pinned import (arguments_placement, committed_at, committed_given, pinned_constraint_error,
                     program_placement)
from .cache import (LAST_HIT, NO_HITS, check_traceable, clear_jit, own_trace, fun_state,
                    c_last_hit, jit_cache_hits, jit_cache_size, jit_deepcopy, jit_getstate,
                    jit_setstate, last_hit_for, remember)
from .primitive import ON_ONE_DEVICE, any_sharded, over_mesh, raised_trace_logged, told
from . import args as jit_args, high as jit_high, refs as jit_refs
from .equation import bind_equation
from .stages import (lower_jit, program_of, stage_eval_shape, stage_lower, stage_trace,
                     trace_lookup)

_flatten = _registry.flatten           # tree_flatten without the wrapper (the hit path uses it)
if native is not None:   # its Hits flatten containers in C: where that raised, the room back
    native.set_room_hook(_room.after_error, _room.LEND)


@api_boundary           # as JAX's: its argument errors end at the user's line
def jit(fun=None, *, in_shardings=None, out_shardings=None, static_argnums=None,
        static_argnames=None, donate_argnums=None, donate_argnames=None, backend=None,
        device=None, inline=False, keep_unused=False, compiler_options=None):
    """Compile `fun` with XLA; usable as `@jit`, `@jit(static_argnums=...)` and with partial.
    With `in_shardings`/`out_shardings` (or sharded arguments) XLA partitions it over their
    mesh (xla/sharded.py). `compiler_options`: XLA's options by name for each compile of it
    ({"xla_cpu_enable_fast_math": False}; an unknown name raises JaxRuntimeError)."""
    if fun is None:
        return functools.partial(jit, in_shardings=in_shardings, out_shardings=out_shardings,
                                 static_argnums=static_argnums, static_argnames=static_argnames,
                                 donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                                 backend=backend, device=device, inline=inline,
                                 keep_unused=keep_unused, compiler_options=compiler_options)
    check_callable(fun)
    if backend is not None or device is not None:      # JAX's words, at the user's jit line
        warnings.warn('backend and device argument on jit is deprecated. You can use'
                      ' `jax.device_put(..., jax.local_devices(backend="cpu")[0])` on the'
                      ' inputs to the jitted function to get the same behavior.',
                      DeprecationWarning, stacklevel=3)
    return Jitted(fun, static_argnums, static_argnames, donate_argnums, donate_argnames,
                  backend, device, inline, keep_unused, in_shardings=in_shardings,
                  out_shardings=out_shardings, compiler_options=compiler_options)


class PjitFunction(native.JitFunction if native else object, metaclass=_CNamed):
    """What `jit` returns: call it, `.lower`, `.trace`, `.eval_shape`. Its base, where built, is
    core/_fastpath.c's JitFunction: tries `_last`, else `_python_call`; its comment says why."""

    # stages.looked_up's LRU of the signatures it found a trace for: a class default, as
    # jit_getstate leaves it out of copies (each logs its own first lookup; clear_jit empties it)
    _looked_up = None
    def __init__(self, fun, static_argnums, static_argnames, donate_argnums, donate_argnames,
                 backend, device, inline, keep_unused, in_shardings=None, out_shardings=None,
                 compiler_options=None):
        update_wrapper(self, fun)
        # None means unspecified, as in JAX, also per leaf (flax.nnx.jit's): a plain jit. One
        # given shardings has caches of its own (its fast path never sees plain entries);
        # SingleDeviceShardings on one device pin it there, as device= does (pinned.py)
        set_jit_shardings(self, in_shardings, out_shardings, device, backend)   # (and layouts)
        self._fun = fun
        self._name = self.__name__ = fun_name(fun)  # JAX's: an object's "<unnamed function>"
        state = fun_state(fun)
        self._signature = state.signature
        arguments = Arguments(self._name, self._signature, static_argnums, static_argnames,
                              donate_argnums, donate_argnames, fun)
        self._static_argnums, self._static_argnames, self._donate_argnums, self._donate_argnames = (
            arguments.static_argnums, arguments.static_argnames, arguments.donate_argnums,
            arguments.donate_argnames)
        # the static positions in order: the fast paths' keys' (args.static_key, in C too)
        self._static_at = tuple(sorted(i for i in self._static_argnums if i >= 0))
        self._split, self._leaf_names = arguments.split, arguments.leaf_names
        self._dynamic_names = arguments.dynamic_names
        self._donated_leaves = arguments.donated_leaves
        self._device = device or self._pinned or (_client.get_backend(backend).devices[0]
                                                  if backend is not None else None)
        self._backend, self._inline, self._keep_unused = backend, inline, keep_unused
        # XLA's options for every compile (merged under Lowered.compile's own, as in JAX)
        self._compiler_options = dict(compiler_options) if compiler_options else None
        options = (self._static_argnums, self._static_argnames, self._donate_argnums,  # (JAX's
                   self._donate_argnames, self._device, backend, self._sharded,  # key: no inline
                   tuple(sorted((self._compiler_options or {}).items())),   # nor keep_unused)
                   repr(self._layouts))      # (its Formats' layouts: lowered into the module)
        # _cache: key -> Entry; _fast: the fast path's key -> Entry (see __call__); _traces: key ->
        # (jaxpr, consts, out_tree, ClosedJaxpr), for the bind path; _history: what each compile
        # was specialised on (views/recompile_explainer.py's reasons); _last: {LAST_HIT, a static
        # key or keyword names: its Recent hits} once the fast path has hit. Shared by fun's jits.
        self._cache, self._fast, self._traces, self._history, self._last = state.caches_for(options)
        self._source = state.source
        self._by_user = made_by_user(2)    # jit() called from the user's code (jit(jnp.sum))
        self._fail_on_recompile = False   # compile_record.fail_on_recompile: a new signature raises

    __getstate__, __setstate__, __deepcopy__ = jit_getstate, jit_setstate, jit_deepcopy

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    @property
    def __signature__(self):
        # the function's own, as JAX's report it (else __get__ makes inspect see a builtin method)
        return inspect.signature(self._fun)

    def __repr__(self):   # JAX's words (its C++ PjitFunction); libraries read them (Chex)
        try:              # (the bare name where the function's repr fails, or it was deleted)
            return f"<PjitFunction of {self.__wrapped__!r}>"
        except Exception:
            return "<PjitFunction>"

    @property
    def function_key(self) -> str:
        """The function_key of this function's compile events ("f@file.py:3#1402...")."""
        return compile_record.function_key(self._name, self._source_text(), self)

    def _source_text(self) -> str | None:
        return f"{self._source.file}:{self._source.line}" if self._source else None

    def _flat_fun(self, treedef, statics, out_trees, names=None):
        """fun over flat leaves: rebuild args, merge statics back, flatten the output."""
        static_by_pos = {pos: value for _, value, pos in statics if pos is not None}
        static_kw = {name: value for name, value, pos in statics if pos is None}
        flat, out_tree = flatten_fun(lambda dyn_args, dyn_kwargs: self._fun(
                *merge_static(static_by_pos, dyn_args, len(dyn_args) + len(static_by_pos)),
                **dyn_kwargs, **static_kw), treedef)

        def checked(*leaves):
            out_leaves = [symbolic.symbolic_as_value(leaf) for leaf in flat(*leaves)]
            for i, leaf in enumerate(out_leaves):
                if is_ref(leaf):
                    raise jit_refs.returned_ref_error(jit_refs.where(self), leaf, names)
                if not isinstance(leaf, (Tracer, *ARRAY_TYPES, np.ndarray, np.generic,
                                         *SCALAR_TYPES, *constant_handlers, Token)):
                    raise not_a_jax_type(jit_refs.where(self), leaf, i, out_tree())
            out_leaves, tree = results_outside(out_leaves, out_tree())  # (float0s, tokens)
            out_trees.append(tree)
            return out_leaves
        return checked

    def _python_call(self, *args, **kwargs):
        # Three ways in, cheapest first. (1) The newest hit (`_last[LAST_HIT]`): positional Arrays
        # of the very types (and placement) it last saw, under an unchanged config, compared without
        # building a key. (2) The fast path's dict: eager, every dynamic argument an Array on its
        # own device, keyword arguments all static. (3) The general path, for anything else or a
        # miss, which fills `_fast` for next time. (Where core/native.py's compiled path is on,
        # __call__ has tried (1)'s every Recent hit in C, and those of its statics or keywords.)
        try:
            last = self._last.get(LAST_HIT, NO_HITS).newest
            if last is not None and not kwargs:
                try:
                    if len(args) == 1:                 # f(x): no comprehensions (each a frame)
                        bufs, avals = [args[0]._buf], [args[0].aval]
                    else:
                        bufs, avals = [a._buf for a in args], [a.aval for a in args]
                    same = avals == last.avals and bufs[0]._sharding is last.where and (
                        len(bufs) == 1 or not is_plain(args[0]) or all_placed(bufs, last.where))
                except (AttributeError, IndexError):   # a non-Array argument, or none
                    same = False
                entry = last.entry        # (look_at: a call the notebook looks at, _call's)
                if same and entry.hits < entry.look_at and last.generation is \
                        config._generation and _ctx.trace is eval_trace and \
                        not (relayout.watching and relayout.arg_layouts(args)):
                    entry.hits += 1                  # (written out here: the hottest path of all)
                    try:
                        return last.unflatten(entry.exe.call_buffers(entry.const_bufs + bufs))
                    except ValueError:
                        if not (self._sharded or any_sharded(args)):   # laid out otherwise
                            raise
                        return self._call(args, kwargs)
            if _ctx.trace is eval_trace and not config.jax_disable_jit and \
                    config.jax_default_device is None and not config._checked_calls:
                try:
                    static = static_key(args, kwargs, self._static_at) if kwargs or \
                        self._static_at else ()
                    dyn = tuple([a for i, a in enumerate(args) if i not in self._static_argnums]) \
                        if self._static_at else args
                    try:
                        leaves, treedef = _flatten(dyn)
                    except BaseException:    # the room it kept, given back (recursion_room)
                        _room.LEVELS.value += _room.LEND   # lent first: no call has room before
                        _room.settle()
                        raise
                    try:
                        (avals, where), bufs = signature(leaves), None
                    except AttributeError:  # Python scalars or NumPy data among the Arrays?
                        avals, where, bufs = scalar_signature(leaves)
                    key = (treedef, avals, where, config._trace_state, static) + (
                        relayout.layouts_key(leaves) if relayout.watching else ())
                    entry = found_for(self._fast, key, where)
                except Exception:      # (a leaf of another type, an odd value: _call says why)
                    entry = None
                if entry is not None and entry.hits < entry.look_at:
                    entry.hits += 1
                    # (the keyword arguments of a call found here are all static: see _call)
                    hit = last_hit_for(entry, avals, where, bufs and scalar_kinds(leaves), treedef,
                                       len(dyn))
                    if hit is not False:             # a call with statics: its own, by their key
                        remember(self._last, static or LAST_HIT, hit)
                    try:
                        return entry.out_tree.unflatten(entry.exe.call_buffers(
                            entry.const_bufs + (buffers(leaves) if bufs is None else bufs)))
                    except ValueError:
                        if not (self._sharded or any_sharded(leaves)):   # laid out otherwise
                            raise
            return self._call(args, kwargs)
        except Exception as e:     # a traceback boundary, as JAX's jit call, with no frame of
            filter_raised(e)       # its own: nothing to pay where no error is raised
            raise

    register_boundary(_python_call.__code__, c_call=True)
    if native is None:                   # (else the C base's call, which falls back to it)
        __call__ = _python_call

    def _call(self, args, kwargs, counted=False):
        started = time.perf_counter()
        if config.jax_disable_jit:
            return self._fun(*args, **kwargs)
        dyn_args, dyn_kwargs, statics = self._split(args, kwargs)
        check_no_kwargs(self._in_shardings, dyn_kwargs)
        leaves, treedef = token_carriers(*tree_flatten((dyn_args, dyn_kwargs)))
        if _ctx.trace is eval_trace and has_high(leaves, self) or has_high_tracer(leaves):
            return call_high(self, leaves, treedef, statics, dyn_args, dyn_kwargs)  # (high.py)
        names = functools.partial(self._leaf_names, dyn_args, dyn_kwargs)   # (read on errors)
        avals = tuple([leaf.aval if type(leaf) is Array else
                       leaf_aval(leaf, lambda i=i: names()[i], self._fun)
                       for i, leaf in enumerate(leaves)])
        if _ctx.trace is not eval_trace:     # (high.py: a jit closing over hijax values)
            return jit_high.bind_inside(self, leaves, treedef, statics, avals, dyn_args, dyn_kwargs)
        counted or test_event("jit_cpp_cache_miss")   # past the fast paths: JAX's event, once
        refs = jit_refs.ref_positions(leaves)
        arrays = jit_refs.without_refs(leaves, refs)
        out = over_mesh(self, args, leaves, treedef, statics, avals, dyn_args, dyn_kwargs, refs)
        if out is not ON_ONE_DEVICE:        # split over a mesh (or under set_mesh): its path
            return out
        move = self._device is not None or config.jax_default_device is not None
        # JAX's rule: committed Arrays decide, uncommitted ones move to them (xla/placement.py)
        device, committed, settled = (self._device, True, False) if self._device is not None \
            else arguments_placement(self, (treedef, avals, statics, config._trace_state), arrays)
        key = (treedef, avals, statics, config._trace_state, device,
               committed_at(self, leaves, dyn_args)) + (
            relayout.layouts_key(leaves) if relayout.watching else ())
        entry = self._cache.get(key)
        if entry is None:
            # the guard for every function is for the user's jits, not jnp's own (as in JAX)
            guarded = self._fail_on_recompile or compile_record.failing_on_any_recompile() and \
                compile_record.origin_of(self._source_text(), self._by_user) == compile_record.USER
            if guarded and self._history and self._cache:    # it compiled (not only traced)
                compile_record.refuse(self._miss(treedef, statics, avals, dyn_args, dyn_kwargs,
                                              device))
            try:
                entry = self._compile(key, leaves, treedef, statics, avals, device, dyn_args,
                                      dyn_kwargs)
            except NeedsMesh as e:          # a sharding constraint inside: partition from now on
                pinned_constraint_error(self._device, e.mesh, self._name)   # (device=: raises)
                self._sharded, self._constraint_mesh = True, e.mesh
                return self._call(args, kwargs, counted=True)
            except CapturedHigh as e:       # closes over mutable hijax values: threaded from now on
                return call_high(self, leaves, treedef, statics, dyn_args, dyn_kwargs, e.traced)
        else:
            entry.hits += 1
        device, committed = program_placement(self, entry.jaxpr, device, committed, leaves,
                                              dyn_args, dyn_kwargs, settled)  # (pinned: theirs)
        entry = entry.committed(committed)
        watch = entry.watch is not None and entry.watch.on  # (this call looked at)
        # the fast paths take calls whose Arrays all share this placement (xla/placement.py);
        # a watched program's leave them for the calls its schedule looks at (`look_at`)
        where = placement_of(device, committed)
        if not (entry.refs or move or config._checked_calls) and \
                all(type(leaf) in ARRAY_TYPES and leaf._buf._sharding is where or
                    type(leaf) in SCALAR_TYPES or is_host_array(leaf) for leaf in leaves) and \
                (leaves or device == _client.default_device()):
            if dyn_kwargs or entry.donated:     # f(x=a), or donating: a last hit for C alone
                c_last_hit(self, entry, statics, avals, where, args, kwargs, leaves)
            else:                               # remember it under the fast path's key
                self._fast[(_flatten(dyn_args)[1], avals, host_placement(leaves),
                            config._trace_state, static_key(args, kwargs, self._static_at))
                           + key[6:]] = entry       # (relayout.arg_layouts, where watching)
        kept = entry.watch.before_donating(leaves) if watch and entry.donated else leaves
        consts = jit_refs.call_consts(entry, leaves)    # a Ref's own buffer in its place
        ran = time.perf_counter()
        outs = entry.exe.call_arrays(arguments_placed(device, (*consts, *arrays), entry.exe.kept,
                                                      leaves, names))
        ran = time.perf_counter() - ran
        outs = jit_refs.write_back_donated(entry.jaxpr, outs, leaves)
        if config._checked_calls:      # NaN/inf checks, the key-reuse checker (dispatch.py)
            check_jitted_values(self._name, self._fun, outs, args, kwargs, entry.jaxpr, arrays)
        if entry.watch is not None:     # (cache.Entry.watch: its program's run not counted)
            watches.looked(self, entry, watch, kept, outs, started + ran)
        return tree_unflatten(entry.out_tree, outs)

    def _trace(self, treedef, statics, avals, dyn_args, dyn_kwargs, high=False):
        """(ClosedJaxpr, out_tree, trace seconds) of fun at these types (`high`: unlowered)."""
        check_traceable(self)
        out_trees, leaves = [], token_carriers(*tree_flatten((dyn_args, dyn_kwargs)))[0]
        jit_args.check_jax_types(leaves, avals)
        names = functools.partial(self._leaf_names, dyn_args, dyn_kwargs)
        info = DebugInfo(self._name, self._source, "jit", names(), python_inputs(leaves),
                         shown_as="eval_shape" if high else None)   # (a jit inside: its notes)
        start = time.perf_counter()
        closed = jit_refs.traced(self._flat_fun(treedef, statics, out_trees, names), leaves,
                                 avals, info, jit_refs.where(self), names)
        closed = jit_args.layouts_checked(self, dyn_args, avals, names, out_trees[0],
                                          closed if high else remember_high(closed, out_trees))
        return closed, out_trees[0], time.perf_counter() - start

    def _compile(self, key, leaves, treedef, statics, avals, device, dyn_args, dyn_kwargs):
        traced = trace_lookup(self, key[:4]) or own_trace(self._cache, key[:4])  # its, a sibling's
        with raised_trace_logged(self, key, device, treedef, statics, avals, dyn_args, dyn_kwargs):
            closed, out_tree, trace_s = (traced[3], traced[2], 0.0) if traced is not None else \
                self._trace(treedef, statics, avals, dyn_args, dyn_kwargs)
        jit_refs.check_one_device(closed, leaves)      # (a Ref over a mesh: partitioned)
        jit_args.check_arg_layouts(self, closed, treedef, out_tree, leaves)  # (Formats' layouts)
        if isinstance(self._device, str):   # device='cpu': JAX reads its backend first,
            raise AttributeError("'str' object has no attribute 'client'")   # device.client
        refs = jit_refs.ref_positions(leaves)
        names = jit_refs.without_refs(self._leaf_names(dyn_args, dyn_kwargs), refs)
        device = program_placement(self, closed, device, False, leaves, dyn_args, dyn_kwargs)[0]
        key = key[:4] + (device,) + key[5:]  # (kept where it runs: the used arguments' device)
        module = lower_jit(self, closed, treedef, out_tree, device, jit_refs.without_refs(
            self._donated_leaves(dyn_args, dyn_kwargs), refs), arg_names=names,
            one_device=committed_given(self, closed, key[5], refs),
            arg_layouts=key[6] if len(key) > 6 else None)
        entry, phases = program_of(self, closed, out_tree, module, trace_s, names)
        self._cache[key] = entry
        if phases is not None:          # (None: a `.compile()` of this program, reused)
            self._record(treedef, statics, avals, dyn_args, dyn_kwargs, phases, device,
                         closed, *told(traced), host_reads=jit_refs.host_reads(closed))
        return entry

    def _miss(self, treedef, statics, avals, dyn_args, dyn_kwargs, device, consts=None,
              host_reads=None, jaxpr=None):
        """This call's cache miss as the compile record takes it (its explainer says why)."""
        leaves = tree_flatten((dyn_args, dyn_kwargs))[0]
        return compile_record.Miss(self, self._leaf_names(dyn_args, dyn_kwargs), avals, treedef,
                                   statics, device, consts, self._history,
                                   committed_at(self, leaves, dyn_args), host_reads,
                                   self._dynamic_names(dyn_args), jaxpr, python_inputs(leaves))

    def _record(self, treedef, statics, avals, dyn_args, dyn_kwargs, phases, device, closed, *new,
                host_reads=None):
        consts = [c for c in closed.consts if not is_ref(c)]   # (a Ref's value is each call's)
        miss = self._miss(treedef, statics, avals, dyn_args, dyn_kwargs, device, consts, host_reads,
                          closed)
        compile_record.compiled(miss, phases, _client.platform_of(device), *new)   # one event

    trace, lower, eval_shape = stage_trace, stage_lower, stage_eval_shape   # (stages.py)
    _bind = bind_equation         # inside another transformation: one jit equation (equation.py)

    cache_hits, _cache_size = jit_cache_hits, jit_cache_size    # (cache.py)

    def clear_cache(self) -> None:
        clear_jit(self)                 # (and its executables from the by-text cache)
        jit_high.forget(self)           # its hijax programs and last call, as JAX's clear_cache


# jaxlib's C type, the name JAX's messages print (its __name__ PjitFunction: Chex tells it)
type.__dict__["__name__"].__set__(PjitFunction, "jaxlib._jax.PjitFunction")
Jitted = PjitFunction
