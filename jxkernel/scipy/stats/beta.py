"""The beta distribution on [loc, loc + scale] with shapes a, b.

    >>> from jxkernel.scipy.stats import beta
    >>> beta.cdf(0.5, 2.0, 2.0)
    Array(0.49999958, dtype=float32, weak_type=True)
"""
import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy.ufuncs import _const
from ...numpy.util import promote_args_inexact
from ..special import betainc, betaln, xlog1py, xlogy


def logpdf(x, a, b, loc=0, scale=1):
    """log density: -inf outside the support, NaN for a, b or scale <= 0."""
    x, a, b, loc, scale = promote_args_inexact("beta.logpdf", x, a, b, loc, scale)
    one, zero = _const(x, 1), _const(a, 0)
    y = lax.div(lax.sub(x, loc), scale)
    log_kernel = lax.add(xlogy(lax.sub(a, one), y), xlog1py(lax.sub(b, one), lax.neg(y)))
    out = lax.sub(lax.add(lax.neg(betaln(a, b)), log_kernel), lax.log(scale))
    outside = jnp.logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc))
    out = jnp.where(outside, -np.inf, out)
    bad = jnp.logical_or(jnp.logical_or(lax.le(a, zero), lax.le(b, zero)), lax.le(scale, zero))
    return jnp.where(bad, np.nan, out)


def pdf(x, a, b, loc=0, scale=1):
    """density, exp(logpdf)."""
    return lax.exp(logpdf(x, a, b, loc, scale))


def _unit(x, loc, scale):
    return lax.clamp(_const(x, 0), lax.div(lax.sub(x, loc), scale), _const(x, 1))


def cdf(x, a, b, loc=0, scale=1):
    """P(X <= x): the regularized incomplete beta function."""
    x, a, b, loc, scale = promote_args_inexact("beta.cdf", x, a, b, loc, scale)
    return betainc(a, b, _unit(x, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
    """log cdf."""
    return lax.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    """P(X > x) = I_{1-y}(b, a)."""
    x, a, b, loc, scale = promote_args_inexact("beta.sf", x, a, b, loc, scale)
    return betainc(b, a, 1 - _unit(x, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
    """log sf."""
    return lax.log(sf(x, a, b, loc, scale))
