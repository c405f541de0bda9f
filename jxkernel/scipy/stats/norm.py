"""The normal distribution N(loc, scale**2).

    >>> from jxkernel.scipy.stats import norm
    >>> norm.cdf(jnp.array([0.0, 1.96]))
    Array([0.5      , 0.9750021], dtype=float32)
"""
import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy.ufuncs import _const
from ...numpy.util import promote_args_inexact
from .. import special
from ._loc_scale import reflected, standardized


def logpdf(x, loc=0, scale=1):
    """log density: -(log(2 pi scale^2) + ((x - loc) / scale)^2) / 2."""
    x, loc, scale = promote_args_inexact("norm.logpdf", x, loc, scale)
    var = lax.square(scale)
    log_norm = lax.log(lax.mul(_const(x, 2 * np.pi), var))
    z2 = lax.div(lax.square(lax.sub(x, loc)), var)
    return lax.div(lax.add(log_norm, z2), _const(x, -2))


def pdf(x, loc=0, scale=1):
    """density, exp(logpdf)."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """P(X <= x), via special.ndtr."""
    _, z, _ = standardized("norm.cdf", x, loc, scale)
    return special.ndtr(z)


def logcdf(x, loc=0, scale=1):
    """log P(X <= x), accurate far in the left tail (special.log_ndtr)."""
    _, z, _ = standardized("norm.logcdf", x, loc, scale)
    return special.log_ndtr(z)


def ppf(q, loc=0, scale=1):
    """The quantile function (inverse cdf). ``norm.ppf(0.5)`` is 0."""
    return jnp.asarray(special.ndtri(q) * scale + loc, float)


logsf = reflected("norm.logsf", logcdf, "log P(X > x).")
sf = reflected("norm.sf", cdf, "P(X > x) = cdf of the reflected distribution.")


def isf(q, loc=0, scale=1):
    """The inverse survival function, ppf(1 - q)."""
    return ppf(lax.sub(_const(q, 1), q), loc, scale)
