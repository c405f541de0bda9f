"""%jxguard, no_recompile in a cell, %jxreport, the recompile card in the log and in the
%%jit note, and cell names that match the prompt, in a real InteractiveShell."""
import json
import re

import pytest

pytest.importorskip("IPython")
pytest.importorskip("ipywidgets")

from IPython.core.error import UsageError  # noqa: E402

from jxkernel import compile_log  # noqa: E402
from jxkernel.compile_report import REPORT_MIME  # noqa: E402
from jxkernel.errors import RecompileError  # noqa: E402
from jxkernel.views.guard_status import GUARD_MIME  # noqa: E402
from ipython_shell import ANSI, shell_fixture, ran_ok as ok, run_cell as run  # noqa: E402
from note_words import here  # noqa: E402  (tests/support)


@pytest.fixture(scope="module", autouse=True)
def no_guard_left():
    # the shell is the process's one instance: a function another module's test left guarded
    # would show in this module's guard lists
    for key in compile_log.failing_on_recompile():
        compile_log.fail_on_recompile(key, False)
    yield
    compile_log.fail_on_any_recompile(False)


shell = shell_fixture("import jxkernel as jax\nimport jxkernel.numpy as jnp\n"
                      "from jxkernel.notebook import no_recompile", store_history=True)


def test_no_recompile_in_a_cell_raises_at_the_cell_line_and_restores(shell):
    ok(shell, "g1 = jax.jit(lambda x: x * 2)\ng1(jnp.ones(3))")
    ran = run(shell, "y1 = 1\nwith no_recompile(g1):\n    g1(jnp.ones(4))")
    assert isinstance(ran.error, RecompileError)
    assert ran.error.source.line == 3
    # the filtered traceback ends at the cell's line, without jxkernel's frames
    assert f"In[{ran.count}], line 3" in ran.stdout and "g1(jnp.ones(4))" in ran.stdout
    assert "jit/function.py" not in ran.stdout and "compile_record.py" not in ran.stdout
    assert "recompile_explainer.py" not in ran.stdout
    assert "What changed, and the fix:\n  x: shape f32[3] -> f32[4]" in ran.stdout
    assert shell.user_ns["g1"]._fail_on_recompile is False


def test_jxguard_on_off_and_status_for_a_function(shell):
    ok(shell, "g2 = jax.jit(lambda x: x + 24)\ng2(jnp.ones(2))")
    status = ok(shell, "%jxguard on g2").result
    key = shell.user_ns["g2"].function_key
    defined = f"In[{ok(shell, '_n = 1').count - 2}], line 1"     # the cell that made g2
    assert status.to_json() == {"version": 1, "all": False, "functions": [key],
                                "where": [defined]}
    # named as the user knows it, not by its key ('<lambda>@<ipython-input-…>:1#140…')
    assert repr(status) == ("recompile guard for every jitted function: off\n"
                            f"guarded one by one:\n  <lambda> ({defined})")
    assert key not in repr(status) and key not in status._repr_html_()
    assert status._repr_mimebundle_()[GUARD_MIME]["functions"] == [key]
    ran = run(shell, "g2(jnp.ones(5))")
    assert isinstance(ran.error, RecompileError) and "g2(jnp.ones(5))" in ran.stdout
    assert repr(ok(shell, "%jxguard").result) == repr(status)            # status by default
    assert ok(shell, "%jxguard off g2").result.to_json()["functions"] == []
    ok(shell, "g2(jnp.ones(5))")


def test_jxguard_for_every_function_and_for_a_jit_cell_by_its_label(shell):
    ok(shell, "g3 = jax.jit(lambda x: x - 1)\ng3(jnp.ones(2))\nx3 = jnp.ones(2)")
    jit_cell = ok(shell, "%%jit\ny3 = x3 * 3")
    label = f"cell[{jit_cell.count}]"
    assert any(here(f"compiled {label}") in t for t in jit_cell.texts)
    status = ok(shell, f"%jxguard on {label}").result
    assert [k.split("@")[0] for k in status.functions] == [label]
    ok(shell, "x3 = jnp.ones(3)")
    ran = run(shell, "%%jit\ny3 = x3 * 3")
    assert isinstance(ran.error.original, RecompileError)           # told at the cell line
    assert ran.error.original.function == label
    ok(shell, f"%jxguard off {label}")
    assert repr(ok(shell, "%jxguard on").result).startswith(
        "recompile guard for every jitted function: on")
    try:
        assert isinstance(run(shell, "g3(jnp.ones(7))").error, RecompileError)
    finally:
        status = ok(shell, "%jxguard off").result
    assert status.to_json() == {"version": 1, "all": False, "functions": [], "where": []}
    ok(shell, "g3(jnp.ones(7))")


def test_jxguard_for_every_function_guards_the_users_not_jxkernels(shell):
    """%jxguard on: an eager jnp.sum on a new shape compiles jxkernel's own kernel anew (no
    RecompileError naming 'sum@…/jxkernel/numpy/reductions.py:…#…'); the user's function,
    called on a new shape, is refused, named as the user wrote it."""
    ok(shell, "g9 = jax.jit(lambda x: jnp.sum(x) * 9)\ng9(jnp.ones(2))\njnp.sum(jnp.ones(2))")
    ok(shell, "%jxguard on")
    try:
        assert ok(shell, "jnp.sum(jnp.ones(11))").result == 11
        ran = run(shell, "g9(jnp.ones(11))")
    finally:
        ok(shell, "%jxguard off")
    assert isinstance(ran.error, RecompileError) and ran.error.function == "<lambda>"
    assert "/jxkernel/" not in ran.error.function_key


def test_jxguard_bad_input_says_what_it_got(shell):
    ok(shell, "h4 = lambda x: x")
    ran = run(shell, "%jxguard on h4")
    assert isinstance(ran.error, UsageError)
    assert "'h4' is a function, not a jitted function" in str(ran.error)
    ran = run(shell, "%jxguard on no_such_thing")
    assert isinstance(ran.error, UsageError) and "no jitted function 'no_such_thing'" in \
        str(ran.error)
    assert isinstance(run(shell, "%jxguard maybe").error, UsageError)
    assert "status takes no function" in str(run(shell, "%jxguard status h4").error)


def test_a_recompiled_jit_cell_says_what_changed_and_the_fix(shell):
    ok(shell, "x5 = jnp.ones(2)")
    ok(shell, "%%jit\ny5 = x5 + 5")
    ok(shell, "x5 = jnp.ones(3, jnp.int32)")
    ran = ok(shell, "%%jit\ny5 = x5 + 5")
    (note,) = [t for t in ran.texts if here("recompiled cell[") in t]
    assert "  x5: dtype f32[2] -> i32[3]" not in note        # a shape change comes first
    assert here("  x5: shape f32[2] -> i32[3]\n    fix: Every new shape compiles anew.") in note


def test_the_log_shows_the_card_as_text_html_and_json(shell):
    ok(shell, "g6 = jax.jit(lambda x: x * 6)\ng6(1.0)\ng6(jnp.asarray(1.0, jnp.float32))")
    log = ok(shell, "%jxcompiles").result
    try:
        log.filter.options = list(log.filter.options) + ["<lambda>"]
        mine = [e for e in log.events if e.key is shell.user_ns["g6"]]
        assert [c.kind for c in mine[1].changes] == ["weak_type"]
        assert "       x: weak_type f32[] (weak) -&gt;" not in log.text_repr()
        assert "       x: weak_type f32[] (weak) -> f32[]\n         fix: x was weakly typed" in \
            log.text_repr()
        html = log.html_repr()
        assert "<code>x</code> <b>weak_type</b>: <code>f32[] (weak)</code>" in html
        # (the number at the call, rewritten there: tests/views/test_weak_type_calls.py)
        assert "g6(jnp.asarray(1.0, jnp.float32))    # line 2" in html
        data, _ = log._repr_mimebundle_()
        events = data["application/vnd.jxkernel.compilations+json"]["events"]
        (row,) = [e for e in events if e["function_key"] == mine[1].function_key and
                  e["reason"] != "first call"]
        assert row["explanation"][0]["kind"] == "weak_type"
    finally:
        log.close()


def test_a_new_jit_object_is_said_in_words_not_by_its_kind_key(shell):
    """A jit of a lambda made anew in a loop: the card in the log and the report says what
    changed in words ("(jit object): jit(<lambda>) compiled for ... → a new jit object"),
    not by the key of its kind ("fresh_jit", which the cards showed as a heading)."""
    ok(shell, "for i9 in range(2):\n    jax.jit(lambda x: x * 9)(jnp.ones(9))")
    log = ok(shell, "%jxcompiles").result
    try:
        log.filter.options = list(log.filter.options) + ["<lambda>"]
        assert here("jit(&lt;lambda&gt;) compiled for (x: f32[9])") in log.html_repr()
        assert "fresh_jit" not in log.html_repr() and "fresh_jit" not in log.text_repr()
    finally:
        log.close()
    bundle = ok(shell, "%jxreport").result._repr_mimebundle_()
    events = bundle[REPORT_MIME]["events"]
    assert [c["kind"] for e in events for c in e["explanation"]].count("fresh_jit") >= 1
    assert "<code>(jit object)</code>: <code>jit(&lt;lambda&gt;)" in bundle["text/html"]
    for text in (bundle["text/html"], bundle["text/plain"]):
        assert "fresh_jit" not in text


def test_a_branch_traced_inside_jit_is_not_reported_compiled(shell):
    """lax.cond's branches, traced inside jit(relu): the report says so, never "(compiled)"
    for a trace that compiled nothing of its own."""
    ok(shell, "@jax.jit\ndef relu10(x):\n    return jax.lax.cond(x > 0, lambda: x, lambda: 0.0)\n"
              "relu10(3.0)")
    bundle = ok(shell, "%jxreport").result._repr_mimebundle_()
    inlined = [e for e in bundle[REPORT_MIME]["events"] if e["inlined_into"] == "jit(relu10)"]
    assert inlined and all(e["function"] == "<lambda>" for e in inlined)
    html = bundle["text/html"]
    assert html.count("traced inside jit(relu10), nothing compiled of its own") == len(inlined)
    assert bundle["text/plain"].count("traced inside jit(relu10), nothing compiled of its "
                                      "own") == len(inlined)
    # and the log: "inside jit(relu10)" where it came from, never "compiled"; counted apart
    log = ok(shell, "%jxcompiles").result
    try:
        log.filter.options = list(log.filter.options) + ["<lambda>"]
        log.filter.value = "<lambda>"
        text = log.text_repr()
        # (cache misses where one ran on the NumPy backend, here or in a test before: core/miss_words)
        assert re.match(r"\d+ (compilation\(s\)|cache miss\(es\)) and \d+ trace\(s\) inside "
                        r"another", text), text
        # (the platform the program ran on: cpu, or numpy on the NumPy backend)
        platform = shell.user_ns["jax"].default_backend()
        assert text.count(f"(inside jit(relu10), {platform})") == len(inlined)
        assert "<td>inside jit(relu10)</td>" in log.html_repr()
    finally:
        log.close()


def test_jxreport_shows_and_writes_json_and_escaped_html(shell, tmp_path):
    ran = ok(shell, "def b7(x):\n    return x * 7\nb7.__name__ = '<b>'\nj7 = jax.jit(b7)\n"
                    "j7(jnp.ones(2)); j7(jnp.ones(2)); j7(jnp.ones(3))")
    view = ok(shell, "%jxreport").result
    bundle = view._repr_mimebundle_()
    key = shell.user_ns["j7"].function_key
    (row,) = [f for f in bundle[REPORT_MIME]["functions"] if f["function_key"] == key]
    assert (row["compilations"], row["recompilations"], row["cache_hits"]) == (2, 1, 1)
    # defined in a cell: named as its prompt names it, not by the kernel's file of the cell
    # (the view showed "/tmp/ipykernel_6109/741506724.py:1")
    assert re.fullmatch(rf"In\[{ran.count}\]:1", row["source"]), row["source"]
    for text in (bundle["text/html"], bundle["text/plain"]):    # what the view shows
        assert "ipykernel" not in text and "ipython-input" not in text
    assert "&lt;b&gt;" in bundle["text/html"] and "<b><b>" not in bundle["text/html"]
    assert re.search(r"#\d+ <b>: x: f32\[2\] -> f32\[3\] \(", bundle["text/plain"])

    path = tmp_path / "r.json"
    note = ok(shell, f"%jxreport {path}").result
    assert repr(note).startswith("wrote the report of ") and str(path) in repr(note)
    data = json.loads(path.read_text(encoding="utf-8"))
    (row,) = [f for f in data["functions"] if f["function_key"] == key]
    assert (row["compilations"], row["cache_hits"]) == (2, 1)
    # (the log's retraces, jits traced inside another's trace, are events, not compilations)
    assert data["totals"]["compilations"] + data["totals"]["retraces"] == len(data["events"])

    page = tmp_path / "r.txt"
    ok(shell, f"%jxreport --format html {page}")
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "<td>&lt;b&gt;</td>" in text
    ran = run(shell, f"%jxreport {tmp_path / 'no' / 'dir.html'}")
    assert isinstance(ran.error, UsageError) and "cannot write" in str(ran.error)


def test_a_jit_cell_is_named_by_the_number_its_prompt_shows(shell):
    ok(shell, "x8 = jnp.ones(2)")
    ran = ok(shell, "%%jit\ny8 = x8 * 8")
    assert any(here(f"compiled cell[{ran.count}]") in t for t in ran.texts), (ran.count, ran.texts)
    bad = run(shell, "%%jit\ny8 = x8 * undefined_name_8")
    told = ANSI.sub("", "".join(bad.error._render_traceback_()))
    assert told.startswith(f"NameError in cell[{bad.count}], line 2: y8 = x8 * undefined_name_8")
