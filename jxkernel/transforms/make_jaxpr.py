"""make_jaxpr and eval_shape: trace a function without running it.

    >>> make_jaxpr(lambda x: jnp.sin(x) + 1.0)(jnp.ones(3))    # short: one line, as JAX's
    { lambda ; a:f32[3]. let b:f32[3] = sin a; c:f32[3] = add b 1.0:f32[] in (c,) }
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import time
import weakref

from ..core.traceback_util import api_boundary
from ..core.avals import ShapeDtypeStruct, valid_jaxtype
from ..core.axis_env import bound_axis
from ..core.basearray import Array
from ..core import vma
from ..core.compile_record import log_trace_miss, trace_difference
from ..core import compile_record
from ..core.config import config
from ..core.lru import LRU, SIGNATURES
from ..core.source_info import _excluded as source_info_excluded
from ..core.source_info import (function_source_info, made_by_user, traced_call_site,
                                users_function)
from ..xla import client as _client
from ..tree_util import keystr, tree_flatten, tree_flatten_with_path, tree_map, tree_unflatten
from .api_util import flatten_fun, fun_name, merge_static, wraps
from .jit import Jitted, jit
from .jit.cache import NOWHERE, keep_top_level_trace, top_level_signatures, top_level_trace
from .jit.high import high_of, is_high_trace
from .jit.stages import trace_jitted
from .jit.args import (abstract_leaf_aval, argnum_tuple, check_argnums, not_a_jax_type,
                       token_carriers, unhashable_as_jax)
from .jit.refs import ref_positions, ref_type, uses_refs, with_stand_ins, without_refs
from ..core.staging import DebugInfo, is_ref, trace_to_jaxpr
from ..core.trace import Tracer, current_trace, eval_trace


def _trace_flat(fun, static_argnums, args, kwargs, transformation):
    static_argnums = {i % len(args) if args else i for i in argnum_tuple(static_argnums)}
    dyn = [a for i, a in enumerate(args) if i not in static_argnums]
    leaves, treedef = tree_flatten((tuple(dyn), kwargs))
    base = _positional_names(fun, len(args))
    names = tuple(f"{base[i]}{keystr(p)}" for i, a in enumerate(args) if i not in static_argnums
                  for p, _ in tree_flatten_with_path(a)[0]) + \
        tuple(f"{k}{keystr(p)}" for k in sorted(kwargs)
              for p, _ in tree_flatten_with_path(kwargs[k])[0])
    # a Ref argument: a Ref-typed input (api/state_primitives.py); vmap's MappedRef: a
    # stand-in, recorded as a Ref closed over
    refs = ref_positions(leaves)
    boxes = [i for i in refs if hasattr(leaves[i], "_owner")]
    refs = tuple(i for i in refs if i not in boxes)
    avals = [leaves[i].aval if i in boxes else None if i in refs else
             abstract_leaf_aval(x, lambda i=i: names[i], fun) for i, x in enumerate(leaves)]
    static = {i: args[i] for i in static_argnums if i < len(args)}
    for value in static.values():       # JAX's make_jaxpr is a jit's trace: its error
        try:
            hash(value)
        except TypeError as e:
            kind, why = unhashable_as_jax(value, e)
            raise ValueError(f"Non-hashable static arguments are not supported. An error "
                             f"occurred while trying to hash an object of type {kind}, "
                             f"{value}. The error was:\nTypeError: {why}\n") from None
    flat, out_tree = flatten_fun(
        lambda dyn_args, dyn_kwargs: fun(*merge_static(static, dyn_args, len(args)),
                                         **dyn_kwargs), treedef)

    name = fun_name(fun, type(fun).__name__)
    if refs:
        flat, avals = with_stand_ins(flat, leaves, avals, refs)
    if boxes:
        flat = _with_ref_inputs(flat, leaves, boxes, refs)
    flat = _no_ref_results(flat, name, function_source_info(fun), leaves, names, out_tree)
    info = DebugInfo(name, function_source_info(fun), transformation,
                     tuple(without_refs(names, refs)), shown_as="make_jaxpr")
    # JAX's make_jaxpr is jit(fun).trace: where this trace can be a jit's (top level, no
    # Refs), it is kept in (and found in) the caches jit(fun) shares (jit/cache.py), so that
    # make_jaxpr(f)(x) then jit(f)(x), or the other way round, trace f once, as in JAX
    jitted, split = _jit_of(fun, static_argnums, args, kwargs, leaves, treedef)
    if jitted is not None:
        signature = (treedef, tuple(avals), split[2], config._trace_state)
        key = signature + vma.trace_place()
    else:
        key = (tuple(sorted(static.items())), len(args), treedef, tuple(avals),
               config._trace_state) + vma.trace_place()
    shared = jitted is not None and not refs and not boxes and key[4:] == NOWHERE and \
        current_trace() is eval_trace and compile_record.logged()
    # equations name the user's line as the files excluded then say (JAX works it out when
    # printing; here when tracing): a trace is reused under the same exclusions only
    excluded = tuple(source_info_excluded)
    traces = _traces_of(fun)
    kept = traces.get(key) if traces is not None else None
    if kept is not None and kept[0] == excluded:
        return kept[1]              # traced before with these arguments' types: not again
    found = _jits_trace(jitted, signature) if shared and kept is None else None
    if found is not None:           # a jit call or stage of fun traced it: not again
        if traces is not None:
            traces[key] = excluded, found
        return found
    if traces is None or key not in traces:
        _log_miss(fun, key, traces, jitted, lambda: names)
        if traces is not None:
            traces[key] = None
    closed = trace_to_jaxpr(flat, avals, info, "record")   # (Refs' reads and writes recorded)
    result = closed, out_tree()
    # kept only for a trace that depends on nothing but the key: a top-level one (inside
    # another trace the function may close over its tracers) of no Refs (its jaxpr names
    # the Refs it was given)
    if traces is not None and not refs and not boxes and current_trace() is eval_trace:
        traces[key] = excluded, result
    if shared and not uses_refs(closed) and not is_high_trace(closed):
        keep_top_level_trace(jitted, signature, *result)    # (lift and record differ on Refs)
        compile_record.traced_outside(jitted._miss(treedef, split[2], tuple(avals), *split[:2],
                                                   _client.default_device()))
    return result


def _jit_of(fun, static_argnums, args, kwargs, leaves, treedef):
    """(jit(fun, static_argnums), its split of the arguments: dynamic ones and statics) where
    its calls flatten these arguments as make_jaxpr did (the same leaves and structure: not
    where jit takes a keyword as static), else (None, None)."""
    try:
        jitted = jit(fun, static_argnums=static_argnums)
        split = jitted._split(args, kwargs)
    except (TypeError, ValueError):
        return None, None
    theirs, their_tree = token_carriers(*tree_flatten(split[:2]))
    if their_tree != treedef or len(theirs) != len(leaves) or \
            any(a is not b for a, b in zip(theirs, leaves)):
        return None, None
    return jitted, split


def _jits_trace(jitted, signature):
    """(ClosedJaxpr, out_tree) a jit of the function traced at top level for `signature`, as
    make_jaxpr shows it (a hijax program's high trace), or None: none, or one of Refs (which
    jit keeps as its inputs, make_jaxpr as Ref-typed values)."""
    found = top_level_trace(jitted, signature)
    if found is None or uses_refs(found[0]):
        return None
    return high_of.get(found[0], found[0]), found[1]


# make_jaxpr's traces per function, as JAX's jit(fun).trace caches them (by the function
# object, so a second make_jaxpr(f)(x) does not run f again, as JAX's does not): each key
# with (the source exclusions then, (jaxpr, result tree)), or None where the trace is not
# kept (see _trace_flat); the keys also let a miss of that cache be logged as JAX logs it
_seen = weakref.WeakKeyDictionary()


def _traces_of(fun):
    """make_jaxpr's traces of `fun` (an LRU: bounded, for a function given ever new shapes),
    None where `fun` cannot key one (not weakly referable, or unhashable)."""
    try:
        keys = _seen.get(fun)
        if keys is None:
            keys = _seen[fun] = LRU(SIGNATURES)
        return keys
    except TypeError:
        return None


def _log_miss(fun, key, traces, jitted, names) -> None:
    """With jax_explain_cache_misses on, log JAX's TRACING CACHE MISS for the user's function,
    explained against its earlier traces, make_jaxpr's and its jits' (JAX's one cache), before
    the trace (as JAX does: a jit's miss inside it comes after)."""
    user = users_function(fun) if config.jax_explain_cache_misses else None
    if user is None:
        return
    earlier = traces.keys() if traces is not None else []
    if jitted is not None:          # keyed as jit's signatures: (treedef, avals, statics, ...)
        earlier = [_difference_key(k) for k in earlier] + \
            [_difference_key(s + NOWHERE) for s in top_level_signatures(jitted)]
        key = _difference_key(key)
    log_trace_miss(user.function, f"{user.file}:{user.line}", traced_call_site(3),
                   trace_difference(dict.fromkeys(earlier), key, names), fun_id=id(fun))


def _difference_key(key) -> tuple:
    """A jit signature's key (treedef, avals, statics, trace state, *place) as
    compile_record.trace_difference reads one (statics, count, treedef, avals, *context)."""
    return (key[2], None, key[0], key[1], *key[3:])


def _positional_names(fun, count: int) -> list:
    """The names of `count` positional arguments as JAX's errors give them: the function's
    parameters (`v`, then `a[0]` for `*a`), `args[i]` where its signature is unknown (an
    error said "depends on the argument args[0]" where JAX says "argument v")."""
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    named = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    star = next((p.name for p in params if p.kind == p.VAR_POSITIONAL), None)
    return [named[i] if i < len(named) else
            f"{star}[{i - len(named)}]" if star else f"args[{i}]" for i in range(count)]


def _with_ref_inputs(flat, leaves, boxes, stand_ins):
    """`flat` given the Ref boxes at `boxes` (positions among `leaves`) where the trace has
    their Ref-typed inputs, each box recorded as its input (the stand-ins' positions, already
    left out of the inputs, shift them)."""
    def fun(*args):
        trace, args = current_trace(), list(args)
        for i in boxes:
            at = i - sum(j < i for j in stand_ins)
            trace.ref_vars[id(leaves[i])] = (leaves[i], args[at])
            args[at] = leaves[i]
        return flat(*args)
    return fun


def _no_ref_results(flat, name, source, leaves, names, out_tree):
    """`flat`, refusing a Ref among its results, or a value of no JAX type (a string), with
    JAX's errors (which say "for jit"); `out_tree`, the results' treedef's getter."""
    def fun(*args):
        outs = flat(*args)
        for i, out in enumerate(outs):
            where = f"{name} at {source.file}:{source.line}" if source else name
            if not isinstance(out, Tracer) and not is_ref(out) and not valid_jaxtype(out):
                raise not_a_jax_type(where, out, i, out_tree())
            if is_ref(out):
                passed = [names[i] for i, leaf in enumerate(leaves) if leaf is out]
                raise ValueError(
                    f"function {where} traced for jit returned a mutable array reference of "
                    f"type {ref_type(out)}, but mutable array references cannot be returned."
                    + (f"\n\nThe returned mutable array was passed in as the argument "
                       f"{passed[0]}." if passed else ""))
        return outs
    return fun


def make_jaxpr(fun, static_argnums=(), axis_env=None, return_shape=False):
    """A function returning the ClosedJaxpr of `fun` for the given example arguments."""
    if not callable(fun):
        raise TypeError("the first argument must be callable")      # (JAX's words)

    @wraps(fun)
    @api_boundary
    def make(*args, **kwargs):
        try:
            signature = inspect.signature(fun)
        except (TypeError, ValueError):
            signature = None
        check_argnums(signature, argnum_tuple(static_argnums), "static_argnums")   # (as jit)
        # JAX's make_jaxpr is a new jit(fun)'s trace: each call logs "Finished tracing f for
        # jit" (a trace or its cache's lookup), where the user asked for it (not a view's),
        # also where the trace raises (a traced `if`, a static argument that is a tracer):
        # JAX logs its trace's time before the error
        asked, start = made_by_user(2), time.perf_counter()
        try:
            with contextlib.ExitStack() as named:
                # axis_env's (name, size) pairs are bound while tracing, as pmap binds its
                # axis: a collective over one of them is traced (JAX extends its axis env so)
                for name, size in axis_env or ():
                    named.enter_context(bound_axis(name, size))
                # traced as JAX traces it, as a jit: its errors say "for jit", keys checked
                closed, out_tree = _trace_flat(fun, static_argnums, args, kwargs, "jit")
        finally:
            if asked:
                compile_record.log_traced(fun_name(fun, type(fun).__name__),
                                          time.perf_counter() - start)
        if return_shape:
            shapes = [ShapeDtypeStruct(a.shape, a.dtype, a.weak_type) for a in closed.out_avals]
            return closed, tree_unflatten(out_tree, shapes)
        return closed
    # named as JAX names it: make_jaxpr(foo), in module "jax" (its public home)
    make.__module__ = "jax"
    if hasattr(fun, "__qualname__"):
        make.__qualname__ = f"make_jaxpr({fun.__qualname__})"
    if hasattr(fun, "__name__"):
        make.__name__ = f"make_jaxpr({fun.__name__})"
    return make


@api_boundary
def eval_shape(fun, *args, **kwargs):
    """The output shapes/dtypes of `fun(*args)` as ShapeDtypeStructs, computing nothing.

    >>> eval_shape(jnp.dot, ShapeDtypeStruct((2, 3), jnp.float32), jnp.ones(3))
    ShapeDtypeStruct(shape=(2,), dtype=float32)
    """
    if isinstance(fun, Jitted):       # a jit's own trace, as JAX's (its out_shardings count)
        return _key_shapes(fun.trace(*args, **kwargs).out_info)
    try:                     # JAX's: jit(fun).trace, whose cache a second eval_shape hits
        hash(fun)
    except TypeError:
        fun = functools.partial(fun)
    traced = trace_jitted(jit(fun), args, kwargs, high=True)     # (a Box: itself, as JAX's)
    if not any(a.is_high for a in traced.result_avals):
        return _key_shapes(traced.out_info)
    return tree_unflatten(traced.out_tree, [a if a.is_high else ShapeDtypeStruct(
        a.shape, a.dtype, a.weak_type, getattr(a, "split", None)) for a in traced.result_avals])


def _key_shapes(tree):
    """Typed keys in `tree` (whose leaves are ShapeDtypeStructs) as ShapeDtypeStructs of
    their own shape and key dtype, as JAX's eval_shape gives them: they are the pytree nodes
    that are jax.Arrays (random.keys registers KeyArray), so transforms need not import random."""
    return tree_map(lambda x: ShapeDtypeStruct(x.shape, x.dtype) if isinstance(x, Array)
                    else x, tree, is_leaf=lambda x: isinstance(x, Array))
