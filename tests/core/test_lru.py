"""core/lru.py: the bounded caches every cache of executables, buffers and traces is made of
(issue 45). What each cache of jxkernel keeps is tested with it (tests/runtime/
test_runtime_cache.py for the compiler's)."""
import gc
import threading

import pytest

from doc_examples import check_docstring_examples
from fresh_process import run_python
from jxkernel.core.lru import LRU, Bounded, WeakLRU, clear_every_cache


class Traced:
    """A stand-in for a ClosedJaxpr: hashable by identity, held weakly."""


def test_the_examples():
    check_docstring_examples("jxkernel.core.lru")


def test_lru_drops_the_least_recently_used_by_count_and_by_weight():
    cache = LRU(3)
    for k in "abc":
        cache[k] = k.upper()
    assert cache["a"] == "A"                    # a is the most recent now
    cache["d"] = "D"
    assert cache.keys() == ["c", "a", "d"] and cache.evictions == 1
    weighed = LRU(100, weigh=len, max_weight=10)
    weighed["x"], weighed["y"] = "1234", "567890"
    assert weighed.weight == 10
    weighed["x"] = "12345678"                   # replaced: its old weight goes first
    assert weighed.keys() == ["x"] and weighed.weight == 8
    weighed["big"] = "z" * 50                   # heavier than the bound alone: kept, alone
    assert weighed.keys() == ["big"]
    with pytest.raises(ValueError, match="maxsize must be an int >= 0"):
        LRU(-1)


def test_lru_resize_clear_pop_and_mapping_methods():
    cache = LRU(4)
    cache.update({i: i * i for i in range(4)})
    cache.resize(2)
    assert cache.copy() == {2: 4, 3: 9}
    assert cache.pop(2) == 4 and cache.pop(2, "gone") == "gone"
    with pytest.raises(KeyError):
        cache[7]
    assert cache.setdefault(5, 25) == 25 and cache.setdefault(5, 0) == 25
    del cache[5]
    assert 3 in cache and 5 not in cache and len(cache) == 1
    clear_every_cache()
    assert len(cache) == 0


def test_weak_lru_entries_go_with_their_first_key_element():
    cache, kept, dropped = WeakLRU(10), Traced(), Traced()
    cache[kept, "jvp"] = "kept's"
    cache[dropped, "jvp"] = cache[dropped, "vmap"] = "dropped's"
    assert cache.get((dropped, "vmap")) == "dropped's" and len(cache) == 3
    del dropped
    gc.collect()
    assert len(cache) == 1 and cache.items() == [((kept, "jvp"), "kept's")]
    assert (kept, "vmap") not in cache and (Traced(), "jvp") not in cache
    cache[1, "x"] = "an int cannot be held weakly: not cached"
    assert len(cache) == 1


def test_weak_lru_is_bounded_too():
    cache = WeakLRU(2)
    held = [Traced() for _ in range(3)]
    for i, t in enumerate(held):
        cache[t, i] = i
    assert [k[1] for k in cache.keys()] == [1, 2]
    assert cache.get((held[0], 0)) is None


def test_bounded_drops_its_oldest_and_keeps_dicts_get():
    d = Bounded(3)
    for i in range(5):
        d[i] = str(i)
    assert list(d) == [2, 3, 4] and d.get(4) == "4" and type(d).get is dict.get
    d[3] = "again"                              # an existing key: nothing dropped
    assert list(d) == [2, 3, 4]


def test_lru_from_several_threads_stays_bounded():
    cache = LRU(50)

    def fill(offset):
        for i in range(2000):
            cache[offset + i] = i
            cache.get(offset + i // 2)
    threads = [threading.Thread(target=fill, args=(n * 10_000,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(cache) == 50 == len(cache.keys())


def test_a_cache_pickles_empty_with_its_bounds():
    # a jitted function's caches in a pickled function (cloudpickle of a function that calls
    # a jit): what they hold is this process's, so they come back empty
    import pickle
    cache, weak, bounded = LRU(3, weigh=len, max_weight=10), WeakLRU(5), Bounded(2)
    cache["a"], bounded[1] = "xyz", threading.RLock()
    weak[Traced(), 1] = threading.RLock()           # (unpicklable values: never pickled)
    cache2, weak2, bounded2 = pickle.loads(pickle.dumps((cache, weak, bounded)))
    assert (type(cache2), len(cache2), cache2.maxsize, cache2.max_weight) == (LRU, 0, 3, 10)
    assert (type(weak2), len(weak2), weak2.maxsize) == (WeakLRU, 0, 5)
    assert (type(bounded2), len(bounded2), bounded2.maxsize) == (Bounded, 0, 2)
    cache2["b"], cache2["c"] = "abcdef", "ghijk"      # the weight bound holds: 11 > 10
    assert list(cache2) == ["c"]


def test_a_jitted_function_calling_a_jit_cloudpickles():
    # JAX's pickle_test (CloudpickleTest): a jit whose function calls another jit pickles,
    # after both have run, and the copy computes the same
    cloudpickle = pytest.importorskip("cloudpickle")
    import pickle
    import jxkernel

    @jxkernel.jit
    def f(x, y):
        return x * y

    @jxkernel.jit
    def g(z):
        return f(z, z + 77)
    expected = g(32)
    again = pickle.loads(cloudpickle.dumps(g))
    assert int(again(32)) == int(expected) == 32 * 109


def test_a_dead_objects_entries_go_though_a_key_hashes_otherwise_now(monkeypatch):
    # JAX's shape_poly_test.py replaces _DimExpr.__hash__ for one test (a collision hash) and
    # puts it back: entries stored meanwhile (vmap's batched jaxprs keyed by a symbolic axis
    # size) sit in the dict under the old hash. When their jaxpr died, the purge looked each
    # key up by its new hash and raised KeyError in the weakref callback ("Exception ignored")
    class Size:
        hash_now = 5

        def __hash__(self):
            return Size.hash_now

    class J:
        pass
    raised = []
    monkeypatch.setattr("sys.unraisablehook", raised.append)
    cache, j, other, size = WeakLRU(8), J(), J(), Size()
    cache[j, (None, size)] = "batched"
    cache[other, (None, size)] = "kept"
    Size.hash_now = 7
    del j
    gc.collect()
    assert [(u.exc_type, u.exc_value) for u in raised] == []
    assert len(cache) == 1 and cache.values() == ["kept"]


def test_a_death_drops_its_entries_without_reading_every_other_one():
    # a test process's caches hold thousands of entries, and ~2,000 of their objects died in
    # three test files: each death read every entry to find its own (2.4 s of one file's
    # profile). The lines run in lru.py while one object's death is purged are counted: an
    # index of each object's keys finds them without reading the 2,000 others
    import sys

    from jxkernel.core import lru
    cache, held, dying = WeakLRU(4096), [Traced() for _ in range(2000)], Traced()
    for i, t in enumerate(held):
        cache[t, i] = i
    cache[dying, "a"] = cache[dying, "b"] = "dying's"
    lines = [0]

    def trace(frame, event, arg):
        if frame.f_code.co_filename != lru.__file__:
            return None
        if event == "line":
            lines[0] += 1
        return trace
    previous = sys.gettrace()           # (a coverage tool's, kept)
    sys.settrace(trace)
    try:
        del dying           # (held by no cycle: it dies here)
    finally:
        sys.settrace(previous)
    assert len(cache) == 2000 and cache.get((held[7], 7)) == 7
    assert 0 < lines[0] < 200, lines[0]


_EXIT_SCRIPT = """
import sys, types
early = sys.modules["early"] = types.ModuleType("early")    # cleared after lru's at exit
from jxkernel.core import lru
class T: pass
cache = lru.WeakLRU(8)
early.held = [T() for _ in range(3)]
for i, t in enumerate(early.held):
    cache[t, i] = i
sys.kept = (early, lru, cache)      # all three outlive the collection at exit
"""


def test_objects_dying_at_interpreter_exit_print_nothing():
    # at exit Python sets each module's names to None, then clears the modules imported
    # before (here "early"), whose objects die last: their callbacks found lru.py's LRU gone
    # ("Exception ignored ... 'NoneType' object has no attribute 'pop'", once per object)
    done = run_python(["-c", _EXIT_SCRIPT], timeout=300)
    assert (done.returncode, done.stderr) == (0, "")


def test_a_key_whose_hash_changed_in_place_still_lists():
    """A key hashed by a field, set anew after it went in (a static argument of jit set in
    place): OrderedDict's iteration looks each key up again and raised KeyError, so jit's
    search of its cache (items) and a dropped function's cleanup (values) failed."""
    class Key:
        def __init__(self, v):
            self.v = v

        def __hash__(self):
            return hash(self.v)

        def __eq__(self, other):
            return self.v == other.v

    cache, key = LRU(4), Key(1)
    cache[key], cache["b"] = "old", "b"
    key.v = 2
    assert cache.items() == [(key, "old"), ("b", "b")]
    assert cache.values() == ["old", "b"]
    cache[key] = "new"              # under its new hash (what the old entry becomes is
    assert "new" in cache.values()  # OrderedDict's own: its table is rebuilt by hash)
