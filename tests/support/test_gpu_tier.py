"""The GPU tier's tables (tests/support/gpu_tier.py): each entry must name what exists, and the
tier's comparison must fail where it should. Both hold on any machine."""
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import gpu_tier
import locations  # tests/support: the repository's folders
from numerics import assert_close_on_gpu


def test_every_cpu_only_case_names_a_collected_test():
    files = sorted({nodeid.split("::")[0] for nodeid in gpu_tier.CPU_ONLY_CASES})
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           "--collect-only", *files], cwd=locations.ROOT, capture_output=True,
                          text=True, timeout=300)
    collected = {line.strip() for line in done.stdout.splitlines() if "::" in line}
    stale = [nodeid for nodeid in gpu_tier.CPU_ONLY_CASES if nodeid not in collected]
    assert collected and not stale, stale or done.stdout[-2000:] + done.stderr[-2000:]


def test_a_narrow_result_is_allowed_one_of_its_own_roundings():
    # bfloat16: one ulp at 5.4 is 2**-5, 0.6 % of the value, more than TF32's 2**-9
    want = np.asarray([5.375, 1.0], ml_dtypes.bfloat16)
    got = np.asarray([5.40625, 1.0], ml_dtypes.bfloat16)
    assert_close_on_gpu(got, want, gpu_tier.TOLERANCES["tf32"])
    with pytest.raises(AssertionError, match="differ by more than"):
        assert_close_on_gpu(np.float32([5.40625, 1.0]), np.float32([5.375, 1.0]),
                            gpu_tier.TOLERANCES["tf32"])
