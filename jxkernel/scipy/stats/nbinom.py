"""The negative binomial distribution: k failures before the n-th success.

    >>> from jxkernel.scipy.stats import nbinom
    >>> nbinom.pmf(0.0, 1.0, 0.5)
    Array(0.49999976, dtype=float32, weak_type=True)
"""
import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy.ufuncs import _const
from ...numpy.util import promote_args_inexact
from ..special import gammaln, xlogy


def logpmf(k, n, p, loc=0):
    """log P(X = k); -inf below loc."""
    k, n, p, loc = promote_args_inexact("nbinom.logpmf", k, n, p, loc)
    one = _const(k, 1)
    y = lax.sub(k, loc)
    log_comb = lax.sub(lax.sub(gammaln(lax.add(y, n)), gammaln(n)), gammaln(lax.add(y, one)))
    log_kernel = lax.add(xlogy(n, p), xlogy(y, lax.sub(one, p)))
    return jnp.where(lax.lt(k, loc), -np.inf, lax.add(log_comb, log_kernel))


def pmf(k, n, p, loc=0):
    """P(X = k)."""
    return lax.exp(logpmf(k, n, p, loc))
