#!/bin/sh
# Set up a virtualenv in .venv (once) with the test dependencies and run the whole suite.
set -e
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[test]'
exec .venv/bin/python -m pytest -n 2 "$@"
