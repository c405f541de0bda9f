"""jax.scipy.cluster.vq: assign each observation to its nearest code.

    >>> code, dist = vq(jnp.array([[0., 0.], [3., 4.]]), jnp.array([[0., 1.], [3., 3.]]))
    >>> code, dist
    (Array([0, 1], dtype=int32), Array([1., 1.], dtype=float32))
"""
from ... import numpy as jnp
from ...numpy.util import check_arraylike, promote_dtypes_inexact

__all__ = ["vq"]


def vq(obs, code_book, check_finite: bool = True) -> tuple:
    """(code, dist): for each row of `obs` (M×N, or M values) the index of the nearest row
    of `code_book` (K×N, or K values) by Euclidean distance (the first of equals), and that
    distance. `check_finite` is accepted and ignored, as in JAX (no value checks under jit)."""
    del check_finite
    check_arraylike("scipy.cluster.vq.vq", obs, code_book)
    obs, book = promote_dtypes_inexact(obs, code_book)
    if obs.ndim != book.ndim:
        raise ValueError("Observation and code_book should have the same rank")
    if obs.ndim == 1:
        obs, book = obs[:, None], book[:, None]
    if obs.ndim != 2:
        raise ValueError("ndim different than 1 or 2 are not supported")
    dist = jnp.linalg.norm(obs[:, None, :] - book[None, :, :], axis=-1)    # M×K
    code = jnp.argmin(dist, axis=-1)
    return code, jnp.take_along_axis(dist, code[:, None], axis=-1)[:, 0]
