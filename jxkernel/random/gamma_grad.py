"""The derivative of Gamma(a) samples with respect to a (implicit reparameterization:
dx/da = -(dF/da) / (dF/dx) for the CDF F = igamma(a, x)), as JAX 0.10.2 computes it with
`lax.random_gamma_grad`. This is what makes gamma, beta and dirichlet samples
differentiable in their parameters.
"""
from __future__ import annotations

import numpy as np

from .. import lax
from ..core import dtypes
from .samplers import _dtype, _shape


def gamma_sample_grad(sample, a, log_space):
    """d sample / d a for the outputs of random_gamma (of log-samples if `log_space`),
    element by element with lax.map, as JAX does on CPU."""
    size = int(np.prod(_shape(a)))
    samples = lax.reshape(sample, (size,))
    alphas = lax.reshape(a, (size,))
    if log_space:
        # d log(x) = dx / x; exp(log x) may round to 0: use the smallest normal instead
        samples = lax.exp(samples)
        tiny = np.array(dtypes.finfo(_dtype(samples)).tiny, _dtype(samples))
        samples = lax.select(lax.eq(samples, np.zeros((), _dtype(samples))),
                             lax.broadcast_in_dim(tiny, (size,), ()), samples)
        grad = lambda args: lax.div(lax.random_gamma_grad(*args), args[1])
    else:
        grad = lambda args: lax.random_gamma_grad(*args)
    return lax.reshape(lax.map(grad, (alphas, samples)), _shape(a))
