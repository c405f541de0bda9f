"""Separable image resampling, with JAX's kernels and arithmetic so the numbers match.

Each resampled axis gets a weight matrix ``W`` of shape (input size, output size):
``W[j, i]`` is how much input pixel ``j`` contributes to output pixel ``i``, the kernel
evaluated at their distance (pixel centres at ``k + 0.5``), normalized so each column sums
to one. One einsum then contracts the image with every axis's matrix.

    >>> import jxkernel.numpy as jnp
    >>> resize(jnp.array([0., 2.]), (4,), "linear")
    Array([0. , 0.5, 1.5, 2. ], dtype=float32)
"""
from __future__ import annotations

import enum
from collections.abc import Callable, Sequence

import numpy as np

from .. import numpy as jnp
from ..lax.dot import Precision
from ..lax.shapes import canonicalize_shape
from ..numpy.util import canonicalize_axis, check_arraylike, promote_dtypes_inexact
from ..transforms.jit import jit

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]


class ResizeMethod(enum.Enum):
    """How `resize` and `scale_and_translate` interpolate (jax.image.ResizeMethod).

    >>> ResizeMethod.from_string("bicubic")
    <ResizeMethod.CUBIC: 4>
    """
    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str) -> ResizeMethod:
        if s not in _METHOD_NAMES:
            raise ValueError(f'Unknown resize method "{s}"; expected one of '
                             f'{", ".join(map(repr, _METHOD_NAMES))} or a ResizeMethod.')
        return _METHOD_NAMES[s]


_METHOD_NAMES = {
    "nearest": ResizeMethod.NEAREST,
    **dict.fromkeys(["linear", "bilinear", "trilinear", "triangle"], ResizeMethod.LINEAR),
    "lanczos3": ResizeMethod.LANCZOS3,
    "lanczos5": ResizeMethod.LANCZOS5,
    **dict.fromkeys(["cubic", "bicubic", "tricubic"], ResizeMethod.CUBIC),
    **dict.fromkeys(["cubic-pytorch", "bicubic-pytorch"], ResizeMethod.CUBIC_PYTORCH),
    "area": ResizeMethod.AREA,
}


# ---------------------------------------------------------------- kernels of the distance x >= 0
def _triangle(x):
    return jnp.maximum(0, 1 - jnp.abs(x))


def _lanczos(radius: float, x):
    y = radius * jnp.sin(np.pi * x) * jnp.sin(np.pi * x / radius)
    # sin(pi x)^2 / (pi x)^2 -> 1 at 0: use the limit below 1e-3 rather than 0 / 0
    out = jnp.where(x > 1e-3, jnp.divide(y, jnp.where(x != 0, np.pi**2 * x**2, 1)), 1)
    return jnp.where(x > radius, 0., out)


def _cubic(a: float, x):
    """Keys' cubic convolution kernel with parameter `a` (-0.5: Keys, Pillow and TensorFlow;
    -0.75: OpenCV, and PyTorch without antialiasing), in JAX's evaluation order."""
    inner = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    outer = ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a
    return jnp.where(x >= 2.0, 0.0, jnp.where(x >= 1.0, outer, inner))


_AREA = object()      # area weights are interval overlaps, not a function of distance

# method -> (kernel radius, kernel)
_KERNELS: dict[ResizeMethod, tuple[int, Callable | object]] = {
    ResizeMethod.LINEAR: (1, _triangle),
    ResizeMethod.LANCZOS3: (3, lambda x: _lanczos(3., x)),
    ResizeMethod.LANCZOS5: (5, lambda x: _lanczos(5., x)),
    ResizeMethod.CUBIC: (2, lambda x: _cubic(-0.5, x)),
    ResizeMethod.CUBIC_PYTORCH: (2, lambda x: _cubic(-0.75, x)),
    ResizeMethod.AREA: (1, _AREA),
}


# ---------------------------------------------------------------- one axis's weight matrix
def _sample_positions(output_size, dtype, inv_scale, translation):
    """Where each output pixel's centre falls in input coordinates (pixel k spans [k, k+1),
    so index k sits at position k after removing the half-pixel offset)."""
    return ((jnp.arange(output_size, dtype=dtype) + 0.5) * inv_scale
            - translation * inv_scale - 0.5)


def _area_weights(input_size, output_size, dtype, inv_scale, translation):
    """Length of the overlap of output pixel i's footprint [L_i, R_i) with input pixel j's."""
    out_left = jnp.arange(output_size, dtype=dtype) * inv_scale - translation * inv_scale
    out_right = out_left + inv_scale
    in_left = jnp.arange(input_size, dtype=dtype)
    in_right = in_left + 1.0
    return jnp.maximum(0.0, jnp.minimum(out_right[np.newaxis, :], in_right[:, np.newaxis])
                       - jnp.maximum(out_left[np.newaxis, :], in_left[:, np.newaxis]))


def _normalize_columns(weights):
    """Each output pixel's weights sum to one; a column summing to about zero is dropped."""
    total = jnp.sum(weights, axis=0, keepdims=True)
    return jnp.where(jnp.abs(total) > 1000. * float(jnp.finfo(np.float32).eps),
                     jnp.divide(weights, jnp.where(total != 0, total, 1)), 0)


def _fold_edges(weights, indices, input_size, output_size, dtype):
    """Add the weights of the `pad` pixels beyond each edge onto the edge pixel (edges
    repeated), as a scatter-add into an (input size, output size) matrix."""
    rows = jnp.clip(indices.astype(jnp.int32), 0, input_size - 1)
    matrix = jnp.zeros((input_size, output_size), dtype=dtype)
    return matrix.at[rows[:, np.newaxis], jnp.arange(output_size)[np.newaxis, :]].add(weights)


def _weight_matrix(input_size: int, output_size: int, scale, translation, kernel,
                   antialias: bool, pad: int):
    """The (input size, output size) resampling matrix of one axis; `pad` > 0 repeats the
    edge pixels `pad` times instead of giving off-image samples zero weight."""
    dtype = jnp.result_type(scale, translation)
    inv_scale = 1. / scale
    # downsampling widens the kernel by 1/scale (low-pass filtering); upsampling only interpolates
    kernel_scale = jnp.maximum(inv_scale, 1.) if antialias else 1.
    sample_f = _sample_positions(output_size, dtype, inv_scale, translation)
    if kernel is _AREA:
        weights = _area_weights(input_size, output_size, dtype, inv_scale, translation)
    else:
        indices = jnp.arange(-pad, input_size + pad, dtype=dtype)
        weights = kernel(jnp.abs(sample_f[np.newaxis, :] - indices[:, np.newaxis]) / kernel_scale)
    if pad:
        return _normalize_columns(_fold_edges(weights, indices, input_size, output_size, dtype))
    inside = jnp.logical_and(sample_f >= -0.5, sample_f <= input_size - 0.5)
    return jnp.where(inside[np.newaxis, :], _normalize_columns(weights), 0)


def _scale_and_translate(x, output_shape, spatial_dims, scale, translation, kernel,
                         antialias: bool, precision, pad: int = 0):
    """One einsum of `x` with each spatial axis's weight matrix."""
    if not spatial_dims:
        return x
    ndim = x.ndim
    operands, out_indices = [x, list(range(ndim))], list(range(ndim))
    for i, d in enumerate(spatial_dims):
        d = canonicalize_axis(d, ndim)
        w = _weight_matrix(x.shape[d], output_shape[d], scale[i], translation[i], kernel,
                           antialias, pad)
        operands += [w.astype(x.dtype), [d, ndim + i]]
        out_indices[d] = ndim + i
    return jnp.einsum(*operands, out_indices, precision=precision)


# ---------------------------------------------------------------- the public functions
def _method(method) -> ResizeMethod:
    if isinstance(method, str):
        return ResizeMethod.from_string(method)
    if not isinstance(method, ResizeMethod):
        raise TypeError(f"method must be a string or a jax.image.ResizeMethod, got {method!r}.")
    return method


def _kernel_and_padding(method: ResizeMethod, antialias: bool):
    """PyTorch's bicubic: with antialiasing it is Keys' cubic; without, OpenCV's kernel
    with the edge pixels repeated."""
    if method == ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC
    radius, kernel = _KERNELS[method]
    return kernel, radius if method == ResizeMethod.CUBIC_PYTORCH else 0


def _check_shape(fun_name: str, image, shape):
    check_arraylike(fun_name, image)
    if len(shape) != np.ndim(image):
        # JAX 0.10.2's words (two spaces too); the image-shape card says which sizes to add
        raise ValueError(f"shape must have length equal to the number of dimensions of x;  "
                         f"{tuple(shape)} vs {np.shape(image)}")


def scale_and_translate(image, shape: Sequence[int], spatial_dims: Sequence[int], scale,
                        translation, method: str | ResizeMethod, antialias: bool = True,
                        precision=Precision.HIGHEST):
    """Resample `image` to `shape`, mapping input position ``p`` along ``spatial_dims[k]``
    to ``p * scale[k] + translation[k]`` (pixel centres at ``index + 0.5``); output pixels
    whose source lies outside the image are zero. Every method but "nearest".

    >>> import jxkernel.numpy as jnp
    >>> scale_and_translate(jnp.array([1., 2., 3.]), (3,), (0,), jnp.array([1.]),
    ...                     jnp.array([1.]), "linear")
    Array([0., 1., 2.], dtype=float32)
    """
    shape = canonicalize_shape(shape)
    _check_shape("scale_and_translate", image, shape)
    method = _method(method)
    if method == ResizeMethod.NEAREST:
        raise ValueError("Nearest neighbor resampling is not currently supported for "
                         "scale_and_translate; use jax.image.resize(..., 'nearest').")
    scale, translation = promote_dtypes_inexact(scale, translation)
    if not len(spatial_dims) == len(scale) == len(translation):
        raise ValueError(f"scale_and_translate: spatial_dims, scale and translation need one "
                         f"entry per resampled axis; got spatial_dims={tuple(spatial_dims)}, "
                         f"scale of shape {scale.shape}, translation of shape "
                         f"{translation.shape}.")
    kernel, pad = _kernel_and_padding(method, antialias)
    image, = promote_dtypes_inexact(image)
    return _scale_and_translate(image, shape, spatial_dims, scale, translation, kernel,
                                antialias, precision, pad)


def _resize_nearest(x, output_shape):
    """Output pixel i of an axis n long takes input pixel floor((i + 0.5) * m / n)."""
    for d, (m, n) in enumerate(zip(x.shape, output_shape)):
        if m == n:
            continue
        # float32 even under x64, as JAX does (its float64 path rounds wrongly on CPU and GPU)
        offsets = (jnp.arange(n, dtype=np.float32) + 0.5) * m / n
        offsets = jnp.floor(offsets.astype(np.float32)).astype(np.int32)
        x = x[(slice(None),) * d + (offsets,)]
    return x


def _resize(image, shape, method, antialias: bool, precision):
    method = _method(method)
    if method == ResizeMethod.NEAREST:
        return _resize_nearest(image, shape)
    image, = promote_dtypes_inexact(image)
    # an axis keeping its size is left alone: every kernel interpolates, so it is the identity
    spatial_dims = tuple(d for d, n in enumerate(shape) if image.shape[d] != n)
    scale = [1.0 if shape[d] == 0 else shape[d] / image.shape[d] for d in spatial_dims]
    kernel, pad = _kernel_and_padding(method, antialias)
    return _scale_and_translate(image, shape, spatial_dims, scale, [0.] * len(spatial_dims),
                                kernel, antialias, precision, pad)


_resize_jit = jit(_resize, static_argnums=(1, 2, 3, 4))


def resize(image, shape: Sequence[int], method: str | ResizeMethod, antialias: bool = True,
           precision=Precision.HIGHEST):
    """Resize `image` to `shape` (every axis, batch and channel axes included: give those
    their own size). `method`: "nearest" (keeps the dtype), "linear", "cubic",
    "cubic-pytorch", "lanczos3", "lanczos5", "area" (these return floats). `antialias`
    low-pass filters when downsampling.

    >>> import jxkernel.numpy as jnp
    >>> resize(jnp.array([1, 2]), (4,), "nearest")
    Array([1, 1, 2, 2], dtype=int32)
    """
    shape = canonicalize_shape(shape)
    _check_shape("resize", image, shape)
    return _resize_jit(image, shape, method, antialias, precision)
