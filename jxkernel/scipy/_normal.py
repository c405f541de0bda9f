"""Error-function relatives and Bessel functions of jax.scipy.special: the inverse normal CDF
(ndtri), log of the normal CDF (log_ndtr), the scaled complementary error function (erfcx),
the Faddeeva function (wofz, Weideman's rational approximation), Dawson's integral (dawsn),
Owen's T function (owens_t, Patefield & Tandy's quadrature),
the scaled modified Bessel functions i0e/i1e and i0/i1, and bessel_jn; JAX 0.10.2's
formulas (Cephes' rational approximations), so the same numbers.

    >>> ndtri(jnp.array([0.025, 0.5]))
    Array([-1.9599638,  0.       ], dtype=float32)
"""
from __future__ import annotations

import functools
import operator

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..core import dtypes
from ..core.config import config
from ..core.trace import Tracer
from ..numpy.util import const as _c
from ..numpy.util import (
    check_real,
    jnp_jit,
    promote_args_complex,
    promote_args_inexact,
    promote_dtypes_inexact,
)
from ..transforms.batching import vmap
from ..transforms.custom_derivatives import custom_jvp
from ..transforms.jit.namesakes import jax_jitted


# ------------------------------------------------------------------ normal distribution
def _ndtr(x):
    """The standard normal CDF via erf/erfc (special.ndtr's formula; x float32/float64)."""
    dtype = x.dtype.type
    half_sqrt_2 = dtype(0.5) * np.sqrt(2., dtype=dtype)
    w = x * half_sqrt_2
    z = lax.abs(w)
    y = lax.select(lax.lt(z, half_sqrt_2), dtype(1.) + lax.erf(w),
                   lax.select(lax.gt(w, dtype(0.)), dtype(2.) - lax.erfc(z), lax.erfc(z)))
    return dtype(0.5) * y


# Cephes' ndtri: P0/Q0 for p > exp(-2) (in w = p - 1/2), P1/Q1 for z = sqrt(-2 log p) < 8,
# P2/Q2 beyond (in 1/z)
_NDTRI_P0 = [-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
             1.39312609387279679503E1, -1.23916583867381258016E0]
_NDTRI_Q0 = [1.0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
             -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1,
             1.59056225126211695515E1, -1.18331621121330003142E0]
_NDTRI_P1 = [4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
             4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
             -1.40256079171354495875E-1, -3.50424626827848203418E-2,
             -8.57456785154685413611E-4]
_NDTRI_Q1 = [1.0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
             1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1,
             -3.80806407691578277194E-2, -9.33259480895457427372E-4]
_NDTRI_P2 = [3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
             1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
             3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9]
_NDTRI_Q2 = [1.0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
             2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4,
             2.89247864745380683936E-6, 6.79019408009981274425E-9]


def ndtri(p):
    """The inverse of the standard normal CDF (float32/float64); -inf at 0, inf at 1.

    >>> ndtri(0.975)
    Array(1.9599643, dtype=float32)
    """
    p = jnp.asarray(p)
    dtype = p.dtype
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={dtype} is not supported, see docstring for supported types.")
    return _ndtri(p)


def _ndtri(p):
    dtype = p.dtype.type
    shape = np.shape(p)
    p0, q0, p1, q1, p2, q2 = (np.array(c, dtype=dtype) for c in (
        _NDTRI_P0, _NDTRI_Q0, _NDTRI_P1, _NDTRI_Q1, _NDTRI_P2, _NDTRI_Q2))
    maybe_complement_p = jnp.where(p > dtype(-np.expm1(-2.)), dtype(1.) - p, p)
    # p == 0 would give NaNs in the unused branches; any harmless value will do there
    sanitized_mcp = jnp.where(maybe_complement_p == dtype(0.), jnp.full(shape, dtype(0.5)),
                              maybe_complement_p)
    w = sanitized_mcp - dtype(0.5)
    ww = lax.square(w)
    x_for_big_p = w + w * ww * (jnp.polyval(p0, ww) / jnp.polyval(q0, ww))
    x_for_big_p *= -dtype(np.sqrt(2. * np.pi))
    z = lax.sqrt(dtype(-2.) * lax.log(sanitized_mcp))
    first_term = z - lax.log(z) / z
    second_term_small_p = jnp.polyval(p2, 1 / z) / jnp.polyval(q2, 1 / z) / z
    second_term_otherwise = jnp.polyval(p1, 1 / z) / jnp.polyval(q1, 1 / z) / z
    x_for_small_p = first_term - second_term_small_p
    x_otherwise = first_term - second_term_otherwise
    x = jnp.where(sanitized_mcp > dtype(np.exp(-2.)), x_for_big_p,
                  jnp.where(z >= dtype(8.0), x_for_small_p, x_otherwise))
    x = jnp.where(p > dtype(1. - np.exp(-2.)), x, -x)
    # the infinities for p == 0 and 1 are made whatever p is: jax_debug_infs would report
    # them at every call, so (as JAX) it is off while they are made and the result is checked
    with config.override("jax_debug_infs", False):
        infinity = jnp.full(shape, dtype(np.inf))
        x = jnp.where(p == dtype(0.0), -infinity, jnp.where(p == dtype(1.0), infinity, x))
    if config.jax_debug_infs and not isinstance(x, Tracer) and np.isinf(np.asarray(x)).any():
        raise FloatingPointError("invalid value (inf) encountered in ndtri.")
    return x


# below LOWER log_ndtr uses the asymptotic series; above UPPER, log(1 - q) ~ -q
_LOGNDTR_LOWER = {np.dtype(np.float64): np.array(-20, np.float64),
                  np.dtype(np.float32): np.array(-10, np.float32)}
_LOGNDTR_UPPER = {np.dtype(np.float64): np.array(8, np.float64),
                  np.dtype(np.float32): np.array(5, np.float32)}


def log_ndtr(x, series_order: int = 3):
    """log of the standard normal CDF, accurate far into both tails (float32/float64);
    `series_order` terms of the asymptotic series below -10 (float32) / -20 (float64).

    >>> log_ndtr(jnp.array([-20.0, 0.0]))
    Array([-203.91716  ,   -0.6931472], dtype=float32)
    """
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    x_arr = jnp.asarray(x)
    dtype = x_arr.dtype
    if dtype not in _LOGNDTR_LOWER:
        raise TypeError(f"x.dtype={np.dtype(dtype)} is not supported.")
    return _log_ndtr(x_arr, series_order)     # the order passed on, always: it is static


@functools.partial(custom_jvp, nondiff_argnums=(1,))
def _log_ndtr(x_arr, series_order):
    lower, upper = _LOGNDTR_LOWER[x_arr.dtype], _LOGNDTR_UPPER[x_arr.dtype]
    # the max/min keep the unused branches finite (so their gradients are not NaN at 0)
    above = lax.gt(x_arr, upper)
    ndtr_res = _ndtr(jnp.where(above, -x_arr, lax.max(x_arr, lower)))
    return jnp.where(above, -ndtr_res,
                     jnp.where(lax.gt(x_arr, lower), lax.log(ndtr_res),
                               _log_ndtr_lower(lax.min(x_arr, lower), series_order)))


def _log_ndtr_jvp(series_order, primals, tangents):
    (x,), (t,) = primals, tangents
    ans = _log_ndtr(x, series_order)
    return ans, lax.mul(t, lax.exp(lax.sub(_norm_logpdf(x), ans)))


_log_ndtr.defjvp(_log_ndtr_jvp)


def _log_ndtr_lower(x, series_order):
    dtype = x.dtype.type
    log_scale = -dtype(0.5) * lax.square(x) - lax.log(-x) - dtype(0.5 * np.log(2. * np.pi))
    return log_scale + lax.log(_log_ndtr_asymptotic_series(x, series_order))


def _log_ndtr_asymptotic_series(x, series_order):
    """1 + sum_n (-1)^n (2n-1)!! / x^(2n), n = 1..series_order."""
    dtype = x.dtype.type
    if series_order <= 0:
        return np.array(1, dtype)
    x_2 = lax.square(x)
    even_sum, odd_sum = jnp.zeros_like(x), jnp.zeros_like(x)
    x_2n = x_2
    for n in range(1, series_order + 1):
        y = np.array(np.prod(np.arange(2 * n - 1, 1, -2)), dtype) / x_2n
        if n % 2:
            odd_sum += y
        else:
            even_sum += y
        x_2n *= x_2
    return dtype(1.) + even_sum - odd_sum


def _norm_logpdf(x):
    return lax.sub(lax.mul(_c(x, -0.5), lax.square(x)), _c(x, np.log(np.sqrt(2 * np.pi))))


# ------------------------------------------------------------------ Owen's T
# Patefield & Tandy's (2000) method T5: 13-point Gauss quadrature of
# T(h, a) = (1/2pi) int_0^a exp(-h^2 (1 + u^2) / 2) / (1 + u^2) du, after u^2 = a^2 t (the
# weights absorb 1/2pi and the Jacobian): T ~ a sum_i w_i exp(-h^2 (1 + a^2 t_i) / 2) /
# (1 + a^2 t_i)
_OWENS_T_POINTS = np.array([
    0.0035082039676451715, 0.031279042338030754, 0.085266826283219451, 0.16245071730812277,
    0.25851196049125435, 0.36807553840697534, 0.48501092905604697, 0.60277514152618577,
    0.71477884217753227, 0.81475510988760099, 0.89711029755948966, 0.95723808085944262,
    0.99178832974629704])
_OWENS_T_WEIGHTS = np.array([
    0.018831438115323503, 0.018567086243977649, 0.018042093461223386, 0.017263829606398753,
    0.016243219975989857, 0.014994592034116705, 0.013535474469662088, 0.011886351605820165,
    0.010070377242777432, 0.0081130545742299587, 0.0060419009528470239,
    0.0038862217010742058, 0.0016793031084546090])


def owens_t(h, a):
    """Owen's T function (1/2pi) int_0^a exp(-h^2 (1 + x^2) / 2) / (1 + x^2) dx, real h and a.

    >>> owens_t(jnp.array([0.0, 1.0]), 1.0)
    Array([0.125     , 0.06674188], dtype=float32)
    """
    h, a = promote_args_inexact("owens_t", h, a)
    return _owens_t(h, a)


def _owens_t_quadrature(h, a):
    points = jnp.expand_dims(_OWENS_T_POINTS, tuple(range(a.ndim)))
    r = jnp.square(a)[..., None] * points
    integrand = jnp.exp(-0.5 * jnp.square(h)[..., None] * (1. + r)) / (1. + r)
    return a * (integrand @ _OWENS_T_WEIGHTS)


@custom_jvp
def _owens_t(h, a):
    """The quadrature for |a| <= 1; for |a| > 1 through
    T(h, a) = (Phi(h) + Phi(ah)) / 2 - Phi(h) Phi(ah) - T(ah, 1/a) (with erf/erfc), exact
    values at h = 0 (atan(a) / 2pi) and a = 1; T is even in h and odd in a."""
    h = jnp.abs(h)
    abs_a = jnp.abs(a)
    root_2 = _c(h, np.sqrt(2))
    h_normed = h / root_2
    folded = abs_a <= 1.
    a_in = jnp.where(folded, abs_a, jnp.reciprocal(abs_a))
    h_in = jnp.where(folded, h, abs_a * h)
    result = _owens_t_quadrature(h_in, a_in)
    result = jnp.where(h_in == 0., jnp.arctan(a_in) / (2 * np.pi), result)
    result = jnp.where(a_in == 1., 0.125 * lax.erfc(-h_in / root_2) * lax.erfc(h_in / root_2),
                       result)
    normh, normah = lax.erfc(h_normed), lax.erfc(abs_a * h_normed)
    result = jnp.where(
        abs_a > 1.,
        jnp.where(abs_a * h <= 0.67,
                  0.25 - 0.25 * lax.erf(h_normed) * lax.erf(abs_a * h_normed) - result,
                  0.25 * (normh + normah - normh * normah) - result),
        result)
    result = lax.sign(a) * result
    return jnp.where(jnp.isnan(a) | jnp.isnan(h), jnp.full_like(result, jnp.nan), result)


@_owens_t.defjvp
def _owens_t_jvp(primals, tangents):
    (h, a), (dh, da) = primals, tangents
    result = _owens_t(h, a)
    root_2 = _c(h, np.sqrt(2))
    # dT/dh = -exp(-h^2/2) erf(ah/sqrt 2) / (2 sqrt(2pi)); dT/da = exp(-(1+a^2) h^2/2) /
    # (2pi (1 + a^2))
    dout_dh = (-lax.exp(-0.5 * lax.square(h)) * lax.erf(a * h / root_2)
               / (2. * _c(h, np.sqrt(2. * np.pi))))
    dout_da = (lax.exp(-0.5 * (lax.square(a) + 1.) * lax.square(h))
               / (2. * np.pi * (lax.square(a) + 1.)))
    return result, (dout_dh * dh + dout_da * da).astype(result.dtype)


# ------------------------------------------------------------------ erfcx
def erfcx(x):
    """The scaled complementary error function exp(x^2) erfc(x) (real or complex).

    >>> erfcx(jnp.array([0.0, 30.0]))
    Array([1.        , 0.01879589], dtype=float32)
    """
    x, = promote_args_inexact("erfcx", x)
    if dtypes.is_complex(x.dtype):
        # erfcx(z) = w(iz)
        return _wofz(lax.complex(lax.neg(lax.imag(x)), lax.real(x)))
    return _erfcx(x)


@custom_jvp
def _erfcx(x):
    x = jnp.asarray(x)      # (under grad's JVP its rule gets grad's own Python-scalar primal)
    if x.dtype == np.float64:
        return _erfcx_impl(x, nterms=9)     # the first omitted term is far below eps
    if x.dtype == np.float32:
        return _erfcx_impl(x, nterms=5)
    return _erfcx_impl(x.astype(np.float32), nterms=5).astype(x.dtype)


_erfcx.defjvps(lambda g, ans, x: g * (2 * x * ans - _c(x, 2. / np.sqrt(np.pi))))

# c_k = (-1)^k (2k-1)!! / 2^k, highest degree first
_ERFCX_ASYMPTOTIC = [7918.06640625, -1055.7421875, 162.421875, -29.53125, 6.5625, -1.875,
                     .75, -.5, 1.]


def _erfcx_impl(x, nterms):
    """exp(x^2) erfc(x) directly until exp(x^2) would overflow, then the asymptotic series
    (1 / (sqrt(pi) x)) P(1/x^2)."""
    large = x > _c(x, np.sqrt(np.log(dtypes.finfo(x.dtype).max)))
    safe_x = lax.select(large, jnp.full_like(x, 1.), x)
    direct = lax.exp(lax.square(safe_x)) * lax.erfc(safe_x)
    t = _c(x, 1.) / lax.square(x)
    p = jnp.polyval(np.array(_ERFCX_ASYMPTOTIC[-nterms:], dtype=x.dtype), t)
    asymptotic = p / (x * _c(x, np.sqrt(np.pi)))
    return lax.select(large, asymptotic, direct)


# ------------------------------------------------------------------ Faddeeva function
# Weideman's (1994) N = 32 rational approximation, valid for Im z >= 0:
# w(z) = 2 P(Z) / (L - iz)^2 + 1 / (sqrt(pi) (L - iz)) with Z = (L + iz) / (L - iz)
# (coefficients highest degree first, for polyval)
_WOFZ_L = 4.7568284600108841
_WOFZ_C = np.array([
    -1.3034426067909105e-12, 3.7411838373738471e-12, 8.030427700497756e-12,
    -2.1543593557490879e-11, -5.5442449963237932e-11, 1.165824698850374e-10,
    4.1537441121999766e-10, -5.2310202114920615e-10, -3.2080151339721323e-09,
    8.1248864216535907e-10, 2.3797556530014025e-08, 2.2930438438915445e-08,
    -1.4813078929137642e-07, -4.1840763750512053e-07, 4.2558331397138446e-07,
    4.4015317312832251e-06, 6.8210319443575151e-06, -2.1409619201999998e-05,
    -0.00013075449254579421, -0.00024532980270038237, 0.00039259136070109705,
    0.0045195411053493093, 0.019006155784845501, 0.057304403529837282, 0.14060716226893755,
    0.29544451071508743, 0.54601397206393376, 0.9019254893648001, 1.3455441692345449,
    1.8256696296324815, 2.2635372999002676, 2.5722534081245696])


def wofz(z):
    """The Faddeeva function w(z) = exp(-z^2) erfc(-iz) (complex result).

    >>> wofz(jnp.array([0.0, 1.0]))
    Array([1.0000001 +0.j        , 0.36787954+0.60715777j], dtype=complex64)
    """
    z, = promote_args_complex("wofz", z)
    return _wofz(z)


def _wofz_upper(z):
    """Weideman's approximation (for Im z >= 0)."""
    re = lax.real(z)
    big_l = lax.complex(_c(re, _WOFZ_L), _c(re, 0.))
    iz = lax.complex(lax.neg(lax.imag(z)), re)
    denom = big_l - iz
    p = jnp.polyval(jnp.asarray(_WOFZ_C, dtype=z.dtype), (big_l + iz) / denom)
    one_over_sqrtpi = lax.complex(_c(re, 1. / np.sqrt(np.pi)), _c(re, 0.))
    return 2 * p / (denom * denom) + one_over_sqrtpi / denom


@custom_jvp
def _wofz(z):
    # the lower half plane by the reflection w(z) = 2 exp(-z^2) - w(-z)
    upper = lax.ge(lax.imag(z), _c(lax.real(z), 0.))
    w_upper = _wofz_upper(lax.select(upper, z, lax.neg(z)))
    return lax.select(upper, w_upper, 2 * lax.exp(lax.neg(z * z)) - w_upper)


# w'(z) = -2 z w(z) + 2i / sqrt(pi)
_wofz.defjvps(lambda g, ans, z: g * (lax.neg(2 * z * ans) + lax.complex(
    _c(lax.real(z), 0.), _c(lax.real(z), 2. / np.sqrt(np.pi)))))


# ------------------------------------------------------------------ Dawson's integral
# Cody, Paciorek and Thacher's (1970) rational approximations (Cephes' dawsn), on |x|:
# |x| < 3.25: x P(x^2) / Q(x^2); beyond, in t = 1/x^2: (1/2x) (1 + t P(t) / Q(t)), with one
# pair up to 6.25 and another past it
_DAWSN_AN = [1.13681498971755972054e-11, 8.49262267667473811108e-10, 1.94434204175553054283e-8,
             9.53151741254484363489e-7, 3.07828309874913200438e-6, 3.52513368520288738649e-4,
             -8.50149846724410912031e-4, 4.22618223005546594270e-2,
             -9.17480371773452345351e-2, 9.99999999999999994612e-1]
_DAWSN_AD = [2.40372073066762605484e-11, 1.48864681368493396752e-9, 5.21265281010541664570e-8,
             1.27258478273186970203e-6, 2.32490249820789513991e-5, 3.25524741826057911661e-4,
             3.48805814657162590916e-3, 2.79448531198828973716e-2, 1.58874241960120565368e-1,
             5.74918629489320327824e-1, 1.00000000000000000539e0]
_DAWSN_BN = [5.08955156417900903354e-1, -2.44754418142697847934e-1, 9.41512335303534411857e-2,
             -2.18711255142039025206e-2, 3.66207612329569181322e-3, -4.23209114460388756528e-4,
             3.59641304793896631888e-5, -2.14640351719968974225e-6, 9.10010780076391431042e-8,
             -2.40274520828250956942e-9, 3.59233385440928410398e-11]
_DAWSN_BD = [1.00000000000000000000e0, -6.31839869873368190192e-1, 2.36706788228248691528e-1,
             -5.31806367003223277662e-2, 8.48041718586295374409e-3, -9.47996768486665330168e-4,
             7.81025592944552338085e-5, -4.55875153252442634831e-6, 1.89100358111421846170e-7,
             -4.91324691331920606875e-9, 7.18466403235734541950e-11]
_DAWSN_CN = [-5.90592860534773254987e-1, 6.29235242724368800674e-1, -1.72858975380388136411e-1,
             1.64837047825189632310e-2, -4.86827613020462700845e-4]
_DAWSN_CD = [1.00000000000000000000e0, -2.69820057197544900361e0, 1.73270799045947845857e0,
             -3.93708582281939493482e-1, 3.44278924041233391079e-2, -9.73655226040941223894e-4]


def dawsn(x):
    """Dawson's integral exp(-x^2) * integral from 0 to x of exp(t^2) dt (real x).

    >>> dawsn(jnp.array([0.0, 1.0, -2.0]))
    Array([ 0.        ,  0.5380795 , -0.30134037], dtype=float32)
    """
    x, = promote_args_inexact("dawsn", x)
    check_real("dawsn", x)
    return _dawsn(x)


@custom_jvp
def _dawsn(x):
    x = jnp.asarray(x)      # (as _erfcx)
    if x.dtype in (np.float32, np.float64):
        return _dawsn_impl(x)
    return _dawsn_impl(x.astype(np.float32)).astype(x.dtype)     # half precision: in float32


# D'(x) = 1 - 2 x D(x)
_dawsn.defjvps(lambda g, ans, x: g * (_c(x, 1.) - _c(x, 2.) * x * ans))


def _dawsn_impl(x):
    """The three approximations on |x|, each fed a harmless 1 outside its interval (its
    polynomials overflow far out, and inf / inf would be a NaN in the unused side of the
    select), then the sign put back (dawsn is odd; sign(0) = 0 = dawsn(0))."""
    ax = lax.abs(x)
    one = lambda v: jnp.full_like(v, 1.)                               # noqa: E731
    coeffs = lambda c: np.array(c, dtype=x.dtype)                      # noqa: E731
    t = _c(x, 1.) / lax.square(ax)
    in_a = ax < _c(x, 3.25)
    in_b = (ax >= _c(x, 3.25)) & (ax < _c(x, 6.25))
    in_c = ax >= _c(x, 6.25)

    ax_a = lax.select(in_a, ax, one(ax))
    ax2_a = lax.square(ax_a)
    val_a = ax_a * jnp.polyval(coeffs(_DAWSN_AN), ax2_a) / jnp.polyval(coeffs(_DAWSN_AD), ax2_a)

    def tail(inside, num, den):
        t_in, ax_in = lax.select(inside, t, one(t)), lax.select(inside, ax, one(ax))
        return (_c(x, 0.5) / ax_in) * (_c(x, 1.) + t_in * jnp.polyval(coeffs(num), t_in)
                                       / jnp.polyval(coeffs(den), t_in))

    val_b = tail(in_b, _DAWSN_BN, _DAWSN_BD)
    val_c = tail(in_c, _DAWSN_CN, _DAWSN_CD)
    result = lax.select(in_a, val_a, lax.select(ax < _c(x, 6.25), val_b, val_c))
    return jnp.sign(x) * result


# ------------------------------------------------------------------ Bessel functions
def i0e(x):
    """exp(-|x|) I0(x), the exponentially scaled modified Bessel function of order 0.

    >>> i0e(1.0)
    Array(0.46575963, dtype=float32, weak_type=True)
    """
    return _promoted("i0e", lax.bessel_i0e, x)


def i0(x):
    """I0(x), the modified Bessel function of the first kind of order 0.

    >>> i0(1.0)
    Array(1.266066, dtype=float32, weak_type=True)
    """
    return _unscaled("i0", lax.bessel_i0e, x)


def i1e(x):
    """exp(-|x|) I1(x), the exponentially scaled modified Bessel function of order 1."""
    return _promoted("i1e", lax.bessel_i1e, x)


def i1(x):
    """I1(x), the modified Bessel function of the first kind of order 1.

    >>> i1(1.0)
    Array(0.5651591, dtype=float32, weak_type=True)
    """
    return _unscaled("i1", lax.bessel_i1e, x)


def _promoted(name, scaled, x):
    """`scaled`(x) (a lax function) of x promoted to a float, as `name` does."""
    x, = promote_args_inexact(name, x)
    return scaled(x)


def _unscaled(name, scaled, x):
    """I_n(x) = exp(|x|) * (its exponentially scaled form, `scaled`)(x)."""
    x, = promote_args_inexact(name, x)
    return lax.mul(lax.exp(lax.abs(x)), scaled(x))


def _bessel_jn_step(carry, k):
    """One step of Miller's backward recurrence f_k = 2 (k+1) f_(k+1) / z - f_(k+2), summing
    the even orders for the normalization J0 + 2 (J2 + J4 + ...) = 1."""
    f0, f1, bs, z = carry
    f = 2.0 * (k + 1.0) * f1 / z - f0
    bs = lax.cond(jnp.mod(k, 2) == 0, lambda u: u[0] + 2.0 * u[1], lambda u: u[0], (bs, f))
    return (f1, f, bs, z), f


def _bessel_jn(z, *, v, n_iter=50):
    init = (_c(z, 0.0), _c(z, 1E-16), _c(z, 0.0), z)
    (_, _, bs, _), j_vals = lax.scan(_bessel_jn_step, init,
                                     lax.iota(z.dtype, n_iter + 1), reverse=True)
    f = j_vals[0]
    return j_vals[:v + 1] / (bs - f)


@jax_jitted
@jnp_jit(static_argnames=("v", "n_iter"))
def bessel_jn(z, *, v: int, n_iter: int = 50):
    """J_0(z) ... J_v(z), Bessel functions of the first kind of integer order (real z), by
    Miller's backward recurrence from order n_iter; shape (v + 1,) + z.shape. As in JAX,
    float32 gives NaN for small |z| (the recurrence overflows).

    >>> bessel_jn(jnp.array([10.0]), v=1)[:, 0]
    Array([-0.24593572,  0.04347268], dtype=float32)
    """
    z = jnp.asarray(z)
    z, = promote_dtypes_inexact(z)
    if dtypes.is_complex(z.dtype):
        raise ValueError("complex input not supported.")
    v = operator.index(v)
    fun = functools.partial(_bessel_jn, v=v, n_iter=int(n_iter))
    for _ in range(z.ndim):
        fun = vmap(fun)
    return jnp.moveaxis(fun(z), -1, 0)
