#!/bin/sh
# Set up a virtualenv in .venv (once) with the test dependencies and run the whole suite.
# PYTHON=python3.13 sh scripts/test.sh: the same on another interpreter, in its own venv
# (.venv-3.13), so that one checkout holds a venv per Python version side by side
set -e
cd "$(dirname "$0")/.."
. scripts/venv.sh         # $VENV for $PYTHON, created once, with uv
# --compile-bytecode: uv otherwise leaves the .pyc files to first import, and the suite's many
# processes (two workers, kernels, JupyterLab servers, subprocess tests) pay for them as they
# start: from a fresh clone on 2 cores, 11 min 18 s without it, 9 min 43 s with (8 s of it here)
$VENV/bin/python -m uv pip install -q --python $VENV/bin/python --compile-bytecode -e '.[test,ecosystem,hub]'
# configurable-http-proxy for tests/release/test_hub.py, from npm into hub/node_modules (as scripts/hub.sh
# does); without npm or a registry that answers, the hub test skips and says why
if [ ! -x hub/node_modules/.bin/configurable-http-proxy ]; then
    { command -v npm >/dev/null &&
      npm install --prefix hub --no-audit --no-fund --fetch-retries=1 --fetch-timeout=30000 >/dev/null 2>&1; } ||
      echo "test.sh: configurable-http-proxy not installed (npm missing or offline): tests/release/test_hub.py will skip" >&2
fi
# uv compiles site-packages but not the editable checkout, and where PYTHONDONTWRITEBYTECODE is
# set (as on some CI images) nothing caches it later: every process the suite starts (workers,
# kernels, servers, subprocess tests) would compile jxkernel's ~260 modules afresh, ~0.35 s each
$VENV/bin/python -m compileall -q -j 0 jxkernel tests conformance
# pytest caches each test module with its asserts rewritten only where bytecode may be written:
# under PYTHONDONTWRITEBYTECODE every run rewrote all of them again, about 6 s in each worker
unset PYTHONDONTWRITEBYTECODE
# worksteal: a worker that runs dry takes tests queued for the other, so the run
# does not wait on one worker's long tail
# test-artifacts/junit.xml: per-test times for scripts/suite_times.py (the per-folder table in
# docs/contributing.md)
exec $VENV/bin/python -m pytest -n 2 --dist worksteal --junitxml=test-artifacts/junit.xml "$@"
