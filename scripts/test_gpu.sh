#!/bin/sh
# The GPU test tier (docs/gpu.md): the suite on an NVIDIA GPU machine, with the expectations that
# hold there. Tests marked cpu_only (recorded CPU values, simulated CPU devices, CPU text, the CPU
# backend itself) are skipped with their reason; float comparisons that name an entry of
# tests/support/gpu_tier.py's TOLERANCES (TF32 matmuls and convolutions, flushed subnormals) use it.
# Never run by CI (it has no GPU). Arguments go to pytest, e.g.
#     sh scripts/test_gpu.sh tests/lax -x
# Installs jxkernel with the CUDA extra the driver takes (python -m jxkernel says which) into
# .venv-gpu (or, with GPU_PYTHON=python3, uses that interpreter's own jaxlib and plugin as
# they are), checks that jxkernel's default backend is the GPU, and writes
# test-artifacts/gpu-junit.xml and test-artifacts/gpu-skips.txt (the skips counted by reason).
set -e
cd "$(dirname "$0")/.."
command -v nvidia-smi >/dev/null || { echo "test_gpu.sh: no nvidia-smi: this is not an NVIDIA GPU machine" >&2; exit 2; }
# the driver's CUDA major version picks the extra, as JAX's own install lines do
cuda=$(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9]*\).*/\1/p' | head -n 1)
case "$cuda" in
    12) extra=cuda12 ;;
    1[3-9]) extra=cuda13 ;;
    *) echo "test_gpu.sh: the driver reports CUDA '$cuda'; jxkernel's GPU extras need 12 or later" >&2; exit 2 ;;
esac
if [ -n "$GPU_PYTHON" ]; then
    # a machine whose Python already has jaxlib, its CUDA plugin and pytest, and no registry to
    # install from (the lab's GPU machines): this checkout runs from its folder, and the fast
    # path is built for that interpreter in place
    py=$GPU_PYTHON
    export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
    "$py" hatch_build.py || echo "test_gpu.sh: the fast path is not built: the tier runs without it" >&2
else
    [ -x .venv-gpu/bin/python ] || python3 -m venv .venv-gpu
    .venv-gpu/bin/python -m pip install -q --disable-pip-version-check uv
    .venv-gpu/bin/python -m uv pip install -q --python .venv-gpu/bin/python -e ".[test,$extra]"
    py=.venv-gpu/bin/python
fi
# the tier is meaningless if jxkernel fell back to the CPU (a plugin that does not match jaxlib)
"$py" -c "
import jxkernel, sys
backend = jxkernel.default_backend()
print('jxkernel', jxkernel.__version__, 'on', jxkernel.devices())
sys.exit(0 if backend == 'gpu' else 'test_gpu.sh: jxkernel started ' + backend + ', not the GPU: python -m jxkernel says why')
"
mkdir -p test-artifacts
# one worker: the tests share one GPU, and XLA's GPU client takes most of its memory
# (XLA_PYTHON_CLIENT_PREALLOCATE=false lets the suite's kernels and subprocesses share it)
export JXKERNEL_TEST_TIER=gpu XLA_PYTHON_CLIENT_PREALLOCATE=false
# (pytest's status through the pipe: a plain `| tee` would report tee's)
{ rc=0; "$py" -m pytest -p no:cacheprovider -rsfE --junitxml=test-artifacts/gpu-junit.xml "$@" \
      || rc=$?; echo $rc > test-artifacts/gpu-status; } | tee test-artifacts/gpu-pytest.txt
status=$(cat test-artifacts/gpu-status)
# the skips by reason, for docs/gpu.md's results
sed -n 's/^SKIPPED \[\([0-9]*\)\] .*: CPU only: \(.*\)$/\1 \2/p' test-artifacts/gpu-pytest.txt |
    awk '{n = $1; $1 = ""; count[substr($0, 2)] += n} END {for (r in count) print count[r], r}' \
    > test-artifacts/gpu-skips.txt || true
cat test-artifacts/gpu-skips.txt
exit $status
