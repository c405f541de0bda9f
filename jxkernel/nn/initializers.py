"""Weight initializers, as jax.nn.initializers: the same names, formulas and random draws, so
the same key gives JAX's numbers.

An initializer is a function ``init(key, shape, dtype=None, out_sharding=None) -> Array``; the
builders (``normal``, ``variance_scaling``, ``glorot_uniform``, ...) return one. ``out_sharding``
(a NamedSharding, or a PartitionSpec under set_mesh) lays the same values out over a mesh, as
the random samplers' does.

    >>> from jxkernel.nn import initializers
    >>> initializers.glorot_uniform()(jxkernel.random.key(42), (2, 3))
    Array([[-0.0247361 ,  0.3939159 ,  0.2547381 ],
           [ 0.13367954, -0.10813224,  0.18812267]], dtype=float32)
"""
from __future__ import annotations

import math
import typing
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from .. import numpy as jnp
from .. import random
from ..core import dtypes
from ..random.keys import takes_out_sharding

__all__ = ["Initializer", "zeros", "ones", "constant", "uniform", "normal", "truncated_normal",
           "variance_scaling", "glorot_uniform", "glorot_normal", "xavier_uniform",
           "xavier_normal", "lecun_uniform", "lecun_normal", "he_uniform", "he_normal",
           "kaiming_uniform", "kaiming_normal", "orthogonal", "delta_orthogonal"]


@typing.runtime_checkable
class Initializer(Protocol):
    """What every initializer is: ``init(key, shape, dtype=None, out_sharding=None)``."""
    def __call__(self, key, shape, dtype=None, out_sharding=None):
        raise NotImplementedError


def _dtype(dtype):
    """The requested dtype (the default float when None) as a NumPy scalar type."""
    return np.dtype(dtypes.default_float_dtype() if dtype is None else dtype).type


def _shape(shape) -> tuple:
    try:
        return tuple(int(d) for d in (shape if isinstance(shape, Sequence) else (shape,)))
    except TypeError:
        raise TypeError(f"an initializer's shape must be a tuple of Python ints, got {shape!r}; "
                        "shapes are static (mark them with static_argnums under jit)") from None


@takes_out_sharding
def zeros(key, shape, dtype=None, out_sharding=None):
    """Zeros (the key is ignored).

    >>> zeros(jxkernel.random.key(0), (2,))
    Array([0., 0.], dtype=float32)
    """
    return jnp.zeros(shape, _dtype(dtype))


@takes_out_sharding
def ones(key, shape, dtype=None, out_sharding=None):
    """Ones (the key is ignored).

    >>> ones(jxkernel.random.key(0), (2,))
    Array([1., 1.], dtype=float32)
    """
    return jnp.ones(shape, _dtype(dtype))


def constant(value, dtype=None) -> Initializer:
    """An initializer filling arrays with `value`.

    >>> constant(-7)(jxkernel.random.key(0), (2,))
    Array([-7., -7.], dtype=float32)
    """
    def init(key, shape, dtype=dtype, out_sharding=None):
        return jnp.full(shape, value, dtype=_dtype(dtype))
    return takes_out_sharding(init)


def uniform(scale=1e-2, dtype=None) -> Initializer:
    """An initializer drawing uniformly from [0, scale).

    >>> uniform(10.0)(jxkernel.random.key(42), (2,)).shape
    (2,)
    """
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = _dtype(dtype)
        return random.uniform(key, shape, dtype) * jnp.array(scale, dtype)
    return takes_out_sharding(init)


def normal(stddev=1e-2, dtype=None) -> Initializer:
    """An initializer drawing from a centred normal distribution of standard deviation `stddev`.

    >>> normal(5.0)(jxkernel.random.key(42), (2,)).shape
    (2,)
    """
    # (each initializer's own `init`, as JAX's: Python names it in its errors,
    # "normal.<locals>.init() missing 1 required positional argument: 'shape'")
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = _dtype(dtype)
        return random.normal(key, shape, dtype) * jnp.array(stddev, dtype)
    return takes_out_sharding(init)


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0) -> Initializer:
    """An initializer drawing a standard normal truncated to (lower, upper), times `stddev`
    (no correction for the truncation's smaller variance, as in JAX).

    >>> truncated_normal(5.0)(jxkernel.random.key(42), (2,)).shape
    (2,)
    """
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = _dtype(dtype)
        return random.truncated_normal(key, lower, upper, shape, dtype) * jnp.array(stddev, dtype)
    return takes_out_sharding(init)


def _axes_size(shape, axes) -> int:
    if isinstance(axes, int):
        return shape[axes]
    return math.prod(shape[i] for i in axes)


def _compute_fans(shape, in_axis=-2, out_axis=-1, batch_axis=()) -> tuple[float, float]:
    """(fan_in, fan_out) of a weight of `shape`: the in/out sizes times the receptive field (the
    axes that are none of in, out and batch, as a convolution's spatial axes)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional "
                         "weights tensor with default in_axis. Must be at least 2D or specify "
                         "in_axis explicitly.")
    in_size, out_size = _axes_size(shape, in_axis), _axes_size(shape, out_axis)
    receptive = math.prod(shape) / in_size / out_size / _axes_size(shape, batch_axis)
    return in_size * receptive, out_size * receptive


def _real_dtype(dtype):
    return np.array(0, dtype).real.dtype.type


def _complex_uniform(key, shape, dtype):
    """Uniform on the disk of radius sqrt(2) (zero mean, unit variance)."""
    key_r, key_theta = random.split(key)
    real = _real_dtype(dtype)
    dtype = np.result_type(real, np.complex64)
    r = jnp.sqrt(2 * random.uniform(key_r, shape, real)).astype(dtype)
    theta = 2 * np.pi * random.uniform(key_theta, shape, real).astype(dtype)
    return r * jnp.exp(1j * theta)


def _complex_truncated_normal(key, upper, shape, dtype):
    """A complex normal of unit variance whose modulus is truncated to `upper`."""
    key_r, key_theta = random.split(key)
    real = _real_dtype(dtype)
    dtype = np.result_type(real, np.complex64)
    t = ((1 - jnp.exp(jnp.array(-(upper ** 2), dtype)))
         * random.uniform(key_r, shape, real).astype(dtype))
    r = jnp.sqrt(-jnp.log(1 - t))
    theta = 2 * np.pi * random.uniform(key_theta, shape, real).astype(dtype)
    return r * jnp.exp(1j * theta)


_MODES = ("fan_in", "fan_out", "fan_avg", "fan_geo_avg")
_DISTRIBUTIONS = ("truncated_normal", "normal", "uniform")
# standard deviations of a standard normal truncated to (-2, 2), and of a complex one to |z| < 2
_TRUNC_STD_REAL = .87962566103423978
_TRUNC_STD_COMPLEX = .95311164380491208


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(),
                     dtype=None) -> Initializer:
    """An initializer of variance ``scale / n``, n being the fan picked by `mode` ("fan_in",
    "fan_out", "fan_avg", "fan_geo_avg"), drawn from `distribution` ("truncated_normal",
    "normal", "uniform"; complex dtypes draw on a disk). Axes other than `in_axis`, `out_axis`
    and `batch_axis` count as receptive field.

    >>> init = variance_scaling(2.0, "fan_in", "normal")
    >>> round(float(init(jxkernel.random.key(0), (64, 32)).std()), 2)    # about sqrt(2 / 64)
    0.18
    """
    def init(key, shape, dtype=dtype, out_sharding=None):
        shape = _shape(shape)
        dtype = _dtype(dtype)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        if mode == "fan_in":
            denominator = fan_in
        elif mode == "fan_out":
            denominator = fan_out
        elif mode == "fan_avg":
            denominator = (fan_in + fan_out) / 2
        elif mode == "fan_geo_avg":
            denominator = (fan_in * fan_out) ** 0.5
        else:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode} "
                             f"(expected one of {', '.join(_MODES)})")
        variance = jnp.array(scale / denominator, dtype=dtype)
        real = dtypes.issubdtype(dtype, np.floating)
        if distribution == "truncated_normal":
            if real:
                stddev = jnp.sqrt(variance) / jnp.array(_TRUNC_STD_REAL, dtype)
                return random.truncated_normal(key, -2, 2, shape, dtype) * stddev
            stddev = jnp.sqrt(variance) / jnp.array(_TRUNC_STD_COMPLEX, dtype)
            return _complex_truncated_normal(key, 2, shape, dtype) * stddev
        if distribution == "normal":
            return random.normal(key, shape, dtype) * jnp.sqrt(variance)
        if distribution == "uniform":
            if real:
                return random.uniform(key, shape, dtype, -1) * jnp.sqrt(3 * variance)
            return _complex_uniform(key, shape, dtype) * jnp.sqrt(variance)
        raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}"
                         f" (expected one of {', '.join(_DISTRIBUTIONS)})")
    return takes_out_sharding(init)


def _preset(name, scale, mode, distribution, doc):
    def builder(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
        return variance_scaling(scale, mode, distribution, in_axis=in_axis, out_axis=out_axis,
                                batch_axis=batch_axis, dtype=dtype)
    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = (f"{doc}: variance_scaling({scale}, {mode!r}, {distribution!r}).\n\n"
                       f"    >>> {name}()(jxkernel.random.key(42), (2, 3)).shape\n    (2, 3)\n")
    return builder


glorot_uniform = _preset("glorot_uniform", 1.0, "fan_avg", "uniform", "Glorot (Xavier) uniform")
glorot_normal = _preset("glorot_normal", 1.0, "fan_avg", "truncated_normal",
                        "Glorot (Xavier) normal")
lecun_uniform = _preset("lecun_uniform", 1.0, "fan_in", "uniform", "LeCun uniform")
lecun_normal = _preset("lecun_normal", 1.0, "fan_in", "truncated_normal", "LeCun normal")
he_uniform = _preset("he_uniform", 2.0, "fan_in", "uniform", "He (Kaiming) uniform")
he_normal = _preset("he_normal", 2.0, "fan_in", "truncated_normal", "He (Kaiming) normal")
xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def orthogonal(scale=1.0, column_axis=-1, dtype=None) -> Initializer:
    """An initializer of (semi-)orthogonal matrices, uniformly distributed, times `scale`: the
    axis `column_axis` holds the columns, the other axes are flattened into rows.

    >>> w = orthogonal()(jxkernel.random.key(0), (3, 3))
    >>> bool(jnp.allclose(w.T @ w, jnp.eye(3), atol=1e-6))   # the identity, to rounding
    True
    """
    def init(key, shape, dtype=dtype, out_sharding=None):
        shape = _shape(shape)
        dtype = _dtype(dtype)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape, got shape "
                             f"{shape}")
        if any(d == 0 for d in shape):
            return jnp.zeros(shape, dtype=dtype)
        n_rows, n_cols = math.prod(shape) // shape[column_axis], shape[column_axis]
        q = random.orthogonal(key, n_rows, (), dtype, n_cols)
        q = jnp.reshape(q, tuple(np.delete(shape, column_axis)) + (n_cols,))
        q = jnp.moveaxis(q, -1, column_axis)
        return jnp.array(scale, dtype) * q
    return takes_out_sharding(init)


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=None) -> Initializer:
    """An initializer of delta-orthogonal convolution kernels (3D, 4D or 5D): zero except an
    orthogonal matrix at the spatial centre.

    >>> delta_orthogonal()(jxkernel.random.key(0), (3, 3, 3))[0]   # zeros off-centre
    Array([[0., 0., 0.],
           [0., 0., 0.],
           [0., 0., 0.]], dtype=float32)
    """
    def init(key, shape, dtype=dtype, out_sharding=None):
        shape = _shape(shape)
        dtype = _dtype(dtype)
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape, got "
                             f"shape {shape}")
        if shape[-1] < shape[-2]:
            raise ValueError(f"`fan_in` must be less or equal than `fan_out`: got shape {shape}"
                             f" (fan_in {shape[-2]} > fan_out {shape[-1]})")
        matrix = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(key, shape[-2:])
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        return jnp.zeros(shape, dtype=dtype).at[centre + (Ellipsis,)].set(matrix)
    return takes_out_sharding(init)
