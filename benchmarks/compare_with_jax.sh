#!/bin/sh
# Run benchmarks/workloads.py with JAX 0.10.2 and with jxkernel on this machine, alternating
# (so both see the same load), then print the table with a jxkernel/jax ratio column.
#   sh benchmarks/compare_with_jax.sh                   # RUNS=2 full runs of each (~5 min)
#   RUNS=3 ONLY=mlp_step,scan_rnn sh benchmarks/compare_with_jax.sh
#   RUNS=1 QUICK=1 sh benchmarks/compare_with_jax.sh    # smoke test: times mean little
# JAX comes from .venv-jax (made by scripts/jax_venv.sh on first use; JAX_PYTHON overrides),
# jxkernel from .venv (made by scripts/test.sh or scripts/main.sh; PYTHON overrides).
# jxkernel runs with its compilation caches off (JXKERNEL_COMPILATION_CACHE=0), so first-call
# numbers pay a real compile, as JAX's do. Results go to $OUT (benchmarks/results/).
set -e
cd "$(dirname "$0")/.."
if [ -z "$JAX_PYTHON" ]; then
    [ -x .venv-jax/bin/python ] || sh scripts/jax_venv.sh
    JAX_PYTHON=.venv-jax/bin/python
fi
PYTHON=${PYTHON:-.venv/bin/python}
[ -x "$PYTHON" ] || PYTHON=python3
RUNS=${RUNS:-2}
OUT=${OUT:-benchmarks/results}
mkdir -p "$OUT"
rm -f "$OUT/jax.json" "$OUT/jxkernel.json"  # --json appends: start both files afresh
flags=""
[ -n "$ONLY" ] && flags="--only $ONLY"
[ -n "$QUICK" ] && [ "$QUICK" != 0 ] && flags="$flags --quick"
i=0
while [ $i -lt "$RUNS" ]; do
    "$JAX_PYTHON" benchmarks/workloads.py --impl jax --json "$OUT/jax.json" $flags
    JXKERNEL_COMPILATION_CACHE=0 "$PYTHON" benchmarks/workloads.py --impl jxkernel \
        --json "$OUT/jxkernel.json" $flags
    i=$((i + 1))
done
"$PYTHON" benchmarks/workloads.py --table "$OUT/jax.json" "$OUT/jxkernel.json"
