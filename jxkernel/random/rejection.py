"""Samplers with rejection loops, as JAX 0.10.2 writes them: gamma (Marsaglia-Tsang, one key
per element, vmapped), loggamma, beta and dirichlet on top of it, and poisson (Knuth for
small rates, Hormann's transformed rejection for large ones).

    >>> gamma(jax.random.PRNGKey(0), 2.0, (3,))
    Array([1.5897877, 1.7599413, 1.1290071], dtype=float32)
"""
from __future__ import annotations

import math
from functools import partial

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.avals import ShapedArray
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, lowering_rules,
                              numpy_rules)
from ..transforms import batch_util as bu
from ..transforms.ad_util import defjvp
from ..lax._lowering import lower_fun, numpy_fun
from ..transforms.batching import vmap
from ..transforms.jit import jit
from . import key_prims
from .gamma_grad import gamma_sample_grad
from .keys import (THREEFRY, check_key, impl_of, static_shape, takes_out_sharding,
                   user_dtype)
from .samplers import (_bcast, _c, _check_broadcast_shapes, _check_float, _check_safe_cast,
                       _check_shape, _dtype, _exponential, _normal_impl, _shape, _split2,
                       _uniform_impl)


# ------------------------------------------------------------------ gamma
def _gamma_one(key, alpha, log_space):
    """One Gamma(alpha) draw (Marsaglia and Tsang 2000): propose d * (1 + c x)^3 for normal
    x until accepted. alpha < 1 is boosted to alpha + 1 and scaled by u^(1/alpha) (in log
    space if asked: better for tiny alpha)."""
    dtype = _dtype(alpha)
    c_ = lambda v: _c(v, dtype)
    zero, one = c_(0), c_(1)
    boost_mask = lax.ge(alpha, one)
    alpha_orig = alpha
    alpha = lax.select(boost_mask, alpha, lax.add(alpha, one))
    d = lax.sub(alpha, c_(1. / 3.))
    c = lax.div(c_(1. / 3.), lax.sqrt(d))

    def cond_fn(state):           # keep going while the proposal is rejected
        _, X, V, U = state
        squeeze = lax.ge(U, lax.sub(one, lax.mul(c_(0.0331), lax.mul(X, X))))
        full = lax.ge(lax.log(U), lax.add(lax.mul(X, c_(0.5)),
                                          lax.mul(d, lax.add(lax.sub(one, V), lax.log(V)))))
        return lax.bitwise_and(squeeze, full)

    def next_xv(state):           # a normal x with v = 1 + c x > 0
        key, subkey = _split2(state[0])
        x = _normal_impl(subkey, (), dtype)
        return key, x, lax.add(one, lax.mul(x, c))

    def body_fn(state):
        keys = key_prims.random_split(state[0], (3,))
        key, x_key, u_key = (key_prims.index(keys, i) for i in range(3))
        _, x, v = lax.while_loop(lambda s: lax.le(s[2], zero), next_xv, (x_key, zero, c_(-1)))
        u = _uniform_impl(u_key, 0., 1., (), dtype)
        return key, lax.mul(x, x), lax.mul(lax.mul(v, v), v), u

    key, subkey = _split2(key)
    _, _, V, _ = lax.while_loop(cond_fn, body_fn, (key, zero, one, c_(2)))
    if log_space:
        log_samples = lax.neg(_exponential(subkey, (), dtype))
        log_boost = lax.select(lax.bitwise_or(boost_mask, lax.eq(log_samples, zero)), zero,
                               lax.mul(log_samples, lax.div(one, alpha_orig)))
        return lax.add(lax.add(lax.log(d), lax.log(V)), log_boost)
    samples = lax.sub(one, _uniform_impl(subkey, 0., 1., (), dtype))
    boost = lax.select(boost_mask, one, lax.pow(samples, lax.div(one, alpha_orig)))
    return lax.mul(lax.mul(d, V), boost)


# random_gamma(keys, a): one Gamma(a) draw per element of `a`, keys (uint32 data of shape
# batch + (2,)) covering a's leading dims; every key is split into one key per element.
# Keys of another implementation than threefry's come as their data with the implementation
# (a prng.PRNGImpl) as the parameter `impl` (absent for threefry).
random_gamma_p = Primitive("random_gamma")


def _random_gamma_abstract_eval(key, a, *, log_space, impl=None):
    key_shape = tuple((impl or THREEFRY).key_shape)
    n = len(key_shape)      # the key data's trailing dims
    if key.dtype != np.uint32 or key.shape[-n:] != key_shape or \
            tuple(key.shape[:-n]) != tuple(a.shape[:len(key.shape) - n]):
        raise TypeError(f"random_gamma needs uint32 key data of shape batch + "
                        f"{key_shape} whose batch prefixes a's shape, got key "
                        f"{key.str_short(True)}, a {a.str_short(True)}")
    return ShapedArray(a.shape, a.dtype)


def _random_gamma_impl(key, a, *, log_space, impl=None):
    a_shape = _shape(a)
    if not math.prod(a_shape):
        return a
    words = (impl or THREEFRY).key_shape[0]
    key_batch = _shape(key)[:-1]
    split_count = math.prod(a_shape[len(key_batch):])
    keys = lax.reshape(key, (math.prod(key_batch), words))
    # the key data as typed keys again (what this rule gets is physical: core/physical.py)
    typed = lambda k: key_prims.random_wrap(k, impl or THREEFRY)    # noqa: E731
    keys = vmap(lambda k: key_prims.random_unwrap(key_prims.random_split(typed(k),
                                                                   (split_count,))))(keys)
    keys = lax.reshape(keys, (math.prod(a_shape), words))
    alphas = lax.reshape(a, (math.prod(a_shape),))
    if impl is None:
        samples = vmap(lambda k, a: _gamma_one(typed(k), a, log_space))(keys, alphas)
    else:     # as JAX: one element after another (RngBitGenerator's batching would draw
        # every element's bits from the first key)
        samples = lax.map(lambda ka: _gamma_one(typed(ka[0]), ka[1], log_space), (keys, alphas))
    return lax.reshape(samples, a_shape)


def _random_gamma_batching(vals, dims, **params):
    size = bu.axis_size_of(vals, dims)
    key, a = (bu.bdim_at_front(x, d, size) for x, d in zip(vals, dims))
    return random_gamma_p.bind(key, a, **params), 0


abstract_eval_rules[random_gamma_p] = _random_gamma_abstract_eval
lowering_rules[random_gamma_p] = lower_fun(_random_gamma_impl)
numpy_rules[random_gamma_p] = numpy_fun(_random_gamma_impl)
batching_rules[random_gamma_p] = _random_gamma_batching
# implicit reparameterization: d sample / d a from the CDF (see gamma_grad.py)
defjvp(random_gamma_p, None, lambda t, ans, key, a, *, log_space, impl=None: lax.mul(
    t, gamma_sample_grad(ans, a, log_space)))


def _gamma_impl(key, a, shape, dtype, log_space=False):
    if shape is None:
        shape = _shape(a)
    else:
        _check_shape("gamma", shape, _shape(a))
    a = _bcast(lax.convert_element_type(a, dtype), shape)
    impl = impl_of(key)
    data = key_prims.random_unwrap(key)     # (random_gamma takes the key data)
    if impl == THREEFRY:
        return random_gamma_p.bind(data, a, log_space=log_space)
    return random_gamma_p.bind(data, a, log_space=log_space, impl=impl)


_gamma = jit(_gamma_impl, static_argnums=(2, 3, 4))


def _gamma_args(name, key, dtype, shape):
    data, _ = check_key(name, key)
    dtype = user_dtype(dtype, float)
    _check_float("gamma", dtype)
    return data, dtype, None if shape is None else static_shape(name, shape)


@takes_out_sharding
def gamma(key, a, shape=None, dtype=None, *, out_sharding=None):
    """Gamma(a) floats (unit scale): density x^(a-1) e^(-x) / Gamma(a).

    >>> gamma(jax.random.PRNGKey(0), 2.0, (3,))
    Array([1.5897877, 1.7599413, 1.1290071], dtype=float32)
    """
    data, dtype, shape = _gamma_args("gamma", key, dtype, shape)
    return _gamma(data, a, shape, dtype, False)


@takes_out_sharding
def loggamma(key, a, shape=None, dtype=None, *, out_sharding=None):
    """log of Gamma(a) floats, computed in log space (accurate for small a)."""
    data, dtype, shape = _gamma_args("loggamma", key, dtype, shape)
    return _gamma(data, a, shape, dtype, True)


def _beta_impl(key, a, b, shape, dtype):
    shape = _check_broadcast_shapes("beta", shape, a, b)
    a, b = (_bcast(lax.convert_element_type(v, dtype), shape) for v in (a, b))
    key_a, key_b = _split2(key)
    log_gamma_a = _gamma_impl(key_a, a, shape, dtype, True)
    log_gamma_b = _gamma_impl(key_b, b, shape, dtype, True)
    # gamma_a / (gamma_a + gamma_b), scaled by the larger one so nothing underflows
    log_max = lax.max(log_gamma_a, log_gamma_b)
    ga = lax.exp(lax.sub(log_gamma_a, log_max))
    gb = lax.exp(lax.sub(log_gamma_b, log_max))
    return lax.div(ga, lax.add(ga, gb))


_beta = jit(_beta_impl, static_argnums=(3, 4))


@takes_out_sharding
def beta(key, a, b, shape=None, dtype=None, *, out_sharding=None):
    """Beta(a, b) floats in [0, 1].

    >>> beta(jax.random.PRNGKey(0), 2.0, 3.0, (2,))
    Array([0.23627362, 0.49045956], dtype=float32)
    """
    data, dtype, shape = _gamma_args("beta", key, dtype, shape)
    _check_safe_cast("beta", dtype, a, b)
    return _beta(data, a, b, _check_broadcast_shapes("beta", shape, a, b), dtype)


def _dirichlet_impl(key, alpha, shape, dtype):
    alpha_shape = _shape(alpha)
    if len(alpha_shape) < 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == "
                         f"{len(alpha_shape)}")
    if shape is None:
        shape = alpha_shape[:-1]
    else:
        _check_shape("dirichlet", shape, alpha_shape[:-1])
    alpha = lax.convert_element_type(alpha, dtype)
    # normalized gammas, computed in log space then softmax-ed (small alpha underflows)
    return _softmax(_gamma_impl(key, alpha, tuple(shape) + alpha_shape[-1:], dtype, True))


def _softmax(x):
    """Softmax over the last axis, jax.nn.softmax's formula. JAX's random module has its own
    too: random sits below nn (whose initializers draw random numbers)."""
    last, batch_dims = x.ndim - 1, tuple(range(x.ndim - 1))
    x_max = lax.broadcast_in_dim(lax.reduce_max(x, (last,)), x.shape, batch_dims)
    unnormalized = lax.exp(lax.sub(x, lax.stop_gradient(x_max)))
    total = lax.broadcast_in_dim(lax.reduce_sum(unnormalized, (last,)), x.shape, batch_dims)
    return lax.div(unnormalized, total)


_dirichlet = jit(_dirichlet_impl, static_argnums=(2, 3))


@takes_out_sharding
def dirichlet(key, alpha, shape=None, dtype=None, *, out_sharding=None):
    """Dirichlet(alpha) vectors along the last axis (each sums to 1).

    >>> dirichlet(jax.random.PRNGKey(0), np.array([1.0, 2.0, 3.0], np.float32))
    Array([0.1422856 , 0.4048826 , 0.45283177], dtype=float32)
    """
    data, dtype, shape = _gamma_args("dirichlet", key, dtype, shape)
    return _dirichlet(data, alpha, shape, dtype)


# ------------------------------------------------------------------ poisson
def _poisson_knuth(key, lam, shape, dtype, max_iters):
    """Count uniforms until their product falls below exp(-lam) (small lam)."""
    def body_fn(carry):
        i, k, rng, log_prod = carry
        rng, subkey = _split2(rng)
        k = lax.select(lax.gt(log_prod, lax.neg(lam)), lax.add(k, _c(1, dtype)), k)
        u = _uniform_impl(subkey, 0., 1., shape, np.float32)
        return lax.add(i, _c(1, _dtype(i))), k, rng, lax.add(log_prod, lax.log(u))

    def cond_fn(carry):
        i, log_prod = carry[0], carry[3]
        going = lax.reduce_or(lax.gt(log_prod, lax.neg(lam)), tuple(range(len(shape))))
        return lax.bitwise_and(going, lax.lt(i, max_iters))

    init = (_c(0, max_iters.dtype), _bcast(_c(0, dtype), shape), key,
            _bcast(_c(0, np.float32), shape))
    k = lax.while_loop(cond_fn, body_fn, init)[1]
    return lax.sub(k, _c(1, dtype))


def _poisson_rejection(key, lam, shape, dtype, max_iters):
    """Hormann's transformed rejection (PTRS) for large lam."""
    f = lambda v: _c(v, np.float32)
    log_lam = lax.log(lam)
    b = lax.add(f(0.931), lax.mul(f(2.53), lax.sqrt(lam)))
    a = lax.add(f(-0.059), lax.mul(f(0.02483), b))
    inv_alpha = lax.add(f(1.1239), lax.div(f(1.1328), lax.sub(b, f(3.4))))
    v_r = lax.sub(f(0.9277), lax.div(f(3.6224), lax.sub(b, f(2))))

    def body_fn(carry):
        i, k_out, accepted, key = carry
        keys = key_prims.random_split(key, (3,))
        key, sk0, sk1 = (key_prims.index(keys, j) for j in range(3))
        u = lax.sub(_uniform_impl(sk0, 0., 1., shape, np.float32), f(0.5))
        v = _uniform_impl(sk1, 0., 1., shape, np.float32)
        u_shifted = lax.sub(f(0.5), lax.abs(u))
        k = lax.floor(lax.add(lax.add(lax.mul(lax.add(lax.div(lax.mul(f(2), a), u_shifted), b), u),
                                      lam), f(0.43)))
        s = lax.log(lax.div(lax.mul(v, inv_alpha),
                            lax.add(lax.div(a, lax.mul(u_shifted, u_shifted)), b)))
        t = lax.sub(lax.add(lax.neg(lam), lax.mul(k, log_lam)), lax.lgamma(lax.add(k, f(1))))
        accept1 = lax.bitwise_and(lax.ge(u_shifted, f(0.07)), lax.le(v, v_r))
        reject = lax.bitwise_or(lax.lt(k, f(0)), lax.bitwise_and(lax.lt(u_shifted, f(0.013)),
                                                                 lax.gt(v, u_shifted)))
        accept = lax.bitwise_or(accept1, lax.bitwise_and(lax.bitwise_not(reject), lax.le(s, t)))
        k_out = lax.select(accept, k, k_out)
        return lax.add(i, _c(1, _dtype(i))), k_out, lax.bitwise_or(accepted, accept), key

    def cond_fn(carry):
        i, _, accepted, _ = carry
        pending = lax.reduce_or(lax.bitwise_not(accepted), tuple(range(len(shape))))
        return lax.bitwise_and(pending, lax.lt(i, max_iters))

    init = (_c(0, max_iters.dtype), _bcast(f(-1), shape), _bcast(np.bool_(False), shape), key)
    return lax.convert_element_type(lax.while_loop(cond_fn, body_fn, init)[1], dtype)


def _poisson_impl(key, lam, shape, dtype):
    use_knuth = lax.bitwise_or(lax.ne(lam, lam), lax.lt(lam, _c(10, np.float32)))
    lam_knuth = lax.select(use_knuth, lam, _bcast(_c(0, np.float32), shape))
    # rejection's acceptance rate tends to 89% as lam grows: any large lam will do here
    lam_rejection = lax.select(use_knuth, _bcast(_c(1e5, np.float32), shape), lam)
    max_iters = _c(dtypes.iinfo(dtype).max, dtype)      # never reached in practice
    result = lax.select(use_knuth, _poisson_knuth(key, lam_knuth, shape, dtype, max_iters),
                        _poisson_rejection(key, lam_rejection, shape, dtype, max_iters))
    return lax.select(lax.eq(lam, _c(0, np.float32)), _bcast(_c(0, dtype), shape), result)


_poisson = jit(_poisson_impl, static_argnums=(2, 3))


@takes_out_sharding
def poisson(key, lam, shape=None, dtype=None, *, out_sharding=None):
    """Poisson(lam) integers (lam >= 0; computed in float32, as in JAX).

    >>> poisson(jax.random.PRNGKey(0), 3.0, (4,))
    Array([0, 0, 4, 4], dtype=int32)
    """
    data, _ = check_key("poisson", key)
    if impl_of(data) != THREEFRY:
        raise NotImplementedError(f"`poisson` is only implemented for the threefry2x32 RNG, "
                                  f"not {impl_of(data)}")
    dtype = user_dtype(dtype, int)
    if not dtypes.is_int(dtype):
        raise ValueError(f"dtype argument to `poisson` must be an int dtype, got {dtype}")
    shape = _shape(lam) if shape is None else static_shape("poisson", shape)
    lam = lax.convert_element_type(_bcast(lam, shape), np.float32)
    return _poisson(data, lam, shape, dtype)
