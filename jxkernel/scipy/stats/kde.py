"""gaussian_kde: kernel density estimation with Gaussian kernels, as jax.scipy.stats computes it.

The density at x is the weighted mean of normal densities centred on the data points, all
sharing the covariance ``factor**2 * cov(data)``; the bandwidth factor comes from Scott's or
Silverman's rule, a scalar, or a callable. The estimator is a pytree, so it passes through
``jit``, ``vmap`` and ``grad``.

    >>> kde = gaussian_kde(jnp.array([-1., 0., 1.]), bw_method=1.0)
    >>> kde.evaluate(jnp.array([0.]))
    Array([0.2942946], dtype=float32)
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from ... import numpy as jnp
from ... import random
from ...numpy.util import check_arraylike, promote_dtypes_inexact
from ...transforms.batching import vmap
from ...transforms.jit import jit
from ...tree_util import register_pytree_node_class
from .. import linalg, special

__all__ = ["gaussian_kde"]


def _bandwidth_factor(kde, bw_method, neff, d: int):
    """Scott's rule (the default), Silverman's, a given scalar, or bw_method(kde)."""
    if bw_method is None or isinstance(bw_method, str) and bw_method == "scott":
        return jnp.power(neff, -1. / (d + 4))
    if isinstance(bw_method, str) and bw_method == "silverman":
        return jnp.power(neff * (d + 2) / 4.0, -1. / (d + 4))
    if jnp.isscalar(bw_method) and not isinstance(bw_method, str):
        return bw_method
    if callable(bw_method):
        return bw_method(kde)
    raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a callable; "
                     f"got bw_method={bw_method!r}.")


def _data_and_weights(dataset, weights):
    """The (d, n) dataset and weights summing to one, in a common inexact dtype."""
    check_arraylike("gaussian_kde", dataset)
    dataset = jnp.atleast_2d(dataset)
    if jnp.iscomplexobj(dataset):
        raise NotImplementedError("gaussian_kde does not support complex data")
    if not dataset.size > 1:
        raise ValueError("`dataset` input should have multiple elements.")
    n = dataset.shape[1]
    if weights is None:
        dataset, = promote_dtypes_inexact(dataset)
        return dataset, jnp.full(n, 1.0 / n, dtype=dataset.dtype)
    check_arraylike("gaussian_kde", weights)
    dataset, weights = promote_dtypes_inexact(dataset, weights)
    weights = jnp.atleast_1d(weights)
    weights /= jnp.sum(weights)
    if weights.ndim != 1:
        raise ValueError(f"`weights` input should be one-dimensional; got shape {weights.shape}.")
    if len(weights) != n:
        raise ValueError(f"`weights` input should be of length n (the {n} data points); got "
                         f"{len(weights)}.")
    return dataset, weights


@register_pytree_node_class
@dataclass(frozen=True, init=False, slots=True)
class gaussian_kde:
    """Gaussian kernel density estimator (scipy.stats.gaussian_kde, as JAX has it).

    `dataset`: shape (n,) or (d, n); `bw_method`: "scott" (default), "silverman", a scalar,
    or a callable taking the estimator; `weights`: shape (n,), normalized to sum to one.

    >>> kde = gaussian_kde(jnp.array([0., 1., 2.]), weights=jnp.array([1., 1., 2.]))
    >>> kde.d, kde.n, kde.neff
    (1, 3, Array(2.6666667, dtype=float32))
    """
    neff: Any
    dataset: Any
    weights: Any
    covariance: Any
    inv_cov: Any

    def __init__(self, dataset, bw_method=None, weights=None):
        dataset, weights = _data_and_weights(dataset, weights)
        self._set("dataset", dataset)
        self._set("weights", weights)
        neff = self._set("neff", 1 / jnp.sum(weights**2))
        factor = _bandwidth_factor(self, bw_method, neff, dataset.shape[0])
        data_covariance = jnp.atleast_2d(jnp.cov(dataset, rowvar=1, bias=False,
                                                 aweights=weights))
        self._set("covariance", data_covariance * factor**2)
        self._set("inv_cov", jnp.linalg.inv(data_covariance) / factor**2)

    def _set(self, name, value):
        # the dataclass is frozen (immutable to users); fields are set once, here
        object.__setattr__(self, name, value)
        return value

    def tree_flatten(self):
        return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        kde = cls.__new__(cls)
        for name, value in zip(("neff", "dataset", "weights", "covariance", "inv_cov"), children):
            kde._set(name, value)
        return kde

    @property
    def d(self) -> int:
        """The number of dimensions."""
        return self.dataset.shape[0]

    @property
    def n(self) -> int:
        """The number of data points."""
        return self.dataset.shape[1]

    def evaluate(self, points):
        """The density at `points` (shape (d, m), or (m,) when d == 1, or (d,) for one point)."""
        check_arraylike("evaluate", points)
        points = self._reshape_points(points)
        return _kernel_sum(False, self.dataset.T, self.weights[:, None], points.T,
                           self.inv_cov)[:, 0]

    def __call__(self, points):
        return self.evaluate(points)

    def pdf(self, x):
        """The density at `x`, as `evaluate`."""
        return self.evaluate(x)

    def logpdf(self, x):
        """The log density at `x`, through logsumexp (finite far in the tails)."""
        check_arraylike("logpdf", x)
        x = self._reshape_points(x)
        return _kernel_sum(True, self.dataset.T, self.weights[:, None], x.T, self.inv_cov)[:, 0]

    def integrate_gaussian(self, mean, cov):
        """The integral of the density times the normal density N(mean, cov)."""
        mean = jnp.atleast_1d(jnp.squeeze(mean))
        cov = jnp.atleast_2d(cov)
        if mean.shape != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}: its shape is {mean.shape}")
        if cov.shape != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}: its shape is "
                             f"{cov.shape}")
        chol, norm = _convolution_factor(self.covariance + cov, self.d)
        return _gaussian_convolve(chol, norm, self.dataset, self.weights, mean)

    @jit
    def integrate_box_1d(self, low, high):
        """The probability of the interval [low, high] (one-dimensional estimators)."""
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        sigma = jnp.squeeze(jnp.sqrt(self.covariance))
        low = jnp.squeeze((low - self.dataset) / sigma)
        high = jnp.squeeze((high - self.dataset) / sigma)
        return jnp.sum(self.weights * (special.ndtr(high) - special.ndtr(low)))

    def integrate_kde(self, other):
        """The integral of the product of this density and `other`'s."""
        if other.d != self.d:
            raise ValueError(f"KDEs are not the same dimensionality: {self.d} and {other.d}")
        chol, norm = _convolution_factor(self.covariance + other.covariance, self.d)
        small, large = (self, other) if self.n < other.n else (other, self)
        per_point = vmap(partial(_gaussian_convolve, chol, norm, large.dataset, large.weights),
                         in_axes=1)(small.dataset)
        return jnp.sum(per_point * small.weights)

    @partial(jit, static_argnames=("shape",))
    def resample(self, key, shape=()):
        """Draw samples of shape (d,) + shape: a data point chosen by weight, plus normal
        noise with the estimator's covariance."""
        index_key, noise_key = random.split(key)
        index = random.choice(index_key, self.n, shape=shape, p=self.weights)
        noise = random.multivariate_normal(noise_key, jnp.zeros(self.d, self.covariance.dtype),
                                           self.covariance, shape=shape,
                                           dtype=self.dataset.dtype).T
        return self.dataset[:, index] + noise

    def integrate_box(self, low_bounds, high_bounds, maxpts=None):
        """Not in JAX's interface: only integrate_box_1d is."""
        raise NotImplementedError(
            "only 1D box integrations are supported; use `integrate_box_1d`")

    def set_bandwidth(self, bw_method=None):
        """Not in JAX's interface: the estimator is immutable; build a new one instead."""
        raise NotImplementedError(
            "dynamically changing the bandwidth method is not supported; construct a new "
            "gaussian_kde(dataset, bw_method=...) instead")

    def _reshape_points(self, points):
        """(d, m) points; a flat vector of d values is one point."""
        if jnp.iscomplexobj(points):
            raise NotImplementedError("gaussian_kde does not support complex coordinates")
        points = jnp.atleast_2d(points)
        d, m = points.shape
        if d == self.d:
            return points
        if d == 1 and m == self.d:
            return jnp.reshape(points, (self.d, 1))
        raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")


def _convolution_factor(covariance, d: int):
    """The Cholesky factor of the summed covariances, and the normal density's constant."""
    chol = linalg.cho_factor(covariance)
    return chol, 1.0 / (jnp.sqrt(2 * np.pi)**d * jnp.prod(jnp.diag(chol[0])))


def _gaussian_convolve(chol, norm, target, weights, mean):
    """sum_i weights_i N(target_i; mean, covariance), with the covariance given by `chol`."""
    diff = target - mean[:, None]
    alpha = linalg.cho_solve(chol, diff)
    return norm * jnp.sum(jnp.exp(-0.5 * jnp.sum(diff * alpha, axis=0)) * weights)


@partial(jit, static_argnums=0)
def _kernel_sum(in_log: bool, points, values, xi, precision):
    """For each row of `xi`, sum_j values_j N(xi; points_j, inv(precision)) (its log if
    `in_log`). Both sides are whitened by precision's Cholesky factor, so each kernel is
    exp(-|x - p|^2 / 2)."""
    points, values, xi, precision = promote_dtypes_inexact(points, values, xi, precision)
    d = points.shape[1]
    if xi.shape[1] != d:
        raise ValueError(f"points and xi must have same trailing dim: {d} and {xi.shape[1]}")
    if precision.shape != (d, d):
        raise ValueError(f"precision matrix must match data dims: shape {precision.shape} "
                         f"for {d} dims")
    whitening = linalg.cholesky(precision, lower=True)
    points, xi = jnp.dot(points, whitening), jnp.dot(xi, whitening)
    log_norm = jnp.sum(jnp.log(jnp.diag(whitening))) - 0.5 * d * jnp.log(2 * np.pi)

    def kernel(x_test, x_train, y_train):
        arg = log_norm - 0.5 * jnp.sum(jnp.square(x_train - x_test))
        return jnp.log(y_train) + arg if in_log else y_train * jnp.exp(arg)

    reduce = special.logsumexp if in_log else jnp.sum
    per_test = lambda x: reduce(vmap(kernel, in_axes=(None, 0, 0))(x, points, values),  # noqa: E731
                                axis=0)
    return vmap(per_test)(xi)
