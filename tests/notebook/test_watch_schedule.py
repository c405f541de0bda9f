"""Which calls of a watched program the notebook looks at (core/watches.py's Schedule): each
cell's first FIRST, then about one in so many, so that a loop of small jitted steps runs at
the fast paths' speed while the extension is loaded (looking at every call made a 16 µs step
take 200 µs). The calls let by take the compiled fast path and the Python ones, which leave
it when the entry's `hits` reach its `look_at`. How fast the loop runs is a benchmark's
question (benchmarks/notebook_watch.py); these count the calls looked at."""
import numpy as np
import pytest

pytest.importorskip("IPython")

from jxkernel.core import watches
from ipython_shell import ran_ok, shell_fixture  # tests/support

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp", fresh=True)

# a jitted step taking a gradient (watched: the NaN note's record,
# notebook/notes/gradient_calls.py), w strongly typed from the start (one program)
STEP = ("def loss(w, x):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.0).sum() * w\n"
        "@jax.jit\ndef step(w, x):\n    return w - 0.01 * jax.grad(loss, argnums=1)(w, x).sum()\n"
        "x = jnp.array([1.0, 2.0])\n")


def _scheduled(jitted):
    """The cache entry of `jitted` whose calls are scheduled (the entry or its twin: the one
    a call's placement picks)."""
    (entry,) = jitted._cache.values()
    return next(e for e in (entry, entry.twin) if e is not None and e.schedule is not None)


def test_each_cells_first_calls_are_looked_at_then_one_in_so_many():
    s = watches.Schedule()
    # calls 10 µs apart, looking at one costing 100 µs: FIRST at once, then let by 2s + 1
    # more each time, up to the share: 100e-6 / (SHARE * 10e-6) = 200 calls
    got, hits, now = [], 0, 0.0
    for _ in range(watches.FIRST + 12):
        hits, now = hits + 1, now + 10e-6
        stride = s.after(hits, 100e-6, now)
        got.append(stride)
        hits, now = hits + stride, now + stride * 10e-6
    assert got == [0] * watches.FIRST + [1, 3, 7, 15, 31, 63, 127, 200, 200, 200, 200, 200]
    # a loop of slow steps (50 ms each) looks at every call: looking is a small share of it
    slow = watches.Schedule()
    assert {slow.after(n, 100e-6, n * 0.05) for n in range(1, 40)} == {0}
    # a cell looked at in full lets none by
    full = watches.Schedule()
    full.full = True
    assert {full.after(n, 100e-6, n * 10e-6) for n in range(1, 40)} == {0}


def test_a_loops_small_steps_are_looked_at_a_few_times_and_give_the_same_results(shell):
    ran_ok(shell, STEP)
    ran_ok(shell, "w = jnp.ones(())\nfor i in range(3000):\n    w = step(w, x)")
    entry = _scheduled(shell.user_ns["step"])
    # (looking costs 5-10 steps' time: about one in 100-200 looked at once the loop runs)
    assert watches.FIRST <= entry.schedule.looked < 3000 // 4
    looked = float(shell.user_ns["w"])
    shell.run_line_magic("unload_ext", "jxkernel")       # (nothing looked at: one program)
    shell.run_cell("w = jnp.ones(())\nfor i in range(3000):\n    w = step(w, x)")
    shell.run_line_magic("load_ext", "jxkernel")
    assert float(shell.user_ns["w"]) == looked           # (the same executable each call)


def test_the_next_cell_looks_at_its_first_calls_again(shell):
    ran_ok(shell, STEP + "w = jnp.ones(())\nfor i in range(500):\n    w = step(w, x)")
    ran_ok(shell, "for i in range(3):\n    w = step(w, x)")
    assert _scheduled(shell.user_ns["step"]).schedule.looked == 3


@pytest.mark.parametrize("path", ["compiled", "python"])
def test_a_call_leaves_the_fast_paths_when_its_entry_reaches_look_at(shell, path):
    # the compiled fast path (core/_fastpath.c) and jit's Python ones (_python_call) let calls
    # by until `hits` reaches `look_at`, then give that one to _call, which looks at it
    ran_ok(shell, STEP + "w = step(jnp.ones(()), x)")
    step, w = shell.user_ns["step"], shell.user_ns["w"]
    call = step if path == "compiled" else step._python_call
    entry = _scheduled(step)
    looked = entry.schedule.looked
    entry.look_at = entry.hits + 3
    for _ in range(4):
        call(w, shell.user_ns["x"])
    assert entry.schedule.looked == looked + 1


def test_timeit_lets_every_call_by_and_the_calls_after_it_are_looked_at(shell):
    ran_ok(shell, STEP + "w = step(jnp.ones(()), x)")
    entry = _scheduled(shell.user_ns["step"])
    looked = entry.schedule.looked
    assert looked == 1
    ran_ok(shell, "%timeit -n 20 -r 2 step(w, x)")
    # timeit's 40 calls went by; as its pause ended, the next calls were to be looked at
    assert entry.schedule.looked == 0 and entry.look_at == 0
    ran_ok(shell, "w = step(w, x)\nw = step(w, x)")
    assert entry.schedule.looked == 2


def test_a_nan_first_made_in_a_call_let_by_is_found_when_the_cell_runs_again(shell,
                                                                               monkeypatch):
    # step 200's gradient is NaN (x = 0: sqrt's derivative inside the where), and every step
    # after starts from a NaN w. Looking costs at least a step's time here, so with this
    # share the strides grow 1, 3, 7, ..., 127 after the first eight: calls 1-8, 10, 14, 22,
    # 38, 70, 134 and 262 are looked at, and 200 goes by unlooked at
    monkeypatch.setattr(watches, "SHARE", 0.001)
    ran_ok(shell, STEP)
    loop = "w = jnp.ones(())\nfor i in range(400):\n    w = step(w, x * (i != 200))"
    first = ran_ok(shell, loop)
    assert np.isnan(float(shell.user_ns["w"]))
    assert not first.shown("⚠ the gradient holds NaN")
    # the call looked at after it (its inputs NaN) had the next cell look at every call
    again = ran_ok(shell, loop)
    assert _scheduled(shell.user_ns["step"]).schedule.looked == 400
    (note,) = again.shown("⚠ the gradient holds NaN")
    assert "the jnp.where at In[" in note and "called at In[" in note
    # and the cell after that lets calls by again
    ran_ok(shell, loop)
    assert _scheduled(shell.user_ns["step"]).schedule.looked < 400


def test_a_step_called_while_unloaded_is_looked_at_again_once_loaded(shell):
    ran_ok(shell, STEP + "w = step(jnp.ones(()), x)")
    entry = _scheduled(shell.user_ns["step"])
    shell.run_line_magic("unload_ext", "jxkernel")
    shell.run_cell("w = step(w, x)")
    assert entry.look_at == watches.NEVER           # (the fast paths alone)
    shell.run_line_magic("load_ext", "jxkernel")
    ran_ok(shell, "w = step(w, x)")
    assert entry.schedule.looked == 1


def test_every_call_is_looked_at_where_the_option_says_all(shell):
    from jxkernel.core.config import config
    ran_ok(shell, STEP + "w = step(jnp.ones(()), x)")
    config.update("jxkernel_watched_calls", "all")
    try:
        # the NaN made at step 200 alone of a loop of small steps: told in the first run
        ran = ran_ok(shell, "w = jnp.ones(())\nfor i in range(400):\n"
                            "    w = step(w, x * (i != 200))")
        assert _scheduled(shell.user_ns["step"]).schedule.looked == 400
        (note,) = ran.shown("⚠ the gradient holds NaN")
        assert "the jnp.where at In[" in note
    finally:
        config.update("jxkernel_watched_calls", "sampled")
    ran_ok(shell, "for i in range(400):\n    w = step(jnp.ones(()), x)")
    assert _scheduled(shell.user_ns["step"]).schedule.looked < 400
