"""The cards of the mistakes learners make with shapes and loops, in a real browser: grad of a
function that returns a vector, rows centred without keepdims, lax.cond given a condition per
element, a sum along an axis a vector has not, scan given xs of two lengths, a fori_loop bound
n / 2, a vector concatenated to a matrix, scan given a number of steps as xs, a while
condition giving a number, a fori_loop lambda body that makes its int carry float, pmap given
arguments of two sizes, lax.switch branches off in two ways (every branch changed at once).
The card draws the user's line rewritten (jax.jacrev; keepdims=True; jnp.where; axis=0; each
xs cut to one length, with the table of xs's leaves; n // 2; v[None]), and the page says
JAX's message once. And an `if` on a value
a jitted function made from constants: the card lists the operations that made it, as its
text does.

The harness is tests/labextension/test_labextension_browser.py's (server, page, screenshots to
test-artifacts/browser/<test>-<step>.png); one notebook, run once: a cell per card, each tagged
raises-exception so that Run All goes past it (as test_labextension_error_card_browser.py's).
One kernel and one page instead of one per card: 8 kernels and 9 pages took 82 s of the
suite's test time. Skipped, saying why, only without a browser.

The server has JupyterLab's default "Kernel Comms over subshells" (one subshell per comm
target; binder/overrides.json leaves it), which learners' own JupyterLab has: the run also
checks that the jxkernel comm keeps off subshells and that no cell got asyncio's "Task was
destroyed but it is pending!" (docs/teaching.md, "Comms and kernel subshells").
"""
from __future__ import annotations

import json

import pytest
from test_labextension_browser import (cell, expect, lab_notebooks, notebook_run, shot,
                                       shot_view)

SETUP = "%load_ext jxkernel\nimport jxkernel as jax, jxkernel.numpy as jnp\nX = jnp.ones((3, 4))"
CARDS = {
    "grad_output": "def square(x):\n    return x ** 2\n\ng = jax.grad(square)(X[0])",
    "broadcast": "centred = X - X.mean(axis=1)",
    "cond": "x = X[0] - 2 * jnp.arange(4.0)\n"
            "y = jax.lax.cond(x > 0, lambda v: v, lambda v: -v, x)",
    "axis": "total = X[0].sum(axis=1)",
    "scan": "carry, ys = jax.lax.scan(lambda c, ab: (c + ab[0] * ab[1], c), 0.0, "
            "(X[0], X[:, 0]))",
    "fori_bounds": "n = 6\ntotal = jax.lax.fori_loop(0, n / 2, lambda i, c: c + i, 0)",
    "concatenate": "v = jnp.arange(4.0)\nstacked = jnp.concatenate([v, X])",
    "scan_steps": "carry, ys = jax.lax.scan(lambda c, x: (c + x, c), 0, 10)",
    "while_number": "k = jax.lax.while_loop(lambda c: c, lambda c: c - 1.0, 3.0)",
    "lambda_carry": "total = jax.lax.fori_loop(0, 3, lambda i, c: c * 1.5, jnp.int32(1))",
    "pmap_sizes": "y = jax.pmap(lambda a, b: a + b)(jnp.ones(1), jnp.ones(2))",
    "switch_several": "y = jax.lax.switch(1, [lambda v: v, lambda v: v[:2], lambda v: v > 1], "
                      "X[0])",
    "constants": "@jax.jit\ndef f(v):\n    y = jnp.ones(3) * 2\n"
                 "    return v if y.sum() > 1 else -v\n\nf(1.0)",
}
CELL = {name: index + 1 for index, name in enumerate(CARDS)}    # (SETUP is cell 0)
NOTEBOOK = [SETUP] + [{"cell_type": "code", "source": source,
                       "metadata": {"tags": ["raises-exception"]}} for source in CARDS.values()]
CASES = [
    ("grad_output", "Gradient only defined for scalar-output functions. Output had shape: "
     "(4,).", "g = jax.jacrev(square)(X[0])"),
    ("broadcast", "Incompatible shapes for broadcasting: shapes=[(3, 4), (3,)]",
     "centred = X - X.mean(axis=1, keepdims=True)"),
    ("cond", "Pred must be a scalar, got [ True False False False] of shape (4,).",
     "y = jnp.where(x > 0, x, -x)"),
    ("axis", "axis 1 is out of bounds for array of dimension 1", "total = X[0].sum(axis=0)"),
    ("scan", "scan got values with different leading axis sizes: 4, 3.",
     "carry, ys = jax.lax.scan(lambda c, ab: (c + ab[0] * ab[1], c), 0.0, (X[0][:3], X[:, 0][:3]))"),
    ("fori_bounds", "lower and upper arguments to fori_loop must have equal types, got int32 "
     "and float32", "total = jax.lax.fori_loop(0, n // 2, lambda i, c: c + i, 0)"),
    ("concatenate", "Cannot concatenate arrays with different numbers of dimensions: got "
     "(4,), (3, 4).", "stacked = jnp.concatenate([v[None], X])"),
    # stop 101's: a number of steps given as xs (no table of leaves: the card has no origin),
    # a while condition giving a number
    ("scan_steps", "scan got value with no leading axis to scan over: 10.",
     "carry, ys = jax.lax.scan(lambda c, x: (c + x, c), 0, jnp.arange(10))"),
    ("while_number", "cond_fun must return a boolean scalar, but got output type(s) "
     "[ShapedArray(float32[], weak_type=True)].",
     "k = jax.lax.while_loop(lambda c: c != 0, lambda c: c - 1.0, 3.0)"),
    # stop 102's: a lambda body's carry cast back in the line, pmap's arguments of two sizes
    ("lambda_carry", "scan body function carry input and carry output must have equal types, "
     "but they differ:", "total = jax.lax.fori_loop(0, 3, lambda i, c: (c * 1.5).astype("
     "jnp.int32), jnp.int32(1))"),
    ("pmap_sizes", "pmap got inconsistent sizes for array axes to be mapped:",
     "y = jax.pmap(lambda a, b: a + b, in_axes=(0, None))(jnp.ones(1), jnp.ones(2))"),
    # stop 103's: switch branches off in two ways, both changed in the one line
    ("switch_several", "switch branches must have equal output types but they differ.",
     "y = jax.lax.switch(1, [lambda v: v, lambda v: jnp.pad(v[:2], [(0, 2)]), "
     "lambda v: jnp.asarray(v > 1, jnp.float32)], X[0])"),
]


@pytest.fixture(scope="module")
def server(lab_app):
    with lab_notebooks(lab_app, {"cards.ipynb": NOTEBOOK}) as running:
        yield running


@pytest.fixture(scope="module")
def sent(chromium):
    """Every websocket frame the module's pages send (the kernels' messages among them)."""
    frames = []

    def watch(page):
        page.on("websocket", lambda ws: ws.on("framesent", lambda data: frames.append(data)))
    chromium.on("page", watch)
    yield frames
    chromium.remove_listener("page", watch)


@pytest.fixture(scope="module")
def page(server, chromium, sent):
    """The notebook with every cell run: each card is drawn (the tests only look)."""
    with notebook_run(chromium, server, [], "cards.ipynb",
                      {index: "jx-ErrorCardOutput" for index in CELL.values()}) as p:
        yield p


def kernel_messages(frames):
    """(header, content) of each kernel message in `frames`: JupyterLab's websocket protocol
    v1 (binary: a count, that many offsets, then the channel, header, parent header,
    metadata, content and buffers), or the older JSON text."""
    for data in frames:
        if isinstance(data, str):
            message = json.loads(data)
            yield message["header"], message["content"]
            continue
        count = int.from_bytes(data[:8], "little")
        offsets = [int.from_bytes(data[8 * i:8 * i + 8], "little") for i in range(1, count + 1)]
        parts = [data[start:end] for start, end in zip(offsets, offsets[1:])]
        yield json.loads(parts[1]), json.loads(parts[4])


@pytest.mark.parametrize("name, message, rewrite", CASES,
                         ids=["grad-output", "broadcast", "cond-predicate", "axis-bounds",
                              "scan-lengths", "fori-bounds", "concatenate-ranks",
                              "scan-steps", "while-condition", "lambda-carry",
                              "pmap-sizes", "switch-several"])
def test_the_card_draws_the_rewritten_line(page, request, name, message, rewrite):
    card = cell(page, CELL[name]).locator(".jx-ErrorCardOutput")
    expect(card.locator(".jx-ErrorCard-message")).to_have_text(message)
    expect(card.locator(".jx-ErrorCard-rewrite")).to_contain_text(rewrite)
    shown = cell(page, CELL[name]).locator(".jp-OutputArea").inner_text()
    assert shown.count(message) == 1, shown
    shot_view(cell(page, CELL[name]), request, "card")


def test_run_all_keeps_the_comm_off_subshells_and_no_cell_gets_asyncios_lines(page, sent,
                                                                              request):
    """With JupyterLab's default, the extension's comm had a subshell of its own, which
    JupyterLab deleted at each of its reconnects (a cell's error while it connects) right after
    sending the comm_close into it; ipykernel stopped the subshell with that message's task
    pending, and asyncio's "Task was destroyed but it is pending!" and "task: <Task pending
    ... run_in_context() ...>" went into whichever cell ran (1 of these 13 cells in each of 5
    runs, on the 2-core VM). Now every message of every jxkernel comm goes to the main shell."""
    messages = list(kernel_messages(sent))
    ours = {content["comm_id"] for header, content in messages
            if header["msg_type"] == "comm_open" and content.get("target_name") == "jxkernel"}
    assert len(ours) > 1, messages       # the page's first comm, closed (not loaded), then more
    to_subshells = [(header["msg_type"], header.get("subshell_id")) for header, content in messages
                    if content.get("comm_id") in ours and header.get("subshell_id")]
    assert to_subshells == []
    for index in range(len(NOTEBOOK)):
        shown = cell(page, index).locator(".jp-OutputArea").inner_text()
        assert "was destroyed" not in shown and "Task pending" not in shown, (index, shown)
    shot(page, request, "run-all")


def test_a_value_made_from_constants_lists_the_operations_that_made_it(page, request):
    card = cell(page, CELL["constants"]).locator(".jx-ErrorCardOutput")
    steps = card.locator(".jx-ErrorCard-chain li")
    expect(steps.nth(0)).to_have_text(
        "no argument: made from constants by jnp operations in f, traced for jit")
    expect(steps.nth(1)).to_contain_text("y = jnp.ones(3) * 2")
    assert "#null" not in card.inner_text()
    shot_view(cell(page, CELL["constants"]), request, "card")


def test_a_scan_card_draws_xs_leaves_as_a_table(page):
    rows = cell(page, CELL["scan"]).locator(".jx-ErrorCardOutput table tr")
    expect(rows).to_have_count(3)                   # the head, then xs[0] and xs[1]
    expect(rows.nth(1)).to_contain_text("xs[0]")
    expect(rows.nth(2)).to_contain_text("float32[3]")
