"""%timeit's lines about compiling (jxkernel/notebook/magics/timing.py) against JAX 0.10.2's
compile log for the same statements (tests/data/timeit_compiles_cases.py;
timeit_compiles_reference.json recorded by reference/make_timeit_compiles_reference.py): the
warm-up's "Compiled on the first run" names the learner's function where JAX compiles it,
and where JAX compiles again on every timed run (a jit made anew in the statement) %timeit
says the time includes compiling, with a fix that, pasted, compiles nothing in the timed
runs. (It said "That warm-up run is not part of the timing below", nothing more, and named
a lambda of the statement "eager operations, or jxkernel's or libraries' own functions".)"""
import re

import pytest
from IPython.utils.capture import capture_output

import locations                                 # tests/support
import timeit_compiles_cases as cases           # tests/data
from ipython_shell import shell_fixture

import jxkernel
from note_words import here  # noqa: E402  (tests/support)

JAX = locations.jax_answers("timeit_compiles_reference.json")

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp")
NAMES = {"jit_of_a_lambda": "<lambda>", "jit_of_a_def_made_in_it": "g",
         "jit_of_a_def_made_before": "f", "jitted_once_before": "<lambda>"}


def test_the_compiles_of_each_run_are_jaxs():
    assert cases.run(jxkernel) == {k: v for k, v in JAX.items() if k != "cell"}


def _clear_caches_but_executables():
    from jxkernel.xla import memory
    kept = memory._memory_cache.items()
    jxkernel.clear_caches()
    memory._memory_cache.update(kept)


def _timeit(shell, name) -> str:
    setup, stmt = cases.CASES[name]
    # what the process traced is kept by code (as JAX's tracing cache): the same statement
    # timed earlier in this worker (the note-counting test's case, run before this one in
    # random order) made this warm-up's compile "a new jit object" of code compiled before,
    # not a first call. jax.clear_caches() forgets it, as JAX's. The executables kept by
    # module text are no part of that (the compiles counted are the traces' and jits', hit
    # or not; as test_lax_x64_dtypes): kept across the clear, so that the tests after this
    # file in its worker do not compile again every program the worker had compiled
    _clear_caches_but_executables()
    assert shell.run_cell(setup).success
    stmt = stmt.replace("def g", "def g_" + name).replace("jax.jit(g)", f"jax.jit(g_{name})")
    with capture_output() as cap:
        assert shell.run_cell(f"%%timeit -n {cases.TIMED_RUNS} -r 1\n{stmt}").success
    return cap.stdout


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_timeit_says_what_compiled_where_jax_compiles(shell, name):
    said = _timeit(shell, name)
    jax = JAX["compiles"][name]
    assert jax["warm_up"] == 1
    function = NAMES[name] if name != "jit_of_a_def_made_in_it" else f"g_{name}"
    assert re.search(here(rf"Compiled on the first run \({re.escape(function)}: first call; "),
                     said), said
    timed = re.search(here(r"The timed runs compiled too \((\d+) compile\(s\) over (\d+) timed "
                           r"run\(s\): ([^)]*)\), so the time above includes compiling"), said)
    if jax["timed"]:
        assert timed and int(timed.group(1)) == jax["timed"], said
        assert int(timed.group(2)) == JAX["timed_runs"]
        assert timed.group(3).startswith(f"{function}: ")
        assert "make it once before %timeit and time the call of that" in said
    else:
        assert timed is None, said


def test_a_case_timed_again_in_the_worker_is_told_as_in_a_fresh_process(shell):
    """JAX's answers were recorded in a fresh process, and each test here holds one case's
    lines to them: a case timed before in the worker (pytest-randomly ran the note-counting
    test of jit_of_a_lambda before the lines' test of it) said "a new jit object", not
    "first call", for the warm-up. _timeit starts each from what a fresh process has traced."""
    for _ in range(2):
        said = _timeit(shell, "jit_of_a_lambda")
        assert here("Compiled on the first run (<lambda>: first call; ") in said, said


def test_the_notes_fix_pasted_compiles_nothing_in_the_timed_runs(shell):
    """`%timeit jax.jit(lambda v: v + 1.5)(x)`: the cell's note names where the lambda was
    made and rewrites the line, the jit made once before %timeit and its call timed (JAX
    compiles nothing in the timed runs then: jitted_once_before); that rewrite, pasted as a
    cell, compiles nothing in its timed runs. (The note gave a loop's pattern, `f_jit =
    jax.jit(f)` / `for batch in batches:`, and placed the lambda at `<magic-timeit>:1` alone.)"""
    assert JAX["compiles"]["jitted_once_before"]["timed"] == 0
    runs = cases.TIMED_RUNS
    assert shell.run_cell("x = jnp.arange(4.0)").success
    with capture_output() as cap:
        assert shell.run_cell(f"%timeit -n {runs} -r 1 jax.jit(lambda v: v + 1.5)(x)",
                              store_history=True).success
    assert here("The timed runs compiled too") in cap.stdout
    (note,) = [o.data["text/plain"] for o in cap.outputs if here("compiled again") in
               o.data.get("text/plain", "")]
    assert "<lambda> defined in the %timeit statement (JAX's log names <magic-timeit>:1)" in note
    lines = [line.strip() for line in note.splitlines()]
    at = lines.index("lambda_jit = jax.jit(lambda v: v + 1.5)    # once, before %timeit")
    assert lines[at + 1] == f"%timeit -n {runs} -r 1 lambda_jit(x)", note
    with capture_output() as cap:
        assert shell.run_cell("\n".join(lines[at:at + 2])).success
    assert here("The timed runs compiled too") not in cap.stdout and "per loop" in cap.stdout, \
        cap.stdout
    assert not [o for o in cap.outputs if here("compiled again") in o.data.get("text/plain", "")]


def test_the_timeit_lines_and_the_cells_note_count_the_same_compiles(shell):
    """`%timeit -n 3 jax.jit(lambda v: v + 1)(x)` said "3 compile(s) over 3 timed run(s):
    <lambda>: first call" under the time and "2 recompile(s)" in the cell's note: the warm-up
    ran the statement as other code, so the first timed jit read as a first call. Now every
    timed compile is what the note says, a new jit object of the warm-up's code; run again,
    the warm-up's compile is one too (JAX: a jit made anew compiles on each call)."""
    runs = cases.TIMED_RUNS
    assert shell.run_cell("x = jnp.arange(4.0)").success
    # the second cell is other text (its options swapped): JAX names the statement's line,
    # `<magic-timeit>:1`, as the call site of both, so the lambda is "re-defined" there too
    for warm_again, options in ((0, f"-n {runs} -r 1"), (1, f"-r 1 -n {runs}")):
        with capture_output() as cap:
            assert shell.run_cell(f"%timeit {options} jax.jit(lambda v: v * 3.5)(x)",
                                  store_history=True).success
        warm = "a new jit object" if warm_again else "first call"
        assert here(f"Compiled on the first run (<lambda>: {warm}; ") in cap.stdout, cap.stdout
        assert here(f"({runs} compile(s) over {runs} timed run(s): <lambda>: a new jit object)") \
            in cap.stdout, cap.stdout
        (note,) = [o.data["text/plain"] for o in cap.outputs if here("compiled again") in
                   o.data.get("text/plain", "")]
        # (the warm-up's compile, made again by each timed run, is its line's alone: the
        # note counts the timed runs', as JAX's log of the same cell)
        assert note.startswith(here(f"⚙ <lambda> compiled again ×{runs} (a new jit "
                                    f"object, at In[")), note


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_the_cells_note_counts_the_compiles_jax_logs_for_the_cell(shell, monkeypatch, name):
    """The cell's note counted the warm-up's compiles too: a statement compiling on every run
    was one run's more than JAX logs for the same `%%timeit -n 3 -r 1` cell (jit-compilation's
    loops: 180 against JAX's 160). A compile of the first run alone (a jit made once before)
    stays counted: JAX's first timed run makes it."""
    from jxkernel.notebook.notes import compile_notes
    counted = []
    note = compile_notes.cell_note
    monkeypatch.setattr(compile_notes, "cell_note", lambda events, *args, **kwargs:
                        counted.append(len(events)) or note(events, *args, **kwargs))
    _timeit(shell, name)
    assert counted[-1] == JAX["cell"][name]


def test_without_n_the_compiles_are_counted_over_every_run_of_the_statement(shell):
    """jit-compilation.md's `%timeit g_inner_jitted_partial(10, 20)` (a jit made anew 20 times
    a run) said "160 compile(s) over 7 timed run(s)": IPython's %timeit also ran it once to
    choose its loop count (no -n), so 160 were 8 runs' (JAX 0.10.2 under IPython's %timeit:
    160 too). And its warm-up line listed "f: a new jit object" twice, then "and 17 more".
    A statement that sleeps 0.21 s takes one loop (IPython keeps the first count reaching
    0.2 s), so the calibration is one run; JAX compiles a jit made anew once per call."""
    from jxkernel.notebook.magics.timing import calibration_runs
    per_call = JAX["compiles"]["jit_of_a_lambda"]["timed"] // JAX["timed_runs"]
    assert shell.run_cell("import time\nx = jnp.arange(4.0)\ndef three_jits(x):\n"
                          "    time.sleep(0.21)\n    for _ in range(3):\n"
                          "        x = jax.jit(lambda v: v + 1)(x)\n    return x").success
    with capture_output() as cap:
        assert shell.run_cell("timed = %timeit -r 2 -o three_jits(x)").success
    result = shell.user_ns["timed"]
    assert result.loops == 1
    runs, extra = result.loops * result.repeat, calibration_runs(result.loops)
    said = re.search(here(r"\((\d+) compile\(s\) over (\d+) run\(s\) of the statement: (\d+) "
                          r"timed, (\d+) by %timeit's choice of the loop count: <lambda>: "),
                     cap.stdout)
    assert said, cap.stdout
    assert [int(g) for g in said.groups()] == [3 * per_call * (runs + extra), runs + extra,
                                               runs, extra]
    warm = re.search(here(r"Compiled on the first run \(([^)]*)\)"), cap.stdout).group(1)
    assert warm.startswith("<lambda>: ") and warm.count("<lambda>") == len(set(
        warm.split("; ")[:-1])) and " more" not in warm, warm
