"""Student's t distribution with `df` degrees of freedom.

    >>> from jxkernel.scipy.stats import t
    >>> t.logpdf(0.0, 1.0)   # Cauchy at its mode: -log(pi)
    Array(-1.1447293, dtype=float32, weak_type=True)
"""
import numpy as np

from ... import lax
from ...numpy.ufuncs import _const
from ...numpy.util import promote_args_inexact


def logpdf(x, df, loc=0, scale=1):
    """log density."""
    x, df, loc, scale = promote_args_inexact("t.logpdf", x, df, loc, scale)
    two = _const(x, 2)
    z = lax.div(lax.sub(x, loc), scale)
    half_df = lax.div(df, two)
    half_df_plus = lax.add(half_df, _const(x, 0.5))
    log_scale_term = lax.div(lax.log(lax.mul(lax.mul(lax.mul(scale, scale),
                                                     _const(x, np.pi)), df)), two)
    normalizer = lax.sub(lax.add(lax.lgamma(half_df), log_scale_term), lax.lgamma(half_df_plus))
    return lax.neg(lax.add(normalizer,
                           lax.mul(half_df_plus, lax.log1p(lax.div(lax.mul(z, z), df)))))


def pdf(x, df, loc=0, scale=1):
    """density, exp(logpdf)."""
    return lax.exp(logpdf(x, df, loc, scale))
