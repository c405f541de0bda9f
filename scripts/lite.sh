#!/bin/sh
# Build the workshop as a static JupyterLite site in _lite/ (docs/teaching.md, "A room with no
# server"); serve it with: python -m http.server -d _lite
# The build has its own venv (_lite_build/venv): jupyterlite-core and the Pyodide kernel at the
# versions scripts/lite_site.py pins, apart from the project's JupyterLab in .venv. Needs PyPI
# and the npm registry (the `pyodide` package); nothing else is fetched.
set -e
cd "$(dirname "$0")/.."
V=_lite_build/venv
[ -x $V/bin/python ] || { mkdir -p _lite_build && python3 -m venv $V; }
PINS=$(sed -n 's/^JUPYTERLITE_CORE = "\(.*\)"/jupyterlite-core==\1/p; s/^PYODIDE_KERNEL = "\([^"]*\)".*/jupyterlite-pyodide-kernel==\1/p' scripts/lite_site.py)
$V/bin/python -m pip install -q --disable-pip-version-check $PINS build jupyter_server
exec $V/bin/python scripts/lite_site.py "$@"
