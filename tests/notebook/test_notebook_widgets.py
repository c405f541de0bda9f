"""The widgets on their own: real ipywidgets/anywidget/plotly objects, their synced state,
their plain-text and static-HTML fallbacks, and escaping of everything user-controlled."""
import re
import time

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("anywidget")

import jxkernel as jax  # noqa: E402
import jxkernel.numpy as jnp  # noqa: E402
from jxkernel import compile_log, lax  # noqa: E402
from jxkernel.views.jaxpr_json import jaxpr_to_json  # noqa: E402
from jxkernel.notebook.widgets.backend import BackendSelector  # noqa: E402
from jxkernel.notebook.widgets.cell_view import CellView  # noqa: E402
from jxkernel.notebook.widgets.hlo_view import HloView  # noqa: E402
from jxkernel.notebook.widgets.jaxpr_viewer import JaxprViewer, count_primitives  # noqa: E402
from jxkernel.notebook.widgets.recompiles import RecompileLog, hit_miss  # noqa: E402
from jxkernel.xla import Phases  # noqa: E402
from note_words import here  # noqa: E402  (tests/support)

pytestmark = pytest.mark.cpu_only("CPU text")     # the GPU tier skips this file (docs/gpu.md)

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def _bundle(widget):
    data, _ = widget._repr_mimebundle_()
    assert WIDGET_MIME in data and "text/plain" in data and "text/html" in data
    return data


# ------------------------------------------------------------------ jaxpr viewer
def _nested_jaxpr():
    inner = jax.jit(lambda x, y: jnp.sin(x) * y)
    return jax.make_jaxpr(lambda x: inner(x, 2.0) + jax.checkpoint(jnp.exp)(x))(1.0)


def test_jaxpr_viewer_state():
    closed = _nested_jaxpr()
    v = JaxprViewer(closed, title="demo")
    assert v.text.startswith(str(closed).splitlines()[0])          # the core's printing
    assert v.counts == count_primitives(closed)
    assert v.counts["jit"] == 1 and v.counts["sin"] == 1 and v.counts["exp"] == 1
    assert v.data == jaxpr_to_json(closed)                   # the bundle's structure
    eqns = v.data["eqns"]
    assert [e["primitive"] for e in eqns] == ["jit", "remat2", "add"]
    jit_eqn = eqns[0]
    assert list(jit_eqn["params"]) == sorted(jit_eqn["params"])   # all of them, sorted
    assert [e["primitive"] for e in jit_eqn["params"]["jaxpr"]["eqns"]] == ["sin", "mul"]
    assert jit_eqn["outvars"] == [{"name": "b", "aval": "f32[]", "id": 5}]
    assert jit_eqn["invars"] == [{"name": "a", "aval": "f32[]", "id": 0},
                                 {"literal": "2.0", "aval": "f32[]"}]
    assert jit_eqn["source"].startswith("test_notebook_widgets.py:")
    html = v.body_html                                 # params, literals and labels as printed
    assert re.search(r"<span class='jx-params'>\[donated_invars=\S+ .*name=&lt;lambda&gt;\]", html)
    assert "<span class='jx-lit'>2.0:f32[]</span>" in html and "<summary>jaxpr <" in html
    # nested jaxprs are collapsible
    assert v.body_html.count("<details") == 2


def test_jaxpr_viewer_def_use_and_stablehlo_switch():
    v = JaxprViewer(_nested_jaxpr())
    by_name = {}
    for vid, entry in v.def_use.items():
        by_name.setdefault(entry["name"], []).append((entry["def"], entry["uses"]))
    # the jit's jaxpr names its input and result after its operand and result: other variables
    assert by_name["a"] == [("in", ["0", "1"]), ("0.0.in", ["0.0.0"])]
    assert by_name["b"] == [("0", ["2"]), ("0.0.1", ["0.0.out"])]
    assert by_name["h"] == [("2", ["out"])]
    html = v.body_html                     # each span names its variable by id
    assert html.count(f"data-var='{v.data['invars'][0]['id']}'") == 3        # a: in, jit, checkpoint
    assert v.stablehlo == ""                                       # lowered only when asked
    v.view = "stablehlo"
    assert v.stablehlo.startswith("module @jit_") and "stablehlo.sine" in v.stablehlo
    assert "loc(" not in v.stablehlo and "%cst" in v.stablehlo     # as MLIR prints it (as_text)


def test_jaxpr_viewer_writes_a_closed_over_array_in_as_jit_does():
    # main takes x alone, the array a constant: what jit(f).lower(x).as_text() shows (and JAX's)
    c = np.arange(3., dtype=np.float32)
    closed = jax.make_jaxpr(lambda x: x * jax.numpy.asarray(c) + 1)(np.ones(3, np.float32))
    v = JaxprViewer(closed)
    v.view = "stablehlo"
    assert "@main(%arg0: tensor<3xf32>) ->" in v.stablehlo
    assert "stablehlo.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]>" in v.stablehlo


def test_jaxpr_viewer_fallbacks_and_lowering_failure():
    v = JaxprViewer(jax.make_jaxpr(lambda x: x * 2)(np.ones(3, np.float32)),
                    stablehlo=lambda: 1 / 0)
    data = _bundle(v)
    assert "mul" in data["text/plain"] and "equations per primitive: mul 1" in data["text/plain"]
    assert "<style>" in data["text/html"] and "jx-prim" in data["text/html"]
    v.view = "stablehlo"
    assert "lowering to StableHLO failed: ZeroDivisionError" in v.stablehlo
    assert str(v) == v.text_repr()


def test_jaxpr_viewer_escapes_names_and_params():
    def evil(x):
        return x + 1
    evil.__name__ = "<img src=x onerror=alert(1)>"
    v = JaxprViewer(jax.make_jaxpr(lambda x: jax.jit(evil)(x))(1.0), title="<b>t</b>")
    html = v.html_repr()
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "<b>t</b>" not in html and "&lt;b&gt;t&lt;/b&gt;" in html
    assert "<img" in v.text_repr()                                 # plain text stays plain


def test_jaxpr_viewer_on_control_flow():
    if not hasattr(lax, "cond"):
        pytest.skip("lax.cond not there yet")
    closed = jax.make_jaxpr(lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x))(True, 1.0)
    v = JaxprViewer(closed)
    cond = next(e for e in v.data["eqns"] if e["primitive"] == "cond")
    assert len(cond["params"]["branches"]) == 2                    # one per branch
    assert "<summary>branches[0] <" in v.body_html and "<summary>branches[1] <" in v.body_html
    assert v.counts["sin"] == 1 and v.counts["cos"] == 1


# ------------------------------------------------------------------ traced vs static
def test_cell_view_marks_inputs_and_error_line():
    source = "%%jit\ny = x * n\nif n > 0:\n    y = y + s"
    positions = {"x": [(2, 4, 5)], "n": [(2, 8, 9), (3, 3, 4)], "s": [(4, 12, 13)]}
    view = CellView(source, "cell[3]", positions=positions,
                    inputs=[{"name": "x", "kind": "traced", "detail": "f32[3]"},
                            {"name": "n", "kind": "traced", "detail": "f32[] weak"},
                            {"name": "s", "kind": "static", "detail": "'<script>'"}],
                    outputs=[{"name": "y", "detail": ""}],
                    error={"line": 3, "message": "TracerBoolConversionError: ...",
                           "hint": "What to do: `%%jit --static n`"})
    html = view.body_html
    assert html.count("class='jx-traced' data-name='n'") == 2
    assert "class='jx-static' data-name='s'" in html
    assert re.search(r"<div class='jx-line jx-bad'><span class='jx-ln'>3</span>if ", html)
    assert "&lt;script&gt;" in html and "<script>" not in html
    assert view.kind("n") == "traced" and view.kind("s") == "static" and view.kind("z") is None
    text = _bundle(view)["text/plain"]
    assert "traced  x: f32[3]" in text and ">>  3 | if n > 0:" in text
    assert "What to do: `%%jit --static n`" in text
    view.inputs = [dict(view.inputs[0]), {"name": "n", "kind": "static", "detail": "2"},
                   dict(view.inputs[2])]
    assert view.body_html.count("class='jx-static' data-name='n'") == 2   # re-rendered


def test_cell_view_non_ascii_columns():
    # ast reports UTF-8 byte columns: the mark must still land on the name
    view = CellView("s = 'ü' + x", "c", positions={"x": [(1, 11, 12)]},
                    inputs=[{"name": "x", "kind": "traced", "detail": "f32[]"}])
    assert "&#x27;ü&#x27; + <span class='jx-traced' data-name='x'" in view.body_html


# ------------------------------------------------------------------ recompilation log
def test_recompile_log_table_filter_timeline_and_stats():
    def make(name):
        def f(x):
            return x * 2
        f.__name__ = name
        return jax.jit(f)
    f, g = make("wf_alpha"), make("wf_beta")
    log = RecompileLog()
    try:
        f(jnp.ones(2))
        f(jnp.ones(3))
        f(jnp.ones(3))
        g(1.0)
        assert "wf_alpha" in log.filter.options and "wf_beta" in log.filter.options
        log.filter.value = "wf_alpha"
        assert [e.reason for e in log.shown()] == ["first call", "x: f32[2] -> f32[3]"]
        assert "wf_beta" not in log.table.value
        log.refresh()                                         # hits come without events
        assert ("wf_alpha", 2, 1) == hit_miss(log.shown())[0][:3]
        firsts, recompiles = log.figure.data
        assert list(firsts.y) == ["wf_alpha"] and list(recompiles.y) == ["wf_alpha"]
        assert here("2 compilation(s)") in log.summary.value
        text = _bundle(log)["text/plain"]
        assert "wf_alpha: x: f32[2] -> f32[3]" in text and "wf_alpha: 2 / 1" in text
        log.filter.value = "(all functions)"
        assert {e.function for e in log.shown()} >= {"wf_alpha", "wf_beta"}
    finally:
        log.close()


def test_a_burst_of_compiles_redraws_the_log_a_few_times_and_catch_up_draws_the_rest():
    """A loop that compiles (here 40 shapes of one function) redraws an open log at most once
    per DRAW_INTERVAL_S, not once per compile (each draw rebuilds the table and the timeline
    and sends them to the browser); the cell's end (catch_up, from post_run_cell) draws the
    last ones, so the table is whole once the cell is done."""
    from jxkernel.notebook.widgets import recompiles

    def burst_fn(x):
        return x + 1
    f = jax.jit(burst_fn)
    log = RecompileLog(timeline=False)
    draws = []
    log.table.observe(draws.append, "value")
    try:
        start = time.monotonic()
        for n in range(1, 41):
            f(jnp.ones(n))
        elapsed = time.monotonic() - start
        assert [e.function for e in log.shown()].count("burst_fn") == 40
        # the first event draws; then at most one draw per interval (+1 for the edges)
        assert len(draws) <= 2 + elapsed / recompiles.DRAW_INTERVAL_S, (len(draws), elapsed)
        recompiles.catch_up()
        # the newest row numbered as the events shown: the process's earlier tests' compiles
        # of the learner's functions are shown too (it read "<tr><td>40</td>", which failed
        # after other files in the worker: "518 older not listed")
        newest = f"<tr><td>{len(log.shown())}</td>"
        assert newest in log.table.value and "x: f32[40]" in log.table.value
        drawn = len(draws)
        recompiles.catch_up()                                  # nothing new: no draw
        assert len(draws) == drawn
    finally:
        log.close()
    assert log not in recompiles._LIVE


def test_recompile_log_preselects_a_function_and_works_without_plotly():
    log = RecompileLog(function="no_such_fn_yet", timeline=False)
    try:
        assert log.filter.value == "no_such_fn_yet" and log.shown() == []
        assert log.figure is None and "no compilations yet" in log.table.value
        assert log.timeline_button.layout.display != "none"       # offered, not made
    finally:
        log.close()


def test_recompile_log_groups_a_registered_librarys_jits_as_the_librarys(tmp_path):
    """A library registered as not the user's (source_info.register_exclusion, as Flax and
    Optax are) compiles its own jits for the user's calls: grouped under libraries' functions,
    not "jxkernel's own functions", and listed by "(library functions)"."""
    from registered_library import excluded, import_library      # tests/support
    path = str(tmp_path / "lib_for_widget.py")
    with excluded(path):
        lib = import_library(tmp_path, "lib_for_widget",
                             "import jxkernel as jax\n@jax.jit\ndef lib_twice(x):\n"
                             "    return x * 2\n")
        log = RecompileLog(timeline=False)
        try:
            lib.lib_twice(jnp.ones(7))
            jnp.sum(jnp.ones(7))                                   # jxkernel's own jit
            text = _bundle(log)["text/plain"]
            # folded, each group with the filter that lists it (lib_twice's group checked below)
            # (counts: the worker's log may hold other tests' libraries too)
            assert re.search(here(r"\n\d+ compile\(s\) of libraries' own functions, for your "
                                  r"calls \(\d+ of them, in .*lib_for_widget.*\), folded: "
                                  r"%jxcompiles \(library functions\) lists them"), text), \
                text[-2000:]
            assert "lib_twice" not in text, text[-2000:]
            log.filter.value = "(library functions)"
            shown = {e.function for e in log.shown()}
            assert "lib_twice" in shown and not shown & {"_reduce_sum", "sum"}, shown
            log.filter.value = "(jxkernel functions)"
            assert "lib_twice" not in {e.function for e in log.shown()}
        finally:
            log.close()


def test_hit_miss_adds_up_functions_sharing_a_name():
    phases = Phases(0.001, 0.001, 0.01, "compiled")
    e = compile_log.CompileEvent("same", None, (), "first call", phases, "cpu", key=object())
    e2 = compile_log.CompileEvent("same", None, (), "first call", phases, "cpu", key=object())
    assert hit_miss([e, e2]) == [("same", 2, 0, pytest.approx(0.024))]


# ------------------------------------------------------------------ backends, hlo
@pytest.mark.xla_only("CPU platform")
def test_backend_selector_calls_back_and_shows_the_choice():
    chosen = []
    selector = BackendSelector(on_select=chosen.append)
    assert selector.dropdown.value == "cpu:0"
    selector.select("cpu:0")
    assert chosen and chosen[-1].platform == "cpu"
    assert "<b>cpu:0</b>" in selector.status.value
    selector.show(chosen[-1])                       # shown again (chosen elsewhere): no callback
    assert len(chosen) == 1 and selector.current == chosen[-1]
    data = _bundle(selector)
    assert "* cpu:0" in data["text/plain"] and "(selected)" in data["text/html"]
    assert [type(c).__name__ for c in selector.children] == ["Dropdown", "HTML", "HTML", "HTML"]
    assert "fast path: " in selector.fastpath.value     # the fourth: the compiled fast path's state


@pytest.mark.xla_only("XLA text")     # the NumPy backend's: test_notebook_numpy_views.py
def test_hlo_view_sections_and_cost():
    lowered = jax.jit(lambda x: jnp.sin(x) @ x).lower(jnp.ones((8, 8)))
    view = HloView("f(<x>)", lowered)
    assert "stablehlo.sine" in view.stablehlo and "HloModule" in view.optimized
    assert view.cost["flops"] > 0
    rows = dict(view.cost_rows())
    assert list(dict(view.cost_rows()))[0] == "flops" and rows["flops"] == view.cost["flops"]
    data = view._repr_mimebundle_()
    assert "f(&lt;x&gt;)" in data["text/html"] and "f(<x>)" in data["text/plain"]
    assert data["application/vnd.jxkernel.hlo+json"]["cost_title"] == "XLA cost analysis"
    only = HloView("g", lowered, optimized=False)
    assert only.optimized == "" and only.cost == {} and "optimized" not in repr(only)


def test_hlo_view_shows_the_stablehlo_as_jax_prints_it(monkeypatch):
    lowered = jax.jit(lambda x: jnp.sin(x) * 2.0).lower(jnp.ones(3))
    view = HloView("f(x)", lowered, optimized=False)
    assert view.stablehlo == lowered.as_text() and "%cst = stablehlo.constant" in view.stablehlo
    assert view.stablehlo_title == "StableHLO"
    assert repr(view).splitlines()[1] == "--- StableHLO ---"
    assert "<summary>StableHLO</summary>" in view._repr_mimebundle_()["text/html"]
    # without jaxlib (Pyodide) nothing prints MLIR: our own text, and the title says so
    from jxkernel.xla import client, portable
    monkeypatch.setattr(client, "xc", None)
    monkeypatch.setattr(portable, "xc", None)
    own = HloView("f(x)", jax.jit(lambda x: jnp.sin(x) * 2.0).lower(jnp.ones(3)), optimized=False)
    assert own.stablehlo_title.startswith("StableHLO (jxkernel's own text: no jaxlib")
    assert "loc(" not in own.stablehlo and own.stablehlo != view.stablehlo
    assert repr(own).splitlines()[1] == f"--- {own.stablehlo_title} ---"


def test_every_widget_view_has_an_html_fallback():
    """Where widgets cannot load (Colab without its custom widget manager, nbviewer, GitHub),
    each of jxkernel's widget views still shows as HTML: every widget class carries the
    text/html and text/plain fallback (widgets/_fallback.py)."""
    import importlib
    import pkgutil

    import ipywidgets

    import jxkernel.notebook.widgets as package
    from jxkernel.notebook.widgets._fallback import TextFallback
    found = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        found += [cls for cls in vars(module).values() if isinstance(cls, type)
                  and issubclass(cls, ipywidgets.Widget) and cls.__module__ == module.__name__]
    assert len(found) >= 5, found
    assert [c.__name__ for c in found if not issubclass(c, TextFallback)] == []
