# Sourced by main.sh and test.sh from the checkout's root: sets VENV to the virtualenv for
# $PYTHON (.venv for python3, the default; .venv-3.13 for PYTHON=python3.13, so that one
# checkout holds a venv per Python version side by side), creates it once, and puts uv in it
# (uv installs the extras' ~150 packages in parallel: about 15 s where pip takes 80 s).
if [ -n "$PYTHON" ]; then
    VENV=.venv-$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
else
    PYTHON=python3 VENV=.venv
fi
[ -x $VENV/bin/python ] || "$PYTHON" -m venv $VENV
$VENV/bin/python -m pip install -q --disable-pip-version-check uv
