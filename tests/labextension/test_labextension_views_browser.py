"""The "see inside" views (issue 16) through the JupyterLab extension's MIME renderers, in a
real browser: %explain, the stepper, an error card, %jaxpr --diff, %timeit --phases,
%jxmemory, %jxreport and %jxguard status, each drawn by labextension/src/<view>View.ts from
its application/vnd.jxkernel.*+json bundle.

The browser tests' `jupyter lab` server (tests/labextension/conftest.py) and one notebook
(views.ipynb) for the module; the page runs every
cell once (Run All) and the tests look at the outputs. The harness is
tests/labextension/test_labextension_browser.py's (its page helpers are imported from it); screenshots go
to test-artifacts/browser/<test>-<step>.png. Skipped, saying why, only without a browser.
"""
from __future__ import annotations

import re

import pytest

import jxkernel
from test_labextension_browser import (  # the same harness: server, page and contrast helpers
    assert_readable,
    cell,
    expect,
    notebook_fixtures,
    palette,
    shot,
    shot_view,
)

SETUP, EXPLAIN, STEPPER, DIFF, PROFILE, MEMORY, REPORT, GUARD, MALFORMED, SCAN_NAN, ERROR = \
    range(11)
VIEWS = ["explain", "stepper", "error", "jaxprdiff", "profile", "memory", "report", "guard"]
NOTEBOOK = [
    "%load_ext jxkernel\n"
    "import jxkernel as jax, jxkernel.numpy as jnp\n"
    "from jxkernel import grad\n"
    "from jxkernel.notebook import step\n\n"
    "def f(x, w):\n"
    "    y = jnp.sin(x)\n"
    "    z = y @ w\n"
    "    return z.sum()\n\n"
    "def g(x):\n"
    "    return jnp.sin(x) * 2.0\n\n"
    "x, w = jnp.ones((4, 8)), jnp.ones((8, 3))\n"
    "h = jax.jit(g)\n"
    "h(jnp.ones(3)); h(jnp.ones(5)).shape       # a recompile, for the report's change card",
    "%explain f(x, w)",
    "s = step(lambda v: jnp.sqrt(jnp.log(v - 3.0)), jnp.array([1.0, 4.0, 5.0]))\n"
    "s.first_nan()\n"
    "s",
    "%jaxpr --diff g(1.0) grad(g)(1.0)",
    "%timeit --phases -r 2 h(jnp.ones(3))",
    "%jxmemory",
    "%jxreport",
    "%jxguard status",
    # each view given a bundle without its fields, then wrong versions and types
    "from IPython.display import display\n"
    f"for name in {VIEWS!r}:\n"
    "    display({f'application/vnd.jxkernel.{name}+json': {'version': 1}, 'text/plain': name}, raw=True)\n"
    "display({'application/vnd.jxkernel.guard+json': {'version': 2, 'all': True, 'functions': []},\n"
    "         'text/plain': 'v2'}, raw=True)\n"
    "display({'application/vnd.jxkernel.guard+json': {'version': 1, 'all': 'yes', 'functions': []},\n"
    "         'text/plain': 'guard'}, raw=True)\n"
    "display({'application/vnd.jxkernel.explain+json': None, 'text/plain': 'none'}, raw=True)\n"
    "display({'application/vnd.jxkernel.jaxpr+json': {'version': 3, 'name': 'f', 'text': ''},\n"
    "         'text/plain': 'v3'}, raw=True)",
    # a NaN made in a scan's third iteration: the stepper goes in and says which
    "from jxkernel import lax\n\n"
    "def body(c, v):\n"
    "    return c, jnp.log(v - 3.0)\n\n"
    "t = step(lambda xs: lax.scan(body, 0.0, xs)[1], jnp.array([4.0, 5.0, 1.0]))\n"
    "t.first_nan()\n"
    "t",
    "jax.jit(lambda v: v if v > 0 else -v)(1.0)",     # last: Run All stops at an error
]
VIEW_CLASS = {EXPLAIN: "jx-ExplainOutput", STEPPER: "jx-StepperOutput",
              SCAN_NAN: "jx-StepperOutput", DIFF: "jx-DiffOutput",
              PROFILE: "jx-ProfileOutput", MEMORY: "jx-MemoryOutput", REPORT: "jx-ReportOutput",
              GUARD: "jx-GuardOutput", ERROR: "jx-ErrorCardOutput"}


# views.ipynb open in JupyterLab with every cell run
server, console, page = notebook_fixtures("views.ipynb", NOTEBOOK, VIEW_CLASS)


def view(page, index):
    return cell(page, index).locator(f".{VIEW_CLASS[index]}")


@pytest.mark.xla_only("XLA text")    # XLA's module cost and its HLO pane
def test_explain_links_a_line_to_its_items(page, request):
    """%explain: clicking `z = y @ w` highlights its dot_general equation, its StableHLO op
    and its HLO instructions, and nothing of the other lines; clicking the sin equation moves
    the selection to `y = jnp.sin(x)`; the keyboard (Down, Enter) selects the next line."""
    v = view(page, EXPLAIN)
    expect(v.locator(".jx-View-title")).to_contain_text("explain f(x, w)")
    expect(v).to_contain_text("XLA's cost analysis of the module: 203 flops")
    line = v.locator(".jx-Explain-line", has_text="z = y @ w")
    expect(line).to_contain_text("192 flops")
    expect(v.locator(".jx-Explain-line", has_text="jnp.sin(x)")).to_contain_text("32 transcendentals")
    line.click()
    expect(line).to_have_class(re.compile("jx-mod-selected"))
    expect(line).to_have_attribute("aria-selected", "true")
    linked = v.locator(".jx-Explain-pane").first.locator(".jx-mod-linked")
    expect(linked).to_have_count(1)
    expect(linked).to_contain_text("dot_general")
    ops = v.locator(".jx-Explain-pane").nth(1).locator(".jx-mod-linked")
    expect(ops).to_have_count(1)
    expect(ops).to_contain_text("stablehlo.dot_general")
    hlo = v.locator(".jx-Explain-pane").nth(2).locator(".jx-mod-linked")
    expect(hlo.filter(has_text="dot(")).to_have_count(1)
    expect(hlo.filter(has_text=" sine(")).to_have_count(0)       # the sin line's own
    expect(v.locator(".jx-Explain-line.jx-mod-selected")).to_have_count(1)
    shot_view(v, request, "1-line")

    v.locator(".jx-Explain-item", has_text="sin a").click()
    sin_line = v.locator(".jx-Explain-line", has_text="y = jnp.sin(x)")
    expect(sin_line).to_have_class(re.compile("jx-mod-selected"))
    expect(line).not_to_have_class(re.compile("jx-mod-selected"))
    expect(v.locator(".jx-Explain-pane").nth(1).locator(".jx-mod-linked")).to_have_text(
        re.compile("stablehlo.sine"))

    # the reduce's instructions are below the HLO pane's fold: they scroll into its view
    v.locator(".jx-Explain-line", has_text="return z.sum()").click()
    hlo_list = v.locator(".jx-Explain-pane").nth(2).locator(".jx-Explain-items")
    first = hlo_list.locator(".jx-mod-linked").first
    expect(first).to_contain_text("parameter(0)")
    page.wait_for_function("list => list.scrollTop > 0", arg=hlo_list.element_handle())
    box, pane_box = first.bounding_box(), hlo_list.bounding_box()
    assert pane_box["y"] <= box["y"] and box["y"] + box["height"] <= pane_box["y"] + pane_box["height"]

    sin_line.click()
    page.keyboard.press("ArrowDown")
    expect(line).to_be_focused()
    page.keyboard.press("Enter")
    expect(line).to_have_class(re.compile("jx-mod-selected"))
    shot_view(v, request, "2-keyboard")


def test_stepper_marks_the_nan_and_draws_histograms(page, request):
    v = view(page, STEPPER)
    expect(v.locator(".jx-View-title")).to_have_text("stepper: <lambda> · next: equation 3 of 3")
    expect(v.locator(".jx-Stepper-nan")).to_contain_text("first NaN made by log at In[")
    expect(v.locator(".jx-Stepper-row.jx-mod-nan")).to_contain_text("c:f32[3] = log b")
    expect(v.locator(".jx-Stepper-row.jx-mod-current")).to_contain_text("d:f32[3] = sqrt c")
    rows = v.locator(".jx-Stepper-vars tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text("args[0]")
    expect(rows.filter(has_text="eqn 1 (log)").locator("td").nth(6)).to_have_text("1")
    expect(rows.nth(0).locator(".jx-Stepper-histBar")).to_have_count(8)
    shot_view(v, request, "1")


def test_stepper_says_the_scan_iteration_that_made_the_nan(page, request):
    """A NaN made inside a scan: the finding names the scan, then the iteration it went into
    and the line there (views/stepper.py's NanFound.inside and .step)."""
    v = view(page, SCAN_NAN)
    expect(v.locator(".jx-Stepper-nan")).to_contain_text("! first NaN made by scan at In[")
    inside = v.locator(".jx-Stepper-nanInside")
    expect(inside).to_have_count(1)
    expect(inside).to_contain_text("inside scan (iteration 2): NaN made by log at In[")
    expect(inside.locator(".jx-Stepper-nanCode")).to_have_text("return c, jnp.log(v - 3.0)")
    shot_view(v, request, "1")


def test_error_card_shows_the_rewrite(page, request):
    v = view(page, ERROR)
    expect(v.locator(".jx-ErrorCard-error")).to_have_text("TracerBoolConversionError")
    expect(v.locator(".jx-ErrorCard-title")).to_have_text("Python control flow on a traced value")
    expect(v.locator(".jx-ErrorCard-code")).to_have_text("jax.jit(lambda v: v if v > 0 else -v)(1.0)")
    expect(v.locator(".jx-ErrorCard-chain li")).to_have_count(2)
    expect(v.locator(".jx-ErrorCard-rewrite")).to_contain_text("jnp.where(v > 0, v, -v)")
    link = v.locator(".jx-ErrorCard-docs a")
    expect(link).to_have_attribute("href", re.compile(r"^https://docs\.jax\.dev/.*TracerBoolConversionError$"))
    expect(link).to_have_attribute("rel", "noopener noreferrer")
    shot_view(v, request, "1")


def test_jaxpr_diff_shows_added_rows_and_only_changes(page, request):
    v = view(page, DIFF)
    expect(v.locator(".jx-Diff-count.jx-mod-added")).to_have_text("3 added")
    added = v.locator(".jx-Diff-row.jx-mod-added")
    expect(added).to_have_count(3)
    expect(added.nth(0).locator(".jx-Diff-right")).to_have_text("c:f32[] = cos a")
    expect(added.nth(0).locator(".jx-Diff-left")).to_have_text("")
    same = v.locator(".jx-Diff-row.jx-mod-same")
    expect(same).to_have_count(4)        # two equations and the two signature rows
    v.get_by_label("only changes").check()
    expect(same.first).to_be_hidden()
    expect(added.first).to_be_visible()
    shot_view(v, request, "1-only-changes")
    v.get_by_label("only changes").uncheck()
    expect(same.first).to_be_visible()


def test_profile_memory_report_and_guard(page, request):
    profile = view(page, PROFILE)
    expect(profile.locator(".jx-View-title")).to_have_text("phases of g: 2 runs, 2 fresh compiles")
    rows = profile.locator("tbody tr")
    expect(rows.locator("td:first-child")).to_have_text(["trace", "lower", "compile", "dispatch", "device"])
    expect(rows.locator(".jx-Profile-median")).to_have_count(5)
    shot_view(profile, request, "1-profile")

    memory = view(page, MEMORY)
    # the kernel's backend: numpy on the NumPy backend (its env is this process's)
    expect(memory.locator(".jx-View-title")).to_contain_text(
        f"live arrays on {jxkernel.default_backend()}:")
    bytes_column = memory.locator(".jx-Memory-rows tbody td:last-child")
    sort = memory.locator(".jx-Memory-sort")
    sort.click()
    expect(memory.locator(".jx-Memory-rows th[aria-sort]")).to_have_attribute("aria-sort", "descending")
    values = [int(t.replace(",", "")) for t in bytes_column.all_inner_texts()]
    assert values == sorted(values, reverse=True) and len(values) >= 2, values
    page.keyboard.press("Enter")        # the button keeps the focus: the keyboard sorts too
    expect(memory.locator(".jx-Memory-rows th[aria-sort]")).to_have_attribute("aria-sort", "ascending")
    values = [int(t.replace(",", "")) for t in bytes_column.all_inner_texts()]
    assert values == sorted(values), values
    shot_view(memory, request, "2-memory")

    report = view(page, REPORT)
    expect(report.locator(".jx-View-title")).to_contain_text("(1 recompilation) of")
    change = report.locator(".jx-Report-event.jx-mod-recompile .jx-Report-change")
    expect(change.locator(".jx-Report-kind")).to_have_text("shape")
    expect(change.locator(".jx-Report-old")).to_have_text("f32[3]")
    expect(change.locator(".jx-Report-new")).to_have_text("f32[5]")
    expect(change.locator(".jx-Report-snippet")).to_contain_text("jnp.pad")
    assert change.locator(".jx-Report-snippet").evaluate(  # JupyterLab: break-all
        "el => getComputedStyle(el).wordBreak") == "normal"
    shot_view(report, request, "3-report")

    guard = view(page, GUARD)
    expect(guard.locator(".jx-Guard-state")).to_have_text("off")
    expect(guard).to_contain_text("no function is guarded one by one")
    shot_view(guard, request, "4-guard")


def test_dark_theme(page, request):
    """In JupyterLab Dark every view is drawn on a dark background with readable text
    (contrast at least 3:1, as tests/labextension/test_labextension_browser.py asks of its views), the
    explain view with a line selected."""
    palette(page, "Use Theme: JupyterLab Dark")
    expect(page.locator("body")).to_have_attribute("data-jp-theme-light", "false")
    try:
        v = view(page, EXPLAIN)
        v.scroll_into_view_if_needed()
        v.locator(".jx-Explain-line", has_text="z = y @ w").click()
        for index, cls in VIEW_CLASS.items():
            assert_readable(view(page, index), 3.0, cls)
        shot(page, request, "1-dark")
    finally:
        palette(page, "Use Theme: JupyterLab Light")
        expect(page.locator("body")).to_have_attribute("data-jp-theme-light", "true")


def test_malformed_bundles_show_a_note(page, request):
    """Bundles without their fields, of another version, with a field of the wrong type or
    null render a one-line note naming what is wrong, in each view's output: no exception,
    no half-drawn view (the console test below sees no error either)."""
    c = cell(page, MALFORMED)
    notes = c.locator(".jx-View-note")
    expect(notes).to_have_count(len(VIEWS) + 4)
    for name in VIEWS:
        expect(c.locator(".jp-OutputArea-output .jx-View-note",
                         has_text=f"(application/vnd.jxkernel.{name}+json)")).to_have_count(
            3 if name == "guard" else 2 if name == "explain" else 1)
    texts = notes.all_text_contents()
    assert texts[VIEWS.index("explain")] == (
        "jxkernel cannot show this view (application/vnd.jxkernel.explain+json): "
        "the bundle has no field 'title' (string).")
    assert texts[-4:] == [
        "jxkernel cannot show this view (application/vnd.jxkernel.guard+json): the bundle's "
        "version is 2; this extension reads version 1.",
        "jxkernel cannot show this view (application/vnd.jxkernel.guard+json): "
        "the bundle.all is string, not boolean.",
        "jxkernel cannot show this view (application/vnd.jxkernel.explain+json): "
        "the bundle is null, not an object.",
        "jxkernel cannot show this view (application/vnd.jxkernel.jaxpr+json): the bundle's "
        "version is 3; this extension reads version 1 or 2."]
    for cls in [*VIEW_CLASS.values(), "jx-JaxprOutput"]:
        expect(c.locator(f".{cls} > :not(.jx-View-note)")).to_have_count(0)
    shot_view(c, request, "1")


def test_console_has_no_errors(console):
    errors = [(kind, text) for kind, text, _ in console if kind in ("error", "pageerror")]
    assert not errors, "\n".join(f"{kind}: {text}" for kind, text in errors)
