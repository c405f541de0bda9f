"""Leaked tracers: a tracer still held somewhere after its trace finished (`checking_leaks`).

A finished trace's tracers are normally garbage: only the running frames that made them
still hold them, and those are about to return. One kept in a global, a list, an attribute or
a closure is a leak: later code that uses it gets UnexpectedTracerError far from the cause.
With `jax_check_tracer_leaks` on, jit's and vmap's traces are checked as they finish, as JAX
checks them (autodiff's traces are not):

    >>> saved = []
    >>> with jax.checking_leaks():  # doctest: +IGNORE_EXCEPTION_DETAIL
    ...     jax.jit(lambda x: saved.append(x * 2) or x)(1.0)
    Traceback (most recent call last):
    Exception: Leaked trace JaxprTrace. Leaked tracer(s): ...
"""
from __future__ import annotations

import gc
import sys
import types

from . import leak_graph
from ..errors import jax_class_name
from ..trace import Tracer

_MAX_DEPTH = 8        # how far up the chain of referrers to look for a holder


def ensure_no_leaks(finished) -> None:
    """Raise if a tracer of the finished trace `finished()` (a weak reference: the caller has
    dropped its own references) is held by anything but a running frame.

    Each tracer holds its trace, so a trace that nothing holds any more is freed at once and
    none of its tracers can be alive: then there is nothing to look for. Only a trace still
    held costs a garbage collection and a scan of the heap (as JAX checks), which takes a
    good part of a second in a long notebook session.
    """
    if finished() is None:
        return
    gc.collect()                    # what only garbage cycles hold is not a leak
    trace = finished()
    if trace is None:
        return
    scratch: set = set()            # our own lists of referrers: not holders
    held = []
    for tracer in _referrers(trace, scratch):
        if isinstance(tracer, Tracer):
            path = _holder_path(tracer, scratch)
            if path:
                held.append((tracer, path))
    if held:
        leaks = leak_graph.listed(trace, held) if hasattr(trace, "eqns") else \
            [(t._short_repr(), _origin(trace, t), path) for t, path in held]
        raise Exception(f"Leaked trace {jax_class_name(type(trace))}. Leaked tracer(s):\n\n" +
                        "\n".join(f"{shown}\n{origin}" + "".join(path)
                                   for shown, origin, path in leaks))


def _origin(trace, tracer) -> str:
    """A vmap's tracer's line (JAX's BatchTracer._origin_msg), or the transformation's name."""
    made = getattr(tracer, "describe_creation", None)
    if made is not None and made():
        return made()
    where = getattr(trace, "describe_self", lambda: "a transformation")()
    return f"It was made while tracing {where}.\n"


def _referrers(obj, scratch: set) -> list:
    found = gc.get_referrers(obj)
    kept = [r for r in found if id(r) not in scratch and not isinstance(r, types.FrameType)]
    scratch.update((id(found), id(kept)))
    return kept


def _holder_path(obj, scratch: set, depth: int = 0) -> list:
    """Lines "<x> is referred to by <y>" from `obj` up to what holds it beyond the running
    frames (a module's globals, a class, or anything _MAX_DEPTH steps up); [] if only
    frames hold it."""
    for holder in _referrers(obj, scratch):
        line = f"{_describe(obj)} is referred to by {_describe_holder(holder, obj)}\n"
        if _is_root(holder) or depth >= _MAX_DEPTH:
            return [line]
        above = _holder_path(holder, scratch, depth + 1)
        if above:
            return [line] + above
    return []


def _is_root(holder) -> bool:
    # a closure's cell holds a tracer past its trace too (`lst.append(x)` in a scan body,
    # `lst` a local of the function around it): a leak, as JAX finds it
    return isinstance(holder, (type, types.ModuleType, types.CellType)) or \
        _module_of_globals(holder) is not None


def _module_of_globals(holder):
    if type(holder) is dict:
        for module in list(sys.modules.values()):
            if getattr(module, "__dict__", None) is holder:
                return module
    return None


def _describe(obj) -> str:
    return f"<{jax_class_name(type(obj))} {id(obj)}>"


def _describe_holder(holder, obj) -> str:
    module = _module_of_globals(holder)
    if module is not None:
        names = [k for k, v in holder.items() if v is obj]
        return f"{module.__name__}.{names[0] if names else '?'}"
    if isinstance(holder, (list, tuple)):
        index = next((i for i, v in enumerate(holder) if v is obj), "?")
        return f"{_describe(holder)}[{index}]"
    if type(holder) is dict:
        key = next((k for k, v in holder.items() if v is obj), "?")
        return f"{_describe(holder)}[{key!r}]"
    return _describe(holder)
