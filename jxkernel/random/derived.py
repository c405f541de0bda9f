"""Samplers derived from the basic ones by a closed-form transformation, each JAX 0.10.2's
formula with its operation order (so the bits match): pareto, lognormal, rayleigh, wald,
weibull_min, triangular, geometric, maxwell, double_sided_maxwell, t, chisquare, f,
generalized_normal, ball.

    >>> pareto(jax.random.PRNGKey(0), 3.0, (2,))
    Array([2.6734667, 3.6007476], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from .. import lax
from ..core import dtypes
from ..transforms.jit import jit
from .keys import check_key, static_shape, takes_out_sharding, user_dtype
from .rejection import _gamma_impl
from .samplers import (_bcast, _binop, _c, _check_broadcast_shapes, _check_safe_cast, _dtype,
                       _exponential, _normal_impl, _rademacher_impl, _shape,
                       _split2, _sum, _uniform_impl)


def _prepare(name, key, dtype, shape, *params, kind="float", cast=True):
    """Checked key data, dtype and shape (None: the broadcast of the parameters' shapes);
    the parameters must cast safely to the dtype (`cast`)."""
    data, _ = check_key(name, key)
    dtype = user_dtype(dtype, float if kind != "int" else int)
    ok = {"float": dtypes.is_float, "inexact": dtypes.is_inexact, "int": dtypes.is_int}[kind]
    if not ok(dtype):
        what = {"float": "a float", "inexact": "a float or complex", "int": "an int"}[kind]
        raise ValueError(f"dtype argument to `{name}` must be {what} dtype, got {dtype}")
    shape = _check_broadcast_shapes(name, None if shape is None else static_shape(name, shape),
                                    *params)
    if cast:
        _check_safe_cast(name, dtype, *params)
    return data, dtype, tuple(shape)


def _sample(name, key, dtype, shape, *params, checked=True, kind="float"):
    """`name`'s jitted sampler (`_jits["_" + name]`) on the checked key data, dtype and shape;
    the parameters are checked with them (`_prepare`) unless `checked` is False (samplers whose
    parameters JAX does not check either)."""
    data, dtype, shape = _prepare(name, key, dtype, shape, *(params if checked else ()), kind=kind)
    return _jits["_" + name](data, *params, shape, dtype)


def _to(x, dtype, shape=None):
    x = lax.convert_element_type(x, dtype)
    return x if shape is None else _bcast(x, shape)


# ------------------------------------------------------------------ implementations
def _pareto(key, b, shape, dtype):
    return lax.exp(_binop(lax.div, _exponential(key, shape, dtype), _to(b, dtype)))


def _lognormal(key, sigma, shape, dtype):
    return lax.exp(_binop(lax.mul, _normal_impl(key, shape, dtype), _to(sigma, dtype)))


def _rayleigh(key, scale, shape, dtype):
    u = _uniform_impl(key, 0., 1., shape, dtype)
    scale = _to(scale, dtype, shape)
    return lax.mul(scale, lax.sqrt(lax.mul(lax.log(u), _c(-2, dtype))))


def _wald(key, mean, shape, dtype):
    k1, k2 = _split2(key)
    mean = _to(mean, dtype, shape)
    v = _normal_impl(k1, shape, dtype)
    z = _uniform_impl(k2, 0., 1., shape, dtype)
    c = lambda v_: _c(v_, dtype)
    y = lax.integer_pow(v, 2)
    y_sq = lax.integer_pow(y, 2)
    mean_sq = lax.integer_pow(mean, 2)
    sqrt_term = lax.sqrt(lax.add(lax.mul(lax.mul(c(4), mean), y), lax.mul(mean_sq, y_sq)))
    x = lax.sub(lax.add(mean, lax.div(lax.mul(mean_sq, y), c(2))),
                lax.mul(lax.div(mean, c(2)), sqrt_term))
    return lax.select(lax.le(z, lax.div(mean, lax.add(mean, x))), x, lax.div(mean_sq, x))


def _weibull_min(key, scale, concentration, shape, dtype):
    u = _uniform_impl(key, 0, 1, shape, dtype)
    inv = _binop(lax.div, _c(1.0, _dtype(concentration)), concentration)
    x = _binop(lax.pow, lax.neg(lax.log1p(lax.neg(u))), lax.convert_element_type(inv, dtype))
    return _binop(lax.mul, x, lax.convert_element_type(scale, dtype))


def _triangular(key, left, mode, right, shape, dtype):
    left, right, mode = (_to(v, dtype, shape) for v in (left, right, mode))
    fc = lax.div(lax.sub(mode, left), lax.sub(right, left))
    u = _uniform_impl(key, 0., 1., shape, dtype)
    out1 = lax.add(left, lax.sqrt(lax.mul(lax.mul(u, lax.sub(right, left)), lax.sub(mode, left))))
    out2 = lax.sub(right, lax.sqrt(lax.mul(lax.mul(lax.sub(_c(1, dtype), u), lax.sub(right, left)),
                                           lax.sub(right, mode))))
    return lax.select(lax.lt(u, fc), out1, out2)


def _geometric(key, p, shape, dtype):
    fdt = _dtype(p)
    u = _uniform_impl(key, 0., 1., shape, fdt)
    u = lax.select(lax.eq(u, _c(0, fdt)), _bcast(_c(1, fdt), shape), u)   # log(0) -> log(1)
    log_one_minus_p = _bcast(lax.log1p(lax.neg(p)), shape)
    g = lax.add(lax.floor(lax.div(lax.log(u), log_one_minus_p)), _c(1, fdt))
    return lax.convert_element_type(g, dtype)


def _maxwell(key, shape, dtype):
    # the norm of a standard normal 3-vector: sqrt(sum(x * x))
    x = _normal_impl(key, tuple(shape) + (3,), dtype)
    return lax.sqrt(_sum(lax.mul(x, x), len(shape)))


def _double_sided_maxwell(key, loc, scale, shape, dtype):
    params_shape = np.broadcast_shapes(_shape(loc), _shape(scale))
    shape = tuple(shape or params_shape) + tuple(params_shape)      # (as JAX does)
    maxwell_key, rademacher_key = _split2(key)
    rvs = _maxwell(maxwell_key, shape, dtype)
    sign = _rademacher_impl(rademacher_key, shape, dtype)
    return _binop(lax.add, _binop(lax.mul, lax.mul(sign, rvs), _to(scale, dtype)), _to(loc, dtype))


def _t(key, df, shape, dtype):
    df = lax.convert_element_type(df, dtype)
    key_n, key_g = _split2(key)
    n = _normal_impl(key_n, shape, dtype)
    half_df = lax.div(df, _c(2, dtype))
    g = _gamma_impl(key_g, half_df, shape, dtype)
    return lax.mul(n, lax.sqrt(_binop(lax.div, half_df, g)))


def _chisquare(key, df, shape, dtype):
    half_df = lax.div(lax.convert_element_type(df, dtype), _c(2, dtype))
    log_g = _gamma_impl(key, half_df, shape, dtype, True)
    return lax.mul(lax.exp(log_g), _c(2, dtype))


def _f(key, dfnum, dfden, shape, dtype):
    dfden, dfnum = _to(dfden, dtype), _to(dfnum, dtype)
    key_dfd, key_dfn = _split2(key)
    num = _binop(lax.div, _chisquare(key_dfn, dfnum, shape, dtype), dfnum)
    den = _binop(lax.div, _chisquare(key_dfd, dfden, shape, dtype), dfden)
    return lax.div(num, den)


def _inverse(p, dtype):
    """1 / p as jnp computes it for a traced p (an integer p divides as floats)."""
    pdt = _dtype(p) if dtypes.is_inexact(_dtype(p)) else dtypes.default_float_dtype()
    return lax.div(_c(1, pdt), lax.convert_element_type(p, pdt))


def _generalized_normal(key, p, shape, dtype):
    k1, k2 = _split2(key)
    inv_p = _inverse(p, dtype)
    g = _gamma_impl(k1, inv_p, shape, dtype)
    r = _rademacher_impl(k2, shape, dtype)
    return lax.mul(r, lax.pow(g, lax.convert_element_type(inv_p, dtype)))


def _ball(key, p, d, shape, dtype):
    k1, k2 = _split2(key)
    g = _generalized_normal(k1, p, (*shape, d), dtype)
    e = _exponential(k2, shape, dtype)
    pf = lax.convert_element_type(p, dtype)
    total = lax.add(_sum(lax.pow(lax.abs(g), pf), len(shape)), e)
    scale = lax.pow(total, lax.convert_element_type(_inverse(p, dtype), dtype))
    return lax.div(g, lax.expand_dims(scale, (len(shape),)))


_jits = {f.__name__: jit(f, static_argnums=s) for f, s in [
    (_pareto, (2, 3)), (_lognormal, (2, 3)), (_rayleigh, (2, 3)), (_wald, (2, 3)),
    (_weibull_min, (3, 4)),
    (_triangular, (4, 5)), (_geometric, (2, 3)), (_maxwell, (1, 2)),
    (_double_sided_maxwell, (3, 4)), (_t, (2, 3)), (_chisquare, (2, 3)), (_f, (3, 4)),
    (_generalized_normal, (2, 3)), (_ball, (2, 3, 4))]}


# ------------------------------------------------------------------ public samplers
@takes_out_sharding
def pareto(key, b, shape=None, dtype=None, *, out_sharding=None):
    """Pareto(b) floats on [1, inf): exp(Exponential / b).

    >>> pareto(jax.random.PRNGKey(0), 3.0, (2,))
    Array([2.6734667, 3.6007476], dtype=float32)
    """
    return _sample("pareto", key, dtype, shape, b)


@takes_out_sharding
def lognormal(key, sigma=np.float32(1), shape=None, dtype=None, *, out_sharding=None):
    """exp(sigma * Normal) floats."""
    return _sample("lognormal", key, dtype, shape, sigma, kind="inexact")


@takes_out_sharding
def rayleigh(key, scale, shape=None, dtype=None, *, out_sharding=None):
    """Rayleigh(scale) floats: scale * sqrt(-2 log u)."""
    return _sample("rayleigh", key, dtype, shape, scale)


@takes_out_sharding
def wald(key, mean, shape=None, dtype=None, *, out_sharding=None):
    """Wald (inverse Gaussian, unit shape) floats of the given mean."""
    return _sample("wald", key, dtype, shape, mean)


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull floats: scale * (-log(1 - u)) ** (1 / concentration)."""
    return _sample("weibull_min", key, dtype, shape, scale, concentration, checked=False)


@takes_out_sharding
def triangular(key, left, mode, right, shape=None, dtype=None, *, out_sharding=None):
    """Triangular floats on [left, right] peaking at mode."""
    return _sample("triangular", key, dtype, shape, left, mode, right)


@takes_out_sharding
def geometric(key, p, shape=None, dtype=None, *, out_sharding=None):
    """Geometric(p) integers >= 1: trials until the first success."""
    data, dtype, shape = _prepare("geometric", key, dtype, shape, p, kind="int", cast=False)
    p = lax.convert_element_type(p, dtypes.to_inexact_dtype(_dtype(p)))
    return _jits["_geometric"](data, p, shape, dtype)


@takes_out_sharding
def maxwell(key, shape=(), dtype=None, *, out_sharding=None):
    """Maxwell floats: the length of a standard normal 3-vector."""
    return _sample("maxwell", key, dtype, shape)


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """Maxwell floats with a random sign, times scale, plus loc (the result shape is
    `shape + broadcast(loc, scale).shape`, as in JAX)."""
    return _sample("double_sided_maxwell", key, dtype, shape, loc, scale, checked=False)


@takes_out_sharding
def t(key, df, shape=None, dtype=None, *, out_sharding=None):
    """Student's t floats with df degrees of freedom."""
    return _sample("t", key, dtype, shape, df)


@takes_out_sharding
def chisquare(key, df, shape=None, dtype=None, *, out_sharding=None):
    """Chi-square floats with df degrees of freedom: 2 * Gamma(df / 2)."""
    return _sample("chisquare", key, dtype, shape, df)


@takes_out_sharding
def f(key, dfnum, dfden, shape=None, dtype=None, *, out_sharding=None):
    """F-distribution floats: (chi2(dfnum) / dfnum) / (chi2(dfden) / dfden)."""
    return _sample("f", key, dtype, shape, dfnum, dfden)


@takes_out_sharding
def generalized_normal(key, p, shape=(), dtype=None, *, out_sharding=None):
    """Generalized normal floats, density proportional to exp(-|x|^p)."""
    return _sample("generalized_normal", key, dtype, shape, p, checked=False)


@takes_out_sharding
def ball(key, d, p=2, shape=(), dtype=None, *, out_sharding=None):
    """Points uniform in the d-dimensional unit p-ball, shape `shape + (d,)`."""
    data, dtype, shape = _prepare("ball", key, dtype, shape)
    try:
        d = int(d) if isinstance(d, (int, np.integer)) else int(np.asarray(d).item())
    except Exception:
        raise TypeError("ball: d must be a static Python int (not traced)") from None
    return _jits["_ball"](data, p, d, shape, dtype)
