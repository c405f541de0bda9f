"""Samplers that need a matrix factorization (LAPACK on CPU): multivariate_normal (a
Cholesky, eigh or SVD factor of the covariance times standard normals) and orthogonal (the
Q of a QR of a normal matrix, with R's diagonal signs folded in: Haar measure).

    >>> multivariate_normal(jax.random.PRNGKey(0), np.zeros(2, np.float32), np.eye(2, dtype=np.float32))
    Array([1.6226422, 2.0252647], dtype=float32)
"""
from __future__ import annotations

import operator

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..core import dtypes
from ..lax import linalg
from ..numpy import linalg as jnp_linalg
from ..transforms.jit import jit
from .keys import check_key, static_shape, takes_out_sharding, user_dtype
from .samplers import _check_shape, _dtype, _normal_impl, _shape


def _multivariate_normal_impl(key, mean, cov, shape, dtype, method):
    if len(_shape(mean)) < 1:
        raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == "
                         f"{len(_shape(mean))}")
    if len(_shape(cov)) < 2:
        raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == "
                         f"{len(_shape(cov))}")
    n = _shape(mean)[-1]
    if _shape(cov)[-2:] != (n, n):
        raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, "
                         f"but got cov.shape == {_shape(cov)}.")
    if shape is None:
        shape = np.broadcast_shapes(_shape(mean)[:-1], _shape(cov)[:-2])
    else:
        _check_shape("normal", shape, _shape(mean)[:-1], _shape(cov)[:-2])
    if method == "svd":
        u, s, _ = jnp_linalg.svd(cov)
        factor = u * jnp.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = jnp_linalg.eigh(cov)
        factor = v * jnp.sqrt(w[..., None, :])
    else:
        factor = jnp_linalg.cholesky(cov)
    normal_samples = _normal_impl(key, tuple(shape) + _shape(mean)[-1:], dtype)
    spread = jnp.einsum("...ij,...j->...i", factor, normal_samples)
    # mean + spread with NumPy's rank promotion whatever jax_numpy_rank_promotion says (JAX
    # adds them under numpy_rank_promotion('allow'))
    out_shape = np.broadcast_shapes(_shape(mean), _shape(spread))
    return jnp.add(jnp.broadcast_to(mean, out_shape), jnp.broadcast_to(spread, out_shape))


_multivariate_normal = jit(_multivariate_normal_impl, static_argnums=(3, 4, 5))


@takes_out_sharding
def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky", *,
                        out_sharding=None):
    """Normal vectors with the given mean (..., n) and covariance (..., n, n).

    >>> multivariate_normal(jax.random.PRNGKey(0), np.zeros(2, np.float32), np.eye(2, dtype=np.float32))
    Array([1.6226422, 2.0252647], dtype=float32)
    """
    data, _ = check_key("multivariate_normal", key)
    if method not in {"svd", "eigh", "cholesky"}:
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    mean_dtype, cov_dtype = _dtype(mean), _dtype(cov)
    common = dtypes.to_inexact_dtype(dtypes.promote_types(mean_dtype, cov_dtype))
    mean = lax.convert_element_type(mean, common)
    cov = lax.convert_element_type(cov, common)
    dtype = common if dtype is None else user_dtype(dtype, float)
    if not dtypes.is_float(dtype):
        raise ValueError(f"dtype argument to `multivariate_normal` must be a float dtype, "
                         f"got {dtype}")
    if shape is not None:
        shape = static_shape("multivariate_normal", shape)
    return _multivariate_normal(data, mean, cov, shape, dtype, method)


def _orthogonal_impl(key, n, m, shape, dtype):
    z = _normal_impl(key, (*shape, max(n, m), min(n, m)), dtype)
    q, r = linalg.qr(z, full_matrices=False)
    nd = len(_shape(r))
    # multiplying Q's columns by the signs of R's diagonal makes the distribution uniform
    x = lax.mul(q, lax.broadcast_in_dim(lax.sign(_diagonal(r)), _shape(q),
                                        tuple(range(nd - 2)) + (nd - 1,)))
    if n < m:
        x = lax.transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))
    return x


def _diagonal(x):
    """The main diagonals of a batch of square matrices (..., k, k) -> (..., k)."""
    *batch, k, _ = _shape(x)
    flat = lax.reshape(x, (*batch, k * k))
    nd = len(batch) + 1
    return lax.slice(flat, (0,) * nd, (*batch, k * k), (1,) * len(batch) + (k + 1,))


_orthogonal = jit(_orthogonal_impl, static_argnums=(1, 2, 3, 4))


@takes_out_sharding
def orthogonal(key, n, shape=(), dtype=None, m=None, *, out_sharding=None):
    """Uniform (Haar) random orthogonal n x m matrices (semi-orthogonal if n != m).

    >>> orthogonal(jax.random.PRNGKey(0), 2).shape
    (2, 2)
    """
    shape = static_shape("orthogonal", shape)
    data, _ = check_key("orthogonal", key)
    dtype = user_dtype(dtype, float)
    _check_shape("orthogonal", shape)
    try:
        n = operator.index(n)
        m = n if m is None else operator.index(m)
    except TypeError:
        raise TypeError("orthogonal: n and m must be static Python ints (not traced)") from None
    return _orthogonal(data, n, m, shape, dtype)
