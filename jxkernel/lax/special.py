"""Special-function primitives: incomplete gamma and beta functions, polygamma, Hurwitz zeta
and the exponentially scaled Bessel functions I0 and I1. Each primitive is followed by its
rules.

The incomplete gamma/beta functions and bessel_i0e lower by tracing their algorithms, written
here on lax ops (the series, continued fractions and Chebyshev expansions that JAX 0.10.2
uses, with the same tolerances and iteration limits, so the numbers agree); polygamma, zeta
and bessel_i1e lower to single CHLO ops. float16/bfloat16 compute in float32.

    >>> igamma(np.float32(2.0), np.float32(1.0))
    Array(0.26424113, dtype=float32)
"""
from __future__ import annotations

import functools

import numpy as np

from ..core import dtypes
from ..core.avals import get_aval
from ..core.interpreter_primitives import typed_constant
from ..core.primitive import Primitive, abstract_eval_rules, lowering_rules, numpy_rules
from ..transforms import ad_util as ad
from ..transforms import batch_util as bu
from . import _lowering as hl
from ._rules import FLOAT, binop, naryop_abstract_eval, unop
from .conversion import convert_element_type
from .elementwise import (
    _np_special,
    abs,
    add,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    digamma,
    div,
    eq,
    exp,
    ge,
    gt,
    le,
    lgamma,
    log,
    log1p,
    lt,
    mul,
    ne,
    neg,
    reciprocal,
    rem,
    select,
    sign,
    sqrt,
    sub,
)
from .reductions import reduce_or
from .shapes import broadcast_in_dim, broadcast_shapes
from .while_loop import while_loop


def _c(x, value):
    """`value` as a scalar of x's dtype (lax's binary ops broadcast scalars); typed, so a
    float64 one stays float64 under jax_explicit_x64_dtypes ALLOW."""
    return typed_constant(value, dtypes.dtype(x))


def _full(x, value):
    """`value` spread to x's shape and dtype (select needs equal-shaped cases)."""
    shape = get_aval(x).shape
    value = _c(x, value)
    return broadcast_in_dim(value, shape, ()) if shape else value


def _isnan(x):
    return ne(x, x)


def _any(pred):
    shape = get_aval(pred).shape
    return reduce_or(pred, tuple(range(len(shape)))) if shape else pred


def _or(*preds):
    return functools.reduce(bitwise_or, preds)


def _upcast_and_broadcast(impl):
    """impl(*args, dtype=...) on operands broadcast to one shape; 16-bit floats computed in
    float32 (the algorithms' constants and tolerances are those of float32/float64)."""
    @functools.wraps(impl)
    def wrapped(*args):
        shape = broadcast_shapes(*(get_aval(a).shape for a in args))   # (symbolic sizes too)
        args = [broadcast_in_dim(a, shape, tuple(range(len(get_aval(a).shape))))
                if get_aval(a).shape != shape else a for a in args]
        dtype = dtypes.dtype(args[0])
        if dtype in (dtypes.float16, dtypes.bfloat16):
            args = [convert_element_type(a, np.float32) for a in args]
            return convert_element_type(impl(*args, dtype=np.dtype(np.float32)), dtype)
        return impl(*args, dtype=np.dtype(dtype))
    return wrapped


# ------------------------------------------------------------------ incomplete gamma
# Modes of the shared series / continued fraction: the function value, its derivative in a,
# or the derivative of a Gamma(a) sample in a (implicit reparameterization).
VALUE, DERIVATIVE, SAMPLE_DERIVATIVE = "value", "derivative", "sample_derivative"


def _igamma_series(ax, x, a, enabled, dtype, mode):
    """P(a, x) by its power series in x (good for x < max(1, a)), carrying d/da alongside."""
    eps = dtypes.finfo(dtype).eps

    def body(vals):
        enabled, r, c, ans, x, dc_da, dans_da = vals
        r = add(r, _c(r, 1))
        dc_da = sub(mul(dc_da, div(x, r)), div(mul(c, x), mul(r, r)))
        dans_da = add(dans_da, dc_da)
        c = mul(c, div(x, r))
        ans = add(ans, c)
        if mode == VALUE:
            going = bitwise_and(enabled, gt(div(c, ans), _c(c, eps)))
        else:
            going = bitwise_and(enabled, gt(abs(div(dc_da, dans_da)), _c(dc_da, eps)))
        new = (r, c, ans, x, dc_da, dans_da)
        return (going,) + tuple(select(enabled, n, o) for n, o in zip(new, vals[1:]))

    init = (enabled, a, _full(a, 1), _full(a, 1), x, _full(a, 0), _full(a, 0))
    vals = while_loop(lambda v: _any(v[0]), body, init)
    ans, dans_da = vals[3], vals[6]
    if mode == VALUE:
        return div(mul(ans, ax), a)
    dlogax_da = sub(log(x), digamma(add(a, _c(a, 1))))
    if mode == DERIVATIVE:
        return div(mul(ax, add(mul(ans, dlogax_da), dans_da)), a)
    return div(mul(neg(add(dans_da, mul(ans, dlogax_da))), x), a)


def _igammac_continued_fraction(ax, x, a, enabled, dtype, mode):
    """Q(a, x) by its continued fraction (good for x > max(1, a)), with d/da alongside; the
    convergents are rescaled by eps whenever they grow past 1/eps. At most 2000 steps."""
    eps = dtypes.finfo(dtype).eps

    def cond(vals):
        return bitwise_and(lt(vals[5], _c(vals[5], 2000)), _any(vals[0]))

    def body(vals):
        (enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2,
         dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da) = vals
        c = add(c, _c(c, 1))
        y = add(y, _c(y, 1))
        z = add(z, _c(z, 2))
        yc = mul(y, c)
        pk = sub(mul(pkm1, z), mul(pkm2, yc))
        qk = sub(mul(qkm1, z), mul(qkm2, yc))
        qk_is_nonzero = ne(qk, _c(qk, 0))
        r = div(pk, qk)
        t = select(qk_is_nonzero, abs(div(sub(ans, r), r)), _full(r, 1))
        ans = select(qk_is_nonzero, r, ans)
        dpk_da = add(sub(sub(mul(dpkm1_da, z), pkm1), mul(dpkm2_da, yc)), mul(pkm2, c))
        dqk_da = add(sub(sub(mul(dqkm1_da, z), qkm1), mul(dqkm2_da, yc)), mul(qkm2, c))
        dans_da_new = select(qk_is_nonzero, div(sub(dpk_da, mul(ans, dqk_da)), qk), dans_da)
        grad_conditional = select(qk_is_nonzero, abs(sub(dans_da_new, dans_da)),
                                  _full(dans_da, 1))
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = dpkm1_da, dqkm1_da, dpk_da, dqk_da
        rescale = gt(abs(pk), reciprocal(_c(pk, eps)))
        shrink = lambda v: select(rescale, mul(v, _c(v, eps)), v)
        pkm2, pkm1, qkm2, qkm1 = map(shrink, (pkm2, pkm1, qkm2, qkm1))
        dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = map(shrink, (dpkm2_da, dqkm2_da, dpkm1_da,
                                                              dqkm1_da))
        if mode == VALUE:
            going = bitwise_and(enabled, gt(t, _c(t, eps)))
        else:
            going = bitwise_and(enabled, gt(grad_conditional, _c(grad_conditional, eps)))
        keep = lambda new, old: select(enabled, new, old)
        return (going, keep(ans, vals[1]), keep(t, vals[2]), keep(y, vals[3]),
                keep(z, vals[4]), c,
                *map(keep, (pkm1, qkm1, pkm2, qkm2, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da,
                            dans_da_new), vals[6:]))

    y = sub(_c(a, 1), a)
    z = add(add(x, y), _c(x, 1))
    pkm1 = add(x, _c(x, 1))
    qkm1 = mul(z, x)
    ans = div(pkm1, qkm1)
    dqkm1_da = neg(x)
    dans_da = div(sub(_full(x, 0), mul(ans, dqkm1_da)), qkm1)
    init = (enabled, ans, _full(x, 1), y, z, _c(x, 0), pkm1, qkm1, _full(x, 1), x,
            _full(x, 0), _full(x, 0), _full(x, 0), dqkm1_da, dans_da)
    vals = while_loop(cond, body, init)
    ans = vals[1]
    if mode == VALUE:
        return mul(ans, ax)
    dans_da = vals[14]
    dlogax_da = sub(log(x), digamma(a))
    if mode == DERIVATIVE:
        return mul(ax, add(mul(ans, dlogax_da), dans_da))
    return neg(mul(add(dans_da, mul(ans, dlogax_da)), x))


def _log_ax(a, x, dtype):
    """log(x^a e^-x / Gamma(a)), and whether its exp underflows."""
    ax = sub(sub(mul(a, log(x)), x), lgamma(a))
    underflow = lt(ax, _c(ax, -np.log(dtypes.finfo(dtype).max)))
    return ax, underflow


def _igamma_impl(a, x, *, dtype):
    is_nan = bitwise_or(_isnan(a), _isnan(x))
    x_is_infinity = eq(x, _c(x, np.inf))
    a_is_zero = eq(a, _c(a, 0))
    x_is_zero = eq(x, _c(x, 0))
    domain_error = _or(lt(x, _c(x, 0)), lt(a, _c(a, 0)), bitwise_and(a_is_zero, x_is_zero),
                       is_nan)
    use_igammac = bitwise_and(ge(x, _c(x, 1)), gt(x, a))
    ax, underflow = _log_ax(a, x, dtype)
    ax = exp(ax)
    enabled = bitwise_not(_or(x_is_zero, domain_error, underflow, x_is_infinity))
    output = select(
        use_igammac,
        sub(_c(a, 1), _igammac_continued_fraction(ax, x, a, bitwise_and(enabled, use_igammac),
                                                  dtype, VALUE)),
        _igamma_series(ax, x, a, bitwise_and(enabled, bitwise_not(use_igammac)), dtype, VALUE))
    output = select(x_is_zero, _full(a, 0), output)
    output = select(x_is_infinity, _full(a, 1), output)
    return select(domain_error, _full(a, np.nan), output)


def _igammac_impl(a, x, *, dtype):
    is_nan = bitwise_or(_isnan(a), _isnan(x))
    a_is_zero = eq(a, _c(a, 0))
    x_is_zero = eq(x, _c(x, 0))
    x_is_infinity = eq(x, _c(x, np.inf))
    domain_error = _or(lt(x, _c(x, 0)), lt(a, _c(a, 0)), bitwise_and(a_is_zero, x_is_zero),
                       is_nan)
    use_igamma = bitwise_or(lt(x, _c(x, 1)), lt(x, a))
    ax, underflow = _log_ax(a, x, dtype)
    enabled = bitwise_not(_or(domain_error, underflow, x_is_infinity, a_is_zero))
    ax = exp(ax)
    series = _igamma_series(ax, x, a, bitwise_and(enabled, use_igamma), dtype, VALUE)
    fraction = _igammac_continued_fraction(ax, x, a, bitwise_and(enabled, bitwise_not(use_igamma)),
                                           dtype, VALUE)
    output = select(use_igamma, sub(_c(a, 1), series), fraction)
    output = select(bitwise_or(x_is_infinity, a_is_zero), _full(output, 0), output)
    return select(domain_error, _full(a, np.nan), output)


def _igamma_derivative_impl(a, x, *, dtype, mode):
    """d/da P(a, x) (mode DERIVATIVE) or d sample / d a (SAMPLE_DERIVATIVE)."""
    is_nan = bitwise_or(_isnan(a), _isnan(x))
    x_is_zero = eq(x, _c(x, 0))
    domain_error = bitwise_or(lt(x, _c(x, 0)), le(a, _c(a, 0)))
    use_igammac = bitwise_and(gt(x, _c(x, 1)), gt(x, a))
    ax, underflow = _log_ax(a, x, dtype)
    ax = exp(ax)
    enabled = bitwise_not(_or(x_is_zero, domain_error, underflow, is_nan))
    output = select(
        use_igammac,
        neg(_igammac_continued_fraction(ax, x, a, bitwise_and(enabled, use_igammac), dtype,
                                        mode)),
        _igamma_series(ax, x, a, bitwise_and(enabled, bitwise_not(use_igammac)), dtype, mode))
    output = select(x_is_zero, _full(output, 0), output)
    return select(bitwise_or(domain_error, is_nan), _full(a, np.nan), output)


def _igamma_gradx(g, a, x):
    """d/dx P(a, x) = x^(a-1) e^-x / Gamma(a), times g."""
    return mul(g, exp(sub(add(neg(x), mul(sub(a, _c(a, 1)), log(x))), lgamma(a))))


igamma_p = binop("igamma", None, FLOAT)
lowering_rules[igamma_p] = hl.lower_fun(_upcast_and_broadcast(_igamma_impl))
numpy_rules[igamma_p] = hl.numpy_fun(_upcast_and_broadcast(_igamma_impl))
ad.defjvp(igamma_p, lambda g, ans, a, x: mul(g, igamma_grad_a(a, x)),
          lambda g, ans, a, x: _igamma_gradx(g, a, x))

igammac_p = binop("igammac", None, FLOAT)
lowering_rules[igammac_p] = hl.lower_fun(_upcast_and_broadcast(_igammac_impl))
numpy_rules[igammac_p] = hl.numpy_fun(_upcast_and_broadcast(_igammac_impl))
ad.defjvp(igammac_p, lambda g, ans, a, x: neg(mul(g, igamma_grad_a(a, x))),
          lambda g, ans, a, x: neg(_igamma_gradx(g, a, x)))

igamma_grad_a_p = binop("igamma_grad_a", None, FLOAT)
lowering_rules[igamma_grad_a_p] = hl.lower_fun(_upcast_and_broadcast(
    functools.partial(_igamma_derivative_impl, mode=DERIVATIVE)))
numpy_rules[igamma_grad_a_p] = hl.numpy_fun(_upcast_and_broadcast(
    functools.partial(_igamma_derivative_impl, mode=DERIVATIVE)))


def _igamma_grad_a_grad_a(g, ans, a, x):
    raise NotImplementedError(
        "Differentiation rule for 'igamma_grad_a' with respect to a not implemented (as in "
        "JAX): the second derivative of igamma in a has no closed form here.")


# d/dx of d/da P(a, x) is d/da of x^(a-1) e^-x / Gamma(a): that density times
# (log x - digamma(a)). (JAX 0.10.2 has no derivative rule for igamma_grad_a at all.)
ad.defjvp(igamma_grad_a_p, _igamma_grad_a_grad_a,
          lambda g, ans, a, x: mul(_igamma_gradx(g, a, x), sub(log(x), digamma(a))))


def igamma(a, x):
    """The regularized lower incomplete gamma function P(a, x), elementwise.

    >>> igamma(np.float32(1.0), np.float32(1.0))      # 1 - exp(-1)
    Array(0.6321202, dtype=float32)
    """
    return igamma_p.bind(a, x)


def igammac(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x), elementwise."""
    return igammac_p.bind(a, x)


def igamma_grad_a(a, x):
    """d/da of igamma(a, x), elementwise."""
    return igamma_grad_a_p.bind(a, x)


def random_gamma_grad(a, x):
    """d x / d a for a sample x of Gamma(a, 1), elementwise (a function, as in JAX, that
    stages the series and continued fraction in place).

    >>> random_gamma_grad(np.float32(2.0), np.float32(1.5))
    Array(0.936639, dtype=float32)
    """
    return _upcast_and_broadcast(functools.partial(
        _igamma_derivative_impl, mode=SAMPLE_DERIVATIVE))(a, x)


# ------------------------------------------------------------------ incomplete beta
def _lentz(num_iterations, small, threshold, numerator, denominator, inputs):
    """A continued fraction b0 + a1/(b1 + a2/(b2 + ...)) by the modified Lentz method,
    stopping when every element's last factor is within `threshold` of 1."""
    def cond(vals):
        return bitwise_and(lt(vals[0], np.int32(num_iterations)), vals[1])

    def body(vals):
        iteration, _, c_prev, d_prev, h_prev = vals
        a_n = numerator(iteration, *inputs)
        b_n = denominator(iteration, *inputs)
        tiny = _full(a_n, small)
        c = add(b_n, div(a_n, c_prev))
        c = select(lt(abs(c), tiny), tiny, c)
        d = add(b_n, mul(a_n, d_prev))
        d = reciprocal(select(lt(abs(d), tiny), tiny, d))
        delta = mul(c, d)
        h = mul(h_prev, delta)
        unconverged = _any(ge(abs(sub(delta, _c(delta, 1))), _c(delta, threshold)))
        return add(iteration, np.int32(1)), unconverged, c, d, h

    b_0 = denominator(np.int32(0), *inputs)
    h = select(lt(abs(b_0), _c(b_0, small)), _full(b_0, small), b_0)
    init = (np.int32(1), np.bool_(True), h, _full(h, 0), h)
    return while_loop(cond, body, init)[4]


def _betainc_impl(a, b, x, *, dtype):
    shape = get_aval(a).shape

    def iteration_like(iteration):
        return broadcast_in_dim(iteration, shape, ()) if shape else iteration

    def numerator(iteration, a, b, x):
        # DLMF 8.17.23: d_1 = 1, then alternating even/odd terms in m = (n - 1) // 2
        n = iteration_like(iteration)
        is_even = eq(rem(n, np.int32(2)), np.int32(0))
        is_one = eq(n, np.int32(1))
        m_int = div(sub(n, np.int32(1)), np.int32(2))
        m_is_zero = eq(m_int, np.int32(0))
        m = convert_element_type(m_int, dtype)
        one, two = _full(a, 1), _full(a, 2)
        a_2m = add(a, mul(two, m))
        # m == 0 has its own form: accurate for a near zero when denormals flush to zero
        zero_numerator = div(mul(neg(add(a, b)), x), add(a, one))
        even = select(m_is_zero, zero_numerator,
                      div(mul(mul(neg(add(a, m)), add(add(a, b), m)), x),
                          mul(a_2m, add(a_2m, one))))
        odd = div(mul(mul(m, sub(b, m)), x), mul(sub(a_2m, one), a_2m))
        return select(is_one, _full(x, 1), select(is_even, even, odd))

    def denominator(iteration, a, b, x):
        n = iteration_like(iteration)
        return select(eq(n, np.int32(0)), _full(x, 0), _full(x, 1))

    a_is_zero = bitwise_or(eq(a, _c(a, 0)), eq(b, _c(b, np.inf)))
    b_is_zero = bitwise_or(eq(b, _c(b, 0)), eq(a, _c(a, np.inf)))
    x_is_zero = eq(x, _c(x, 0))
    x_is_one = eq(x, _c(x, 1))
    is_nan = _or(_isnan(a), _isnan(b), _isnan(x))
    result_is_zero = bitwise_or(bitwise_and(b_is_zero, bitwise_not(x_is_one)),
                                bitwise_and(a_is_zero, x_is_zero))
    result_is_one = bitwise_or(bitwise_and(a_is_zero, bitwise_not(x_is_zero)),
                               bitwise_and(b_is_zero, x_is_one))
    result_is_nan = _or(lt(a, _c(a, 0)), lt(b, _c(b, 0)), lt(x, _c(x, 0)), gt(x, _c(x, 1)))
    result_is_nan = bitwise_or(result_is_nan, bitwise_or(bitwise_and(a_is_zero, b_is_zero),
                                                         is_nan))
    # the fraction converges fast for x < (a + 1) / (a + b + 2); beyond, use
    # I_x(a, b) = 1 - I_(1-x)(b, a) (DLMF 8.17.4)
    converges_rapidly = lt(x, div(add(a, _c(a, 1)), add(add(a, b), _c(b, 2))))
    a, b = select(converges_rapidly, a, b), select(converges_rapidly, b, a)
    x = select(converges_rapidly, x, sub(_full(x, 1), x))
    eps_half = dtype.type(dtypes.finfo(dtype).eps / 2)
    fraction = _lentz(200 if dtype == np.float32 else 600, eps_half, eps_half,
                      numerator, denominator, (a, b, x))
    # a Gamma(a) = Gamma(a + 1) -> 1 as a -> 0: drop the 1/a and lgamma(a) for tiny a
    very_small = dtype.type(dtypes.finfo(dtype).tiny * 2)
    lbeta_small_a = sub(lgamma(b), lgamma(add(a, b)))
    lbeta = add(lgamma(a), lbeta_small_a)
    log1m_x = log1p(neg(x))
    factor = select(lt(a, _full(a, very_small)),
                    exp(sub(mul(log1m_x, b), lbeta_small_a)),
                    div(exp(sub(add(mul(log(x), a), mul(log1m_x, b)), lbeta)), a))
    result = mul(fraction, factor)
    result = select(converges_rapidly, result, sub(_full(result, 1), result))
    result = select(result_is_zero, _full(a, 0), result)
    result = select(result_is_one, _full(a, 1), result)
    return select(result_is_nan, _full(a, np.nan), result)


regularized_incomplete_beta_p = Primitive("regularized_incomplete_beta")
abstract_eval_rules[regularized_incomplete_beta_p] = naryop_abstract_eval(
    "regularized_incomplete_beta", FLOAT)
lowering_rules[regularized_incomplete_beta_p] = hl.lower_fun(_upcast_and_broadcast(_betainc_impl))
numpy_rules[regularized_incomplete_beta_p] = hl.numpy_fun(_upcast_and_broadcast(_betainc_impl))
bu.defbroadcasting(regularized_incomplete_beta_p)


def _betainc_grad_ab(g, ans, a, b, x):
    raise ValueError("Betainc gradient with respect to a and b not supported.")


def _betainc_gradx(g, ans, a, b, x):
    lbeta = sub(add(lgamma(a), lgamma(b)), lgamma(add(a, b)))
    partial_x = exp(sub(add(mul(sub(b, _c(b, 1)), log1p(neg(x))),
                            mul(sub(a, _c(a, 1)), log(x))), lbeta))
    return mul(partial_x, g)


ad.defjvp(regularized_incomplete_beta_p, _betainc_grad_ab, _betainc_grad_ab, _betainc_gradx)


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b), elementwise.

    >>> betainc(np.float32(2.0), np.float32(3.0), np.float32(0.5))
    Array(0.6874998, dtype=float32)
    """
    return regularized_incomplete_beta_p.bind(a, b, x)


# ------------------------------------------------------------------ polygamma, zeta
polygamma_p = binop("polygamma", "chlo.polygamma", FLOAT, numpy=_np_special("polygamma"))


def _polygamma_gradm(g, ans, m, x):
    raise ValueError("polygamma gradient with respect to m is not supported")


ad.defjvp(polygamma_p, _polygamma_gradm,
          lambda g, ans, m, x: mul(g, polygamma(add(m, _c(m, 1)), x)))


def polygamma(m, x):
    """psi^(m)(x), the m-th derivative of digamma, elementwise (m a whole number).

    >>> polygamma(np.float32(1.0), np.float32(1.0))     # pi^2 / 6
    Array(1.644934, dtype=float32)
    """
    return polygamma_p.bind(m, x)


zeta_p = binop("zeta", "chlo.zeta", FLOAT, numpy=_np_special("zeta"))


def _zeta_gradx(g, ans, x, q):
    raise NotImplementedError(
        "Differentiation rule for 'zeta' with respect to x not implemented: there is no "
        "closed form. jax.scipy.special.zeta differentiates a series expansion instead.")


# d/dq sum_n (n + q)^-x = -x zeta(x + 1, q). (JAX 0.10.2's lax.zeta has no derivative rule;
# jax.scipy.special.zeta has its own.)
ad.defjvp(zeta_p, _zeta_gradx,
          lambda g, ans, x, q: mul(g, mul(neg(x), zeta(add(x, _c(x, 1)), q))))


def zeta(x, q):
    """The Hurwitz zeta function sum_n (n + q)^-x, elementwise.

    >>> zeta(np.float32(2.0), np.float32(1.0))          # pi^2 / 6
    Array(1.644934, dtype=float32)
    """
    return zeta_p.bind(x, q)


# ------------------------------------------------------------------ Bessel I0, I1 (scaled)
# Cephes' Chebyshev coefficients for exp(-|x|) I0(x) on [0, 8] (A) and (8, inf) (B) in the
# variable x/2 - 2 and 32/x - 2 respectively; float32 takes the last 18 and 7.
_I0E_A = np.array([
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
    1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
    9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
    1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
    -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
    1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
    1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1])
_I0E_B = np.array([
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
    7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
    3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
    2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
    8.04490411014108831608E-1])


def _chebyshev(x, coefficients):
    b0, b1, b2 = _full(x, 0), _full(x, 0), _full(x, 0)
    for c in coefficients:
        b2, b1 = b1, b0
        b0 = add(sub(mul(x, b1), b2), _full(x, c))
    return mul(_c(x, 0.5), sub(b0, b2))


def _bessel_i0e_impl(x):
    dtype = dtypes.dtype(x)
    if dtype not in (dtypes.float32, dtypes.float64):
        return convert_element_type(_bessel_i0e_impl(convert_element_type(x, np.float32)), dtype)
    coeffs_a, coeffs_b = (_I0E_A, _I0E_B) if dtype == dtypes.float64 else \
        (_I0E_A[-18:], _I0E_B[-7:])
    x = abs(x)
    small = _chebyshev(sub(mul(_full(x, 0.5), x), _full(x, 2)), coeffs_a)
    large = div(_chebyshev(sub(div(_full(x, 32), x), _full(x, 2)), coeffs_b), sqrt(x))
    return select(le(x, _c(x, 8)), small, large)


bessel_i0e_p = unop("bessel_i0e", None, FLOAT)
lowering_rules[bessel_i0e_p] = hl.lower_fun(_bessel_i0e_impl)
numpy_rules[bessel_i0e_p] = hl.numpy_fun(_bessel_i0e_impl)
ad.defjvp(bessel_i0e_p, lambda g, y, x: mul(g, sub(bessel_i1e(x), mul(sign(x), y))))

# Cephes' coefficients for exp(-|x|) I1(x) / x on [0, 8] (A) and sqrt(x) exp(-|x|) I1(x) on
# (8, inf) (B), as for I0 above; float32 takes the last 17 and 7 (XLA's CHLO formula)
_I1E_A = np.array([
    2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
    -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
    3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
    -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
    -8.56872026469545474066E-7, 3.47025130813767847674E-6, -1.32731636560394358279E-5,
    4.78156510755005422638E-5, -1.61760815825896745588E-4, 5.12285956168575772895E-4,
    -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
    2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1,
    -1.76416518357834055153E-1, 2.52587186443633654823E-1])
_I1E_B = np.array([
    7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17,
    -3.20952592199342395980E-17, 2.96262899764595013876E-16, 3.30820231092092828324E-16,
    -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
    4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11,
    3.25260358301548823856E-11, -1.89749581235054123450E-11, -5.58974346219658380687E-10,
    -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7,
    -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
    7.78576235018280120474E-1])


def _bessel_i1e_impl(x):
    """XLA's formula for exp(-|x|) I1(x) (the NumPy rule: SciPy's i1e was 9 ulps from it)."""
    dtype = dtypes.dtype(x)
    if dtype not in (dtypes.float32, dtypes.float64):
        return convert_element_type(_bessel_i1e_impl(convert_element_type(x, np.float32)), dtype)
    coeffs_a, coeffs_b = (_I1E_A, _I1E_B) if dtype == dtypes.float64 else \
        (_I1E_A[-17:], _I1E_B[-7:])
    z = abs(x)
    small = mul(z, _chebyshev(sub(mul(_full(z, 0.5), z), _full(z, 2)), coeffs_a))
    large = div(_chebyshev(sub(div(_full(z, 32), z), _full(z, 2)), coeffs_b), sqrt(z))
    return mul(sign(x), select(le(z, _c(z, 8)), small, large))


bessel_i1e_p = unop("bessel_i1e", "chlo.bessel_i1e", FLOAT)
numpy_rules[bessel_i1e_p] = hl.numpy_fun(_bessel_i1e_impl)


def _bessel_i1e_jvp(g, y, x):
    # i1e' = i0e - y (sign x + 1/x), whose limit at 0 is 1/2
    eps = dtypes.finfo(dtypes.dtype(x)).eps
    not_tiny = gt(abs(x), _c(x, eps))
    safe_x = select(not_tiny, x, _full(x, eps))
    dy_dx = sub(bessel_i0e(safe_x), mul(y, add(sign(safe_x), reciprocal(safe_x))))
    return mul(g, select(not_tiny, dy_dx, _full(x, 0.5)))


ad.defjvp(bessel_i1e_p, _bessel_i1e_jvp)


def bessel_i0e(x):
    """exp(-|x|) I0(x), elementwise.

    >>> bessel_i0e(np.float32(1.0))
    Array(0.46575963, dtype=float32)
    """
    return bessel_i0e_p.bind(x)


def bessel_i1e(x):
    """exp(-|x|) I1(x), elementwise.

    >>> bessel_i1e(np.float32(1.0))
    Array(0.20791042, dtype=float32)
    """
    return bessel_i1e_p.bind(x)
