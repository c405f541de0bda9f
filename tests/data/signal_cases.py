"""Cases for jax.scipy.signal, evaluated by real JAX (reference/make_signal_reference.py writes
signal_reference.npz) and by jxkernel (tests/scipy/test_scipy_signal.py compares values, dtypes and
weak types). Each group runs as one jitted program (few compiles); `x64` says which mode the
caller runs `cases` in."""
from functools import partial

import numpy as np


def operands(dtype=np.float32):
    rng = np.random.RandomState(0)
    real = lambda *shape: rng.randn(*shape).astype(dtype)      # noqa: E731
    ramp = np.linspace(0, 3, 40).astype(dtype)
    return {
        "a": real(9), "b": real(4), "m": real(5, 4), "k": real(3, 2), "q": real(3, 4),
        "c": (rng.randn(6) + 1j * rng.randn(6)).astype(np.result_type(dtype, np.complex64)),
        "i": rng.randint(-3, 4, size=5).astype(np.int32),
        "sig": real(2, 40) + ramp,                               # a trend for detrend to find
        "sig2": real(2, 40),
        "short": real(1, 31),
    }


def convolutions(signal, a, b, m, k, q, c, i):
    """Every convolution and correlation mode, both operand orders, 1-D and 2-D, real,
    complex and integer operands."""
    S, out = signal, {}
    for mode in ("full", "same", "valid"):
        out[f"convolve_{mode}"] = S.convolve(a, b, mode)
        out[f"convolve_swapped_{mode}"] = S.convolve(b, a, mode)
        out[f"convolve_fft_{mode}"] = S.convolve(a, b, mode, method="fft")
        out[f"convolve2d_{mode}"] = S.convolve2d(m, k, mode)
        out[f"correlate_{mode}"] = S.correlate(a, b, mode)
        out[f"correlate_swapped_{mode}"] = S.correlate(b, a, mode)
        out[f"correlate2d_{mode}"] = S.correlate2d(m, k, mode)
        out[f"correlate2d_swapped_{mode}"] = S.correlate2d(k, m, mode)
        out[f"fftconvolve2d_{mode}"] = S.fftconvolve(m, k, mode)
    out["correlate2d_equal_shapes_valid"] = S.correlate2d(m[:3, :4], q, "valid")
    out["correlate2d_equal_shapes_full"] = S.correlate2d(m[:3, :4], q)
    out["convolve_nd_same"] = S.convolve(m, k, "same", precision="highest")
    out["fftconvolve_axes"] = S.fftconvolve(m, m[:, :2], axes=1)
    out["fftconvolve_axes_valid"] = S.fftconvolve(m, m[:, :2], mode="valid", axes=(-1,))
    out["fftconvolve_broadcast_product"] = S.fftconvolve(m[:, :1], q[:1, :])
    out["convolve_complex"] = S.convolve(c, a[:3])
    out["correlate_complex"] = S.correlate(a[:4], c, "same")
    out["fftconvolve_complex"] = S.fftconvolve(c, c[:3], "same")
    out["correlate2d_complex"] = S.correlate2d(c.reshape(2, 3), m[:2, :2], "full")
    out["convolve_int"] = S.convolve(i, i[:2])
    out["correlate_int_fft"] = S.correlate(i, i[:3], method="fft")
    return out


def spectral(signal, sig, sig2, short):
    """stft, istft, welch, csd and detrend over their options, on 40-sample signals."""
    S, out = signal, {}
    out["stft"] = S.stft(sig, nperseg=8)
    out["stft_options"] = S.stft(sig.T, fs=4.0, nperseg=6, noverlap=4, nfft=9, axis=0,
                                 detrend="linear", return_onesided=False, boundary=None,
                                 padded=False)
    for boundary in ("even", "odd"):
        out[f"stft_boundary_{boundary}"] = S.stft(sig[0], nperseg=8, boundary=boundary)
    out["stft_window_tuple"] = S.stft(sig, window=("tukey", 0.5), nperseg=7, detrend="constant")
    out["stft_window_array"] = S.stft(sig, window=np.arange(1.0, 6.0), nperseg=5)
    out["stft_detrend_callable"] = S.stft(sig[0], nperseg=8, detrend=lambda d: d - d[..., :1])
    f, t, z = S.stft(sig, nperseg=8)
    out["istft_roundtrip"] = S.istft(z, nperseg=8)
    out["istft_twosided"] = S.istft(S.stft(sig, nperseg=8, return_onesided=False)[2],
                                    input_onesided=False)
    out["istft_options"] = S.istft(z.transpose(2, 0, 1), fs=2.0, window="hamming", noverlap=2,
                                   nfft=10, boundary=False, time_axis=0, freq_axis=2)
    out["welch_one_segment"] = S.welch(sig)     # nperseg defaults to the whole signal
    out["welch_segments"] = S.welch(sig, fs=10.0, nperseg=8, noverlap=2)
    out["welch_odd_nfft_axis0"] = S.welch(sig.T, nperseg=8, nfft=11, axis=0)
    out["welch_no_detrend_twosided"] = S.welch(sig, nperseg=10, detrend=False,
                                               return_onesided=False)
    out["csd"] = S.csd(sig, sig2, nperseg=8)
    out["csd_spectrum_median"] = S.csd(sig, sig2, nperseg=8, scaling="spectrum",
                                       average="median")
    out["csd_broadcast_and_pad"] = S.csd(sig, short, nperseg=8)
    out["csd_self"] = S.csd(sig, None, nperseg=8)
    out["detrend_breakpoints_axis0"] = S.detrend(sig.T, axis=0, bp=[15])
    out["detrend_constant"] = S.detrend(sig, type="constant")
    return out


def dtypes(jax, jnp, signal):
    """Result dtypes and weak types from integer, boolean, half and weak operands, empty
    signals, and vmap (jitted, but for two calls outside jit)."""
    S = signal

    def program():
        m = np.arange(12.0, dtype=np.float32).reshape(3, 4)
        return {
            "convolve_bool": S.convolve(np.ones(4, bool), np.ones(2, bool)),
            "convolve_bf16_f32": S.convolve(jnp.ones(4, jnp.bfloat16), jnp.ones(2)),
            "convolve_f16": S.convolve(jnp.arange(4, dtype=jnp.float16), jnp.ones(2, "f2")),
            "detrend_int_constant": S.detrend(np.arange(5), type="constant"),
            "welch_weak_fs": S.welch(m[0], fs=2, nperseg=4),
            "csd_empty": S.csd(np.ones((3, 0), np.float32), np.ones((1, 0), np.float32)),
            "welch_empty": S.welch(np.ones((0,), np.float32)),
            "convolve_vmapped": jax.vmap(lambda r: S.convolve(r, m[0, :2], "same"))(m),
        }
    out = jax.jit(program)()
    out["eager_convolve_int"] = S.convolve(np.arange(4), np.arange(2))
    out["eager_fftconvolve_weak"] = S.fftconvolve(2.0, 3.0)
    return out


def wide(signal, a, b, sig):
    """The same functions in 64-bit mode on float64 operands."""
    S = signal
    return {"convolve_f64": S.convolve(a, b, "same"),
            "stft_f64": S.stft(sig, nperseg=8),
            "welch_f64": S.welch(sig, nperseg=8),
            "istft_f64": S.istft(S.stft(sig, nperseg=8)[2])}


def cases(jax, jnp, signal, x64=False):
    """{case name: pytree of results} for one mode."""
    if x64:
        ops = operands(np.float64)
        return jax.jit(partial(wide, signal))(ops["a"], ops["b"], ops["sig"])
    ops = operands()
    out = jax.jit(partial(convolutions, signal))(*(ops[n] for n in "abmkqci"))
    out.update(jax.jit(partial(spectral, signal))(ops["sig"], ops["sig2"], ops["short"]))
    out.update(dtypes(jax, jnp, signal))
    return out


# Bounds in ulps of each result's dtype, measured at the largest magnitude of the case's
# result (sums and FFTs cancel, so small entries are only as exact as the large ones).
# Convolutions, FFTs and the spectra built from them are sums: numerics.REDUCTION. detrend
# (and stft with detrend='linear') fits lines by an SVD: numerics.LAPACK. Measured on
# AVX-only, AVX2 and AVX-512 CPUs: at most 2.5 ulps.
REDUCTION, LAPACK = 16, 64


def ulps(name: str) -> int:
    return LAPACK if name.startswith(("detrend", "stft_options")) else REDUCTION
