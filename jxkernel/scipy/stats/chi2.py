"""The chi-squared distribution with df degrees of freedom.

    >>> from jxkernel.scipy.stats import chi2
    >>> chi2.cdf(2.0, 2.0)     # 1 - exp(-1)
    Array(0.6321202, dtype=float32, weak_type=True)
"""
import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy.ufuncs import _const
from ...numpy.util import promote_args_inexact
from ..special import gammainc, gammaincc


def logpdf(x, df, loc=0, scale=1):
    """log density (-inf below loc)."""
    x, df, loc, scale = promote_args_inexact("chi2.logpdf", x, df, loc, scale)
    one, two = _const(x, 1), _const(x, 2)
    y = lax.div(lax.sub(x, loc), scale)
    half_df = lax.div(df, two)
    kernel = lax.sub(lax.mul(lax.sub(half_df, one), lax.log(y)), lax.div(y, two))
    log_norm = lax.neg(lax.add(lax.lgamma(half_df), lax.div(lax.mul(lax.log(two), df), two)))
    out = lax.add(lax.sub(log_norm, lax.log(scale)), kernel)
    return jnp.where(lax.lt(x, loc), -np.inf, out)


def pdf(x, df, loc=0, scale=1):
    """density, exp(logpdf)."""
    return lax.exp(logpdf(x, df, loc, scale))


def _half(x, loc, scale):
    # (x - loc) / (2 scale), clamped to [0, inf]
    two = _const(scale, 2)
    return lax.clamp(_const(x, 0), lax.div(lax.sub(x, loc), lax.mul(scale, two)),
                     _const(x, np.inf))


def cdf(x, df, loc=0, scale=1):
    """P(X <= x) = P(df/2, x/2)."""
    x, df, loc, scale = promote_args_inexact("chi2.cdf", x, df, loc, scale)
    return gammainc(lax.div(df, _const(scale, 2)), _half(x, loc, scale))


def logcdf(x, df, loc=0, scale=1):
    """log cdf."""
    return lax.log(cdf(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
    """P(X > x) = Q(df/2, x/2)."""
    x, df, loc, scale = promote_args_inexact("chi2.sf", x, df, loc, scale)
    return gammaincc(lax.div(df, _const(scale, 2)), _half(x, loc, scale))


def logsf(x, df, loc=0, scale=1):
    """log sf."""
    return lax.log(sf(x, df, loc, scale))
