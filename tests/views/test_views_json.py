"""The traced-vs-static, HLO and recompilation-log views carry their JSON MIME bundles
(jxkernel/notebook/views_json.py) beside text/html and text/plain, as the shell formats them."""
import json

import pytest

pytest.importorskip("IPython")
pytest.importorskip("anywidget")

import jxkernel
from jxkernel import compile_log
from jxkernel.views import views_json
from ipython_shell import ran_ok, shell_fixture


shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp\n"
                      "def f(x, n):\n    return jnp.sin(x) * n\n")


def bundle(shell, source, mime):
    """The MIME data the shell formats for the cell's result, checked to be plain JSON."""
    data, _ = shell.display_formatter.format(ran_ok(shell, source, store_history=False).result)
    assert {"text/plain", "text/html", mime} <= set(data), list(data)
    assert json.loads(json.dumps(data[mime], allow_nan=False)) == data[mime]
    return data[mime]


def test_traced_bundle_marks_inputs_and_their_spans(shell):
    got = bundle(shell, "%jxtraced f(jnp.ones(3), 2)", views_json.TRACED_MIME)
    assert got["version"] == 1 and got["label"].startswith("f (In[")
    assert got["source"] == "def f(x, n):\n    return jnp.sin(x) * n\n"
    assert got["first_line"] == 2                      # f starts on the cell's 2nd line
    assert got["inputs"] == [{"name": "x", "kind": "traced", "detail": "f32[3]"},
                             {"name": "n", "kind": "traced", "detail": "i32[] weak (Python int)"}]
    assert got["outputs"] == [{"name": "returns", "detail": "f32[3]"}]
    assert got["error"] is None
    # (line, start, end) in bytes: the parameters on line 1, the uses on line 2
    assert got["positions"] == {"x": [[1, 6, 7], [2, 19, 20]], "n": [[1, 9, 10], [2, 24, 25]]}


def test_traced_bundle_carries_the_failing_line(shell):
    shell.run_cell("def g(x):\n    if x > 0:\n        return x\n    return -x\n")
    got = bundle(shell, "%jxtraced g(1.0)", views_json.TRACED_MIME)
    assert got["error"]["line"] == 2
    assert "TracerBoolConversionError" in got["error"]["message"]
    assert got["error"]["hint"]


def test_hlo_bundle_has_both_programs_and_the_cost(shell):
    got = bundle(shell, "%hlo f(jnp.ones(3), 2.0)", views_json.HLO_MIME)
    assert got["title"] == "f(jnp.ones(3), 2.0)"
    assert "stablehlo.sine" in got["sections"][0]["text"]
    if jxkernel.default_backend() == "numpy":    # the jaxpr runs there: no XLA, no HLO
        from jxkernel.notebook.widgets.hlo_view import no_hlo
        # the folded section's title says so before it is opened (it read "what XLA compiled")
        assert [s["title"] for s in got["sections"]] == [
            "StableHLO", "optimized HLO: none on the numpy backend"]
        assert got["sections"][1]["text"] == no_hlo()
    else:
        assert [s["title"] for s in got["sections"]] == ["StableHLO",
                                                         "optimized HLO (what XLA compiled)"]
        assert got["sections"][1]["text"].startswith("HloModule")
    cost = dict(got["cost"])
    assert cost["flops"] == 3 and cost["transcendentals"] == 3      # a sin and a mul of 3


def test_compilations_bundle_lists_the_log_as_shown(shell):
    compile_log.clear()
    # a program no other test compiles, so neither of the run's caches has it
    shell.run_cell("h = jax.jit(lambda x: x * 41.5 - 0.25)\nh(jnp.ones(2)); h(jnp.ones(3))")
    got = bundle(shell, "%jxcompiles", views_json.COMPILATIONS_MIME)
    assert got["title"] == ""
    events = [e for e in got["events"] if e["function"] == "<lambda>"]
    assert [e["reason"] for e in events] == ["first call", "x: f32[2] -> f32[3]"]
    assert events[1]["signature"] == [["x", "f32[3]"]]
    assert events[1]["cache"] == "compiled" and events[1]["backend"] == jxkernel.default_backend()
    assert events[1]["compile_ms"] > 0 and events[1]["seq"] > events[0]["seq"]
    assert set(events[0]) == {"seq", "time", "function", "function_key", "source", "cell_id", "origin",
                              "execution_count", "signature", "reason", "trace_ms", "lower_ms",
                              "compile_ms", "cache", "backend", "explanation", "inlined_into",
                              "library", "group"}
    assert events[0]["inlined_into"] is None                  # a compilation, not a retrace
    assert events[0]["group"] == "yours"                      # shown first (compile_report.group_of)
    assert events[0]["library"] is False                      # the user's, not a library's
    assert events[0]["explanation"] == [] and \
        [(c["path"], c["kind"], c["old"], c["new"]) for c in events[1]["explanation"]] == \
        [("x", "shape", "f32[2]", "f32[3]")]


def test_cost_values_json_cannot_hold_become_null():
    got = views_json.hlo_bundle("t", [], [("flops", float("inf")), ("bytes", 8.0), ("x", "y")])
    assert got["cost"] == [["flops", None], ["bytes", 8.0], ["x", "y"]]


def test_rich_view_puts_the_three_renderings_in_one_bundle():
    from doc_examples import check_docstring_examples
    from jxkernel.views.guard_status import GuardStatus
    from jxkernel.views.rich_view import RichView
    check_docstring_examples("jxkernel.views.rich_view")
    status = GuardStatus()
    status.all, status.functions = False, ["f@<b>.py:1"]
    assert isinstance(status, RichView)
    bundle = status._repr_mimebundle_()
    assert bundle["text/plain"] == repr(status)
    assert bundle["text/html"] == status._repr_html_() and "&lt;b&gt;" in bundle["text/html"]
    assert bundle["application/vnd.jxkernel.guard+json"] == {
        "version": 1, "all": False, "functions": ["f@<b>.py:1"], "where": ["<b>.py:1"]}
