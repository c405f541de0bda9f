"""jxkernel.timing.profile: trace, lower, compile, dispatch and device apart, each over runs;
its text, HTML and JSON renderings; and `%timeit --phases` in a real InteractiveShell."""
import json
import statistics
import time

import numpy as np
import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel import compile_log
from jxkernel.timing import PROFILE_MIME, Phase, Profile, duration, profile
from ipython_shell import shell_fixture


def _matmul(x):
    return jnp.tanh(x @ x)


def _own_matmul():
    """_matmul as a new function object: jit's caches are keyed on the function (as JAX's),
    so a test that counts compile events needs a function no other test has jitted."""
    def _matmul(x):
        return jnp.tanh(x @ x)
    return _matmul


def _x():
    return jnp.asarray(np.linspace(-1, 1, 128 * 128, dtype=np.float32).reshape(128, 128))


@pytest.mark.skipif(jxkernel.default_backend() == "numpy",
                    reason="the numpy backend lowers nothing: its lower phase is 0")
def test_every_phase_is_positive_and_counted():
    p = profile(_own_matmul(), _x(), runs=4, compiles=2)
    assert [ph.name for ph in p.phases] == ["trace", "lower", "compile", "dispatch", "device"]
    assert [len(ph.samples) for ph in p.phases] == [2, 2, 2, 4, 4]
    assert all(s > 0 for ph in p.phases for s in ph.samples), p
    assert (p.runs, p.compiles, p.compile_source) == (4, 2, "fresh")
    assert p.first_compile is not None and p.first_compile.reason == "first call"


def test_compilation_stays_out_of_the_timed_runs():
    """Only the warm-up compiles: the fresh compilations are ahead of time (no event), and
    the timed runs find the compiled program."""
    f = jxkernel.jit(_own_matmul())
    events = []
    unsubscribe = compile_log.subscribe(events.append)
    try:
        p = profile(f, _x(), runs=3, compiles=1)
    finally:
        unsubscribe()
    assert [(e.key is f, e.reason) for e in events] == [(True, "first call")]
    assert p.first_compile == events[0]
    assert f.cache_hits() == 3


def test_dispatch_plus_device_is_the_wall_time_of_a_blocked_call():
    """Median of dispatch+device against the median wall time of `f(x).block_until_ready()`
    measured here. Generous bound (this machine is shared, so one timing can stretch):
    within 75% of the larger plus 5 ms; it catches a phase missing or counted twice."""
    f, x = jxkernel.jit(_matmul), _x()
    p = profile(f, x, runs=9, compiles=0)
    walls = []
    for _ in range(9):
        start = time.perf_counter()
        f(x).block_until_ready()
        walls.append(time.perf_counter() - start)
    ours = statistics.median(d + v for d, v in zip(p.dispatch.samples, p.device.samples))
    wall = statistics.median(walls)
    assert abs(ours - wall) <= 0.75 * max(ours, wall) + 0.005, (ours, wall)


def test_without_fresh_compilations_the_first_calls_event_is_the_sample():
    f = jxkernel.jit(lambda x: x * 3.0)
    p = profile(f, jnp.ones(5), runs=2, compiles=0)
    first = p.first_compile
    assert p.compile_source == "first call" and p.compiles == 0
    assert (p.trace.samples, p.lower.samples, p.compile.samples) == \
        ((first.trace_s,), (first.lower_s,), (first.compile_s,))
    again = profile(f, jnp.ones(5), runs=2, compiles=0)      # compiled already
    assert again.compile_source == "none" and again.first_compile is None
    assert again.trace.samples == () and again.trace.median is None
    assert "already compiled" in repr(again)


def test_static_arguments_and_keyword_arguments_are_passed_on():
    f = jxkernel.jit(lambda x, n, *, scale: jnp.tile(x, n) * scale, static_argnums=1)
    p = profile(f, jnp.ones(2), 3, scale=2.0, runs=2, compiles=1)
    assert p.runs == 2 and p.function == "<lambda>"


def _known() -> Profile:
    ms = 1e-3
    return Profile("f", Phase("trace", (2 * ms, 4 * ms)), Phase("lower", (1 * ms, 1 * ms)),
                   Phase("compile", (0.5, 1.5)), Phase("dispatch", (20e-6, 30e-6, 40e-6)),
                   Phase("device", (0.25 * ms, 0.5 * ms, 0.75 * ms)), "fresh", None,
                   ("note one", "note <two>"))


def test_text_table():
    assert repr(_known()) == "\n".join([
        "phases of f: 3 timed run(s)",
        "phase           min    median       max           mean ± std  n",
        "trace       2.00 ms   3.00 ms   4.00 ms    3.00 ms ± 1.41 ms  2",
        "lower       1.00 ms   1.00 ms   1.00 ms     1.00 ms ± 0.0 µs  2",
        "compile   500.00 ms   1.000 s   1.500 s  1.000 s ± 707.11 ms  2",
        "dispatch    20.0 µs   30.0 µs   40.0 µs    30.0 µs ± 10.0 µs  3",
        "device     250.0 µs  500.0 µs  750.0 µs  500.0 µs ± 250.0 µs  3",
        "note one",
        "note <two>"])


def test_durations_pick_their_unit():
    assert [duration(s) for s in (12.3e-6, 0.0123, 1.5, None)] == \
        ["12.3 µs", "12.30 ms", "1.500 s", "—"]


def test_html_escapes_and_the_json_bundle():
    p = _known()
    page = p._repr_html_()
    assert "note &lt;two&gt;" in page and "<two>" not in page
    assert "<td style='text-align:left'>dispatch</td>" in page
    bundle = p._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html", PROFILE_MIME}
    data = bundle[PROFILE_MIME]
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    assert list(data)[0] == "version" and data["version"] == 1
    assert (data["function"], data["runs"], data["compiles"], data["compile_source"],
            data["backend"], data["first_compile"]) == ("f", 3, 2, "fresh", None, None)
    device = data["phases"][4]
    assert device == {"name": "device", "kind": "run", "samples_s": [0.25e-3, 0.5e-3, 0.75e-3],
                      "min_s": 0.25e-3, "median_s": 0.5e-3, "max_s": 0.75e-3,
                      "mean_s": statistics.fmean([0.25e-3, 0.5e-3, 0.75e-3]),
                      "std_s": statistics.stdev([0.25e-3, 0.5e-3, 0.75e-3])}
    assert [ph["kind"] for ph in data["phases"]] == ["compile"] * 3 + ["run"] * 2


@pytest.mark.parametrize("kwargs, error, says", [
    ({"runs": 0}, ValueError, "runs=0"),
    ({"runs": -2}, ValueError, "runs=-2"),
    ({"runs": 2.5}, TypeError, "runs=2.5 of type float"),
    ({"runs": True}, TypeError, "runs=True of type bool"),
    ({"runs": "7"}, TypeError, "runs='7' of type str"),
    ({"compiles": -1}, ValueError, "compiles=-1"),
])
def test_bad_counts_are_refused_before_anything_runs(kwargs, error, says):
    called = []
    with pytest.raises(error, match=says.replace("(", r"\(")):
        profile(lambda x: called.append(x) or x, jnp.ones(2), **kwargs)
    assert called == []


def test_bad_functions_are_refused():
    with pytest.raises(TypeError, match="f must be a function.*got int 3"):
        profile(3, jnp.ones(2))
    donating = jxkernel.jit(lambda x: x + 1, donate_argnums=0)
    with pytest.raises(ValueError, match="donates arguments"):
        profile(donating, jnp.ones(2))


# ------------------------------------------------------------------ the notebook layer
shell = shell_fixture("import jxkernel, jxkernel.numpy as jnp\n"
                      "def f(x, n):\n    return jnp.sin(x) * n\n"
                      "x = jnp.ones(8)\n")


def test_timeit_phases_prints_the_table(shell, capsys):
    result = shell.run_cell("%timeit --phases -r 3 f(x, 2)")
    assert result.success, result.error_in_exec
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "phases of f: 3 timed run(s)"
    assert lines[1].split() == ["phase", "min", "median", "max", "mean", "±", "std", "n"]
    assert [line.split()[0] for line in lines[2:7]] == ["trace", "lower", "compile",
                                                        "dispatch", "device"]
    assert [line.split()[-1] for line in lines[2:7]] == ["3"] * 5
    assert any(line.startswith("dispatch: until the call returns") for line in lines)


def test_timeit_phases_displays_the_rich_bundle(shell):
    from IPython.utils.capture import capture_output
    with capture_output() as out:
        shell.run_cell("%timeit --phases -r 2 f(x, 2)")
    [shown] = [o.data for o in out.outputs]           # no chart outside a Jupyter kernel
    assert shown[PROFILE_MIME]["runs"] == 2 and shown[PROFILE_MIME]["function"] == "f"
    assert shown["text/plain"].startswith("phases of f: 2 timed run(s)\n")
    assert "<table" in shown["text/html"]


def test_timeit_phases_adds_the_chart_in_a_jupyter_kernel(shell):
    pytest.importorskip("plotly")
    from IPython.utils.capture import capture_output
    shell.kernel = object()          # what a Jupyter kernel's shell has, terminal IPython not
    try:
        with capture_output() as out:
            shell.run_cell("%timeit --phases -r 2 f(x, 2)")
    finally:
        del shell.kernel
    # picked by MIME type: a shell shared with other tests may also show a note under the
    # cell (what compiled again, a changed global), an output of its own (the order
    # dependence docs/log/other_cpus.md records under `-n 2` with some seeds)
    (table,) = [o.data for o in out.outputs if PROFILE_MIME in o.data]
    (chart,) = [o.data for o in out.outputs if "application/vnd.plotly.v1+json" in o.data]
    assert table[PROFILE_MIME]["runs"] == 2
    plotted = chart["application/vnd.plotly.v1+json"]["data"]
    assert [t["name"] for t in plotted] == ["trace", "lower", "compile", "dispatch", "device"]
    assert [len(t["x"]) for t in plotted] == [2, 2, 2, 2, 2]


def test_profile_of_a_plain_function_logs_none_of_its_own_compiles():
    # the jit profile makes of a plain function is the tool's: its warm-up compile is read by
    # profile (Profile.first_compile) but never logged or told to subscribers (the cell's
    # notes), where it was explained as the user's "compiled again (a new jit object)"
    from jxkernel.core import compile_record
    fn = _own_matmul()
    jxkernel.jit(fn)(jnp.ones((4, 4)))              # the user's own jit of it, compiled
    seen = []
    unsubscribe = compile_record.subscribe(seen.append)
    try:
        p = profile(fn, jnp.ones((3, 3)), runs=2, compiles=0)    # a new shape: it compiles
    finally:
        unsubscribe()
    assert seen == [] and p.first_compile is not None and p.compile_source == "first call"
    # and the jit %timeit --phases makes of the user's plain function (notebook/funcview.py)
    from jxkernel.notebook.funcview import as_jitted
    jitted, args, kwargs = as_jitted(fn, (jnp.ones((2, 2)),), {})
    try:
        unsubscribe = compile_record.subscribe(seen.append)
        p = profile(jitted, *args, runs=2, compiles=0, **kwargs)
    finally:
        unsubscribe()
    assert seen == [] and p.first_compile is not None


def test_timeit_phases_options(shell):
    from IPython.utils.capture import capture_output
    with capture_output() as out:
        got = shell.run_line_magic("timeit", "--phases -q -o -r 2 f(x, 3)")
    assert out.stdout == "" and isinstance(got, Profile) and got.runs == 2
    assert got.compiles == 2                     # n=3 is static: a Python int, as in %jaxpr
    shell.run_line_magic("timeit", "--phases -q -v kept -r 1 f(x, 3)")
    assert isinstance(shell.user_ns["kept"], Profile) and shell.user_ns["kept"].runs == 1


@pytest.mark.parametrize("line, says", [
    ("--phases -r 0 f(x, 2)", "-r '0'"),
    ("--phases -r two f(x, 2)", "-r 'two'"),
    ("--phases -n 3 f(x, 2)", "not -n 3"),
    ("--phases x + 1", "takes a call such as f"),
])
def test_timeit_phases_bad_usage(shell, line, says):
    from IPython.core.error import UsageError
    with pytest.raises(UsageError, match=says.replace("+", r"\+")):
        shell.run_line_magic("timeit", line)


def test_timeit_phases_is_a_line_magic_only(shell):
    from IPython.core.error import UsageError
    with pytest.raises(UsageError, match="one call written on the magic's line"):
        shell.run_cell_magic("timeit", "--phases", "f(x, 2)\n")


def test_phase_chart_has_one_box_per_measured_phase():
    pytest.importorskip("plotly")
    from jxkernel.notebook.timeit import PhaseChart
    chart = PhaseChart(_known())
    assert chart.figure.layout.title.text == "phases of f: 3 timed run(s) (ms)"
    assert [t.name for t in chart.figure.data] == ["trace", "lower", "compile", "dispatch",
                                                   "device"]
    assert list(chart.figure.data[4].x) == [s * 1e3 for s in _known().device.samples]
    bundle = chart._repr_mimebundle_()
    assert {"application/vnd.plotly.v1+json", "text/html", "text/plain"} <= set(bundle)


def test_docstring_examples():
    from doc_examples import check_docstring_examples
    check_docstring_examples("jxkernel.timing", {"jxkernel": jxkernel})


def test_on_the_numpy_backend_the_notes_say_no_xla_compiles_and_no_async_dispatch():
    # JupyterLite's backend (08_performance's `%timeit --phases` there): the notes said
    # "compile is XLA's time" and "XLA compiled it", and nothing of the missing async dispatch
    p = profile(jxkernel.jit(_own_matmul(), backend="numpy"), _x(), runs=2, compiles=1)
    fresh, first, run = p.notes
    # the bundle says so too: the extension's profile view says "traced afresh" from it
    assert p.backend == "numpy" and p.to_json()["backend"] == "numpy"
    # (nor "1 fresh compilation(s)", "The first call compiled": nothing compiles there)
    assert fresh.endswith("compile is the numpy backend's preparing of the program that runs "
                          "the jaxpr (no XLA there: nothing compiles)."), fresh
    assert fresh.startswith("trace, lower, compile: 1 fresh trace(s) of jit("), fresh
    assert "XLA compiled it" not in first, first
    assert first.startswith("The first call traced (trace "), first
    assert "for the numpy backend, no XLA: nothing compiled); it is a warm-up" in first, first
    assert run.endswith("The numpy backend has no async dispatch: it computes the results before "
                        "the call returns, so dispatch holds the computation and device is only "
                        "the wait on results already there."), run


@pytest.mark.skipif(jxkernel.default_backend() == "numpy", reason="XLA's notes need XLA")
def test_on_xla_the_notes_say_xla_compiles():
    p = profile(jxkernel.jit(_own_matmul()), _x(), runs=2, compiles=1)
    assert p.notes[0].endswith("compile is XLA's time.") and "numpy" not in p.notes[2]
    assert p.to_json()["backend"] == "cpu"
