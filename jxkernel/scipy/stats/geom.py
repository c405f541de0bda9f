"""The geometric distribution: the trial (k >= 1) of the first success.

    >>> from jxkernel.scipy.stats import geom
    >>> geom.pmf(2.0, 0.5)
    Array(0.25, dtype=float32, weak_type=True)
"""
import numpy as np

from ... import lax
from ... import numpy as jnp
from ..special import xlog1py
from ._loc_scale import shifted


def logpmf(k, p, loc=0):
    """log P(X = k) = (k - 1) log(1 - p) + log p; -inf for k < 1."""
    x, p, zero, one = shifted("geom.logpmf", k, p, loc)
    out = xlog1py(lax.sub(x, one), -p) + lax.log(p)
    return jnp.where(lax.le(x, zero), -np.inf, out)


def pmf(k, p, loc=0):
    """P(X = k)."""
    return jnp.exp(logpmf(k, p, loc))
