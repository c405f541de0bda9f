"""The suite's comparison helper (tests/support/numerics.py): it must fail where it should."""
import ml_dtypes
import numpy as np
import pytest

from numerics import (UlpOutputChecker, assert_allclose_ulp, ulp_distance, ulp_of,
                      xla_fuses_multiply_adds)


def steps(x, n, dtype):
    """x moved n representable values up, in dtype."""
    x = np.asarray(x, dtype)
    for _ in range(n):
        x = np.nextafter(x, np.asarray(np.inf, dtype)) if dtype != ml_dtypes.bfloat16 else \
            (x.view(np.uint16) + 1).view(ml_dtypes.bfloat16)
    return x


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, ml_dtypes.bfloat16])
def test_distance_counts_representable_steps(dtype):
    x = np.asarray([1.5, -3.0, 1000.0], dtype)
    assert ulp_distance(steps(x, 3, dtype), x).tolist() == [3.0, 3.0, 3.0]
    assert_allclose_ulp(steps(x, 3, dtype), x, ulps=3)
    with pytest.raises(AssertionError, match="3 of 3 values differ by more than 2 ulps"):
        assert_allclose_ulp(steps(x, 3, dtype), x, ulps=2)


def test_ulp_of_is_the_dtype_spacing():
    assert float(ulp_of(1.0, np.float32)) == 2.0 ** -23
    assert float(ulp_of(1.0, np.float64)) == 2.0 ** -52
    assert float(ulp_of(3.0, np.float16)) == 2.0 ** -9
    assert float(ulp_of(0.0, np.float32)) == float(np.finfo(np.float32).smallest_normal) * 2.0 ** -23


def test_scale_measures_against_a_larger_magnitude():
    want = np.float32([1e-6, 100.0])
    got = np.float32([1e-6 + 1e-12, 100.0])
    with pytest.raises(AssertionError, match="1 of 2 values"):
        assert_allclose_ulp(got, want, ulps=4)
    assert_allclose_ulp(got, want, ulps=4, scale=100.0)


def test_shape_dtype_and_special_values_must_match():
    with pytest.raises(AssertionError, match="dtype float64 != float32"):
        assert_allclose_ulp(np.float64([1.0]), np.float32([1.0]), ulps=100)
    with pytest.raises(AssertionError, match=r"shape \(2,\) != \(1, 2\)"):
        assert_allclose_ulp(np.zeros(2, np.float32), np.zeros((1, 2), np.float32), ulps=100)
    nan_inf = np.float32([np.nan, np.inf, -np.inf])
    assert_allclose_ulp(nan_inf, nan_inf, ulps=0)
    with pytest.raises(AssertionError, match="worst inf ulps at index"):
        assert_allclose_ulp(np.float32([1.0, np.inf, -np.inf]), nan_inf, ulps=1000)
    with pytest.raises(AssertionError):
        assert_allclose_ulp(np.float32([np.nan, np.inf, np.inf]), nan_inf, ulps=1000)


def test_integers_exact_and_complex_part_by_part():
    with pytest.raises(AssertionError):
        assert_allclose_ulp(np.int32([1, 2]), np.int32([1, 3]), ulps=10)
    want = np.complex64([3 + 4j])
    got = want + np.complex64(6j * 2.0 ** -21)    # the ulp of float32 at |z| = 5 is 2**-21
    assert ulp_distance(got.imag, want.imag, scale=np.abs(want)).item() == 6.0
    assert_allclose_ulp(got, want, ulps=6)
    with pytest.raises(AssertionError, match="imag"):
        assert_allclose_ulp(got, want, ulps=5)


@pytest.mark.parametrize("cpu_flags, xla_flags, fuses", [
    ("flags : sse4_2 avx fma avx2", "", True),
    ("flags : sse4_2 avx fma avx2", "--xla_cpu_max_isa=AVX2", True),
    ("flags : sse4_2 avx fma avx2", "--xla_cpu_max_isa=AVX512", True),
    ("flags : sse4_2 avx fma avx2", "--xla_cpu_max_isa=AVX", False),
    ("flags : sse4_2 avx fma avx2", "--xla_dump_to=d --xla_cpu_max_isa=sse4_2", False),
    ("flags : sse4_2 avx fma avx2", "--xla_cpu_max_isa=AVX --xla_cpu_max_isa=AVX2", True),
    ("flags : sse4_2 avx", "", False),                  # Sandy Bridge
    ("flags : sse4_2 avx fma4", "", False),             # Bulldozer's FMA4 is not FMA3
    ("Features : fp asimd", "", False),                 # another architecture: not known
    ("", "", False),
])
def test_xla_fuses_multiply_adds_where_the_cpu_and_the_cap_have_fma(cpu_flags, xla_flags, fuses):
    assert xla_fuses_multiply_adds(cpu_flags, xla_flags) is fuses

def test_docstring_examples():
    import doctest

    import numerics
    assert doctest.testmod(numerics).failed == 0


def test_doctest_checker_allows_last_bits_only():
    checker = UlpOutputChecker(ulps=1)
    want = "Array([1., 2.], dtype=float32)"
    assert checker.check_output(want, "Array([1.       , 1.9999999], dtype=float32)", 0)
    assert not checker.check_output(want, "Array([1.       , 1.9999995], dtype=float32)", 0)
    assert not checker.check_output(want, "Array([1., 2.], dtype=float64)", 0)   # other text
    assert not checker.check_output(want, "Array([1., 2., 3.], dtype=float32)", 0)
    # float64 named: its ulps, not float32's
    assert not checker.check_output("1.0 (float64)", "0.99999994 (float64)", 0)
    # complex numbers: each part within the ulps of its real dtype, a sign is text
    want = "Array([1.+0.j, 0.5-0.25j], dtype=complex64)"
    assert checker.check_output(want, "Array([1.       +0.j , 0.49999997-0.25j], dtype=complex64)", 0)
    assert not checker.check_output(want, "Array([1.       +0.j , 0.49999985-0.25j], dtype=complex64)", 0)
    assert not checker.check_output(want, "Array([1.+0.j, 0.5+0.25j], dtype=complex64)", 0)
    assert not checker.check_output("(1+0j) complex128", "(0.9999999+0j) complex128", 0)


def test_the_gpu_tiers_comparison():
    import gpu_tier
    from numerics import assert_close_on_gpu
    tf32 = gpu_tier.TOLERANCES["tf32"]
    want = np.float32([1.0, -2.0, 1e-3])
    # TF32's rounding of the inputs: ~2**-11 relative, measured at the case's largest |value|
    assert_close_on_gpu(want * np.float32(1 + 2 ** -11), want, tf32)
    with pytest.raises(AssertionError, match="GPU tier: float32 dot_general/conv"):
        assert_close_on_gpu(want * np.float32(1 + 2 ** -7), want, tf32)
    # flushed subnormals compare as zero; a NaN only with a NaN
    assert_close_on_gpu(np.float32([0.0, np.nan]), np.float32([1e-40, np.nan]),
                        gpu_tier.TOLERANCES["subnormal"])
    with pytest.raises(AssertionError):
        assert_close_on_gpu(np.float32([np.nan]), np.float32([1.0]), tf32)
    # on the CPU the entry changes nothing, and a wrong name fails there too
    if not gpu_tier.ON_GPU:
        with pytest.raises(AssertionError, match="ulps"):
            assert_allclose_ulp(want * np.float32(1 + 2 ** -11), want, 16, gpu="tf32")
    with pytest.raises(KeyError):
        assert_allclose_ulp(want, want, 1, gpu="nope")
    with pytest.raises(ValueError, match="the reason must be one of"):
        gpu_tier.check_reason("because", "here")
