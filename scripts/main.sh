#!/bin/sh
# Set up a virtualenv in .venv (once) and run the main job.
set -e
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[notebook]'
exec .venv/bin/python -m jxkernel "$@"
