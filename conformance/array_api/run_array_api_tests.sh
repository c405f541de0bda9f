#!/bin/sh
# Run data-apis' array-api-tests against jxkernel.numpy and jax.numpy with the same settings,
# and write both results and their comparison to conformance/array_api/results/.
#
#   sh conformance/array_api/run_array_api_tests.sh [ARRAY_API_TESTS_DIR]
#
# ARRAY_API_TESTS_DIR is a checkout of https://github.com/data-apis/array-api-tests with its
# `array-api` submodule (git clone --recursive); default conformance/array_api/_work/array-api-tests.
# The script downloads nothing but the pinned packages of requirements.txt (pip, into
# _work/deps). It needs .venv (jxkernel) and .venv-jax (scripts/jax_venv.sh).
# Settings (environment): MAX_EXAMPLES (default 2), TIMEOUT_S per library (default 1200),
# LIBS (default "jxkernel jax"), X64 (default 1; 0 runs both in 32-bit mode), OUT (default
# results/), PYTEST_ARGS (extra arguments, e.g. a -k filter).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/conformance/array_api
SUITE=${1:-${ARRAY_API_TESTS_DIR:-$HERE/_work/array-api-tests}}
DEPS=$HERE/_work/deps
OUT=${OUT:-$HERE/results}
MAX_EXAMPLES=${MAX_EXAMPLES:-2}
TIMEOUT_S=${TIMEOUT_S:-1200}
LIBS=${LIBS:-"jxkernel jax"}
X64=${X64:-1}

if [ ! -d "$SUITE/array_api_tests" ] || [ ! -d "$SUITE/array-api/spec" ]; then
  echo "No array-api-tests checkout (with its array-api submodule) at $SUITE." >&2
  echo "Get one: git clone --recursive https://github.com/data-apis/array-api-tests $SUITE" >&2
  exit 2
fi
if [ ! -d "$DEPS/hypothesis" ]; then
  "$ROOT/.venv/bin/python" -m pip install -q --no-deps --target "$DEPS" -r "$HERE/requirements.txt"
fi
mkdir -p "$OUT" "$HERE/_work/json"

run_one() {  # library-name python namespace-module
  echo "== $1: array-api-tests, max-examples $MAX_EXAMPLES" >&2
  # The same environment for both: x64 on unless X64=0 (the standard's 64-bit defaults; JAX's
  # own CI runs this suite), API version 2024.12 (both report it), derandomized examples.
  (cd "$SUITE" && PYTHONPATH="$DEPS" ARRAY_API_TESTS_MODULE=$3 ARRAY_API_TESTS_VERSION=2024.12 \
     JAX_ENABLE_X64=$X64 JAX_PLATFORMS=cpu \
     JXKERNEL_COMPILATION_CACHE_DIR="$HERE/_work/xla_cache" \
     nice -n 10 timeout "$TIMEOUT_S" "$2" -m pytest array_api_tests -q -p no:cacheprovider \
       -p no:randomly --max-examples="$MAX_EXAMPLES" --derandomize --disable-deadline \
       --skips-file "$HERE/skips.txt" --json-report --json-report-omit streams log traceback \
       --json-report-file="$HERE/_work/json/$1.json" ${PYTEST_ARGS:-} >"$HERE/_work/json/$1.log" 2>&1) \
    || echo "   pytest exited with $? (failures are expected; 124 means it timed out)" >&2
  tail -n 1 "$HERE/_work/json/$1.log" >&2
}

for lib in $LIBS; do
  case $lib in
    jxkernel) run_one jxkernel "$ROOT/.venv/bin/python" jxkernel.numpy ;;
    jax) run_one jax "$ROOT/.venv-jax/bin/python" jax.numpy ;;
  esac
done
"$ROOT/.venv/bin/python" "$HERE/summarize.py" "$HERE/_work/json" "$OUT" "$MAX_EXAMPLES" "$X64"
