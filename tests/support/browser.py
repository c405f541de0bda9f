"""Chromium driven by Playwright, for the browser tests (tests/labextension/): where the
browser is, where their screenshots go, the skip, saying what was lacking, of a module
that finds no browser to drive, and one Chromium with a profile on disk for a test process.

    expect, sync_playwright = playwright_or_skip()      # at the top of a browser test module
    with chromium(profile) as context:                  # context.new_page(), ...
        ...
"""
import contextlib
import os
from pathlib import Path

import pytest

import locations  # tests/support: the repository's folders

CHROMIUM = os.environ.get("JXKERNEL_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(locations.ROOT) / "test-artifacts" / "browser"


def playwright_or_skip() -> tuple:
    """(Playwright's `expect`, `sync_playwright`); the importing module is skipped without
    Playwright or without Chromium, saying how to get it."""
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError as e:          # pragma: no cover - depends on the machine
        pytest.skip(f"browser tests skipped: playwright is not importable ({e}); "
                    "pip install -e '.[test]'", allow_module_level=True)
    if not Path(CHROMIUM).exists():   # pragma: no cover
        pytest.skip(f"browser tests skipped: no Chromium at {CHROMIUM} "
                    "(apt-get install chromium, or set JXKERNEL_CHROMIUM)", allow_module_level=True)
    return expect, sync_playwright


VIEWPORT = {"width": 1400, "height": 900}
ARGS = ["--no-sandbox", "--disable-dev-shm-usage"]


_playwright = None     # this process's one Playwright, and how many hold it
_holders = 0


@contextlib.contextmanager
def playwright():
    """This process's one Playwright, started by its first holder and stopped by its last: the
    sync API runs one per thread, and a second `sync_playwright().start()` while one runs fails
    ("Playwright Sync API inside the asyncio loop"), as when test_lite_browser.py's Chromium
    started beside this folder's shared one in a whole-folder run."""
    global _playwright, _holders
    if _holders == 0:
        from playwright.sync_api import sync_playwright
        _playwright = sync_playwright().start()
    _holders += 1
    try:
        yield _playwright
    finally:
        _holders -= 1
        if _holders == 0:
            _playwright.stop()
            _playwright = None


@contextlib.contextmanager
def chromium(profile: Path):
    """One Chromium whose pages share a profile in folder `profile` (a persistent context).

    Each launch costs ~1.5 s of CPU, and a fresh profile loads JupyterLab's scripts afresh
    on every page: ~5 s of CPU in Chromium per load. With the profile kept, the HTTP cache and
    V8's code cache serve them from the second page on (~3.2 s a load; measured on the 2-core
    VM), so the browser test files of a process share one (tests/labextension/conftest.py).
    """
    with playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, args=ARGS, viewport=VIEWPORT)
        try:
            yield context
        finally:
            context.close()


# Installs (once per page load) a listener that sees each click on a command palette item
# before the palette runs the item's command, in the same event (capture phase on the
# document: Lumino's CommandPalette runs it from its own node's click handler); returns how
# many such clicks the page has had.
_PALETTE_RUNS = """() => {
  if (!window.__jxPaletteRuns) {
    window.__jxPaletteRuns = [];
    document.addEventListener('click', e => {
      const item = e.button === 0 && e.target.closest && e.target.closest('.lm-CommandPalette-item');
      if (item) window.__jxPaletteRuns.push(item.textContent);
    }, true);
  }
  return window.__jxPaletteRuns.length;
}"""


def palette(page, label: str, tries: int = 3, timeout: int = 60_000) -> None:
    """Runs a command by its label from JupyterLab's command palette, as a person would, once.

    JupyterLab's modal palette closes when it loses focus, and a notebook that has just opened
    takes the focus for its active cell a moment later (on a loaded machine, after the palette
    opened: CI, stop 71). A person would open it again, and so does this, `tries` times. A
    click can land after Playwright gave up waiting for it (a loaded machine), so a retry is
    decided by the state the click leaves, not by the time it took: the page counts clicks on palette items (_PALETTE_RUNS), and after a timed-out
    attempt Escape is pressed first (the page handles input in order, so any click still on
    its way has landed or never will) and the count read; a click that landed ran the command,
    and there is no retry."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
    box = page.locator(".jp-mod-commandPalette input, #command-palette input").first
    item = page.locator(".lm-CommandPalette-item", has_text=label).first
    runs = page.evaluate(_PALETTE_RUNS)
    for attempt in range(tries):
        page.keyboard.press("Control+Shift+C")
        try:
            box.wait_for(state="visible", timeout=timeout // 4)
            box.fill(label, timeout=timeout // 4)
            item.click(timeout=timeout // 4)
            return
        except PlaywrightTimeoutError:
            page.keyboard.press("Escape")     # a palette left open would swallow the next press
            if page.evaluate(_PALETTE_RUNS) > runs:
                return                        # the click landed late: the command ran
            if attempt == tries - 1:
                raise
