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
import weakref

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
    seq: int = 0                  # position in the log, set by record(): 1, 2, 3, ... never reused

    @property
    def function_key(self) -> str:
        """A string naming this jitted function for as long as it lives: "f@file.py:3#1402"."""
        return function_key(self.function, self.source, self.key)

    @property
    def total_s(self) -> float:
        return self.trace_s + self.lower_s + self.compile_s

    def __str__(self):
        sig = signature_text(self.signature)
        return (f"Compiling {self.function}({sig}) because {self.reason}: trace "
                f"{self.trace_s * 1e3:.1f} ms, lower {self.lower_s * 1e3:.1f} ms, compile "
                f"{self.compile_s * 1e3:.1f} ms ({self.cache})")


def function_key(function: str, source: str | None, key=None) -> str:
    """The protocol's name for a jitted function: name, where it was defined and, since two
    functions may share both (a redefined cell), the identity of the jitted object.

        >>> function_key("f", "a.py:3", None)
        'f@a.py:3'
    """
    text = f"{function}@{source or '?'}"
    return text if key is None else f"{text}#{id(key)}"


def signature_text(signature) -> str:
    """A CompileEvent's signature as written: "x: f32[3], n: static 2"."""
    return ", ".join(f"{path}: {aval}" for path, aval in signature)


_events: list[CompileEvent] = []
_hits: dict = {}                      # key -> cache hits (counted cheaply on the hit path)
_subscribers: list = []
_lock = threading.Lock()
_seq = 0                              # the last seq handed out (clear() keeps counting)
MAX_EVENTS = 10_000


def record(event: CompileEvent) -> CompileEvent:
    """Log `event` (numbered: the logged copy's `seq` is set) and tell the subscribers."""
    global _seq
    with _lock:
        _seq += 1
        event = dataclasses.replace(event, seq=_seq)
        _events.append(event)
        if hasattr(event.key, "_fail_on_recompile"):      # so the switch can be set by key
            _known[event.function_key] = event.key
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
    return event


def compile_events(function: str | None = None) -> list[CompileEvent]:
    """The compile events so far (optionally only those of `function`), oldest first."""
    with _lock:
        events = list(_events)
    return [e for e in events if function is None or e.function == function]


def events_since(seq: int) -> list[CompileEvent]:
    """The kept events whose `seq` is at least `seq`, oldest first.

        >>> events_since(last_seq() + 1)       # nothing newer than the latest
        []
    """
    with _lock:
        return [e for e in _events if e.seq >= seq]


def last_seq() -> int:
    """The seq of the latest event ever recorded (0 before the first)."""
    return _seq


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


_known: weakref.WeakValueDictionary = weakref.WeakValueDictionary()   # function_key -> jitted


def fail_on_recompile(function, enabled: bool = True) -> str:
    """Make a RE-compilation of `function` an error: once it has compiled, a call whose
    signature misses its cache raises `RecompileError` (naming the old and new signature and
    why) instead of compiling. `function` is a jitted function or the `function_key` of one
    of its compile events. Returns its function_key.

        >>> f = jxkernel.jit(lambda x: x * 2)
        >>> f(jnp.ones(3)); fail_on_recompile(f)
        >>> f(jnp.ones(4))
        RecompileError: jit(<lambda>) would recompile because x: f32[3] -> f32[4] ...
    """
    if not isinstance(enabled, bool):
        raise TypeError(f"fail_on_recompile: `enabled` must be True or False, got {enabled!r}")
    if isinstance(function, str):
        target = _known.get(function)
        if target is None:
            raise KeyError(f"fail_on_recompile: no live jitted function has function_key "
                           f"{function!r} (a key comes from a compile event of the function; "
                           f"it may have been deleted)")
    else:
        target = function
        if not hasattr(target, "_fail_on_recompile"):
            raise TypeError(f"fail_on_recompile: `function` must be a jitted function "
                            f"(jit(f)) or a compile event's function_key string, got "
                            f"{type(function).__name__} {function!r}")
    target._fail_on_recompile = enabled
    key = target.function_key
    _known[key] = target
    return key


def failing_on_recompile() -> list[str]:
    """The function_keys of the live jitted functions whose fail-on-recompile switch is on."""
    return sorted(key for key, jitted in list(_known.items()) if jitted._fail_on_recompile)


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
