"""jit: trace once per input signature, compile with XLA, cache, and explain every miss.

    >>> @jit
    ... def f(x, n):
    ...     return x * n
    >>> f(jnp.ones(3), 2.0)
    Array([2., 2., 2.], dtype=float32)

Cache key: the function, static argument values, the pytree structure of the
dynamic arguments, each leaf's (shape, dtype, weak_type), the device, and the
x64 flag. On a miss, a compile event records why (against the closest earlier
signature) and how long tracing, lowering and compiling took.

Under another transformation (grad, vmap, an enclosing jit) a jitted call is
one `jit` equation holding the traced jaxpr, which that transformation handles
like any primitive.
"""
from __future__ import annotations

import collections
import dataclasses
import functools
import inspect
import operator
import sys
import time
import weakref

import numpy as np

from .. import compile_log
from ..config import config
from ..core import dtypes, vma, sharding_types
from ..core.avals import ShapedArray, ShapeDtypeStruct, shaped_abstractify
from ..core.axis_env import visible_axes
from ..core.interpret import eval_jaxpr
from ..core.interpreter_primitives import sharding_constraint_p
from ..core.ir import call_primitives, param_printers
from ..core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules, impl_rules,
                              jvp_rules, lowering_rules, partial_eval_rules, sharding_typing_rules,
                              staging_rules, transpose_rules)
from ..core.errors import RecompileError
from ..core.source_info import function_source_info, user_source_info
from ..core.trace import Tracer, _ctx, eval_trace, set_current_trace
from .ad_util import Zero, instantiate, is_undefined
from ..tree_util import keystr, tree_flatten, tree_flatten_with_path, tree_unflatten
from ..xla import client as _client
from ..xla import pipeline
from ..xla.array import Array, buffers, device_put, signature
from ..xla.dispatch import DEOPTIMIZED_RERUN_LINE, invalid_value, to_device
from ..xla.lowering import NeedsMesh
from .ad import jvp_jaxpr, transpose_jaxpr
from .aot import args_info, check_call_signature, compiler_ir, lowered_text
from .api_util import flatten_fun, fun_name, merge_static
from .batching import batch_jaxpr
from ..core.partial_eval import partial_eval_jaxpr
from ..core.staging import DebugInfo, JaxprTrace, convert_constvars_to_invars, trace_to_jaxpr
from ..xla.pytree import default_registry as _registry

_flatten = _registry.flatten           # tree_flatten without the wrapper (the hit path uses it)

# ------------------------------------------------------------------ the jit primitive
jit_p = Primitive("jit", multiple_results=True)


def _jit_abstract_eval(*avals, jaxpr, name, donated_invars, inline, keep_unused):
    return jaxpr.out_avals


def _jit_lowering(ctx, *args, jaxpr, name, donated_invars, inline, keep_unused):
    return ctx.call_jaxpr(jaxpr, args, name)


def _jit_impl(*args, jaxpr, name, donated_invars, inline, keep_unused):
    """A jit equation run eagerly (e.g. by a transformation that re-binds it): compile once."""
    if _any_sharded(args) or jaxpr in _partitioned:          # partitioned over a mesh
        # loads with the first mesh or sharded Array: `import jxkernel` needs neither
        from ..xla.sharded import run_jaxpr
        return run_jaxpr(jaxpr, name, args, _partitioned.get(jaxpr))
    try:
        return _jit_impl_one_device(args, jaxpr, name, donated_invars)
    except NeedsMesh as e:                  # a sharding constraint inside
        _partitioned[jaxpr] = e.mesh
        return _jit_impl(*args, jaxpr=jaxpr, name=name, donated_invars=donated_invars,
                         inline=inline, keep_unused=keep_unused)


_partitioned: dict = {}     # jaxpr -> the mesh its sharding constraints need


def _jit_impl_one_device(args, jaxpr, name, donated_invars):
    device = next((a.device for a in args if type(a) is Array), None) or _client.default_device()
    leaves = [a if type(a) is Array else to_device(a, device) for a in args]
    key = (jaxpr, tuple(a.aval for a in leaves), device)
    exe = _impl_cache.get(key)
    if exe is None:
        donated = (False,) * len(jaxpr.consts) + tuple(donated_invars)
        exe, phases = pipeline.compile_jaxpr(jaxpr.jaxpr, [device], name=name, donated=donated)
        _impl_cache[key] = exe
        # a jit equation run by a transformation (vmap of jit, grad of jit, ...): log it too
        compile_log.record(compile_log.CompileEvent(
            name, None, tuple((f"args[{i}]", a.aval.str_short()) for i, a in enumerate(leaves)),
            "a transformed jitted function (its jaxpr was rewritten by vmap/grad/...)",
            phases, _client.platform_of(device)))
    return exe.call_arrays([to_device(c, device) for c in jaxpr.consts] + leaves)


_impl_cache: dict = {}      # (jaxpr, avals, device) -> Executable


def _jit_staging(trace: JaxprTrace, args, params):
    """Staged inside another trace: one `jit` equation, or its body inlined if inline=True."""
    if params["inline"]:
        jaxpr = params["jaxpr"]
        with set_current_trace(trace):
            return eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args)
    atoms = [trace.to_atom(x) for x in args]
    return trace.add_eqn(atoms, jit_p, params, params["jaxpr"].out_avals)


def _bind_jit(jaxpr, args, donated_invars, **params):
    """Bind jit_p on a (transformed) jaxpr, its consts first as explicit operands: a jit
    equation's jaxpr carries no consts (they may be tracers, which params must not hold)."""
    if jaxpr.consts:
        jaxpr, consts = convert_constvars_to_invars(jaxpr)
        outs = jit_p.bind(*consts, *args, jaxpr=jaxpr,
                          donated_invars=(False,) * len(consts) + tuple(donated_invars), **params)
        return outs
    return jit_p.bind(*args, jaxpr=jaxpr, donated_invars=tuple(donated_invars), **params)


def _jit_batching(axis_data, vals, dims, *, jaxpr, name, donated_invars, inline, keep_unused):
    """vmap of a jit equation: one jit equation over the batched jaxpr (batched even when no
    operand is, since the body may use the axis, e.g. through axis_index)."""
    batched, out_dims = batch_jaxpr(jaxpr, axis_data, dims)
    outs = _bind_jit(batched, vals, donated_invars, name=name, inline=inline,
                     keep_unused=keep_unused)
    return outs, out_dims


def _jit_jvp(primals, tangents, *, jaxpr, name, donated_invars, inline, keep_unused):
    """jvp of a jit equation: one jit equation computing primal and tangent outputs."""
    nonzeros = [type(t) is not Zero for t in tangents]
    new_jaxpr, out_nonzeros = jvp_jaxpr(jaxpr, nonzeros)
    nz_tangents = [t for t in tangents if type(t) is not Zero]
    outs = _bind_jit(new_jaxpr, list(primals) + nz_tangents,
                     tuple(donated_invars) + (False,) * len(nz_tangents), name=name,
                     inline=inline, keep_unused=keep_unused)
    n = len(jaxpr.out_avals)
    rest = iter(outs[n:])
    return outs[:n], [next(rest) if nz else Zero(a) for nz, a in zip(out_nonzeros, jaxpr.out_avals)]


def _jit_transpose(cts, *args, jaxpr, name, donated_invars, inline, keep_unused):
    """Transpose of a (linear) jit equation: a jit equation running the transposed jaxpr."""
    linear = [is_undefined(a) for a in args]
    nonlinear = [a for a in args if not is_undefined(a)]
    cts = [instantiate(ct) for ct in cts]
    transposed = transpose_jaxpr(jaxpr, linear)
    outs = iter(_bind_jit(transposed, nonlinear + cts, (False,) * (len(nonlinear) + len(cts)),
                          name=name, inline=inline, keep_unused=keep_unused))
    return [next(outs) if lin else None for lin in linear]


_consts_as_invars_cache: dict = {}


def _consts_as_invars(closed: ClosedJaxpr) -> tuple:
    """convert_constvars_to_invars, the same ClosedJaxpr for the same `closed` (split jaxprs are
    cached): what later transforms it (transposition, which traces custom_vjp bwd rules) is
    cached by the jaxpr, so a second grad of a jitted function traces nothing again."""
    found = _consts_as_invars_cache.get(closed)
    if found is None:
        found = convert_constvars_to_invars(closed)
        if not any(isinstance(c, Tracer) for c in found[1]):
            _consts_as_invars_cache[closed] = found
    return found


def _jit_partial_eval(trace, args, params):
    """Linearizing through a jit: its known part runs now as one jit call; the unknown part
    (taking the residuals) is staged as another jit equation."""
    unknowns = [trace.is_unknown(x) for x in args]
    known_jaxpr, unknown_jaxpr, out_unknowns, n_res = partial_eval_jaxpr(params["jaxpr"], unknowns)
    known_args = [x for x, u in zip(args, unknowns) if not u]
    rest = {k: v for k, v in params.items() if k not in ("jaxpr", "donated_invars")}
    with set_current_trace(trace.parent):
        known_outs = _bind_jit(known_jaxpr, known_args, (False,) * len(known_args), **rest)
    n_known = len(known_outs) - n_res
    residuals = list(known_outs[n_known:])
    unknown_jaxpr, unknown_consts = _consts_as_invars(unknown_jaxpr)
    atoms = [trace.to_atom(x) for x in unknown_consts + residuals] + \
        [trace.to_atom(x) for x, u in zip(args, unknowns) if u]
    unknown_outs = iter(trace.add_eqn(atoms, jit_p, dict(
        params, jaxpr=unknown_jaxpr, donated_invars=(False,) * len(atoms)),
        unknown_jaxpr.out_avals))
    known_iter = iter(known_outs[:n_known])
    return [next(unknown_outs) if u else next(known_iter) for u in out_unknowns]


abstract_eval_rules[jit_p] = _jit_abstract_eval
lowering_rules[jit_p] = _jit_lowering
impl_rules[jit_p] = _jit_impl
staging_rules[jit_p] = _jit_staging
jvp_rules[jit_p] = _jit_jvp
transpose_rules[jit_p] = _jit_transpose
partial_eval_rules[jit_p] = _jit_partial_eval
axis_batching_rules[jit_p] = _jit_batching
sharding_typing_rules[jit_p] = sharding_types.call_typing
param_printers[jit_p] = lambda p: [("name", p["name"]), ("jaxpr", p["jaxpr"])]
call_primitives.add(jit_p)


# ------------------------------------------------------------------ jit
def _config_of(device) -> tuple:
    """The configuration a compiled program is specialised on, as the cache key has it."""
    return (("jax_enable_x64", bool(config.jax_enable_x64)),
            ("device", f"{_client.platform_of(device)}:{device.id}"))


_LINEAGES: collections.OrderedDict = collections.OrderedDict()   # code -> deque of (jit id, sig)
_MAX_LINEAGES, _PER_LINEAGE = 1024, 16


def _lineage(fun) -> collections.deque:
    """The recent signatures compiled for `fun`'s code by any jit object (a lambda made anew
    in a loop shares its code object), to explain a jit called anew each time."""
    key = getattr(fun, "__code__", None)
    if key is None:             # no code to recognise it by (an id could be reused): no lineage
        return collections.deque(maxlen=_PER_LINEAGE)
    found = _LINEAGES.get(key)
    if found is None:
        found = _LINEAGES[key] = collections.deque(maxlen=_PER_LINEAGE)
        if len(_LINEAGES) > _MAX_LINEAGES:
            _LINEAGES.popitem(last=False)
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


class _FunState:
    """What every jit of one function shares: its signature and source line, read once, and
    per set of jit options the caches (compiled, fast path, traces, history), so that
    `jit(f)(x)` written in a loop hits what an earlier `jit(f)` compiled, as in JAX."""
    __slots__ = ("signature", "source", "caches")

    def __init__(self, fun):
        try:
            self.signature = inspect.signature(fun)
        except (TypeError, ValueError):
            self.signature = None
        self.source = function_source_info(fun)
        self.caches: dict = {}        # jit options -> (cache, fast, traces, history, last)

    def caches_for(self, options) -> tuple:
        return self.caches.setdefault(options, ({}, {}, {}, [], {}))


_FUN_STATES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # fun -> _FunState


def _fun_state(fun) -> _FunState:
    """The shared state of `fun`'s jits; a function that cannot be held weakly or hashed gets
    a state of its own (its jits share nothing).

    >>> f = lambda x: x
    >>> _fun_state(f) is _fun_state(f)
    True
    """
    try:
        found = _FUN_STATES.get(fun)
        if found is None:
            found = _FUN_STATES[fun] = _FunState(fun)
        return found
    except TypeError:           # not weakly referenceable, or unhashable
        return _FunState(fun)


def jit(fun=None, *, in_shardings=None, out_shardings=None, static_argnums=None,
        static_argnames=None, donate_argnums=None, donate_argnames=None, backend=None,
        device=None, inline=False, keep_unused=False, compiler_options=None):
    """Compile `fun` with XLA; usable as `@jit`, `@jit(static_argnums=...)` and with partial.
    With `in_shardings`/`out_shardings` (or sharded arguments) XLA partitions it over their
    mesh (xla/sharded.py). `compiler_options`: XLA's options by name for each compile of it
    ({"xla_cpu_enable_fast_math": False}; an unknown name raises JaxRuntimeError)."""
    if fun is None:
        return functools.partial(jit, in_shardings=in_shardings, out_shardings=out_shardings,
                                 static_argnums=static_argnums,
                                 static_argnames=static_argnames, donate_argnums=donate_argnums,
                                 donate_argnames=donate_argnames, backend=backend, device=device,
                                 inline=inline, keep_unused=keep_unused,
                                 compiler_options=compiler_options)
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun!r}")
    return Jitted(fun, static_argnums, static_argnames, donate_argnums, donate_argnames,
                  backend, device, inline, keep_unused, in_shardings=in_shardings,
                  out_shardings=out_shardings, compiler_options=compiler_options)


def _as_tuple(x) -> tuple:
    if x is None:
        return ()
    return (x,) if isinstance(x, (int, str)) else tuple(x)


def _check_argnums(signature, argnums: tuple, what: str) -> None:
    """As JAX: an argnum must name a positional parameter (any does if fun takes *args).

    >>> _check_argnums(inspect.signature(lambda x: x), (1,), "static_argnums")
    Traceback (most recent call last):
    ValueError: Jitted function has static_argnums=(1,), but only accepts 1 positional arguments.
    """
    if signature is None or not argnums:
        return
    params = signature.parameters.values()
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return
    n = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
    if -min(argnums) > n or max(argnums) >= n:
        raise ValueError(f"Jitted function has {what}={argnums}, but only accepts {n} "
                         f"positional arguments.")


def _check_argnames(signature, argnames: tuple, what: str) -> None:
    """As JAX: an argname must name a parameter passable by keyword (any does with **kwargs)."""
    if signature is None or not argnames:
        return
    params = signature.parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    invalid = {n for n in argnames if n not in params or
               params[n].kind not in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                      inspect.Parameter.KEYWORD_ONLY)}
    if invalid:
        raise ValueError(f"Jitted function has invalid argnames {invalid} in {what}. Function "
                         f"does not take these args.")


class _LastHit:
    """A jit's last fast-path hit: the argument types and placement (the first buffer's
    sharding) it had, the config it ran under (config._generation: any change since, and
    the hit is not reused), and the entry it ran."""
    __slots__ = ("avals", "where", "generation", "entry", "unflatten")

    def __init__(self, avals, where, entry):
        self.avals, self.where, self.entry = list(avals), where, entry
        self.generation = config._generation
        tree = entry.out_tree          # one array out (most functions): no unflatten call
        self.unflatten = _first if tree.num_nodes == 1 and tree.num_leaves == 1 else \
            tree.unflatten


_first = operator.itemgetter(0)
_LAST_HIT = "last hit"      # the key of the _LastHit in a jit's `_last` dict
# the end of a `_traces` key for a trace made where no named axis is bound and no check_vma
# body types the values: such a trace also serves a top-level call, and the other way round
_NOWHERE = ((), None)


def _each_a_leaf(treedef, n) -> bool:
    """Whether the n arguments flattened to `treedef` are each a leaf (so the last-hit check,
    which sees only the arguments, sees the whole input structure): a tuple node and n leaf
    nodes (a container, None included, adds a node beyond its leaves)."""
    return treedef.num_nodes == n + 1 == treedef.num_leaves + 1


class _Entry:
    """A compiled signature: the executable, consts on device (Arrays), the output
    structure, how often the cache has hit it, and its _LastHit (made on its first fast-path
    hit, anew if the placement object or the config changed; False if its calls are not
    positional Arrays alone)."""
    __slots__ = ("exe", "consts", "out_tree", "jaxpr", "text", "donated", "hits", "last_hit")

    def __init__(self, exe, consts, out_tree, jaxpr, text, donated):
        self.exe, self.consts, self.out_tree = exe, consts, out_tree
        self.jaxpr, self.text, self.donated = jaxpr, text, donated
        self.hits = 0
        self.last_hit = None


_SCALAR_TYPES = (bool, int, float, complex)


def _any_sharded(leaves) -> bool:
    """Whether an argument is split over a mesh (only possible once xla/sharding.py is loaded,
    as every public way to a Mesh loads it: jax.sharding, jax.make_mesh; so the check costs
    one lookup in processes that never shard)."""
    if "jxkernel.xla.sharding" not in sys.modules:
        return False
    # loads with the first mesh or sharded Array: `import jxkernel` needs neither
    from ..xla.sharded import any_sharded
    return any_sharded(leaves)


def _leaf_aval(x, index_name) -> ShapedArray:
    aval = getattr(x, "aval", None)
    if isinstance(aval, ShapedArray):
        return aval
    if type(x) in _SCALAR_TYPES:
        return ShapedArray((), dtypes.python_scalar_dtype(x), type(x) is not bool)
    if isinstance(x, (np.ndarray, np.generic)):
        return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype))
    if isinstance(x, ShapeDtypeStruct):
        return x.aval
    raise TypeError(f"Argument {index_name()} of type {type(x)} is not a valid JAX type. "
                    f"Pass arrays, NumPy arrays or Python scalars (or pytrees of them); mark "
                    f"other arguments static with static_argnums/static_argnames.")


def _abstract_leaf_aval(x, index_name) -> ShapedArray:
    """_leaf_aval for tracing without data (trace, lower, eval_shape, make_jaxpr): avals and
    duck-typed arrays (anything with `shape` and `dtype`) are taken too, as JAX takes them."""
    try:
        return shaped_abstractify(x)
    except TypeError:
        raise TypeError(f"Error interpreting argument {index_name()} as an abstract array. The "
                        f"problematic value is of type {type(x)}. Pass arrays, "
                        f"ShapeDtypeStructs or objects with shape and dtype attributes, or "
                        f"mark the argument static with static_argnums/static_argnames."
                        ) from None


def _constrained_trace(jitted, treedef, statics, avals, dyn_args, dyn_kwargs) -> tuple:
    """(ClosedJaxpr, out_tree) of a jit with shardings traced under another transformation:
    its in/out_shardings become sharding constraints on its inputs and outputs, so that
    grad(jit(f, in_shardings=...)) and the like keep them (a jit equation has no shardings)."""
    # deferred, as the imports of jit_sharded below: xla/sharded.py loads with the first
    # NamedSharding
    from .jit_sharded import _flat_shardings
    flat_in = [None] * len(avals) if jitted._in_shardings is None else \
        _flat_shardings(jitted._in_shardings, dyn_args, "in_shardings")
    out_trees: list = []
    inner = jitted._flat_fun(treedef, statics, out_trees)

    def constrain(values, shardings):
        return [x if s is None else sharding_constraint_p.bind(x, sharding=s)
                for x, s in zip(values, shardings)]

    def constrained(*leaves):
        outs = inner(*constrain(leaves, flat_in))
        if jitted._out_shardings is None:
            return outs
        struct = tree_unflatten(out_trees[-1], [0] * len(outs))
        return constrain(outs, _flat_shardings(jitted._out_shardings, struct, "out_shardings"))
    info = DebugInfo(jitted._name, jitted._source, "jit", jitted._leaf_names(dyn_args, dyn_kwargs))
    return trace_to_jaxpr(constrained, list(avals), info), out_trees[0]


def _unless_all_none(shardings):
    """`shardings`, or None where each of its leaves is None (or it is None)."""
    leaves = tree_flatten(shardings, is_leaf=lambda x: x is None)[0]
    return None if all(s is None for s in leaves) else shardings


class Jitted:
    """The function `jit` returns: call it, `.lower(...)`, `.trace(...)`, `.eval_shape(...)`."""

    def __init__(self, fun, static_argnums, static_argnames, donate_argnums, donate_argnames,
                 backend, device, inline, keep_unused, in_shardings=None, out_shardings=None,
                 compiler_options=None):
        functools.update_wrapper(self, fun)
        # None means unspecified, as in JAX, also as every leaf of a tree (flax.nnx.jit passes
        # a None per argument): such a jit is a plain one
        in_shardings, out_shardings = _unless_all_none(in_shardings), \
            _unless_all_none(out_shardings)
        self._in_shardings, self._out_shardings = in_shardings, out_shardings
        # A jit given shardings has caches of its own (its fast path never sees plain entries).
        self._sharded = in_shardings is not None or out_shardings is not None
        self._fun = fun
        self._name = fun_name(fun, type(fun).__name__)     # a partial: its function's
        state = _fun_state(fun)
        self._signature = state.signature
        params = list(self._signature.parameters.values()) if self._signature else []
        positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        self._positional_names = positional
        for what, nums, names in (("static", static_argnums, static_argnames),
                                  ("donate", donate_argnums, donate_argnames)):
            _check_argnums(self._signature, _as_tuple(nums), f"{what}_argnums")
            _check_argnames(self._signature, _as_tuple(names), f"{what}_argnames")
        static_argnums, static_argnames = self._infer(static_argnums, static_argnames,
                                                      positional)
        donate_argnums, donate_argnames = self._infer(donate_argnums, donate_argnames,
                                                      positional)
        self._static_argnums = frozenset(static_argnums)
        self._static_argnames = frozenset(static_argnames)
        self._donate_argnums = frozenset(donate_argnums)
        self._donate_argnames = frozenset(donate_argnames)
        if self._static_argnames & self._donate_argnames:
            raise ValueError(f"static_argnames and donate_argnames cannot intersect. Argument "
                             f"names {set(self._static_argnames & self._donate_argnames)} appear "
                             f"in both static_argnames and donate_argnames")
        if self._static_argnums & self._donate_argnums:
            raise ValueError("An argument cannot be both static and donated: "
                             f"{sorted(self._static_argnums & self._donate_argnums)}")
        self._device = device if device is not None else \
            (_client.get_backend(backend).devices[0] if backend is not None else None)
        self._backend = backend
        self._inline, self._keep_unused = inline, keep_unused
        # XLA's options for every compile (merged under Lowered.compile's own, as in JAX)
        self._compiler_options = dict(compiler_options) if compiler_options else None
        options = (self._static_argnums, self._static_argnames, self._donate_argnums,
                   self._donate_argnames, self._device, backend, inline, keep_unused,
                   self._sharded, tuple(sorted((self._compiler_options or {}).items())))
        # _cache: key -> _Entry; _fast: the fast path's key -> _Entry (see __call__);
        # _traces: key -> (jaxpr, consts, out_tree, ClosedJaxpr), for the bind path; _history:
        # compile_log.Signature per compile, for reasons; _last: {_LAST_HIT: _LastHit} once
        # the fast path has hit (a dict, so that it clears as the others do). All shared by
        # jits of the same fun.
        self._cache, self._fast, self._traces, self._history, self._last = \
            state.caches_for(options)
        self._source = state.source
        self._fail_on_recompile = False   # compile_log.fail_on_recompile: a new signature raises

    @staticmethod
    def _infer(argnums, argnames, positional):
        """JAX accepts static args by position or by name and fills in the other; given
        both, it takes them as they are (Flax's lifted jit passes both, for a function
        whose signature is not the one it jits)."""
        both = argnums is not None and argnames is not None
        argnums, argnames = _as_tuple(argnums), _as_tuple(argnames)
        nums = {int(i) + len(positional) if int(i) < 0 else int(i) for i in argnums}
        names = set(argnames)
        if both:
            return nums, names
        for i in list(nums):
            if i < len(positional):
                names.add(positional[i])
        for n in list(names):
            if n in positional:
                nums.add(positional.index(n))
        return nums, names

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    @property
    def __signature__(self):
        # the function's own, as JAX's jitted functions report it (inspect.signature reads
        # this; without it, __get__ makes inspect take a Jitted for a builtin method)
        return inspect.signature(self._fun)

    def __repr__(self):
        # JAX's words (its C++ PjitFunction); libraries read them (Chex's is_traceable)
        return f"<PjitFunction of {self._fun!r}>"

    @property
    def function_key(self) -> str:
        """The function_key of this function's compile events ("f@file.py:3#1402...")."""
        return compile_log.function_key(self._name, self._source_text(), self)

    def _source_text(self) -> str | None:
        return f"{self._source.file}:{self._source.line}" if self._source else None

    # ------------------------------------------------------------ argument handling
    def _split(self, args, kwargs):
        """(dynamic args, dynamic kwargs, hashable static key, static (name, value) pairs)."""
        statics = []
        if self._static_argnums:
            dyn_args = []
            for i, a in enumerate(args):
                if i in self._static_argnums:
                    statics.append((self._arg_name(i), a, i))
                else:
                    dyn_args.append(a)
            dyn_args = tuple(dyn_args)
        else:
            dyn_args = args
        if kwargs:
            dyn_kwargs = {}
            for k, v in kwargs.items():
                if k in self._static_argnames:
                    statics.append((k, v, None))     # passed by keyword: given back by keyword
                else:
                    dyn_kwargs[k] = v
        else:
            dyn_kwargs = kwargs
        if statics:
            for name, value, _ in statics:
                try:
                    hash(value)
                except TypeError as e:
                    raise ValueError(
                        f"Non-hashable static arguments are not supported. An error occurred "
                        f"while trying to hash an object of type {type(value)}, {value!r}, passed "
                        f"as static argument '{name}' of {self._name}. The error was:\n"
                        f"TypeError: {e}\nUse a hashable value (e.g. a tuple instead of a list), "
                        f"or pass it as a traced argument.") from None
        return dyn_args, dyn_kwargs, tuple(statics)

    def _arg_name(self, i) -> str:
        return self._positional_names[i] if i < len(self._positional_names) else f"args[{i}]"

    def _leaf_names(self, args, kwargs) -> tuple:
        """A readable name per flat input, e.g. "params['w']" (only computed on a miss)."""
        positions = [i for i in range(len(args) + len(self._static_argnums))
                     if i not in self._static_argnums][:len(args)]
        names = []
        for pos, a in zip(positions, args):
            names.extend(self._arg_name(pos) + keystr(p) for p, _ in tree_flatten_with_path(a)[0])
        for k in sorted(kwargs):
            names.extend(k + keystr(p) for p, _ in tree_flatten_with_path(kwargs[k])[0])
        return tuple(names)

    def _donated_leaves(self, args, kwargs) -> tuple:
        if not (self._donate_argnums or self._donate_argnames):
            return ()
        flags = []
        positions = [i for i in range(len(args) + len(self._static_argnums))
                     if i not in self._static_argnums][:len(args)]
        for pos, a in zip(positions, args):
            flags += [pos in self._donate_argnums] * len(tree_flatten(a)[0])
        for k in sorted(kwargs):
            flags += [k in self._donate_argnames] * len(tree_flatten(kwargs[k])[0])
        return tuple(flags)

    def _flat_fun(self, treedef, statics, out_trees):
        """fun over flat leaves: rebuild args, merge statics back, flatten the output."""
        static_by_pos = {pos: value for _, value, pos in statics if pos is not None}
        static_kw = {name: value for name, value, pos in statics if pos is None}
        flat, out_tree = flatten_fun(
            lambda dyn_args, dyn_kwargs: self._fun(
                *merge_static(static_by_pos, dyn_args, len(dyn_args) + len(static_by_pos)),
                **dyn_kwargs, **static_kw), treedef)

        def checked(*leaves):
            out_leaves = flat(*leaves)
            for i, leaf in enumerate(out_leaves):
                if not isinstance(leaf, (Tracer, Array, np.ndarray, np.generic) + _SCALAR_TYPES):
                    raise TypeError(f"{self._name} returned a value of type {type(leaf)} at "
                                    f"output {i}, which is not a valid JAX type; jitted "
                                    f"functions must return arrays (or pytrees of them)")
            out_trees.append(out_tree())
            return out_leaves
        return checked

    # ------------------------------------------------------------ calling
    def __call__(self, *args, **kwargs):
        # Three ways in, cheapest first. (1) The last hit (`_last[_LAST_HIT]`): positional
        # Arrays of the very types (and placement) it last saw, under an unchanged config,
        # compared without building a key. (2) The fast path's dict: eager, every dynamic
        # argument an Array on its own device, keyword arguments all static. (3) The general
        # path, for anything else or a miss, which fills `_fast` for next time.
        last = self._last.get(_LAST_HIT)
        if last is not None and not kwargs:
            try:
                if len(args) == 1:                 # f(x): no comprehensions (each a frame)
                    bufs, avals = [args[0]._buf], [args[0].aval]
                else:
                    bufs, avals = [a._buf for a in args], [a.aval for a in args]
                same = avals == last.avals and bufs[0]._sharding is last.where
            except (AttributeError, IndexError):   # a non-Array argument, or none
                same = False
            if same and last.generation is config._generation and _ctx.trace is eval_trace:
                entry = last.entry               # (written out here: the hottest path of all)
                entry.hits += 1
                try:
                    return last.unflatten(entry.exe.call_buffers(bufs))
                except ValueError:
                    if not _any_sharded(args):     # a sharded argument after the first
                        raise
                    return self._call(args, kwargs)
        if _ctx.trace is eval_trace and not config.jax_disable_jit and \
                config.jax_default_device is None and not config._debug_values:
            try:
                if self._static_argnums:
                    nums = self._static_argnums
                    dyn = tuple([a for i, a in enumerate(args) if i not in nums])
                    static = tuple([a for i, a in enumerate(args) if i in nums])
                else:
                    dyn, static = args, ()
                leaves, treedef = _flatten(dyn)
                avals, where = signature(leaves)
                key = (treedef, avals, where, config._trace_state, static,
                       tuple(kwargs.items()) if kwargs else ())
                entry = self._fast.get(key)
            except (AttributeError, TypeError):   # a non-Array leaf, or an unhashable value
                entry = None
            if entry is not None:
                entry.hits += 1
                hit = entry.last_hit        # False: this entry's calls are not flat Arrays
                if hit is not False and (hit is None or hit.where is not where or
                                         hit.generation is not config._generation):
                    hit = entry.last_hit = _LastHit(avals, where, entry) if args and not (
                        kwargs or static) and _each_a_leaf(treedef, len(args)) else False
                if hit is not False:
                    self._last[_LAST_HIT] = hit
                try:
                    return entry.out_tree.unflatten(entry.exe.call_buffers(buffers(leaves)))
                except ValueError:
                    if not _any_sharded(leaves):   # a sharded leaf after the first: not ours
                        raise
        return self._call(args, kwargs)

    def _call(self, args, kwargs):
        if config.jax_disable_jit:
            return self._fun(*args, **kwargs)
        dyn_args, dyn_kwargs, statics = self._split(args, kwargs)
        leaves, treedef = tree_flatten((dyn_args, dyn_kwargs))
        avals = tuple([leaf.aval if type(leaf) is Array else
                       _leaf_aval(leaf, lambda i=i: self._leaf_names(dyn_args, dyn_kwargs)[i])
                       for i, leaf in enumerate(leaves)])
        if _ctx.trace is not eval_trace:
            return self._bind(leaves, treedef, statics, avals, dyn_args, dyn_kwargs)
        if self._sharded or _any_sharded(leaves):
            # loads with the first mesh or sharded Array: `import jxkernel` needs neither
            from .jit_sharded import call_jitted
            return call_jitted(self, args, leaves, treedef, statics, avals, dyn_args, dyn_kwargs)
        device = self._device
        move = device is not None or config.jax_default_device is not None
        if device is None:
            if move:                                         # a chosen device wins: move inputs
                device = _client.default_device()
            else:
                for leaf in leaves:
                    if type(leaf) is Array:
                        device = leaf.device
                        break
                else:
                    device = _client.default_device()
        key = (treedef, avals, statics, config._trace_state, device)
        entry = self._cache.get(key)
        if entry is None:
            if (self._fail_on_recompile or compile_log._fail_on_any) and self._history:
                self._refuse_recompile(treedef, statics, avals, dyn_args, dyn_kwargs, device)
            try:
                entry = self._compile(key, leaves, treedef, statics, avals, device, dyn_args,
                                      dyn_kwargs)
            except NeedsMesh as e:          # a sharding constraint inside: partition from now on
                self._sharded, self._constraint_mesh = True, e.mesh
                return self._call(args, kwargs)
        else:
            entry.hits += 1
        if not (dyn_kwargs or move or entry.consts or entry.donated) and \
                all(type(leaf) is Array for leaf in leaves) and \
                (leaves or device == _client.default_device()):
            # eligible for the fast path: remember it under the fast path's key
            nums = self._static_argnums
            self._fast[(_flatten(dyn_args)[1], avals, signature(leaves)[1], config._trace_state,
                        tuple(a for i, a in enumerate(args) if i in nums),
                        tuple(kwargs.items()))] = entry
        arrays = list(entry.consts)
        for leaf in leaves:
            if type(leaf) is not Array or move and leaf.device != device:
                leaf = device_put(leaf, device)
            arrays.append(leaf)
        outs = entry.exe.call_arrays(arrays)        # drops donated arrays' NumPy views too
        if config._debug_values:
            self._check_values(outs, args, kwargs)
        return tree_unflatten(entry.out_tree, outs)

    def _check_values(self, outs, args, kwargs):
        """jax_debug_nans / jax_debug_infs: on a NaN/inf output, rerun the function op by op
        (this jit off), so that the operation that made it raises, as JAX does."""
        kind = invalid_value(outs)
        if kind is None:
            return
        print(DEOPTIMIZED_RERUN_LINE)
        self._fun(*args, **kwargs)       # as JAX: jits inside still run compiled, and check
        raise FloatingPointError(
            f"invalid value ({kind}) encountered in jit({self._name}). Because jax_debug_nans "
            f"and/or jax_debug_infs is set, the de-optimized function (i.e., the function as if "
            f"the `jit` decorator were removed) was called in an attempt to get a more precise "
            f"error message. However, the de-optimized function did not produce invalid values "
            f"during its execution. This behavior can result from `jit` optimizations causing "
            f"the invalid value to be produced. It may also arise from having nan/inf literals "
            f"as inputs or outputs, like `jax.jit(lambda ...: jax.numpy.nan)(...)`.")

    def _trace(self, treedef, statics, avals, dyn_args, dyn_kwargs):
        """(ClosedJaxpr, out_tree, trace seconds) of fun at these input types."""
        if config.jax_no_tracing:
            where = f" at {self._source_text()}" if self._source else ""
            raise RuntimeError(f"re-tracing function {self._name}{where} for `jit`, but "
                               f"'no_tracing' is set")
        out_trees = []
        info = DebugInfo(self._name, self._source, "jit", self._leaf_names(dyn_args, dyn_kwargs))
        start = time.perf_counter()
        closed = trace_to_jaxpr(self._flat_fun(treedef, statics, out_trees), list(avals), info)
        return closed, out_trees[0], time.perf_counter() - start

    def _compile(self, key, leaves, treedef, statics, avals, device, dyn_args, dyn_kwargs):
        traced = self._traces.get(key[:4] + _NOWHERE)   # traced already under a transformation
        closed, out_tree, trace_s = (traced[3], traced[2], 0.0) if traced is not None else \
            self._trace(treedef, statics, avals, dyn_args, dyn_kwargs)
        module = self._lower(closed, device, self._donated_leaves(dyn_args, dyn_kwargs))
        entry, phases = self._build(closed, out_tree, module, trace_s,
                                    self._leaf_names(dyn_args, dyn_kwargs),
                                    compiler_options=self._compiler_options)
        self._cache[key] = entry
        self._record(treedef, statics, avals, dyn_args, dyn_kwargs, phases, device, closed.consts)
        return entry

    def _lower(self, closed, device, donated_leaves) -> pipeline.Module:
        jaxpr = closed.jaxpr
        donated = (False,) * len(jaxpr.constvars) + (donated_leaves or (False,) * len(jaxpr.invars))
        return pipeline.lower(jaxpr, [device], name=self._name, donated=donated)

    def _build(self, closed, out_tree, module, trace_s=0.0, leaf_names=None,
               compiler_options=None) -> tuple:
        """(_Entry, Phases): `module` (from `_lower`) compiled with XLA's `compiler_options`,
        its constants put on device."""
        names = None
        if leaf_names is not None:
            names = [f"<closed-over constant {i}>" for i in range(len(closed.consts))] + \
                list(leaf_names)
        exe, phases = pipeline.compile(module, f"jit({self._name})", trace_s=trace_s,
                                       arg_names=names, compiler_options=compiler_options)
        consts = tuple(device_put(c, module.devices[0]) for c in closed.consts)
        entry = _Entry(exe, consts, out_tree, closed, module.text, any(module.donated))
        return entry, phases

    def _explain(self, treedef, statics, avals, dyn_args, dyn_kwargs, device, consts=None):
        """(named avals, named statics, the nearest earlier Signature or None, reason, changes).
        A first compile is compared with other jit objects of the same Python function (a
        jit made anew in a loop); `reason` keeps its one-line form ("first call" then)."""
        names = self._leaf_names(dyn_args, dyn_kwargs)
        named = tuple(zip(names, avals))
        static_named = tuple((n, v) for n, v, _ in statics)
        new = compile_log.Signature(named, treedef, static_named, _config_of(device),
                                    None if consts is None else self._named_consts(consts))
        closest = compile_log.nearest(self._history, new)
        if closest is None:
            return named, static_named, None, "first call", self._fresh_jit_changes(new), new
        reason = compile_log.explain(closest.named, named, closest.treedef, treedef,
                                     closest.statics, static_named)
        changes = compile_log.explain_changes(closest, new)
        if reason.startswith("a changed configuration") and changes:     # say which
            reason = "; ".join(map(str, changes))
        return named, static_named, closest, reason, changes, new

    def _fresh_jit_changes(self, new) -> tuple:
        """Against another jit object of the same function: jit(f) called anew each time."""
        others = [sig for owner, sig in _lineage(self._fun) if owner != id(self)]
        closest = compile_log.nearest(others, new)
        if closest is None:
            return ()
        compiled_for = compile_log.signature_text((p, a.str_short()) for p, a in closest.named)
        return (compile_log.fresh_jit_change(f"jit({self._name}) compiled for ({compiled_for})"),
                *compile_log.explain_changes(closest, new))

    def _named_consts(self, consts) -> tuple:
        """The closed-over constants named as the function's source names them, where it
        names them directly (a global or a closure variable), else by position."""
        by_id = _closure_names(self._fun)
        return tuple((by_id.get(id(c), f"constant {i}"), c) for i, c in enumerate(consts))

    @staticmethod
    def _named_signature(named, static_named) -> tuple:
        return tuple((n, a.str_short() + (" (weak)" if a.weak_type else "")) for n, a in named) + \
            tuple((n, f"static {v!r}") for n, v in static_named)

    def _refuse_recompile(self, treedef, statics, avals, dyn_args, dyn_kwargs, device):
        """fail_on_recompile is on and this signature is new: raise, pointing at the caller,
        with what changed and how to fix it as notes."""
        named, static_named, closest, reason, changes, _ = self._explain(
            treedef, statics, avals, dyn_args, dyn_kwargs, device)
        err = RecompileError(self._name, self.function_key,
                             compile_log.signature_text(self._named_signature(closest.named,
                                                                              closest.statics)),
                             compile_log.signature_text(self._named_signature(named, static_named)),
                             reason, user_source_info())
        err.changes = changes
        if changes:
            err.add_note("What changed, and the fix:\n" + compile_log.explanation_text(changes))
        raise err

    def _record(self, treedef, statics, avals, dyn_args, dyn_kwargs, phases, device, consts=()):
        named, static_named, _, reason, changes, new = self._explain(
            treedef, statics, avals, dyn_args, dyn_kwargs, device, consts)
        self._history.append(new)
        _lineage(self._fun).append((id(self), dataclasses.replace(new, consts=None)))
        compile_log.record(compile_log.CompileEvent(
            self._name, self._source_text(), self._named_signature(named, static_named), reason,
            phases, _client.platform_of(device), key=self, changes=changes))

    def _compiled_trace(self, key):
        """(ClosedJaxpr, out_tree) traced for this signature by a top-level call, if any: as in
        JAX, `grad(jit(f))` does not trace f again where `jit(f)(x)` already did."""
        for cached_key, entry in self._cache.items():
            if cached_key[:4] == key:
                return entry.jaxpr, entry.out_tree
        return None

    def _bind(self, leaves, treedef, statics, avals, dyn_args, dyn_kwargs):
        """Inside another transformation: one jit equation the current trace handles."""
        # Where the call is belongs to its trace, as in JAX: the named axes around it
        # (lax.axis_size is read at trace time) and, in a check_vma shard_map body, the manual
        # axes the trace types (pvary).
        signature = (treedef, avals, statics, config._trace_state)
        key = signature + (visible_axes(), vma.checked[-1] if vma.checked else None)
        found = self._traces.get(key)
        if found is None:
            if self._in_shardings is not None or self._out_shardings is not None:
                closed, out_tree = _constrained_trace(self, treedef, statics, avals, dyn_args,
                                                      dyn_kwargs)   # shardings kept as constraints
            else:
                closed, out_tree = key[4:] == _NOWHERE and self._compiled_trace(signature) or \
                    self._trace(treedef, statics, avals, dyn_args, dyn_kwargs)[:2]
            jaxpr, consts = convert_constvars_to_invars(closed)
            found = (jaxpr, consts, out_tree, closed)
            if not any(isinstance(c, Tracer) for c in consts):   # tracers die with their trace
                self._traces[key] = found
        jaxpr, consts, out_tree, _ = found
        donated = (False,) * len(consts) + (self._donated_leaves(dyn_args, dyn_kwargs)
                                            or (False,) * len(leaves))
        outs = jit_p.bind(*consts, *leaves, jaxpr=jaxpr, name=self._name, donated_invars=donated,
                          inline=self._inline, keep_unused=self._keep_unused)
        return tree_unflatten(out_tree, outs)

    # ------------------------------------------------------------ ahead of time
    def trace(self, *args, **kwargs) -> Traced:
        """Trace only: `.jaxpr` is the ClosedJaxpr; `.lower()` continues."""
        dyn_args, dyn_kwargs, statics = self._split(args, kwargs)
        leaves, treedef = tree_flatten((dyn_args, dyn_kwargs))
        avals = tuple(_abstract_leaf_aval(x, lambda i=i: self._leaf_names(dyn_args, dyn_kwargs)[i])
                      for i, x in enumerate(leaves))
        closed, out_tree, trace_s = self._trace(treedef, statics, avals, dyn_args, dyn_kwargs)
        return Traced(self, closed, out_tree, self._donated_leaves(dyn_args, dyn_kwargs),
                      leaves, in_tree=treedef, arg_names=self._leaf_names(dyn_args, dyn_kwargs),
                      trace_s=trace_s)

    def lower(self, *args, **kwargs) -> Lowered:
        """Trace and lower: `.as_text()` is the StableHLO module; `.compile()` continues."""
        return self.trace(*args, **kwargs).lower()

    def eval_shape(self, *args, **kwargs):
        traced = self.trace(*args, **kwargs)
        return tree_unflatten(traced.out_tree, [ShapeDtypeStruct(a.shape, a.dtype, a.weak_type,
                                                                 getattr(a, "sharding", None))
                                                for a in traced.jaxpr.out_avals])

    def cache_hits(self) -> int:
        """How many calls found their compiled program in this function's cache."""
        return sum(e.hits for e in self._cache.values())

    def clear_cache(self) -> None:
        self._cache.clear()
        self._fast.clear()
        self._last.clear()
        self._traces.clear()
        self._history.clear()

    def _cache_size(self) -> int:
        return len(self._cache)


# JAX's jitted functions are jaxlib's PjitFunction; libraries tell a jitted function by its
# type's name (Chex's is_traceable reads str(type(f))), so the class answers to it
Jitted.__name__ = Jitted.__qualname__ = "PjitFunction"
PjitFunction = Jitted


class _Stage:
    """The signature every stage tells, as JAX's Traced, Lowered and Compiled do (see
    jxkernel/transforms/aot.py, which holds the details)."""

    @property
    def fun_name(self) -> str:
        return self._traced.jitted._name

    @property
    def in_tree(self):
        """The (args, kwargs) pytree of the non-static arguments."""
        return self._traced._in_tree

    @property
    def in_avals(self):
        return tree_unflatten(self.in_tree, self._traced.jaxpr.in_avals)

    @property
    def args_info(self):
        return args_info(self._traced)

    @property
    def donate_argnums(self) -> tuple:
        return tuple(sorted(self._traced.jitted._donate_argnums))


class Traced(_Stage):
    def __init__(self, jitted, jaxpr, out_tree, donated, leaves, in_tree=None, arg_names=None,
                 trace_s=0.0):
        self.jitted, self.jaxpr, self.out_tree, self.donated = jitted, jaxpr, out_tree, donated
        self._leaves = leaves
        self._in_tree, self.arg_names = in_tree, arg_names
        self.trace_s = trace_s          # seconds tracing took: the first of the compile phases

    _traced = property(lambda self: self)

    @property
    def out_avals(self):
        return tree_unflatten(self.out_tree, self.jaxpr.out_avals)

    @property
    def out_info(self):
        """The outputs' types, a pytree of ShapeDtypeStructs (weak types kept, as JAX's)."""
        return tree_unflatten(self.out_tree, [ShapeDtypeStruct(a.shape, a.dtype, a.weak_type)
                                              for a in self.jaxpr.out_avals])

    def lower(self) -> Lowered:
        if self.jitted._sharded or _any_sharded(self._leaves):    # partitioned over a mesh
            # loads with the first mesh or sharded Array: `import jxkernel` needs neither
            from .jit_sharded import stage_partitioning
            return Lowered(self, None, stage_partitioning(self))
        device = self.jitted._device
        if device is None:
            device = next((x.device for x in self._leaves if isinstance(x, Array)),
                          _client.default_device())
        try:
            return Lowered(self, device)
        except NeedsMesh as e:              # a sharding constraint inside: partitioned
            self.jitted._sharded, self.jitted._constraint_mesh = True, e.mesh
            # loads with the first mesh or sharded Array: `import jxkernel` needs neither
            from .jit_sharded import stage_partitioning
            return Lowered(self, None, stage_partitioning(self))


class Lowered(_Stage):
    def __init__(self, traced: Traced, device, partitioning=None):
        self.traced, self.device = traced, device
        self._traced = traced
        self._partitioning = partitioning        # a sharded jit's (transforms/jit_sharded.py)
        if partitioning is not None:
            self.device = partitioning.mesh.devices.flat[0]
            self._module = partitioning.module
        else:
            self._module = traced.jitted._lower(traced.jaxpr, device, traced.donated)
        self._text = self._module.text

    def as_text(self, dialect: str | None = None, *, debug_info: bool = False) -> str:
        """The module as text: StableHLO (default), or XLA's HLO with dialect="hlo";
        debug_info=True adds each op's source line."""
        if dialect in (None, "stablehlo", "mlir") and not debug_info:
            return self._text
        return lowered_text(self, dialect or "stablehlo", debug_info)

    def compiler_ir(self, dialect: str | None = None):
        """The module as jaxlib's MLIR `ir.Module` ("stablehlo", the default) or its
        `XlaComputation` ("hlo")."""
        return compiler_ir(self._text, dialect or "stablehlo")

    def cost_analysis(self) -> dict:
        """XLA's cost estimate of the module before optimization (flops, bytes accessed...)."""
        from ..xla.portable import unoptimized_cost_analysis  # local: rarely used
        return unoptimized_cost_analysis(self._text, self.device)

    @property
    def out_info(self):
        """The outputs' types as JAX's `Lowered.out_info` gives them: a pytree of
        ShapeDtypeStructs; lowering forgets weak types, and the sharding is not chosen yet.

        >>> jit(lambda x: (x * 2, 1)).lower(1.0).out_info
        (ShapeDtypeStruct(shape=(), dtype=float32), ShapeDtypeStruct(shape=(), dtype=int32))
        """
        return _out_structs(self.traced.out_tree, self.traced.jaxpr.out_avals)

    out_tree = property(lambda self: self.traced.out_tree)

    def compile(self, compiler_options: dict | None = None) -> Compiled:
        """The executable of this module (compiled once: `.lower()` keeps what it lowered).
        `compiler_options` sets XLA's options by name ({"xla_cpu_enable_fast_math": False});
        an unknown name raises JaxRuntimeError."""
        traced = self.traced
        if traced.jitted._compiler_options or compiler_options:
            compiler_options = {**(traced.jitted._compiler_options or {}),
                                **(compiler_options or {})}
        if self._partitioning is not None:
            if compiler_options:
                raise NotImplementedError("Lowered.compile: compiler_options of a jit over a "
                                          "mesh are not supported yet; compile without them")
            return Compiled(self, *self._partitioning.compile(traced.trace_s))
        return Compiled(self, *traced.jitted._build(traced.jaxpr, traced.out_tree, self._module,
                                                    traced.trace_s,
                                                    compiler_options=compiler_options))


class Compiled(_Stage):
    """An executable for one signature: call it with arguments of that signature.
    `phases`: what tracing, lowering and compiling it took (a pipeline.Phases)."""

    def __init__(self, lowered, entry, phases):
        self.lowered, self._entry, self.phases = lowered, entry, phases
        self._traced = lowered.traced
        # logged as jit's calls are (the notebook's count, Compilations, %jxcompiles)
        jitted = self._traced.jitted
        device = (lowered._module.devices[0] if lowered._module is not None
                  else _client.default_device())
        compile_log.record(compile_log.CompileEvent(
            jitted._name, jitted._source_text(),
            tuple((f"args[{i}]", a.str_short()) for i, a in enumerate(entry.jaxpr.in_avals)),
            "ahead of time: .lower(...).compile()", phases, _client.platform_of(device),
            key=jitted))

    def __call__(self, *args, **kwargs):
        """Call with the non-static arguments only (static ones were fixed by `lower`)."""
        leaves, treedef = tree_flatten((args, kwargs))
        expected = self._entry.jaxpr.in_avals
        got = [_leaf_aval(x, lambda: "?") for x in leaves]
        if treedef != self.in_tree or \
                [a.strip_weak_type() for a in got] != [a.strip_weak_type() for a in expected]:
            check_call_signature(self, args, kwargs, got)
        if self.lowered._partitioning is not None:             # each laid out as compiled for
            outs = self._entry.exe.call_buffers(self._entry.arguments(leaves))
        else:
            outs = self._entry.exe.call_arrays(list(self._entry.consts) + [
                x if isinstance(x, Array) else device_put(x, self.lowered.device)
                for x in leaves])
        return tree_unflatten(self._entry.out_tree, outs)

    out_tree = property(lambda self: self._entry.out_tree)

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
        """Where each argument must live: a pytree like `in_tree` of shardings."""
        if self.lowered._partitioning is not None:
            return tree_unflatten(self.in_tree, self._entry.in_shardings)
        return tree_unflatten(self.in_tree, [self._sharding()] * self.in_tree.num_leaves)

    @property
    def output_shardings(self):
        if self.lowered._partitioning is not None:
            return tree_unflatten(self._entry.out_tree, self._entry.exe.out_shardings)
        return tree_unflatten(self._entry.out_tree, [self._sharding()] *
                              self._entry.out_tree.num_leaves)

    def _sharding(self):
        from ..xla.sharding import SingleDeviceSharding  # local: rarely used
        return SingleDeviceSharding(self.lowered.device)

    @property
    def out_info(self):
        """The outputs' types with where they live (a SingleDeviceSharding each), as JAX's
        `Compiled.out_info`, less its `format` (jxkernel does not model layouts)."""
        if self.lowered._partitioning is not None:          # each output's own sharding
            return tree_unflatten(self._entry.out_tree, [
                ShapeDtypeStruct(a.shape, a.dtype, sharding=s)
                for a, s in zip(self._entry.jaxpr.out_avals, self._entry.exe.out_shardings)])
        return _out_structs(self._entry.out_tree, self._entry.jaxpr.out_avals, self._sharding())


def _out_structs(out_tree, avals, sharding=None):
    """A pytree of ShapeDtypeStructs (no weak types) for outputs of these types."""
    return tree_unflatten(out_tree, [ShapeDtypeStruct(a.shape, a.dtype, sharding=sharding)
                                     for a in avals])
