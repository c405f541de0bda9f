"""The right-skewed Gumbel (extreme value, maximum) distribution.

    >>> from jxkernel.scipy.stats import gumbel_r
    >>> gumbel_r.cdf(0.0)       # exp(-1)
    Array(0.36787945, dtype=float32, weak_type=True)
"""
import numpy as np

from ... import lax
from ... import numpy as jnp
from ...nn.functions import log1mexp
from ...numpy.ufuncs import _const
from ...numpy.util import promote_args_inexact
from ..special import xlogy
from ._loc_scale import positive, standardized


def logpdf(x, loc=0, scale=1):
    """log density -log(scale) - (z + exp(-z)); NaN for scale <= 0."""
    x, z, scale = standardized("gumbel_r.logpdf", x, loc, scale)
    out = lax.add(xlogy(-1, scale), lax.neg(lax.add(z, lax.exp(lax.neg(z)))))
    return jnp.where(positive(scale), out, np.nan)


def pdf(x, loc=0, scale=1):
    """density, exp(logpdf)."""
    return lax.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """log P(X <= x) = -exp(-z)."""
    x, z, scale = standardized("gumbel_r.logcdf", x, loc, scale)
    return jnp.where(positive(scale), lax.neg(lax.exp(lax.neg(z))), np.nan)


def cdf(x, loc=0, scale=1):
    """P(X <= x)."""
    return lax.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    """The quantile function loc - scale log(-log p); NaN outside (0, 1)."""
    p, loc, scale = promote_args_inexact("gumbel_r.ppf", p, loc, scale)
    ok = lax.bitwise_and(lax.gt(p, _const(p, 0)), lax.lt(p, _const(p, 1)))
    return jnp.where(ok, lax.sub(loc, lax.mul(scale, lax.log(xlogy(-1, p)))), np.nan)


def sf(x, loc=0, scale=1):
    """P(X > x) = 1 - exp(-exp(-z))."""
    x, loc, scale = promote_args_inexact("gumbel_r.sf", x, loc, scale)
    neg_z = lax.div(lax.sub(loc, x), scale)
    out = lax.sub(_const(x, 1), lax.exp(lax.neg(lax.exp(neg_z))))
    return jnp.where(positive(scale), out, np.nan)


def logsf(x, loc=0, scale=1):
    """log sf = log1mexp(exp(-z))."""
    x, loc, scale = promote_args_inexact("gumbel_r.logsf", x, loc, scale)
    neg_z = lax.div(lax.sub(loc, x), scale)
    return jnp.where(positive(scale), log1mexp(lax.exp(neg_z)), np.nan)
