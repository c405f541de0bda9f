"""The beta-binomial distribution: binomial(n, p) with p ~ Beta(a, b).

    >>> from jxkernel.scipy.stats import betabinom
    >>> betabinom.pmf(1.0, 2.0, 1.0, 1.0)   # uniform on {0, 1, 2}
    Array(0.33333302, dtype=float32, weak_type=True)
"""
import numpy as np

from ...transforms.jit.namesakes import jax_jitted
from ... import lax
from ... import numpy as jnp
from ...numpy.ufuncs import _const
from ...numpy.util import jnp_jit, promote_args_inexact
from ..special import betaln


@jax_jitted
@jnp_jit
def logpmf(k, n, a, b, loc=0):
    """log P(X = k) (k is floored); -inf off the support, NaN for n < 0 or a, b <= 0."""
    k, n, a, b, loc = promote_args_inexact("betabinom.logpmf", k, n, a, b, loc)
    y = lax.sub(lax.floor(k), loc)
    one, zero = _const(y, 1), _const(y, 0)
    log_comb = lax.neg(lax.add(lax.log1p(n), betaln(lax.add(lax.sub(n, y), one),
                                                     lax.add(y, one))))
    log_beta = lax.sub(betaln(lax.add(y, a), lax.add(lax.sub(n, y), b)), betaln(a, b))
    out = lax.add(log_comb, log_beta)
    out = jnp.where(jnp.logical_and(lax.eq(y, zero), lax.eq(n, zero)), 0., out)
    off = jnp.logical_or(jnp.logical_or(lax.lt(y, lax.neg(loc)), lax.gt(y, n)),
                         lax.le(lax.add(y, a), zero))
    out = jnp.where(off, -np.inf, out)
    bad = jnp.logical_or(jnp.logical_or(lax.lt(n, zero), lax.le(a, zero)), lax.le(b, zero))
    return jnp.where(bad, np.nan, out)


def pmf(k, n, a, b, loc=0):
    """P(X = k)."""
    return lax.exp(logpmf(k, n, a, b, loc))
