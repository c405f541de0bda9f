#!/bin/sh
# Run ../shared/bench/workloads.py beside JAX on this machine: runs alternate between the two
# (so both see the same load), then print the table with a jxkernel/jax ratio column.
#   sh benchmarks/compare_with_jax.sh            # JAX from ../jaxref (see ../shared/bench/README.md)
#   JAX_PYTHON=/path/to/python RUNS=3 ONLY=mlp_step,scan_rnn sh benchmarks/compare_with_jax.sh
# jxkernel runs with its compilation caches off (JXKERNEL_COMPILATION_CACHE=0), so first-call
# numbers pay a real compile, as JAX's do.
set -e
cd "$(dirname "$0")/.."
JAX_PYTHON=${JAX_PYTHON:-../jaxref/bin/python}
PYTHON=${PYTHON:-.venv/bin/python}
[ -x "$PYTHON" ] || PYTHON=python3
RUNS=${RUNS:-2}
OUT=${OUT:-benchmarks/results}
mkdir -p "$OUT"
rm -f "$OUT/jax.json" "$OUT/jxkernel.json"
only=""
[ -n "$ONLY" ] && only="--only $ONLY"
i=0
while [ $i -lt "$RUNS" ]; do
    "$JAX_PYTHON" ../shared/bench/workloads.py --impl jax --json "$OUT/jax.json" $only
    JXKERNEL_COMPILATION_CACHE=0 "$PYTHON" ../shared/bench/workloads.py --impl jxkernel \
        --json "$OUT/jxkernel.json" $only
    i=$((i + 1))
done
"$PYTHON" ../shared/bench/workloads.py --table "$OUT/jax.json" "$OUT/jxkernel.json"
