"""tests/support/browser.py's `palette`, which the browser tests run JupyterLab's commands with,
runs a command once however late its click lands (stop 88: a click that landed after
Playwright's timeout was retried, and Run All ran twice). A stand-in page plays each case;
no browser is started."""
import pytest

from browser import palette

playwright = pytest.importorskip("playwright.sync_api")


class Page:
    """A page whose palette clicks go as `clicks` says, one entry per attempt: "lands" (the
    command runs), "late" (it runs, but Playwright's wait times out first), "lost" (the palette
    lost the focus and closed: nothing runs, the wait times out)."""

    def __init__(self, clicks):
        self.clicks = list(clicks)
        self.runs = 0          # the page's count of palette items clicked (_PALETTE_RUNS)
        self.keys = []
        self.keyboard = self

    def press(self, key):
        self.keys.append(key)

    def evaluate(self, script):
        assert "__jxPaletteRuns" in script
        return self.runs

    def locator(self, selector, has_text=None):
        return Locator(self, has_text)


class Locator:
    def __init__(self, page, item):
        self.page, self.item = page, item
        self.first = self

    def wait_for(self, state, timeout):
        pass

    def fill(self, text, timeout):
        pass

    def click(self, timeout):
        what = self.page.clicks.pop(0)
        if what in ("lands", "late"):
            self.page.runs += 1
        if what in ("late", "lost"):
            raise playwright.TimeoutError(f"Timeout {timeout}ms exceeded.")


def test_a_click_that_lands_after_the_timeout_is_not_retried():
    page = Page(["late", "lands", "lands"])
    palette(page, "Run All Cells")
    assert page.runs == 1
    assert page.keys == ["Control+Shift+C", "Escape"]


def test_a_palette_that_closed_before_the_click_is_opened_again():
    page = Page(["lost", "lost", "lands"])
    palette(page, "Run All Cells")
    assert page.runs == 1
    assert page.keys == ["Control+Shift+C", "Escape"] * 2 + ["Control+Shift+C"]


def test_the_last_timeout_is_raised():
    page = Page(["lost", "lost", "lost"])
    with pytest.raises(playwright.TimeoutError):
        palette(page, "Run All Cells")
    assert page.runs == 0
