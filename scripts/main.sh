#!/bin/sh
# Set up a virtualenv in .venv (once) with the notebook extra, check the devices
# (python -m jxkernel), then start a JupyterLab server on demos/. It opens no browser: it prints
# the URL to open (with its token); extra arguments go to JupyterLab, e.g. --ip=0.0.0.0 --port=8888.
# PYTHON=python3.13 sh scripts/main.sh: the same on another interpreter, in its own venv
# (.venv-3.13), as scripts/test.sh does
set -e
cd "$(dirname "$0")/.."
. scripts/venv.sh         # $VENV for $PYTHON, created once, with uv
# precompiled at install (a few seconds), so JupyterLab and the first kernel start quicker
$VENV/bin/python -m uv pip install -q --python $VENV/bin/python --compile-bytecode -e '.[notebook]'
# the editable checkout too (uv leaves it): each kernel then starts without compiling jxkernel
$VENV/bin/python -m compileall -q -j 0 jxkernel
$VENV/bin/python -m jxkernel
# the kernel the README names, "Python 3 (JAX on jxkernel)" (`import jax` is jxkernel there),
# into the venv's own share/jupyter (the interpreter's prefix), where this JupyterLab finds it
$VENV/bin/python -m jxkernel.notebook.kernelspec
# the same JupyterLab settings as the Binder image (binder/postBuild): no "Would you like to get
# notified about official Jupyter news?" prompt over the first notebook
mkdir -p $VENV/share/jupyter/lab/settings
cp binder/overrides.json $VENV/share/jupyter/lab/settings/overrides.json
# in a clone: git compares the notebooks without their outputs (jxkernel/notebook/workshop/strip.py,
# named in .gitattributes), so running them leaves git pull free of conflicts
if git rev-parse --git-dir > /dev/null 2>&1; then
    git config filter.jxkernel-strip.clean "$VENV/bin/python jxkernel/notebook/workshop/strip.py"
    git config filter.jxkernel-strip.smudge cat
fi
# Jupyter refuses to run as root unless told (containers, Binder-like machines run as root).
[ "$(id -u)" = 0 ] && set -- --allow-root "$@"
exec $VENV/bin/jupyter lab --no-browser --notebook-dir=demos "$@"
