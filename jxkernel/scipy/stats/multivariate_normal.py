"""The multivariate normal distribution N(mean, cov) over the last axis.

    >>> from jxkernel.scipy.stats import multivariate_normal
    >>> multivariate_normal.logpdf(jnp.zeros(2), jnp.zeros(2), jnp.eye(2))
    Array(-1.837877, dtype=float32)
"""
import functools

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy.util import promote_dtypes_inexact


def logpdf(x, mean, cov, allow_singular=None):
    """log density; cov may be a scalar (isotropic) or (..., n, n) (through its Cholesky
    factor); a scalar mean makes it the univariate normal with variance cov."""
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = promote_dtypes_inexact(x, mean, cov)
    if not mean.shape:
        return (-1 / 2 * jnp.square(x - mean) / cov
                - 1 / 2 * (jnp.log(2 * np.pi) + jnp.log(cov)))
    n = mean.shape[-1]
    if not np.shape(cov):
        d = x - mean
        return (-1 / 2 * jnp.einsum("...i,...i->...", d, d) / cov
                - n / 2 * (jnp.log(2 * np.pi) + jnp.log(cov)))
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes")
    chol = lax.linalg.cholesky(cov)
    # whiten: y = L^{-1} (x - mean), so the quadratic form is |y|^2
    solve = functools.partial(lax.linalg.triangular_solve, lower=True, transpose_a=True)
    y = jnp.vectorize(solve, signature="(n,n),(n)->(n)")(chol, x - mean)
    return (-1 / 2 * jnp.einsum("...i,...i->...", y, y) - n / 2 * jnp.log(2 * np.pi)
            - jnp.log(chol.diagonal(axis1=-1, axis2=-2)).sum(-1))


def pdf(x, mean, cov):
    """density, exp(logpdf)."""
    return lax.exp(logpdf(x, mean, cov))
