"""The derivative of a Gamma(a) sample with respect to a (implicit reparameterization:
dx/da = -(dF/da) / (dF/dx) for the CDF F = igamma(a, x)), as JAX 0.10.2's
`random_gamma_grad` computes it: a power series for x <= max(1, a), a continued fraction
beyond, each a while loop until its derivative term is below eps. This is what makes
gamma, beta and dirichlet samples differentiable in their parameters.
"""
from __future__ import annotations

import numpy as np

from .. import lax
from ..core import dtypes
from .samplers import _dtype, _shape


def _c(x, value):
    return np.array(value, _dtype(x))


def _full(x, value):
    shape = _shape(x)
    return lax.broadcast_in_dim(_c(x, value), shape, ()) if shape else _c(x, value)


def _any(pred):
    return lax.reduce_or(pred, tuple(range(len(_shape(pred))))) if _shape(pred) else pred


def _igamma_series(ax, x, a, enabled, dtype):
    eps = dtypes.finfo(dtype).eps

    def body_fn(vals):
        enabled, r, c, ans, x, dc_da, dans_da = vals
        r = lax.add(r, _c(r, 1.))
        dc_da = lax.sub(lax.mul(dc_da, lax.div(x, r)), lax.div(lax.mul(c, x), lax.mul(r, r)))
        dans_da = lax.add(dans_da, dc_da)
        c = lax.mul(c, lax.div(x, r))
        ans = lax.add(ans, c)
        going = lax.bitwise_and(enabled, lax.gt(lax.abs(lax.div(dc_da, dans_da)), _c(dc_da, eps)))
        return (going,) + tuple(lax.select(enabled, new, old) for new, old in
                                zip((r, c, ans, x, dc_da, dans_da), vals[1:]))

    init = (enabled, a, _full(a, 1), _full(a, 1), x, _full(a, 0), _full(a, 0))
    vals = lax.while_loop(lambda v: _any(v[0]), body_fn, init)
    ans, dans_da = vals[3], vals[6]
    dlogax_da = lax.sub(lax.log(x), lax.digamma(lax.add(a, _c(a, 1))))
    return lax.div(lax.mul(lax.neg(lax.add(dans_da, lax.mul(ans, dlogax_da))), x), a)


def _igammac_continued_fraction(ax, x, a, enabled, dtype):
    eps = dtypes.finfo(dtype).eps

    def cond_fn(vals):
        return lax.bitwise_and(lax.lt(vals[5], _c(vals[5], 2000)), _any(vals[0]))

    def body_fn(vals):
        (enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2,
         dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da) = vals
        c = lax.add(c, _c(c, 1))
        y = lax.add(y, _c(y, 1))
        z = lax.add(z, _c(z, 2))
        yc = lax.mul(y, c)
        pk = lax.sub(lax.mul(pkm1, z), lax.mul(pkm2, yc))
        qk = lax.sub(lax.mul(qkm1, z), lax.mul(qkm2, yc))
        qk_is_nonzero = lax.ne(qk, _c(qk, 0))
        r = lax.div(pk, qk)
        t = lax.select(qk_is_nonzero, lax.abs(lax.div(lax.sub(ans, r), r)), _full(r, 1))
        ans = lax.select(qk_is_nonzero, r, ans)
        dpk_da = lax.add(lax.sub(lax.sub(lax.mul(dpkm1_da, z), pkm1), lax.mul(dpkm2_da, yc)),
                         lax.mul(pkm2, c))
        dqk_da = lax.add(lax.sub(lax.sub(lax.mul(dqkm1_da, z), qkm1), lax.mul(dqkm2_da, yc)),
                         lax.mul(qkm2, c))
        dans_da_new = lax.select(qk_is_nonzero,
                                 lax.div(lax.sub(dpk_da, lax.mul(ans, dqk_da)), qk), dans_da)
        grad_conditional = lax.select(qk_is_nonzero, lax.abs(lax.sub(dans_da_new, dans_da)),
                                      _full(dans_da, 1))
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = dpkm1_da, dqkm1_da, dpk_da, dqk_da
        # keep the convergents in range: rescale all of them by eps when pk grows past 1/eps
        rescale = lax.gt(lax.abs(pk), lax.reciprocal(_c(pk, eps)))
        small = lambda v: lax.select(rescale, lax.mul(v, _c(v, eps)), v)
        pkm2, pkm1, qkm2, qkm1 = map(small, (pkm2, pkm1, qkm2, qkm1))
        dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = map(small, (dpkm2_da, dqkm2_da, dpkm1_da,
                                                             dqkm1_da))
        going = lax.bitwise_and(enabled, lax.gt(grad_conditional, _c(grad_conditional, eps)))
        new = (ans, t, y, z)
        frozen = [lax.select(enabled, n, o) for n, o in zip(new, vals[1:5])]
        new2 = (pkm1, qkm1, pkm2, qkm2, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da_new)
        frozen2 = [lax.select(enabled, n, o) for n, o in zip(new2, vals[6:])]
        return (going, *frozen, c, *frozen2)

    y = lax.sub(_c(a, 1), a)
    z = lax.add(lax.add(x, y), _c(x, 1))
    pkm1 = lax.add(x, _c(x, 1))
    qkm1 = lax.mul(z, x)
    ans = lax.div(pkm1, qkm1)
    dqkm1_da = lax.neg(x)
    dans_da = lax.div(lax.sub(_full(x, 0), lax.mul(ans, dqkm1_da)), qkm1)
    init = (enabled, ans, _full(x, 1), y, z, _c(x, 0), pkm1, qkm1, _full(x, 1), x,
            _full(x, 0), _full(x, 0), _full(x, 0), dqkm1_da, dans_da)
    vals = lax.while_loop(cond_fn, body_fn, init)
    ans, dans_da = vals[1], vals[14]
    dlogax_da = lax.sub(lax.log(x), lax.digamma(a))
    return lax.neg(lax.mul(lax.add(dans_da, lax.mul(ans, dlogax_da)), x))


def _random_gamma_grad_impl(a, x, dtype):
    is_nan = lax.bitwise_or(lax.ne(a, a), lax.ne(x, x))
    x_is_zero = lax.eq(x, _full(x, 0))
    domain_error = lax.bitwise_or(lax.lt(x, _full(x, 0)), lax.le(a, _full(a, 0)))
    use_igammac = lax.bitwise_and(lax.gt(x, _full(x, 1)), lax.gt(x, a))
    ax = lax.sub(lax.sub(lax.mul(a, lax.log(x)), x), lax.lgamma(a))
    underflow = lax.lt(ax, lax.neg(lax.log(_c(a, dtypes.finfo(_dtype(a)).max))))
    ax = lax.exp(ax)
    enabled = lax.bitwise_not(lax.bitwise_or(lax.bitwise_or(lax.bitwise_or(
        x_is_zero, domain_error), underflow), is_nan))
    output = lax.select(
        use_igammac,
        lax.neg(_igammac_continued_fraction(ax, x, a, lax.bitwise_and(enabled, use_igammac),
                                            dtype)),
        _igamma_series(ax, x, a, lax.bitwise_and(enabled, lax.bitwise_not(use_igammac)), dtype))
    output = lax.select(x_is_zero, _full(output, 0), output)
    return lax.select(lax.bitwise_or(domain_error, is_nan), _full(a, np.nan), output)


def random_gamma_grad(a, x):
    """d sample / d a for a sample x of Gamma(a), elementwise (float16/bfloat16 computed in
    float32)."""
    shape = np.broadcast_shapes(_shape(a), _shape(x))
    a, x = (lax.broadcast_in_dim(v, shape, tuple(range(len(_shape(v))))) if _shape(v) != shape
            else v for v in (a, x))
    dtype = _dtype(a)
    if dtype in (dtypes.float16, dtypes.bfloat16):
        a, x = (lax.convert_element_type(v, np.float32) for v in (a, x))
        return lax.convert_element_type(_random_gamma_grad_impl(a, x, np.float32), dtype)
    return _random_gamma_grad_impl(a, x, dtype)


def gamma_sample_grad(sample, a, log_space):
    """d sample / d a for the outputs of random_gamma (of log-samples if `log_space`),
    element by element with lax.map, as JAX does on CPU."""
    size = int(np.prod(_shape(a)))
    samples = lax.reshape(sample, (size,))
    alphas = lax.reshape(a, (size,))
    if log_space:
        # d log(x) = dx / x; exp(log x) may round to 0: use the smallest normal instead
        samples = lax.exp(samples)
        tiny = _full(samples, dtypes.finfo(_dtype(samples)).tiny)
        samples = lax.select(lax.eq(samples, _c(samples, 0)), tiny, samples)
        grad = lambda args: lax.div(random_gamma_grad(*args), args[1])
    else:
        grad = lambda args: random_gamma_grad(*args)
    return lax.reshape(lax.map(grad, (alphas, samples)), _shape(a))
