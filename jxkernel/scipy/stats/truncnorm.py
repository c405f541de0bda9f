"""The normal distribution truncated to [a, b] (in standard units: the support is
[loc + a scale, loc + b scale]).

    >>> from jxkernel.scipy.stats import truncnorm
    >>> truncnorm.cdf(0.0, -1.0, 1.0)
    Array(0.49999994, dtype=float32)
"""
import numpy as np

from ...transforms.jit.namesakes import jax_jitted
from ... import lax
from ... import numpy as jnp
from ...numpy.util import jnp_jit, promote_args_inexact
from ..special import log_ndtr, logsumexp, ndtr
from . import norm


def _log_diff(x, y):
    """log(exp(x) - exp(y)), for x >= y."""
    return logsumexp(jnp.array([x, y]), b=jnp.array([jnp.ones_like(x), -jnp.ones_like(y)]),
                     axis=0)


def _log_gauss_mass(a, b):
    """log(Phi(b) - Phi(a)), computed in the tail that keeps it accurate."""
    a, b = jnp.broadcast_arrays(jnp.array(a), jnp.array(b))
    left, right = b <= 0, a > 0
    central = ~(left | right)
    # a right tail is mirrored into a left one
    lo, hi = jnp.where(right, -b, a), jnp.where(right, -a, b)
    tail = _log_diff(log_ndtr(hi), log_ndtr(lo))
    return jnp.where(central, jnp.log1p(-ndtr(a) - ndtr(-b)), tail)


@jax_jitted
@jnp_jit
def logpdf(x, a, b, loc=0, scale=1):
    """log density: -inf outside [a, b] (standardized), NaN if a >= b."""
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logpdf", x, a, b, loc, scale)
    out = lax.sub(norm.logpdf(x, loc, scale), _log_gauss_mass(a, b))
    z = lax.div(lax.sub(x, loc), scale)
    out = jnp.where((z < a) | (z > b), -np.inf, out)
    return jnp.where(a >= b, np.nan, out)


def pdf(x, a, b, loc=0, scale=1):
    """density, exp(logpdf)."""
    return lax.exp(logpdf(x, a, b, loc, scale))


@jax_jitted
@jnp_jit
def logsf(x, a, b, loc=0, scale=1):
    """log P(X > x): the logcdf of the mirrored distribution."""
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logsf", x, a, b, loc, scale)
    return logcdf(-x, -b, -a, -loc, scale)


@jax_jitted
@jnp_jit
def sf(x, a, b, loc=0, scale=1):
    """P(X > x)."""
    return lax.exp(logsf(x, a, b, loc, scale))


@jax_jitted
@jnp_jit
def logcdf(x, a, b, loc=0, scale=1):
    """log P(X <= x) (from the survival mass near the top, where that is more accurate)."""
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logcdf", x, a, b, loc, scale)
    x, a, b = jnp.broadcast_arrays(x, a, b)
    x = lax.div(lax.sub(x, loc), scale)
    total = _log_gauss_mass(a, b)
    lower = _log_gauss_mass(a, x) - total
    upper = _log_gauss_mass(x, b) - total
    out = jnp.select([x >= b, x <= a, lower > -0.1, x > a],
                     [0, -np.inf, jnp.log1p(-jnp.exp(upper)), lower])
    return jnp.where(a >= b, np.nan, out)


@jax_jitted
@jnp_jit
def cdf(x, a, b, loc=0, scale=1):
    """P(X <= x)."""
    return lax.exp(logcdf(x, a, b, loc, scale))
