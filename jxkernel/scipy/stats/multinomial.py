"""The multinomial distribution: counts x (integers, last axis) of n draws with
probabilities p.

    >>> from jxkernel.scipy.stats import multinomial
    >>> multinomial.pmf(jnp.array([1, 1]), 2, jnp.array([0.5, 0.5]))
    Array(0.5000001, dtype=float32)
"""
import numpy as np

from ... import lax
from ... import numpy as jnp
from ...core import dtypes
from ...numpy.util import promote_args_inexact, promote_args_numeric
from ..special import gammaln, xlogy


def logpmf(x, n, p):
    """log P(X = x); -inf unless the counts sum to n."""
    p, = promote_args_inexact("multinomial.logpmf", p)
    x, n = promote_args_numeric("multinomial.logpmf", x, n)
    if not dtypes.issubdtype(x.dtype, np.integer):
        raise ValueError(f"x and n must be of integer type; got x.dtype={x.dtype}, "
                         f"n.dtype={n.dtype}")
    x, n = x.astype(p.dtype), n.astype(p.dtype)
    out = gammaln(n + 1) + jnp.sum(xlogy(x, p) - gammaln(x + 1), axis=-1)
    return jnp.where(jnp.equal(jnp.sum(x), n), out, -np.inf)


def pmf(x, n, p):
    """P(X = x)."""
    return lax.exp(logpmf(x, n, p))
