"""The views on the NumPy backend (what JupyterLite runs): the workshop's performance notebook
(demos/solutions/08) cell by cell after `%jxbackend numpy`, with %timeit, %hlo, %explain and
%jxmemory, and the stepper; each works there, and what needs XLA says so."""
import pathlib
import re

import numpy as np
import pytest

pytest.importorskip("IPython")
nbformat = pytest.importorskip("nbformat")

import locations  # noqa: E402
from jxkernel import config  # noqa: E402
from ipython_shell import ran_ok, shell_fixture  # noqa: E402

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp", fresh=True, scope="module")
NOTEBOOK = pathlib.Path(locations.ROOT) / "demos" / "solutions" / "08_performance.ipynb"


@pytest.fixture(autouse=True, scope="module")
def on_the_numpy_backend(shell):
    """%jxbackend numpy for this file; later tests in the worker see the backends as before."""
    from jxkernel.xla import client
    started = "numpy" in client._backends
    run(shell, "%jxbackend numpy")
    yield
    if config.jax_platforms != "numpy":
        run(shell, "%jxbackend cpu")
        if not started:
            client._backends.pop("numpy", None)


def run(shell, source) -> str:
    """The cell's printed and displayed text; fails the test on an error."""
    ran = ran_ok(shell, source)
    return "\n".join([ran.stdout, *[o.get("text/plain", "") for o in ran.outputs]])


@pytest.fixture(scope="module")
def performance_notebook(shell) -> dict:
    """Each code cell's source (its first line) -> its output, run in order as Run All does."""
    cells = [c for c in nbformat.read(NOTEBOOK, as_version=4).cells
             if c.cell_type == "code" and "setup" not in c.metadata.get("tags", [])]
    return {c.source: run(shell, c.source) for c in cells}


def output_of(outputs: dict, marker: str) -> str:
    found = [out for source, out in outputs.items() if marker in source]
    assert len(found) == 1, (marker, list(outputs))
    return found[0]


def test_every_check_of_the_performance_notebook_passes(performance_notebook):
    for exercise in ("perf-wait", "perf-flops", "perf-donate"):
        assert f"{exercise}: ✓ correct" in output_of(performance_notebook,
                                                     f'check("{exercise}"'), exercise


def test_hlo_shows_the_stablehlo_and_says_there_is_no_optimized_hlo(performance_notebook):
    shown = output_of(performance_notebook, "%hlo matmul(a, b)")
    assert "stablehlo.dot_general" in shown
    assert "none: the numpy backend runs the jaxpr" in shown and "JAX_PLATFORMS=cpu" in shown
    assert "cost estimate (from the jaxpr: no XLA on the numpy backend)" in shown
    assert "flops: 4,194,304" in shown and "estimated from: the jaxpr" in shown


def test_hlo_views_bundle_heads_its_costs_as_estimates(shell):
    """The browser's %hlo view (labextension/src/hloView.ts) titles the cost table from the
    bundle: on the numpy backend the costs are jxkernel's estimates, not XLA's analysis."""
    run(shell, "from jxkernel.notebook.widgets.hlo_view import HloView\n"
               "hlo_numpy = HloView('f(x)', jax.jit(lambda x: x @ x).lower(jnp.ones((4, 4))))")
    bundle = shell.user_ns["hlo_numpy"]._repr_mimebundle_()["application/vnd.jxkernel.hlo+json"]
    assert bundle["cost_title"] == "cost estimate (from the jaxpr: no XLA on the numpy backend)"
    assert dict(bundle["cost"])["flops"] == 2 * 4 ** 3


def test_explain_counts_each_line_from_the_jaxpr(performance_notebook):
    shown = output_of(performance_notebook, "%explain layer(a, b)")
    matmul = next(line for line in shown.splitlines() if "h = x @ w" in line)
    tanh = next(line for line in shown.splitlines() if "y = jnp.tanh(h)" in line)
    assert "4.19e+06" in matmul and "196,608" in matmul            # 2·128³ flops; 3 arrays
    assert "16,384" in tanh                                        # one tanh per element
    assert "per jaxpr equation" in shown and "estimates" in shown
    assert "optimized HLO: none (the numpy backend runs the jaxpr" in shown


def test_timeit_and_jxmemory_run_there(performance_notebook):
    timed = output_of(performance_notebook, "%timeit -n 5 -r 3 --dispatch heavy(x)")
    # not "the device may still be working": NumPy has computed the results when it returns
    assert "loop" in timed and "The numpy backend has no async dispatch" in timed
    phases = output_of(performance_notebook, "%timeit --phases -r 3 heavy(x)")
    assert "compile" in phases and "device" in phases
    # not "compile is XLA's time" (no XLA there), and no async dispatch either
    assert "compile is the numpy backend's preparing of the program" in phases
    assert "XLA's time" not in phases and "compilation(s)" not in phases
    assert "The numpy backend has no async dispatch" in phases
    memory = output_of(performance_notebook, "%jxmemory")
    assert "live arrays on numpy" in memory and "numpy:0" in memory
    # the NumPy backend's allocator: its buffers' bytes and peak; no limit, said so
    assert re.search(r"^numpy:0 allocator: [\d,]+ bytes.* in use, peak [\d,]+ bytes.*, limit "
                     r"not reported by this backend$", memory, re.M), memory


def test_the_browser_times_200x200_matmuls(performance_notebook, shell):
    # 400x400 takes seconds a call in Pyodide's NumPy (no optimized BLAS): its section 1 says so
    output_of(performance_notebook, "def heavy(x)")
    assert shell.user_ns["x"].shape == (200, 200) and shell.user_ns["n"] == 200


def test_the_stepper_finds_the_first_nan(shell):
    run(shell, "from jxkernel.stepper import step\n"
               "def naive_softplus(x):\n    return jnp.log(1.0 + jnp.exp(x))\n"
               "stepper = step(jax.grad(naive_softplus), 100.0)\n"
               "first = stepper.first_nan()")
    stepper, first = shell.user_ns["stepper"], shell.user_ns["first"]
    assert first is not None and first.vars, first            # exp(100) overflows: inf/inf
    name, count = first.vars[0]
    assert count == 1 and np.isnan(np.asarray(stepper.values[name]))
    assert stepper.values[name].device.platform == "numpy"   # computed there, eagerly
    assert first.primitive == "mul" and first.source.startswith("In[")    # inf · 0 in the vjp


def test_jaxpr_traced_vs_static_and_the_recompilation_note(shell):
    run(shell, "def scaled(x, n):\n    return jnp.sin(x) * n\n"
               "g = jax.jit(scaled, static_argnums=1)\nv = jnp.arange(3.0)")
    assert "sin" in run(shell, "%jaxpr scaled(v, 2)")
    traced = run(shell, "%jxtraced g(v, 2)")
    assert "f32[3]" in traced and "static" in traced
    run(shell, "g(v, 2)")
    note = run(shell, "g(v, 3)")                   # a new static value: traced again
    assert "scaled traced again (cache miss #2, at In[" in note and "n: static 2 -> 3" in note
    # the NumPy backend compiles nothing: the note says what happened there, with the facts
    # it says on XLA's (the change, the fix, the time); it said "compiled again (compile #2"
    assert "what changed since the nearest earlier trace, and the fix:" in note, note
    assert "Each new value of a static argument traces anew" in note, note
    # (one "traced": it said "traced for (...) in 0.2 ms (traced: the numpy backend ...")
    assert re.search(r"^traced for \(x: f32\[3\], n: static 3\) in [\d.]+ ms \(the numpy "
                     r"backend compiles nothing: NumPy runs the jaxpr\)$", note, re.M), note
    assert "compiled" not in note and "compiles anew" not in note, note
    assert note.count("compil") == 1, note        # "the numpy backend compiles nothing" alone


def test_jxcompiles_heads_its_per_function_time_as_every_phases(shell):
    # the per-function column sums trace, lower and the last phase (hit_miss); headed
    # "compile ms" it contradicted the rows under it on the numpy backend, where a compile
    # takes no time and the trace all of it. Nothing compiles there: the last phase is
    # "prepare", as the text says (its table said "compile ms")
    # (the log cleared: the worker's tests before ran on the CPU, whose rows say compiled)
    run(shell, "from jxkernel import compile_log\ncompile_log.clear()\n"
               "h = jax.jit(lambda v: jnp.cos(v) + 1)\nh(jnp.ones(2))\nh(jnp.ones(5))\n"
               "compiles = %jxcompiles")
    html = shell.user_ns["compiles"].html_repr()
    stats, _, rows = html.partition("<th>#</th>")
    assert "<th>ms (trace + lower + prepare)</th>" in stats and "compile ms" not in stats
    assert "<th>prepare ms</th>" in rows and "numpy" in rows       # each row's own phases
    assert "compil" not in html, html


def test_jxcompiles_folds_eager_operations_as_cache_misses(shell):
    # the eager operations' folded group counted "1 compile(s) of eager operations" of
    # operations the NumPy backend traced and ran
    run(shell, "from jxkernel import compile_log\ncompile_log.clear()\n"
               "jnp.ones(3) * 7.0\nk = jax.jit(lambda v: v - 1)\nk(jnp.ones(3))\n"
               "shown = %jxcompiles")
    widget = shell.user_ns["shown"]
    text = widget.text_repr()
    assert re.search(r"^\d+ cache miss\(es\) of eager operations \(\d+ of them\), folded: "
                     r"%jxcompiles \(eager operations\) lists them$", text, re.M), text
    assert "compil" not in text.replace("%jxcompiles", ""), text
    html = widget.html_repr()
    assert re.search(r"<i>\d+ cache miss\(es\) of eager operations \(", html), html
    assert "compil" not in html, html


def test_the_cell_note_tells_eager_operations_traced(shell):
    # %jxnotes all: "this cell compiled 1 eager operation(s) ... (each compiled once per
    # operand types and parameters)" of an operation NumPy ran after tracing it
    run(shell, "%jxnotes all")
    try:
        note = run(shell, "jnp.cbrt(jnp.ones((2, 9)))")     # (operations not run before)
    finally:
        run(shell, "%jxnotes recompiles")
    assert re.search(r"⚙ this cell traced \d+ eager operation\(s\) and jxkernel function\(s\)",
                     note), note
    assert re.search(r"\(each traced once per operand types and parameters\): .*cbrt \[In\[",
                     note), note
    assert "compil" not in note, note


def test_a_function_traced_before_traces_again_for_its_first_program(shell):
    # eval_shape traced it, then a call of another shape: the note said "traced (first cache
    # miss, traced before, ...)": traced twice over, and its first miss was eval_shape's
    run(shell, "p = jax.jit(lambda v: v * 3)\njax.eval_shape(p, jnp.ones(3))")
    note = run(shell, "p(jnp.ones(6))")
    assert re.search(r"⚙ <lambda> traced again \(first program of its own, traced before, at "
                     r"In\[\d+\]:1\): v: shape f32\[3\] -> f32\[6\] · fix: Pad or bucket v",
                     note), note
    assert "at most 5 traces for lengths up to" in note, note
    assert note.count("compil") == 1, note        # "the numpy backend compiles nothing" alone


def test_jxcompiles_text_counts_cache_misses_traced_not_compilations(shell):
    # the brief's repro: its text said "2 compilation(s)" and "(compiled, numpy)" of misses the
    # NumPy backend traced and ran without compiling (its widget's column said cache misses)
    from jxkernel import compile_log
    compile_log.clear()
    run(shell, "f = jax.jit(lambda x: x * 2)\nf(jnp.ones(3))\nf(jnp.ones(4))\n"
               "shown = %jxcompiles")
    text = shell.user_ns["shown"].text_repr()
    assert text.startswith("2 cache miss(es)\n"), text
    rows = [line for line in text.splitlines() if line.startswith("  ")][:2]
    assert [re.sub(r"[\d.]+ ms", "N ms", r.partition(" — ")[2]) for r in rows if " — " in r] == \
        ["trace N ms, lower N ms, prepare N ms (traced, numpy)"] * 2, text
    assert "Every new shape traces anew" in text and "compiles anew" not in text, text
    assert "<th>cache misses</th>" in shell.user_ns["shown"].html_repr()


def test_a_jit_cell_tells_its_trace_and_its_trace_again(shell):
    # %%jit's own note said "⚙ compiled cell[3] for numpy:0: ... compile 0.2 ms" and
    # "⚙ recompiled cell[3] because ... (compilation #2)", its fix "compiles anew"
    run(shell, "xc = jnp.ones(3)")
    first = run(shell, "%%jit\nyc = xc * 2")
    assert re.search(r"^⚙ traced cell\[\d+\] for numpy:0: trace [\d.]+ ms · lower [\d.]+ ms · "
                     r"prepare [\d.]+ ms$", first, re.M), first
    run(shell, "xc = jnp.ones(4)")
    again = run(shell, "%%jit\nyc = xc * 2")
    assert re.search(r"^⚙ traced cell\[\d+\] again because xc: f32\[3\] -> f32\[4\] \(cache miss "
                     r"#2\): trace [\d.]+ ms · lower [\d.]+ ms · prepare [\d.]+ ms$", again,
                     re.M), again
    assert "fix: Every new shape traces anew." in again, again
    assert "compil" not in first + again, first + again


def test_timeit_of_a_jit_made_anew_says_its_runs_traced(shell):
    # %timeit's lines said "Compiled on the first run (...; 2.0 ms with the compilation)" and
    # "The timed runs compiled too (3 compile(s) ...), so the time above includes compiling"
    run(shell, "xt = jnp.ones(5)")
    shown = run(shell, "%timeit -n 2 -r 1 jax.jit(lambda v: v * 2)(xt)")
    assert re.search(r"^Traced on the first run \(<lambda>: [^;]+; [\d.]+ ms with the trace\)\. "
                     r"That warm-up run is not part of the timing below\.$", shown, re.M), shown
    assert re.search(r"^The timed runs traced too \(2 cache miss\(es\) over 2 timed run\(s\): "
                     r"<lambda>: a new jit object\), so the time above includes tracing\. A jit "
                     r"made anew in the statement .* traces on every call: make it once before "
                     r"%timeit", shown, re.M), shown
    # the note under the cell: the jit object before, traced for its arguments
    assert "(jit object): jit(<lambda>) traced for (v: f32[5]) -> a new jit object" in shown
    assert shown.count("compil") == 1, shown     # "the numpy backend compiles nothing" alone


def test_a_value_read_when_traced_is_kept_by_its_program(shell):
    # the stale-value note said "its compiled program keeps 2.0" of a program nothing compiled
    run(shell, "ws = 2.0\nfs = jax.jit(lambda x: x * ws)\nfs(jnp.ones(3))")
    note = run(shell, "ws = 3.0")
    assert re.search(r"⚠ <lambda> read ws = 2\.0 when traced \(at In\[\d+\]:3\); ws is 3\.0 now, "
                     r"and its program keeps 2\.0$", note, re.M), note
    assert "compil" not in note, note


def test_a_jit_cell_traced_anew_and_its_print_say_trace(shell):
    # "⚙ cell[3]: ...: compiling it anew" and "print() ... runs once per compilation" where
    # nothing compiles
    run(shell, "xp, kp = jnp.ones(3), 2")
    first = run(shell, "%%jit\nprint('tracing', xp)\nyp = xp * kp")
    assert "print() ran while tracing cell[" in first and "it runs once per trace and " in first
    anew = run(shell, "%%jit --static kp\nprint('tracing', xp)\nyp = xp * kp")
    assert re.search(r"^⚙ cell\[\d+\]: .*: tracing it anew$", anew, re.M), anew
    assert "compil" not in first + anew, first + anew


def test_a_draw_at_the_trace_is_kept_by_its_program(shell):
    # "the compiled program uses that same number on every call" of a program nothing compiled
    note = run(shell, "import numpy as np\n@jax.jit\ndef noisy_np(x):\n"
                      "    return x + np.random.normal()\n_a = noisy_np(1.0)")
    assert re.search(r"⚠ np\.random\.normal\(\) drew its number once, while noisy_np was "
                     r"traced \(at In\[\d+\]:4\): the program uses that same number on every "
                     r"call", note), note
