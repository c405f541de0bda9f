"""jxkernel.scipy.signal against JAX's recorded results (tests/data/signal_cases.py, recorded by
reference/make_signal_reference.py), against scipy.signal itself, and its derivatives against
finite differences."""
import functools

import numpy as np
import pytest
from doc_examples import check_docstring_examples
from grads_together import check_grads_together
from numerics import REDUCTION, assert_allclose_ulp
from recorded_modes import assert_cases_match, load
from signal_cases import cases, operands, ulps

import jxkernel as jax
import jxkernel.numpy as jnp
import jxkernel.scipy.signal as signal


@functools.cache
def results(mode: str) -> dict:
    with jax.config.override("jax_enable_x64", mode == "x64"):
        return cases(jax, jnp, signal, mode == "x64")


@pytest.mark.parametrize("mode", ["x32", "x64"])
def test_every_case_matches_jax(mode):
    assert_cases_match(mode, results(mode), load("signal_reference.npz"), ulps)


def _close_to_scipy(got, want, what):
    """float32 results against SciPy's float64 ones on the same float32 inputs: SciPy rounds
    differently (its own FFT and summation order), so REDUCTION ulps of float32 at the
    result's largest magnitude, per point of the transform summed over."""
    got = np.asarray(got)
    want = np.asarray(want).astype(got.dtype)
    assert_allclose_ulp(got, want, 4 * REDUCTION, scale=np.abs(want).max(), err_msg=what)


def test_convolutions_match_scipy():
    import scipy.signal as ss
    ops, got = operands(), results("x32")
    a, b, m, k, c = ops["a"], ops["b"], ops["m"], ops["k"], ops["c"]
    for mode in ("full", "same", "valid"):
        _close_to_scipy(got[f"convolve_{mode}"], ss.convolve(a, b, mode, "direct"), mode)
        _close_to_scipy(got[f"convolve_swapped_{mode}"], ss.convolve(b, a, mode), mode)
        _close_to_scipy(got[f"correlate_{mode}"], ss.correlate(a, b, mode), mode)
        _close_to_scipy(got[f"convolve2d_{mode}"], ss.convolve2d(m, k, mode), mode)
        _close_to_scipy(got[f"correlate2d_{mode}"], ss.correlate2d(m, k, mode), mode)
        _close_to_scipy(got[f"correlate2d_swapped_{mode}"], ss.correlate2d(k, m, mode), mode)
        _close_to_scipy(got[f"fftconvolve2d_{mode}"], ss.fftconvolve(m, k, mode), mode)
    _close_to_scipy(got["correlate_complex"], ss.correlate(a[:4], c, "same"), "complex")


def test_spectral_functions_match_scipy():
    import scipy.signal as ss
    ops, got = operands(), results("x32")
    sig, sig2 = ops["sig"].astype(np.float64), ops["sig2"].astype(np.float64)
    for want, have in zip(ss.stft(sig, nperseg=8), got["stft"]):
        _close_to_scipy(have, want, "stft")
    for want, have in zip(ss.welch(sig, fs=10.0, nperseg=8, noverlap=2), got["welch_segments"]):
        _close_to_scipy(have, want, "welch")
    for want, have in zip(ss.csd(sig, sig2, nperseg=8), got["csd"]):
        _close_to_scipy(have, want, "csd")
    _close_to_scipy(got["detrend_constant"], ss.detrend(sig, type="constant"), "detrend")
    _close_to_scipy(got["detrend_breakpoints_axis0"], ss.detrend(sig.T, axis=0, bp=[15]),
                    "detrend")
    # istft inverts stft. (Its times count the leading axis, here the batch, as JAX's do.)
    t, x = got["istft_roundtrip"]
    _close_to_scipy(x, sig, "istft")
    np.testing.assert_array_equal(np.asarray(t), np.float32([0, 1]))


def test_gradients_of_convolve_and_stft_match_finite_differences():
    """Forward and reverse mode against central differences (check_grads, float32 tolerance)."""
    x = operands()["sig"][0, :16]
    kernel = np.float32([0.5, -1.0, 2.0])

    def convolve_energy(x):
        return (signal.convolve(x, kernel, mode="same") ** 2).sum()

    def stft_magnitude(x):
        return jnp.abs(signal.stft(x, nperseg=8)[2]).sum()

    # each check's evaluations compiled as one program (grads_together.py; the same checks)
    check_grads_together(convolve_energy, (x,), order=1, modes=["fwd", "rev"])
    check_grads_together(stft_magnitude, (x,), order=1, modes=["fwd", "rev"])


def _traced(fun, *args, **kwargs):
    """`fun(*args, **kwargs)` traced only (its checks run while tracing; nothing compiles)."""
    return jax.eval_shape(functools.partial(fun, *args, **kwargs))


def test_bad_arguments_raise_jaxs_errors_naming_them():
    ones = np.ones(8, np.float32)
    with pytest.raises(ValueError, match="mode must be one of .*got mode='middle'"):
        _traced(signal.convolve, ones, ones, mode="middle")
    with pytest.raises(ValueError, match="method='slow'"):
        _traced(signal.convolve, ones, ones, method="slow")
    with pytest.raises(ValueError, match=r"same number of dimensions, got in1.ndim=1"):
        _traced(signal.correlate, ones, ones.reshape(2, 4))
    with pytest.raises(ValueError, match=r"smaller than the other .* \(3, 2\) and \(2, 3\)"):
        _traced(signal.convolve, np.ones((3, 2)), np.ones((2, 3)), mode="valid")
    with pytest.raises(ValueError, match="zero-size arrays"):
        _traced(signal.convolve, ones[:0], ones)
    with pytest.raises(NotImplementedError, match="boundary='wrap'"):
        _traced(signal.convolve2d, np.ones((3, 3)), np.ones((2, 2)), boundary="wrap")
    with pytest.raises(ValueError, match=r"2-dimensional inputs, got shapes \(8,\)"):
        _traced(signal.correlate2d, ones, ones)
    with pytest.raises(ValueError, match="type='quadratic'"):
        _traced(signal.detrend, ones, type="quadratic")
    with pytest.raises(ValueError, match="noverlap=8, nperseg=8"):
        _traced(signal.stft, ones, nperseg=8, noverlap=8)
    with pytest.raises(ValueError, match="nfft=4, nperseg=8"):
        _traced(signal.welch, ones, nperseg=8, nfft=4)
    with pytest.raises(ValueError, match=r"window must be 1-D, got shape \(2, 2\)"):
        _traced(signal.welch, ones, window=np.ones((2, 2)))
    with pytest.raises(ValueError, match="Unknown boundary option 'wrap'"):
        _traced(signal.stft, ones, nperseg=4, boundary="wrap")
    with pytest.raises(ValueError, match='average must be "median" or "mean", got mode'):
        _traced(signal.welch, ones, nperseg=4, average="mode")
    with pytest.raises(ValueError, match=r"Input stft must be at least 2d! Got shape \(8,\)"):
        _traced(signal.istft, ones)
    with pytest.raises(TypeError, match="convolve requires ndarray"):
        _traced(signal.convolve, [1.0, 2.0], ones)
    with pytest.warns(UserWarning, match="nperseg=9 is greater than input_length=8"):
        f, _ = _traced(signal.welch, ones, nperseg=9)
    assert f.shape == (5,)                      # fell back to nperseg=8


def test_docstring_examples():
    check_docstring_examples("jxkernel.scipy.signal")


def test_signal_is_a_lazy_submodule_of_scipy():
    """`import jxkernel` does not load scipy.signal (nor SciPy); attribute access does (in a
    fresh interpreter: test_scipy_submodules.py's test_the_new_submodules_load_on_first_use)."""
    assert jax.scipy.signal is signal
    assert "signal" in dir(jax.scipy)           # listed for tab completion, as JAX's
    assert sorted(signal.__all__) == ["convolve", "convolve2d", "correlate", "correlate2d",
                                      "csd", "detrend", "fftconvolve", "istft", "stft",
                                      "welch"]
    with pytest.raises(AttributeError, match="no attribute 'filters'"):
        jax.scipy.filters
