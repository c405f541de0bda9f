"""Chromium driven by Playwright, for the browser tests (tests/labextension/): where the
browser is, where their screenshots go, and the skip, saying what was lacking, of a module
that finds no browser to drive.

    expect, sync_playwright = playwright_or_skip()      # at the top of a browser test module
"""
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
