"""The von Mises distribution on the circle with concentration kappa.

    >>> from jxkernel.scipy.stats import vonmises
    >>> vonmises.pdf(0.0, 1e-6)     # nearly uniform: 1 / (2 pi)
    Array(0.1591551, dtype=float32, weak_type=True)
"""
import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy.ufuncs import _const
from ...numpy.util import promote_args_inexact


def logpdf(x, kappa):
    """log density kappa (cos x - 1) - log(2 pi i0e(kappa)); NaN for kappa <= 0."""
    x, kappa = promote_args_inexact("vonmises.logpdf", x, kappa)
    out = kappa * (jnp.cos(x) - 1) - jnp.log(2 * np.pi * lax.bessel_i0e(kappa))
    return jnp.where(lax.gt(kappa, _const(kappa, 0)), out, np.nan)


def pdf(x, kappa):
    """density, exp(logpdf)."""
    return lax.exp(logpdf(x, kappa))
