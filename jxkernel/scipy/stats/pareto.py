"""The Pareto distribution with shape b (support x >= loc + scale).

    >>> from jxkernel.scipy.stats import pareto
    >>> pareto.cdf(2.0, 1.0)
    Array(0.5, dtype=float32, weak_type=True)
"""
import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy.ufuncs import _const
from ...numpy.util import promote_args_inexact


def _below(x, loc, scale):
    return lax.lt(x, lax.add(loc, scale))


def logpdf(x, b, loc=0, scale=1):
    """log density -log(scale / b) - (b + 1) log z; -inf below the support."""
    x, b, loc, scale = promote_args_inexact("pareto.logpdf", x, b, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    out = lax.neg(lax.add(lax.log(lax.div(scale, b)),
                          lax.mul(lax.add(b, _const(x, 1)), lax.log(z))))
    return jnp.where(_below(x, loc, scale), -np.inf, out)


def pdf(x, b, loc=0, scale=1):
    """density, exp(logpdf)."""
    return lax.exp(logpdf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
    """P(X <= x) = 1 - z^-b."""
    x, b, loc, scale = promote_args_inexact("pareto.cdf", x, b, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    out = lax.sub(_const(x, 1), lax.pow(z, lax.neg(b)))
    return jnp.where(_below(x, loc, scale), _const(x, 0), out)


def logcdf(x, b, loc=0, scale=1):
    """log cdf = log1p(-z^-b)."""
    x, b, loc, scale = promote_args_inexact("pareto.logcdf", x, b, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    return jnp.where(_below(x, loc, scale), -np.inf, lax.log1p(lax.neg(lax.pow(z, lax.neg(b)))))


def logsf(x, b, loc=0, scale=1):
    """log P(X > x) = -b log z."""
    x, b, loc, scale = promote_args_inexact("pareto.logsf", x, b, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    return jnp.where(_below(x, loc, scale), _const(x, 0), lax.neg(lax.mul(b, lax.log(z))))


def sf(x, b, loc=0, scale=1):
    """P(X > x)."""
    return lax.exp(logsf(x, b, loc, scale))


def ppf(q, b, loc=0, scale=1):
    """The quantile function loc + scale (1 - q)^(-1/b); NaN for q outside [0, 1]."""
    q, b, loc, scale = promote_args_inexact("pareto.ppf", q, b, loc, scale)
    one = _const(q, 1)
    out = lax.add(loc, lax.mul(scale, lax.pow(lax.sub(one, q), lax.neg(lax.div(one, b)))))
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, out)
