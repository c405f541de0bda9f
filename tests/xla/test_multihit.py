"""Several signatures under one key of a jit's `_last` (jit.cache.Recent): calls of different
shapes, dtypes, weak types, Python scalars, containers, by position or keyword, with statics,
donating or not, made in turn each hit in C (no Python frame of ours), as JAX's C++ cache
holds every signature; and give what the Python path gives. Each test runs with the compiled
fast path and with the Python path (no Hit made), as tests/xla/test_dispatch.py's do."""
import os
import sys

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel.core.config import config
from jxkernel.core.native import STATE
from jxkernel.transforms.jit.cache import LAST_HIT, NO_HITS, RECENT
from jxkernel.xla import dispatch, fastpath
from dispatch_paths import path, python_frames  # noqa: F401  (path: autouse)
from logged import logged_messages      # tests/support


def arr(x, dtype=np.float32):
    return jax.device_put(np.asarray(x, dtype))


def _frames(call) -> list:
    """python_frames, less a Python scalar's buffer (xla/scalars.py), looked up in Python on
    either path."""
    return [f for f in python_frames(call) if f not in ("scalar_buffer", "_scalar")]


def _value(out):
    """(values, dtype, weak type) of a result, or of each leaf of a container of them."""
    leaves = jax.tree_util.tree_leaves(out)
    return [(np.asarray(a).tolist(), np.dtype(a.dtype).name, a.weak_type) for a in leaves]


def _alternating_calls():
    """{name: (jit, [calls made in turn under one key of its `_last`, each a thunk])}."""
    f = jax.jit(lambda x: x * 2)
    k = jax.jit(lambda x, y: x - y)
    s = jax.jit(lambda x, n: x * n, static_argnums=1)
    g = jax.jit(lambda x, y, *, n: x * n - y, static_argnames="n")
    c = jax.jit(lambda d: jax.tree_util.tree_map(lambda v: v + 1, d))
    a, i, b = arr([1.0, 2.0]), arr([1, 2], np.int32), arr([1.0, 2.0, 3.0, 4.0])
    w, v, m = jax.device_put(2.0), arr(2.0), arr([[1.0, 2.0], [3.0, 4.0]])
    return {
        "dtypes": (f, [lambda: f(a), lambda: f(i)]),
        "shapes": (f, [lambda: f(a), lambda: f(b), lambda: f(m)]),
        "weak types": (f, [lambda: f(w), lambda: f(v)]),
        "a Python scalar or an Array": (k, [lambda: k(a, 2.0), lambda: k(a, a), lambda: k(i, 2)]),
        "keywords": (k, [lambda: k(x=a, y=a), lambda: k(x=i, y=i), lambda: k(x=b, y=1.0)]),
        "a keyword beside a positional": (k, [lambda: k(a, y=a), lambda: k(i, y=i)]),
        "a static by position": (s, [lambda: s(a, 3), lambda: s(i, 3), lambda: s(b, 3)]),
        "a static beside a keyword": (g, [lambda: g(a, y=a, n=3), lambda: g(i, y=i, n=3)]),
        "containers": (c, [lambda: c({"p": a}), lambda: c({"p": i}), lambda: c({"p": b})]),
    }


@pytest.mark.parametrize("case", list(_alternating_calls()))
def test_signatures_called_in_turn_each_hit_in_c(path, case):
    jitted, calls = _alternating_calls()[case]
    first = [_value(call()) for call in calls]
    for _ in range(3):                   # in turn: each round the same answers
        assert [_value(call()) for call in calls] == first
    assert jitted._cache_size() == len(calls)
    assert jitted.cache_hits() == 3 * len(calls)
    for n, call in enumerate(calls):
        frames = _frames(call)
        assert (frames == []) == (path == "compiled"), (case, n, frames)
        assert path == "compiled" or "_python_call" in frames


def test_the_python_path_answers_alike(path):
    # the same calls in a process-wide toggle: every answer equal to the compiled path's
    calls = _alternating_calls()
    got = {name: [_value(call()) for _ in range(3) for call in thunks]
           for name, (_, thunks) in calls.items()}
    assert got["dtypes"][:2] == [[([2.0, 4.0], "float32", False)], [([2, 4], "int32", False)]]
    assert got["weak types"][:2] == [[(4.0, "float32", True)], [(4.0, "float32", False)]]
    assert got["a Python scalar or an Array"][:3] == [[([-1.0, 0.0], "float32", False)],
                                                       [([0.0, 0.0], "float32", False)],
                                                       [([-1, 0], "int32", False)]]
    assert got["keywords"][2] == [([0.0, 1.0, 2.0, 3.0], "float32", False)]
    assert got["a static beside a keyword"][:2] == [[([2.0, 4.0], "float32", False)],
                                                     [([2, 4], "int32", False)]]
    assert got["containers"][1] == [([2, 3], "int32", False)]


def test_donating_signatures_in_turn_hit_in_c_and_mark_what_they_donate(path):
    d = jax.jit(lambda x: x + 1, donate_argnums=0)
    held = {"f32": arr([0.0, 1.0]), "i32": arr([0, 1], np.int32), "f32[3]": arr([0.0] * 3)}
    for _ in range(4):
        for name in held:
            old, held[name] = held[name], d(held[name])
            assert old.is_deleted() and type(old._buf).__name__ == "Gone"
    assert np.asarray(held["i32"]).tolist() == [4, 5] and held["i32"].dtype == np.int32
    assert d._cache_size() == 3 and d.cache_hits() == 9
    for name in held:
        frames = _frames(lambda: held.__setitem__(name, d(held[name])))
        assert (frames == []) == (path == "compiled"), (name, frames)
    gone = held["f32"]
    d(gone)                                                  # donated by the older Hit...
    with pytest.raises(ValueError, match=r"^INVALID_ARGUMENT: Invalid buffer passed to Execute"
                       r"\(\) as argument 0 to replica 0: INVALID_ARGUMENT: Buffer has been "
                       r"deleted or donated\. It was donated to jit\(<lambda>\) as its "
                       r"argument 'x'"):
        d(gone)                                              # ... and again: JAX's error


def test_a_key_holds_the_newest_eight_signatures(path):
    f = jax.jit(lambda x: x + 1)
    xs = [arr(np.zeros(n)) for n in range(1, RECENT + 3)]     # ten shapes
    for _ in range(2):
        for x in xs:
            f(x)
    recent = f._last[LAST_HIT]
    assert len(recent.hits) == RECENT and recent.newest.avals[0].shape == (RECENT + 2,)
    held = {hit.avals[0].shape for hit in recent.hits}
    assert held == {(n,) for n in range(3, RECENT + 3)}      # the two oldest left
    assert len(recent.native) == (RECENT if path == "compiled" else 0)
    assert (_frames(lambda: f(xs[5])) == []) == (path == "compiled")
    assert "_python_call" in _frames(lambda: f(xs[0]))       # evicted: Python, then held
    assert recent.newest.avals[0].shape == (1,) and len(recent.hits) == RECENT
    assert (_frames(lambda: f(xs[0])) == []) == (path == "compiled")
    assert np.asarray(f(xs[0])).tolist() == [1.0] and f._cache_size() == RECENT + 2


def test_hits_made_under_another_config_leave_and_results_follow_it(path):
    f = jax.jit(lambda x, n: x + jnp.zeros(n), static_argnums=1)
    a, i = arr([1.0, 2.0]), arr([1, 2], np.int32)
    for _ in range(3):
        assert f(a, 2).dtype == np.float32 and f(i, 2).dtype == np.float32
    key = ((), 2, int)
    with jax.config.override("jax_enable_x64", True):        # zeros are f64 there
        for _ in range(2):
            assert f(a, 2).dtype == np.float64 and f(i, 2).dtype == np.float64
        assert len(f._last.get(key, NO_HITS).hits) == 2       # the stale two left
    assert f(a, 2).dtype == np.float32 and f(i, 2).dtype == np.float32
    assert f._cache_size() == 4


def test_dropped_entries_and_clear_cache_leave_every_key(path):
    f = jax.jit(lambda x: x * 3)
    f._cache.resize(2)
    xs = [arr(np.ones(n)) for n in (1, 2, 3)]
    for _ in range(3):
        for x in xs[:2]:
            assert np.asarray(f(x)).tolist() == [3.0] * x.shape[0]
    assert len(f._last[LAST_HIT].hits) == 2
    for _ in range(3):                  # a third signature: the compiled cache drops the first
        assert np.asarray(f(xs[2])).tolist() == [3.0] * 3
    kept = set(map(id, f._cache.values()))
    hits = f._last[LAST_HIT].hits
    assert [h.avals[0].shape for h in hits] == [(3,), (2,)]
    assert all(id(getattr(h.entry, "entry", h.entry)) in kept for h in hits)
    assert len(f._last[LAST_HIT].native) == (2 if path == "compiled" else 0)
    f.clear_cache()
    assert not f._last and f._cache_size() == 0
    events = len(jax.compile_events())
    assert np.asarray(f(xs[1])).tolist() == [3.0] * 2 and len(jax.compile_events()) == events + 1


def test_a_new_signature_after_held_ones_compiles_and_is_explained(path):
    # hits in C log nothing and record no compile; the third dtype misses every held Hit,
    # takes the general path, and is explained (and logged with jax_explain_cache_misses)
    def scaled_in_turn(x):
        return x * 2
    f = jax.jit(scaled_in_turn)
    a, i, h = arr([1.0]), arr([1], np.int32), arr([1.0], np.float16)
    before = config.jax_explain_cache_misses
    config.update("jax_explain_cache_misses", True)
    try:
        with logged_messages() as messages:
            f(a), f(i)
            events = len(jax.compile_events("scaled_in_turn"))
            logged = len(messages)
            for _ in range(3):
                f(a), f(i)
            assert len(jax.compile_events("scaled_in_turn")) == events
            assert len(messages) == logged
            assert f(h).dtype == np.float16
    finally:
        config.update("jax_explain_cache_misses", before)
    event = jax.compile_events("scaled_in_turn")[-1]
    assert [(c.path, c.kind, c.old, c.new) for c in event.changes] == \
        [("x", "dtype", "f32[1]", "f16[1]")]     # (the closest previous key)
    assert any("TRACING CACHE MISS" in m and "scaled_in_turn" in m
               for m in messages[logged:])


def test_held_signatures_still_meet_the_transfer_guard(path):
    f = jax.jit(lambda x, a: x * a)
    x, i = arr([1.0]), arr([1], np.int32)
    for _ in range(3):
        f(x, 3.0), f(i, 3)                   # two held, each with its scalar kept
    with jax.transfer_guard("disallow"):
        with pytest.raises(RuntimeError, match="host-to-device"):
            f(i, 3)
        with pytest.raises(RuntimeError, match="host-to-device"):
            f(x, 3.0)
    assert np.asarray(f(x, 3.0)).tolist() == [3.0] and np.asarray(f(i, 3)).tolist() == [3]
