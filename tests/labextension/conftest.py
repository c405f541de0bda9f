"""One `jupyter lab` server for the browser tests of this folder (test_labextension_browser.py
and the files that use its harness, test_labextension_views_browser.py and
test_labextension_sharding_browser.py), started once per test process: each start costs
about 4 s of CPU and 3.5 s of wall time. The files run in sequence in a process, each with its
own notebooks, kernels and saved layout (see `lab_notebooks` in test_labextension_browser.py);
the longest-first order in tests/conftest.py puts them at the head of the run, so under xdist
they land in one worker.

The kernels' device counts differ per file (JXKERNEL_CPU_DEVICES is read once, when a
process starts): the server has a kernelspec per count, KERNELS, and each notebook names its
own.
"""
import pytest

import locations  # tests/support: the repository's folders
from jupyter_server import JupyterServer

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
                        settings={
                            # no "Would you like to get notified about official Jupyter news?"
                            "@jupyterlab/apputils-extension:notification":
                                {"fetchNews": "false", "checkForUpdates": False},
                        })
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()
