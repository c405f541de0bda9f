"""The confluent and Gauss hypergeometric functions of jax.scipy.special, 1F1 (hyp1f1) and 2F1
(hyp2f1), for real arguments; JAX 0.10.2's algorithms (Pearson, Olver & Porter 2014,
arXiv:1407.7786: Taylor series, the asymptotic expansion, the terminating series and
Abramowitz & Stegun's 15.3.10-12 near x = 1), with JAX's derivatives in every argument (series
of digamma differences), so the same numbers.

    >>> hyp1f1(1.0, 2.0, jnp.array([0.0, 1.0]))
    Array([1.       , 1.7182819], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..core import dtypes
from ..numpy.util import check_real, jnp_jit, promote_args_inexact
from ..transforms.custom_derivatives import custom_jvp
from ._gamma import gamma

# Every series stops after 250 terms or once a term is below eps of the sum.
_MAX_TERMS = 250


def _sum_series(first, next_term, weight, x, start):
    """start + sum over k >= 1 of term_k weight(k, term_k), term_1 = `first` and term_{k+1} =
    term_k next_term(k); the loop state (sum, k, term) starts at (start, 1, first) with
    JAX's Python-scalar sums (weakly typed, so they take x's dtype)."""
    eps = dtypes.finfo(x.dtype).eps

    def body(state):
        total, k, term = state
        total += weight(k, term)
        term *= next_term(k)
        return total, k + 1, term

    def cond(state):
        total, k, term = state
        return (k < _MAX_TERMS) & (lax.abs(term) / lax.abs(total) > eps)

    return lax.while_loop(cond, body, (start, 1, first))[0]


# ------------------------------------------------------------------ 1F1
def _hyp1f1_series(a, b, x):
    """The Taylor series (Pearson et al.'s eq. 3.2, method (a))."""
    return _sum_series(a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1),
                       lambda k, term: term, x, 1)


def _hyp1f1_asymptotic(a, b, x):
    """The large-|x| expansion (eq. 3.8, real arguments)."""
    series = _sum_series((b - a) * (1 - a) / x, lambda k: (b - a + k) * (1 - a + k) / (k + 1) / x,
                         lambda k, term: term, x, 1)
    return gamma(b) / gamma(a) * lax.exp(x) * x ** (a - b) * series


@jnp_jit
@jnp.vectorize
def _hyp1f1_a_derivative(a, b, x):
    # d/da: sum_k (a)_k / (b)_k x^k / k! (psi(a + k) - psi(a))
    return _sum_series(a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1),
                       lambda k, term: term * (lax.digamma(a + k) - lax.digamma(a)), x, 0)


@jnp_jit
@jnp.vectorize
def _hyp1f1_b_derivative(a, b, x):
    # d/db: sum_k (a)_k / (b)_k x^k / k! (psi(b) - psi(b + k))
    return _sum_series(a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1),
                       lambda k, term: term * (lax.digamma(b) - lax.digamma(b + k)), x, 0)


@jnp_jit
def _hyp1f1_x_derivative(a, b, x):
    return a / b * hyp1f1(a + 1, b + 1, x)


@custom_jvp
@jnp_jit
@jnp.vectorize
def hyp1f1(a, b, x):
    """The confluent hypergeometric function 1F1(a; b; x) = sum_k (a)_k / (b)_k x^k / k!
    (real arguments; 1 at a = b = 0, where scipy gives NaN). Large values lose accuracy,
    more so in float32.

    >>> hyp1f1(0.5, 1.5, -1.0)
    Array(0.7468241, dtype=float32)
    """
    a, b, x = promote_args_inexact("hyp1f1", a, b, x)
    check_real("hyp1f1", x)
    result = lax.cond(lax.abs(x) < 100, _hyp1f1_series, _hyp1f1_asymptotic, a, b, x)
    # 1 at a = 0, exp(x) at a = b, inf at b = 0
    index = (a == 0) * 1 + ((a == b) & (a != 0)) * 2 + ((b == 0) & (a != 0)) * 3
    return lax.select_n(index, result, jnp.array(1, dtype=x.dtype), jnp.exp(x),
                        jnp.array(np.inf, dtype=x.dtype))


hyp1f1.defjvps(
    lambda a_dot, ans, a, b, x: _hyp1f1_a_derivative(a, b, x) * a_dot,
    lambda b_dot, ans, a, b, x: _hyp1f1_b_derivative(a, b, x) * b_dot,
    lambda x_dot, ans, a, b, x: _hyp1f1_x_derivative(a, b, x) * x_dot)


# ------------------------------------------------------------------ 2F1
def _hyp2f1_terminal(a, b, c, x):
    """The terminating series for a non-positive integer a or b (eq. 4.1, method (a)): summed
    to the larger such parameter's degree, unless c is a non-positive integer above it."""
    eps = dtypes.finfo(x.dtype).eps * 50
    ib = jnp.round(b)
    c_blocks = (c % 1 == 0) & (c <= 0) & (c > b)
    swap = (b < a) & (jnp.abs(b - ib) < eps) & jnp.logical_not(c_blocks)
    a, b = jnp.where(swap, b, a), jnp.where(swap, a, b)
    a = jnp.abs(a)

    def body(i, state):
        series, term = state
        term *= -(a - i + 1) / (c + i - 1) * (b + i - 1) / i * x
        return series + term, term

    init = (jnp.array(1, dtype=x.dtype), jnp.array(1, dtype=x.dtype))
    return lax.fori_loop(jnp.array(1, dtype=a.dtype), a + 1, body, init)[0]


def _hyp2f1_series(a, b, c, x):
    """The Taylor series (eq. 4.1)."""
    rtol = dtypes.finfo(x.dtype).eps

    def body(state):
        series, k, term = state
        series += term
        term *= (a + k - 1) * (b + k - 1) / (c + k - 1) / k * x
        return series, k + 1, term

    def cond(state):
        series, k, term = state
        return (k < _MAX_TERMS) & (lax.abs(term) > rtol * lax.abs(series))

    init = (jnp.array(0, dtype=x.dtype), jnp.array(1, dtype=x.dtype),
            jnp.array(1, dtype=x.dtype))
    return lax.while_loop(cond, body, init)[0]


def _hyp2f1_terminal_or_series(a, b, c, x):
    """The digamma transformation for x > 0.9 where c - a - b is an integer, the terminating
    series where a or b is a non-positive integer, the Taylor series elsewhere (section 4.6.1:
    no true recursion under XLA)."""
    eps = dtypes.finfo(x.dtype).eps * 50
    d = c - a - b
    neg_int_a = (a <= 0) & (jnp.abs(a - jnp.round(a)) < eps)
    neg_int_b = (b <= 0) & (jnp.abs(b - jnp.round(b)) < eps)
    neg_int = neg_int_a | neg_int_b
    index = jnp.where((x > 0.9) & jnp.logical_not(neg_int),
                      jnp.where(jnp.abs(d - jnp.round(d)) >= eps, 0, 1),
                      jnp.where(neg_int, 2, 0))
    return lax.select_n(index, _hyp2f1_series(a, b, c, x), _hyp2f1_digamma_transform(a, b, c, x),
                        _hyp2f1_terminal(a, b, c, x))


def _hyp2f1_digamma_transform(a, b, c, x):
    """2F1 near x = 1 when c - a - b is (near) an integer m (Abramowitz & Stegun 15.3.10-12):
    a digamma series in 1 - x plus, for m != 0, a finite sum of |m| terms."""
    rtol = dtypes.finfo(x.dtype).eps
    d = c - a - b
    s = 1 - x
    rd = jnp.round(d)
    e = jnp.where(rd >= 0, d, -d)
    d1 = jnp.where(rd >= 0, d, jnp.array(0, dtype=d.dtype))
    d2 = jnp.where(rd >= 0, jnp.array(0, dtype=d.dtype), d)
    ard = jnp.where(rd >= 0, rd, -rd).astype("int32")
    ax = jnp.log(s)
    y = lax.digamma(1.0) + lax.digamma(1.0 + e) - lax.digamma(a + d1) - lax.digamma(b + d1) - ax
    y /= gamma(e + 1.0)
    p = (a + d1) * (b + d1) * s / gamma(e + 2.0)

    def cond(state):
        _, _, _, _, _, _, q, _, _, t, y = state
        return jnp.logical_and(t < _MAX_TERMS, jnp.abs(q) >= rtol * jnp.abs(y))

    def body(state):
        a, ax, b, d1, e, p, q, r, s, t, y = state
        r = lax.digamma(1.0 + t) + lax.digamma(1.0 + t + e) - lax.digamma(a + t + d1) \
            - lax.digamma(b + t + d1) - ax
        q = p * r
        y += q
        p *= s * (a + t + d1) / (t + 1.0)
        p *= (b + t + d1) / (t + 1.0 + e)
        return a, ax, b, d1, e, p, q, r, s, t + 1.0, y

    init = (a, ax, b, d1, e, p, y, jnp.array(0, dtype=x.dtype), s, jnp.array(1, dtype=x.dtype), y)
    y = lax.while_loop(cond, body, init)[-1]

    def finite_sum(y):
        def body(i, state):
            a, b, d2, e, p, s, t, y1 = state
            p *= s * (a + t + d2) * (b + t + d2) / (1.0 - e + t)
            t += 1.0
            p /= t
            return a, b, d2, e, p, s, t, y1 + p

        init = (a, b, d2, e, jnp.array(1, dtype=x.dtype), s, jnp.array(0, dtype=x.dtype),
                jnp.array(1, dtype=x.dtype))
        y1 = lax.fori_loop(1, ard, body, init)[-1]
        gamma_c = gamma(c)
        y1 *= gamma(e) * gamma_c / (gamma(a + d1) * gamma(b + d1))
        y *= gamma_c / (gamma(a + d2) * gamma(b + d2))
        y = jnp.where((ard & 1) != 0, -y, y)
        q = s ** rd
        return jnp.where(rd > 0, y * q + y1, y + y1 * q)

    return jnp.where(rd == 0, y * gamma(c) / (gamma(a) * gamma(b)), finite_sum(y))


def _hyp2f1_parameter_derivative(a, b, c, x, weight):
    # sum_k (a)_k (b)_k / (c)_k x^k / k! weight(k), JAX's loop for each parameter
    return _sum_series(a * b / c * x, lambda k: (a + k) * (b + k) / (c + k) / (k + 1) * x,
                       lambda k, term: term * weight(k), x, 0)


@jnp_jit
@jnp.vectorize
def _hyp2f1_a_derivative(a, b, c, x):
    return _hyp2f1_parameter_derivative(
        a, b, c, x, lambda k: lax.digamma(a + k) - lax.digamma(a))


@jnp_jit
@jnp.vectorize
def _hyp2f1_b_derivative(a, b, c, x):
    return _hyp2f1_parameter_derivative(
        a, b, c, x, lambda k: lax.digamma(b + k) - lax.digamma(b))


@jnp_jit
@jnp.vectorize
def _hyp2f1_c_derivative(a, b, c, x):
    return _hyp2f1_parameter_derivative(
        a, b, c, x, lambda k: lax.digamma(c) - lax.digamma(c + k))


@jnp_jit
def _hyp2f1_x_derivative(a, b, c, x):
    return a * b / c * hyp2f1(a + 1, b + 1, c + 1, x)


@custom_jvp
@jnp_jit
@jnp.vectorize
def hyp2f1(a, b, c, x):
    """The Gauss hypergeometric function 2F1(a, b; c; x) = sum_k (a)_k (b)_k / (c)_k x^k / k!
    (real arguments, x <= 1; inf beyond). Large values lose accuracy, more so in float32.

    >>> hyp2f1(1.0, 1.0, 2.0, 0.5)      # -log(1 - x) / x
    Array(1.3862944, dtype=float32)
    """
    a, b, c, x = promote_args_inexact("hyp2f1", a, b, c, x)
    eps = dtypes.finfo(x.dtype).eps * 50
    d = c - a - b
    s = 1 - x
    ca, cb = c - a, c - b
    off_integer_d = jnp.abs(d - jnp.round(d)) >= eps
    # 0: 1; 1: inf; 2: Euler's transformation (1-x)^d 2F1(c-a, c-b; c; x); 3, 4: (1-x)^-a or
    # (1-x)^-b where b or a equals c; 5: Gauss's sum at x = 1; 6: the series
    index = jnp.where((x == 0) | (((a == 0) | (b == 0)) & (c != 0)), 0,
            jnp.where((c == 0) | ((c < 0) & (c % 1 == 0)), 1,                       # noqa: E128
            jnp.where((d <= -1) & jnp.logical_not(off_integer_d & (s < 0)), 2,         # noqa: E128
            jnp.where((d <= 0) & (x == 1), 1,                                      # noqa: E128
            jnp.where((x < 1) & (b == c), 3,                                        # noqa: E128
            jnp.where((x < 1) & (a == c), 4,                                        # noqa: E128
            jnp.where(x > 1, 1,                                                    # noqa: E128
            jnp.where(x == 1, 5, 6))))))))                                          # noqa: E128
    return lax.select_n(index, jnp.array(1, dtype=x.dtype), jnp.array(np.inf, dtype=x.dtype),
                        s ** d * _hyp2f1_terminal_or_series(ca, cb, c, x), s ** (-a), s ** (-b),
                        gamma(c) * gamma(d) / (gamma(ca) * gamma(cb)),
                        _hyp2f1_terminal_or_series(a, b, c, x))


hyp2f1.defjvps(
    lambda a_dot, ans, a, b, c, x: _hyp2f1_a_derivative(a, b, c, x) * a_dot,
    lambda b_dot, ans, a, b, c, x: _hyp2f1_b_derivative(a, b, c, x) * b_dot,
    lambda c_dot, ans, a, b, c, x: _hyp2f1_c_derivative(a, b, c, x) * c_dot,
    lambda x_dot, ans, a, b, c, x: _hyp2f1_x_derivative(a, b, c, x) * x_dot)
