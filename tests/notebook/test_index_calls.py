"""The note under a cell whose jitted function read or updated at a traced index out of bounds
(jxkernel/notebook/notes/index_calls.py). What it says is checked against JAX 0.10.2's answers
(tests/data/traced_index_reference.json): the index it names is the one JAX's checkify names
for the same call, what it says JAX read (or where it wrote, or that it dropped the update) is
what JAX's call returned, and the fix it prints raises JAX's own error."""
import re

import numpy as np
import pytest

pytest.importorskip("IPython")

from jxkernel.core import watches
import traced_index_cases as cases  # tests/data
import locations  # tests/support
from ipython_shell import ran_failing, ran_ok, shell_fixture  # tests/support

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp, numpy as np\n"
                      "lax = jax.lax")
THEIRS = locations.jax_answers("traced_index_reference.json")
AT = (r"(?:in an example of a vmapped batch, )?in f, jitted \(at In\[\d+\]:\d+, called at "
      r"In\[\d+\]:1\)")
INDEX = re.compile(rf"⚠ index (-?\d+) is (past the end|before the start) of axis (\d+) "
                   rf"\(size (\d+)\) {AT}: (.+), where NumPy raises IndexError")
WINDOW = re.compile(rf"⚠ lax\.(\w+) moved its start (\d+) to (\d+) on axis (\d+) {AT}: a "
                    rf"window of (\d+) on axis \d+ \(size (\d+)\) starts at \d+ at (?:most|"
                    rf"least), so it (read|wrote the update at) \[(\d+):(\d+)\], and raised "
                    rf"nothing")
CHECKIFY = re.compile(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)")
NOTE = "⚠ "


def _run(shell, name):
    definition, call = cases.CASES[name]
    ran_ok(shell, "x = jnp.arange(10)\n" + definition)
    return ran_ok(shell, f"out = {call}")


def _note(ran) -> str:
    (note,) = [t for t in ran.shown(NOTE) if "jitted" in t]
    return note


@pytest.mark.parametrize("name", sorted(cases.TOLD))
def test_the_note_names_the_index_jax_checkify_names_and_what_jax_did(shell, name):
    ran = _run(shell, name)
    theirs = THEIRS[name]
    ours = np.asarray(shell.user_ns["out"])
    assert ours.tolist() == theirs["result"]            # (integers: exact)
    title = _note(ran).splitlines()[0]
    if "checkify_failed" in theirs:       # (JAX's check of a vmapped update: IndexError)
        assert "cannot check an update under vmap" in _note(ran)
        index, axis, size = 7, 1, 5
    else:
        index, axis, size = (int(v) for v in CHECKIFY.search(theirs["checkify"]).groups())
    if "vmap" in cases.CASES[name][0]:      # (the note's axis is an example's: JAX's less 1)
        assert "in an example of a vmapped batch" in title
        axis -= 1
    x = np.arange(10)
    found = INDEX.fullmatch(title)
    if found is not None:
        told, where, told_axis, told_size, then = found.groups()
        assert (int(told), int(told_axis), int(told_size)) == (index, axis, size)
        assert where == ("past the end" if index >= 0 else "before the start")
        read = re.fullmatch(r"JAX read index (\d+) instead", then)
        if then == "JAX dropped this update" and name == "update_vmapped":
            assert theirs["result"][1] == [5, 6, 7, 8, 9]   # row 1 unchanged
        elif then == "JAX dropped this update":
            assert theirs["result"] == x.tolist()       # the array unchanged
        elif then == "JAX read the fill value instead":
            assert theirs["result"] == np.iinfo(np.int32).min
        else:
            assert read, then
            _check_read(name, theirs["result"], int(read.group(1)))
        return
    found = WINDOW.fullmatch(title)
    assert found, title
    _, start, used, told_axis, n, told_size, did, lo, hi = found.groups()
    assert (int(start), int(told_axis), int(told_size)) == (index, axis, size)
    used, n = int(used), int(n)
    assert (int(lo), int(hi)) == (used, used + n)
    if did == "read" and name == "slice_in_loop":
        # each start 0, 3, 6, 9 as XLA clamps it: the last, 9, read from 6 as told
        starts = [min(3 * i, 10 - n) for i in range(4)]
        assert starts[-1] == used
        assert theirs["result"] == sum(int(x[s:s + n].sum()) for s in starts)
    elif did == "read" and name == "slice_vmapped":     # row 1: [5, ..., 9]
        assert theirs["result"][1] == x[5:][used:used + n].tolist()
    elif did == "read":
        assert theirs["result"] == x[used:used + n].tolist()
    else:
        expected = x.copy()
        expected[used:used + n] = -1
        assert theirs["result"] == expected.tolist()


def _check_read(name, result, read):
    """What JAX returned holds the element the note says it read (x's element is its index)."""
    if name == "read_index_array":          # [1, 11, 12]: the 11 read as told
        assert result[1] == read
    elif name == "read_vmapped":            # row 1, [5, ..., 9], read at the index told
        assert result[1] == 5 + read
    elif name == "read_in_scan":            # x[1] + x[2] + the 30 read as told
        assert result == 1 + 2 + read
    else:
        assert result == read


def test_the_fix_it_prints_raises_jaxs_own_error(shell):
    note = _note(_run(shell, "read_past_the_end"))
    _fix_raises_jaxs_error(shell, note, "read_past_the_end")


EAGER = re.compile(r"⚠ index (\d+) is past the end of axis (\d+) \(size (\d+)\) in the body of "
                   r"lax\.(\w+), run eagerly \(at In\[\d+\]:\d+, the loop at In\[\d+\]:1\): "
                   r"(.+), where NumPy raises IndexError")


@pytest.mark.parametrize("name", sorted(cases.EAGER))
def test_a_loop_run_eagerly_is_told_and_its_fix_raises_jaxs_error(shell, name):
    # outside jit a loop's body is traced too (its counter, the scanned element): JAX 0.10.2
    # clamps the read and drops the update there, silently
    ran = _run(shell, name)
    theirs = THEIRS[name]
    assert np.asarray(shell.user_ns["out"]).tolist() == theirs["result"]    # (integers)
    (note,) = [t for t in ran.shown(NOTE) if "run eagerly" in t]
    index, axis, size, loop, then = EAGER.fullmatch(note.splitlines()[0]).groups()
    assert (int(index), int(axis), int(size)) == tuple(
        int(v) for v in CHECKIFY.search(theirs["checkify"]).groups())
    assert f"lax.{loop}(" in cases.CASES[name][1]
    if then == "JAX dropped this update":       # (y.at[i + 8] at i = 2, 3: the last two kept)
        assert theirs["result"][8:] == [-1, -1]
    else:                                       # x[1] + ... + x[9], and x[10] read as x[9]
        assert then == "JAX read index 9 instead" and theirs["result"] == 45 + 9
    _fix_raises_jaxs_error(shell, note, name)


@pytest.mark.parametrize("name", sorted(cases.TRANSFORMED))
def test_a_jitted_function_under_an_eager_vmap_is_told(shell, name):
    # vmap runs the jitted function's batched program eagerly (transforms/jit/primitive.py's
    # _jit_impl), not through its jit's cache: JAX 0.10.2 clamps and drops there too
    ran = _run(shell, name)
    theirs = THEIRS[name]
    assert np.asarray(shell.user_ns["out"]).tolist() == theirs["result"]    # (integers)
    note = _note(ran)
    found = INDEX.fullmatch(note.splitlines()[0])
    assert found and found.groups()[:4] == ("12", "past the end", "0", "10"), note
    if "checkify_failed" in theirs:         # (the update: x broadcast to the batch, JAX's
        assert "in an example of a vmapped batch" in note    # check raises IndexError)
        assert found.group(5) == "JAX dropped this update"
        assert "cannot check an update under vmap" in note
        return
    assert found.group(5) == "JAX read index 9 instead" and theirs["result"] == [1, 9]
    _fix_raises_jaxs_error(shell, note, name)


def test_a_loop_run_eagerly_in_bounds_gets_no_note_and_one_indexing_nothing_no_watch(shell):
    from jxkernel.xla import dispatch
    ran = _run(shell, "fori_in_bounds")
    assert not ran.shown(NOTE) and shell.user_ns["out"] == THEIRS["fori_in_bounds"]["result"]
    watched = [w for w in dispatch._eager_watches.values() if w is not None]
    ran_ok(shell, "out = lax.fori_loop(0, 3, lambda i, acc: acc * 2, 1)")
    assert [w for w in dispatch._eager_watches.values() if w is not None] == watched
    assert None in dispatch._eager_watches.values()


def _fix_raises_jaxs_error(shell, note, name):
    """The note's fix is the case's call under checkify (as JAX 0.10.2's recording wrote it:
    `cases.checkified`), and pasted it raises JAX's own error for the case."""
    fix = note[note.index("    err, out"):].split("\n")[:2]
    assert fix == [f"    err, out = {cases.checkified(name)}", "    err.throw()"]
    ran = ran_failing(shell, "from jxkernel.experimental import checkify\n" +
                      "\n".join(line.strip() for line in fix))
    assert type(ran.error).__name__ == "JaxRuntimeError"
    assert str(ran.error).splitlines()[0] == THEIRS[name]["raised"]


@pytest.mark.parametrize("name", sorted(cases.QUIET))
def test_in_bounds_and_chosen_modes_get_no_note(shell, name):
    ran = _run(shell, name)
    assert not [t for t in ran.shown(NOTE) if "jitted" in t]
    assert np.asarray(shell.user_ns["out"]).tolist() == THEIRS[name]["result"]


def test_a_line_told_once_and_a_program_that_prints_is_not_run_again(shell):
    from jxkernel.core import compile_record
    _run(shell, "read_past_the_end")
    # the checks' own program is the notebook's, not the learner's: not in the compile log
    assert "index_checks" not in {e.function for e in compile_record.compile_events()}
    assert not [t for t in ran_ok(shell, "f(x, 13)").shown(NOTE) if "jitted" in t]
    ran_ok(shell, "@jax.jit\ndef g(x, i):\n    jax.debug.print('i={i}', i=i)\n    return x[i]")
    ran = ran_ok(shell, "g(x, 12)")
    assert ran.stdout.count("i=12") == 1            # (its checks not run: no second print)
    assert not [t for t in ran.shown(NOTE) if "jitted" in t]


def test_a_donating_step_is_checked_and_timeit_is_not(shell):
    ran_ok(shell, "import warnings\nstep = jax.jit(lambda x, i: x.at[i].add(1.), "
                  "donate_argnums=0)\nx = jnp.arange(10.)")
    ran = ran_ok(shell, "x = step(x, 12)")
    assert "JAX dropped this update" in ran.shown(NOTE)[0]
    ran_ok(shell, "@jax.jit\ndef f(x, i):\n    return x[i]")
    ran = ran_ok(shell, "%timeit -n 2 -r 1 f(x, 12)")
    assert not [t for t in ran.shown(NOTE) if "jitted" in t]    # (paused while timed)
    ran = ran_ok(shell, "f(x, 12)")                 # (off the fast paths again after it)
    assert "JAX read index 9 instead" in _note(ran)


def test_a_loops_calls_are_looked_at_together_and_the_first_out_of_bounds_is_told(shell,
                                                                                 monkeypatch):
    from jxkernel.notebook.notes import index_calls
    # every call looked at (core/watches.py lets most of a loop's calls by, its first FIRST
    # apart: test_watch_schedule.py), so that the looks wait for a batch
    monkeypatch.setattr(watches, "FIRST", 10 ** 9)
    ran_ok(shell, "x = jnp.arange(10)\n@jax.jit\ndef f(x, i):\n    return x[i]")
    # more calls than one look takes (BATCH): the index out of bounds in the second batch
    calls = index_calls.BATCH + 50
    last = calls - 20
    ran = ran_ok(shell, f"for k in range({calls}):\n"
                        f"    f(x, 15 if k == {last} else 16 if k > {last} else k % 10)")
    assert "index 15 is past the end of axis 0 (size 10) in f, jitted" in _note(ran)
    assert index_calls.pending == []


def test_a_step_taking_a_gradient_is_watched_for_both(shell):
    from jxkernel.core.watches import Watches
    ran_ok(shell, "X = jnp.arange(20.).reshape(10, 2)\n@jax.jit\ndef step(w, i):\n"
                  "    g = jax.grad(lambda w: jnp.sum((X[i] @ w) ** 2))(w)\n    return w - 0.1 * g")
    ran = ran_ok(shell, "w = step(jnp.ones(2), 12)")
    assert "index 12 is past the end of axis 0 (size 10) in step, jitted" in _note(ran)
    (entry,) = shell.user_ns["step"]._cache.values()
    assert isinstance(entry.watch, Watches)      # (the gradient record's and the index checks')
    # JAX read row 9: w - 0.1 * 2 (X[9] . w) X[9], X[9] = [18, 19], w = [1, 1] (within about
    # 8 float32 ulps: rtol 1e-6)
    np.testing.assert_allclose(np.asarray(shell.user_ns["w"]),
                               1 - 0.2 * 37 * np.array([18., 19.]), rtol=1e-6)


def test_a_watched_programs_jit_gone_its_program_and_watch_go_too(shell):
    # (a cache of watches by program, its value holding its key, kept every one alive)
    ran_ok(shell, "import gc, weakref\ndef made():\n    g = jax.jit(lambda x, i: x[i])\n"
                  "    g(jnp.arange(10), 3)\n    (entry,) = g._cache.values()\n"
                  "    return weakref.ref(entry.jaxpr), weakref.ref(entry.watch)\nrefs = made()")
    ran_ok(shell, "gc.collect()\nalive = [r() is not None for r in refs]")
    assert shell.user_ns["alive"] == [False, False]
