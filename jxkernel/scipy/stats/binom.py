"""The binomial distribution: k successes in n trials of probability p.

    >>> from jxkernel.scipy.stats import binom
    >>> binom.pmf(1.0, 2.0, 0.5)
    Array(0.5000001, dtype=float32, weak_type=True)
"""
import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy.ufuncs import _const
from ...numpy.util import promote_args_inexact
from ..special import gammaln, xlog1py, xlogy


def logpmf(k, n, p, loc=0):
    """log P(X = k); -inf outside [loc, loc + n]."""
    k, n, p, loc = promote_args_inexact("binom.logpmf", k, n, p, loc)
    y = lax.sub(k, loc)
    zero = _const(y, 0)
    log_comb = lax.sub(gammaln(n + 1), lax.add(gammaln(y + 1), gammaln(n - y + 1)))
    log_kernel = lax.add(xlogy(y, p), xlog1py(lax.sub(n, y), lax.neg(p)))
    out = lax.add(log_comb, log_kernel)
    certain = jnp.logical_or(jnp.logical_and(lax.eq(y, zero), lax.eq(n, zero)),
                             lax.eq(log_kernel, zero))
    out = jnp.where(certain, 0., out)
    return jnp.where(lax.ge(k, loc) & lax.lt(k, loc + n + 1), out, -np.inf)


def pmf(k, n, p, loc=0):
    """P(X = k)."""
    return lax.exp(logpmf(k, n, p, loc))
