"""The Laplace (double exponential) distribution.

    >>> from jxkernel.scipy.stats import laplace
    >>> laplace.cdf(0.0)
    Array(0.5, dtype=float32, weak_type=True)
"""
from ... import lax
from ...numpy.ufuncs import _const
from ...numpy.util import promote_args_inexact


def logpdf(x, loc=0, scale=1):
    """log density: -|x - loc| / scale - log(2 scale)."""
    x, loc, scale = promote_args_inexact("laplace.logpdf", x, loc, scale)
    z = lax.div(lax.abs(lax.sub(x, loc)), scale)
    return lax.neg(lax.add(z, lax.log(lax.mul(_const(x, 2), scale))))


def pdf(x, loc=0, scale=1):
    """density, exp(logpdf)."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """P(X <= x)."""
    x, loc, scale = promote_args_inexact("laplace.cdf", x, loc, scale)
    half, one, zero = _const(x, 0.5), _const(x, 1), _const(x, 0)
    z = lax.div(lax.sub(x, loc), scale)
    return lax.select(lax.le(z, zero), lax.mul(half, lax.exp(z)),
                      lax.sub(one, lax.mul(half, lax.exp(lax.neg(z)))))
