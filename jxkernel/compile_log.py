"""The compile-event log: every jit cache miss, why it happened, and what it cost.

    >>> f = jxkernel.jit(lambda x: x * 2)
    >>> f(jnp.ones(3)); f(jnp.ones(4))
    >>> [e.reason for e in jxkernel.compile_events()][-2:]
    ['first call', 'x: f32[3] -> f32[4]']

Anyone may subscribe (the notebook's recompilation widget does);
`config.update("jax_log_compiles", True)` prints each event as it happens.
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import re
import sys
import threading
import time
import weakref

import numpy as np

from . import monitoring
from .config import config
from .core.source_info import user_source_info
from .xla import Phases
from .xla import dispatch as _dispatch


@dataclasses.dataclass(frozen=True)
class CompileEvent:
    """One compilation: which function, for which signature, why, and the time it took."""
    function: str                 # the jitted function's name (or a notebook cell's)
    source: str | None            # "file:line" where it was defined
    signature: tuple              # ((path, "f32[3]" or "static 3"), ...)
    reason: str                   # "first call", "x: f32[3] -> f32[4]", "static n: 3 -> 4", ...
    phases: Phases                # the compile pipeline's record: seconds per phase, and cache
    backend: str
    timestamp: float = dataclasses.field(default_factory=time.time)
    key: object = None            # identity of the jitted callable (for grouping)
    seq: int = 0                  # position in the log, set by record(): 1, 2, 3, ... never reused
    changes: tuple = ()           # the structured `reason`: Change(path, kind, old, new, fix, ...)

    @property
    def function_key(self) -> str:
        """A string naming this jitted function for as long as it lives: "f@file.py:3#1402"."""
        return function_key(self.function, self.source, self.key)

    trace_s = property(lambda self: self.phases.trace_s)
    lower_s = property(lambda self: self.phases.lower_s)
    compile_s = property(lambda self: self.phases.compile_s)
    cache = property(lambda self: self.phases.cache)     # "compiled", "disk" or "memory"
    total_s = property(lambda self: self.phases.total_s)

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
_logger = logging.getLogger(__name__)   # jax_explain_cache_misses writes here, as JAX logs
MAX_EVENTS = 10_000


_unlogged = threading.local()


@contextlib.contextmanager
def unlogged():
    """Compilations made inside are not logged: a tool's own (the timing profile compiles
    a program afresh to measure compiling), not the user's."""
    _unlogged.depth = getattr(_unlogged, "depth", 0) + 1
    try:
        yield
    finally:
        _unlogged.depth -= 1


def record(event: CompileEvent) -> CompileEvent:
    """Log `event` (numbered: the logged copy's `seq` is set) and tell the subscribers."""
    global _seq
    if getattr(_unlogged, "depth", 0):
        return event
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
    if config.jax_explain_cache_misses:
        _logger.warning(explain_miss(event, user_source_info()))
    monitoring.record_compile_phases(event.function, event.trace_s, event.lower_s,
                                     event.compile_s, event.timestamp)
    for callback in subscribers:
        try:
            callback(event)
        except Exception as e:             # a broken subscriber must not break compiling
            print(f"jxkernel: compile-event subscriber {callback!r} raised {e!r}", file=sys.stderr)
    return event


def record_compiled(function: str, signature: tuple, phases: Phases, backend: str, key=None,
                    reason: str | None = None) -> CompileEvent:
    """Log a compilation that is not a jit cache miss: a pmap, a shard_map or a transformed
    jit run eagerly, an ahead-of-time `.lower().compile()`. The reason (unless given) is what
    changed since `function`'s last logged signature:

        >>> e = record_compiled("pmap(f)", (("args[0]", "f32[4,3]"),), Phases(), "cpu")
        >>> e.reason
        'first call'
        >>> record_compiled("pmap(f)", (("args[0]", "f32[4,5]"),), Phases(), "cpu").reason
        'args[0]: f32[4,3] -> f32[4,5]'
    """
    if reason is None:
        with _lock:
            last = next((e.signature for e in reversed(_events) if e.function == function
                         and (key is None or e.key is key)), None)
        if last is None:
            reason = "first call"
        elif len(last) != len(signature):
            reason = f"{len(last)} arguments -> {len(signature)}"
        else:
            reason = ", ".join(f"{path}: {old} -> {new}" for (path, old), (_, new)
                               in zip(last, signature) if old != new) or "the same signature " \
                "compiled again (its cached executable was dropped, or another transformation)"
    return record(CompileEvent(function, None, tuple(signature), reason, phases, backend,
                               key=key))


def _record_eager(prim, avals, phases, device) -> None:
    """An eager operation's program (`jnp.sin(x)` outside jit compiles `sin` for its operands'
    types, once per process)."""
    from .xla import client
    record_compiled(f"{prim.name} (eager)", tuple((f"args[{i}]", a.str_short())
                                                  for i, a in enumerate(avals)),
                    phases, client.platform_of(device))


_dispatch.compile_listeners.append(_record_eager)


def explain_miss(event: CompileEvent, call_site=None) -> str:
    """What `jax_explain_cache_misses` logs for `event`, in the shape of JAX's message: where
    the call is, the function, and each difference from the nearest earlier signature.

        >>> print(explain_miss(CompileEvent("f", "a.py:3", (), "first call", Phases(), "cpu")))
        TRACING CACHE MISS:
          never seen function:
            f defined at a.py:3
    """
    where = "" if call_site is None else \
        f" at {call_site.file}:{call_site.line} ({call_site.function})"
    lines = [f"TRACING CACHE MISS{where}:"]
    fresh = any(c.kind == "fresh_jit" for c in event.changes)
    if event.reason == "first call" and not fresh:
        lines += ["  never seen function:", f"    {event.function} defined at {event.source}"]
        return "\n".join(lines)
    lines.append(f"  for {event.function} defined at {event.source}")
    if not event.changes:
        lines.append(f"  {event.reason}")
        return "\n".join(lines)
    lines += ["  all previously seen cache keys differ. For the closest previous key:",
              explanation_text(event.changes)]
    return "\n".join(lines)


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
    before, after = dict(old_static), dict(new_static)
    for path in [p for p, _ in new_static] + [p for p, _ in old_static if p not in after]:
        old, new = before.get(path, _ABSENT), after.get(path, _ABSENT)
        if old is _ABSENT or new is _ABSENT or old != new:
            reasons.append(f"static {path}: {_DEFAULT if old is _ABSENT else repr(old)} -> "
                           f"{_DEFAULT if new is _ABSENT else repr(new)}")
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


# ------------------------------------------------------------------ structured explanations
@dataclasses.dataclass(frozen=True)
class Change:
    """One difference between a new signature and the nearest earlier one, with its fix.

        >>> str(Change("params['w']", "shape", "f32[3]", "f32[4]"))
        "params['w']: shape f32[3] -> f32[4]"
    """
    path: str            # "x", "params['w']", "n" (static), "jax_enable_x64", "w (closed over)"
    kind: str            # one of KINDS
    old: str
    new: str
    fix: str = ""        # what to do, in a sentence
    snippet: str = ""    # the fix as code

    def __str__(self):
        return f"{self.path}: {self.kind} {self.old} -> {self.new}"

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


KINDS = ("shape", "dtype", "weak_type", "static", "traced", "structure", "constant", "config",
         "fresh_jit")


@dataclasses.dataclass(frozen=True)
class Signature:
    """What a compiled program was specialised on, as explain_changes compares it: named
    avals (path, ShapedArray), the pytree structure, static (name, value) pairs, the config
    (name, value) pairs, and the closed-over constants (name, value), None if unknown."""
    named: tuple
    treedef: object = None
    statics: tuple = ()
    config: tuple = ()
    consts: tuple | None = None


_ROOT = re.compile(r"^(args\[\d+\]|[^\[.]+)")


def _root(path: str) -> str:
    """The argument a leaf path belongs to: "params['w']" -> "params"."""
    found = _ROOT.match(path)
    return found.group(1) if found else path


def _aval_text(aval) -> str:
    return aval.str_short() + (" (weak)" if aval.weak_type else "")


def explain_changes(old: Signature | None, new: Signature) -> tuple:
    """The Changes from `old` to `new` (empty for a first call), each with its fix.

        >>> a = ShapedArray((3,), np.float32)
        >>> [str(c) for c in explain_changes(Signature((("x", a),)),
        ...                                  Signature((("x", a.update(shape=(4,))),)))]
        ['x: shape f32[3] -> f32[4]']
    """
    if old is None:
        return ()
    changes = [*_config_changes(old, new)]
    old_static, new_static = dict(old.statics), dict(new.statics)
    old_roots, new_roots = {_root(p) for p, _ in old.named}, {_root(p) for p, _ in new.named}
    flipped = (set(old_static) & new_roots) | (set(new_static) & old_roots)
    changes += _traced_changes(old, new, flipped)
    changes += _static_changes(old_static, new_static, flipped)
    changes += _leaf_changes(old, new, flipped)
    changes += _const_changes(old.consts, new.consts)
    return tuple(changes)


def _config_changes(old, new):
    before = dict(old.config)
    for name, value in new.config:
        if name in before and before[name] != value:
            yield _fixed(name, "config", before[name], value)


def _traced_changes(old, new, flipped):
    """An argument static in one signature and traced in the other."""
    def side(sig, name):
        value = dict(sig.statics).get(name, _ABSENT)
        if value is not _ABSENT:
            return f"static {value!r}"
        return ", ".join(_aval_text(a) for p, a in sig.named if _root(p) == name) or "absent"
    for name in sorted(flipped):
        yield _fixed(name, "traced", side(old, name), side(new, name))


_ABSENT = object()
_DEFAULT = "(not passed: its default)"


def _static_changes(old_static, new_static, flipped):
    for name in sorted(set(old_static) | set(new_static), key=str):
        if name in flipped:
            continue
        before, after = old_static.get(name, _ABSENT), new_static.get(name, _ABSENT)
        if before is _ABSENT or after is _ABSENT or before != after:
            yield _fixed(str(name), "static",
                         _DEFAULT if before is _ABSENT else repr(before),
                         _DEFAULT if after is _ABSENT else repr(after), name=name)


def _leaf_changes(old, new, flipped):
    before = {p: a for p, a in old.named if _root(p) not in flipped}
    after = {p: a for p, a in new.named if _root(p) not in flipped}
    moved = [p for p in after if p not in before] + [p for p in before if p not in after]
    for path in sorted(moved):
        yield _fixed(path, "structure", _aval_text(before[path]) if path in before else "absent",
                     _aval_text(after[path]) if path in after else "absent")
    if not moved and not flipped and old.treedef is not None and new.treedef is not None and \
            old.treedef != new.treedef:
        yield _fixed("(arguments)", "structure", str(old.treedef), str(new.treedef))
    for path, a in after.items():
        b = before.get(path)
        if b is None or a == b:
            continue
        if a.shape != b.shape:
            yield _fixed(path, "shape", b.str_short(), a.str_short(),
                         rank=len(a.shape) != len(b.shape) or not a.shape)
        elif a.dtype != b.dtype:
            yield _fixed(path, "dtype", _aval_text(b), _aval_text(a), dtype=b.dtype.name)
        else:
            yield _fixed(path, "weak_type", _aval_text(b), _aval_text(a), dtype=a.dtype.name)


def _const_changes(old, new):
    """Closed-over constants whose value differs (compared only when both sides know them)."""
    if old is None or new is None:
        return
    if len(old) != len(new):
        yield _fixed("(closed-over constants)", "constant", f"{len(old)} constant(s)",
                     f"{len(new)} constant(s)", name="c")
        return
    for (name, a), (_, b) in zip(old, new):
        if not _same_value(a, b):
            yield _fixed(f"{name} (closed over)", "constant", _value_text(a), _value_text(b),
                         name=name)


_COMPARE_MAX = 1 << 20          # elements: larger constants are compared by identity only


def _same_value(a, b) -> bool:
    if a is b:
        return True
    if getattr(a, "shape", None) != getattr(b, "shape", None) or \
            getattr(a, "dtype", None) != getattr(b, "dtype", None):
        return False
    if int(np.prod(getattr(a, "shape", ()))) > _COMPARE_MAX:
        return True              # too big to read back on every miss: not reported
    return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))


def _value_text(value, limit: int = 40) -> str:
    text = " ".join(np.array2string(np.asarray(value), threshold=6).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def change_distance(old: Signature, new: Signature) -> int:
    """How far two signatures are (to pick the nearest earlier one): a changed structure
    weighs more than any number of changed types."""
    d = sum(100 if c.kind in ("structure", "traced") else 1
            for c in explain_changes(old, new) if c.kind not in ("shape", "dtype", "weak_type"))
    before = dict(old.named)
    for path, a in new.named:            # per leaf: shape, dtype and weak type count apart
        b = before.get(path)
        if b is not None:
            d += (a.shape != b.shape) + (a.dtype != b.dtype) + (a.weak_type != b.weak_type)
    return d


def nearest(history, new: Signature):
    """The entry of `history` (Signatures, oldest first) nearest to `new`; the latest wins a
    tie. None for an empty history."""
    return min(reversed(history), default=None, key=lambda old: change_distance(old, new))


def _fixed(path, kind, old, new, name=None, dtype="float32", rank=False) -> Change:
    name = name or path
    fix, snippet = _FIXES[kind]
    if kind == "config" and path != "jax_enable_x64":
        fix, snippet = _DEVICE_FIX
    if rank:
        fix, snippet = _RANK_FIX
    fill = dict(path=path, name=name, root=_root(path), old=old, new=new, dtype=dtype)
    return Change(path, kind, str(old), str(new), fix.format(**fill), snippet.format(**fill))


_FIXES = {
    "shape": ("Every new shape compiles anew. Pad or bucket {path} to a few fixed sizes (a "
              "mask keeps the padding out of the result).",
              "n = {path}.shape[0]\n"
              "size = 1 << (n - 1).bit_length()        # the next power of two\n"
              "{path} = jnp.pad({path}, [(0, size - n)] + [(0, 0)] * ({path}.ndim - 1))"),
    "dtype": ("{path} came as {new} (before: {old}). Cast it before the call so that every "
              "call has one dtype.",
              "{path} = jnp.asarray({path}, jnp.{dtype})"),
    "weak_type": ("A Python scalar is weakly typed and an array is not, so {path} flipping "
                  "between them compiles anew. Pass the same kind every time.",
                  "{path} = jnp.asarray({path}, jnp.{dtype})    # always a (strong) array"),
    "static": ("Each new value of a static argument compiles anew. If {name} only sets values "
               "(not shapes or Python control flow), make it traced: drop it from "
               "static_argnums/static_argnames.",
               "f = jax.jit(f)    # {name} traced: one program for all its values"),
    "traced": ("{name} was {old} and is {new} now: a static argument is a Python value baked "
               "into the program, a traced one an abstract array. Treat it one way in every "
               "call.",
               "f = jax.jit(f, static_argnames=('{name}',))    # or traced, but always the same"),
    "structure": ("The arguments' pytree structure changed ({path}: {old} -> {new}), and every "
                  "structure compiles anew. Keep the same keys and fields (zeros or a mask "
                  "instead of a missing entry or None).",
                  "{root} = {{**defaults, **{root}}}    # the same keys in every call"),
    "constant": ("{name} is closed over: its value when traced is baked into the program. This "
                 "compile picked up its new value, while cache hits keep the old one. Pass it "
                 "as an argument instead.",
                 "f = jax.jit(lambda x, {name}: ...)    # then call f(x, {name})"),
    "config": ("jax_enable_x64 changed ({old} -> {new}): every default dtype changes, so "
               "everything compiles anew. Set it once, at start-up.",
               'jax.config.update("jax_enable_x64", {new})    # first thing, before any jit'),
    "fresh_jit": ("This is a new jit(...) of the same code in a new function object (a "
                  "lambda or nested def made anew): jit's cache is keyed on the function "
                  "object, so making it anew every time (say in a loop) compiles every "
                  "time. Make the jitted function once and reuse it.",
                  "f_jit = jax.jit(f)            # once, outside the loop\n"
                  "for batch in batches:\n"
                  "    out = f_jit(batch)"),
}
_RANK_FIX = ("{path} changed rank ({old} -> {new}), and every new shape compiles anew. Pass it "
             "with one rank every time.",
             "{path} = jnp.atleast_1d({path})    # a scalar becomes shape (1,)")
_DEVICE_FIX = ("The {path} changed ({old} -> {new}): a compiled program runs on one device. "
               "Keep the inputs on one device, or expect one compile per device.",
               "x = jax.device_put(x, jax.devices()[0])    # or %jxbackend cpu:0")


def fresh_jit_change(other_owner: str) -> Change:
    """The "jit in a loop" change: `other_owner` describes the earlier jit object."""
    return _fixed("(jit object)", "fresh_jit", other_owner, "a new jit object")


def explanation_text(changes, indent: str = "  ") -> str:
    """The changes as lines of text, each with its fix and code.

        >>> print(explanation_text([Change("x", "shape", "f32[3]", "f32[4]", "Pad.", "x = ...")]))
          x: shape f32[3] -> f32[4]
            fix: Pad.
              x = ...
    """
    lines = []
    for c in changes:
        lines.append(f"{indent}{c}")
        if c.fix:
            lines.append(f"{indent}  fix: {c.fix}")
        lines += [f"{indent}    {code}" for code in c.snippet.splitlines()]
    return "\n".join(lines)


# ------------------------------------------------------------------ the guard
_fail_on_any = False                  # no_recompile(): every jitted function refuses to recompile


def fail_on_any_recompile(enabled: bool) -> bool:
    """Turn the guard for every jitted function on or off; returns the previous setting."""
    global _fail_on_any
    if not isinstance(enabled, bool):
        raise TypeError(f"fail_on_any_recompile: `enabled` must be True or False, got "
                        f"{enabled!r}")
    before, _fail_on_any = _fail_on_any, enabled
    return before


def failing_on_any_recompile() -> bool:
    """Whether every jitted function refuses to recompile now (no_recompile(), %jxguard on)."""
    return _fail_on_any


class no_recompile:
    """Within the block (or each call of the decorated function) a RE-compilation raises
    `RecompileError` at the caller's line instead of compiling; afterwards the previous
    setting is back, also when the block raised. No function: every jitted function.

        >>> with no_recompile(f):          # f: a jitted function that compiled already
        ...     f(jnp.ones(4))             # a new shape: RecompileError
        >>> @no_recompile()
        ... def train(): ...
    """

    def __init__(self, function=None):
        if function is not None and not isinstance(function, str) and \
                not hasattr(function, "_fail_on_recompile"):
            raise TypeError(f"no_recompile: `function` must be a jitted function (jit(f)), a "
                            f"compile event's function_key, or nothing (every jitted "
                            f"function); got {type(function).__name__} {function!r}")
        if isinstance(function, str) and _known.get(function) is None:
            raise KeyError(f"no_recompile: no live jitted function has function_key "
                           f"{function!r}")
        self.function = function
        self._saved: list = []        # one previous setting per entered block (nesting works)

    def __enter__(self):
        if self.function is None:
            self._saved.append(fail_on_any_recompile(True))
        else:
            target = self.function if not isinstance(self.function, str) else \
                _known[self.function]
            self._saved.append((target, target._fail_on_recompile))
            fail_on_recompile(target, True)
        return self

    def __exit__(self, *exc):
        saved = self._saved.pop()
        if self.function is None:
            fail_on_any_recompile(saved)
        else:
            target, before = saved
            fail_on_recompile(target, before)
        return False

    def __call__(self, fun):
        """As a decorator: the guard is on during each call of `fun`."""
        if not callable(fun):
            raise TypeError(f"no_recompile(...) decorates a function; got {fun!r}")

        @functools.wraps(fun)
        def guarded(*args, **kwargs):
            with self:
                return fun(*args, **kwargs)
        return guarded
