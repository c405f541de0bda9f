"""The uniform distribution on [loc, loc + scale].

    >>> from jxkernel.scipy.stats import uniform
    >>> uniform.cdf(0.25)
    Array(0.25, dtype=float32)
"""
import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy.util import promote_args_inexact


def logpdf(x, loc=0, scale=1):
    """log density: -log(scale) inside, -inf outside."""
    x, loc, scale = promote_args_inexact("uniform.logpdf", x, loc, scale)
    outside = jnp.logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc))
    return jnp.where(outside, -np.inf, lax.neg(lax.log(scale)))


def pdf(x, loc=0, scale=1):
    """density, exp(logpdf)."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """P(X <= x)."""
    x, loc, scale = promote_args_inexact("uniform.cdf", x, loc, scale)
    zero, one = jnp.array(0, x.dtype), jnp.array(1, x.dtype)
    hi = lax.add(loc, scale)
    return jnp.select([lax.lt(x, loc), lax.gt(x, hi), lax.ge(x, loc) & lax.le(x, hi)],
                      [zero, one, lax.div(lax.sub(x, loc), scale)])


def ppf(q, loc=0, scale=1):
    """The quantile function; NaN for q outside [0, 1]."""
    q, loc, scale = promote_args_inexact("uniform.ppf", q, loc, scale)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, lax.add(loc, lax.mul(scale, q)))
