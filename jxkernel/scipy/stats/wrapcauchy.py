"""The wrapped Cauchy distribution on [0, 2 pi] with shape 0 < c < 1.

    >>> from jxkernel.scipy.stats import wrapcauchy
    >>> wrapcauchy.pdf(0.0, 0.5)     # (1 - c^2) / (2 pi (1 - c)^2)
    Array(0.47746485, dtype=float32, weak_type=True)
"""
import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy.ufuncs import _const
from ...numpy.util import promote_args_inexact


def logpdf(x, c):
    """log density; -inf outside [0, 2 pi], NaN unless 0 < c < 1."""
    x, c = promote_args_inexact("wrapcauchy.logpdf", x, c)
    good_c = lax.gt(c, _const(c, 0)) & lax.lt(c, _const(c, 1))
    inside = lax.ge(x, _const(x, 0)) & lax.le(x, _const(x, np.pi * 2))
    out = jnp.log(1 - c * c) - jnp.log(2 * np.pi) - jnp.log(1 + c * c - 2 * c * jnp.cos(x))
    return jnp.where(good_c, jnp.where(inside, out, -np.inf), np.nan)


def pdf(x, c):
    """density, exp(logpdf)."""
    return lax.exp(logpdf(x, c))
