"""Samplers over random bits, each JAX 0.10.2's algorithm op for op, so that the same key
gives the same numbers bit for bit: a float in [1, 2) is made from random mantissa bits
and shifted to [0, 1) (`uniform`), then transformed (inverse CDFs, Gumbel noise).

Each public function checks its arguments eagerly (shapes and dtypes must be static) and
calls a jitted implementation, as JAX does, so eager calls compile once per signature.

    >>> uniform(jax.random.PRNGKey(0), (3,))
    Array([0.947667  , 0.9785799 , 0.33229148], dtype=float32)
"""
from __future__ import annotations

import functools

import numpy as np

from .. import lax, numpy as jnp
from ..core import dtypes
from ..core.avals import get_aval
from ..core.interpreter_primitives import typed_constant
from ..numpy.util import check_arraylike
from ..transforms.ad_util import stop_gradient
from ..transforms.jit import jit
from . import key_prims, prng
from .keys import check_key, static_shape, takes_out_sharding, user_dtype

UINT_DTYPES = prng.UINT_DTYPES


# ------------------------------------------------------------------ helpers
def _shape(x) -> tuple:
    # a list or tuple as NumPy shapes it, as JAX's np.shape: a tracer in it is made a NumPy
    # array (randint(key, 0, 10, (3,)) under its jit: JAX's TracerArrayConversionError)
    if isinstance(x, (list, tuple)) or x is None:      # (None: JAX's randint refuses it next)
        return np.shape(x)
    return () if dtypes.is_python_scalar(x) else tuple(get_aval(x).shape)


def _dtype(x) -> np.dtype:
    return dtypes.dtype(x)


def _check_shape(name, shape, *param_shapes):
    if param_shapes:
        full = lax.broadcast_shapes(tuple(shape), *map(tuple, param_shapes))     # (JAX's error)
        if full != tuple(shape):
            raise ValueError(f"{name} parameter shapes must be broadcast-compatible with shape "
                             f"argument, and the result of broadcasting the shapes must equal "
                             f"the shape argument, but got result {full} for shape argument "
                             f"{shape}.")


def _check_broadcast_shapes(name, shape, *args):
    """The sample shape: `shape`, checked against the parameters `args` (their shapes must
    broadcast to it), or None: the broadcast of their shapes (() without parameters).

    >>> _check_broadcast_shapes("beta", None, np.ones(3), 2.0)
    (3,)
    """
    arg_shapes = [np.shape(a) for a in args]
    if shape is None:
        return tuple(lax.broadcast_shapes(*arg_shapes)) if arg_shapes else ()
    shape = lax.shapes.canonicalize_shape(shape)
    _check_shape(name, shape, *arg_shapes)
    return tuple(shape)


def _check_float(name, dtype):
    if not dtypes.is_float(dtype):
        raise ValueError(f"dtype argument to `{name}` must be a float dtype, got {dtype}")


def _check_safe_cast(name, dtype, *args):
    """Parameters must convert to `dtype` without losing range or precision (weak Python
    scalars always do), as JAX checks for several samplers."""
    for arg in args:
        if _dtype(arg) != dtype and dtypes.result_type(arg, dtype)[0] != dtype:
            raise ValueError(f"In arguments to {name}, cannot safely cast argument of type "
                             f"{_dtype(arg)} to {dtype}")


def _bcast(x, shape):
    """`x` broadcast NumPy-style (leading dims added, size-1 dims stretched) to `shape`."""
    xs = _shape(x)
    if xs == tuple(shape):
        return x
    return lax.broadcast_in_dim(x, tuple(shape), tuple(range(len(shape) - len(xs), len(shape))))


def _binop(op, x, y):
    """A binary lax op with NumPy broadcasting, as jnp's operators apply them."""
    shape = lax.broadcast_shapes(_shape(x), _shape(y))
    return op(_bcast(x, shape), _bcast(y, shape))


def _c(value, dtype):
    return typed_constant(value, dtype)


def _sum(x, axis: int):
    """jnp.sum over one axis: float16/bfloat16 accumulate in float32, then round back."""
    dtype = _dtype(x)
    if dtype in (dtypes.float16, dtypes.bfloat16):
        return lax.convert_element_type(
            lax.reduce_sum(lax.convert_element_type(x, np.float32), (axis,)), dtype)
    return lax.reduce_sum(x, (axis,))


def _split2(key):
    keys = key_prims.random_split(key, (2,))
    return key_prims.index(keys, 0), key_prims.index(keys, 1)


# ------------------------------------------------------------------ uniform, normal
def _uniform_impl(key, minval, maxval, shape, dtype):
    """Random mantissa bits under the exponent of 1.0 give a float in [1, 2); minus 1, scaled
    to [minval, maxval) and clamped below (rounding could give minval - ulp)."""
    _check_shape("uniform", shape)
    minval, maxval = (lax.convert_element_type(v, dtype) for v in (minval, maxval))
    minval, maxval = (lax.broadcast_to_rank(v, len(shape)) for v in (minval, maxval))
    finfo = dtypes.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    rng_bits = 8 if nmant < 8 else nbits       # bfloat16: 8 random bits for 7 mantissa bits
    uint = UINT_DTYPES[nbits]
    bits = key_prims.random_bits(key, rng_bits, shape)
    if rng_bits != nbits:
        bits = lax.convert_element_type(bits, uint)
    float_bits = lax.shift_right_logical(bits, _c(rng_bits - nmant, uint))
    float_bits = lax.bitwise_or(float_bits, _c(np.array(1.0, dtype).view(uint), uint))
    floats = lax.sub(lax.bitcast_convert_type(float_bits, dtype), _c(1.0, dtype))
    scaled = lax.add(lax.mul(floats, lax.sub(maxval, minval)), minval)
    return lax.max(minval, lax.reshape(scaled, shape))


def _named(fun, name: str):
    """`fun` under JAX's name for its jit (jaxprs print `jit[name=_uniform]` as JAX's)."""
    @functools.wraps(fun)
    def named(*args):
        return fun(*args)
    named.__name__ = named.__qualname__ = name
    return named


_uniform = jit(_named(_uniform_impl, "_uniform"), static_argnums=(3, 4))


@takes_out_sharding
def uniform(key, shape=(), dtype=None, minval=0., maxval=1., *, out_sharding=None):
    """Uniform floats in [minval, maxval).

    >>> uniform(jax.random.PRNGKey(0), (2,), minval=-1.0, maxval=1.0)
    Array([0.895334  , 0.95715976], dtype=float32)
    """
    data, _ = check_key("uniform", key)
    dtype = user_dtype(dtype, float)
    shape = static_shape("uniform", shape)
    _check_float("uniform", dtype)
    return _uniform(data, minval, maxval, shape, dtype)


def _normal_real_impl(key, shape, dtype):
    # inverse CDF: sqrt(2) * erfinv(u) for u uniform in (-1, 1); uniform's own jit inside,
    # as JAX's (its jaxpr nests _normal, _normal_real and _uniform)
    lo = np.nextafter(np.array(-1., dtype), np.array(0., dtype), dtype=dtype)
    u = _uniform(key, lo, np.array(1., dtype), shape, dtype)
    return lax.mul(_c(np.sqrt(2), dtype), lax.erf_inv(u))


_normal_real = jit(_named(_normal_real_impl, "_normal_real"), static_argnums=(1, 2))


def _normal_impl(key, shape, dtype):
    _check_shape("normal", shape)
    if dtypes.is_complex(dtype):
        key_re, key_im = _split2(key)
        real = np.array(0, dtype).real.dtype
        re = lax.convert_element_type(_normal_real(key_re, shape, real), dtype)
        im = lax.convert_element_type(_normal_real(key_im, shape, real), dtype)
        return lax.div(lax.add(re, lax.mul(_c(1j, dtype), im)), _c(np.sqrt(2), dtype))
    return _normal_real(key, shape, dtype)


_normal = jit(_named(_normal_impl, "_normal"), static_argnums=(1, 2))


@takes_out_sharding
def normal(key, shape=(), dtype=None, *, out_sharding=None):
    """Standard normal floats (complex dtypes: real and imaginary parts of variance 1/2).

    >>> normal(jax.random.PRNGKey(0), (2,))
    Array([1.6226422, 2.0252647], dtype=float32)
    """
    data, _ = check_key("normal", key)
    shape = static_shape("normal", shape)
    dtype = user_dtype(dtype, float)
    if not dtypes.is_inexact(dtype):
        raise ValueError(f"dtype argument to `normal` must be a float or complex dtype, "
                         f"got {dtype}")
    return _normal(data, shape, dtype)


def _truncated_normal_impl(key, lower, upper, shape, dtype):
    if shape is None:
        shape = lax.broadcast_shapes(_shape(lower), _shape(upper))
    else:
        _check_shape("truncated_normal", shape, _shape(lower), _shape(upper))
    sqrt2 = _c(np.sqrt(2), dtype)
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    a = lax.erf(lax.div(lower, sqrt2))
    b = lax.erf(lax.div(upper, sqrt2))
    u = _uniform_impl(key, a, b, shape, dtype)
    out = lax.mul(sqrt2, lax.erf_inv(u))
    # clamp into the open interval (lower, upper): rounding may land on a bound
    lo = lax.nextafter(stop_gradient(lower), _c(np.inf, dtype))
    hi = lax.nextafter(stop_gradient(upper), _c(-np.inf, dtype))
    return _binop(lax.min, hi, _binop(lax.max, lo, out))


_truncated_normal = jit(_truncated_normal_impl, static_argnums=(3, 4))


@takes_out_sharding
def truncated_normal(key, lower, upper, shape=None, dtype=None, *, out_sharding=None):
    """Standard normal floats truncated to (lower, upper).

    >>> truncated_normal(jax.random.PRNGKey(0), -1.0, 1.0, (2,))
    Array([0.8618594, 0.9412883], dtype=float32)
    """
    if shape is not None:
        shape = static_shape("truncated_normal", shape)
    data, _ = check_key("truncated_normal", key)
    dtype = user_dtype(dtype, float)
    _check_float("truncated_normal", dtype)
    return _truncated_normal(data, lower, upper, shape, dtype)


# ------------------------------------------------------------------ integers
def _convert_and_clip_integer(val, dtype):
    """`val` in integer `dtype`, clipped into its range instead of wrapping."""
    vdt = _dtype(val)
    lo = _c(max(dtypes.iinfo(dtype).min, dtypes.iinfo(vdt).min), vdt)
    hi = _c(min(dtypes.iinfo(dtype).max, dtypes.iinfo(vdt).max), vdt)
    return lax.convert_element_type(lax.min(hi, lax.max(lo, val)), dtype)


def _randint_impl(key, minval, maxval, shape, dtype):
    """Two words of random bits per value, reduced modulo the span (biased unless the span is
    a power of 2, as in JAX): (hi mod span) * (2**nbits mod span) + lo mod span."""
    _check_shape("randint", shape, _shape(minval), _shape(maxval))
    check_arraylike("randint", minval, maxval)
    minval, maxval = (lax.convert_element_type(v, dtypes.default_int_dtype())
                      if not dtypes.is_int(_dtype(v)) else v for v in (minval, maxval))
    top = _convert_and_clip_integer(_c(dtypes.iinfo(dtype).max, dtype), _dtype(maxval))
    maxval_out_of_range = lax.gt(maxval, top)     # e.g. randint(k, s, 0, 256, uint8)
    minval = lax.broadcast_to_rank(_convert_and_clip_integer(minval, dtype), len(shape))
    maxval = lax.broadcast_to_rank(_convert_and_clip_integer(maxval, dtype), len(shape))
    nbits = dtypes.iinfo(dtype).bits
    k1, k2 = _split2(key)
    higher_bits = key_prims.random_bits(k1, nbits, shape)
    lower_bits = key_prims.random_bits(k2, nbits, shape)
    unsigned = UINT_DTYPES[nbits]
    span = lax.convert_element_type(_binop(lax.sub, maxval, minval), unsigned)
    one = _c(1, unsigned)
    span = lax.select(_binop(lax.le, maxval, minval), _bcast(one, _shape(span)), span)
    wider = _binop(lax.bitwise_and, maxval_out_of_range, _binop(lax.gt, maxval, minval))
    span = lax.select(_bcast(wider, _shape(span)), lax.add(span, one), span)
    multiplier = lax.rem(_c(2 ** (nbits // 2), unsigned), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher_bits, span), multiplier), lax.rem(lower_bits, span))
    offset = lax.rem(offset, span)
    return _binop(lax.add, minval, lax.convert_element_type(offset, dtype))


_randint = jit(_named(_randint_impl, "_randint"), static_argnums=(3, 4))


@takes_out_sharding
def randint(key, shape, minval, maxval, dtype=None, *, out_sharding=None):
    """Uniform integers in [minval, maxval).

    >>> randint(jax.random.PRNGKey(0), (4,), 0, 10)
    Array([9, 0, 2, 3], dtype=int32)
    """
    data, _ = check_key("randint", key)
    dtype = user_dtype(dtype, int)
    shape = static_shape("randint", shape)
    if not dtypes.is_int(dtype):
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    info = dtypes.iinfo(dtype)
    sampling = dtype
    if info.bits < 32:      # sample in 32 bits for less bias, as JAX does
        sampling = np.dtype(np.int32)
        # (through jnp, as JAX's: a list is an array, an object or text jnp's error)
        minval = jnp.asarray(minval).astype("int32").clip(int(info.min), int(info.max))
        maxval = jnp.asarray(maxval).astype("int32").clip(int(info.min), int(info.max) + 1)
    out = _randint(data, minval, maxval, shape, sampling)
    return out if sampling == dtype else lax.convert_element_type(out, dtype)


# ------------------------------------------------------------------ bernoulli, rademacher
def _bernoulli_impl(key, p, shape, mode):
    # as JAX's: uniform's own jit inside, compared with jnp's operators (a scalar p is not
    # broadcast first), so that the jaxpr is JAX's
    if shape is None:
        shape = _shape(p)
    else:
        _check_shape("bernoulli", shape, _shape(p))
    dtype = _dtype(p)
    if mode == "high":
        u1, u2 = _uniform(key, 0., 1., (2, *shape), dtype)
        u2 = u2 * 2.0 ** -dtypes.finfo(dtype).nmant
        return u2 < p - u1
    return _uniform(key, 0., 1., shape, dtype) < p


_bernoulli = jit(_named(_bernoulli_impl, "_bernoulli"), static_argnums=(2, 3))


@takes_out_sharding
def bernoulli(key, p=0.5, shape=None, mode="low", *, out_sharding=None):
    """Booleans that are True with probability p.

    >>> bernoulli(jax.random.PRNGKey(0), 0.5, (4,))
    Array([False, False,  True,  True], dtype=bool)
    """
    if shape is not None:
        shape = static_shape("bernoulli", shape)
    if mode not in ("high", "low"):
        raise ValueError(f"got {mode=}, expected 'high' or 'low'")
    data, _ = check_key("bernoulli", key)
    dtype = _dtype(p)
    if not dtypes.is_float(dtype):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dtype}.")
    return _bernoulli(data, lax.convert_element_type(p, dtype), shape, mode)


def _rademacher_impl(key, shape, dtype):
    b = lax.convert_element_type(_bernoulli_impl(key, _c(0.5, dtypes.default_float_dtype()),
                                                 shape, "low"), dtype)
    return lax.sub(lax.mul(_c(2, dtype), b), _c(1, dtype))


_rademacher = jit(_rademacher_impl, static_argnums=(1, 2))


@takes_out_sharding
def rademacher(key, shape=(), dtype=None, *, out_sharding=None):
    """-1 or +1 with equal probability (integers by default).

    >>> rademacher(jax.random.PRNGKey(0), (4,))
    Array([-1, -1,  1,  1], dtype=int32)
    """
    data, _ = check_key("rademacher", key)
    dtype = user_dtype(dtype, int)
    return _rademacher(data, static_shape("rademacher", shape), dtype)


# ------------------------------------------------------------------ inverse-CDF samplers
def _float_sampler(name, transform):
    """A public sampler `name(key, shape=(), dtype=None)` computing `transform(key, shape,
    dtype)` under jit."""
    impl = jit(transform, static_argnums=(1, 2))

    def sampler(key, shape=(), dtype=None, *, out_sharding=None):
        data, _ = check_key(name, key)
        dtype = user_dtype(dtype, float)
        _check_float(name, dtype)
        return impl(data, static_shape(name, shape), dtype)
    sampler.__name__ = sampler.__qualname__ = name
    return takes_out_sharding(sampler)


def _exponential(key, shape, dtype):
    u = _uniform_impl(key, 0., 1., shape, dtype)
    return lax.neg(lax.log1p(lax.neg(u)))         # -log(1 - u): log of (0, 1]


def _laplace(key, shape, dtype):
    u = _uniform_impl(key, -1. + dtypes.finfo(dtype).epsneg, 1., shape, dtype)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


def _logistic(key, shape, dtype):
    x = _uniform_impl(key, dtypes.finfo(dtype).tiny, 1., shape, dtype)
    return lax.sub(lax.log(x), lax.log1p(lax.neg(x)))


def _cauchy(key, shape, dtype):
    u = _uniform_impl(key, dtypes.finfo(dtype).eps, 1., shape, dtype)
    return lax.tan(lax.mul(_c(np.pi, dtype), lax.sub(u, _c(0.5, dtype))))


exponential = _float_sampler("exponential", _exponential)
exponential.__doc__ = """Exponential floats of rate 1: -log(1 - u).

    >>> exponential(jax.random.PRNGKey(0), (2,))
    Array([2.950128 , 3.8434246], dtype=float32)
    """
laplace = _float_sampler("laplace", _laplace)
laplace.__doc__ = """Laplace floats, density exp(-|x|) / 2."""
logistic = _float_sampler("logistic", _logistic)
logistic.__doc__ = """Logistic floats: log(u) - log(1 - u)."""
cauchy = _float_sampler("cauchy", _cauchy)
cauchy.__doc__ = """Cauchy floats: tan(pi * (u - 1/2))."""


# ------------------------------------------------------------------ gumbel
def _safe_int_to_float(bits, dtype):
    """uint32 words bits[0] (high), bits[1] (low) of a 64-bit fixed-point fraction in (0, 1)
    as a float32 that keeps all its leading significant bits (JAX's "highest" gumbel mode).

    >>> _safe_int_to_float(np.array([1 << 31, 0], np.uint32), np.float32)
    Array(0.5, dtype=float32)
    """
    if _dtype(bits) != np.uint32 or np.dtype(dtype) != np.float32:
        raise RuntimeError("_safe_int_to_float only works for u32 -> f32")
    finfo = dtypes.finfo(np.float32)
    hi, lo = (lax.index_in_dim(bits, i, keepdims=False) for i in (0, 1))
    hiclz, loclz = lax.clz(hi), lax.clz(lo)
    u = lambda v: _c(v, np.uint32)
    hi_all_zero = lax.eq(hiclz, u(32))
    mantissa = lax.bitwise_or(
        lax.shift_left(hi, hiclz),
        lax.select(hi_all_zero, lax.shift_left(lo, loclz),
                   lax.shift_right_logical(lo, lax.sub(u(finfo.bits), hiclz))))
    mantissa = lax.shift_right_logical(mantissa, u(finfo.bits - finfo.nmant - 1))
    mantissa = lax.bitwise_and(mantissa, u((1 << finfo.nmant) - 1))
    leading = lax.select(hi_all_zero, lax.add(u(32), loclz), hiclz)
    exp = lax.shift_left(lax.sub(u(-finfo.minexp), leading), u(finfo.nmant))
    exp = lax.bitwise_and(exp, u((1 << (finfo.bits - 2)) - (1 << (finfo.nmant - 1))))
    return lax.bitcast_convert_type(lax.bitwise_or(exp, mantissa), np.float32)


def _gumbel_impl(key, shape, dtype, mode):
    """-log(-log(u)); "high" mode adds low-order bits to u below 1/2, "highest" (float32)
    builds u from 64 bits and takes log1p where that is more accurate."""
    _check_shape("gumbel", shape)
    info = dtypes.finfo(dtype)
    if dtype == np.float32 and mode == "highest":
        bits = key_prims.random_bits(key, 32, (2,) + shape)
        b0, b1 = (lax.index_in_dim(bits, i, keepdims=False) for i in (0, 1))
        n0, n1 = lax.bitwise_not(b0), lax.bitwise_not(b1)
        # 1 - bits in 64-bit fixed point: ~bits + 1, the carry going into the high word
        carry = lax.convert_element_type(lax.eq(n1, _c(0xFFFFFFFF, np.uint32)), np.uint32)
        n0, n1 = lax.add(n0, carry), lax.add(n1, _c(1, np.uint32))
        flip = lax.lt(b0, _c(1 << 31, np.uint32))
        x = _safe_int_to_float(lax.concatenate(
            [lax.expand_dims(lax.select(flip, b, n), (0,)) for b, n in ((b0, n0), (b1, n1))],
            0), np.float32)
        return lax.select(flip, lax.neg(lax.log(lax.neg(lax.log1p(lax.neg(x))))),
                          lax.neg(lax.log(lax.neg(lax.log(x)))))
    if mode in ("high", "highest"):
        u = _uniform_impl(key, 0., 1., (2,) + shape, dtype)
        high, low = (lax.index_in_dim(u, i, keepdims=False) for i in (0, 1))
        x = lax.select(lax.ge(high, _c(0.5, dtype)), high,
                       lax.add(lax.add(high, lax.mul(_c(2.0 ** -info.nmant, dtype), low)),
                               _c(info.tiny, dtype)))
        return lax.neg(lax.log(lax.neg(lax.log1p(lax.neg(x)))))
    u = _uniform_impl(key, info.tiny, 1., shape, dtype)
    return lax.neg(lax.log(lax.neg(lax.log(u))))


_gumbel = jit(_gumbel_impl, static_argnums=(1, 2, 3))


def _gumbel_mode(mode):
    mode = "low" if mode is None else mode
    if mode not in ("highest", "high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    return mode


@takes_out_sharding
def gumbel(key, shape=(), dtype=None, mode=None, *, out_sharding=None):
    """Standard Gumbel floats: -log(-log(u)).

    >>> gumbel(jax.random.PRNGKey(0), (2,))
    Array([2.9233725, 3.8326178], dtype=float32)
    """
    data, _ = check_key("gumbel", key)
    dtype = user_dtype(dtype, float)
    _check_float("gumbel", dtype)
    return _gumbel(data, static_shape("gumbel", shape), dtype, _gumbel_mode(mode))


__all__ = ["uniform", "normal", "truncated_normal", "randint", "bernoulli", "rademacher",
           "exponential", "laplace", "logistic", "cauchy", "gumbel"]
