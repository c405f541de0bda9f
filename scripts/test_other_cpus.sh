#!/bin/sh
# Run the tests as three other CPUs would compute them, on this machine. XLA's CPU code
# generation and OpenBLAS (LAPACK for jaxlib, through scipy) choose kernels per CPU, so floats
# can differ in their last bits between machines; the suite must pass on all of them.
#   sh scripts/test_other_cpus.sh                               # the whole suite, 3 times
#   sh scripts/test_other_cpus.sh tests/scipy/test_scipy_linalg.py    # arguments go to pytest
# Each configuration caps XLA's instruction set and picks OpenBLAS's kernels for that CPU.
# AVX (Sandy Bridge: no FMA, the widest rounding differences) is the oldest: jaxlib's wheels
# need AVX, and below it XLA cannot even compile float16 conversions.
# Needs .venv (sh scripts/test.sh makes it). Each run gets a fresh compilation-cache folder.
set -e
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || { echo "no .venv: run sh scripts/test.sh first" >&2; exit 2; }
failed=""
for config in "AVX2 Haswell" "AVX2 Zen" "AVX Sandybridge"; do
    isa=${config% *}
    blas=${config#* }
    echo "== XLA instruction set $isa, OpenBLAS kernels $blas"
    XLA_FLAGS="--xla_cpu_max_isa=$isa${XLA_FLAGS:+ $XLA_FLAGS}" OPENBLAS_CORETYPE=$blas \
        .venv/bin/python -m pytest -n 2 -p no:cacheprovider "$@" || failed="$failed $isa/$blas"
done
[ -z "$failed" ] || { echo "failed on:$failed" >&2; exit 1; }
echo "passed on all three"
