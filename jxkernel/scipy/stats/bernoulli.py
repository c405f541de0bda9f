"""The Bernoulli distribution with success probability p.

    >>> from jxkernel.scipy.stats import bernoulli
    >>> bernoulli.pmf(1.0, 0.3)
    Array(0.3, dtype=float32, weak_type=True)
"""
import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy.ufuncs import _const
from ...numpy.util import promote_args_inexact
from ..special import xlog1py, xlogy
from ._loc_scale import shifted


def logpmf(k, p, loc=0):
    """log P(X = k) = k log p + (1 - k) log(1 - p); -inf outside [0, 1]."""
    x, p, zero, one = shifted("bernoulli.logpmf", k, p, loc)
    out = xlogy(x, p) + xlog1py(lax.sub(one, x), -p)
    return jnp.where(jnp.logical_or(lax.lt(x, zero), lax.gt(x, one)), -np.inf, out)


def pmf(k, p, loc=0):
    """P(X = k)."""
    return jnp.exp(logpmf(k, p, loc))


def cdf(k, p):
    """P(X <= k); NaN for NaN inputs or p outside [0, 1]."""
    k, p = promote_args_inexact("bernoulli.cdf", k, p)
    zero, one = _const(k, 0), _const(k, 1)
    invalid = jnp.isnan(k) | jnp.isnan(p) | (p < zero) | (p > one)
    return jnp.select([invalid, lax.lt(k, zero),
                       jnp.logical_and(lax.ge(k, zero), lax.lt(k, one)), lax.ge(k, one)],
                      [jnp.nan, zero, one - p, one])


def ppf(q, p):
    """The quantile function: 0 for q <= 1 - p, else 1."""
    q, p = promote_args_inexact("bernoulli.ppf", q, p)
    zero, one = _const(q, 0), _const(q, 1)
    invalid = (jnp.isnan(q) | jnp.isnan(p) | (p < zero) | (p > one) | (q < zero) | (q > one))
    return jnp.where(invalid, jnp.nan, jnp.where(lax.le(q, one - p), zero, one))
