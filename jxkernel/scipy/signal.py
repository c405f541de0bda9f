"""jxkernel.scipy.signal: convolution and spectral analysis, as jax.scipy.signal computes them.

Direct convolutions are one `lax.conv_general_dilated`; `fftconvolve` multiplies spectra
from `jnp.fft`; the spectral estimators (`stft`, `csd`, `welch`) cut the signal into
windowed segments and take their FFTs, and `istft` adds the inverse segments back.

    >>> convolve(jnp.array([1, 2, 3, 2, 1]), jnp.array([1, 1, 1]), mode='same')
    Array([3., 6., 7., 6., 3.], dtype=float32)
"""
from __future__ import annotations

import math
import operator
import warnings
from functools import partial

import numpy as np

from ..core import dtypes
from .. import lax
from .. import numpy as jnp
from ..core.errors import ConcretizationTypeError
from ..core.source_info import user_stacklevel
from ..core.trace import Tracer
from ..numpy import fft as jnp_fft
from ..numpy import linalg
from ..numpy.util import (
    canonicalize_axis,
    check_arraylike,
    ensure_arraylike,
    promote_dtypes_complex,
    promote_dtypes_inexact,
)
from ..transforms.batching import vmap

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "csd", "detrend",
           "fftconvolve", "istft", "stft", "welch"]

_MODES = ("full", "same", "valid")


def _check_mode(mode) -> None:
    if mode not in _MODES:
        raise ValueError(f"mode must be one of ['full', 'same', 'valid'], got mode={mode!r}")


def _static_int(x, what: str, convert=int) -> int:
    """`convert(x)` (int() accepts 4.0, as JAX's nperseg does; operator.index does not);
    a traced `x` raises ConcretizationTypeError naming `what`."""
    if isinstance(x, Tracer):
        value = x.to_concrete_value()
        if value is None:
            raise ConcretizationTypeError(x, f"The problem arose with the {what}. ")
        x = value
    return convert(x)


def _complex_dtype(dtype) -> np.dtype:
    """The complex type holding `dtype`'s values: complex128 for 64-bit, else complex64."""
    wide = np.dtype(dtype) in (np.dtype(np.float64), np.dtype(np.complex128))
    return np.dtype(np.complex128 if wide else np.complex64)


# ---------------------------------------------------------------- convolution
def _fftconvolve_unbatched(in1, in2, mode: str):
    full_shape = tuple(s1 + s2 - 1 for s1, s2 in zip(in1.shape, in2.shape))
    if mode == "valid":
        in1, in2 = _larger_first(in1, in2, "For 'valid' mode, One input must be at least as "
                                 "large as the other in every dimension.")
    if all(s1 == 1 or s2 == 1 for s1, s2 in zip(in1.shape, in2.shape)):
        conv = in1 * in2               # no axis has two long factors: a broadcast product
    else:
        complex_in = jnp.iscomplexobj(in1)
        fft = jnp_fft.fftn if complex_in else jnp_fft.rfftn
        ifft = jnp_fft.ifftn if complex_in else jnp_fft.irfftn
        conv = ifft(fft(in1, full_shape) * fft(in2, full_shape), full_shape)
    out_shape = {"full": full_shape, "same": in1.shape,
                 "valid": tuple(s1 - s2 + 1 for s1, s2 in zip(in1.shape, in2.shape))}[mode]
    start = tuple((f - o) // 2 for f, o in zip(full_shape, out_shape))
    return lax.dynamic_slice(conv, start, out_shape)


def _larger_first(in1, in2, message: str):
    """(in1, in2) ordered so the first is at least as large on every axis, else ValueError."""
    if all(s1 >= s2 for s1, s2 in zip(in1.shape, in2.shape)):
        return in1, in2
    if all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape)):
        return in2, in1
    raise ValueError(f"{message} Got shapes {in1.shape} and {in2.shape}.")


def fftconvolve(in1, in2, mode="full", axes=None):
    """N-dimensional convolution through the FFT (scipy.signal.fftconvolve); `axes` limits
    it to some axes, the others being matched one to one.

    >>> fftconvolve(jnp.array([1., 2., 3.]), jnp.array([0., 1.]), mode='valid')
    Array([1., 2.], dtype=float32)
    """
    check_arraylike("fftconvolve", in1, in2)
    in1, in2 = promote_dtypes_inexact(in1, in2)
    if in1.ndim != in2.ndim:
        raise ValueError(f"in1 and in2 should have the same dimensionality, got "
                         f"in1.ndim={in1.ndim} and in2.ndim={in2.ndim}")
    _check_mode(mode)
    conv = partial(_fftconvolve_unbatched, mode=mode)
    if axes is None:
        return conv(in1, in2)
    axes = (axes,) if np.ndim(axes) == 0 else tuple(axes)
    axes = tuple(canonicalize_axis(ax, in1.ndim) for ax in axes)
    mapped = sorted(set(range(in1.ndim)) - set(axes))
    if any(in1.shape[i] != in2.shape[i] for i in mapped):
        raise ValueError(f"mapped axes must have same shape; got in1.shape={in1.shape} "
                         f"in2.shape={in2.shape} axes={axes}")
    for ax in mapped:
        conv = vmap(conv, in_axes=ax, out_axes=ax)
    return conv(in1, in2)


def _conv_padding(mode: str, kernel_shape, in2_shape):
    """conv_general_dilated's padding for each mode; `in2_shape` (the user's second operand,
    before any swap) centres 'same' as SciPy does."""
    if mode == "valid":
        return [(0, 0)] * len(kernel_shape)
    if mode == "same":
        return [(k - 1 - (o - 1) // 2, k - o + (o - 1) // 2)
                for k, o in zip(kernel_shape, in2_shape)]
    return [(k - 1, k - 1) for k in kernel_shape]


def _convolve_nd(in1, in2, mode: str, *, precision):
    _check_mode(mode)
    in1, in2 = ensure_arraylike("convolve", in1, in2)
    if in1.ndim != in2.ndim:
        raise ValueError(f"in1 and in2 must have the same number of dimensions, got "
                         f"in1.ndim={in1.ndim} and in2.ndim={in2.ndim}")
    if in1.size == 0 or in2.size == 0:
        raise ValueError(f"zero-size arrays not supported in convolutions, got shapes "
                         f"{in1.shape} and {in2.shape}.")
    in1, in2 = promote_dtypes_inexact(in1, in2)
    in2_shape = in2.shape
    in1, in2 = _larger_first(in1, in2, "One input must be smaller than the other in every "
                             "dimension.")
    kernel = jnp.flip(in2)
    padding = _conv_padding(mode, kernel.shape, in2_shape)
    out = lax.conv_general_dilated(in1[None, None], kernel[None, None],
                                   (1,) * in1.ndim, padding, precision=precision)
    return out[0, 0]


def convolve(in1, in2, mode="full", method="auto", precision=None):
    """N-dimensional convolution (scipy.signal.convolve); `method` 'auto' and 'direct' use
    lax.conv_general_dilated, 'fft' uses fftconvolve.

    >>> convolve(jnp.array([1., 2., 3.]), jnp.array([1., 1.]))
    Array([1., 3., 5., 3.], dtype=float32)
    """
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method in ("direct", "auto"):
        return _convolve_nd(in1, in2, mode, precision=precision)
    raise ValueError(f"Got method={method!r}; expected 'auto', 'fft', or 'direct'.")


def _check_2d(name: str, in1, in2, boundary, fillvalue) -> None:
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"{name}() only supports boundary='fill', fillvalue=0; got "
                                  f"boundary={boundary!r}, fillvalue={fillvalue!r}")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ValueError(f"{name}() only supports 2-dimensional inputs, got shapes "
                         f"{np.shape(in1)} and {np.shape(in2)}.")


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """2-D convolution (scipy.signal.convolve2d) with zero fill at the boundary.

    >>> convolve2d(jnp.eye(2), jnp.ones((1, 2)))
    Array([[1., 1., 0.],
           [0., 1., 1.]], dtype=float32)
    """
    _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    return _convolve_nd(in1, in2, mode, precision=precision)


def correlate(in1, in2, mode="full", method="auto", precision=None):
    """N-dimensional cross-correlation (scipy.signal.correlate): convolution with `in2`
    reversed and conjugated.

    >>> correlate(jnp.array([1., 2., 3.]), jnp.array([1., 0.]), mode='valid')
    Array([1., 2.], dtype=float32)
    """
    in2 = ensure_arraylike("correlate", in2)
    return convolve(in1, jnp.flip(in2.conj()), mode, method=method, precision=precision)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """2-D cross-correlation (scipy.signal.correlate2d) with zero fill at the boundary.

    >>> correlate2d(jnp.eye(2), jnp.ones((1, 2)), mode='same')
    Array([[1., 0.],
           [1., 1.]], dtype=float32)
    """
    _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    in1, in2 = ensure_arraylike("correlate2d", in1, in2)
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
    same_shape = in1.shape == in2.shape
    # SciPy's orientation of the result depends on which operand is larger, per mode.
    if mode == "valid" and swap and not same_shape:
        return _convolve_nd(jnp.flip(in2), in1.conj(), mode, precision=precision)
    if mode == "full" and swap:
        return _convolve_nd(jnp.flip(in2), in1.conj(), mode, precision=precision).conj()
    return jnp.flip(_convolve_nd(jnp.flip(in1), in2.conj(), mode, precision=precision))


# ---------------------------------------------------------------- detrend
def _breakpoints(bp, n: int) -> np.ndarray:
    points = np.sort(np.unique(np.r_[0, bp, n]))
    if points[0] < 0 or points[-1] > n:
        raise ValueError(f"Breakpoints must be non-negative and less than length of data "
                         f"along given axis ({n}), got bp={bp!r}.")
    return points


def _remove_line(data, start: int, stop: int):
    """`data` (length first) with the least-squares line through rows start:stop removed."""
    n = stop - start
    ramp = jnp.arange(1, n + 1, dtype=data.dtype) / np.asarray(n).astype(data.dtype)
    design = jnp.vstack([jnp.ones(n, dtype=data.dtype), ramp]).T
    rows = slice(start, stop)
    coef, *_ = linalg.lstsq(design, data[rows])
    return data.at[rows].add(-jnp.matmul(design, coef, precision=lax.Precision.HIGHEST))


def detrend(data, axis=-1, type="linear", bp=0, overwrite_data=None):
    """`data` less its mean ('constant') or its least-squares line ('linear', piecewise
    between the breakpoints `bp`) along `axis` (scipy.signal.detrend).

    >>> detrend(jnp.array([1., 2., 6.]), type='constant')
    Array([-2., -1.,  3.], dtype=float32)
    """
    if overwrite_data is not None:
        raise NotImplementedError("overwrite_data argument not implemented.")
    if type not in ("constant", "linear"):
        raise ValueError(f"Trend type must be 'linear' or 'constant', got type={type!r}.")
    data, = promote_dtypes_inexact(jnp.asarray(data))
    if type == "constant":
        return data - data.mean(axis, keepdims=True)
    n = data.shape[axis]
    points = _breakpoints(bp, n)
    moved = jnp.moveaxis(data, axis, 0)
    flat = moved.reshape(n, -1)
    for start, stop in zip(points[:-1], points[1:]):
        flat = _remove_line(flat, int(start), int(stop))
    return jnp.moveaxis(flat.reshape(moved.shape), 0, axis)


# ---------------------------------------------------------------- windows and segments
def _hann(n: int):
    """The periodic Hann window SciPy's get_window('hann', n) gives, computed on the device."""
    if n == 1:
        return jnp.array([1.0])
    return jnp.sin(jnp.linspace(0, np.pi, n, endpoint=False)) ** 2


def _named_window(window, n: int):
    """A window given by name or (name, params) tuple, of length `n`."""
    if isinstance(window, str) and window == "hann":
        return _hann(n)
    try:
        from scipy.signal import get_window
    except ImportError as err:
        raise ImportError(f"scipy must be available to use window={window!r}") from err
    return get_window(window, n)


def _triage_segments(window, nperseg, input_length: int, dtype):
    """(window array, segment length) from the user's `window` and `nperseg`: a named window
    is `nperseg` long (default: the whole signal), an array window sets the length itself."""
    if isinstance(window, (str, tuple)):
        n = input_length if nperseg is None else int(nperseg)
        if n > input_length:
            warnings.warn(f"nperseg={n} is greater than input_length={input_length}, "
                          f"using nperseg={input_length}", stacklevel=user_stacklevel())
            n = input_length
        return jnp.array(_named_window(window, n), dtype=dtype), n
    win = jnp.asarray(window, dtype=dtype)
    n = win.size if nperseg is None else int(nperseg)
    if win.ndim != 1:
        raise ValueError(f"window must be 1-D, got shape {win.shape}")
    if input_length < win.size:
        raise ValueError(f"window is longer than input signal ({win.size} > {input_length})")
    if n != win.size:
        raise ValueError(f"value specified for nperseg is different from length of window "
                         f"(nperseg={n}, window length {win.size})")
    return win, n


def _median_bias(n: int):
    """How much the median of n periodograms underestimates their mean (Allen et al. 2012)."""
    even = jnp.arange(2.0, n, 2)
    return 1 + jnp.sum(1.0 / (even + 1) - 1.0 / even)


def _odd_ext(x, n: int, axis: int = -1):
    """`x` extended by `n` points at both ends, mirrored through each end point."""
    if n < 1:
        return x
    if n > x.shape[axis] - 1:
        raise ValueError(f"The extension length n ({n}) is too big. It must not exceed "
                         f"x.shape[axis]-1, which is {x.shape[axis] - 1}.")
    first = lax.slice_in_dim(x, 0, 1, axis=axis)
    last = lax.slice_in_dim(x, -1, None, axis=axis)
    left = jnp.flip(lax.slice_in_dim(x, 1, n + 1, axis=axis), axis=axis)
    right = jnp.flip(lax.slice_in_dim(x, -(n + 1), -1, axis=axis), axis=axis)
    return jnp.concatenate((2 * first - left, x, 2 * last - right), axis=axis)


def _pad_both_ends(mode: str, **kwargs):
    def pad(x, n: int, axis: int = -1):
        widths = [(0, 0)] * x.ndim
        widths[axis] = (n, n)
        return jnp.pad(x, widths, mode, **kwargs)
    return pad


_BOUNDARY_EXTENSIONS = {
    "even": _pad_both_ends("reflect"),
    "odd": _odd_ext,
    "constant": _pad_both_ends("edge"),
    "zeros": _pad_both_ends("constant", constant_values=0.0),
    None: lambda x, *args, **kwargs: x,
}


def _segments(x, nperseg: int, noverlap: int):
    """x[..., L] cut into overlapping segments x[..., nseg, nperseg]."""
    if nperseg == 1 and noverlap == 0:
        return x[..., np.newaxis]
    starts = jnp.arange(x.shape[-1] - nperseg + 1, step=nperseg - noverlap)
    cut = partial(lax.dynamic_slice_in_dim, operand=x, slice_size=nperseg, axis=-1)
    return vmap(cut, out_axes=-2)(start_index=starts)


def _windowed_fft(x, win, detrend_func, nperseg: int, noverlap: int, nfft: int, sides: str):
    """The FFT of each detrended, windowed segment of x[..., L]: x[..., nseg, nfreq]."""
    segments = detrend_func(_segments(x, nperseg, noverlap))
    if jnp.iscomplexobj(win):
        segments, = promote_dtypes_complex(segments)
    segments = win.reshape((1,) * (x.ndim - 1) + (1, nperseg)) * segments
    if sides == "twosided":
        return jnp_fft.fft(segments, n=nfft)
    return jnp_fft.rfft(segments.real, n=nfft)


def _detrend_function(detrend_type, axis: int):
    if isinstance(detrend_type, str):
        return partial(detrend, type=detrend_type, axis=-1)
    if callable(detrend_type):
        # JAX 0.10.2 moves the signal's (canonical) axis to the end of the segments array
        # before calling the user's function; done alike so the numbers agree with JAX's.
        def detrend_func(d):
            return jnp.moveaxis(detrend_type(jnp.moveaxis(d, axis, -1)), -1, axis)
        return detrend_func
    if not detrend_type:
        return lambda d: d
    raise ValueError(f"Unsupported detrend type: {detrend_type}")


def _pad_to_same_length(x, y):
    """x and y (signal axis last) zero-padded at the end to the longer one's length."""
    short, long_ = (x, y) if x.shape[-1] < y.shape[-1] else (y, x)
    extra = jnp.zeros_like(x, shape=(*short.shape[:-1], long_.shape[-1] - short.shape[-1]))
    padded = jnp.concatenate((short, extra), -1)
    return (padded, y) if short is x else (x, padded)


def _tuple_delete(t: tuple, i: int) -> tuple:
    return t[:i] + t[i + 1:]


def _promote_signals(x, y, axis: int, mode: str):
    """x and y (None: x alone) promoted to one inexact type, and their shape without `axis`
    (broadcast together)."""
    if y is None:
        check_arraylike("spectral_helper", x)
        x, = promote_dtypes_inexact(x)
        return x, None, _tuple_delete(x.shape, axis)
    if mode != "psd":
        raise ValueError("two-argument mode is available only when mode=='psd'")
    check_arraylike("spectral_helper", x, y)
    x, y = promote_dtypes_inexact(x, y)
    if x.ndim != y.ndim:
        raise ValueError(f"two-arguments must have the same rank ({x.ndim} vs {y.ndim}).")
    try:
        outer_shape = jnp.broadcast_shapes(_tuple_delete(x.shape, axis),
                                           _tuple_delete(y.shape, axis))
    except ValueError as err:
        raise ValueError(f"x and y cannot be broadcast together (shapes {x.shape} and "
                         f"{y.shape}, axis={axis}).") from err
    return x, y, outer_shape


def _empty_result(x, y, axis: int, outer_shape, freq_dtype, result_dtype):
    """The zeros returned for an empty signal."""
    if y is None:
        shape = x.shape
    else:
        # JAX 0.10.2 inserts `axis` itself at position min(lengths) of the outer shape
        # (its arguments to tuple_insert are swapped); done alike, so shapes agree with JAX.
        length = min(x.shape[axis], y.shape[axis])
        shape = outer_shape[:length] + (axis,) + outer_shape[length:]
    return (jnp.zeros(shape, freq_dtype), jnp.zeros(shape, freq_dtype),
            jnp.zeros(shape, result_dtype))


def _spectral_scale(win, fs, scaling: str, mode: str):
    """The complex factor making periodograms a density (per Hz) or a power spectrum."""
    if scaling == "density":
        scale = 1.0 / (fs * (win * win).sum())
    elif scaling == "spectrum":
        scale = 1.0 / win.sum() ** 2
    else:
        raise ValueError(f"Unknown scaling: {scaling}")
    if mode == "stft":
        scale = jnp.sqrt(scale)
    scale, = promote_dtypes_complex(scale)
    return scale


def _segment_times(length: int, nperseg: int, nstep: int, boundary, fs, dtype):
    """The centre of each segment, in units of 1/fs (from the unextended signal's start)."""
    time = jnp.arange(nperseg / 2, length - nperseg / 2 + 1, nstep, dtype=dtype) / fs
    if boundary is not None:
        time -= (nperseg / 2) / fs
    return time


def _spectral_helper(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
                     detrend_type="constant", return_onesided=True, scaling="density",
                     axis=-1, mode="psd", boundary=None, padded=False):
    """(frequencies, segment times, per-segment spectra) for stft (mode 'stft'), or the
    per-segment (cross) periodograms csd and welch average (mode 'psd'; `y` None is x's
    own spectrum)."""
    if mode not in ("psd", "stft"):
        raise ValueError(f"Unknown value for mode {mode}, must be one of: ('psd', 'stft')")
    if boundary not in _BOUNDARY_EXTENSIONS:
        raise ValueError(f"Unknown boundary option '{boundary}', must be one of: "
                         f"{list(_BOUNDARY_EXTENSIONS)}")
    axis = canonicalize_axis(_static_int(axis, "axis of windowed-FFT", operator.index),
                             np.ndim(x))
    x, y, outer_shape = _promote_signals(x, y, axis, mode)
    result_dtype = _complex_dtype(x.dtype)
    freq_dtype = dtypes.finfo(result_dtype).dtype

    if nperseg is not None:
        nperseg = _static_int(nperseg, "nperseg of windowed-FFT")
        if nperseg < 1:
            raise ValueError(f"nperseg must be a positive integer, got nperseg={nperseg}")
    win, nperseg = _triage_segments(window, nperseg, x.shape[axis], x.dtype)
    noverlap = nperseg // 2 if noverlap is None else _static_int(
        noverlap, "noverlap of windowed-FFT")
    nfft = nperseg if nfft is None else _static_int(nfft, "nfft of windowed-FFT")
    if x.size == 0 or (y is not None and y.size == 0):
        return _empty_result(x, y, axis, outer_shape, freq_dtype, result_dtype)

    x = jnp.moveaxis(x, axis, -1)
    if y is not None:
        if y.ndim > 1:
            y = jnp.moveaxis(y, axis, -1)
        if x.shape[-1] != y.shape[-1]:
            x, y = _pad_to_same_length(x, y)
    if nfft < nperseg:
        raise ValueError(f"nfft must be greater than or equal to nperseg (nfft={nfft}, "
                         f"nperseg={nperseg}).")
    if noverlap >= nperseg:
        raise ValueError(f"noverlap must be less than nperseg (noverlap={noverlap}, "
                         f"nperseg={nperseg}).")
    nstep = nperseg - noverlap
    x, y = _extend_signals(x, y, boundary, padded, nperseg, nstep)
    detrend_func = _detrend_function(detrend_type, axis)
    scale = _spectral_scale(win, fs, scaling, mode)

    sides = _sides(return_onesided, x, y)
    freqs = (jnp_fft.fftfreq(nfft, 1 / fs, dtype=freq_dtype) if sides == "twosided"
             else jnp_fft.rfftfreq(nfft, 1 / fs, dtype=freq_dtype))
    result = _windowed_fft(x, win, detrend_func, nperseg, noverlap, nfft, sides)
    if y is not None:
        result_y = _windowed_fft(y, win, detrend_func, nperseg, noverlap, nfft, sides)
        result = jnp.conjugate(result) * result_y
    elif mode == "psd":
        result = jnp.conjugate(result) * result
    result *= scale
    if sides == "onesided" and mode == "psd":
        # Each one-sided bin but DC (and Nyquist, for even nfft) stands for two.
        result = result.at[..., 1:None if nfft % 2 else -1].mul(2)
    time = _segment_times(x.shape[-1], nperseg, nstep, boundary, fs, freq_dtype)
    result = result.astype(result_dtype)
    if y is None and mode != "stft":
        result = result.real
    return freqs, time, jnp.moveaxis(result, -1, axis)


def _extend_signals(x, y, boundary, padded: bool, nperseg: int, nstep: int):
    """x and y (signal axis last) extended at both ends by `boundary` and, if `padded`,
    zero-padded at the end to a whole number of steps."""
    if boundary is not None:
        extend = _BOUNDARY_EXTENSIONS[boundary]
        x = extend(x, nperseg // 2, axis=-1)
        if y is not None:
            y = extend(y, nperseg // 2, axis=-1)
    if padded:
        nadd = (-(x.shape[-1] - nperseg) % nstep) % nperseg
        x = jnp.concatenate((x, jnp.zeros_like(x, shape=(*x.shape[:-1], nadd))), axis=-1)
        if y is not None:
            y = jnp.concatenate((y, jnp.zeros_like(x, shape=(*y.shape[:-1], nadd))), axis=-1)
    return x, y


def _sides(return_onesided: bool, x, y) -> str:
    if not return_onesided:
        return "twosided"
    if jnp.iscomplexobj(x) or jnp.iscomplexobj(y):
        warnings.warn("Input data is complex, switching to return_onesided=False",
                      stacklevel=user_stacklevel())
        return "twosided"
    return "onesided"


def stft(x, fs=1.0, window="hann", nperseg=256, noverlap=None, nfft=None, detrend=False,
         return_onesided=True, boundary="zeros", padded=True, axis=-1):
    """Short-time Fourier transform (scipy.signal.stft): (frequencies, segment times, Zxx).

    >>> f, t, Z = stft(jnp.array([1., 2., 3., 2., 1., 0., 1., 2.]), nperseg=4)
    >>> t, Z.shape
    (Array([0., 2., 4., 6., 8.], dtype=float32), (3, 5))
    """
    return _spectral_helper(x, None, fs, window, nperseg, noverlap, nfft, detrend,
                            return_onesided, scaling="spectrum", axis=axis, mode="stft",
                            boundary=boundary, padded=padded)


def _average(pxy, average: str):
    """The mean or (bias-corrected) median of the periodograms along the last axis."""
    if average == "median":
        bias = _median_bias(pxy.shape[-1]).astype(pxy.dtype)
        if jnp.iscomplexobj(pxy):
            pxy = jnp.median(jnp.real(pxy), axis=-1) + 1j * jnp.median(jnp.imag(pxy), axis=-1)
        else:
            pxy = jnp.median(pxy, axis=-1)
        return pxy / bias
    if average == "mean":
        return pxy.mean(axis=-1)
    raise ValueError(f'average must be "median" or "mean", got {average}')


def csd(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
        detrend="constant", return_onesided=True, scaling="density", axis=-1, average="mean"):
    """Cross power spectral density by Welch's method (scipy.signal.csd): (frequencies, Pxy).
    `y=None` gives x's own (real) spectrum, as welch.

    >>> x = jnp.array([1., 2., 3., 2., 1., 0., 1., 2.])
    >>> f, p = csd(x, x[::-1], nperseg=4)
    >>> p
    Array([-0.44444442+0.j, -1.4444444 +0.j, -0.22222224+0.j], dtype=complex64)
    """
    freqs, _, pxy = _spectral_helper(x, y, fs, window, nperseg, noverlap, nfft, detrend,
                                     return_onesided, scaling, axis, mode="psd")
    if y is not None:
        pxy = pxy + 0j                       # complex even where x and y are one signal
    if pxy.ndim >= 2 and pxy.size > 0:
        if pxy.shape[-1] > 1:
            pxy = _average(pxy, average)
        else:
            pxy = jnp.reshape(pxy, pxy.shape[:-1])
    return freqs, pxy


def welch(x, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          detrend="constant", return_onesided=True, scaling="density", axis=-1,
          average="mean"):
    """Power spectral density by Welch's method (scipy.signal.welch): (frequencies, Pxx).

    >>> f, p = welch(jnp.array([1., 2., 3., 2., 1., 0., 1., 2.]), nperseg=4)
    >>> f
    Array([0.  , 0.25, 0.5 ], dtype=float32)
    >>> p
    Array([0.44444442, 1.4444444 , 0.22222224], dtype=float32)
    """
    freqs, pxx = csd(x, None, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap,
                     nfft=nfft, detrend=detrend, return_onesided=return_onesided,
                     scaling=scaling, axis=axis, average=average)
    return freqs, pxx.real


# ---------------------------------------------------------------- inverse STFT
def _overlap_and_add(x, step: int):
    """Frames x[..., nframes, length] added at offsets 0, step, 2*step, ...: x[..., out]."""
    *batch, nframes, length = x.shape
    batch_size = math.prod(batch)
    out_size = step * (nframes - 1) + length
    pieces = 1 + (length - 1) // step          # steps per frame, the last one zero-padded
    x = jnp.pad(x.reshape(batch_size, nframes, length),
                ((0, 0), (0, 0), (0, pieces * step - length)))
    # Piece p of frame f belongs at step f + p: lay each piece's frames out with a one-step
    # shift per frame (pad, flatten, cut), then sum over pieces.
    x = x.reshape(batch_size, nframes, pieces, step).transpose((0, 2, 1, 3))
    x = jnp.pad(x, ((0, 0), (0, 0), (0, nframes), (0, 0)))
    shifted = x.shape[2] - 1
    x = x.reshape(batch_size, -1)[:, :pieces * shifted * step]
    x = x.reshape(batch_size, pieces, shifted * step).sum(axis=1)[:, :out_size]
    return x.reshape(tuple(batch) + (-1,))


def _istft_window(window, nperseg: int, dtype):
    if isinstance(window, (str, tuple)):
        return jnp.array(_named_window(window, nperseg), dtype=dtype)
    win = jnp.asarray(window)
    if win.ndim != 1:
        raise ValueError(f"window must be 1-D, got shape {win.shape}")
    if win.shape[0] != nperseg:
        raise ValueError(f"window must have length of {nperseg}, got {win.shape[0]}")
    return win


def _istft_segment_lengths(n_freqs: int, nperseg, noverlap, nfft, input_onesided: bool):
    """(nperseg, noverlap) for istft, checked; the defaults follow from the frequency count.
    A noverlap of 0 counts as unset (nperseg // 2), as in JAX."""
    n_default = 2 * (n_freqs - 1) if input_onesided else n_freqs
    nperseg = _static_int(nperseg or n_default, "nperseg: segment length of STFT")
    if nperseg < 1:
        raise ValueError(f"nperseg must be a positive integer, got nperseg={nperseg}")
    if nfft is None:       # an odd nperseg one longer than the default was not padded
        nfft = n_default + (1 if input_onesided and nperseg == n_default + 1 else 0)
    else:
        nfft = _static_int(nfft, "nfft of STFT")
    if nfft < nperseg:
        raise ValueError(f"FFT length ({nfft}) must be longer than nperseg ({nperseg}).")
    noverlap = _static_int(noverlap or nperseg // 2, "noverlap of STFT")
    if noverlap >= nperseg:
        raise ValueError(f"noverlap must be less than nperseg (noverlap={noverlap}, "
                         f"nperseg={nperseg}).")
    return nperseg, noverlap


def istft(Zxx, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          input_onesided=True, boundary=True, time_axis=-1, freq_axis=-2):
    """Inverse short-time Fourier transform (scipy.signal.istft): (times, signal).

    >>> x = jnp.array([1., 2., 3., 2., 1., 0., 1., 2.])
    >>> t, y = istft(stft(x, nperseg=4)[2])
    >>> print(y)
    [1. 2. 3. 2. 1. 0. 1. 2.]
    """
    Zxx = ensure_arraylike("istft", Zxx)
    if Zxx.ndim < 2:
        raise ValueError(f"Input stft must be at least 2d! Got shape {Zxx.shape}.")
    freq_axis = canonicalize_axis(freq_axis, Zxx.ndim)
    time_axis = canonicalize_axis(time_axis, Zxx.ndim)
    if freq_axis == time_axis:
        raise ValueError(f"Must specify differing time and frequency axes! Got "
                         f"time_axis={time_axis}, freq_axis={freq_axis}.")
    Zxx = jnp.asarray(Zxx, dtype=_complex_dtype(Zxx.dtype))
    nperseg, noverlap = _istft_segment_lengths(Zxx.shape[freq_axis], nperseg, noverlap, nfft,
                                               input_onesided)

    if time_axis != Zxx.ndim - 1 or freq_axis != Zxx.ndim - 2:
        outer = tuple(i for i in range(Zxx.ndim) if i not in {time_axis, freq_axis})
        Zxx = jnp.transpose(Zxx, outer + (freq_axis, time_axis))
    inverse = jnp_fft.irfft if input_onesided else jnp_fft.ifft
    # JAX passes the user's nfft (None: the input's own length) here, not nfft_int.
    xsubs = inverse(Zxx, axis=-2, n=nfft)[..., :nperseg, :]
    win = _istft_window(window, nperseg, xsubs.dtype)
    xsubs *= win.sum()                         # undoes stft's 'spectrum' scaling
    win = lax.expand_dims(win, (*range(xsubs.ndim - 2), -1))
    x = _overlap_and_add((xsubs * win).swapaxes(-2, -1), nperseg - noverlap)
    win_squared = jnp.repeat(win * win, xsubs.shape[-1], axis=-1)
    norm = _overlap_and_add(win_squared.swapaxes(-2, -1), nperseg - noverlap)
    if boundary:
        x = x[..., nperseg // 2:-(nperseg // 2)]
        norm = norm[..., nperseg // 2:-(nperseg // 2)]
    x /= jnp.where(norm > 1e-10, norm, 1.0)
    if x.ndim > 1 and time_axis != Zxx.ndim - 1:
        x = jnp.moveaxis(x, -1, time_axis - 1 if freq_axis < time_axis else time_axis)
    # JAX counts the times along x's first axis (the batch axis, for a batch of signals).
    time = jnp.arange(x.shape[0], dtype=dtypes.finfo(x.dtype).dtype) / fs
    return time, x
