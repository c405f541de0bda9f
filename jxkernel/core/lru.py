"""Bounded caches: what every cache of executables, buffers or traces is made of, so that a
process compiling without end (a notebook kernel, a sweep) keeps a bounded set of programs.
Each executable holds ~3 memory mappings of its code; unbounded, ~21,000 programs reached
Linux's vm.max_map_count and XLA's next compile crashed the process (issue 45).

    >>> cache = LRU(2)
    >>> cache["a"], cache["b"] = 1, 2
    >>> cache.get("a"); cache["c"] = 3           # "b" is now the least recently used
    1
    >>> list(cache)
    ['a', 'c']

`LRU` is JAX's policy (its `weakref_lru_cache` and compilation caches); `Bounded` is a plain
dict that forgets its oldest entry, for the hot paths, whose `get` must stay dict's own.
"""
from __future__ import annotations

import collections
import sys
import threading
import weakref


# The bounds the caches share. TRACES: jaxprs traced or transformed (vmap's, jvp's, a split,
# a transpose), JAX's weakref_lru_cache default; they cost memory only. PROGRAMS: executables
# run outside jit's own caches (eager primitives, transformed jits, pmaps, shard_maps), each
# ~3 memory mappings and its code: a quarter of JAX's 4096 (`xla_primitive_callable`), far
# more than a model's distinct eager operations, ~3,000 mappings at most.
# SIGNATURES: argument types (and statics) one jitted, pmapped or shard_mapped function
# keeps compiled and traced: a function called with ever new shapes (a loop over sizes) keeps
# a bounded set, as JAX's caches of 2048 (`_cached_compilation`, `_infer_params_cached`)
# bound them. A dropped function's caches go with it (jit's FUN_STATES is weak; pmap's and
# shard_map's are the function's closure).
TRACES = 2048
PROGRAMS = 1024
SIGNATURES = 1024
# CONSTANTS: bytes of closed-over constants one jitted function's compiled signatures keep on
# device. Each signature's entry has its own device copy of a NumPy constant (measured: 20
# signatures of a function closing over a 40 MB array, +814 MB), so 1,024 signatures could
# hold 40 GB; past 1 GiB the least recently used signatures go (the newest always stays).
CONSTANTS = 1 << 30


class LRU:
    """A dict of at most `maxsize` entries that drops the least recently used (a `get`, a
    `[]` or a set makes an entry the most recent). With `weigh` (value -> bytes), also at most
    `max_weight` in all. Thread-safe.

    >>> cache = LRU(10, weigh=len, max_weight=5)
    >>> cache[1], cache[2] = "abc", "de"; cache[3] = "f"      # 6 > 5: the oldest goes
    >>> sorted(cache)
    [2, 3]
    """
    __slots__ = ("maxsize", "weigh", "max_weight", "weight", "_data", "_lock", "evictions",
                 "on_evict", "__weakref__")

    def __init__(self, maxsize: int, weigh=None, max_weight: int | None = None, on_evict=None):
        if not isinstance(maxsize, int) or maxsize < 0:
            raise ValueError(f"LRU: maxsize must be an int >= 0, got {maxsize!r}")
        self.maxsize, self.weigh, self.max_weight = maxsize, weigh, max_weight
        self.on_evict = on_evict   # (key, value) -> None, for each entry the bounds drop
        self.weight = 0            # the summed weights of the entries (0 without `weigh`)
        self.evictions = 0         # how many entries the bounds have dropped so far
        self._data: collections.OrderedDict = collections.OrderedDict()
        self._lock = threading.RLock()     # (WeakLRU holds it around LRU's own calls)
        _EVERY.add(self)

    def __reduce__(self):
        # pickled (a jitted function's caches, in a cloudpickled function) as an empty cache
        # of the same bounds: what it holds (executables, devices) is this process's
        return type(self), (self.maxsize, self.weigh, self.max_weight, self.on_evict)

    def get(self, key, default=None):
        # no lock: each step is one atomic dict operation (a hot path's lookup)
        found = self._data.get(key)
        if found is None:
            return default
        try:
            self._data.move_to_end(key)
        except KeyError:          # another thread dropped it meanwhile: found all the same
            pass
        return found[0]

    def __getitem__(self, key):
        found = self.get(key, _MISSING)
        if found is _MISSING:
            raise KeyError(key)
        return found

    def __setitem__(self, key, value) -> None:
        weight = self.weigh(value) if self.weigh is not None else 0
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self.weight -= old[1]
            self._data[key] = (value, weight)
            self.weight += weight
            dropped = self._shrink(self.maxsize, self.max_weight)
        self._evicted(dropped)

    def setdefault(self, key, value):
        found = self.get(key, _MISSING)
        if found is _MISSING:
            self[key] = found = value
        return found

    def resize(self, maxsize: int) -> None:
        """Bound the cache to `maxsize` entries from now on, dropping the oldest beyond it."""
        with self._lock:
            self.maxsize = maxsize
            dropped = self._shrink(maxsize, self.max_weight)
        self._evicted(dropped)

    def _shrink(self, maxsize, max_weight) -> list:
        data, dropped = self._data, []
        while data and (len(data) > maxsize or max_weight is not None and
                        self.weight > max_weight and len(data) > 1):
            key, (value, weight) = data.popitem(last=False)
            self.weight -= weight
            self.evictions += 1
            dropped.append((key, value))
        return dropped

    def _evicted(self, dropped) -> None:
        if self.on_evict is not None:     # (outside the lock: it may touch other caches)
            for key, value in dropped:
                self.on_evict(key, value)

    def pop(self, key, default=None):
        with self._lock:
            found = self._data.pop(key, None)
            if found is None:
                return default
            self.weight -= found[1]
            return found[0]

    def __delitem__(self, key) -> None:
        if self.pop(key, _MISSING) is _MISSING:
            raise KeyError(key)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.weight = 0

    def update(self, items) -> None:
        for key, value in dict(items).items():
            self[key] = value

    def copy(self) -> dict:
        """The entries as a plain dict, oldest first."""
        return dict(self.items())

    def __contains__(self, key) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    def __bool__(self) -> bool:       # (`if cache:` skips an empty one without its lock)
        return bool(self._data)

    def __iter__(self):
        return iter(list(self._data))

    def keys(self) -> list:
        return list(self._data)

    def values(self) -> list:
        return [value for _, value in self.items()]

    def items(self) -> list:
        with self._lock:
            try:
                return [(key, value) for key, (value, _) in self._data.items()]
            except KeyError:
                # a key whose hash changed since it went in (a static argument hashed by its
                # fields, a field set in place): OrderedDict's iteration looks each key up
                # again and misses it, where dict's own table holds it under its old hash
                return [(key, value) for key, (value, _) in dict.items(self._data)]

    def __repr__(self):
        return f"{type(self).__name__}({len(self)} of {self.maxsize} entries)"


_MISSING = object()
_EVERY: weakref.WeakSet = weakref.WeakSet()     # every LRU alive, for clear_every_cache


def clear_every_cache() -> None:
    """Empty every LRU and WeakLRU (jax.clear_caches() calls it): the module caches of
    eager programs and transformed jaxprs, and each function's own.

    >>> cache = LRU(4); cache[1] = 2; clear_every_cache(); len(cache)
    0
    """
    for cache in list(_EVERY) + _CLEARED_TOO:
        cache.clear()


def cleared_with_caches(cache):
    """`cache` (anything with `clear()`) emptied by clear_every_cache too, as every LRU is:
    what is kept beside the caches of traces (the explainers' record of a loop body's traces,
    which JAX's clear_caches forgets with them). Returns `cache`.

    >>> seen = cleared_with_caches({}); seen[1] = 2; clear_every_cache(); len(seen)
    0
    """
    _CLEARED_TOO.append(cache)         # (held: a module's table; a dict hashes by value)
    return cache


_CLEARED_TOO: list = []

class WeakLRU(LRU):
    """An `LRU` whose keys are pairs (object, rest) whose object (a ClosedJaxpr, a function)
    is held weakly, as JAX's `weakref_lru_cache`: its entries go when it does, or when the
    bound drops them. An object that cannot be held weakly is not cached. (A pair, not a
    longer tuple: building the stored key is then cheap, on the hot paths of vmap and grad.)

    >>> class J: pass
    >>> cache, j = WeakLRU(8), J()
    >>> cache[j, 1] = "traced"; cache.get((j, 1))
    'traced'
    >>> del j; len(cache)
    0
    """
    __slots__ = ("_refs", "_dead", "_keys")
    # (the class's, not read from this module's names: at interpreter exit those are set to
    # None while objects kept by other modules still die, and their callbacks run)
    _finalizing = staticmethod(sys.is_finalizing)

    def __init__(self, maxsize: int):
        super().__init__(maxsize)
        self._refs: dict = {}      # id(first) -> its weakref (one per object, shared by keys)
        self._dead: list = []      # ids whose object died, not yet purged (_died)
        # id(first) -> the stored keys of its entries: a death drops those, not every entry
        # read to find them (a test process's caches hold thousands: ~2,000 deaths in three
        # test files read 2.4 s of entries). Kept exact (_shrink, pop, clear, _purge)
        self._keys: dict = {}

    def __reduce__(self):
        return type(self), (self.maxsize,)      # pickled empty, as LRU

    # Stored: (id(first), rest) -> (value, weakref to first). Each entry keeps its object's
    # weakref, so an entry of a dead object never answers for a new one given its id, and a
    # lookup needs no lock (the hot paths of vmap, grad and transformed jits).
    def get(self, key, default=None):
        first, rest = key
        inner = (id(first), rest)
        found = self._data.get(inner)
        if found is None or found[0][1]() is not first:
            return default
        try:
            self._data.move_to_end(inner)
        except KeyError:          # another thread dropped it meanwhile: found all the same
            pass
        return found[0][0]

    def __setitem__(self, key, value) -> None:
        first, rest = key
        ref_id = id(first)
        with self._lock:
            if self._dead:
                self._purge()
            ref = self._refs.get(ref_id)
            if ref is None or ref() is not first:
                try:
                    ref = self._refs[ref_id] = weakref.ref(
                        first, lambda _, i=ref_id: self._died(i))
                except TypeError:
                    return
            inner = (ref_id, rest)
            if inner not in self._data:
                self._keys.setdefault(ref_id, []).append(inner)
            LRU.__setitem__(self, inner, (value, ref))

    def _shrink(self, maxsize, max_weight) -> list:
        dropped = LRU._shrink(self, maxsize, max_weight)
        for inner, _ in dropped:
            self._unindex(inner)
        return dropped

    def _unindex(self, inner) -> None:
        keys = self._keys.get(inner[0])
        if keys is not None:
            try:
                keys.remove(inner)      # (by equality: a key's hash may have changed)
            except ValueError:
                pass
            if not keys:
                del self._keys[inner[0]]

    def _died(self, ref_id) -> None:
        """A key's object died: drop its entries now, so that what their values hold (a
        jaxpr's constants: a closed-over array) goes with it, as with JAX's
        weakref_lru_cache. Left to the next change where this thread is inside one (the
        callback may run mid-change) or another thread holds the lock; none at interpreter
        exit, where nothing is looked up again (a dead object's entry never answers)."""
        if self._finalizing():
            return
        self._dead.append(ref_id)
        if self._lock._is_owned() or not self._lock.acquire(blocking=False):
            return
        try:
            while self._dead:       # (values dropped may free more keys' objects)
                self._purge()
        finally:
            self._lock.release()

    def _purge(self) -> None:
        """Drop the entries of objects that died (called holding the lock)."""
        dead = set()
        while self._dead:
            dead.add(self._dead.pop())
        for ref_id in dead:
            ref = self._refs.get(ref_id)
            if ref is not None and ref() is None:
                del self._refs[ref_id]
        # the dead objects' keys, from the index; each looked up and dropped by its hash
        # now, and a key whose hash changed since it was stored (a class whose __hash__ was
        # replaced for a while: JAX's shape_poly_test.py does so to _DimExpr) is not found:
        # then the dict's own entries are read (not the OrderedDict's order, which would
        # look each up by its hash too) and what is left of the dead objects' dropped
        doomed, unfound = [], False
        for ref_id in dead:
            for inner in self._keys.pop(ref_id, ()):
                found = dict.get(self._data, inner)
                if found is None:
                    unfound = True
                elif found[0][1]() is None:
                    doomed.append(inner)
                else:       # a new object given the dead one's id: its entries stay
                    self._keys.setdefault(ref_id, []).append(inner)
        lost = [inner for inner in doomed if LRU.pop(self, inner, _MISSING) is _MISSING]
        if unfound or lost:     # the dead ids' entries read whole, their index made again
            doomed, alive = [], []
            for k, (v, _) in list(dict.items(self._data)):
                if k[0] in dead:
                    (doomed if v[1]() is None else alive).append(k)
            for ref_id in dead:
                self._keys.pop(ref_id, None)
            for k in alive:
                self._keys.setdefault(k[0], []).append(k)
            lost = [inner for inner in doomed if LRU.pop(self, inner, _MISSING) is _MISSING]
        if lost:        # such keys: dropped by identity, the others stored again as they were
            lost_ids = {id(inner) for inner in lost}
            kept = [(k, e) for k, e in self._entries() if id(k) not in lost_ids]
            self._data.clear()
            self._data.update(kept)
            self.weight = sum(weight for _, weight in self._data.values())

    def _entries(self) -> list:
        """(stored key, (value, weight)) pairs, least recently used first; in the order they
        were stored where a key's hash has changed since (see _purge)."""
        try:
            return list(self._data.items())
        except KeyError:
            return list(dict.items(self._data))

    def __contains__(self, key) -> bool:
        return self.get(key, _MISSING) is not _MISSING

    def __len__(self) -> int:
        with self._lock:
            if self._dead:
                self._purge()
            return len(self._data)

    def pop(self, key, default=None):
        found = self.get(key, _MISSING)
        if found is _MISSING:
            return default
        inner = (id(key[0]), key[1])
        with self._lock:
            if LRU.pop(self, inner, _MISSING) is not _MISSING:
                self._unindex(inner)
        return found

    def items(self) -> list:
        """(key, value) pairs with the first elements themselves, of those still alive."""
        with self._lock:
            out = []
            for (_, rest), ((value, ref), _) in self._entries():
                first = ref()
                if first is not None:
                    out.append(((first, rest), value))
            return out

    def values(self) -> list:
        return [value for _, value in self.items()]

    def update(self, items) -> None:
        for key, value in dict(items).items():
            self[key] = value

    def keys(self) -> list:
        return [key for key, _ in self.items()]

    def __iter__(self):
        return iter(self.keys())

    def clear(self) -> None:
        with self._lock:
            LRU.clear(self)
            self._refs.clear()
            self._keys.clear()


class Bounded(dict):
    """A dict of at most `maxsize` entries: setting a new key beyond that drops the oldest
    set. Its `get` is dict's own (a hot path's lookup costs nothing more); what it drops is
    found again the slow way (an `LRU` behind it).

    >>> d = Bounded(2); d[1] = d[2] = d[3] = "x"
    >>> list(d)
    [2, 3]
    """
    __slots__ = ("maxsize",)

    def __init__(self, maxsize: int):
        super().__init__()
        self.maxsize = maxsize

    def __reduce__(self):
        return type(self), (self.maxsize,)      # pickled empty, as LRU

    def __setitem__(self, key, value) -> None:
        if key not in self:
            while len(self) >= self.maxsize > 0:
                try:
                    del self[next(iter(self))]
                except (KeyError, StopIteration, RuntimeError):   # another thread's change
                    break
        dict.__setitem__(self, key, value)

    def setdefault(self, key, value=None):
        found = self.get(key, _MISSING)
        if found is _MISSING:
            self[key] = found = value
        return found
