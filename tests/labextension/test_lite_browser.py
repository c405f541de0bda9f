"""The workshop as a static JupyterLite site (`sh scripts/lite.sh` builds _lite/; docs/teaching.md,
"A room with no server") in a real browser with the network cut off.

_lite/ is served on 127.0.0.1 by Python's http.server (as a teacher would serve it) and opened in
Debian's Chromium (Playwright), whose every request to anything but that server is aborted
(page.route) and recorded: the site must ask for nothing outside itself.

1. the site: JupyterLab loads, the Pyodide kernel starts from the site's own Pyodide, jxkernel's
   extension puts its item in the status bar, NumPy (Pyodide's build, served by the site) imports
   at the version of the lock, and `%pip install` takes ipywidgets, anywidget and opt_einsum from
   the site's wheels;
2. the tour (demos/01_tour.ipynb), opened afresh and run whole, cell by cell: its first cell
   installs jxkernel from the site, every cell runs without an error but the one it makes on
   purpose, and its views, notes, timings and backend cells say what the tour says they do on
   the numpy backend, and `%jxmemory` and the status bar show the NumPy backend's allocator
   (bytes in use, peak, no limit). The times it took go to test-artifacts/browser/lite-timings.json;
3. Run All on the tour, opened afresh: past its deliberate error (a cell tagged
   raises-exception) to the last cell, the status bar naming the backend (lite-run-all.json);
4. Run All on each other notebook of demos/ (one test each): every cell runs, only the cells
   tagged raises-exception show an error, and every view draws (lite-workshop-NAME.json);
5. a new notebook, with no first cell: JAX's quickstart pasted from `import jax` runs and prints
   what JAX printed (the site's `jax` placeholder, loaded on the import).

Screenshots go to test-artifacts/browser/lite-<step>.png (git-ignored).

Skips, each saying what it lacked: no Playwright or no Chromium; no built site while
JXKERNEL_LITE_BUILD is not 1 (building one takes about a minute and needs PyPI and npm, so the
default suite, CI's included, does not: run `sh scripts/lite.sh` first, or set
JXKERNEL_LITE_BUILD=1 to build it here). A site built earlier is opened as it is: rebuild it
after changing jxkernel or the demos. JXKERNEL_LITE_SITE=PATH opens a site built elsewhere. A
site that is built but incomplete (scripts/lite_site.py's check), or a build that fails, fails.
"""
from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import re
import runpy
import subprocess
import threading
import time
from pathlib import Path

import pytest
import locations  # tests/support: the repository's folders
import browser  # tests/support: Chromium for the browser tests
from browser import ARTIFACTS, CHROMIUM, playwright_or_skip

ROOT = Path(locations.ROOT)
SITE = Path(os.environ.get("JXKERNEL_LITE_SITE", ROOT / "_lite"))   # a site built elsewhere
expect, _ = playwright_or_skip()
BUILD = os.environ.get("JXKERNEL_LITE_BUILD")
if BUILD == "1":
    if subprocess.run(["sh", str(ROOT / "scripts/lite.sh")]).returncode != 0:
        pytest.fail("JXKERNEL_LITE_BUILD=1: `sh scripts/lite.sh` failed (its output is above)",
                    pytrace=False)
if not (SITE / "jupyter-lite.json").exists():
    pytest.skip(f"browser tests of the static site skipped: no site is built at {SITE} (it has no "
                f"jupyter-lite.json) and JXKERNEL_LITE_BUILD is "
                f"{'not set' if BUILD is None else repr(BUILD)}, not '1'. Building "
                f"one takes about a minute and needs PyPI and npm, so the default suite does not: "
                f"run `sh scripts/lite.sh`, or set JXKERNEL_LITE_BUILD=1 to build it here",
                allow_module_level=True)

# Pyodide starts in about 10 s on this 2-core machine; installing the workshop's wheels, 10 s more
TIMEOUT = 120_000
CELL_TIMEOUT = 600_000      # one cell at most (the whole tour: benchmarks/README.md)
expect.set_options(timeout=TIMEOUT)
STATUS = ".jx-StatusItem"
TOUR = "01_tour.ipynb"


# ==================================================================== fixtures
@pytest.fixture(scope="module")
def built():
    """What scripts/lite.sh recorded about the site (_lite/jxkernel-lite.json)."""
    lite_site = runpy.run_path(str(ROOT / "scripts/lite_site.py"), run_name="lite_site")
    assert lite_site["check"](SITE) == [], "the built site is incomplete"
    return json.loads((SITE / "jxkernel-lite.json").read_text())


@pytest.fixture(scope="module")
def site():
    """_lite/ served on 127.0.0.1, as `python -m http.server -d _lite` serves it."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass
    srv = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(SITE)))
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/"
    srv.shutdown()
    srv.server_close()


@pytest.fixture(scope="module")
def outside():
    """Every request the page made to anything but the site (each was aborted)."""
    return []


@pytest.fixture(scope="module")
def chromium():
    """A Chromium of this file's own (each page in a fresh context: nothing cached from the
    JupyterLab pages of the folder's other files), on the process's one Playwright."""
    with browser.playwright() as pw:
        launched = pw.chromium.launch(executable_path=CHROMIUM, args=browser.ARGS)
        try:
            yield launched
        finally:
            launched.close()


@contextlib.contextmanager
def opened(chromium, site, outside, path=TOUR):
    """A page (a context of its own) on the site's JupyterLab with `path` open (None: the
    Launcher), every request to
    anything but the site aborted and recorded in `outside`."""
    context = chromium.new_context(viewport={"width": 1400, "height": 900})

    def only_the_site(route):
        url = route.request.url
        if url.startswith((site, "data:", "blob:")):
            route.continue_()
        else:
            outside.append(url)
            route.abort()
    context.route("**/*", only_the_site)
    p = context.new_page()
    p.set_default_timeout(TIMEOUT)
    p.goto(site + "lab/index.html" + (f"?path={path}" if path else ""))
    try:
        yield p
    finally:
        context.close()


@pytest.fixture
def page(chromium, site, outside, built):
    with opened(chromium, site, outside) as p:
        yield p


@pytest.fixture
def tour(chromium, site, outside, built):
    """A fresh page on the tour, once its kernel (Pyodide) is idle; the seconds that took."""
    started = time.monotonic()
    with opened(chromium, site, outside) as p:
        expect(cells(p).first).to_be_visible()
        # the kernel's own state: the notebook's indicator says idle before Pyodide has started
        expect(p.locator("#jp-main-statusbar")).to_contain_text("Python (Pyodide) | Idle")
        yield p, time.monotonic() - started


def shot(page, step):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"lite-{step}.png"))


def cells(page):
    return page.locator(".jp-NotebookPanel:visible .jp-Notebook .jp-Cell")


def run_code(page, code: str, step: str) -> str:
    """Runs `code` in a cell put above the open notebook's first, returns its output text and
    deletes the cell (the tour's cells stay where they are)."""
    cells(page).first.click()
    page.keyboard.press("Escape")
    page.keyboard.press("a")                    # a new cell above, in command mode
    new = cells(page).first
    new.locator(".jp-InputArea-editor").click()
    page.keyboard.insert_text(code)
    prompt = new.locator(".jp-InputArea-prompt")
    page.keyboard.press("Control+Enter")
    page.wait_for_function("el => /\\[\\d+\\]/.test(el.textContent)",
                           arg=prompt.element_handle(), timeout=TIMEOUT)
    text = new.locator(".jp-OutputArea").inner_text()
    shot(page, step)
    page.keyboard.press("Escape")
    page.keyboard.press("d")
    page.keyboard.press("d")
    return text


def kernel_idle(page):
    expect(page.locator(".jp-NotebookPanel:visible .jp-Notebook-ExecutionIndicator")
           ).to_have_attribute("data-status", "idle")


# ==================================================================== tests
def test_the_site_runs_pyodide_and_its_numpy_offline(page, built, outside):
    """JupyterLab, the Pyodide kernel, NumPy and the site's wheels, with the network cut off."""
    expect(page.locator(".jp-NotebookPanel:visible .jp-Toolbar-kernelName")
           ).to_have_text("Python (Pyodide)")
    expect(cells(page).first).to_be_visible()
    # jxkernel's extension is loaded: its status bar item is on the page (shown once the kernel
    # answers its comm)
    expect(page.locator(STATUS)).to_have_count(1)
    kernel_idle(page)
    shot(page, "1-opened")
    lock = json.loads((SITE / "static/pyodide/pyodide-lock.json").read_text())
    assert lock["info"]["version"] == built["pyodide"]
    out = run_code(page, "import platform, sys, numpy\n"
                         "print(sys.platform, platform.python_version(), numpy.__version__)",
                   "2-numpy")
    assert out.strip() == f"emscripten {lock['info']['python']} " \
                          f"{lock['packages']['numpy']['version']}", out
    out = run_code(page, "%pip install -q ipywidgets anywidget opt_einsum\n"
                         "import ipywidgets, anywidget, opt_einsum\n"
                         "print('installed', ipywidgets.__version__, opt_einsum.__version__)",
                   "3-pip-install")
    assert "installed 8." in out, out
    assert outside == [], f"the page asked for things outside the site: {outside[:10]}"


def test_the_whole_tour_runs_on_the_numpy_backend(tour, outside):
    """The tour, opened afresh, run cell by cell from top to bottom (Shift+Enter, as its first
    lines tell a learner): its first cell installs jxkernel from the site and loads the extension,
    and every cell runs with no error but the one the tour makes on purpose (`if n > 2` on a
    traced n). Its views are the live widgets (the kernel connection has their comms: shown at
    once, though JupyterLite's kernel never answers comm_info), `%jxbackend` lists the numpy
    backend and says why XLA's are missing, section 4 times 200x200 matmuls (1000x1000 take 8-9 s
    a call in Pyodide's NumPy) and section 5 switches to numpy. The times (open to idle kernel,
    every cell) go to lite-timings.json. Run All: the next test."""
    page, opened_s = tour
    code = page.locator(".jp-NotebookPanel:visible .jp-CodeCell")
    tour_cells = code.count()      # (Shift+Enter on the last cell adds an empty one below it)
    cells(page).first.click()
    page.keyboard.press("Escape")
    started = time.monotonic()
    seconds = run_every_cell(page)
    top_to_bottom_s = time.monotonic() - started
    prompts = code.locator(".jp-InputArea-prompt").all_inner_texts()[:tour_cells]
    assert all(re.match(r"\[\d+\]", p) for p in prompts), "\n".join(prompts)
    kernel_idle(page)
    slowest = sorted(seconds.items(), key=lambda kv: -kv[1])[:3]
    timings = {"open_to_idle_kernel_s": round(opened_s, 1),
               "every_cell_top_to_bottom_s": round(top_to_bottom_s, 1),
               "code_cells": tour_cells, "slowest_cells_s": slowest}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "lite-timings.json").write_text(json.dumps(timings, indent=1))
    print(f"the tour in JupyterLite: {timings}")
    page.keyboard.press("Control+Home")
    shot(page, "4-tour-done")

    # errors: only the tour's own
    errors = page.locator(".jp-CodeCell:not(:has-text('n is traced: is it > 2?')) "
                          ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert errors.count() == 0, errors.first.inner_text()
    expect(cell_with(page, "n is traced: is it > 2?").locator(".jp-OutputArea")).to_contain_text(
        "TracerBoolConversionError")
    # the NumPy backend compiles nothing: its count says cache misses, as %jxcompiles does
    expect(page.locator(STATUS)).to_have_text(
        re.compile(r"^jx · numpy:0 \(1 device\) · \d+ cache miss(es)?, \d+ hits?"))

    # section 1: the jaxpr of `jax.make_jaxpr(f)(x, 2.0)`, drawn by the live widget
    made = output_of(page, "jax.make_jaxpr(f)(x, 2.0)", "5-jaxpr")
    expect(made.locator(".jx-viewer")).to_contain_text("sin")
    # section 3: f called with a new shape and a new dtype; the log of every compilation
    expect(output_of(page, "x has a new shape: compiles", "6-recompilation-note")).to_contain_text(
        "cache miss(es) in this cell: f: x: shape f32[4] -> f32[8]")   # nothing compiles here
    log = output_of(page, "%jxcompiles", "7-jxcompiles")
    expect(log.locator(".widget-dropdown")).to_be_visible()          # the live widget
    expect(log).to_contain_text("cache misses")
    expect(log).to_contain_text("x: f32[4] -> f32[8]")
    # section 4: its sizes from the backend, timed by %timeit and by hand
    timed = output_of(page, "%timeit -n 3 -r 3 --dispatch matmuls(a)", "8-timeit")
    expect(timed).to_contain_text("per loop")
    expect(timed).to_contain_text("dispatch only:")
    timings["timeit"] = timed.inner_text()
    (ARTIFACTS / "lite-timings.json").write_text(json.dumps(timings, indent=1))
    expect(output_of(page, "out.block_until_ready()", "9-by-hand")).to_contain_text(
        "the result was ready after")
    # section 5: the numpy backend alone, why, and the switch to it
    listed = output_of(page, re.compile(r"^%jxbackend$"), "10-jxbackend")
    expect(listed.locator(".widget-dropdown")).to_contain_text("numpy:0")
    expect(listed).to_contain_text("XLA's backends (cpu, gpu, tpu) do not run in the browser")
    expect(output_of(page, "%jxbackend $where", "11-switch")).to_contain_text(
        "run on numpy:0 now")
    expect(output_of(page, "f_jit(x, 2.0).devices()", "12-devices")).to_contain_text(
        "{NumpyDevice(id=0)}")
    # section 6: the jaxpr of a gradient
    expect(output_of(page, "%jaxpr jax.grad(loss)(w)", "13-grad")).to_contain_text("tanh")
    # %jxmemory: the NumPy backend's allocator, its buffers' bytes and peak, and its limit said
    # to be not reported (a None JupyterLite's output copy drops), never the section left out
    memory = run_code(page, "%jxmemory", "17-jxmemory")
    assert re.search(r"^numpy:0 allocator: [\d,]+ bytes.* in use, peak [\d,]+ bytes.*, limit "
                     r"not reported by this backend$", memory, re.M), memory
    # and the status bar its bytes in use (no limit after them)
    expect(page.locator(STATUS)).to_have_text(re.compile(r" · [\d.]+ (bytes|KiB|MiB)$"))
    assert outside == [], f"the page asked for things outside the site: {outside[:10]}"


def test_run_all_goes_past_the_tagged_error(tour, outside):
    """Run → Run All Cells on the tour, opened afresh, reaches its last cell. JupyterLite drops
    every message queued behind a cell's error, the raises-exception tag notwithstanding (its
    kernel client ignores stop_on_error); the extension runs the dropped cells again after a
    tagged cell's error (raisesException.ts), and reopens its comm, whose opening was dropped
    too (connection.ts): the status bar names the backend, not "connecting", and the toolbar's
    execution indicator ends idle. The time it took goes to lite-run-all.json."""
    page, _ = tour
    code = page.locator(".jp-NotebookPanel:visible .jp-CodeCell")
    tour_cells = code.count()
    last_prompt = code.nth(tour_cells - 1).locator(".jp-InputArea-prompt")
    started = time.monotonic()
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile("^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile("^Run All Cells$")).click()
    expect(last_prompt).to_have_text(re.compile(r"\[\d+\]"), timeout=CELL_TIMEOUT)
    run_all_s = time.monotonic() - started
    # the kernel's own state, and the notebook's toolbar indicator: it counts each request until
    # an idle status answers it, and JupyterLite answers none of those it dropped; the extension
    # does (droppedRequests.ts), else the indicator stayed busy, a half-filled circle, for good
    expect(page.locator("#jp-main-statusbar")).to_contain_text("Python (Pyodide) | Idle")
    kernel_idle(page)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "lite-run-all.json").write_text(json.dumps(
        {"run_all_s": round(run_all_s, 1), "code_cells": tour_cells}, indent=1))
    print(f"Run All of the tour in JupyterLite: {run_all_s:.1f} s")
    prompts = code.locator(".jp-InputArea-prompt").all_inner_texts()
    assert all(re.match(r"\[\d+\]", p) for p in prompts), "\n".join(prompts)
    counts = [int(re.search(r"\d+", p).group()) for p in prompts]
    assert counts == sorted(counts), f"cells ran out of order: {counts}"
    errors = page.locator(".jp-CodeCell:not(:has-text('n is traced: is it > 2?')) "
                          ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert errors.count() == 0, errors.first.inner_text()
    deliberate = cell_with(page, "n is traced: is it > 2?")
    deliberate.scroll_into_view_if_needed()
    expect(deliberate.locator(".jp-OutputArea")).to_contain_text("TracerBoolConversionError")
    # its card names it by its prompt's number (Pyodide's IPython 8.23 counts a cell after
    # running it; the card said In[7] under In [8] while jxkernel took IPython 9's order)
    n = re.search(r"\d+", deliberate.locator(".jp-InputArea-prompt").inner_text()).group()
    expect(deliberate.locator(".jp-OutputArea")).to_contain_text(f"In[{n}], line 2, in cell[{n}]")
    shot(page, "14-run-all-error")
    # the NumPy backend compiles nothing: its count says cache misses, as %jxcompiles does
    expect(page.locator(STATUS)).to_have_text(
        re.compile(r"^jx · numpy:0 \(1 device\) · \d+ cache miss(es)?, \d+ hits?"))
    expect(output_of(page, "%jaxpr jax.grad(loss)(w)", "15-run-all-last")).to_contain_text("tanh")
    shot(page, "16-run-all-done")
    assert outside == [], f"the page asked for things outside the site: {outside[:10]}"


def test_a_learners_mistakes_get_their_cards_there(tour, outside):
    """A learner's own cells after the tour's first (which installs jxkernel from the site):
    `import jax` gives jxkernel; a reused key draws the same numbers twice, as JAX does, and
    the key note says so (the reuse was a TypeError from jxkernel's own
    code there: the NumPy rule of max read ml_dtypes' float8_e8m0fnu, and Pyodide has no
    ml_dtypes), and `x[0] = 1` gets its card drawn by the extension (its "rewrite" section)
    and one line of error output under it. The cards' words:
    tests/notebook/test_notebook_numpy_backend.py."""
    page, _ = tour
    setup = cell_with(page, "%load_ext jxkernel")
    setup.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Control+Enter")
    expect(setup.locator(".jp-InputArea-prompt")).to_have_text(re.compile(r"\[\d+\]"),
                                                               timeout=CELL_TIMEOUT)
    # after the first cell `import jax` is jxkernel too (its %load_ext installed the alias;
    # the lock's placeholder, loaded on the import as well, is passed over)
    said = run_code(page, "import jax, jax.numpy as jnp\nprint(jax.__version__, jnp.__name__)",
                    "18-import-jax")
    assert said.strip() == "0.10.2 jxkernel.numpy", said
    drawn = run_code(page, "import jxkernel as jax, jxkernel.numpy as jnp\n"
                           "key = jax.random.key(0)\na = jax.random.normal(key, (2,))\n"
                           "b = jax.random.normal(key, (2,))\nprint(bool((a == b).all()))",
                     "18-key-reused")
    # the same numbers, and the note under the cell saying so (notebook/notes/key_notes.py)
    printed, _, note = drawn.strip().partition("\n")
    assert printed == "True", drawn
    assert re.fullmatch(r"⚠ key reused \(at In\[\d+\]:4\): normal drew with the key that normal "
                        r"used at In\[\d+\]:3, so the same numbers again", note.strip()), drawn
    # a copy dropped, and a gradient holding NaN where the value is finite: their notes, on
    # the NumPy backend in Pyodide's Python (notebook/notes/update_notes.py, nan_notes.py)
    dropped = run_code(page, "y = jnp.arange(3)\ny.at[0].set(5)\nprint(y)", "18-dropped-copy")
    assert re.search(r"\[0 1 2\]\s+⚠ y\.at\[0\]\.set\(5\) made a new array, and nothing kept it "
                     r"\(at In\[\d+\]:2\): y is unchanged", dropped), dropped
    nan = run_code(page, "def f(v):\n    return jnp.where(v > 0, jnp.sqrt(v), 0.)\n"
                         "print(jax.grad(f)(0.))", "18-nan-gradient")
    assert re.search(r"nan\s+⚠ the gradient holds NaN, though f's value is finite \(at "
                     r"In\[\d+\]:3\): the jnp\.where at In\[\d+\]:2 passed it back", nan), nan
    card = run_code(page, "x = jnp.zeros(3)\nx[0] = 1", "19-in-place-card")
    assert "rewrite\nx = x.at[0].set(1)" in card, card
    # the error output JupyterLite shows after the card (its execute reply's traceback): one
    # line pointing up at it, as one line above it on a Jupyter server (the whole traceback,
    # said a second time, before); the card keeps it folded
    assert re.search(r"\nTypeError in In\[\d+\], line 2, in <module>: explained in the card "
                     r"above\s*$", card), card
    assert "Traceback (most recent call last)" not in card, card
    assert outside == [], f"the page asked for things outside the site: {outside[:10]}"


def test_a_new_notebook_runs_jax_docs_from_import_jax(chromium, site, outside, built):
    """A learner opens a new notebook (File → New: no setup cell) and pastes JAX's quickstart,
    `import jax` first (conformance/programs/01_quickstart_jit_selu.py, the jit of selu): Pyodide
    loads the site's `jax` placeholder on that import (pyodide-lock.json: scripts/lite_site.py),
    which hands over to jxkernel and loads the extension. It prints what JAX 0.10.2 printed
    (conformance/expected/), and a call with a new shape and dtype gets the recompile note."""
    program = (ROOT / "conformance/programs/01_quickstart_jit_selu.py").read_text()
    program = program.split("RESULTS =")[0].strip()       # the harness's line, not the docs'
    assert program.startswith("import jax\n")
    printed = json.loads((ROOT / "conformance/expected/01_quickstart_jit_selu.json").read_text())
    with opened(chromium, site, outside, path=None) as page:
        page.locator(".jp-LauncherCard[data-category='Notebook']").first.click()
        expect(cells(page).first).to_be_visible()
        expect(page.locator("#jp-main-statusbar")).to_contain_text("Python (Pyodide) | Idle")
        out = run_cell(page, 0, program)
        assert out.strip().splitlines() == printed["stdout"], out
        out = run_cell(page, 1, "print(jax.__version__, type(y).__module__)\n"
                                "selu_jit(jnp.arange(5))    # a new shape and dtype: compiles again")
        assert out.startswith("0.10.2 jxkernel.xla.array\n"), out
        # the NumPy backend compiles nothing: traced again, a cache miss (core/miss_words.py)
        assert "selu traced again (cache miss #2" in out and "i32[5]" in out, out
        # the status bar connects by itself after a cell importing jax (connection.ts)
        expect(page.locator(STATUS)).to_have_text(re.compile(r"^jx · numpy:0 \(1 device\)"))
        shot(page, "20-new-notebook-import-jax")
        # host callbacks in a pmap run per device, as JAX 0.10.2 prints them (they raised
        # vmap's errors on the NumPy backend before stop 87)
        out = run_cell(page, 2, "import numpy as np\n"
                                "from jax.experimental import io_callback\n"
                                "print(jax.pmap(lambda v: jax.pure_callback(np.sin, v, v))"
                                "(jnp.arange(1.0)))\n"
                                "print(jax.pmap(lambda v: io_callback(lambda y: y * 2, v, v))"
                                "(jnp.arange(1.0) + 3))")
        assert out.strip().splitlines() == ["[0.]", "[6.]"], out
        shot(page, "21-new-notebook-pmap-callbacks")
        # JAX's primitives guide: a primitive with def_impl and an MLIR lowering runs its impl
        # under jit there (the NumPy backend runs no MLIR; it refused it before stop 88)
        out = run_cell(page, 3, "from jax.extend.core import Primitive\n"
                                "from jax.interpreters import mlir\n"
                                "from jax._src.lib.mlir.dialects import hlo\n"
                                "multiply_add_p = Primitive('multiply_add')\n"
                                "multiply_add_p.def_impl(lambda x, y, z: "
                                "np.add(np.multiply(x, y), z))\n"
                                "multiply_add_p.def_abstract_eval(lambda x, y, z: x)\n"
                                "mlir.register_lowering(multiply_add_p, lambda ctx, x, y, z: "
                                "[hlo.AddOp(hlo.MulOp(x, y), z).result], platform='cpu')\n"
                                "square_add = lambda a, b: multiply_add_p.bind(a, a, b)\n"
                                "print(jax.jit(square_add)(2., 10.))")
        assert out.strip() == "14.0", out
        shot(page, "22-new-notebook-users-primitive")
    assert outside == [], f"the page asked for things outside the site: {outside[:10]}"


def run_cell(page, index: int, code: str) -> str:
    """Types `code` into the open notebook's cell `index` (the last, empty one), runs it with
    Shift+Enter (a new empty cell comes below) and returns its output text."""
    cell = cells(page).nth(index)
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.insert_text(code)
    page.keyboard.press("Shift+Enter")
    expect(cell.locator(".jp-InputArea-prompt")).to_have_text(re.compile(r"\[\d+\]"),
                                                              timeout=CELL_TIMEOUT)
    return cell.locator(".jp-OutputArea").inner_text()


def run_every_cell(page) -> dict:
    """Shift+Enter from the active cell to the notebook's end, waiting for each code cell's
    execution count; {first line of its source: seconds} per code cell."""
    seconds = {}
    total = cells(page).count()
    for _ in range(total):
        active = page.locator(".jp-NotebookPanel:visible .jp-Cell.jp-mod-active")
        is_code = "jp-CodeCell" in (active.get_attribute("class") or "")
        first = active.locator(".jp-InputArea-editor").inner_text().strip().split("\n")[0]
        handle = active.element_handle()
        started = time.monotonic()
        page.keyboard.press("Shift+Enter")
        if is_code:
            page.wait_for_function(
                "el => /\\[\\d+\\]/.test(el.querySelector('.jp-InputArea-prompt').textContent)",
                arg=handle, timeout=CELL_TIMEOUT)
            seconds[first] = round(time.monotonic() - started, 2)
    return seconds


def cell_with(page, source):
    """The open notebook's first code cell whose source contains `source` (a str, or a pattern
    its whole text matches)."""
    return page.locator(".jp-NotebookPanel:visible .jp-CodeCell").filter(
        has=page.locator(".jp-InputArea-editor", has_text=source)).first


def output_of(page, source, step: str):
    """The output area of cell_with(source), scrolled into view and photographed."""
    target = cell_with(page, source)
    target.scroll_into_view_if_needed()
    out = target.locator(".jp-OutputArea")
    expect(out).not_to_be_empty()
    target.screenshot(path=str(ARTIFACTS / f"lite-{step}.png"))
    return out


# ==================================================================== the other notebooks
WORKSHOP = sorted(p.name for p in (ROOT / "demos").glob("[0-9][0-9]_*.ipynb") if p.name != TOUR)


def tagged(name: str) -> list:
    """The tags of each code cell of demos/`name`, in order."""
    nb = json.loads((ROOT / "demos" / name).read_text())
    return [c.get("metadata", {}).get("tags", []) for c in nb["cells"] if c["cell_type"] == "code"]


def cells_with(name: str, text: str) -> list:
    """The indices of the code cells of demos/`name` whose source holds `text`."""
    nb = json.loads((ROOT / "demos" / name).read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    return [i for i, c in enumerate(code) if text in "".join(c["source"])]


@pytest.mark.parametrize("name", WORKSHOP)
def test_each_workshop_notebook_runs_whole_with_run_all(chromium, site, outside, built, name):
    """Run → Run All Cells on each notebook but the tour (tested above), opened afresh, as a
    learner runs it: every code cell runs (Run All goes past the cells tagged raises-exception,
    and only those show an error), and no view says it cannot draw its bundle (the stepper and
    %jxmemory did, Python's None arriving as undefined: bundle.ts's undefinedAsNull). The
    seconds each took go to lite-workshop-NAME.json; a screenshot of its end to lite-NAME.png."""
    tags = tagged(name)
    with opened(chromium, site, outside, path=name) as page:
        code = page.locator(".jp-NotebookPanel:visible .jp-CodeCell")
        expect(code.first).to_be_visible()
        expect(page.locator("#jp-main-statusbar")).to_contain_text("Python (Pyodide) | Idle")
        assert code.count() == len(tags)
        started = time.monotonic()
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile("^Run$")).click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile("^Run All Cells$")).click()
        expect(code.last.locator(".jp-InputArea-prompt")).to_have_text(re.compile(r"\[\d+\]"),
                                                                       timeout=CELL_TIMEOUT)
        kernel_idle(page)
        run_all_s = time.monotonic() - started
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / f"lite-workshop-{name}.json").write_text(json.dumps(
            {"run_all_s": round(run_all_s, 1), "code_cells": len(tags)}))
        shot(page, f"workshop-{name}")
        prompts = code.locator(".jp-InputArea-prompt").all_inner_texts()
        assert all(re.match(r"\[\d+\]", p) for p in prompts), "\n".join(prompts)
        stderr = ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"
        for i, cell_tags in enumerate(tags):
            failed = code.nth(i).locator(stderr)
            if "raises-exception" not in cell_tags:
                assert failed.count() == 0, (code.nth(i).locator(".jp-InputArea-editor")
                                             .inner_text(), failed.first.inner_text())
        notes = page.locator(".jx-View-note")
        assert notes.count() == 0, notes.first.inner_text()
        for i in cells_with(name, "go.FigureWidget("):   # 07's figures: need no nbformat
            expect(code.nth(i).locator(".js-plotly-plot")).to_be_visible()
            code.nth(i).scroll_into_view_if_needed()
            code.nth(i).screenshot(path=str(ARTIFACTS / f"lite-workshop-{name}-cell{i}.png"))
        for i in cells_with(name, "%hlo "):   # 08's: the costs are jxkernel's, not XLA's
            head = code.nth(i).locator(".jx-Hlo > table thead th").first
            expect(head).to_have_text("cost estimate (from the jaxpr: no XLA on the numpy backend)")
            code.nth(i).scroll_into_view_if_needed()
            code.nth(i).screenshot(path=str(ARTIFACTS / f"lite-workshop-{name}-cell{i}.png"))
    assert outside == [], f"the page asked for things outside the site: {outside[:10]}"
