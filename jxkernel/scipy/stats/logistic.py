"""The logistic distribution.

    >>> from jxkernel.scipy.stats import logistic
    >>> logistic.cdf(0.0)
    Array(0.5, dtype=float32, weak_type=True)
"""
from ... import lax
from ... import numpy as jnp
from ...numpy.ufuncs import _const
from ...numpy.util import promote_args_inexact
from ..special import expit, logit


def logpdf(x, loc=0, scale=1):
    """log density: -2 logaddexp(z/2, -z/2) - log(scale), stable for large |z|."""
    x, loc, scale = promote_args_inexact("logistic.logpdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    two = _const(z, 2)
    half_z = lax.div(z, two)
    return lax.sub(lax.mul(lax.neg(two), jnp.logaddexp(half_z, lax.neg(half_z))), lax.log(scale))


def pdf(x, loc=0, scale=1):
    """density, exp(logpdf)."""
    return lax.exp(logpdf(x, loc, scale))


def ppf(x, loc=0, scale=1):
    """The quantile function, logit(q) scaled."""
    x, loc, scale = promote_args_inexact("logistic.ppf", x, loc, scale)
    return lax.add(lax.mul(logit(x), scale), loc)


def sf(x, loc=0, scale=1):
    """P(X > x) = expit(-z)."""
    x, loc, scale = promote_args_inexact("logistic.sf", x, loc, scale)
    return expit(lax.neg(lax.div(lax.sub(x, loc), scale)))


def isf(x, loc=0, scale=1):
    """The inverse survival function."""
    x, loc, scale = promote_args_inexact("logistic.isf", x, loc, scale)
    return lax.add(lax.mul(lax.neg(logit(x)), scale), loc)


def cdf(x, loc=0, scale=1):
    """P(X <= x) = expit(z)."""
    x, loc, scale = promote_args_inexact("logistic.cdf", x, loc, scale)
    return expit(lax.div(lax.sub(x, loc), scale))
