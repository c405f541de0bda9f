"""binomial (inversion for n p <= 10, else Hormann's BTRS rejection) and multinomial (a
scan of binomials over the categories), written as JAX 0.10.2 writes them, jnp
expressions included, so that the bits match.

    >>> binomial(jax.random.PRNGKey(0), 10, 0.3, (4,))
    Array([2., 2., 1., 2.], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..core import dtypes
from ..transforms.jit import jit
from .keys import check_key, static_shape, user_dtype
from .samplers import _check_shape, _shape, _split2, _uniform_impl
from . import key_prims

_STIRLING_TAIL = [0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287]


def _stirling_approx_tail(k):
    """log(k!) minus Stirling's approximation: a table for k <= 9, a series beyond."""
    table = jnp.array(_STIRLING_TAIL, dtype=k.dtype)
    use_table = k <= 9
    k = lax.clamp(np.array(0.0, k.dtype), k, np.array(9.0, k.dtype))
    kp1sq = (k + 1) * (k + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    k = jnp.floor(k)
    return lax.select(use_table, table[jnp.asarray(k, dtype="int32")], approx)


def _binomial_inversion(key, count, prob, shape, dtype, max_iters):
    """Count geometric waiting times until they pass `count` (small n p)."""
    log1minusprob = jnp.log1p(-prob)

    def body_fn(carry):
        i, num_geom, geom_sum, key = carry
        subkey, key = _split2(key)
        num_geom_out = lax.select(geom_sum <= count, num_geom + 1, num_geom)
        u = _uniform_impl(subkey, 0., 1., shape, prob.dtype)
        geom = jnp.ceil(jnp.log(u) / log1minusprob)
        return i + 1, num_geom_out, geom_sum + geom, key

    def cond_fn(carry):
        i, geom_sum = carry[0], carry[2]
        return (geom_sum <= count).any() & (i < max_iters)

    zeros = jnp.zeros(shape, prob.dtype)
    k = lax.while_loop(cond_fn, body_fn, (jnp.asarray(0), zeros, zeros, key))[1]
    return (k - 1).astype(dtype)


def _btrs(key, count, prob, shape, dtype, max_iters):
    """Hormann's transformed rejection with squeeze (BTRS, 1993) for n p > 10."""
    stddev = jnp.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = jnp.floor((count + 1) * prob)

    def body_fn(carry):
        i, k_out, accepted, key = carry
        keys = key_prims.random_split(key, (3,))
        key, subkey_0, subkey_1 = (key_prims.index(keys, j) for j in range(3))
        u = _uniform_impl(subkey_0, 0., 1., shape, prob.dtype)
        v = _uniform_impl(subkey_1, 0., 1., shape, prob.dtype)
        u = u - 0.5
        us = 0.5 - jnp.abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = jnp.floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        v = jnp.log(v * alpha / (a / (us * us) + b))
        ub = ((m + 0.5) * jnp.log((m + 1) / (r * (count - m + 1)))
              + (count + 1) * jnp.log((count - m + 1) / (count - k + 1))
              + (k + 0.5) * jnp.log(r * (count - k + 1) / (k + 1))
              + _stirling_approx_tail(m)
              + _stirling_approx_tail(count - m)
              - _stirling_approx_tail(k)
              - _stirling_approx_tail(count - k))
        accept = accept1 | (~reject & (v <= ub))
        return i + 1, lax.select(accept, k, k_out), accepted | accept, key

    def cond_fn(carry):
        i, accepted = carry[0], carry[2]
        return (~accepted).any() & (i < max_iters)

    init = (jnp.asarray(0), jnp.full(shape, -1, prob.dtype), jnp.full(shape, False, bool), key)
    return lax.while_loop(cond_fn, body_fn, init)[1].astype(dtype)


def _binomial_impl(key, count, prob, shape, dtype):
    if shape is None:
        shape = np.broadcast_shapes(_shape(count), _shape(prob))
    else:
        _check_shape("binomial", shape, _shape(count), _shape(prob))
    prob = jnp.asarray(prob)
    if not dtypes.is_inexact(prob.dtype):
        prob = prob.astype(dtypes.to_inexact_dtype(prob.dtype))
    count = jnp.broadcast_to(lax.convert_element_type(count, prob.dtype), shape)
    prob = jnp.broadcast_to(prob, shape)
    p_lt_half = prob < 0.5
    q = lax.select(p_lt_half, prob, 1.0 - prob)        # sample with q <= 1/2, flip at the end
    count_nan_or_neg = jnp.isnan(count) | (count < 0.0)
    count_inf = jnp.isinf(count)
    q_is_nan = jnp.isnan(q)
    q_l_0 = q < 0.0
    q = lax.select(q_is_nan | q_l_0, jnp.full_like(q, 0.01), q)
    use_inversion = count_nan_or_neg | (count * q <= 10.0)
    count = jnp.floor(count)           # as np.random.binomial does for a float count
    count_inv = lax.select(use_inversion, count, jnp.full_like(count, 0.0))
    count_btrs = lax.select(use_inversion, jnp.full_like(count, 1e4), count)
    q_btrs = lax.select(use_inversion, jnp.full_like(q, 0.5), q)
    max_iters = np.array(dtypes.finfo(dtype).max, dtype)
    samples = lax.select(use_inversion,
                         _binomial_inversion(key, count_inv, q, shape, dtype, max_iters),
                         _btrs(key, count_btrs, q_btrs, shape, dtype, max_iters))
    invalid = q_l_0 | q_is_nan | count_nan_or_neg       # NaN q, NaN or negative n: NaN
    samples = lax.select(invalid, jnp.full_like(samples, np.nan, dtype), samples)
    samples = lax.select(count_inf & (~invalid), jnp.full_like(samples, np.inf, dtype), samples)
    return lax.select(p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples,
                      count.astype(dtype) - samples)


_binomial = jit(_binomial_impl, static_argnums=(3, 4), inline=True)


def binomial(key, n, p, shape=None, dtype=None):
    """Binomial(n, p) counts, as floats (n may be a float; NaN for invalid n or p).

    >>> binomial(jax.random.PRNGKey(0), 10, 0.3, (4,))
    Array([2., 2., 1., 2.], dtype=float32)
    """
    data, _ = check_key("binomial", key)
    dtype = user_dtype(dtype, float)
    if not dtypes.is_float(dtype):
        raise ValueError(f"dtype argument to `binomial` must be a float dtype, got {dtype}")
    if shape is not None:
        shape = static_shape("binomial", shape)
    return _binomial(data, n, p, shape, dtype)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Multinomial(n, p) counts over the last axis of p: a binomial per category, each of
    the remaining count with the category's share of the remaining probability."""
    data, _ = check_key("multinomial", key)
    dtype = user_dtype(dtype, float)
    n, p = jnp.asarray(n), jnp.asarray(p)
    common = dtypes.to_inexact_dtype(jnp.result_type(n, p))
    n, p = n.astype(common), p.astype(common)
    shape = tuple(p.shape) if shape is None else static_shape("multinomial", shape)
    n = jnp.broadcast_to(n, shape[:-1])
    p = jnp.moveaxis(jnp.broadcast_to(p, shape), -1, 0)

    def f(remainder, ratio_key):
        ratio, k = ratio_key
        count = binomial(k, remainder, ratio.clip(0, 1), dtype=remainder.dtype)
        return remainder - count, count

    remaining_probs = lax.cumsum(p, 0, reverse=True)
    ratios = p / jnp.where(remaining_probs == 0, 1, remaining_probs)
    keys = key_prims.random_split(data, (ratios.shape[0],))
    _, counts = lax.scan(f, n, (ratios, keys), unroll=unroll)
    return jnp.moveaxis(counts, 0, -1).astype(dtype)
