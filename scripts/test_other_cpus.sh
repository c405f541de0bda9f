#!/bin/sh
# Run the tests as three other CPUs would compute them, on this machine. XLA's CPU code
# generation, OpenBLAS (LAPACK for jaxlib, through scipy) and NumPy's ufunc loops (float32
# sin/exp/log, float64 tan/log2, argsort, ...: the NumPy backend's and the tests' references)
# choose kernels per CPU, so floats can differ in their last bits between machines; the suite
# must pass on all of them.
#   sh scripts/test_other_cpus.sh                               # the whole suite, 3 times
#   sh scripts/test_other_cpus.sh tests/scipy/test_scipy_linalg.py    # arguments go to pytest
# Each configuration caps XLA's instruction set, picks OpenBLAS's kernels for that CPU and turns
# off NumPy's run-time dispatch to what that CPU lacks (NPY_DISABLE_CPU_FEATURES: no AVX-512
# under AVX2, only NumPy's baseline under AVX, nearest to Pyodide's NumPy, which has no SIMD).
# AVX (Sandy Bridge: no FMA, the widest rounding differences) is the oldest: jaxlib's wheels
# need AVX, and below it XLA cannot even compile float16 conversions.
# Needs .venv (sh scripts/test.sh makes it). Each run gets a fresh compilation-cache folder.
set -e
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || { echo "no .venv: run sh scripts/test.sh first" >&2; exit 2; }
# NumPy's dispatch targets, as this NumPy names them (2.4 groups them: X86_V3, X86_V4, ...;
# 2.0-2.3 names each extension), that a CPU with only the features named lacks. Read from NumPy
# itself: it only warns (an ImportWarning, hidden by default) of a name it does not know, and
# turning X86_V3 off leaves X86_V4 on, so each target above the CPU is named.
numpy_beyond() {
    .venv/bin/python -c 'import sys
from numpy._core._multiarray_umath import __cpu_dispatch__
print(" ".join(t for t in __cpu_dispatch__ if t not in sys.argv[1:]))' "$@"
}
# exits nonzero unless NumPy knows every name in $1 and has each of them off
numpy_has_off() {
    NPY_DISABLE_CPU_FEATURES="$1" .venv/bin/python -W error::ImportWarning -c 'import sys
from numpy._core._multiarray_umath import __cpu_features__
sys.exit(any(__cpu_features__[t] for t in sys.argv[1:]))' $1
}
failed=""
for config in "AVX2 Haswell" "AVX2 Zen" "AVX Sandybridge"; do
    isa=${config% *}
    blas=${config#* }
    case $isa in
        AVX2) npy_off=$(numpy_beyond SSSE3 SSE41 POPCNT SSE42 AVX F16C FMA3 AVX2 X86_V3) ;;
        AVX) npy_off=$(numpy_beyond SSSE3 SSE41 POPCNT SSE42 AVX) ;;
    esac
    numpy_has_off "$npy_off" || { echo "NumPy did not turn off: $npy_off" >&2; exit 2; }
    echo "== XLA instruction set $isa, OpenBLAS kernels $blas, NumPy without ${npy_off:-nothing}"
    XLA_FLAGS="--xla_cpu_max_isa=$isa${XLA_FLAGS:+ $XLA_FLAGS}" OPENBLAS_CORETYPE=$blas \
        NPY_DISABLE_CPU_FEATURES="$npy_off${NPY_DISABLE_CPU_FEATURES:+ $NPY_DISABLE_CPU_FEATURES}" \
        .venv/bin/python -m pytest -n 2 -p no:cacheprovider "$@" || failed="$failed $isa/$blas"
done
[ -z "$failed" ] || { echo "failed on:$failed" >&2; exit 1; }
echo "passed on all three"
