"""The GPU test tier (`sh scripts/test_gpu.sh`, docs/gpu.md): the suite on an NVIDIA GPU, with
expectations that hold there. It never runs in CI (CI has no GPU); on the CPU nothing here
changes a test.

Two things differ on a GPU, and each has one home here:

- **Floats.** `TOLERANCES` is the one table of where a GPU's floats differ from the CPU's and
  what a test allows then. A test that compares floats where the GPU differs names the entry:
  `assert_allclose_ulp(got, want, REDUCTION, gpu="tf32")` (tests/support/numerics.py) keeps its
  ulp bound on the CPU and, in the GPU tier, compares within the entry's bound instead.
- **Tests whose expectation is the CPU's.** `@pytest.mark.cpu_only("recorded CPU values")`
  (or `pytestmark = pytest.mark.cpu_only(...)` for a whole file) skips a test in the GPU tier,
  saying why; the reason must be one of `REASONS` (tests/conftest.py checks it at collection),
  so the tier's report counts the skips by kind.

    >>> TOLERANCES["tf32"].rtol
    0.001953125
"""
from __future__ import annotations

import dataclasses
import os

# scripts/test_gpu.sh sets it; nothing else should
ON_GPU = os.environ.get("JXKERNEL_TEST_TIER") == "gpu"


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """What a test compares with in the GPU tier instead of its CPU ulp bound: |got - want| <=
    rtol * max(|want|, scale) (scale: the case's largest |want|, as results of a contraction are
    only as exact as their inputs' magnitude), after flushing float32/float16 subnormals of
    both sides to zero when `flush_subnormals`."""
    rtol: float
    flush_subnormals: bool
    why: str


TOLERANCES = {
    # TF32: on Ampere and later, XLA's GPU backend runs float32 matmuls and convolutions at
    # JAX's default precision on tensor cores with inputs rounded to 10 explicit mantissa bits
    # (relative error 2**-11 per input); products summed in float32. 2**-9 of the result's
    # scale leaves a factor of 2 for the two rounded inputs and 2 for the accumulation.
    "tf32": Tolerance(2.0 ** -9, True,
                      "float32 dot_general/conv at default precision run in TF32 on the GPU"),
    # GPU kernels flush subnormal inputs and results to zero (FTZ); values past that are as
    # the CPU's within the test's own kind of rounding (transcendentals: CUDA's libdevice)
    "subnormal": Tolerance(2.0 ** -20, True,
                           "GPU kernels flush float32/float16 subnormals to zero"),
    # CUDA's libdevice and XLA's GPU approximations of exp, log, tanh, erf... are other
    # polynomials than XLA's CPU ones: a few ulps more than the CPU's 4
    "transcendental": Tolerance(2.0 ** -19, True,
                                "exp/log/trig/erf are libdevice's on the GPU, not XLA CPU's"),
}

# Why a test holds on the CPU only: each kind, with what a GPU does instead.
REASONS = {
    "recorded CPU values": "compares floats or RngBitGenerator bits JAX recorded on a CPU "
                           "(tests/data): the GPU's kernels round differently",
    "simulated CPU devices": "needs several CPU devices (JXKERNEL_CPU_DEVICES or "
                             "--xla_force_host_platform_device_count) as the default backend; "
                             "on a GPU machine the default backend is the GPU's",
    "CPU text": "expects the CPU's own text (CpuDevice, TFRT_CPU, 'cpu:0' as the default "
                "device, the CPU's HLO or custom calls)",
    "CPU backend": "tests what only the CPU backend does (its LAPACK custom calls, its compile "
                   "options, host memory, no allocator statistics)",
}


def check_reason(reason: str, where: str) -> None:
    """A cpu_only marker's reason must be one of REASONS (the tier counts skips by kind)."""
    if reason not in REASONS:
        raise ValueError(f"{where}: cpu_only({reason!r}): the reason must be one of "
                         f"{sorted(REASONS)} (tests/support/gpu_tier.py)")
