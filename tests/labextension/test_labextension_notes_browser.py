"""The compile note under a cell (jxkernel/notebook/notes/compile_notes.py) in a real JupyterLab: a
plain jax.jit function called with a new shape says, under the cell's output, that it compiled
again, what changed and the fix, in one line that opens on a click; and the %jxcompiles log.

The harness is tests/labextension/test_labextension_browser.py's (its server, page and
screenshot helpers); screenshots go to test-artifacts/browser/<test>-<step>.png. Skipped,
saying why, only without a browser.
"""
from __future__ import annotations

import re

import jxkernel

from test_labextension_browser import (  # the same harness: server, page and contrast helpers
    cell,
    expect,
    notebook_fixtures,
    shot_view,
)

(SETUP, FIRST, AGAIN, HIT, MANY, LOG, STALE, PRINTED, APPENDED, MOVED, JITTED, FIELD,
 NAN, PAIRS, DRAWN) = range(15)
NOTEBOOK = [
    "%load_ext jxkernel\nimport jxkernel as jax, jxkernel.numpy as jnp",
    "def f(x):\n    return jnp.sin(x) * 2.0\n\nf_jit = jax.jit(f)\n"
    "w = jax.random.normal(jax.random.PRNGKey(0), (3,)) + jnp.arange(6.0)[1:4]\n"
    "f_jit(jnp.ones(3)).shape",
    "f_jit(jnp.ones(4)).shape      # a new shape: compiles again",
    "f_jit(jnp.ones(4)).shape      # the same: a cache hit",
    "for n in range(5, 30):\n    f_jit(jnp.ones(n))",
    "%jxcompiles",
    "scale = 2.0\nmul = jax.jit(lambda x: x * scale)\nmul(1.0)\nscale = 3.0",
    "@jax.jit\ndef pr(x):\n    print('x is', x)\n    return x\npr(1.0)",
    "log = []\n@jax.jit\ndef logged(x):\n    log.append(x)\n    return x * 2\n"
    "logged(1.0)\nlogged(2.0)\nlen(log)",
    "frames = jnp.arange(10)\njax.lax.dynamic_slice(frames, (8,), (4,))",
    "@jax.jit\ndef get(x, i):\n    return x[i]\n\nget(frames, 12)",
    "from functools import partial\nclass Model:\n    def __init__(self, w):\n        self.w = w\n"
    "    @partial(jax.jit, static_argnums=0)\n    def predict(self, x):\n"
    "        return x @ self.w\nm = Model(jnp.ones((3, 2)))\nm.predict(jnp.ones((1, 3)))\n"
    "m.w = jnp.zeros((3, 2))\nm.predict(jnp.ones((1, 3)))",
    "def loss(w):\n    return jnp.sqrt(jnp.sum(w))\n@jax.jit\ndef step(w):\n"
    "    l, g = jax.value_and_grad(loss)(w)\n    return w - 0.3 * g, l\nw = jnp.ones(2)\n"
    "for i in range(12):\n    w, l = step(w)\nl",
    "X = jnp.arange(12.0).reshape(4, 3)\ny = jnp.arange(4.0)\npred = X @ jnp.ones((3, 1))\n"
    "((pred - y) ** 2).mean()",
    "p = jnp.array([0.1, 0.2, 0.7])\ndraws = jax.random.categorical(jax.random.key(3), p, "
    "shape=(1000,))",
]


# notes.ipynb open in JupyterLab with every cell run, the compile log drawn too
server, console, page = notebook_fixtures(
    "notes.ipynb", NOTEBOOK, {AGAIN: "jx-note", MANY: "jx-note", STALE: "jx-note",
                              PRINTED: "jx-note", APPENDED: "jx-note",
                              MOVED: "jx-note", JITTED: "jx-note", FIELD: "jx-note",
                              NAN: "jx-note", PAIRS: "jx-note", DRAWN: "jx-note"},
    ready=lambda p: expect(cell(p, LOG).locator(".jp-OutputArea-output").first).to_be_visible())


def test_a_recompile_is_noted_under_its_cell(page, request):
    again = cell(page, AGAIN)
    outputs = again.locator(".jp-OutputArea-output")
    expect(outputs.first).to_contain_text("(4,)")              # the cell's own output first
    note = again.locator("details.jx-note")
    expect(note).to_have_count(1)
    summary = note.locator("summary")
    # on the NumPy backend, which compiles nothing: traced again, a cache miss (miss_words)
    expect(summary).to_contain_text("f traced again (cache miss #2, at In[3]:1): x: "
                                    if jxkernel.default_backend() == "numpy" else
                                    "f compiled again (compile #2, at In[3]:1): x: ")
    expect(summary).to_contain_text(re.compile(r"f32\[3\] -> f32\[4\] · fix: \S"))
    # one line until clicked
    height = summary.evaluate("el => el.getBoundingClientRect().height")
    line = summary.evaluate("el => parseFloat(getComputedStyle(el).lineHeight) || 16")
    assert height < 2 * line, f"the note's line is {height:.0f} px high"
    expect(note.locator("pre")).not_to_be_visible()
    shot_view(again, request, "1-closed")
    summary.click()
    expect(note.locator("pre")).to_be_visible()
    expect(note.locator("pre")).to_contain_text("called at In[3]:1:  f_jit(jnp.ones(4)).shape")
    expect(note.locator("pre")).to_contain_text(re.compile(r"\n\s+fix: \S"))
    # a long line wraps between words (JupyterLab's output <pre> breaks anywhere: "w|here")
    assert note.locator("pre").evaluate("el => getComputedStyle(el).wordBreak") == "normal"
    shot_view(again, request, "2-open")
    for quiet in (SETUP, FIRST, HIT):                          # first compile, hit: nothing
        expect(cell(page, quiet).locator(".jx-note")).to_have_count(0)


def test_the_compiles_log_cuts_no_line(page, request):
    """%jxcompiles shows its newest compilations whole, in no box of fixed height (a scroll box
    cut its last visible line in half); the earlier ones open on a click."""
    log = cell(page, LOG)
    rows = log.locator(".jx-log-rows")
    expect(rows).to_be_visible()
    # the newest, against the earlier key JAX 0.10.2 names: of equally close ones, the least
    # by its message's text ("f32[10]" sorts before "f32[28]" and "f32[3]")
    expect(rows).to_contain_text("x: f32[10] -> f32[29]")
    clipped = rows.evaluate("""el => [el, ...el.querySelectorAll('*')].filter(e => {
        const s = getComputedStyle(e);
        return ['auto', 'scroll', 'hidden'].includes(s.overflowY) && e.scrollHeight > e.clientHeight + 1;
    }).length""")
    assert clipped == 0, f"{clipped} element(s) of the log cut their content"
    earlier = rows.locator("details.jx-log-earlier")
    # (the log is live: the cells after it add their first compiles, mul's, pr's, logged's,
    # get's, predict's and step's; get's index checks, the notebook's own program, are not
    # logged)
    expect(earlier.locator("summary")).to_have_text("30 earlier compilation(s)")
    expect(earlier.locator("td", has_text="first call").first).not_to_be_visible()
    # the user's functions first, in a table of their own; eager operations and jxkernel's own
    # functions folded after it, each a closed group (compile_report.group_of's rule)
    expect(log.locator("table").first).not_to_contain_text("compile(s) of")
    groups = log.locator("details.jx-group")
    expect(groups.filter(has_text="compile(s) of eager operations")).to_have_count(1)
    expect(groups.filter(has_text="compile(s) of jxkernel's own functions, for your calls")
           ).to_have_count(1)
    expect(groups.locator("tr.jx-group", has_text="_normal")).to_contain_text("In[2]:5")
    shot_view(log, request, "1-newest")
    earlier.locator("summary").click()
    expect(earlier.locator("td", has_text="first call").first).to_be_visible()
    shot_view(log, request, "2-earlier-open")


def test_a_changed_global_and_a_printed_tracer_are_noted(page, request):
    """The notes a learner needs where nothing compiles again: a global rebound after the trace
    (the program keeps its old value) and a print that showed a tracer; each one line that
    opens on a click, escaped (a `<lambda>` name stays text)."""
    stale = cell(page, STALE).locator("details.jx-note")
    expect(stale).to_have_count(1)
    expect(stale.locator("summary")).to_contain_text(
        re.compile(r"⚠ <lambda> read scale = 2\.0 when traced \(at In\[\d+\]:3\); scale is "
                   r"3\.0 now, and its " + ("program" if jxkernel.default_backend() == "numpy"
                                            else "compiled program") + r" keeps 2\.0"))
    stale.locator("summary").click()
    expect(stale.locator("pre")).to_contain_text("as an argument")
    shot_view(cell(page, STALE), request, "1-stale")
    printed = cell(page, PRINTED)
    expect(printed.locator(".jp-OutputArea-output").first).to_contain_text(
        "x is JitTracer(~float32[])")
    note = printed.locator("details.jx-note")
    expect(note.locator("summary")).to_contain_text("⚠ print ran while tracing")
    note.locator("summary").click()
    expect(note.locator("pre")).to_contain_text("jax.debug.print('x is {}', x)")
    shot_view(printed, request, "2-print")


def test_a_list_appended_to_inside_jit_is_noted_with_its_fixes(page, request):
    """A side effect that runs at the trace alone (notebook/notes/effect_notes.py): log.append(x) in
    a jitted function called twice appends once, a tracer; the note says so in one line, and
    opens on the two fixes."""
    appended = cell(page, APPENDED)
    expect(appended.locator(".jp-OutputArea-output").first).to_contain_text("1")
    note = appended.locator("details.jx-note")
    expect(note).to_have_count(1)
    expect(note.locator("summary")).to_contain_text(
        "⚠ logged changes log (log.append(x), at In[")
    expect(note.locator("summary")).to_contain_text("and log now holds a tracer of that trace")
    expect(note.locator("pre")).not_to_be_visible()
    note.locator("summary").click()
    expect(note.locator("pre")).to_contain_text("jax.debug.callback(log.append, x)")
    shot_view(appended, request, "1-appended")


def test_a_dynamic_slice_whose_start_moved_is_noted_with_the_padded_call(page, request):
    """A start past the end, moved back by XLA with no error
    (notebook/notes/clamped_start_notes.py): the note names the start asked for and the one used
    in one line, and opens on the call
    rewritten on the learner's own operand, padded."""
    moved = cell(page, MOVED)
    expect(moved.locator(".jp-OutputArea-output").first).to_contain_text("[6, 7, 8, 9]")
    note = moved.locator("details.jx-note")
    expect(note).to_have_count(1)
    expect(note.locator("summary")).to_contain_text(
        "⚠ lax.dynamic_slice moved its start (8,) to (6,) (at In[")
    expect(note.locator("summary")).to_contain_text("so it read [6:10], and raised nothing")
    expect(note.locator("pre")).not_to_be_visible()
    note.locator("summary").click()
    expect(note.locator("pre")).to_contain_text(
        "jax.lax.dynamic_slice(jnp.pad(frames, ((0, 2),)), (8,), (4,))")
    shot_view(moved, request, "1-moved")


def test_a_traced_index_out_of_bounds_is_noted_with_checkify(page, request):
    """An index a jitted call traced, out of bounds when it ran (notebook/notes/index_calls.py): the
    note names it, the function and what JAX read instead in one line, and opens on the
    learner's call wrapped in checkify."""
    jitted = cell(page, JITTED)
    expect(jitted.locator(".jp-OutputArea-output").first).to_contain_text("9")
    note = jitted.locator("details.jx-note")
    expect(note).to_have_count(1)
    expect(note.locator("summary")).to_contain_text(
        "⚠ index 12 is past the end of axis 0 (size 10) in get, jitted (at In[")
    expect(note.locator("summary")).to_contain_text("JAX read index 9 instead")
    expect(note.locator("pre")).not_to_be_visible()
    note.locator("summary").click()
    expect(note.locator("pre")).to_contain_text(
        "err, out = checkify.checkify(get, errors=checkify.index_checks)(frames, 12)")
    shot_view(jitted, request, "1-jitted")


def test_a_field_of_a_static_self_set_after_the_trace_is_noted_with_the_pytree(page, request):
    """`@partial(jax.jit, static_argnums=0)` on a method, then m.w set anew: the old w's result
    (JAX's too), and a note in one line naming self.w, which opens on the pytree registration
    (views/static_attributes.py)."""
    field = cell(page, FIELD)
    expect(field.locator(".jp-OutputArea-output").first).to_contain_text("[[3., 3.]]")
    note = field.locator("details.jx-note")
    expect(note).to_have_count(1)
    expect(note.locator("summary")).to_contain_text(re.compile(
        r"⚠ predict read self\.w = \[\[1\.0, 1\.0\], .*\(float32\[3,2\]\) when traced"))
    note.locator("summary").click()
    expect(note.locator("pre")).to_contain_text("Model keeps object's own hash and ==")
    expect(note.locator("pre")).to_contain_text(
        "jax.tree_util.register_pytree_node(Model, _flatten, _unflatten)")
    shot_view(field, request, "1-open")


def test_a_loss_gone_nan_is_noted_with_the_operation_that_made_it(page, request):
    """A jitted training step whose loss walks below 0 under sqrt: the loss printed NaN (as
    in JAX), and a note in one line naming sqrt and its line, which opens on what makes
    sqrt's NaN and jax_debug_nans (notebook/notes/nan_notes.py)."""
    nan = cell(page, NAN)
    expect(nan.locator(".jp-OutputArea-output").first).to_contain_text("nan")
    note = nan.locator("details.jx-note")
    expect(note).to_have_count(1)
    expect(note.locator("summary")).to_contain_text(re.compile(
        r"⚠ loss's value is NaN: first made by sqrt at In\[\d+\]:2 \(loss at In\[\d+\]:5, "
        r"inside step \(jitted\), called at In\[\d+\]:9\)"))
    note.locator("summary").click()
    expect(note.locator("pre")).to_contain_text("sqrt gives NaN of a negative number")
    expect(note.locator("pre")).to_contain_text("jax.config.update('jax_debug_nans', True)")
    shot_view(nan, request, "1-open")


def test_a_column_met_by_a_vector_is_noted_with_the_line_entry_by_entry(page, request):
    """A loss of a column of predictions against a vector of targets: the mean of every pair
    (as in JAX), and a note in one line naming both shapes and the (4, 4) result, which opens
    on the line written entry by entry (notebook/notes/broadcast_notes.py)."""
    pairs = cell(page, PAIRS)
    note = pairs.locator("details.jx-note")
    expect(note).to_have_count(1)
    expect(note.locator("summary")).to_contain_text(re.compile(
        r"⚠ pred - y broadcast a column \(4, 1\) and a vector \(4,\) into a \(4, 4\) matrix "
        r"\(at In\[\d+\]:4\)"))
    note.locator("summary").click()
    expect(note.locator("pre")).to_contain_text("((pred[:, 0] - y) ** 2).mean()")
    shot_view(pairs, request, "1-open")


def test_probabilities_given_to_categorical_are_noted_with_their_log(page, request):
    """jax.random.categorical(key, p) of probabilities: it draws with softmax(p) (as in JAX),
    and a note in one line naming them, which opens on the line with jnp.log(p)
    (notebook/notes/categorical_notes.py)."""
    drawn = cell(page, DRAWN)
    note = drawn.locator("details.jx-note")
    expect(note).to_have_count(1)
    expect(note.locator("summary")).to_contain_text(re.compile(
        r"⚠ jax.random.categorical was given probabilities \[0.1, 0.2, 0.7\] where it takes "
        r"logits \(at In\[\d+\]:2\)"))
    note.locator("summary").click()
    expect(note.locator("pre")).to_contain_text(
        "draws = jax.random.categorical(jax.random.key(3), jnp.log(p), shape=(1000,))")
    shot_view(drawn, request, "1-open")
