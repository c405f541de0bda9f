"""Activation functions and friends, as jax.nn defines them (same formulas, same jit
boundaries, same custom derivatives), so results match JAX's.

    >>> import jxkernel.nn as nn
    >>> nn.relu(jnp.array([-1.0, 2.0]))
    Array([0., 2.], dtype=float32)
    >>> nn.softmax(jnp.array([1.0, 2.0, 3.0]))
    Array([0.09003057, 0.24472848, 0.66524094], dtype=float32)
"""
from __future__ import annotations

import operator

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..core import deprecations
from ..core import dtypes as _core
from ..core.config import config
from ..core.errors import ConcretizationTypeError
from ..core.symbolic import index_or_symbolic
from ..core.trace import Tracer
from ..numpy import util as numpy_util
from ..core.dtypes import canonicalize_user_dtype
from ..numpy.reductions import _count
from ..transforms.custom_derivatives import custom_jvp
from ..transforms.jit.namesakes import jax_jitted
from ..numpy.util import jnp_jit

__all__ = ["relu", "relu6", "gelu", "sigmoid", "softplus", "soft_sign", "silu", "swish",
           "log_sigmoid", "elu", "leaky_relu", "celu", "selu", "hard_tanh", "hard_sigmoid",
           "hard_silu", "hard_swish", "sparse_plus", "sparse_sigmoid", "squareplus", "mish",
           "log1mexp", "softmax", "log_softmax", "logsumexp", "logmeanexp", "one_hot",
           "standardize", "identity", "glu"]


@jax_jitted
@jnp_jit
def identity(x):
    """x itself (as an array)."""
    return numpy_util.ensure_arraylike("identity", x)


@custom_jvp
@jnp_jit
def relu(x):
    """max(x, 0); its derivative at 0 is 0 (a custom JVP, as JAX's).

    >>> relu(jnp.array([-2.0, 0.0, 3.0]))
    Array([0., 0., 3.], dtype=float32)
    """
    return jnp.maximum(x, 0)


relu.defjvps(lambda g, ans, x: lax.select(x > 0, g, numpy_util.full_like(g, 0)))


@custom_jvp
@jnp_jit
def relu6(x):
    """min(max(x, 0), 6), with derivative 0 at both kinks."""
    return jnp.minimum(jnp.maximum(x, 0), 6.0)


relu6.defjvps(lambda g, ans, x: lax.select((x > 0) & (x < 6), g, numpy_util.full_like(g, 0)))


@jax_jitted
@jnp_jit
def squareplus(x, b=4):
    """(x + sqrt(x**2 + b)) / 2, a smooth relu."""
    x, b = numpy_util.ensure_arraylike("squareplus", x, b)
    return (x + jnp.sqrt(jnp.square(x) + b)) / 2


@jax_jitted
@jnp_jit
def softplus(x):
    """log(1 + exp(x)), computed stably as logaddexp(x, 0)."""
    return jnp.logaddexp(x, 0)


@jax_jitted
@jnp_jit
def sparse_plus(x):
    x = numpy_util.ensure_arraylike("sparse_plus", x)
    return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@jax_jitted
@jnp_jit
def soft_sign(x):
    """x / (|x| + 1)."""
    x = numpy_util.ensure_arraylike("soft_sign", x)
    return x / (jnp.abs(x) + 1)


@jax_jitted
@jnp_jit(inline=True)
def sigmoid(x):
    """1 / (1 + exp(-x)) (lax.logistic).

    >>> sigmoid(0.0)
    Array(0.5, dtype=float32, weak_type=True)
    """
    return lax.logistic(x)


@jax_jitted
@jnp_jit
def sparse_sigmoid(x):
    return 0.5 * jnp.clip(x + 1.0, 0.0, 2.0)


@jax_jitted
@jnp_jit
def silu(x):
    """x * sigmoid(x) (also called swish)."""
    x = numpy_util.ensure_arraylike("silu", x)
    return x * sigmoid(x)


swish = silu


@jax_jitted
@jnp_jit
def mish(x):
    """x * tanh(softplus(x))."""
    x = numpy_util.ensure_arraylike("mish", x)
    return x * jnp.tanh(softplus(x))


@jax_jitted
@jnp_jit
def log_sigmoid(x):
    """log(sigmoid(x)) = -softplus(-x)."""
    x = numpy_util.ensure_arraylike("log_sigmoid", x)
    return -softplus(-x)


@jax_jitted
@jnp_jit
def elu(x, alpha=1.0):
    """x if x > 0 else alpha * (exp(x) - 1)."""
    x = numpy_util.ensure_arraylike("elu", x)
    return jnp.where(x > 0, x, alpha * jnp.expm1(jnp.where(x > 0, 0.0, x)))


@jax_jitted
@jnp_jit
def leaky_relu(x, negative_slope=0.01):
    """x if x >= 0 else negative_slope * x."""
    x = numpy_util.ensure_arraylike("leaky_relu", x)
    return jnp.where(x >= 0, x, negative_slope * x)


@jax_jitted
@jnp_jit
def hard_tanh(x):
    """x clipped to [-1, 1]."""
    x = numpy_util.ensure_arraylike("hard_tanh", x)
    return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


@jax_jitted
@jnp_jit
def celu(x, alpha=1.0):
    """max(x, 0) + alpha * expm1(min(x, 0) / alpha)."""
    return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


@jax_jitted
@jnp_jit
def selu(x):
    """scale * elu(x, alpha) with the self-normalizing constants."""
    alpha = 1.6732632423543772
    scale = 1.0507009873554805
    return scale * elu(x, alpha)


def gelu(x, approximate: bool = True):
    """Gaussian error linear unit: the tanh approximation, or exact with erfc.

    >>> gelu(1.0), gelu(1.0, approximate=False)
    (Array(0.841192, dtype=float32), Array(0.8413447, dtype=float32))
    """
    [x] = numpy_util.promote_args_inexact("gelu", x)
    if approximate:
        sqrt_2_over_pi = np.sqrt(2 / np.pi).astype(x.dtype)
        cdf = 0.5 * (1.0 + jnp.tanh(sqrt_2_over_pi * (x + 0.044715 * (x ** 3))))
        return x * cdf
    sqrt_half = np.sqrt(0.5).astype(x.dtype)
    return jnp.array(0.5 * x * lax.erfc(-x * sqrt_half), dtype=x.dtype)


@jax_jitted
@jnp_jit(static_argnames=("axis",))
def glu(x, axis: int = -1):
    """Gated linear unit: first half * sigmoid(second half) along `axis`."""
    x = numpy_util.ensure_arraylike("glu", x)
    assert x.shape[axis] % 2 == 0, "axis size must be divisible by 2"
    x1, x2 = jnp.split(x, 2, axis)
    return x1 * sigmoid(x2)


@jax_jitted
@jnp_jit
def hard_sigmoid(x):
    """relu6(x + 3) / 6."""
    return relu6(x + 3.0) / 6.0


@jax_jitted
@jnp_jit
def hard_silu(x):
    """x * hard_sigmoid(x)."""
    x = numpy_util.ensure_arraylike("hard_silu", x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


@custom_jvp
@jnp_jit
def log1mexp(x):
    """log(1 - exp(-x)), accurate on both sides of log(2)."""
    x = numpy_util.ensure_arraylike("log1mexp", x)
    c = jnp.log(2.0)
    return jnp.where(x < c, jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))


log1mexp.defjvps(lambda g, ans, x: g / jnp.expm1(x))


def _reduction_dims(a, axis):
    """(positive dims, dims) as JAX's reductions._reduction_dims: None means all axes."""
    ndim = a.ndim
    if axis is None:
        return tuple(range(ndim)), tuple(range(ndim))
    axes = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
    pos = tuple(sorted(numpy_util.canonicalize_axis(ax, ndim) for ax in axes))
    if len(set(pos)) != len(pos):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return pos, pos


def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False,
              where=None):
    """log(sum(b * exp(a))) along `axis`, shifted by the max of `a` for stability (also
    jax.scipy.special.logsumexp).

    >>> logsumexp(jnp.array([0.0, 0.0]))
    Array(0.6931472, dtype=float32)
    >>> logsumexp(jnp.array([1.0, 1.0]), b=jnp.array([1.0, -2.0]), return_sign=True)
    (Array(1., dtype=float32), Array(-1., dtype=float32))
    """
    if where is not None:
        a = jnp.where(where, a, 0)
    if b is not None:
        a_arr, b_arr = numpy_util.promote_args_inexact("logsumexp", a, b)
        a_arr = jnp.where(b_arr != 0, a_arr, -np.inf)
    else:
        a_arr, = numpy_util.promote_args_inexact("logsumexp", a)
        b_arr = a_arr
    pos_dims, dims = _reduction_dims(a_arr, axis)
    amax = jnp.max(a_arr.real, axis=dims, keepdims=keepdims, where=where, initial=-np.inf)
    amax = lax.stop_gradient(lax.select(jnp.isfinite(amax), amax,
                                        numpy_util.full_like(amax, 0)))
    amax_with_dims = amax if keepdims else lax.expand_dims(amax, pos_dims)
    exp_a = lax.exp(lax.sub(a_arr, amax_with_dims.astype(a_arr.dtype)))
    if b is not None:
        exp_a = lax.mul(exp_a, b_arr)
    sumexp = exp_a.sum(axis=dims, keepdims=keepdims, where=where)
    sign = lax.sign(sumexp)
    if return_sign or not _core.is_complex(a_arr.dtype):
        sumexp = abs(sumexp)
    out = lax.add(lax.log(sumexp), amax.astype(sumexp.dtype))
    if return_sign:
        return out, sign
    if b is not None and not _core.is_complex(out.dtype):
        out = jnp.where(sign < 0, jnp.array(np.nan, dtype=out.dtype), out)
    return out


@jax_jitted
@jnp_jit(static_argnames=("axis", "keepdims"))
def logmeanexp(x, axis=None, where=None, keepdims=False):
    """log(mean(exp(x))) = logsumexp(x) - log(n), n counting the elements reduced (or selected
    by `where`).

    >>> logmeanexp(jnp.array([0.0, 0.0, 0.0]))
    Array(0., dtype=float32)
    """
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    return lse - jnp.log(_count(x, axis, keepdims, where, lse.dtype))


# ---------------------------------------------------------------- normalizations
@jax_jitted
@jnp_jit(static_argnames=("axis",))
def log_softmax(x, axis=-1, where=None):
    """x - logsumexp(x) along `axis`, shifted by the max for stability.

    >>> log_softmax(jnp.array([0.0, 0.0]))
    Array([-0.6931472, -0.6931472], dtype=float32)
    """
    x = numpy_util.ensure_arraylike("log_softmax", x)
    x_max = jnp.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, -np.inf)
    shifted = x_safe - lax.stop_gradient(x_max)
    shifted_logsumexp = jnp.log(jnp.sum(jnp.exp(shifted), axis, where=where, keepdims=True))
    result = shifted - shifted_logsumexp
    if where is not None:
        return jnp.where(where, result, -np.inf)
    return result


def softmax(x, axis=-1, where=None):
    """exp(x - max) / sum(exp(x - max)) along `axis` (JAX's default form, differentiated
    through its operations; with `jax_softmax_custom_jvp`, a custom_jvp rule instead).

    >>> softmax(jnp.array([0.0, 0.0]))
    Array([0.5, 0.5], dtype=float32)
    """
    if config.jax_softmax_custom_jvp:
        return _softmax(x, axis, where, -np.inf)
    initial = -np.inf
    x_max = jnp.max(x, axis, where=where, initial=initial, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, initial)
    unnormalized = jnp.exp(x_safe - lax.stop_gradient(x_max))
    result = unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)
    if where is not None:
        result = jnp.where(where, result, 0)
    return result


def _softmax_value(x, axis, where, initial):
    x_max = jnp.max(x, axis, where=where, initial=initial, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, initial)
    unnormalized = jnp.exp(x_safe - x_max)
    result = unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)
    return result if where is None else jnp.where(where, result, 0)


# jax_softmax_custom_jvp's softmax: its tangent from its output, y * (t - sum(y * t)), so
# reverse mode keeps only y (JAX's _softmax)
_softmax = custom_jvp(_softmax_value, nondiff_argnums=(1,))


@_softmax.defjvp
def _softmax_jvp(axis, primals, tangents):
    (x, where, initial), (x_dot, _, _) = primals, tangents
    y = _softmax(x, axis, where, initial)
    return y, y * (x_dot - (y * x_dot).sum(axis, where=where, keepdims=True))


@jax_jitted
@jnp_jit(static_argnames=("axis", "algorithm"))
def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-05, where=None, *,
                algorithm: str = "fast"):
    """(x - mean) / sqrt(variance + epsilon) along `axis`."""
    numpy_util.check_arraylike("standardize", x)
    numpy_util.check_arraylike_or_none("standardize", mean, variance, where)
    if mean is None:
        mean = jnp.mean(x, axis, keepdims=True, where=where)
    if variance is None:
        if algorithm == "stable":
            variance = jnp.mean(jnp.square(jnp.subtract(x, mean)), axis, keepdims=True,
                                where=where)
        elif algorithm == "fast":
            variance = jnp.mean(jnp.square(x), axis, keepdims=True, where=where) - \
                jnp.square(mean)
            variance = jnp.clip(variance, 0)
        else:
            raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    return jnp.subtract(x, mean) * lax.rsqrt(variance + epsilon)


@jnp_jit(static_argnames=("num_classes", "dtype", "axis"))
def _one_hot(x, num_classes: int, *, dtype, axis: int):
    out_axis = numpy_util.canonicalize_axis(axis, x.ndim + 1)
    lhs = lax.expand_dims(x, (operator.index(axis),))
    rhs_shape = [1] * x.ndim
    rhs_shape.insert(out_axis, num_classes)
    rhs = lax.broadcasted_iota(x.dtype, rhs_shape, out_axis)
    return (lhs == rhs).astype(dtype)


def one_hot(x, num_classes: int, *, dtype=None, axis: int = -1):
    """x's integers as one-hot vectors of length num_classes (out-of-range: all zeros).

    >>> one_hot(jnp.array([0, 2]), 3)
    Array([[1., 0., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    if isinstance(num_classes, Tracer):
        value = num_classes.to_concrete_value()
        if value is None:
            raise ConcretizationTypeError(num_classes, "The error arose in jax.nn.one_hot "
                                                       "argument `num_classes`.\n")
        num_classes = value
    num_classes = index_or_symbolic(num_classes)      # (a symbolic size under jax.export)
    x = jnp.asarray(x)
    if not (_core.is_int(x.dtype)):
        deprecations.warn("jax-nn-one-hot-float-input",
                          f"jax.nn.one_hot input should be integer-typed; got dtype={x.dtype}",
                          stacklevel=2)
    dtype = _core.default_float_dtype() if dtype is None else \
        canonicalize_user_dtype(dtype, "astype")   # (JAX checks it in astype)
    return _one_hot(x, num_classes, dtype=dtype, axis=axis)
