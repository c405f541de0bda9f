"""Why a jitted function compiled again: each compile compared with the nearest signature
compiled before, as Changes (what differs, its kind, and the fix in a sentence and in code).

    >>> f = jxkernel.jit(lambda x: x * 2)
    >>> f(jnp.ones(3)); f(jnp.ones(4))
    >>> [str(c) for c in jxkernel.compile_events()[-1].changes]
    ['x: shape f32[3] -> f32[4]']

The record itself (events, subscribers, cache hits, the recompile guard) is low, in
jxkernel/core/compile_record.py: jit publishes each cache miss there, and this module, installed
as its explainer, says why. `jxkernel.compile_log` is this module, so its names are here too.
"""
from __future__ import annotations

import collections
import dataclasses
import functools
import linecache
import logging
import os
import re
import sys
import weakref

import numpy as np

from ..core.config import config
from ..core import compile_record as _record
from ..core.compile_record import (  # noqa: F401  (jxkernel.compile_log: the record's names too)
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
    changed = {name for name, value in new.config if name in before and before[name] != value}
    if "donate_argnums" in changed:           # its names follow from its numbers: one change
        changed.discard("donate_argnames")
    for name, value in new.config:
        if name in changed:
            yield _fixed(name, "config", before[name], value)


def _traced_changes(old, new, flipped):
    """An argument static in one signature and traced in the other."""
    def side(sig, name):
        value = dict(sig.statics).get(name, _ABSENT)
        if value is not _ABSENT:
            return f"static {value!r}"
        return ", ".join(_aval_text(a) for p, a in sig.named if _root(p) == name) or "absent"
    for name in sorted(flipped):
        change = _fixed(name, "traced", side(old, name), side(new, name))
        arrays = [a for sig in (old, new) for p, a in sig.named if _root(p) == name]
        if any(a.shape for a in arrays):      # an array (not hashable) cannot be static
            change = _refixed(change, _ARRAY_TRACED_FIX)
        yield change


_ABSENT = object()
_DEFAULT = "(not passed: its default)"


def _static_changes(old_static, new_static, flipped):
    for name in sorted(set(old_static) | set(new_static), key=str):
        if name in flipped:
            continue
        before, after = old_static.get(name, _ABSENT), new_static.get(name, _ABSENT)
        if before is _ABSENT or after is _ABSENT or before != after:
            change = _fixed(str(name), "static",
                            _DEFAULT if before is _ABSENT else repr(before),
                            _DEFAULT if after is _ABSENT else repr(after), name=name)
            if after is not _ABSENT and _hashed_by_identity(after):
                change = _refixed(change, _IDENTITY_FIX, kind=type(after).__name__)
            elif after is not _ABSENT and not _traceable(after):
                change = _refixed(change, _STATIC_KEEP_FIX, kind=type(after).__name__)
            yield change


def _traceable(value) -> bool:
    """Whether a static value could be passed traced instead: a number or a NumPy value."""
    return isinstance(value, (bool, int, float, complex, np.number, np.bool_, np.ndarray))


def _hashed_by_identity(value) -> bool:
    """An object whose class keeps object's own __hash__ and __eq__: every instance is a new
    static value, however alike."""
    kind = type(value)
    return kind.__hash__ is object.__hash__ and kind.__eq__ is object.__eq__


def _leaf_changes(old, new, flipped):
    before = {p: a for p, a in old.named if _root(p) not in flipped}
    after = {p: a for p, a in new.named if _root(p) not in flipped}
    moved = [p for p in after if p not in before] + [p for p in before if p not in after]
    for path in sorted(moved):
        change = _fixed(path, "structure",
                        _aval_text(before[path]) if path in before else "absent",
                        _aval_text(after[path]) if path in after else "absent")
        if path == _root(path):                     # a whole argument passed, then not
            change = _refixed(change, _ARGUMENT_FIX)
        elif path.endswith("]") and re.search(r"\[\d+\]$", path):   # a list's length
            change = _refixed(change, _LENGTH_FIX)
        yield change
    if not moved and not flipped and old.treedef is not None and new.treedef is not None and \
            old.treedef != new.treedef:
        change = _fixed("(arguments)", "structure", str(old.treedef), str(new.treedef))
        yield _refixed(change, _KEYWORD_FIX if _by_keyword_now(old.treedef, new.treedef)
                       else _CONTAINER_FIX)
    for path, a in after.items():
        b = before.get(path)
        if b is None or a == b:
            continue
        if a.shape != b.shape:
            yield _fixed(path, "shape", b.str_short(), a.str_short(),
                         rank=len(a.shape) != len(b.shape) or not a.shape)
        elif a.dtype != b.dtype:
            change = _fixed(path, "dtype", _aval_text(b), _aval_text(a), dtype=b.dtype.name)
            if a.weak_type and b.weak_type and not b.shape:       # two Python scalars
                change = _refixed(change, _PY_SCALAR_FIX,
                                  py=_PY_TYPE.get(b.dtype.kind, "float"))
            yield change
        else:
            yield _fixed(path, "weak_type", _aval_text(b), _aval_text(a), dtype=a.dtype.name)


def _by_keyword_now(old_tree, new_tree) -> bool:
    """Whether the (args, kwargs) structures differ in which arguments came by keyword."""
    try:
        (old_args, old_kwargs), (new_args, new_kwargs) = old_tree.children(), new_tree.children()
        return old_args.num_leaves != new_args.num_leaves and \
            old_kwargs.num_leaves != new_kwargs.num_leaves
    except (AttributeError, ValueError, TypeError):
        return False


def _refixed(change: Change, fix_and_snippet, **more) -> Change:
    """`change` with another fix (a template of _FIXES' kind)."""
    fix, snippet = fix_and_snippet
    fill = dict(path=change.path, name=change.path, root=_root(change.path), old=change.old,
                new=change.new, **more)
    return dataclasses.replace(change, fix=fix.format(**fill), snippet=snippet.format(**fill))


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
    if kind == "config" and path in dict(_JIT_OPTIONS):
        fix, snippet = _OPTION_FIX
    elif kind == "config" and path != "jax_enable_x64":
        fix, snippet = _DEVICE_FIX
    if rank:
        fix, snippet = _RANK_FIX
    fill = dict(path=path, name=name, root=_root(path), old=old, new=new, dtype=dtype)
    return Change(path, kind, str(old), str(new), fix.format(**fill),
                  _assignable(path, snippet.format(**fill)))


_FIELD = re.compile(r"^(?P<obj>.+)\.(?P<field>[A-Za-z_]\w*)$")


def _assignable(path: str, snippet: str) -> str:
    """`snippet` with its `p.y = ...` lines (a namedtuple's field cannot be assigned) as
    `p = p._replace(y=...)`."""
    found = _FIELD.match(path)
    if found is None:
        return snippet
    obj, field = found.group("obj"), found.group("field")
    lines = []
    for line in snippet.splitlines():
        if line.startswith(f"{path} = "):
            value = line[len(path) + 3:].partition("    #")[0]
            line = f"{obj} = {obj}._replace({field}={value.strip()})" \
                "    # dataclasses.replace(...) for a dataclass"
        lines.append(line)
    return "\n".join(lines)


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
                  "between them compiles anew. Pass the same kind every time (weak types: "
                  "https://docs.jax.dev/en/latest/type_promotion.html#weak-types).",
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
_PY_TYPE = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}
_PY_SCALAR_FIX = ("{path} came as {new} (before: {old}): two Python numbers of different "
                  "kinds (say 1 and 1.0) are two types. Pass the same kind every time.",
                  "{path} = {py}({path})    # always a Python {py}")
_STATIC_KEEP_FIX = (
    "{name} is static ({old} -> {new}): each value compiles once, and later calls with a "
    "value seen before reuse its program. A {kind} cannot be traced, so a compile per value "
    "is what to expect; for many values, map them to an integer and choose with "
    "lax.switch (the integer traced: one program).",
    "i = MODES.index({name})                      # an int, traced\n"
    "out = jax.lax.switch(i, [branch_0, branch_1], x)")
_PARTIAL_FRESH_FIX = (
    "This is jit(functools.partial({func}, ...)) made anew: every partial is a new function "
    "object, and jit's cache is keyed on the function object, so each one traces and "
    "compiles again. Jit {func} once and pass what the partial bound as arguments (static "
    "if it must be).",
    "f_jit = jax.jit({func})    # once\n"
    "out = f_jit(k, x)    # k passed, not bound")
_CLOSURE_FRESH_FIX = (
    "This is a new function object of the same code, a closure over {names} made anew (a "
    "factory, or a def inside a loop): jit's cache is keyed on the function object, so "
    "each one traces and compiles again, even when {names} did not change. Pass {names} "
    "as arguments to one jitted function (traced: one program for all values), or keep "
    "one jitted function per value and reuse it.",
    "@jax.jit\n"
    "def f(x, {first}):     # what the closure read, now an argument\n"
    "    ...")
_ARRAY_TRACED_FIX = (
    "{name} was {old} and is {new} now: static in one jit, traced in the other. An array "
    "cannot be static (it is not hashable): keep {name} traced in every jit of the "
    "function.",
    "f = jax.jit(f)    # {name} traced (no static_argnums for it)")
_IDENTITY_FIX = ("{name} is a {kind} object, and {kind} keeps object's own hash and ==, by "
                 "identity: every new instance is a new static value and compiles anew, however "
                 "alike. Reuse one instance, or give {kind} __hash__ and __eq__ over the fields "
                 "that matter (or register it as a pytree, its arrays traced).",
                 "def __hash__(self): return hash((self.k,))          # in class {kind}\n"
                 "def __eq__(self, other): return (self.k,) == (other.k,)")
_ARGUMENT_FIX = ("{path} was {old} and is {new} now: an argument left to its default and one "
                 "passed are two different argument structures, each compiled. Pass {path} "
                 "in every call, or in none.",
                 "f(..., {path}={path})    # in every call")
_LENGTH_FIX = ("{root} changed length ({path}: {old} -> {new}): a list's length is part of "
               "its pytree structure, and every structure compiles anew. Keep the length "
               "fixed (pad it), or stack the items into one array.",
               "{root} = jnp.stack({root})    # one array: its length is then a shape")
_KEYWORD_FIX = ("The same argument came by position in one call and by keyword in the other "
                "({old} -> {new}): which arguments are keywords is part of the cache key. "
                "Pass each argument the same way in every call.",
                "f(x)    # or always f(x=x): one way, every call")
_CONTAINER_FIX = ("The arguments' pytree structure changed ({old} -> {new}): a tuple, a list "
                  "or a dict of the same arrays are different structures, each compiled. "
                  "Pass the same container type in every call.",
                  "xs = tuple(xs)    # one container type, every call")
_RANK_FIX = ("{path} changed rank ({old} -> {new}), and every new shape compiles anew. Pass it "
             "with one rank every time.",
             "{path} = jnp.atleast_1d({path})    # a scalar becomes shape (1,)")
_OPTION_FIX = ("{path} differs between two jits of this function ({old} -> {new}): each set "
               "of jit options compiles a program of its own (JAX traces once, and lowers and "
               "compiles twice). Jit the function once with the options you need, and call "
               "that one.",
               "f = jax.jit(g, {path}={new})    # once; call f everywhere")
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
def _config_of(device, jitted=None) -> tuple:
    """The configuration a compiled program is specialised on, as jit's cache key has it:
    x64, the device, and the jit's own options that make another program (two jits of one
    function with other donate_argnums share the trace, not the program)."""
    found = (("jax_enable_x64", bool(config.jax_enable_x64)),
             ("device", f"{_client.platform_of(device)}:{device.id}"))
    if jitted is None:
        return found
    return found + tuple((name, _option_text(getattr(jitted, attr, None)))
                         for name, attr in _JIT_OPTIONS)


_JIT_OPTIONS = (("donate_argnums", "_donate_argnums"), ("donate_argnames", "_donate_argnames"),
                ("inline", "_inline"), ("keep_unused", "_keep_unused"),
                ("compiler_options", "_compiler_options"))


def _option_text(value) -> str:
    if isinstance(value, (set, frozenset)):
        value = tuple(sorted(value, key=str))
    elif isinstance(value, dict):
        value = dict(sorted(value.items()))
    return repr(value)


_LINEAGES: collections.OrderedDict = collections.OrderedDict()
# (cell file, qualname, code) -> deque of (a weak reference to the jitted callable, one to the
# jit, Signature): the callable itself is what JAX's tracing cache is keyed on
_MAX_LINEAGES, _PER_LINEAGE = 1024, 16
_PER_FUNCTION = 1024      # signatures a jit's history keeps (as many as its cache: SIGNATURES)
_CONSTS_KEPT = 16         # of which the newest keep their closed-over constants, to compare


def _user_function(fun):
    """The function a jitted callable really runs: through functools.partial, bound methods
    and `functools.wraps` wrappers (a %%jit cell's jitted `cell` wraps the cell's own code:
    every cell's wrapper has the same code, the cells do not)."""
    for _ in range(32):
        if isinstance(fun, functools.partial):
            fun = fun.func
        elif getattr(fun, "__func__", None) is not None and hasattr(fun, "__self__"):
            fun = fun.__func__
        elif getattr(fun, "__wrapped__", None) is not None:
            fun = fun.__wrapped__
        else:
            break
    return fun


_CELL_FILE = re.compile(r"^<ipython-input-\d+-([0-9a-f]+)>$")


def _code_key(fun):
    """What makes two function objects "the same code", as a re-run cell or a lambda made
    anew in a loop: equal code objects (bytecode, constants, names, first line) in the same
    file, a notebook cell's file named by its content (IPython's execution count dropped),
    and the same qualified name. None when there is no code to compare."""
    code = getattr(_user_function(fun), "__code__", None)
    if code is None:
        return None
    found = _CELL_FILE.match(code.co_filename)
    return (found.group(1) if found else code.co_filename,
            getattr(code, "co_qualname", code.co_name), code)


def _weak(fun):
    try:
        return weakref.ref(fun)
    except TypeError:                # not weakly referable: never taken for the same object
        return lambda: None


def _lineage(fun) -> collections.deque:
    """The recent signatures compiled for `fun`'s code by any jit object (a lambda made anew
    in a loop shares its code), to explain a jit called anew each time."""
    key = _code_key(fun)
    if key is None:          # no code to recognise it by (an id could be reused): no lineage
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
    the new Signature).

    As JAX's tracing cache, which is keyed on the Python function (not the jit object): a
    first compile of this jit object is compared with what other jit objects of the *same
    function object* compiled (jit(f) and jit(f, static_argnums=1): "n was traced, is static
    now"). A function object never seen is a first call ("never seen function"); when
    another object of the same code compiled before (a lambda made anew in a loop, a cell
    run again) it says so (fresh_jit), and nothing more: the new object is the cause."""
    named = tuple(zip(miss.names, miss.avals))
    static_named = tuple((n, v) for n, v, _ in miss.statics)
    new = Signature(named, miss.treedef, static_named, _config_of(miss.device, miss.jitted),
                    None if miss.consts is None else _named_consts(miss.jitted._fun, miss.consts))
    closest = nearest(miss.history, new)
    if closest is None:
        fun = miss.jitted._fun
        seen = [sig for ref, owner, sig in tuple(_lineage(fun))
                if owner() is not miss.jitted and ref() is fun]
        closest = nearest(seen, new)
        if closest is None:
            return named, static_named, None, "first call", _fresh_jit_changes(miss.jitted), \
                new
    reason = explain(closest.named, named, closest.treedef, miss.treedef, closest.statics,
                     static_named)
    changes = explain_changes(closest, new)
    if changes and (reason.startswith("a changed configuration") or
                    any(c.kind == "traced" for c in changes)):     # say which
        reason = "; ".join(map(str, changes))
    return named, static_named, closest, reason, changes, new


def _fresh_jit_changes(jitted) -> tuple:
    """A function object never seen, of the same code as one compiled before (jit(lambda)
    made anew in a loop, a cell run again): the fresh_jit change, alone."""
    fun = jitted._fun
    # a copy first: jits of the same code compiled on other threads append to the deque
    # (iterating it meanwhile raised "deque mutated during iteration": benchmarks/stress.py)
    others = [(owner, sig) for ref, owner, sig in tuple(_lineage(fun))
              if owner() is not jitted and ref() is not fun]
    if not others:
        return ()
    _, sig = others[-1]
    compiled_for = signature_text((p, a.str_short()) for p, a in sig.named)
    change = fresh_jit_change(f"jit({jitted._name}) compiled for ({compiled_for})")
    free = getattr(getattr(_user_function(fun), "__code__", None), "co_freevars", ())
    if isinstance(fun, functools.partial):      # jit(partial(g, k)) made anew
        change = _refixed(change, _PARTIAL_FRESH_FIX,
                          func=getattr(fun.func, "__name__", "g"))
    elif free:                  # a closure made anew (a factory): its values may differ
        change = _refixed(change, _CLOSURE_FRESH_FIX, names=", ".join(free),
                          first=free[0])
    return (change,)


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
    # the jit held weakly: the log keeps no dropped jit alive, and a new jit may take a dropped
    # one's id
    _lineage(jitted._fun).append((_weak(jitted._fun), _weak(jitted),
                                  dataclasses.replace(new, consts=None)))
    source = _source_of(jitted)
    return CompileEvent(jitted._name, source, _named_signature(named, static_named), reason,
                        phases, backend, key=jitted, changes=changes,
                        origin=_record.origin_of(source, jitted._by_user))


def _source_of(jitted) -> str | None:
    """Where the jitted function was defined ("file:line"); for a functools.partial or a
    wrapper, where the function it runs was."""
    found = jitted._source_text()
    if found is None:
        code = getattr(_user_function(jitted._fun), "__code__", None)
        if code is not None:
            found = f"{code.co_filename}:{code.co_firstlineno}"
    return found


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
    err.args = (_refusal_text(jitted, err, where),)
    library = _is_library(jitted)
    if changes and not library:
        err.add_note("What changed, and the fix:\n" + explanation_text(changes))
    elif library:
        err.add_note("A library function compiles once per input type (shape, dtype) it is "
                     "given, as your own jitted functions do. Under the guard, call it with "
                     "the types it compiled for, or run it once with each type before turning "
                     "the guard on.")
    return err


def _is_library(jitted) -> bool:
    """Whether the jitted function is jxkernel's own (jnp.sum's inner jit), not one the user
    made (`summed = jax.jit(jnp.sum)` in a cell is the user's, named as the user holds it)."""
    source = getattr(jitted, "_source", None)
    return not getattr(jitted, "_by_user", False) and source is not None and \
        _source_internal(source.file)


def _source_internal(filename: str) -> bool:
    return filename.startswith(_PACKAGE_DIR)


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _user_frame():
    """The innermost frame outside jxkernel (the user's call), or None."""
    frame = sys._getframe(1)
    while frame is not None and _source_internal(frame.f_code.co_filename):
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


def _refusal_text(jitted, err, where) -> str:
    at = f"called at {where.file}:{where.line}\n" if where is not None else ""
    per_function = bool(getattr(jitted, "_fail_on_recompile", False))
    signatures = (f"  compiled for: ({err.old_signature})\n"
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
    return (f"jit({jitted._name}) would recompile because {err.reason}, and {switch}.\n" +
            signatures + at +
            f"Call it with the compiled signature, or allow recompiling "
            f"{'with ' if per_function else 'by '}{allow}.")


def explain_miss(event: CompileEvent, call_site=None) -> str:
    """What `jax_explain_cache_misses` logs for `event`, in the shape of JAX's message: where
    the call is, the function, and each difference from the nearest earlier signature.

        >>> print(explain_miss(CompileEvent("f", "a.py:3", (), "first call", Phases(), "cpu")))
        TRACING CACHE MISS:
          never seen function:
            f defined at a.py:3
    """
    if not _users(event):
        return ""                  # not logged (the filter below drops an empty message)
    where = "" if call_site is None else \
        f" at {call_site.file}:{call_site.line} ({call_site.function})"
    defined = "" if event.source is None else f" defined at {event.source}"
    lines = [f"TRACING CACHE MISS{where}:"]
    fresh = [c for c in event.changes if c.kind == "fresh_jit"]
    if event.reason == "first call":            # as JAX: a function object not traced before
        lines += ["  never seen function:", f"    {event.function}{defined}"]
        if fresh:       # JAX guesses this from the call site; here the code is the same
            lines += ["  but another function object of the same code compiled before "
                      f"({fresh[0].old}): the function is being re-defined, preventing "
                      "caching", explanation_text(fresh)]
        return "\n".join(lines)
    lines.append(f"  for {event.function}{defined}")
    if not event.changes:
        lines.append(f"  {event.reason}")
        return "\n".join(lines)
    lines += ["  all previously seen cache keys differ. For the closest previous key:",
              explanation_text(event.changes)]
    return "\n".join(lines)


def _users(event: CompileEvent) -> bool:
    """Whether `event` is a compile JAX's jax_explain_cache_misses would explain: a miss of a
    function the user wrote (JAX skips its own files), not a jitted function inside
    jxkernel (jnp.sum's), an eager operation's program or a transformed jit's (vmap of a
    jitted function: no source), which JAX does not log as tracing misses."""
    if event.source is None:
        return False
    return not _source_internal(event.source.rsplit(":", 1)[0])


class _UsersMissesOnly(logging.Filter):
    """Drops the empty messages explain_miss gives for compiles JAX would not explain."""

    def filter(self, record) -> bool:
        return bool(record.getMessage())


if not any(isinstance(f, _UsersMissesOnly) for f in _record._logger.filters):
    _record._logger.addFilter(_UsersMissesOnly())
_record.install_explainer(sys.modules[__name__])   # this module explains every miss
