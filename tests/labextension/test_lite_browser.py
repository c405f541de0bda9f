"""The workshop as a static JupyterLite site (`sh scripts/lite.sh` builds _lite/; docs/teaching.md,
"A room with no server") in a real browser with the network cut off.

_lite/ is served on 127.0.0.1 by Python's http.server (as a teacher would serve it) and opened in
Debian's Chromium (Playwright), whose every request to anything but that server is aborted
(page.route) and recorded: the site must ask for nothing outside itself. The tests run in file
order on one page:

1. the site: JupyterLab loads, the Pyodide kernel starts from the site's own Pyodide, jxkernel's
   extension puts its item in the status bar, NumPy (Pyodide's build, served by the site) imports
   at the version of the lock, and `%pip install` takes ipywidgets, anywidget and opt_einsum from
   the site's wheels;
2. the tour (demos/01_tour.ipynb): its first cell installs jxkernel from the site and loads the
   extension; its cells run one by one through section 3; the status bar shows the numpy
   backend, a jaxpr view is drawn and a recompilation note says why a function compiled again.

Screenshots go to test-artifacts/browser/lite-<step>.png (git-ignored).

Skips, each saying what it lacked: no Playwright or no Chromium (the module); no _lite/ (building
it takes about a minute and needs PyPI and npm, so the default suite does not: run
`sh scripts/lite.sh` first, or set JXKERNEL_LITE_BUILD=1 to build it here); the tour, where
jxkernel does not import in Pyodide (the module it lacked is named: ml_dtypes while jxkernel
needs it, as Pyodide 0.27.7 has no build of it). JXKERNEL_LITE_SITE=PATH opens a site built
elsewhere. A site that is built but
incomplete (scripts/lite_site.py's check) fails.
"""
from __future__ import annotations

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
from browser import ARTIFACTS, CHROMIUM, playwright_or_skip

ROOT = Path(locations.ROOT)
SITE = Path(os.environ.get("JXKERNEL_LITE_SITE", ROOT / "_lite"))   # a site built elsewhere
expect, sync_playwright = playwright_or_skip()
if os.environ.get("JXKERNEL_LITE_BUILD") == "1":
    subprocess.run(["sh", str(ROOT / "scripts/lite.sh")], check=True)
if not (SITE / "jupyter-lite.json").exists():
    pytest.skip("the JupyterLite site is not built (_lite/ is missing): run `sh scripts/lite.sh` "
                "(about a minute, needs PyPI and npm), or set JXKERNEL_LITE_BUILD=1 to build it "
                "here", allow_module_level=True)

# Pyodide starts in about 10 s on this 2-core machine; installing the workshop's wheels, 10 s more
TIMEOUT = 120_000
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
def page(site, outside, built):
    pw = sync_playwright().start()
    browser = pw.chromium.launch(executable_path=CHROMIUM,
                                 args=["--no-sandbox", "--disable-dev-shm-usage"])
    context = browser.new_context(viewport={"width": 1400, "height": 900})

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
    p.goto(site + f"lab/index.html?path={TOUR}")
    try:
        yield p
    finally:
        context.close()
        browser.close()
        pw.stop()


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


def test_the_tour_runs_on_the_numpy_backend(page, outside):
    """The tour's first cell installs jxkernel from the site and loads the extension; its cells
    run one by one (Shift+Enter, as a learner does) through section 3; the status bar names the
    numpy backend, `make_jaxpr` draws a jaxpr view and a recompilation note says why `f`
    compiled again.

    It stops at section 4 ("Timing asynchronous work"): its 1000x1000 matmuls take about 8 s a
    call in Pyodide's NumPy (no optimized BLAS; measured 2026-11-25), so %timeit's nine runs
    alone would take minutes."""
    code = cells(page)
    setup = code.nth(1)
    setup.click()
    page.keyboard.press("Escape")
    started = time.monotonic()
    ran = run_to(page, lambda text: False, stop=1)
    out = setup.locator(".jp-OutputArea").inner_text()
    shot(page, "4-setup-cell")
    lacked = re.search(r"ModuleNotFoundError: No module named '([\w.]+)'", out)
    if lacked:
        pytest.skip(f"jxkernel does not import in Pyodide: it needs {lacked.group(1)!r}, which "
                    f"the site does not have (its first cell said: ModuleNotFoundError)")
    assert "Error" not in out, out
    expect(page.locator(STATUS)).to_have_text(re.compile(r"^jx · numpy:0 \(1 device\)"))
    ran += run_to(page, lambda text: text.startswith("4. Timing"))   # section 4's heading
    print(f"the tour through section 3 in JupyterLite: {time.monotonic() - started:.1f} s, "
          f"{ran} code cells")
    shot(page, "5-section-3")
    # section 1: `jax.make_jaxpr(f)(x, 2.0)` drawn by the extension's jaxpr view
    made = page.locator(".jp-CodeCell", has_text="jax.make_jaxpr(f)(x, 2.0)").first
    made.scroll_into_view_if_needed()
    expect(made.locator(".jx-Jaxpr:visible").first).to_contain_text("sin")
    made.screenshot(path=str(ARTIFACTS / "lite-6-jaxpr.png"))
    # section 3: f called with a new shape and a new dtype
    called = page.locator(".jp-CodeCell", has_text="x has a new shape: compiles").first
    called.scroll_into_view_if_needed()
    expect(called.locator(".jp-OutputArea")).to_contain_text(
        "recompile(s) in this cell: f: x: shape f32[4] -> f32[8]")
    called.screenshot(path=str(ARTIFACTS / "lite-7-recompilation-note.png"))
    expect(page.locator(STATUS)).to_have_text(re.compile(r"^jx · numpy:0 .* compiles"))
    # errors: only the tour's own (the `if n > 2` cell shows what tracing cannot do)
    errors = page.locator(".jp-CodeCell:not(:has-text('n is traced: is it > 2?')) "
                          ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert errors.count() == 0, errors.first.inner_text()
    assert outside == [], f"the page asked for things outside the site: {outside[:10]}"


def run_to(page, stop_at, stop: int | None = None) -> int:
    """Runs the notebook from the active cell with Shift+Enter, as a learner does, until a
    markdown cell whose rendered text `stop_at` accepts (or `stop` code cells), waiting for each code
    cell's execution count; the number of code cells run."""
    ran = 0
    while stop is None or ran < stop:
        active = page.locator(".jp-NotebookPanel:visible .jp-Cell.jp-mod-active")
        is_code = "jp-CodeCell" in (active.get_attribute("class") or "")
        if not is_code and stop_at(active.locator(".jp-InputArea").inner_text().strip()):
            break
        handle = active.element_handle()
        page.keyboard.press("Shift+Enter")
        if is_code:
            page.wait_for_function(
                "el => /\\[\\d+\\]/.test(el.querySelector('.jp-InputArea-prompt').textContent)",
                arg=handle, timeout=TIMEOUT)
            ran += 1
    return ran
