#!/bin/sh
# Set up a virtualenv in .venv-jax (once) with real JAX 0.10.2, the version jxkernel matches,
# for reference/*.py (which record JAX's answers into tests/data) and the benchmarks beside JAX.
# Kept apart from .venv so jxkernel's tests can never import jax. Prints its python's path.
# PYTHON=python3.12 sh scripts/jax_venv.sh: the same on another interpreter, in .venv-jax-3.12
# (where NumPy 2.5 resolves: reference/make_lax_numpy_gaps_reference.py records its answers)
#   sh scripts/jax_venv.sh --docs   also what JAX's docs pages and docstring examples import
#                                   (python -m conformance.docs / conformance.doctests): without
#                                   them those pages fail under JAX and are not compared
set -e
cd "$(dirname "$0")/.."
if [ -n "$PYTHON" ]; then
    VENV=.venv-jax-$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
else
    PYTHON=python3 VENV=.venv-jax
fi
if [ ! -x $VENV/bin/python ]; then
    "$PYTHON" -m venv $VENV
    $VENV/bin/python -m pip install -q --upgrade pip >/dev/null
fi
# absl-py: jax._src.test_util imports it, and reference scripts record through it
$VENV/bin/python -m pip install -q jax==0.10.2 jaxlib==0.10.2 numpy scipy ml_dtypes opt_einsum \
    absl-py
if [ "$1" = "--docs" ]; then
    # the same list as pyproject's `conformance` extra, which puts them beside jxkernel; and
    # flatbuffers, which JAX's export.serialize needs; optax (the `ecosystem` extra's pin,
    # beside jxkernel), which notebooks/host-offloading imports
    $VENV/bin/python -m pip install -q matplotlib ipython rich absl-py cloudpickle \
        scikit-learn flatbuffers optax==0.2.8
fi
echo "$(pwd)/$VENV/bin/python"
