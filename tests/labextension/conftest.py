"""One `jupyter lab` server and one Chromium for the browser tests of this folder
(test_labextension_browser.py and the files that use its harness: the views, sharding, error
card and notes files), each started once per test process: a server start costs about 4 s of
CPU and 3.5 s of wall time, a Chromium ~1.5 s of CPU, and the profile Chromium keeps makes each
JupyterLab page after the first ~2 s of CPU cheaper (tests/support/browser.py). The files run
in sequence in a process, each with its own notebooks, kernels, pages and saved layout (see
`lab_notebooks` in test_labextension_browser.py); the longest-first order in tests/conftest.py
puts them at the head of the run, so under xdist they land in one worker (for the shared
server; split between workers, or run one by one, they pass as well: page_story).

The kernels' device counts differ per file (JXKERNEL_CPU_DEVICES is read once, when a
process starts): the server has a kernelspec per count, KERNELS, and each notebook names its
own.
"""
import json
from pathlib import Path

import pytest

import browser  # tests/support: Chromium for the browser tests
import locations  # tests/support: the repository's folders
from lab_server import JupyterServer

# kernelspec name per CPU device count (1 device: the default "python3")
KERNELS = {2: "jxkernel-cpu2", 4: "jxkernel-cpu4"}


@pytest.fixture(scope="session")
def lab_app(tmp_path_factory):
    """The started JupyterLab server on the checkout's extension, with no notebooks yet."""
    srv = JupyterServer(tmp_path_factory.mktemp("lab"),
                        kernels={name: {"JXKERNEL_CPU_DEVICES": devices}
                                 for devices, name in KERNELS.items()},
                        # the checkout's assets (test_labextension_build checks them against the
                        # sources), not the copy `pip install -e` made when it last ran
                        labextensions={"jxkernel-labextension":
                                       f"{locations.ROOT}/jxkernel/labextension"},
                        # Binder's and scripts/main.sh's settings: no news prompt, and
                        # JupyterLab's default comms over kernel subshells (docs/teaching.md)
                        settings=json.loads(Path(locations.ROOT, "binder",
                                                 "overrides.json").read_text()))
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="session")
def chromium(tmp_path_factory):
    """Chromium's one context (its pages share a profile, tests/support/browser.py) for the
    browser test files of this process; each file opens and closes its own pages."""
    with browser.chromium(tmp_path_factory.mktemp("chromium-profile")) as context:
        yield context
