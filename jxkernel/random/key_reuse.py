"""JAX's key-reuse checker (`jax_debug_key_reuse`, `jax.debug_key_reuse`,
jax.experimental.key_reuse): with it on, a typed key (`random.key`) used twice raises
KeyReuseError, with JAX 0.10.2's messages.

How it works, as in JAX. Each primitive has a *signature* saying what it does to its key
operands and results: `Sink(i)` consumes operand i, `Source(j)` makes result j a fresh key,
`Forward(i, j)` makes result j the same key as operand i (a reshape of it, say); a key result
neither sourced nor forwarded counts as consumed. `random_bits` sinks its key, `random_split`
sinks it and sources its result, `random_fold_in`, `random_seed`, `random_wrap` and
`random_clone` source theirs, `random_unwrap` and `eq` touch nothing, and a primitive with no
rule sinks every key operand. A jaxpr's signature comes from running these over its equations
(`jaxpr_type_signature`): a key sunk twice is an error ("In random_bits, argument 0 is already
consumed."). jit, cond, scan, while, checkpoint and shard_map equations take their signature
from their inner jaxprs; a loop whose body consumes a key it does not source again would reuse
it on the next iteration, which is an error too.

Where it runs: every jaxpr jit and make_jaxpr trace is checked as it is traced; and eagerly a
KeyArray remembers whether it was consumed (`_consumed`, a bool or a mask over its keys), so
that an eager primitive or jit call given a consumed key raises "Previously-consumed key passed
to jit-compiled function at index 0", the error's cause saying where the key was first used.

    >>> with jax.debug_key_reuse(True):
    ...     k = jax.random.key(0)
    ...     jax.random.normal(k)
    ...     jax.random.normal(k)
    Traceback (most recent call last):
      ...
    jxkernel.errors.KeyReuseError: Previously-consumed key passed to jit-compiled function at index 0
    See https://docs.jax.dev/en/latest/errors.html#jax.errors.KeyReuseError
"""
from __future__ import annotations

import functools
import threading
import traceback as _traceback
from collections import defaultdict
from collections.abc import MutableMapping
from typing import NamedTuple

import numpy as np

from ..core import dtypes
from ..core import trace as _trace
from ..core.avals import get_aval
from ..core.traceback_util import include_filename
from ..core.config import config
from ..core.errors import KeyReuseError
from ..core.ir import ClosedJaxpr, Jaxpr, Literal
from ..core.primitive import (Primitive, abstract_eval_rules, all_primitives, batching_rules,
                              impl_rules)
from ..core.physical import physical_rules
from ..transforms.ad_util import defjvp_zero
from ..transforms.make_jaxpr import make_jaxpr
from . import key_prims
from . import keys as _keys
from .keys import KeyArray

_SOURCE_CONTEXT_MESSAGE = ("PRNG key first used at the above location was subsequently reused "
                           "at the following location:")


# ------------------------------------------------------------------ signatures
@functools.total_ordering
class _Mark:
    """Sink or Source: an operand (result) index and a mask over its keys (True: all)."""
    __slots__ = ("idx", "mask")

    def __init__(self, idx: int, mask=True):
        if isinstance(mask, np.ndarray):
            if not mask.any():          # (an empty mask, vmap over a size-0 axis, included)
                mask = False
            elif mask.all():
                mask = True
            else:
                mask = np.array(mask, dtype=bool)
                mask.flags.writeable = False
        else:
            mask = bool(mask)
        object.__setattr__(self, "idx", int(idx))
        object.__setattr__(self, "mask", mask)

    def __setattr__(self, *_):
        raise ValueError(f"{type(self).__name__} is immutable")

    def _key(self):
        mask = self.mask
        return (type(self).__name__, self.idx, np.shape(mask),
                tuple(np.ravel(mask).tolist()))

    def __eq__(self, other):
        return isinstance(other, _Mark) and self._key() == other._key()

    def __lt__(self, other):
        if isinstance(other, Forward):
            return True
        if isinstance(other, _Mark):
            return (type(self).__name__, self.idx) < (type(other).__name__, other.idx)
        return NotImplemented

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        if self.mask is True:
            return f"{type(self).__name__}({self.idx})"
        return f"{type(self).__name__}({self.idx}, {self.mask})"


class Sink(_Mark):
    """Operand `idx` is consumed (where `mask` is True)."""


class Source(_Mark):
    """Result `idx` is a fresh, unconsumed key (where `mask` is True)."""


class Forward(NamedTuple):
    """Result `out_idx` is operand `in_idx`'s key, consumed as it is."""
    in_idx: int
    out_idx: int

    def __repr__(self):
        return f"Forward({self.in_idx}, {self.out_idx})"


class KeyReuseSignature:
    """A set of Sink, Source and Forward marks: what a primitive or jaxpr does to keys."""

    def __init__(self, *marks):
        self._marks = frozenset(marks)

    def __repr__(self):
        return f"KeyReuseSignature{tuple(sorted(self._marks))}"

    def __eq__(self, other):
        return isinstance(other, KeyReuseSignature) and self._marks == other._marks

    def __hash__(self):
        return hash(self._marks)

    # (by operand: a set's order is its hashes', and JAX's first consumed operand is named)
    sinks = property(lambda self: sorted((m for m in self._marks if isinstance(m, Sink)),
                                         key=lambda m: m.idx))
    sources = property(lambda self: [m for m in self._marks if isinstance(m, Source)])
    forwards = property(lambda self: [m for m in self._marks if isinstance(m, Forward)])

    def check_signature(self, *args, funcname="function", context=None):
        """Raise KeyReuseError if an operand this signature sinks is an already consumed
        KeyArray."""
        for sink in self.sinks:
            arg = args[sink.idx]
            if isinstance(arg, KeyArray) and np.any(_consumed(arg) & sink.mask):
                message = f"Previously-consumed key passed to {funcname} at index {sink.idx}"
                if context:
                    message += f" {context}"
                _keys.refused_draw()        # (no draw for the notebook's note to tell)
                raise _error_with_first_use(message, getattr(arg, "_source_info", None))

    def update_consumption(self, args_in, args_out):
        """Mark the KeyArrays this signature consumed, and its results' state."""
        for sink in self.sinks:
            arg = args_in[sink.idx]
            if isinstance(arg, KeyArray):
                arg._consumed = _consumed(arg) | sink.mask
                if np.any(sink.mask):
                    arg._source_info = _user_stack()
        for arg in args_out:
            if isinstance(arg, KeyArray):
                arg._consumed = True
        for source in self.sources:
            out = args_out[source.idx]
            if isinstance(out, KeyArray):
                out._consumed = ~np.asarray(source.mask)
        for fwd in self.forwards:
            arg, out = args_in[fwd.in_idx], args_out[fwd.out_idx]
            if isinstance(arg, KeyArray) and isinstance(out, KeyArray):
                out._consumed = _consumed(arg)


def _consumed(key):
    return getattr(key, "_consumed", False)


def _user_stack():
    """Where the program is now, as filtered tracebacks show it (without jxkernel's frames,
    nor a library's registered with traceback_util): where a key was consumed. JAX 0.10.2
    filters that traceback with traceback_util.filter_traceback too (key_reuse/_core.py)."""
    stack = _traceback.extract_stack()[:-1]
    return [f for f in stack if include_filename(f.filename)]


def _error_with_first_use(message: str, first_use) -> KeyReuseError:
    """JAX's error for an eager reuse: its cause says where the key was first consumed (JAX
    attaches that place as the cause's traceback; here it is the cause's note)."""
    err = KeyReuseError(message)
    if first_use:
        cause = KeyReuseError(_SOURCE_CONTEXT_MESSAGE)
        cause.add_note("The key was first used at:\n" +
                       "".join(_traceback.format_list(first_use)).rstrip())
        err.__cause__ = cause
    return err


# ------------------------------------------------------------------ rules, by primitive name
class DynamicKeyReuseSignature(NamedTuple):
    """A rule computing an equation's signature from the equation (its params' jaxprs)."""
    signature: object


def dynamic_key_reuse_signature(f) -> DynamicKeyReuseSignature:
    return DynamicKeyReuseSignature(f)


class _Signatures(MutableMapping):
    """The rules keyed by primitive, as JAX's `key_reuse_signatures[random_bits_p]` and as
    jxkernel's other rule tables (a user's rule: `key_reuse_signatures[my_p] = ...`).
    jxkernel's own rules are written by primitive name (not imported: a rule for a primitive
    a program never loads costs nothing) and become the entry of the primitive of that name
    (`all_primitives`) once it exists; a user's Primitive("reshape") gets no rule of lax's.

        >>> key_reuse_signatures[jax.lax.reshape_p] == KeyReuseSignature(Forward(0, 0))
        True
    """

    def __init__(self):
        self._rules, self._by_name = {}, {}

    def _resolve(self):
        for name in [n for n in self._by_name if n in all_primitives]:
            self._rules.setdefault(all_primitives[name], self._by_name.pop(name))

    def get(self, prim, default=None):
        # (no KeyError raised and caught: the eager check asks once per primitive run)
        rule = self._rules.get(prim)
        if rule is not None:
            return rule
        name = getattr(prim, "name", None)
        if name in self._by_name and all_primitives.get(name) is prim:
            rule = self._rules[prim] = self._by_name.pop(name)
            return rule
        return default

    def __getitem__(self, prim):
        rule = self.get(prim)
        if rule is None:
            raise KeyError(prim)
        return rule

    def __setitem__(self, prim, rule):
        self._rules[prim] = rule

    def __delitem__(self, prim):
        self[prim]                                # a named rule resolved first, or KeyError
        del self._rules[prim]

    def __iter__(self):
        self._resolve()
        return iter(self._rules)

    def __len__(self):
        self._resolve()
        return len(self._rules)


key_reuse_signatures = _Signatures()


def _set(names, signature):
    for name in names.split():
        key_reuse_signatures._by_name[name] = signature


_set("consume", KeyReuseSignature(Sink(0), Forward(0, 0)))
_set("assert_consumed_value", KeyReuseSignature(Forward(0, 0)))
_set("random_clone random_fold_in random_seed random_wrap", KeyReuseSignature(Source(0)))
_set("random_bits random_gamma", KeyReuseSignature(Sink(0)))
_set("random_split", KeyReuseSignature(Sink(0), Source(0)))
# the shape and layout operations hand on the same keys (JAX's: broadcast too)
_set("broadcast_in_dim copy stage convert_element_type reshape squeeze layout_constraint "
     "sharding_constraint reshard dynamic_slice gather", KeyReuseSignature(Forward(0, 0)))
_set("random_unwrap debug_callback eq ne", KeyReuseSignature())
_set("dynamic_update_slice", KeyReuseSignature(Sink(1), Forward(0, 0)))
_set("scatter", KeyReuseSignature(Sink(2), Forward(0, 0)))


def _rule(*names):
    def register(f):
        for name in names:
            key_reuse_signatures._by_name[name] = DynamicKeyReuseSignature(f)
        return f
    return register


def is_key(var) -> bool:
    dtype = getattr(getattr(var, "aval", None), "dtype", None)
    return isinstance(dtype, dtypes.ExtendedDType) and getattr(dtype, "type", None) is \
        dtypes.prng_key


def unknown_signature(eqn) -> KeyReuseSignature:
    """A primitive without a rule consumes every key it is given and makes none."""
    return KeyReuseSignature(*(Sink(i) for i, v in enumerate(eqn.invars) if is_key(v)))


def key_reuse_signature_from_eqn(eqn) -> KeyReuseSignature:
    sig = key_reuse_signatures.get(eqn.primitive)
    if sig is None:
        return unknown_signature(eqn)
    if isinstance(sig, DynamicKeyReuseSignature):
        return sig.signature(eqn)
    return sig


def _open(jaxpr):
    return jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr


@_rule("slice")
def _slice_signature(eqn):
    aval = eqn.invars[0].aval
    if not is_key(eqn.invars[0]) or not all(isinstance(d, int) for d in aval.shape):
        return KeyReuseSignature(Forward(0, 0))
    p = eqn.params
    strides = p["strides"] or (1,) * len(p["start_indices"])
    taken = np.zeros(aval.shape, dtype=bool)
    taken[tuple(slice(*t) for t in zip(p["start_indices"], p["limit_indices"], strides))] = True
    return KeyReuseSignature(Sink(0, taken), Source(0))


@_rule("concatenate")
def _concatenate_signature(eqn):
    if len(eqn.invars) == 1:
        return KeyReuseSignature(Forward(0, 0))
    return KeyReuseSignature(*(Sink(i) for i in range(len(eqn.invars))), Source(0))


@_rule("jit")
def _jit_signature(eqn):
    return jaxpr_type_signature(_open(eqn.params["jaxpr"]))


@_rule("shard_map")
def _shard_map_signature(eqn):
    return jaxpr_type_signature(_open(eqn.params["jaxpr"]))


@_rule("remat2", "checkpoint")
def _remat_signature(eqn):
    # the differentiated pass only consumes keys its primal pass consumed, and makes none
    if eqn.params.get("differentiated"):
        return KeyReuseSignature()
    return jaxpr_type_signature(_open(eqn.params["jaxpr"]))


@_rule("device_put")
def _device_put_signature(eqn):
    return KeyReuseSignature(*(Forward(i, i) for i in range(len(eqn.invars))))


@_rule("cond")
def _cond_signature(eqn):
    # a key any branch consumes is consumed; a result is fresh only where every branch
    # makes it so; forwarded only where every branch forwards it (operand 0 is the index)
    sigs = [jaxpr_type_signature(_open(b)) for b in eqn.params["branches"]]
    sinks, sources = defaultdict(list), defaultdict(list)
    for sig in sigs:
        for s in sig.sinks:
            sinks[s.idx].append(s.mask)
        for s in sig.sources:
            sources[s.idx].append(s.mask)
    forwards = set.intersection(*(set(sig.forwards) for sig in sigs))
    return KeyReuseSignature(
        *(Sink(i + 1, functools.reduce(np.logical_or, m)) for i, m in sinks.items()),
        *(Source(i, functools.reduce(np.logical_and, m)) for i, m in sources.items()),
        *(Forward(f.in_idx + 1, f.out_idx) for f in forwards))


def _forwarded_carries(body, n_consts, n_carry):
    """The carries the body hands on unchanged: JAX's scan and while_loop move them to the
    loop's constants before binding it (jxkernel's keep them as carries), so the checker sees
    them as JAX's does."""
    jaxpr = _open(body)
    return [i for i in range(n_carry)
            if jaxpr.outvars[i] is jaxpr.invars[n_consts + i]]


def _renumbered(sig, moved, n_consts, body):
    """`sig` over JAX's operands and results: the `moved` carries (indices among the
    carries) first among the operands, and gone from the results."""
    order = [n_consts + i for i in moved] + [i for i in range(len(body.invars))
                                             if i < n_consts or i - n_consts not in moved]
    new = {old: pos for pos, old in enumerate(order)}
    out = {old: pos for pos, old in enumerate(j for j in range(len(body.outvars))
                                              if j not in moved)}
    return KeyReuseSignature(
        *(Sink(new[s.idx], s.mask) for s in sig.sinks),
        *(Source(out[s.idx], s.mask) for s in sig.sources if s.idx in out),
        *(Forward(new[f.in_idx], out[f.out_idx]) for f in sig.forwards if f.out_idx in out))


@_rule("scan")
def _scan_signature(eqn):
    p = eqn.params
    body = _open(p["jaxpr"])
    n_consts, n_carry = p["num_consts"], p["num_carry"]
    signature = jaxpr_type_signature(body)
    moved = _forwarded_carries(body, n_consts, n_carry)
    seen = _renumbered(signature, moved, n_consts, body) if moved else signature
    n_consts_seen, n_carry_seen = n_consts + len(moved), n_carry - len(moved)
    # a key the body consumes, closed over, is consumed again on the next iteration
    if any(np.any(s.mask) for s in seen.sinks if s.idx < n_consts_seen):
        raise KeyReuseError("scan body function leads to key reuse when repeatedly executed, "
                            "because key constants are repeatedly consumed:\n"
                            f"  signature={seen!r}\n  eqn={eqn}\n  jaxpr={body}")
    # and a carried key it consumes must be a fresh one on the way out
    carry_sinks = {s.idx - n_consts_seen for s in seen.sinks
                   if 0 <= s.idx - n_consts_seen < n_carry_seen and np.any(s.mask)}
    carry_sources = {s.idx for s in seen.sources if 0 <= s.idx < n_carry_seen and
                     np.any(s.mask)}
    if not carry_sinks <= carry_sources:
        raise KeyReuseError("scan body function leads to key reuse when repeatedly executed, "
                            "because consumed inputs don't match sourced outputs:\n"
                            f"  signature={seen!r}\n  eqn={eqn}\n  jaxpr={body}")
    return signature


def _uses(jaxpr, var) -> bool:
    return any(var is v for e in jaxpr.eqns for v in e.invars) or \
        any(var is v for v in jaxpr.outvars)


@_rule("while")
def _while_signature(eqn):
    p = eqn.params
    cond, body = _open(p["cond_jaxpr"]), _open(p["body_jaxpr"])
    nc, nb = p["cond_nconsts"], p["body_nconsts"]
    cond_sig, body_sig = jaxpr_type_signature(cond), jaxpr_type_signature(body)
    n_carry = len(body.outvars)
    # JAX moves a carry the body forwards and the predicate does not read into the body's
    # constants: renumbered so, for its messages
    moved = [i for i in _forwarded_carries(body, nb, n_carry)
             if not _uses(cond, cond.invars[nc + i])]
    seen = _renumbered(body_sig, moved, nb, body) if moved else body_sig
    nb_seen = nb + len(moved)
    if any(np.any(s.mask) for s in cond_sig.sinks if s.idx < nc):
        raise KeyReuseError("while_loop cond function leads to key reuse when repeatedly "
                            f"executed:   cond_signature={cond_sig!r}\n  eqn={eqn}")
    if any(np.any(s.mask) for s in seen.sinks if s.idx < nb_seen):
        raise KeyReuseError("while_loop body function leads to key reuse when repeatedly "
                            f"executed:   body_signature={seen!r}\n  eqn={eqn}")
    body_carry_sinks = {s.idx - nb_seen for s in seen.sinks if s.idx >= nb_seen}
    cond_carry_sinks = {s.idx - nc for s in cond_sig.sinks if s.idx >= nc}
    carry_sources = {s.idx for s in seen.sources}
    if not cond_carry_sinks <= carry_sources:
        raise KeyReuseError("while_loop cond function leads to key reuse when repeatedly "
                            f"executed:   cond_signature={cond_sig!r}\n  eqn={eqn}")
    if not body_carry_sinks <= carry_sources:
        raise KeyReuseError("while_loop body function leads to key reuse when repeatedly "
                            f"executed:   body_signature={seen!r}\n  eqn={eqn}")
    if body_carry_sinks & cond_carry_sinks:
        raise KeyReuseError("while_loop cond and body functions both use the same key: "
                            f"  cond_signature={cond_sig!r}\n  body_signature={seen!r}\n"
                            f"  eqn={eqn}")
    return body_sig


# ------------------------------------------------------------------ the interpreter
_cache: dict = {}       # id(jaxpr) -> (jaxpr, signature): jaxprs are immutable once traced


def jaxpr_type_signature(jaxpr) -> KeyReuseSignature:
    """The signature of `jaxpr` (its invars, then constvars), raising KeyReuseError where a
    key is consumed twice."""
    jaxpr = _open(jaxpr)
    if _note.on:
        return _found(jaxpr).signature
    hit = _cache.get(id(jaxpr))
    if hit is not None and hit[0] is jaxpr:
        return hit[1]
    sig = _signature(jaxpr)
    if len(_cache) > 512:
        _cache.clear()
    _cache[id(jaxpr)] = (jaxpr, sig)
    return sig


def _signature(jaxpr, note: bool = False):
    """The signature of `jaxpr`; with `note` (the notebook's pass, `reuses`), a _Found: the
    reuses are collected, not raised, and raw key data wrapped twice is one key."""
    consumed: dict = {}          # var -> bool or mask: consumed so far
    forwards: dict = {}          # a forwarded result -> the operand it is
    # key data -> the keys it is the data of: jxkernel's random_gamma takes its key's data
    # (JAX's takes the key), so its Sink consumes the key the data came from
    unwrapped: dict = {}
    # (note) var -> [(mask, the equations that consumed it there, how it was taken)], the
    # first consumer of each of its keys: a key array's keys are drawn with one by one
    by: dict = {}
    reused: list = []            # (note) (first use, reuse, in a loop, a typed key, taken)
    views = _Views() if note else None

    def resolve(var):
        for _ in range(len(forwards) + 1):
            if isinstance(var, Literal) or var not in forwards:
                return var
            var = forwards[var]
        raise ValueError("forwarding cycle detected")

    def sink(var, mask=True, path=(), how=None, inner=False) -> bool:
        """Consume `var` (where `mask`); True if some of it was consumed already. (The
        note's: a key taken from an array consumes the array's keys it is, `how` taken; raw
        key data an inner jaxpr consumed, `inner`, is itself, not the typed keys it was
        unwrapped from: the user holds the data, which JAX's checker does not follow.)"""
        if not is_key(var):
            data, var = var, None if inner else unwrapped.get(var)
            if var is None:
                if not note:
                    return False
                var = data          # (the note's: raw key data an inner jaxpr consumed)
        var = resolve(var)
        if note and var in views.of:
            var, mask, how = views.mapped(var, mask)
        before = consumed.get(var, False)
        again = np.logical_and(before, mask)
        if not note:
            if np.any(again):
                return True
            consumed[var] = np.logical_or(before, mask)
            return False
        # (the note's: every key the draw consumed is consumed now, reused ones or not)
        consumed[var] = np.logical_or(before, mask)
        if np.any(again):
            # the first consumer of a key reused (none: a key consumed where it was made)
            first = next((e for e in by.get(var, ()) if np.any(np.logical_and(e[0], again))),
                         None)
            if first is not None:
                taken = None if first[2] is None or how is None else \
                    views.taken_again(var, first[2], how, again)
                reused.append((first[1], path, False, is_key(var), taken))
        fresh = np.logical_and(mask, np.logical_not(before))
        if np.any(fresh):
            by.setdefault(var, []).append((fresh, path, how))
        return np.any(again)

    def source(var, mask=False):
        if is_key(var):
            consumed[resolve(var)] = mask

    for eqn in jaxpr.eqns:
        if note and views.take(eqn, resolve):
            continue            # (a taking: the keys it takes are the array's, none consumed)
        if note:
            signature, inner = _note_signature(eqn, reused)
        else:
            signature = key_reuse_signature_from_eqn(eqn)
        if eqn.primitive.name == "assert_consumed_value":
            var = resolve(eqn.invars[0])
            _check_consumed_value(eqn, False if isinstance(var, Literal)
                                  else consumed.get(var, False))
        if eqn.primitive.name == "random_unwrap":
            unwrapped[eqn.outvars[0]] = eqn.invars[0]
        for f in signature.forwards:
            # (the note's: the forwarded keys, and the raw data random_wrap made one of)
            if not note or is_key(eqn.outvars[f.out_idx]):
                forwards[eqn.outvars[f.out_idx]] = eqn.invars[f.in_idx]
        for s in signature.sinks:
            if not 0 <= s.idx < len(eqn.invars):
                raise KeyReuseError(f"In {eqn.primitive}, sink {s.idx} out of range "
                                    f"[0, {len(eqn.invars)}]")
            if note:
                # an inner jaxpr's consumers, each of the keys it consumed, then the rest
                entries, left = inner.get(s.idx, ()), s.mask
                for mask, path, how in entries:
                    sink(eqn.invars[s.idx], np.logical_and(mask, s.mask), (eqn, *path), how,
                         inner=True)
                    left = np.logical_and(left, np.logical_not(mask))
                if np.any(left):
                    sink(eqn.invars[s.idx], left, (eqn,), inner=bool(entries))
            elif sink(eqn.invars[s.idx], s.mask):
                raise KeyReuseError(f"In {eqn.primitive}, argument {s.idx} is already "
                                    f"consumed.")
        for var in eqn.outvars:
            if var not in forwards:
                source(var, True)       # consumed, unless a Source says otherwise
        for s in signature.sources:
            if not 0 <= s.idx < len(eqn.outvars):
                raise KeyReuseError(f"In {eqn.primitive}, source {s.idx} out of range "
                                    f"[0, {len(eqn.outvars)}]")
            source(eqn.outvars[s.idx])

    inputs = [*jaxpr.invars, *jaxpr.constvars]
    position = {id(v): i for i, v in enumerate(inputs)}
    # (the note's: raw key data among the inputs and results too, a key once wrapped)
    marks = [Sink(i, consumed[v]) for i, v in enumerate(inputs)
             if (note or is_key(v)) and np.any(consumed.get(v, False))]
    for j, out in enumerate(jaxpr.outvars):
        if not is_key(out) and (not note or isinstance(out, Literal)):
            continue
        origin = resolve(out)
        if id(origin) in position and not isinstance(origin, Literal):
            marks.append(Forward(position[id(origin)], j))
        elif not np.any(consumed.get(out, False)):
            marks.append(Source(j))
    if not note:
        return KeyReuseSignature(*marks)
    sinks = {i: by[v] for i, v in enumerate(inputs) if v in by}
    return _Found(KeyReuseSignature(*marks), sinks, reused)


# ------------------------------------------------------------------ the notebook's pass
# The note under a cell whose jitted function reuses a key (notebook/notes/key_notes.py) asks this
# pass, not JAX's checker: the same rules, but every reuse collected with the equations that
# consumed the key (not the first raised), and a raw key (PRNGKey's uint32 data, which each
# random function wraps into a new typed key: JAX's checker never sees it reused) followed
# through random_wrap, which forwards its data here, as the one key it is. Set only inside
# `reuses`; the checker's own answers (jax_debug_key_reuse) do not change.
class _NoteMode(threading.local):
    on = False          # (per thread: a checker tracing in another thread is unchanged)


_note = _NoteMode()
_found_cache: dict = {}     # id(jaxpr) -> (jaxpr, _Found)
_WRAP_FORWARDS = KeyReuseSignature(Forward(0, 0))
_LOOPS = ("scan", "while")


class _Found(NamedTuple):
    """The note's pass over one jaxpr: its signature, the equations that consumed each input
    (`sinks`: input index -> [(a mask over its keys, the path of equations that consumed
    them, outermost first, how they were taken from it or None)]) and its `reused` keys,
    [(first use's path, reuse's path, in a loop, a typed key, a TakenAgain or None)]."""
    signature: KeyReuseSignature
    sinks: dict
    reused: list


def reuses(jaxpr) -> list:
    """[(first use, reuse, loop, typed, taken)]: each key `jaxpr` consumes twice, raw keys
    too, as the paths of equations (outermost first) that consumed it; `loop`: a loop's body
    consuming it on every iteration (the reuse's path is then the first use's); `typed`: a
    typed key's (JAX's checker sees it), not raw data's; `taken`: a TakenAgain where both
    draws' keys were taken from one array (`keys[0]` twice), else None. A program the
    checker refuses at a loop as a whole (a while loop's cond consuming a carried key the
    body does not replace: its KeyReuseError) gives []: the note tells a loop by its body's
    reuses only. Any other exception is a bug of the pass's, raised for its caller to tell
    (notebook/notes/key_notes.py).

        >>> reuses(jax.make_jaxpr(lambda k: (normal(k), normal(k)))(key(0)).jaxpr)  # doctest: +SKIP
        [((jit[_normal], ...), (jit[_normal], ...), False, True, None)]
    """
    _note.on = True
    try:
        return list(_found(_open(jaxpr)).reused)
    except KeyReuseError:
        return []
    finally:
        _note.on = False
        if len(_found_cache) > 512:
            _found_cache.clear()


def _found(jaxpr) -> _Found:
    hit = _found_cache.get(id(jaxpr))
    if hit is not None and hit[0] is jaxpr:
        return hit[1]
    found = _signature(jaxpr, note=True)
    _found_cache[id(jaxpr)] = (jaxpr, found)
    return found


class TakenAgain(NamedTuple):
    """One key of an array drawn with twice in a jaxpr, each time taken from the array anew:
    how each was taken ("index": keys[0]; "loop": a for loop's or unpacking's k), the array's
    shape of keys, the reused key's index as written where it is a whole row or key (keys[0]
    of keys of shape (2, 3): (0,)), else None, and which keys of the array any equation of
    the jaxpr took (a bool array of that shape, complete once the pass is done)."""
    first_how: str
    how: str
    shape: tuple
    index: tuple | None
    taken: np.ndarray


class _Views:
    """The note's pass over one jaxpr: a key taken from an array by a static slice (`keys[0]`
    is slice then squeeze; `for k in keys` the same, strides given) is the array's key at
    that place, not the fresh key the checker's slice rule makes it: `keys[0]` taken twice
    and drawn with is one key drawn twice, and a taking alone consumes nothing
    (`fold_in(keys[0], 1)` and `fold_in(keys[0], 2)` reuse no key). Raw key data (uint32,
    one key per row of its last axis) is followed through its slices, squeezes and reshapes
    likewise. JAX's checker is unchanged: it counts a taking by slice as consuming the keys
    taken (jax_debug_key_reuse raises at the second)."""
    LIMIT = 1 << 16         # (an array of more keys is not followed: its positions cost that)

    def __init__(self):
        self.of = {}        # a taken var -> (its array, the keys' flat positions there, how)
        self.taken = {}     # an array -> bool over its keys: those any equation took

    def take(self, eqn, resolve) -> bool:
        """Whether `eqn` takes keys from an array (or reshapes raw keys taken): its result
        is then followed as the array's keys, and the equation has no signature."""
        name = eqn.primitive.name
        if name not in ("slice", "squeeze", "reshape") or not eqn.invars or \
                isinstance(eqn.invars[0], Literal):
            return False                # (iota, a seed: equations of no operand)
        x = eqn.invars[0]
        typed, shape = is_key(x), getattr(x.aval, "shape", ())
        keys = tuple(shape) if typed else tuple(shape[:-1])
        if not typed and (x.aval.dtype != np.uint32 or len(shape) < 2) or \
                not all(isinstance(d, int) for d in shape) or np.prod(keys) > self.LIMIT:
            return False
        x = resolve(x)          # (typed keys squeezed or reshaped: forwarded, in order)
        base, pos, how = self.of.get(x, (x, None, None))
        if name != "slice":
            # a raw key taken, reshaped with its key data's axis kept (typed: forwarded)
            out = eqn.outvars[0].aval.shape
            if typed or pos is None or not out or out[-1] != shape[-1] or \
                    name == "reshape" and eqn.params.get("dimensions") is not None:
                return False            # (a reshape transposing first: not followed)
            self.of[eqn.outvars[0]] = (base, pos.reshape(out[:-1]), how)
            return True
        p = eqn.params
        strides = p["strides"] or (1,) * len(shape)
        if not typed and (p["start_indices"][-1], p["limit_indices"][-1], strides[-1]) != \
                (0, shape[-1], 1):
            return False                # (a part of each key's data: no key taken)
        if pos is None:
            own = tuple(x.aval.shape) if typed else keys
            if not all(isinstance(d, int) for d in own):
                return False
            pos = np.arange(int(np.prod(own))).reshape(own)
            self.taken.setdefault(base, np.zeros(own, dtype=bool))
        if pos.size != np.prod(keys):
            return False        # (keys forwarded by a broadcast: the checker's rules)
        pos = pos.reshape(keys)
        cut = tuple(slice(*t) for t in zip(p["start_indices"], p["limit_indices"], strides))
        pos = pos[cut[:len(keys)]]
        self.taken[base].flat[pos.ravel()] = True
        self.of[eqn.outvars[0]] = (base, pos, "index" if p["strides"] is None else "loop")
        return True

    def mapped(self, var, mask):
        """(the array, `mask` over `var`'s keys as a mask over the array's, how `var` was
        taken)."""
        base, pos, how = self.of[var]
        if np.ndim(mask) > pos.ndim:            # (raw data's mask: over its words too)
            mask = np.any(mask, axis=-1)
        keys = np.zeros(self.taken[base].shape, dtype=bool)
        keys.flat[pos[np.broadcast_to(mask, pos.shape)]] = True
        return base, keys if is_key(base) else \
            np.broadcast_to(keys[..., None], base.aval.shape), how

    def taken_again(self, base, first_how, how, again) -> TakenAgain:
        """The TakenAgain of `base`'s keys `again` (a mask over them, or over raw data's
        words) drawn with twice, each taken anew (by an inner jaxpr, where `base` is not an
        array this one took from: the keys any equation took are then those only)."""
        shape = tuple(base.aval.shape) if is_key(base) else tuple(base.aval.shape[:-1])
        again = np.broadcast_to(again, base.aval.shape)
        if not is_key(base):
            again = np.any(again, axis=-1)
        return TakenAgain(first_how, how, shape, _as_index(again),
                          self.taken.get(base, again))


def _as_index(keys):
    """The index of the row or key `keys` (a bool array) is, as written with ints (the
    shortest: (0,) for all of row 0), or None where it is no one row or key."""
    where = np.argwhere(keys)
    if not len(where):
        return None
    for depth in range(1, keys.ndim + 1):
        head = tuple(int(i) for i in where[0][:depth])
        if (where[:, :depth] == head).all() and len(where) == np.prod(keys.shape[depth:]):
            return head
    return None


def _inner_jaxprs(eqn) -> list:
    """[(inner jaxpr, the eqn's operand index of its first input)] of an equation whose rule
    reads inner jaxprs (jit, cond's branches, a loop's body)."""
    p, name = eqn.params, eqn.primitive.name
    if name == "cond":
        return [(_open(b), 1) for b in p["branches"]]
    if name == "while":
        return [(_open(p["body_jaxpr"]), p["cond_nconsts"])]
    if name in ("jit", "shard_map", "remat2", "checkpoint", "scan"):
        return [(_open(p["jaxpr"]), 0)]
    return []


def _note_signature(eqn, reused):
    """(the equation's signature, operand index -> the inner equations that consumed it) for
    the note's pass; the inner jaxprs' reuses are added to `reused` under `eqn`, and a loop
    that consumes a key on every iteration is one (JAX's checker raises there)."""
    if eqn.primitive.name == "random_wrap":
        return _WRAP_FORWARDS, {}
    inner = {}
    for body, at in _inner_jaxprs(eqn):
        found = _found(body)
        reused.extend(((eqn, *a), (eqn, *b), *rest) for a, b, *rest in found.reused)
        for i, entries in found.sinks.items():
            # (a cond's branches: each key's consumer in the first branch that consumes it,
            # one branch runs; a key consumed in two branches is consumed once)
            known = inner.setdefault(i + at, [])
            for mask, path, how in entries:
                for other in known:
                    mask = np.logical_and(mask, np.logical_not(other[0]))
                if np.any(mask):
                    known.append((mask, path, how))
    try:
        return key_reuse_signature_from_eqn(eqn), inner
    except KeyReuseError:
        if eqn.primitive.name not in _LOOPS or not inner:
            raise
        # the body's first consumption, again on the next iteration
        first = min(inner)
        path = (eqn, *inner[first][0][1])
        reused.append((path, path, True, is_key(eqn.invars[first]), None))
        return _found(_inner_jaxprs(eqn)[0][0]).signature, inner


def check_key_reuse_jaxpr(jaxpr) -> None:
    """Raise KeyReuseError where `jaxpr` consumes a key twice."""
    jaxpr_type_signature(jaxpr)


def function_type_signature(fun, *args) -> KeyReuseSignature:
    """The signature of `fun` traced at `args`' types."""
    with config.override("jax_debug_key_reuse", False):    # (checked below, once)
        closed = make_jaxpr(fun)(*args)
    return jaxpr_type_signature(closed.jaxpr)


def check_key_reuse(fun, /, *args) -> None:
    """Raise KeyReuseError where `fun`, traced at `args`' types, consumes a key twice."""
    function_type_signature(fun, *args)


# ------------------------------------------------------------------ consume / assert
class HashableArray:
    """A NumPy array as a primitive's param (hashable, printed as JAX's)."""
    __slots__ = ("val",)

    def __init__(self, val):
        self.val = np.array(val, copy=True)
        self.val.flags.writeable = False

    def __repr__(self):
        return f"HashableArray({self.val!r})" if self.val.ndim else \
            f"HashableArray({self.val.item()!r})"

    def __hash__(self):
        return hash((self.val.shape, self.val.dtype, self.val.tobytes()))

    def __eq__(self, other):
        return isinstance(other, HashableArray) and self.val.shape == other.val.shape and \
            bool(np.all(self.val == other.val))


def _identity_prim(name):
    prim = Primitive(name)
    impl_rules[prim] = lambda x, **params: x
    abstract_eval_rules[prim] = lambda aval, **params: aval
    batching_rules[prim] = lambda vals, dims, **params: (prim.bind(vals[0], **params), dims[0])
    physical_rules[prim] = lambda in_avals, out_avals, x, **params: x
    defjvp_zero(prim)
    return prim


consume_p = _identity_prim("consume")
assert_consumed_value_p = _identity_prim("assert_consumed_value")


def consume(key):
    """The key, consumed: a later use of the result is a reuse."""
    return consume_p.bind(key)


def assert_unconsumed(key):
    """Fail the check (AssertionError) where `key` is consumed at this point."""
    assert_consumed_value_p.bind(key, value=HashableArray(False))


def assert_consumed(key, value=True):
    """Fail the check (AssertionError) where `key` is not consumed at this point (`value`:
    a mask over its keys)."""
    assert_consumed_value_p.bind(key, value=HashableArray(value))


def _check_consumed_value(eqn, consumed):
    expected = eqn.params["value"].val
    if not np.all(consumed == expected):
        if np.all(expected):
            raise AssertionError(f"Expected key to be consumed in {eqn}")
        if not np.any(expected):
            raise AssertionError(f"Expected key to not be consumed in {eqn}")
        raise AssertionError(f"Expected {expected}, got {consumed} in {eqn}")


# ------------------------------------------------------------------ the eager check
class _Eqn:
    """An equation's view of an eager primitive call, for the rules: its operands' avals
    and its params."""
    __slots__ = ("primitive", "invars", "outvars", "params")

    class _Operand:
        __slots__ = ("aval",)

        def __init__(self, aval):
            self.aval = aval

    def __init__(self, prim, args, params):
        self.primitive, self.params, self.outvars = prim, params, []
        self.invars = [self._Operand(get_aval(a)) for a in args]


def eager_signature(prim, args, params):
    """(the signature of `prim` applied eagerly, the name its error gives), or None to run it
    unchecked. A primitive with no rule is JAX's `unknown_signature` (each key operand
    consumed) where it is first-order: JAX runs one eagerly as a jit of its one equation
    (dispatch.apply_primitive), whose jaxpr has that signature, so `lax.rev(keys)` consumes
    `keys` "passed to jit-compiled function". A higher-order one (a custom_jvp call, say: a
    jaxpr or a function in its params) JAX runs as it is, its inner primitives checked."""
    sig = key_reuse_signatures.get(prim)
    if sig is None:
        if any(callable(p) or isinstance(p, (ClosedJaxpr, Jaxpr)) for p in params.values()):
            return None
        return unknown_signature(_Eqn(prim, args, params)), "jit-compiled function"
    if isinstance(sig, DynamicKeyReuseSignature):
        sig = sig.signature(_Eqn(prim, args, params))
    return sig, "jit-compiled function" if prim.name == "jit" else prim.name


def _checking_eval(prim, args, params):
    checked = eager_signature(prim, args, params)
    if checked is None:
        return _plain_eval(prim, args, params)
    sig, funcname = checked
    consts = list(params["jaxpr"].consts) if prim.name == "jit" and \
        isinstance(params.get("jaxpr"), ClosedJaxpr) else []
    sig.check_signature(*args, *consts, funcname=funcname)
    out = _plain_eval(prim, args, params)
    sig.update_consumption([*args, *consts], out if prim.multiple_results else [out])
    return out


_plain_eval = None


def _install(on: bool) -> None:
    """Eager primitives checked (on) or run as they are (off)."""
    global _plain_eval
    if on and _plain_eval is None:
        _plain_eval = _trace._eval_hook
        _trace.install_eval_hook(_checking_eval)
    elif not on and _plain_eval is not None:
        _trace.install_eval_hook(_plain_eval)
        _plain_eval = None


def _jit_call(jaxpr, arrays, outs) -> None:
    """An eager jit call's check (xla/dispatch.py's check_jitted_values calls it after the
    call): its key arguments, then the jaxpr's constants, as JAX's inputs are ordered."""
    if len(arrays) != len(jaxpr.jaxpr.invars):     # (Refs among the arguments: not checked)
        return
    inputs = [*arrays, *jaxpr.consts]
    signature = jaxpr_type_signature(jaxpr)
    signature.check_signature(*inputs, funcname="jit-compiled function")
    signature.update_consumption(inputs, outs)


_trace.key_reuse.check_jaxpr = check_key_reuse_jaxpr
_trace.key_reuse.jit_call = _jit_call
config.watch("jax_debug_key_reuse", lambda old, new: _install(bool(new)))
_install(bool(config.jax_debug_key_reuse))

__all__ = ["KeyReuseError", "KeyReuseSignature", "Sink", "Source", "Forward", "consume",
           "assert_consumed", "assert_unconsumed", "check_key_reuse", "check_key_reuse_jaxpr",
           "function_type_signature", "jaxpr_type_signature", "key_reuse_signatures",
           "unknown_signature", "consume_p", "assert_consumed_value_p"]
