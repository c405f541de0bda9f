"""JAX's name stack and each new equation's source: the transformations and scopes being
traced under, kept on the trace context (core/trace.py's `_ctx.names`), and the line an
equation records with them, the user's (core/source_info.py) or that of the equation an
interpreter binds again.

    >>> with name_scope("vmap("), name_scope("cond"):
    ...     print(current_names())
    ('vmap(', 'cond')
"""
from __future__ import annotations

import threading

from .lru import Bounded
from .source_info import NameStack, SourceInfo, traced_source_info
from .trace import _ctx as _trace_ctx


class _Replaying(threading.local):
    source_info = None          # the equation eval_jaxpr is binding again, if it has a source


replaying = _Replaying()


def eqn_source_info(skip: int = 1) -> SourceInfo | None:
    """Where a new equation comes from: the equation eval_jaxpr is binding again (so a jaxpr
    transformed or inlined keeps its lines, as JAX's eval_jaxpr keeps each equation's
    traceback), else the user's line that is running; with the name stack pushed since the
    recording trace began (JAX's `source_info.name_stack`, relative to the jaxpr)."""
    info = replaying.source_info
    if info is None:
        info = traced_source_info(skip + 1)
    names = _trace_ctx.names
    if names:
        base = _trace_ctx.trace.name_base
        if base:
            names = names[base:]
    if info is None or info.name_stack is names or info.name_stack == names:
        return info
    return with_name_stack(info, names)


def with_name_stack(info: SourceInfo, names: tuple) -> SourceInfo:
    """`info` with the name stack `names`, one shared SourceInfo per line and stack."""
    key = (id(info), names)
    found = _named.get(key)
    if found is None or found[0] is not info:
        found = _named[key] = (info, info._replace(name_stack=NameStack(names)))
    return found[1]


# (id(SourceInfo), name stack) -> (that SourceInfo, a copy with that name stack): one shared
# SourceInfo per line and stack, as without a stack. The entry keeps the first alive, so its
# id is its own while the entry lives.
_named = Bounded(8192)


class name_scope:
    """``with name_scope(name):`` the equations traced inside are named under `name` too (JAX's
    extend_name_stack; `name_scope("vmap(")`, ending in "(", is a transformation, JAX's
    transform_name_stack, which wraps the scope inside it: `vmap(jvp())`)."""
    __slots__ = ("entry", "prev")

    def __init__(self, entry: str):
        self.entry = entry

    def __enter__(self):
        self.prev = _trace_ctx.names
        _trace_ctx.names = (*self.prev, self.entry)

    def __exit__(self, *exc):
        _trace_ctx.names = self.prev


class replaying_names:
    """``with replaying_names():`` restores the name stack after an interpreter set it per
    equation (`set_names(outer + eqn's own)`, as JAX's eval_jaxpr and backward pass do)."""
    __slots__ = ("prev",)

    def __enter__(self):
        self.prev = _trace_ctx.names
        return self.prev

    def __exit__(self, *exc):
        _trace_ctx.names = self.prev


def replay(info: SourceInfo | None, outer: SourceInfo | None, names: tuple) -> None:
    """Equations bound from now on come from `info` (else `outer`), named under `names` then
    `info`'s own name stack: an interpreter binding an equation again (eval_jaxpr, the
    backward pass) does this per equation, as JAX's do."""
    replaying.source_info = info or outer
    _trace_ctx.names = names + info.name_stack if info is not None and info.name_stack \
        else names


def set_names(names: tuple) -> None:
    _trace_ctx.names = names


def current_names() -> tuple:
    return _trace_ctx.names
