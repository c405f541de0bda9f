"""The gamma distribution with shape a.

    >>> from jxkernel.scipy.stats import gamma
    >>> gamma.cdf(1.0, 1.0)    # exponential: 1 - 1/e
    Array(0.6321202, dtype=float32, weak_type=True)
"""
import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy.ufuncs import _const
from ...numpy.util import promote_args_inexact
from ..special import gammainc, gammaincc, gammaln, xlogy


def logpdf(x, a, loc=0, scale=1):
    """log density (-inf below loc)."""
    x, a, loc, scale = promote_args_inexact("gamma.logpdf", x, a, loc, scale)
    ok = lax.ge(x, loc)
    one = _const(x, 1)
    y = jnp.where(ok, lax.div(lax.sub(x, loc), scale), one)
    log_kernel = lax.sub(xlogy(lax.sub(a, one), y), y)
    out = lax.sub(log_kernel, lax.add(gammaln(a), lax.log(scale)))
    return jnp.where(ok, out, -np.inf)


def pdf(x, a, loc=0, scale=1):
    """density, exp(logpdf)."""
    return lax.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
    """P(X <= x): the regularized lower incomplete gamma function."""
    x, a, loc, scale = promote_args_inexact("gamma.cdf", x, a, loc, scale)
    y = lax.clamp(_const(x, 0), lax.div(lax.sub(x, loc), scale), _const(x, np.inf))
    return gammainc(a, y)


def logcdf(x, a, loc=0, scale=1):
    """log cdf."""
    return lax.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
    """P(X > x): the regularized upper incomplete gamma function (1 below loc)."""
    x, a, loc, scale = promote_args_inexact("gamma.sf", x, a, loc, scale)
    y = lax.div(lax.sub(x, loc), scale)
    return jnp.where(lax.lt(y, _const(y, 0)), 1, gammaincc(a, y))


def logsf(x, a, loc=0, scale=1):
    """log sf."""
    return lax.log(sf(x, a, loc, scale))
