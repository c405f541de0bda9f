#!/bin/sh
# Set up a virtualenv in .venv-jax (once) with real JAX 0.10.2, the version jxkernel matches,
# for reference/*.py (which record JAX's answers into tests/data) and the benchmarks beside JAX.
# Kept apart from .venv so jxkernel's tests can never import jax. Prints its python's path.
#   sh scripts/jax_venv.sh --docs   also what JAX's docs pages and docstring examples import
#                                   (python -m conformance.docs / conformance.doctests): without
#                                   them those pages fail under JAX and are not compared
set -e
cd "$(dirname "$0")/.."
if [ ! -x .venv-jax/bin/python ]; then
    python3 -m venv .venv-jax
    .venv-jax/bin/python -m pip install -q --upgrade pip >/dev/null
fi
.venv-jax/bin/python -m pip install -q jax==0.10.2 jaxlib==0.10.2 numpy scipy ml_dtypes opt_einsum
if [ "$1" = "--docs" ]; then
    # the same list as pyproject's `conformance` extra, which puts them beside jxkernel; and
    # flatbuffers, which JAX's export.serialize needs
    .venv-jax/bin/python -m pip install -q matplotlib ipython rich absl-py cloudpickle \
        scikit-learn flatbuffers
fi
echo "$(pwd)/.venv-jax/bin/python"
