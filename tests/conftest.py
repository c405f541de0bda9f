"""Session setup for the whole suite; pytest loads this before any test module.

The persistent compilation cache goes to a fresh temporary folder for each
session (each xdist worker gets its own), so the suite never writes to the
user's cache folder and never reads stale entries from an earlier run. It has
to be set before jxkernel is imported: config reads the environment once.

The CPU device count is left alone: tests see the single-device default.
Multi-device tests run in a subprocess with JXKERNEL_CPU_DEVICES set (see
tests/test_runtime_subprocess.py), because the count is fixed at first use.
"""
import os
import shutil
import sys
import tempfile

_CACHE_DIR = tempfile.mkdtemp(prefix="jxkernel-test-cache-")
os.environ["JXKERNEL_COMPILATION_CACHE_DIR"] = _CACHE_DIR
if "jxkernel.config" in sys.modules:          # imported early (e.g. by a plugin): update it too
    sys.modules["jxkernel.config"].config.update("jax_compilation_cache_dir", _CACHE_DIR)


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(_CACHE_DIR, ignore_errors=True)
