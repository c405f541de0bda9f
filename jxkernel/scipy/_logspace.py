"""Log-space normalizations that jax.nn and jax.scipy.special share: log1mexp, log_softmax,
softmax. Here, below both, so that neither imports the other (nn re-exports them).

    >>> softmax(jnp.array([1.0, 2.0, 3.0]))
    Array([0.09003057, 0.24472848, 0.66524094], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..numpy import util as numpy_util
from ..numpy.util import jnp_jit
from ..transforms.custom_derivatives import custom_jvp


@custom_jvp
@jnp_jit
def log1mexp(x):
    """log(1 - exp(-x)), accurate on both sides of log(2)."""
    x = numpy_util.ensure_arraylike("log1mexp", x)
    c = jnp.log(2.0)
    return jnp.where(x < c, jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))


log1mexp.defjvps(lambda g, ans, x: g / jnp.expm1(x))


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
    """exp(x - max) / sum(exp(x - max)) along `axis` (JAX's default, non-custom-jvp form).

    >>> softmax(jnp.array([0.0, 0.0]))
    Array([0.5, 0.5], dtype=float32)
    """
    initial = -np.inf
    x_max = jnp.max(x, axis, where=where, initial=initial, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, initial)
    unnormalized = jnp.exp(x_safe - lax.stop_gradient(x_max))
    result = unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)
    if where is not None:
        result = jnp.where(where, result, 0)
    return result
