"""The Dirichlet distribution over the simplex (components on the first axis of x).

    >>> from jxkernel.scipy.stats import dirichlet
    >>> dirichlet.pdf(jnp.array([0.25, 0.75]), jnp.array([1.0, 1.0]))
    Array(0.99999905, dtype=float32)
"""
import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy.ufuncs import _const
from ...numpy.util import promote_dtypes_inexact
from ..special import gammaln, xlogy


def _on_simplex(x):
    return jnp.all(x > 0, axis=0) & (abs(jnp.sum(x, axis=0) - 1) < 1E-6)


def logpdf(x, alpha):
    """log density; x has len(alpha) components (or one fewer: the last is 1 - sum), -inf off
    the simplex."""
    x, alpha = promote_dtypes_inexact(x, alpha)
    if alpha.ndim != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}")
    if x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
        raise ValueError("`x` must have either the same number of entries as `alpha` or one "
                         f"entry fewer; got x.shape={x.shape}, alpha.shape={alpha.shape}")
    one = _const(x, 1)
    if x.shape[0] != alpha.shape[0]:
        x = jnp.concatenate([x, lax.sub(one, x.sum(0, keepdims=True))], axis=0)
    log_norm = jnp.sum(gammaln(alpha)) - gammaln(jnp.sum(alpha))
    if x.ndim > 1:
        alpha = lax.broadcast_in_dim(alpha, alpha.shape + (1,) * (x.ndim - 1), (0,))
    out = lax.sub(jnp.sum(xlogy(lax.sub(alpha, one), x), axis=0), log_norm)
    return jnp.where(_on_simplex(x), out, -np.inf)


def pdf(x, alpha):
    """density, exp(logpdf)."""
    return lax.exp(logpdf(x, alpha))
