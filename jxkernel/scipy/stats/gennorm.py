"""The generalized normal distribution with shape beta (2: normal, 1: Laplace).

    >>> from jxkernel.scipy.stats import gennorm
    >>> gennorm.cdf(0.0, 2.0)
    Array(0.5, dtype=float32, weak_type=True)
"""
from ... import lax
from ...numpy.util import promote_args_inexact


def logpdf(x, beta):
    """log density log(beta / 2) - lgamma(1 / beta) - |x|^beta."""
    x, beta = promote_args_inexact("gennorm.logpdf", x, beta)
    return lax.log(.5 * beta) - lax.lgamma(1 / beta) - lax.abs(x) ** beta


def cdf(x, beta):
    """P(X <= x) = (1 + sign(x) P(1/beta, |x|^beta)) / 2."""
    x, beta = promote_args_inexact("gennorm.cdf", x, beta)
    return .5 * (1 + lax.sign(x) * lax.igamma(1 / beta, lax.abs(x) ** beta))


def pdf(x, beta):
    """density, exp(logpdf)."""
    return lax.exp(logpdf(x, beta))
