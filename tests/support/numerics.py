"""How the tests compare numbers: exactly where exactness holds on every CPU, in ulps elsewhere.

XLA's CPU code generation and LAPACK pick kernels by CPU (vector width, FMA contraction,
blocking), so a float recorded on one machine can differ in its last bits on another, for
JAX as for us. The suite compiles with XLA's optimizations mostly off (conftest.py), which
contracts no a*b+c into an FMA, while JAX recorded its values with them on: the bounds cover
both kinds of code. Integers, booleans, shapes, dtypes and PRNG bits are the same everywhere and
are compared exactly; floats that pass through transcendental functions, reductions,
LAPACK or XLA's code generation are compared with `assert_allclose_ulp` and a bound in
units in the last place of their dtype.

    >>> assert_allclose_ulp(np.float32([1.0, 2.0]), np.float32([1.0, np.nextafter(2, 3)]), ulps=1)

Bounds used across the suite (a looser one says why where it is used):

    ELEMENTWISE  transcendental functions: XLA's vectorized approximations differ per ISA
    REDUCTION    sums and dot products: summation order follows the vector width
    LAPACK       factorizations and solves: blocked kernels chosen per CPU
"""
import doctest
import os
import re

import ml_dtypes
import numpy as np

import gpu_tier

ELEMENTWISE = 4
REDUCTION = 16
LAPACK = 64


def xla_fuses_multiply_adds(cpu_flags: str | None = None, xla_flags: str | None = None) -> bool:
    """Whether XLA's CPU code here fuses the multiply-adds of its own formulas (float32 exp,
    log, tanh, logistic): the CPU has FMA3 and `--xla_cpu_max_isa` leaves it (SSE4_2 and AVX
    have none: scripts/test_other_cpus.sh's oldest configuration, a Sandy Bridge). The NumPy
    backend's formulas fuse them on every CPU, so they are XLA's bit for bit only where this is
    True; elsewhere XLA's own exp moves an ulp and its tanh up to 5 (measured under the AVX
    cap), and a test compares within ELEMENTWISE. Not knowing (no /proc/cpuinfo, another
    architecture) counts as False. `cpu_flags` and `xla_flags` default to this machine's
    /proc/cpuinfo and $XLA_FLAGS.

    >>> xla_fuses_multiply_adds("flags : avx fma avx2", "--xla_cpu_max_isa=AVX")
    False
    """
    if cpu_flags is None:
        cpu_flags = open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else ""
    if xla_flags is None:
        xla_flags = os.environ.get("XLA_FLAGS", "")
    caps = re.findall(r"--xla_cpu_max_isa=(\S+)", xla_flags)
    # a word of the flags: "fma4" (AMD's Bulldozer) is not FMA3, which XLA's code uses
    return "fma" in cpu_flags.split() and (not caps or caps[-1].upper() not in ("SSE4_2", "AVX"))

def ulp_of(magnitude: np.ndarray, dtype) -> np.ndarray:
    """The spacing of `dtype` at each |value| (float64 in and out); subnormals get the smallest.

    >>> float(ulp_of(np.float64(1.0), np.float32))
    1.1920928955078125e-07
    """
    info = ml_dtypes.finfo(dtype)
    magnitude = np.maximum(np.abs(np.asarray(magnitude, np.float64)), float(info.smallest_normal))
    return np.exp2(np.floor(np.log2(magnitude)) - info.nmant)


def ulp_distance(actual, expected, *, scale=None) -> np.ndarray:
    """|actual - expected| in ulps of expected's dtype, measured at max(|expected|, scale).

    `scale` (a number or an array broadcasting against the values) measures the error against
    a larger magnitude than each element's own: results of cancellation (a sum close to zero,
    an orthogonal factor's small entries) are only as exact as the inputs' scale allows.
    Equal values (infinities included) are 0 apart; NaN against NaN is 0, NaN against a number inf.
    """
    actual, expected = np.asarray(actual), np.asarray(expected)
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    magnitude = np.abs(e) if scale is None else np.maximum(np.abs(e), np.abs(scale))
    with np.errstate(invalid="ignore"):
        distance = np.abs(a - e) / ulp_of(magnitude, expected.dtype)
    both_nan = np.isnan(a) & np.isnan(e)
    distance = np.where(a == e, 0.0, distance)           # equal infinities give nan above
    distance = np.where(both_nan, 0.0, np.where(np.isnan(distance), np.inf, distance))
    return distance


def assert_allclose_ulp(actual, expected, ulps: int, *, scale=None, err_msg: str = "",
                        gpu: str | None = None) -> None:
    """Assert same shape and dtype, and values within `ulps` units in the last place.

    Integer and boolean arrays are compared exactly whatever `ulps` says. Complex values are
    compared part by part, each measured at the magnitude of the complex expected value.
    See `ulp_distance` for `scale`. `gpu` names the entry of gpu_tier.TOLERANCES that holds
    instead in the GPU tier (scripts/test_gpu.sh), where the GPU's floats differ (TF32
    matmuls, flushed subnormals); on the CPU it changes nothing.
    """
    actual, expected = np.asarray(actual), np.asarray(expected)
    where = f" ({err_msg})" if err_msg else ""
    assert actual.shape == expected.shape, f"shape {actual.shape} != {expected.shape}{where}"
    assert actual.dtype == expected.dtype, f"dtype {actual.dtype} != {expected.dtype}{where}"
    if not _is_float(expected.dtype):
        np.testing.assert_array_equal(actual, expected, err_msg=err_msg)
        return
    if gpu is not None:
        tolerance = gpu_tier.TOLERANCES[gpu]        # a wrong name fails on the CPU too
        if gpu_tier.ON_GPU:
            assert_close_on_gpu(actual, expected, tolerance, scale=scale, err_msg=err_msg)
            return
    if np.iscomplexobj(expected):
        size = np.abs(expected) if scale is None else np.maximum(np.abs(expected), np.abs(scale))
        assert_allclose_ulp(actual.real, expected.real, ulps, scale=size, err_msg=f"{err_msg} real")
        assert_allclose_ulp(actual.imag, expected.imag, ulps, scale=size, err_msg=f"{err_msg} imag")
        return
    distance = ulp_distance(actual, expected, scale=scale)
    if distance.size and distance.max() > ulps:
        worst = np.unravel_index(np.argmax(distance), distance.shape)
        bad = int((distance > ulps).sum())
        raise AssertionError(
            f"{bad} of {distance.size} values differ by more than {ulps} ulps of {expected.dtype}"
            f"{where}; worst {distance[worst]:.3g} ulps at index {tuple(int(i) for i in worst)}:"
            f" got {actual[worst]!r}, want {expected[worst]!r}")


def assert_close_on_gpu(actual, expected, tolerance, *, scale=None, err_msg: str = "") -> None:
    """The GPU tier's comparison: |actual - expected| <= tolerance.rtol * max(|expected|,
    scale, the largest |expected|), subnormals flushed to zero first if the tolerance says so."""
    a = np.asarray(actual).astype(np.complex128 if np.iscomplexobj(actual) else np.float64)
    e = np.asarray(expected).astype(a.dtype)
    if tolerance.flush_subnormals:
        tiny = float(ml_dtypes.finfo(np.asarray(expected).dtype).smallest_normal)
        a, e = (np.where(np.abs(x) < tiny, 0, x) for x in (a, e))
    largest = np.abs(e[np.isfinite(e)]).max(initial=0)
    size = np.maximum(np.abs(e), largest if scale is None else np.maximum(largest, np.abs(scale)))
    # a result narrower than float32 (bfloat16, float16) is rounded once to its own dtype on
    # either side, from sums in another order: one of its ulps apart, more than TF32's bound
    dtype = np.asarray(expected).dtype
    rtol = tolerance.rtol
    if dtype.kind in "fV" and dtype.itemsize < 4:      # ml_dtypes' bfloat16 is kind V
        rtol = max(rtol, 2 * float(ml_dtypes.finfo(dtype).eps))
    with np.errstate(invalid="ignore"):
        bad = ~((np.abs(a - e) <= rtol * size) | (a == e) | (np.isnan(a) & np.isnan(e)))
    if bad.any():
        worst = np.unravel_index(np.argmax(np.where(bad, np.abs(a - e), -1)), bad.shape)
        raise AssertionError(
            f"{int(bad.sum())} of {bad.size} values differ by more than {rtol:g} of "
            f"their scale (GPU tier: {tolerance.why}){f' ({err_msg})' if err_msg else ''}; "
            f"at index {tuple(int(i) for i in worst)}: got {a[worst]!r}, want {e[worst]!r}")


def assert_matches_recorded(ours: dict, theirs: dict, what: str) -> None:
    """A program's named results against JAX's recorded ones: entries named "*_values" are
    float32 results of sums and products (within REDUCTION ulps at their largest magnitude),
    everything else (texts, ints, booleans, error classes) exactly."""
    assert sorted(ours) == sorted(theirs), what
    for name, want in theirs.items():
        got = ours[name]
        if name.endswith("_values"):
            want = np.asarray(want, np.float32)
            assert_allclose_ulp(np.asarray(got, np.float32), want, REDUCTION,
                                scale=np.abs(want).max(initial=0), err_msg=f"{what}.{name}")
        else:
            assert got == want, f"{what}.{name}:\n{got}\n!=\n{want}"


def assert_bits_close(got, want, ulps, err_msg: str = "") -> None:
    """A recorded answer (tests/data/recorded_bits.py's, or any JSON value) against ours:
    exactly, or, with `ulps` and an array's bits, dtype and shape exactly and the floats they
    encode within `ulps`."""
    if ulps is None or not isinstance(want, dict):
        assert got == want, err_msg
        return
    assert (got["dtype"], got["shape"]) == (want["dtype"], want["shape"]), err_msg
    view = np.dtype(f"u{np.dtype(want['dtype']).itemsize}")

    def floats(a):
        return np.array(a["bits"], view).view(want["dtype"]).reshape(want["shape"])
    assert_allclose_ulp(floats(got), floats(want), ulps, err_msg=err_msg)


def assert_tree_close(got, want, ulps: int, *, dtype=np.float32, err_msg: str = "") -> None:
    """A recorded JSON-like answer (dicts, lists, strings, ints, floats) against ours: the
    same structure and everything exactly, but for the Python floats of `want`, which `got`
    matches within `ulps` of `dtype` (the dtype the floats were computed in): what a case
    computed through transcendental functions, sums or LAPACK gives on another CPU.

    >>> assert_tree_close({"value": [0.8414709568023682, 2]}, {"value": [0.84147101, 2]}, 1)
    """
    where = f" ({err_msg})" if err_msg else ""
    if isinstance(want, float):
        assert isinstance(got, (float, int)) and not isinstance(got, bool), \
            f"{got!r} != {want!r}{where}"
        assert_allclose_ulp(np.asarray(got, dtype), np.asarray(want, dtype), ulps,
                            err_msg=err_msg)
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), f"{got!r} != {want!r}{where}"
        for key in want:
            assert_tree_close(got[key], want[key], ulps, dtype=dtype, err_msg=f"{err_msg}.{key}")
    elif isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), \
            f"{got!r} != {want!r}{where}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_tree_close(g, w, ulps, dtype=dtype, err_msg=f"{err_msg}[{i}]")
    else:
        assert got == want, f"{got!r} != {want!r}{where}"


def trees_agree(got, want, ulps: int, *, dtype=np.float32) -> bool:
    """Whether `assert_tree_close(got, want, ulps, dtype=dtype)` passes (for tests that list
    every case that differs before they fail)."""
    try:
        assert_tree_close(got, want, ulps, dtype=dtype)
    except AssertionError:
        return False
    return True


def _is_float(dtype: np.dtype) -> bool:
    """NumPy's inexact types and ml_dtypes' floats (bfloat16, float8_*: NumPy calls them void)."""
    if np.issubdtype(dtype, np.inexact):
        return True
    try:
        ml_dtypes.finfo(dtype)
    except ValueError:
        return False
    return True


# a printed real, or a complex number's part (`0.36787954+0.60715777j`: its `j` is dropped)
_NUMBER = re.compile(r"(?:[-+]|(?<![\w.]))(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?=j?(?![\w.]))"
                     r"|\b(?:nan|inf)\b")


class UlpOutputChecker(doctest.OutputChecker):
    """doctest's comparison, and where the text differs, the same text around numbers that agree
    within `ulps` of the printed dtype, measured at the example's largest printed |number|.

    Docstrings print results in full as the machine that wrote them computed them; on another
    CPU a last bit may move, and with it the printed digits (or a rounded zero's sign). The
    dtype is the narrowest float named in the expected text, float32 (the default) if none is.

    >>> UlpOutputChecker(ulps=1).check_output("Array([1., 2.], dtype=float32)",
    ...                                       "Array([1.       , 1.9999999], dtype=float32)", 0)
    True
    >>> UlpOutputChecker(ulps=3).check_output("Array(0.36787954+0.60715777j, dtype=complex64)",
    ...                                       "Array(0.36787945+0.60715765j, dtype=complex64)", 0)
    True
    """

    def __init__(self, ulps: int = ELEMENTWISE):
        self.ulps = ulps

    def check_output(self, want, got, optionflags):
        if super().check_output(want, got, optionflags):
            return True
        text = lambda s: [re.sub(r"\s", "", part) for part in _NUMBER.split(s)]
        if text(want) != text(got):          # NumPy pads arrays to their widest number
            return False
        dtype = next((np.dtype(getattr(ml_dtypes, name, name)) for name in
                      ("float8_e4m3fn", "float8_e5m2", "bfloat16", "float16", "float32",
                       "float64") if name in want.replace("complex64", "float32")
                      .replace("complex128", "float64")), np.dtype(np.float32))
        numbers = lambda s: np.array(_NUMBER.findall(s), np.float64).astype(dtype)
        w, g = numbers(want), numbers(got)
        finite = np.abs(w[np.isfinite(w)].astype(np.float64))
        scale = finite.max() if finite.size else None
        return bool((ulp_distance(g, w, scale=scale) <= self.ulps).all())
