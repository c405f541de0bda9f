"""The gamma family of jax.scipy.special: gamma and its sign and log, incomplete gamma, beta
and incomplete beta, factorial, comb, poch, multigammaln, polygamma, Hurwitz zeta and the
Bernoulli numbers; JAX 0.10.2's formulas, so the same numbers.

    >>> gamma(jnp.array([0.5, 5.0]))
    Array([ 1.7724535, 24.000023 ], dtype=float32)
"""
from __future__ import annotations

import operator

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..core import dtypes
from ..core.trace import concrete_or_error
from ..numpy.util import const as _c
from ..numpy.util import check_real, jnp_jit, promote_args_inexact
from ..transforms.ad import jvp
from ..transforms.custom_derivatives import custom_jvp
from ..transforms.jit.namesakes import jax_jitted


# ------------------------------------------------------------------ gamma
@jax_jitted
@jnp_jit
def gammasgn(x):
    """The sign of Gamma(x): 1 or -1, NaN at the poles (non-positive integers), -inf and NaN.

    >>> gammasgn(jnp.array([-1.5, -0.5, 2.0]))
    Array([ 1., -1.,  1.], dtype=float32)
    """
    x, = promote_args_inexact("gammasgn", x)
    check_real("gammasgn", x)
    typ = x.dtype.type
    floor_x = lax.floor(x)
    x_negative = x < 0
    return jnp.select(
        [(x_negative & (x == floor_x)) | jnp.isnan(x),
         (x_negative & (floor_x % 2 != 0)) | ((x == 0) & jnp.signbit(x))],
        [typ(np.nan), typ(-1.0)], typ(1.0))


# Lanczos's approximation (C. Lanczos, SIAM J. Numer. Anal. B 1, 1964) with g = 7 and nine
# terms, GSL's coefficients (specfunc/gamma.c, lanczos_7_c): JAX 0.10.2's complex gamma and
# loggamma use these, so the same numbers
_LANCZOS_G = 7.0
_LANCZOS_COEFFS = np.array([
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
    1.5056327351493116e-7])


def _lanczos_loggamma(z):
    """log Gamma(z) for Re z >= 1/2: log(sqrt(2 pi)) + (z - 1/2) log t - t + log A(z), with
    t = z - 1/2 + g and A(z) = c0 + sum_k c_k / (z - 1 + k)."""
    zz = z - 1.0
    # the terms along a new last axis, every operand of that rank (no rank promotion: it may
    # be set to raise)
    terms = (1,) * zz.ndim + (8,)
    coeffs = jnp.asarray(_LANCZOS_COEFFS, dtype=z.dtype)
    ks = jnp.arange(1, 9, dtype=z.dtype).reshape(terms)
    ag = coeffs[0] + jnp.sum(coeffs[1:].reshape(terms) / (zz[..., None] + ks), axis=-1)
    t = zz + _LANCZOS_G + 0.5
    return (jnp.asarray(0.5 * np.log(2.0 * np.pi), dtype=z.dtype)
            + (zz + 0.5) * jnp.log(t) - t + jnp.log(ag))


def _complex_loggamma_reflected(z):
    """A log Gamma(z) for every complex z: Lanczos's for Re z >= 1/2, and below it the
    reflection Gamma(z) = pi / (sin(pi z) Gamma(1 - z)). Its branch cuts are not SciPy's
    (loggamma shifts z first); gamma only needs exp of it."""
    reflect = jnp.real(z) < 0.5
    lanczos = _lanczos_loggamma(jnp.where(reflect, 1.0 - z, z))
    # the branch not taken gets a harmless z: a NaN there would leak into where's gradient
    z_reflected = jnp.where(reflect, z, jnp.full_like(z, 0.5))
    reflected = (jnp.log(jnp.asarray(np.pi, dtype=z.dtype))
                 - jnp.log(jnp.sin(np.pi * z_reflected)) - lanczos)
    return jnp.where(reflect, reflected, lanczos)


def _pole_or_nan(z):
    """Where complex Gamma has no value: NaN parts, and the poles 0, -1, -2, ..."""
    re = jnp.real(z)
    return jnp.isnan(z) | ((jnp.imag(z) == 0) & (re == jnp.floor(re)) & (re <= 0))


def _complex_gamma(z):
    undefined = _pole_or_nan(z)
    value = jnp.exp(_complex_loggamma_reflected(jnp.where(undefined, jnp.ones_like(z), z)))
    return jnp.where(undefined, jnp.array(complex(np.nan, np.nan), dtype=z.dtype), value)


@jax_jitted
@jnp_jit
def _complex_loggamma(z):
    """SciPy's principal branch (one cut, along the negative real axis): for Re z < 1/2,
    log Gamma(z) = log Gamma(z + n) - sum_{k<n} log(z + k), with n the steps to Re >= 1/2
    (a loop, as many as the farthest element needs)."""
    undefined = _pole_or_nan(z)
    z = jnp.where(undefined, jnp.ones_like(z), z)
    n = jnp.maximum(0, jnp.ceil(0.5 - jnp.real(z)).astype(int))

    def more(state):
        k, _ = state
        return jnp.any(k < n)

    def step(state):
        k, logs = state
        active = k < n
        term = jnp.log(jnp.where(active, z + k, jnp.ones_like(z)))
        return k + 1, logs + jnp.where(active, term, jnp.zeros_like(logs))

    _, logs = lax.while_loop(more, step, (0, jnp.zeros_like(z)))
    value = _complex_loggamma_reflected(z + n) - logs
    return jnp.where(undefined, jnp.array(complex(np.nan, np.nan), dtype=z.dtype), value)


def gamma(x):
    """The gamma function: sign(Gamma(x)) * exp(log|Gamma(x)|) for real x; for complex x,
    Lanczos's approximation (NaN+NaNj at the poles 0, -1, -2, ...).

    >>> gamma(4.0)
    Array(6.0000052, dtype=float32)
    >>> gamma(jnp.complex64(1 + 1j))
    Array(0.4980159-0.15494974j, dtype=complex64)
    """
    x, = promote_args_inexact("gamma", x)
    if dtypes.is_complex(x.dtype):
        return _complex_gamma(x)
    return gammasgn(x) * lax.exp(lax.lgamma(x))


def loggamma(x):
    """log Gamma(x) for real x > 0 (NaN elsewhere); for complex x its principal branch, cut
    along the negative real axis as SciPy's.

    >>> loggamma(jnp.array([1.0, 3.0, -1.0]))
    Array([4.7683716e-07, 6.9314742e-01,           nan], dtype=float32)
    """
    x, = promote_args_inexact("loggamma", x)
    if dtypes.is_complex(x.dtype):
        return _complex_loggamma(x)
    return jnp.where(x > 0, lax.lgamma(x), np.nan)


def gammainc(a, x):
    """The regularized lower incomplete gamma function P(a, x).

    >>> gammainc(1.0, 1.0)                # 1 - exp(-1)
    Array(0.6321202, dtype=float32, weak_type=True)
    """
    a, x = promote_args_inexact("gammainc", a, x)
    return lax.igamma(a, x)


def gammaincc(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    a, x = promote_args_inexact("gammaincc", a, x)
    return lax.igammac(a, x)


# ------------------------------------------------------------------ beta
def _algdiv(a, b):
    """log Gamma(b) - log Gamma(a + b) for b >= 8 (and a <= b), less the part that cancels;
    cdflib's algdiv, as JAX's betaln uses it."""
    c0, c1, c2 = 0.833333333333333e-01, -0.277777777760991e-02, 0.793650666825390e-03
    c3, c4, c5 = -0.595202931351870e-03, 0.837308034031215e-03, -0.165322962780713e-02
    h = a / b
    c = h / (1 + h)
    x = h / (1 + h)
    d = b + (a - 0.5)
    x2 = x * x                          # s_n = (1 - x^n) / (1 - x)
    s3 = 1.0 + (x + x2)
    s5 = 1.0 + (x + x2 * s3)
    s7 = 1.0 + (x + x2 * s5)
    s9 = 1.0 + (x + x2 * s7)
    s11 = 1.0 + (x + x2 * s9)
    t = (1.0 / b) ** 2
    w = ((((c5 * s11 * t + c4 * s9) * t + c3 * s7) * t + c2 * s5) * t + c1 * s3) * t + c0
    w = w * (c / b)
    u = d * lax.log1p(a / b)
    v = a * (lax.log(b) - 1.0)
    return jnp.where(u <= v, (w - v) - u, (w - u) - v)


def betaln(a, b):
    """log |B(a, b)|, accurate for large arguments (cdflib's algdiv when max(a, b) >= 8).

    >>> betaln(2.0, 3.0)                  # log(1/12)
    Array(-2.4849074, dtype=float32, weak_type=True)
    """
    a, b = promote_args_inexact("betaln", a, b)
    a, b = jnp.minimum(a, b), jnp.maximum(a, b)
    small_b = lax.lgamma(a) + (lax.lgamma(b) - lax.lgamma(a + b))
    large_b = lax.lgamma(a) + _algdiv(a, b)
    return jnp.where(b < 8, small_b, large_b)


def beta(a, b):
    """The beta function Gamma(a) Gamma(b) / Gamma(a + b).

    >>> beta(2.0, 3.0)
    Array(0.08333327, dtype=float32)
    """
    a, b = promote_args_inexact("beta", a, b)
    check_real("beta", a)
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * lax.exp(betaln(a, b))


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b).

    >>> betainc(2.0, 3.0, 0.5)
    Array(0.6874998, dtype=float32, weak_type=True)
    """
    a, b, x = promote_args_inexact("betainc", a, b, x)
    check_real("betainc", a)
    return lax.betainc(a, b, x)


# ------------------------------------------------------------------ counting
def factorial(n, exact: bool = False):
    """n! = Gamma(n + 1) as a float (0 for n < 0); exact=True is not supported, as in JAX.

    >>> factorial(jnp.array([0.0, 4.0, -1.0]))
    Array([ 1.0000005, 24.000023 ,  0.       ], dtype=float32)
    """
    if exact:
        raise NotImplementedError("factorial with exact=True")
    n, = promote_args_inexact("factorial", n)
    return jnp.where(n < 0, 0, lax.exp(lax.lgamma(n + 1)))


def comb(N, k, *, repetition: bool = False):
    """N choose k as a float via gammaln (0 outside 0 <= k <= N); with repetition,
    (N + k - 1) choose k.

    >>> comb(5.0, 2.0)
    Array(9.999995, dtype=float32, weak_type=True)
    """
    N, k = promote_args_inexact("comb", N, k)
    if repetition:
        cond = (k == 0) & (N >= 0)
        return jnp.where(cond, 1.0, comb(N + k - 1, k, repetition=False))
    cond = (k <= N) & (N >= 0) & (k >= 0)
    safe_N = jnp.where(cond, N, 0.0)
    safe_k = jnp.where(cond, k, 0.0)
    gammaln = lax.lgamma
    result = lax.exp(gammaln(safe_N + 1) - gammaln(safe_k + 1) - gammaln(safe_N + 1 - safe_k))
    return jnp.where(cond, result, 0.0)


@custom_jvp
def poch(z, m):
    """The Pochhammer symbol (rising factorial) Gamma(z + m) / Gamma(z); 1 where m == 0.

    >>> poch(3.0, 2.0)                    # 3 * 4
    Array(12.000009, dtype=float32)
    """
    z, m = promote_args_inexact("poch", z, m)
    check_real("jnp.poch", z)
    return jnp.where(m == 0., jnp.array(1, dtype=z.dtype), gamma(z + m) / gamma(z))


poch.defjvps(
    lambda z_dot, ans, z, m: (lax.digamma(z + m) - lax.digamma(z)) * poch(z, m) * z_dot,
    lambda m_dot, ans, z, m: lax.digamma(z + m) * poch(z, m) * m_dot)


def multigammaln(a, d):
    """The log of the multivariate gamma function of dimension d (a Python int):
    d(d-1)/4 log(pi) + sum_j log Gamma(a - j/2), j < d.

    >>> multigammaln(3.0, 2)
    Array(1.5501953, dtype=float32)
    """
    # JAX's int(d), a traced d its ConcretizationTypeError
    d = concrete_or_error(int, d, "d argument of multigammaln")
    a, d_ = promote_args_inexact("multigammaln", a, d)
    constant = lax.mul(lax.mul(lax.mul(_c(a, 0.25), d_), lax.sub(d_, _c(a, 1))),
                       lax.log(_c(a, np.pi)))
    b = lax.div(jnp.arange(d, dtype=d_.dtype), _c(a, 2))
    res = jnp.sum(lax.lgamma(jnp.expand_dims(a, axis=-1) -
                             jnp.expand_dims(b, axis=tuple(range(a.ndim)))), axis=-1)
    return res + constant


def bernoulli(n: int):
    """The Bernoulli numbers B_0 ... B_n (B_1 = -1/2), by Chowla and Hartung's zeta series.

    >>> bernoulli(4)
    Array([ 1.        , -0.5       ,  0.16666667,  0.        , -0.03333325],
          dtype=float32)
    """
    n = concrete_or_error(operator.index, n, "Argument n of bernoulli")
    if n < 0:
        raise ValueError("n must be a non-negative integer.")
    b3 = jnp.array([1, -1 / 2, 1 / 6])
    if n < 3:
        return b3[:n + 1]
    bn = jnp.zeros(n + 1).at[:3].set(b3)
    m = jnp.arange(4, n + 1, 2, dtype=bn.dtype)
    q1 = (1. / np.pi ** 2) * jnp.cumprod(-(m - 1) * m / 4 / np.pi ** 2)
    k = jnp.arange(2, 50, dtype=bn.dtype)             # 2^-50 is below float64's eps
    q2 = jnp.sum(k[:, None] ** -m[None, :], axis=0)
    return bn.at[4::2].set(q1 * (1 + q2))


# ------------------------------------------------------------------ polygamma, zeta
def polygamma(n, x):
    """psi^(n)(x), the n-th derivative of digamma; n must have an integer dtype.

    >>> polygamma(1, 1.0)                 # pi^2 / 6
    Array(1.644934, dtype=float32, weak_type=True)
    """
    if not dtypes.is_int(dtypes.dtype(n)):
        raise ValueError(f"Argument `n` to polygamma must be of integer type. Got dtype "
                         f"{dtypes.dtype(n)}.")
    n_arr, x_arr = promote_args_inexact("polygamma", n, x)
    check_real("polygamma", x_arr)
    return lax.polygamma(n_arr, x_arr)


# (2k)! / B_2k for k = 1..16: the Euler-Maclaurin tail of the zeta series below
_BERNOULLI_COEFS = np.array([
    12, -720, 30240, -1209600, 47900160, -1307674368000 / 691, 74724249600,
    -10670622842880000 / 3617, 5109094217170944000 / 43867,
    -802857662698291200000 / 174611, 14101100039391805440000 / 77683,
    -1693824136731743669452800000 / 236364091, 186134520519971831808000000 / 657931,
    -37893265687455865519472640000000 / 3392780147,
    759790291646040068357842010112000000 / 1723168255201,
    -134196726836183700385281186201600000000 / 7709321041217])

_NO_RIEMANN = ("Riemann zeta function not implemented; pass q != None to compute the Hurwitz "
               "Zeta function.")


@custom_jvp
def zeta(x, q=None):
    """The Hurwitz zeta function sum_n (n + q)^-x (q is required: no Riemann zeta, as in JAX).

    >>> zeta(2.0, 1.0)                    # pi^2 / 6
    Array(1.644934, dtype=float32, weak_type=True)
    """
    if q is None:
        raise NotImplementedError(_NO_RIEMANN)
    x, q = promote_args_inexact("zeta", x, q)
    return lax.zeta(x, q)


def _zeta_series_expansion(x, q=None):
    """zeta(s, a) by Euler-Maclaurin summation (Johansson 2015, formula 5): N terms, an
    integral and M Bernoulli corrections (N = M = 8 in float32, 16 in float64). It is
    differentiable in both arguments, so zeta's derivatives are this series'."""
    if q is None:
        raise NotImplementedError(_NO_RIEMANN)
    s, a = promote_args_inexact("zeta", x, q)
    dtype = a.dtype.type
    s_, a_ = jnp.expand_dims(s, -1), jnp.expand_dims(a, -1)
    N = M = dtype(8) if a.dtype == np.float32 else dtype(16)
    k = jnp.expand_dims(np.arange(N, dtype=N.dtype), tuple(range(a.ndim)))
    S = jnp.sum((a_ + k) ** -s_, -1)
    I = lax.div((a + N) ** (dtype(1) - s), s - dtype(1))
    T0 = (a + N) ** -s
    m = jnp.expand_dims(np.arange(2 * M, dtype=M.dtype), tuple(range(s.ndim)))
    s_over_a = (s_ + m) / (a_ + N)
    T1 = jnp.cumprod(s_over_a, -1)[..., ::2]
    T1 = jnp.clip(T1, max=dtypes.finfo(dtype).max)
    coefs = np.expand_dims(np.array(_BERNOULLI_COEFS[:T1.shape[-1]], dtype=dtype),
                           tuple(range(a.ndim)))
    T1 = T1 / coefs
    T = T0 * (dtype(0.5) + T1.sum(-1))
    return S + I + T


zeta.defjvp(lambda primals, tangents: jvp(_zeta_series_expansion, primals, tangents))
