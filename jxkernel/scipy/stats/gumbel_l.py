"""The left-skewed Gumbel (extreme value, minimum) distribution.

    >>> from jxkernel.scipy.stats import gumbel_l
    >>> gumbel_l.sf(0.0)        # exp(-1)
    Array(0.36787945, dtype=float32, weak_type=True)
"""
import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy.ufuncs import _const
from ...numpy.util import promote_args_inexact
from ..special import xlog1py, xlogy
from ._loc_scale import positive, standardized


def logpdf(x, loc=0, scale=1):
    """log density -log(scale) + z - exp(z); NaN for scale <= 0."""
    x, z, scale = standardized("gumbel_l.logpdf", x, loc, scale)
    out = lax.add(xlogy(-1, scale), lax.sub(z, lax.exp(z)))
    return jnp.where(positive(scale), out, np.nan)


def pdf(x, loc=0, scale=1):
    """density, exp(logpdf)."""
    return lax.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """log P(X <= x) = log(-expm1(-exp(z)))."""
    x, z, scale = standardized("gumbel_l.logcdf", x, loc, scale)
    return jnp.where(positive(scale), lax.log(-lax.expm1(lax.neg(lax.exp(z)))), np.nan)


def cdf(x, loc=0, scale=1):
    """P(X <= x)."""
    return lax.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    """The quantile function loc + scale log(-log1p(-p)); NaN outside (0, 1)."""
    p, loc, scale = promote_args_inexact("gumbel_l.ppf", p, loc, scale)
    ok = lax.bitwise_and(lax.gt(p, _const(p, 0)), lax.lt(p, _const(p, 1)))
    return jnp.where(ok, lax.add(loc, lax.mul(scale, lax.log(xlog1py(-1, lax.neg(p))))), np.nan)


def sf(x, loc=0, scale=1):
    """P(X > x)."""
    return jnp.exp(logsf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    """log P(X > x) = -exp(z)."""
    x, z, scale = standardized("gumbel_l.logsf", x, loc, scale)
    return jnp.where(positive(scale), lax.neg(lax.exp(z)), np.nan)
