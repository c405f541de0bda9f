"""The Cauchy distribution.

    >>> from jxkernel.scipy.stats import cauchy
    >>> cauchy.cdf(1.0)
    Array(0.75, dtype=float32, weak_type=True)
"""
import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy.ufuncs import _const
from ...numpy.util import promote_args_inexact
from ._loc_scale import reflected, standardized


def logpdf(x, loc=0, scale=1):
    """log density: -log(pi scale) - log1p(z^2)."""
    x, z, scale = standardized("cauchy.logpdf", x, loc, scale)
    return lax.neg(lax.add(lax.log(lax.mul(_const(x, np.pi), scale)),
                           lax.log1p(lax.mul(z, z))))


def pdf(x, loc=0, scale=1):
    """density, exp(logpdf)."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """P(X <= x) = 1/2 + arctan(z) / pi."""
    x, z, scale = standardized("cauchy.cdf", x, loc, scale)
    inv_pi = lax.div(_const(x, 1.), _const(x, np.pi))
    return lax.add(_const(x, 0.5), lax.mul(inv_pi, jnp.arctan(z)))


def logcdf(x, loc=0, scale=1):
    """log cdf."""
    return lax.log(cdf(x, loc, scale))


sf = reflected("cauchy.sf", cdf, "P(X > x).")
logsf = reflected("cauchy.logsf", logcdf, "log sf.")


def _tan_shifted(q, sign):
    # tan(sign * (pi q - pi/2)): the quantile of the standard Cauchy (sign 1) or its isf (-1)
    pi, half_pi = _const(q, np.pi), _const(q, np.pi / 2)
    arg = lax.sub(lax.mul(pi, q), half_pi) if sign > 0 else lax.sub(half_pi, lax.mul(pi, q))
    return lax.tan(arg)


def isf(q, loc=0, scale=1):
    """The inverse survival function."""
    q, loc, scale = promote_args_inexact("cauchy.isf", q, loc, scale)
    return lax.add(lax.mul(_tan_shifted(q, -1), scale), loc)


def ppf(q, loc=0, scale=1):
    """The quantile function."""
    q, loc, scale = promote_args_inexact("cauchy.ppf", q, loc, scale)
    return lax.add(lax.mul(_tan_shifted(q, 1), scale), loc)
