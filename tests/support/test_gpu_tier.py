"""The GPU tier's tables (tests/support/gpu_tier.py): each entry must name what exists, and the
tier's comparison must fail where it should. Both hold on any machine."""
import json
import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import jxkernel
import gpu_tier
import locations  # tests/support: the repository's folders
from numerics import assert_close_on_gpu


def test_every_cpu_only_case_names_a_collected_test(request):
    # a test this run collected is one (in the whole suite each xdist worker collects them
    # all); the rest (a run of a few files, or -k) are looked for in a collection of their
    # files alone, a pytest of its own (~3.5 s of CPU for the 47 files)
    here = {item.nodeid for item in request.session.items}
    missing = [nodeid for nodeid in gpu_tier.CPU_ONLY_CASES if nodeid not in here]
    if not missing:
        return
    files = sorted({nodeid.split("::")[0] for nodeid in missing})
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           "--collect-only", *files], cwd=locations.ROOT, capture_output=True,
                          text=True, timeout=300)
    collected = {line.strip() for line in done.stdout.splitlines() if "::" in line}
    stale = [nodeid for nodeid in missing if nodeid not in collected]
    assert collected and not stale, stale or done.stdout[-2000:] + done.stderr[-2000:]


def test_a_narrow_result_is_allowed_one_of_its_own_roundings():
    # bfloat16: one ulp at 5.4 is 2**-5, 0.6 % of the value, more than TF32's 2**-9
    want = np.asarray([5.375, 1.0], ml_dtypes.bfloat16)
    got = np.asarray([5.40625, 1.0], ml_dtypes.bfloat16)
    assert_close_on_gpu(got, want, gpu_tier.TOLERANCES["tf32"])
    with pytest.raises(AssertionError, match="differ by more than"):
        assert_close_on_gpu(np.float32([5.40625, 1.0]), np.float32([5.375, 1.0]),
                            gpu_tier.TOLERANCES["tf32"])


@pytest.mark.xla_only("XLA text")      # it exports a StableHLO module
def test_the_parity_script_gives_the_cpus_answers(tmp_path):
    # scripts/gpu_parity.py runs JAX and jxkernel on the same GPU (docs/gpu.md); here its
    # jxkernel side on the CPU, whose answers are the ones the GPU's differ from
    done = subprocess.run([sys.executable, "scripts/gpu_parity.py", "jxkernel"],
                          cwd=locations.ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": locations.ROOT})
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout)
    assert got["platform names"]["platform"] == jxkernel.default_backend()
    assert got["debug.print inside jit"] == {"printed": "x is 2.0", "value": 3.0}
    assert got["pure_callback inside jit"] == [0.0, 3.0, 6.0]
    assert got["int8 dot accumulates in int32"]["jit"] == [[30000, 30000], [30000, 30000]]
    assert got["float8 conversions round"]["e4m3fn jit"][3:] == [0.1015625, 192.0, 0.001953125]
    assert got["export for cuda round-trips"]["value"] == [2.0, 2.0, 2.0]
    assert got["export for cpu and cuda"] == {"platforms": ["cpu", "cuda"], "value": [2.0, 2.0]}
    assert got["JAX_PLATFORMS=cpu, devices('gpu')"].startswith(
        "RuntimeError Unknown backend: 'gpu' requested")
    if jxkernel.default_backend() == "cpu":       # XLA's CPU flushes subnormals
        assert got["subnormal inputs"]["log"] == {"eager": [-np.inf, 0.0], "jit": [-np.inf, 0.0]}
        assert got["export for cpu and cuda picks this platform's branch"] == [0.0, 0.0]
    path = tmp_path / "jx.json"
    path.write_text(done.stdout)
    compared = subprocess.run([sys.executable, "scripts/gpu_parity.py", "--compare", str(path),
                               str(path)], cwd=locations.ROOT, capture_output=True, text=True)
    assert compared.stdout.strip() == f"{len(got)} of {len(got)} checks the same"


def test_the_session_script_counts_a_stopped_verbose_run(tmp_path):
    """scripts/gpu_session.py outcomes: both of pytest -vv's line forms (xdist's and one
    process's), node ids with spaces, per file, and the failures listed."""
    log = tmp_path / "log.txt"
    log.write_text("[gw0] [  5%] PASSED tests/a/test_x.py::test_one[k + k] \n"
                   "[gw1] [ 10%] FAILED tests/a/test_x.py::test_two \n"
                   "tests/b/test_y.py::test_three SKIPPED (CPU only) [ 15%]\n"
                   "tests/b/test_y.py::test_four[eager -k] FAILED [ 20%]\n"
                   "(the run stopped here)\n")
    done = subprocess.run([sys.executable, os.path.join(locations.ROOT, "scripts",
                                                        "gpu_session.py"), "outcomes", str(log)],
                          capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == [
        "tests/a/test_x.py {'PASSED': 1, 'FAILED': 1}", "tests/b/test_y.py {'SKIPPED': 1, "
        "'FAILED': 1}", "tests/a/test_x.py::test_two", "tests/b/test_y.py::test_four[eager -k]"]


def test_the_session_reruns_every_test_held_for_recorded_cpu_values():
    """scripts/gpu_session.py recorded: the files holding the marker and, from CPU_ONLY_CASES,
    each case given that reason in another file, once each (a grep for the marker missed them)."""
    import importlib.util
    import pathlib
    spec = importlib.util.spec_from_file_location(
        "gpu_session", os.path.join(locations.ROOT, "scripts", "gpu_session.py"))
    gpu_session = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gpu_session)
    targets = gpu_session.recorded_targets(pathlib.Path(locations.ROOT))
    files = [t for t in targets if "::" not in t]
    cases = [t for t in targets if "::" in t]
    held = [nodeid for nodeid, reason in gpu_tier.CPU_ONLY_CASES.items()
            if reason == "recorded CPU values"]
    assert files and cases and len(set(targets)) == len(targets)
    assert all(nodeid in cases or nodeid.split("::")[0] in files for nodeid in held)
    assert not [c for c in cases if c.split("::")[0] in files]
    assert all('cpu_only("recorded CPU values")' in open(os.path.join(locations.ROOT, f)).read()
               for f in files)
