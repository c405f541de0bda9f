"""The Poisson distribution with mean mu.

    >>> from jxkernel.scipy.stats import poisson
    >>> poisson.pmf(2.0, 2.0)
    Array(0.2706705, dtype=float32, weak_type=True)
"""
import numpy as np

from ...transforms.jit.namesakes import jax_jitted
from ... import lax
from ... import numpy as jnp
from ...numpy.ufuncs import _const
from ...numpy.util import (
    ensure_arraylike,
    jnp_jit,
    promote_args_inexact,
    promote_dtypes_inexact,
)
from ..special import entr, gammaincc, gammaln, xlogy


def logpmf(k, mu, loc=0):
    """log P(X = k): -inf for negative or non-integer k."""
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
    zero = _const(k, 0)
    x = lax.sub(k, loc)
    out = xlogy(x, mu) - gammaln(x + 1) - mu
    return jnp.where(jnp.logical_or(lax.lt(x, zero), lax.ne(jnp.round(k), k)), -np.inf, out)


def pmf(k, mu, loc=0):
    """P(X = k)."""
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    """P(X <= k) = Q(floor(k + 1), mu) (the upper regularized incomplete gamma)."""
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
    zero = _const(k, 0)
    x = lax.sub(k, loc)
    return jnp.where(lax.lt(x, zero), zero, gammaincc(jnp.floor(1 + x), mu))


def _entropy_by_sum(mu, max_k, upper):
    # sum of entr(pmf) over k < upper (per mu), k up to a static max_k
    k = jnp.arange(max_k, dtype=mu.dtype)[:, None]
    probs = pmf(k, mu, 0)
    keep = k < jnp.ceil(upper).astype(k.dtype)[None, :]
    return jnp.sum(entr(jnp.where(keep, probs, 0.0)), axis=0)


@jax_jitted
@jnp_jit
def entropy(mu, loc=0):
    """The entropy of Poisson(mu) (loc does not change it): a direct sum for mu < 100, the
    asymptotic series beyond. ``poisson.entropy(0.)`` is 0."""
    mu, loc = ensure_arraylike("poisson.entropy", mu, loc)
    mu, loc = promote_dtypes_inexact(mu, loc)
    shape = jnp.broadcast_shapes(mu.shape, loc.shape)
    flat = jnp.ravel(mu)
    large = 0.5 * jnp.log(2 * np.pi * np.e * flat) - 1.0 / (12 * flat)
    medium = _entropy_by_sum(flat, 250, flat + 10 * jnp.sqrt(flat) + 20)
    small = _entropy_by_sum(flat, 35, flat + 20)
    out = jnp.where(flat == 0, jnp.zeros_like(flat),
                    jnp.where(flat < 10, small, jnp.where(flat < 100, medium, large)))
    return jnp.broadcast_to(jnp.reshape(out, mu.shape), shape)
