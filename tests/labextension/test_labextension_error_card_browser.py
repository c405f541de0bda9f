"""Issue 44 in a real browser: the error of a cell with an error card is said once (one line
of error output, the card, the traceback folded in it), its advice for an `if` on an array
argument is jnp.where / lax.cond and never static_argnames; a long jaxpr line wraps inside
the jaxpr view instead of running off its right edge, and %explain's source lines wrap instead
of being cut short with an ellipsis.

The harness is tests/labextension/test_labextension_browser.py's (server, page, screenshots to
test-artifacts/browser/<test>-<step>.png); one notebook, run once (Run All stops at the error,
the last cell). Skipped, saying why, only without a browser.
"""
from __future__ import annotations

import re

import pytest
from test_labextension_browser import cell, expect, lab_notebooks, notebook_run, shot_view

JAXPR, LIVE, EXPLAIN, ERROR = 1, 2, 3, 4
LONG = ("return jnp.cos(v) * 2.0 + jnp.tanh(v) * jnp.exp(v) - jnp.log1p(jnp.abs(v)) + "
        "jnp.sin(v) * jnp.sqrt(jnp.abs(v) + 1.0)")
NOTEBOOK = [
    "%load_ext jxkernel\nimport jxkernel as jax, jxkernel.numpy as jnp\nx = jnp.arange(3.0)",
    # the jaxpr's own bundle without its live widget, so the extension's jaxpr view draws it
    "data, _ = get_ipython().display_formatter.format(\n"
    "    jax.make_jaxpr(lambda v: jnp.concatenate([v] * 90))(x))\n"
    "data.pop('application/vnd.jupyter.widget-view+json', None)\n"
    "display(data, raw=True)",
    "%jaxpr (lambda v: jnp.concatenate([v] * 90))(x)",       # the live widget with its kernel
    f"def helper(v):\n    {LONG}\n\ndef g(v):\n    return helper(v) + 1\n\n%explain g(x)",
    "@jax.jit\ndef relu_sum(x):\n    if x.sum() > 0:\n        return x.sum()\n    return 0.0\n\n"
    "relu_sum(x)",
]
FIRST_LINE = "Attempted boolean conversion of traced array with shape bool[]."


# learners' mistakes with a card each, every cell tagged raises-exception so that Run All
# goes past it: (source, the card's title, the first line of its rewrite)
MISTAKES = [
    ("y = x + [1.0, 2.0, 3.0]", "A Python list as an operand of +",
     "y = x + jnp.asarray([1.0, 2.0, 3.0])"),
    ("x[[0, 2]]", "An array was indexed with a Python list", "x[jnp.array([0, 2])]"),
    ("jax.jit(lambda v: v.at[v > 1].set(0.0))(x)",
     "A boolean mask picks the elements to update",
     "jax.jit(lambda v: jnp.where(v > 1, 0.0, v))(x)"),
    ("def relu(v):\n    return max(v, 0.0)\n\nrelu(x - 1)",
     "An array of booleans where Python needs one", "return jnp.maximum(v, 0.0)"),
    ("jax.random.randint(jax.random.key(0), 0, 10)",
     "jax.random.randint was called with NumPy's arguments",
     "jax.random.randint(jax.random.key(0), (), 0, 10)"),
    ("jnp.random.normal(size=3)",
     "jax.numpy has no random module: random numbers come from jax.random",
     "jax.random.normal(jax.random.key(0), (3,))"),
    ("y = jnp.einsum('ij,jk->ik', jnp.ones((3, 2)), jnp.ones((3, 5)))",
     "einsum 'ij,jk->ik': 'j' is 2 in operand 0 but 3 in operand 1",
     "y = jnp.einsum('ij,jk->ik', jnp.ones((3, 2)).T, jnp.ones((3, 5)))"),
    ("y = jnp.einsum('ij,jk->ik', jnp.ones((2, 3, 4)), jnp.ones((4, 5)))",
     "einsum 'ij,jk->ik': operand 0 has 3 axes but 'ij' has 2 letters",
     "y = jnp.einsum('...ij,jk->...ik', jnp.ones((2, 3, 4)), jnp.ones((4, 5)))"),
    ("y = jnp.einsum('i->ii', jnp.arange(3.0))",
     "einsum 'i->ii': 'i' is written twice after '->'",
     "y = jnp.diag(jnp.arange(3.0))"),
    ("y = x.unsqueeze(0).sum(dim=1)",
     ".unsqueeze() is PyTorch's: JAX writes jnp.expand_dims(x, 0)",
     "y = jnp.expand_dims(x, 0).sum(axis=1)"),
    ("y = jnp.stack(x, x)", "jnp.stack takes its arrays as one list", "y = jnp.stack([x, x])"),
    ("jax.random.normal((2, 3))", "jax.random.normal was called without a key first",
     "jax.random.normal(jax.random.key(0), (2, 3))"),
    ("jax.tree.map(lambda p, g: p - 0.1 * g, {'w': x})",
     "tree_map gives <lambda> one leaf of each tree: 1 tree, 2 parameters",
     "# jax.tree.map(lambda p, g: p - 0.1 * g, {'w': x}, ...): 1 more tree"),
    ("jax.lax.conv(jnp.ones((1, 8, 8, 3)), jnp.ones((4, 3, 3, 3)), (1, 1), 'SAME')",
     "conv reads arrays as NCHW and OIHW: the layouts are NHWC and OIHW",
     "jax.lax.conv_general_dilated(jnp.ones((1, 8, 8, 3)), jnp.ones((4, 3, 3, 3)), (1, 1), "
     "'SAME', dimension_numbers=('NHWC', 'OIHW', 'NHWC'))"),
    ("jax.grad(lambda a: jnp.dot(a, a))(x[:, None])",
     "Matrix product of shapes (3, 1) and (3, 1): inner sizes 1 and 3 differ",
     "jax.grad(lambda a: jnp.vdot(a, a))(x[:, None])"),
    ("jax.grad(lambda p, data: jnp.sum(p * data))(x)",
     "jax.grad(…) called without data: the lambda takes 2 arguments (p, data)",
     "# jax.grad(lambda p, data: jnp.sum(p * data))(p, data)"),
    ("v, g = jax.grad(lambda p: jnp.sum(p ** 2))(x)",
     "jax.grad(lambda p: jnp.sum(p ** 2)) returns the gradient alone, not 2 values",
     "v, g = jax.value_and_grad(lambda p: jnp.sum(p ** 2))(x)"),
    ("big = jnp.array(2**40)", "2**40 does not fit in int32, JAX's default integer",
     'jax.config.update("jax_enable_x64", True)'),
    ("y = jax.ops.index_update(x, 0, 5.0)",
     "jax.ops.index_update is gone from JAX: x.at[idx].set(y) replaces it",
     "y = x.at[0].set(5.0)"),
    ("aux, g = jax.grad(lambda p: (jnp.sum(p ** 2), {'n': p}), has_aux=True)(x)\n"
     "y = x - 0.1 * g",
     "g holds the aux: jax.grad(lambda p: (jnp.sum(p ** 2), {'n': p}), has_aux=True) returns "
     "(gradient, aux)",
     "g, aux = jax.grad(lambda p: (jnp.sum(p ** 2), {'n': p}), has_aux=True)(x)"),
    ("k, sub = jax.random.split(jax.random.key(0), 3)",
     "jax.random.split(jax.random.key(0), 3) makes 3 keys, not 2",
     "k, sub = jax.random.split(jax.random.key(0))"),
    ("y = jnp.zeros(2, 3, 4)", "jnp.zeros takes the shape as one tuple",
     "y = jnp.zeros((2, 3, 4))"),
    ("jax.jit(lambda v, n: v * n, 1)(x, 2)", "jax.jit takes static_argnums by keyword only",
     "jax.jit(lambda v, n: v * n, static_argnums=1)(x, 2)"),
]
# then a dict that holds itself, whose flatten keeps all of Python's recursion room (under JAX
# the kernel runs no later cell; jxkernel/notebook/room_keeper.py), and a cell after it
SELF_HOLDING = len(MISTAKES) + 1
# last, a card of ours that raises while drawn (made so on purpose in the learner's kernel),
# then %jxbugs, which shows what to report
BROKEN_CARD, JXBUGS = SELF_HOLDING + 2, SELF_HOLDING + 3
MORE = [NOTEBOOK[0]] + [{"cell_type": "code", "source": source,
                         "metadata": {"tags": ["raises-exception"]}}
                        for source in [m[0] for m in MISTAKES] + [
                            "d = {'b': 1}\nd['self'] = d\njax.tree.leaves(d)"]] + [
    "total = sum([1, 2])\ntotal",
    {"cell_type": "code", "metadata": {"tags": ["raises-exception"]},
     "source": "from jxkernel.notebook import tracebacks\n"
               "tracebacks.card_for = lambda error: 1 / 0    # a bug of ours, on purpose\n"
               "jax.jit(lambda v: v.at[v > 1].set(0.0))(x)"},
    "%jxbugs"]


@pytest.fixture(scope="module")
def server(lab_app):
    with lab_notebooks(lab_app, {"cards.ipynb": NOTEBOOK, "mistakes.ipynb": MORE}) as srv:
        yield srv


@pytest.fixture(scope="module")
def page(server, chromium):
    with notebook_run(chromium, server, [], "cards.ipynb",
                      {JAXPR: "jx-JaxprOutput", LIVE: "jx-viewer", EXPLAIN: "jx-ExplainOutput",
                       ERROR: "jx-ErrorCardOutput"}) as p:
        yield p


@pytest.fixture(scope="module")
def mistakes(server, chromium):
    with notebook_run(chromium, server, [], "mistakes.ipynb",
                      {i + 1: "jx-ErrorCardOutput" for i in range(len(MISTAKES))} |
                      {SELF_HOLDING: "jx-note"}) as p:
        yield p


@pytest.mark.parametrize("index", range(len(MISTAKES)),
                         ids=["list-operand", "list-index", "masked-update", "truth-value",
                              "random-arguments", "numpy-random", "einsum-labels",
                              "einsum-axes", "einsum-output", "torch-habit",
                              "join-arguments", "key-missing", "tree-map-arguments",
                              "conv-layout", "matmul-to-grad", "call-arity",
                              "grad-unpacked", "int-overflow", "removed-name",
                              "grad-order", "split-count", "shape-arguments",
                              "keyword-option"])
def test_a_learners_mistake_gets_its_card_with_the_line_rewritten(mistakes, request, index):
    """The cards of jxkernel/views/error_cards/ for mistakes JAX's pages and learners meet
    (tests/notebook/test_learner_mistakes.py checks each rewrite against JAX's value): drawn
    by the extension with the user's line, the why, the fix and the rewrite."""
    source, title, rewrite = MISTAKES[index]
    card = cell(mistakes, index + 1).locator(".jx-ErrorCardOutput")
    expect(card.locator(".jx-ErrorCard-title")).to_have_text(title)
    # the user's line: the cell's last (its first unpacks what the last one fails on)
    line = "return max(v, 0.0)" if source.startswith("def ") else source.splitlines()[-1]
    expect(card.locator(".jx-ErrorCard-code").first).to_have_text(line)
    expect(card.locator(".jx-ErrorCard-rewrite")).to_contain_text(rewrite)
    # the error said once, in one line, and one card (the kernel's own stderr may come on
    # top: not the card's)
    outputs = cell(mistakes, index + 1).locator(".jp-OutputArea-output")
    expect(outputs.filter(has_text="explained in the card below")).to_have_count(1)
    expect(cell(mistakes, index + 1).locator(".jx-ErrorCardOutput")).to_have_count(1)
    shot_view(cell(mistakes, index + 1), request, "1")


def test_after_a_dict_that_holds_itself_the_notebook_runs_on(mistakes, request):
    """The cell's error at the learner's line, the note saying what jxkernel gave back, and
    the next cell's value: under JAX's kernel that cell would raise RecursionError."""
    failed = cell(mistakes, SELF_HOLDING)
    error = failed.locator(".jp-OutputArea-output", has_text="jax.tree.leaves(d)")
    expect(error).to_have_count(1)
    note = failed.locator(".jx-note")
    expect(note).to_contain_text(
        "jaxlib's pytree flatten kept Python's recursion levels when it raised: jxkernel gave back")
    after = cell(mistakes, SELF_HOLDING + 1)
    expect(after.locator(".jp-OutputArea-output")).to_have_text("3")
    shot_view(error, request, "1-error")
    shot_view(note, request, "2-note")


def test_the_static_array_mistake_is_said_once_by_its_card(page, request):
    outputs = cell(page, ERROR).locator(".jp-OutputArea-output")
    expect(outputs).to_have_count(2)                     # the one-line error, then the card
    expect(outputs.nth(0)).to_have_text(
        "TracerBoolConversionError in In[5], line 3, in relu_sum: explained in the card below")
    card = cell(page, ERROR).locator(".jx-ErrorCardOutput")
    expect(card.locator(".jx-ErrorCard-message")).to_have_text(FIRST_LINE)
    expect(card.locator(".jx-ErrorCard-rewrite")).to_contain_text(
        "return jnp.where(x.sum() > 0, x.sum(), 0.0)")
    expect(card.locator(".jx-ErrorCard-rewrite")).not_to_contain_text("static")
    # JupyterLab's output <pre> breaks anywhere: the rewrite's comment showed "with .|astype"
    for code in (card.locator(".jx-ErrorCard-rewrite"), card.locator(".jx-ErrorCard-code").first):
        assert code.evaluate("el => getComputedStyle(el).wordBreak") == "normal"
    # what the page shows says the message once; JAX's whole text is folded, one click away
    shown = cell(page, ERROR).locator(".jp-OutputArea").inner_text()
    assert shown.count(FIRST_LINE) == 1 and "static_argnames" not in shown, shown
    folded = card.locator("details.jx-ErrorCard-traceback")
    expect(folded).not_to_have_attribute("open", "")
    shot_view(cell(page, ERROR), request, "1-card")
    folded.locator("summary").click()
    text = folded.locator("pre")
    expect(text).to_be_visible()
    expect(text).to_contain_text("----> 3     if x.sum() > 0:")
    expect(text).to_contain_text("while tracing the function relu_sum at In[5], line 1 for jit")
    expect(text).not_to_contain_text("ipykernel_")
    shot_view(cell(page, ERROR), request, "2-traceback")


@pytest.mark.parametrize("index, view_css, line_css, head_css", [
    (JAXPR, ".jx-JaxprOutput .jx-Jaxpr", ".jx-Jaxpr-line", ".jx-Jaxpr-line"),  # the extension's
    (LIVE, ".jx-viewer .jx-jaxpr", ".jx-eqn", ".jx-head"),                     # the live widget's
], ids=["extension", "widget"])
def test_a_long_jaxpr_line_wraps_inside_the_view(page, request, index, view_css, line_css,
                                                 head_css):
    view = cell(page, index).locator(view_css)
    line = view.locator(line_css, has_text="concatenate")
    expect(line).to_be_visible()
    box, area = line.bounding_box(), cell(page, index).locator(".jp-OutputArea").bounding_box()
    assert box["x"] + box["width"] <= area["x"] + area["width"] + 1, (box, area)
    # wrapped, not cut: several rows high, and nothing to scroll sideways
    head = view.locator(head_css).first.bounding_box()     # `{ lambda ; a:f32[3]. let`
    assert box["height"] >= 2 * head["height"] - 1, (box, head)
    assert view.evaluate("v => v.scrollWidth <= v.clientWidth")
    shot_view(cell(page, index), request, "1")


def test_explain_shows_whole_source_lines(page, request):
    view = cell(page, EXPLAIN).locator(".jx-ExplainOutput")
    short = view.locator(".jx-Explain-line", has_text="return helper(v) + 1").locator(
        ".jx-Explain-code")
    long = view.locator(".jx-Explain-line", has_text="jnp.tanh(v)").locator(".jx-Explain-code")
    expect(short).to_have_text("    return helper(v) + 1")
    expect(long).to_have_text(f"    {LONG}")
    for code in (short, long):       # all of it drawn: nothing hidden past an ellipsis
        assert code.evaluate("c => c.scrollWidth <= c.clientWidth && "
                             "getComputedStyle(c).textOverflow !== 'ellipsis'")
    shot_view(view, request, "1")


def test_a_card_that_raised_says_so_and_jxbugs_shows_what_to_report(mistakes, request):
    """A card of ours that raises while drawn: JAX's error as it is, no card, one line saying
    it is a bug of jxkernel's and what to send; %jxbugs shows it with its traceback, under the
    address to report it at (one line until clicked)."""
    broken = cell(mistakes, BROKEN_CARD)
    expect(broken.locator(".jp-OutputArea-output", has_text="NonConcreteBooleanIndexError")
           .first).to_be_visible()
    expect(broken.locator(".jx-ErrorCardOutput")).to_have_count(0)
    told = broken.locator(".jp-OutputArea-output", has_text=(
        "This is a bug in jxkernel: please report it with the cell and what %jxbugs shows"))
    expect(told).to_have_count(1)
    # at the cell's own line (it named the next cell's number: In[14] under [13])
    number = re.search(r"\d+", broken.locator(".jp-InputArea-prompt").inner_text()).group(0)
    expect(told).to_contain_text(f"In[{number}]:3: RuntimeWarning: jxkernel could not make "
                                 "the card for this NonConcreteBooleanIndexError")
    shot_view(broken, request, "1-told")
    report = cell(mistakes, JXBUGS).locator("details.jx-note")
    summary = report.locator("summary")
    expect(summary).to_contain_text("bug(s) of jxkernel's own told in this session: please "
                                    "report them at https://github.com/jxkernel/jxkernel/issues")
    expect(report.locator("pre")).not_to_be_visible()
    summary.click()
    expect(report.locator("pre")).to_contain_text("ZeroDivisionError: division by zero")
    expect(report.locator("pre")).to_contain_text("jxkernel could not make the card for this "
                                                  "NonConcreteBooleanIndexError")
    expect(report.locator("pre")).to_contain_text("\njaxlib: ")          # the versions
    shot_view(cell(mistakes, JXBUGS), request, "2-jxbugs")
