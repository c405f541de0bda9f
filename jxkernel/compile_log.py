"""The compile-event log: every jit cache miss, why it happened, and what it cost.

    >>> f = jxkernel.jit(lambda x: x * 2)
    >>> f(jnp.ones(3)); f(jnp.ones(4))
    >>> [e.reason for e in jxkernel.compile_events()][-2:]
    ['first call', 'x: f32[3] -> f32[4]']

Anyone may subscribe (the notebook's recompilation widget does);
`config.update("jax_log_compiles", True)` prints each event as it happens.
"""
from __future__ import annotations

import dataclasses
import sys
import threading
import time

from .config import config


@dataclasses.dataclass(frozen=True)
class CompileEvent:
    """One compilation: which function, for which signature, why, and the time it took."""
    function: str                 # the jitted function's name (or a notebook cell's)
    source: str | None            # "file:line" where it was defined
    signature: tuple              # ((path, "f32[3]" or "static 3"), ...)
    reason: str                   # "first call", "x: f32[3] -> f32[4]", "static n: 3 -> 4", ...
    trace_s: float
    lower_s: float
    compile_s: float
    cache: str                    # "compiled", "disk" (persistent cache) or "memory"
    backend: str
    timestamp: float = dataclasses.field(default_factory=time.time)
    key: object = None            # identity of the jitted callable (for grouping)

    @property
    def total_s(self) -> float:
        return self.trace_s + self.lower_s + self.compile_s

    def __str__(self):
        sig = ", ".join(f"{p}: {a}" for p, a in self.signature)
        return (f"Compiling {self.function}({sig}) because {self.reason}: trace "
                f"{self.trace_s * 1e3:.1f} ms, lower {self.lower_s * 1e3:.1f} ms, compile "
                f"{self.compile_s * 1e3:.1f} ms ({self.cache})")


_events: list[CompileEvent] = []
_hits: dict = {}                      # key -> cache hits (counted cheaply on the hit path)
_subscribers: list = []
_lock = threading.Lock()
MAX_EVENTS = 10_000


def record(event: CompileEvent) -> None:
    with _lock:
        _events.append(event)
        if len(_events) > MAX_EVENTS:
            del _events[: len(_events) - MAX_EVENTS]
        subscribers = list(_subscribers)
    if config.jax_log_compiles:
        print(str(event), file=sys.stderr)
    for callback in subscribers:
        try:
            callback(event)
        except Exception as e:             # a broken subscriber must not break compiling
            print(f"jxkernel: compile-event subscriber {callback!r} raised {e!r}", file=sys.stderr)


def compile_events(function: str | None = None) -> list[CompileEvent]:
    """The compile events so far (optionally only those of `function`), oldest first."""
    with _lock:
        events = list(_events)
    return [e for e in events if function is None or e.function == function]


def subscribe(callback) -> callable:
    """Call `callback(event)` on every compile event; returns a function that unsubscribes."""
    with _lock:
        _subscribers.append(callback)

    def unsubscribe():
        with _lock:
            if callback in _subscribers:
                _subscribers.remove(callback)
    return unsubscribe


def clear() -> None:
    with _lock:
        _events.clear()
        _hits.clear()


def cache_hits(key) -> int:
    """Cache hits of jitted function `key` (what CompileEvent.key holds) so far."""
    count = getattr(key, "cache_hits", None)
    return count() if count is not None else _hits.get(key, 0)


def explain(old_sig, new_sig, old_tree, new_tree, old_static, new_static) -> str:
    """Why a new signature missed: against the closest earlier one, per argument path."""
    if old_sig is None:
        return "first call"
    reasons = []
    for (path, old), (_, new) in zip(old_static, new_static):
        if old != new:
            reasons.append(f"static {path}: {old!r} -> {new!r}")
    if old_tree != new_tree:
        reasons.append(f"new pytree structure: {old_tree} -> {new_tree}")
    else:
        for (path, old), (_, new) in zip(old_sig, new_sig):
            if old != new:
                if old.shape == new.shape and old.dtype == new.dtype:
                    reasons.append(f"{path}: weak_type {old.weak_type} -> {new.weak_type}")
                else:
                    reasons.append(f"{path}: {old.str_short()} -> {new.str_short()}")
    return "; ".join(reasons) or "a changed configuration (x64, backend or device)"


def distance(old_sig, new_sig, old_tree, new_tree, old_static, new_static) -> int:
    """How many things differ between two signatures (to find the closest earlier one)."""
    d = sum(a != b for (_, a), (_, b) in zip(old_static, new_static))
    if old_tree != new_tree:
        return d + 1000
    return d + sum((a.shape != b.shape) + (a.dtype != b.dtype) + (a.weak_type != b.weak_type)
                   for (_, a), (_, b) in zip(old_sig, new_sig))
