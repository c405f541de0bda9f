"""The exponential distribution (rate 1/scale) starting at loc.

    >>> from jxkernel.scipy.stats import expon
    >>> expon.cdf(1.0)
    Array(0.63212055, dtype=float32, weak_type=True)
"""
import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy.util import promote_args_inexact


def logpdf(x, loc=0, scale=1):
    """log density: -(x - loc) / scale - log(scale), -inf below loc."""
    x, loc, scale = promote_args_inexact("expon.logpdf", x, loc, scale)
    out = lax.neg(lax.add(lax.div(lax.sub(x, loc), scale), lax.log(scale)))
    return jnp.where(lax.lt(x, loc), -np.inf, out)


def pdf(x, loc=0, scale=1):
    """density, exp(logpdf)."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """P(X <= x) = -expm1(-(x - loc) / scale)."""
    x, loc, scale = promote_args_inexact("expon.cdf", x, loc, scale)
    neg_z = lax.div(lax.sub(loc, x), scale)
    return jnp.where(lax.lt(x, loc), jnp.zeros_like(neg_z), lax.neg(lax.expm1(neg_z)))


def logcdf(x, loc=0, scale=1):
    """log cdf = log1p(-sf)."""
    return lax.log1p(lax.neg(sf(x, loc, scale)))


def logsf(x, loc=0, scale=1):
    """log P(X > x) = -(x - loc) / scale (0 below loc)."""
    x, loc, scale = promote_args_inexact("expon.sf", x, loc, scale)
    neg_z = lax.div(lax.sub(loc, x), scale)
    return jnp.where(lax.lt(x, loc), jnp.zeros_like(neg_z), neg_z)


def sf(x, loc=0, scale=1):
    """P(X > x)."""
    return lax.exp(logsf(x, loc, scale))


def ppf(q, loc=0, scale=1):
    """The quantile function; NaN for q outside [0, 1]."""
    q, loc, scale = promote_args_inexact("expon.ppf", q, loc, scale)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan,
                     lax.sub(loc, lax.mul(scale, lax.log1p(lax.neg(q)))))
