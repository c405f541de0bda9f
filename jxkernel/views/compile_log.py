"""Why a jitted function compiled again: each compile compared with the nearest signature
compiled before, as Changes (what differs, its kind, and the fix in a sentence and in code).

    >>> f = jxkernel.jit(lambda x: x * 2)
    >>> f(jnp.ones(3)); f(jnp.ones(4))
    >>> [str(c) for c in jxkernel.compile_events()[-1].changes]
    ['x: shape f32[3] -> f32[4]']

The record itself (events, subscribers, cache hits, the recompile guard) is low, in
jxkernel/core/compile_log.py: jit publishes each cache miss there, and this module, installed
as its explainer, says why. `jxkernel.compile_log` is this module, so its names are here too.
"""
from __future__ import annotations

import collections
import dataclasses
import re
import sys
import weakref

import numpy as np

from ..core.config import config
from ..core import compile_log as _record
from ..core.compile_log import (  # noqa: F401  (jxkernel.compile_log: the record's names too)
    MAX_EVENTS, CompileEvent, Miss, cache_hits, clear, compile_events, events_since,
    fail_on_any_recompile, fail_on_recompile, failing_on_any_recompile, failing_on_recompile,
    function_key, last_seq, no_recompile, record, record_compiled, signature_text, subscribe,
    unlogged)
from ..core.errors import RecompileError
from ..core.source_info import user_source_info
from ..xla import client as _client


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


class _Large:
    """A closed-over constant too large to compare by value, as a signature keeps it: its type
    alone (holding the array would keep a device copy per compiled signature alive)."""
    __slots__ = ("shape", "dtype")

    def __init__(self, value):
        self.shape, self.dtype = tuple(value.shape), value.dtype

    def __repr__(self):
        return f"{np.dtype(self.dtype).name}{list(self.shape)}"


def _value_text(value, limit: int = 40) -> str:
    if type(value) is _Large:
        return repr(value)
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




# ------------------------------------------------------------------ explaining a jit's miss
def _config_of(device) -> tuple:
    """The configuration a compiled program is specialised on, as jit's cache key has it."""
    return (("jax_enable_x64", bool(config.jax_enable_x64)),
            ("device", f"{_client.platform_of(device)}:{device.id}"))


_LINEAGES: collections.OrderedDict = collections.OrderedDict()   # code -> deque of (jit, sig)
_MAX_LINEAGES, _PER_LINEAGE = 1024, 16
_PER_FUNCTION = 1024      # signatures a jit's history keeps (as many as its cache: SIGNATURES)
_CONSTS_KEPT = 16         # of which the newest keep their closed-over constants, to compare


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
    the new Signature). A first compile is compared with other jit objects of the same Python
    function (a jit made anew in a loop); `reason` keeps its one-line form ("first call")."""
    named = tuple(zip(miss.names, miss.avals))
    static_named = tuple((n, v) for n, v, _ in miss.statics)
    new = Signature(named, miss.treedef, static_named, _config_of(miss.device),
                    None if miss.consts is None else _named_consts(miss.jitted._fun, miss.consts))
    closest = nearest(miss.history, new)
    if closest is None:
        return named, static_named, None, "first call", _fresh_jit_changes(miss.jitted, new), new
    reason = explain(closest.named, named, closest.treedef, miss.treedef, closest.statics,
                     static_named)
    changes = explain_changes(closest, new)
    if reason.startswith("a changed configuration") and changes:     # say which
        reason = "; ".join(map(str, changes))
    return named, static_named, closest, reason, changes, new


def _fresh_jit_changes(jitted, new) -> tuple:
    """Against another jit object of the same function: jit(f) called anew each time."""
    # a copy first: jits of the same code compiled on other threads append to the deque
    # (iterating it meanwhile raised "deque mutated during iteration": benchmarks/stress.py)
    others = [sig for owner, sig in tuple(_lineage(jitted._fun)) if owner() is not jitted]
    closest = nearest(others, new)
    if closest is None:
        return ()
    compiled_for = signature_text((p, a.str_short()) for p, a in closest.named)
    return (fresh_jit_change(f"jit({jitted._name}) compiled for ({compiled_for})"),
            *explain_changes(closest, new))


def compiled(miss: Miss, phases, backend: str) -> CompileEvent:
    """The event of a jit cache miss that compiled: why, against the nearest earlier
    signature (which joins the jit's history)."""
    named, static_named, _, reason, changes, new = _explain(miss)
    miss.history.append(new)
    if len(miss.history) > _PER_FUNCTION:    # a function compiled for ever new shapes
        del miss.history[:-_PER_FUNCTION]
    if len(miss.history) > _CONSTS_KEPT:     # older signatures forget their constants' values
        old = miss.history[-_CONSTS_KEPT - 1]
        if old.consts is not None:
            miss.history[-_CONSTS_KEPT - 1] = dataclasses.replace(old, consts=None)
    jitted = miss.jitted
    # its jit held weakly, not by id: the log no longer keeps a dropped jit alive, so a new
    # one may have its id
    _lineage(jitted._fun).append((weakref.ref(jitted), dataclasses.replace(new, consts=None)))
    return CompileEvent(jitted._name, jitted._source_text(),
                        _named_signature(named, static_named), reason, phases, backend,
                        key=jitted, changes=changes)


def refusal(miss: Miss) -> RecompileError:
    """The error of a miss that fail_on_recompile refuses: pointing at the caller, with what
    changed and how to fix it as notes."""
    named, static_named, closest, reason, changes, _ = _explain(miss)
    jitted = miss.jitted
    err = RecompileError(jitted._name, jitted.function_key,
                         signature_text(_named_signature(closest.named, closest.statics)),
                         signature_text(_named_signature(named, static_named)),
                         reason, user_source_info())
    err.changes = changes
    if changes:
        err.add_note("What changed, and the fix:\n" + explanation_text(changes))
    return err


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


_record.install_explainer(sys.modules[__name__])   # this module explains every miss
