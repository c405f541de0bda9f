"""Integrals of trigonometric functions in jax.scipy.special: the Fresnel integrals (fresnel)
and the sine and cosine integrals (sici); JAX 0.10.2's algorithms (Cephes' rational
approximations and asymptotic expansions), so the same numbers.

    >>> sici(jnp.array([1.0, 10.0]))
    (Array([0.94608307, 1.6583477 ], dtype=float32),
     Array([ 0.33740395, -0.04545644], dtype=float32))
"""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..core import dtypes
from ..numpy.util import jnp_jit, promote_args_inexact
from ..transforms.custom_derivatives import custom_jvp


# ------------------------------------------------------------------ Fresnel integrals
@jnp_jit
def _sincospi_squared_half(x):
    """sin(pi x^2 / 2) and cos(pi x^2 / 2), exact for large x (scipy's sinpi/cospi): with
    s = x mod 2, (x^2 / 2) mod 2 = (s (x - s/2)) mod 2, so no x^2 loses the phase."""
    x = jnp.abs(x)
    s = jnp.fmod(x, 2.0)
    r = jnp.fmod(s * (x - s / 2), 2.0)
    sinpi = jnp.where(r < 0.5, jnp.sin(np.pi * r),
                      jnp.where(r > 1.5, jnp.sin(np.pi * (r - 2.0)),
                                -jnp.sin(np.pi * (r - 1.0))))
    cospi = jnp.where(r == 0.5, 0.0,
                      jnp.where(r < 1.0, -jnp.sin(np.pi * (r - 0.5)),
                                jnp.sin(np.pi * (r - 1.5))))
    return sinpi, cospi


# Cephes' coefficients, highest degree first: float32's fresnlf has polynomials only (the
# *D tables unused), float64's fresnl rational functions. S(x) ~ x^3 SN(x^4) / SD(x^4) and
# C(x) ~ x CN(x^4) / CD(x^4) for x^2 < 2.5625; beyond, the auxiliary f and g in u = 1/(pi x^2)^2
_FRESNEL_F32 = {
    "sn": [1.647629463788700e-9, -1.522754752581096e-7, 8.424748808502400e-6,
           -3.120693124703272e-4, 7.244727626597022e-3, -9.228055941124598e-2,
           5.235987735681432e-1],
    "cn": [1.416802502367354e-8, -1.157231412229871e-6, 5.387223446683264e-5,
           -1.604381798862293e-3, 2.818489036795073e-2, -2.467398198317899e-1,
           9.999999760004487e-1],
    "fn": [-1.903009855649792e12, 1.355942388050252e11, -4.158143148511033e9,
           7.343848463587323e7, -8.732356681548485e5, 8.560515466275470e3,
           -1.032877601091159e2, 2.999401847870011e0],
    "gn": [-1.860843997624650e11, 1.278350673393208e10, -3.779387713202229e8,
           6.492611570598858e6, -7.787789623358162e4, 8.602931494734327e2,
           -1.493439396592284e1, 9.999841934744914e-1],
}
_FRESNEL_F64 = {
    "sn": [-2.99181919401019853726e3, 7.08840045257738576863e5, -6.29741486205862506537e7,
           2.54890880573376359104e9, -4.42979518059697779103e10, 3.18016297876567817986e11],
    "sd": [1.00000000000000000000e0, 2.81376268889994315696e2, 4.55847810806532581675e4,
           5.17343888770096400730e6, 4.19320245898111231129e8, 2.24411795645340920940e10,
           6.07366389490084639049e11],
    "cn": [-4.98843114573573548651e-8, 9.50428062829859605134e-6, -6.45191435683965050962e-4,
           1.88843319396703850064e-2, -2.05525900955013891793e-1, 9.99999999999999998822e-1],
    "cd": [3.99982968972495980367e-12, 9.15439215774657478799e-10, 1.25001862479598821474e-7,
           1.22262789024179030997e-5, 8.68029542941784300606e-4, 4.12142090722199792936e-2,
           1.00000000000000000118e0],
    "fn": [4.21543555043677546506e-1, 1.43407919780758885261e-1, 1.15220955073585758835e-2,
           3.45017939782574027900e-4, 4.63613749287867322088e-6, 3.05568983790257605827e-8,
           1.02304514164907233465e-10, 1.72010743268161828879e-13, 1.34283276233062758925e-16,
           3.76329711269987889006e-20],
    "fd": [1.00000000000000000000e0, 7.51586398353378947175e-1, 1.16888925859191382142e-1,
           6.44051526508858611005e-3, 1.55934409164153020873e-4, 1.84627567348930545870e-6,
           1.12699224763999035261e-8, 3.60140029589371370404e-11, 5.88754533621578410010e-14,
           4.52001434074129701496e-17, 1.25443237090011264384e-20],
    "gn": [5.04442073643383265887e-1, 1.97102833525523411709e-1, 1.87648584092575249293e-2,
           6.84079380915393090172e-4, 1.15138826111884280931e-5, 9.82852443688422223854e-8,
           4.45344415861750144738e-10, 1.08268041139020870318e-12, 1.37555460633261799868e-15,
           8.36354435630677421531e-19, 1.86958710162783235106e-22],
    "gd": [1.00000000000000000000e0, 1.47495759925128324529e0, 3.37748989120019970451e-1,
           2.53603741420338795122e-2, 8.14679107184306179049e-4, 1.27545075667729118702e-5,
           1.04314589657571990585e-7, 4.60680728146520428211e-10, 1.10273215066240270757e-12,
           1.38796531259578871258e-15, 8.39158816283118707363e-19, 1.86958710162783236342e-22],
}


@custom_jvp
def fresnel(x):
    """The Fresnel integrals S(x) = int_0^x sin(pi t^2 / 2) dt and C(x) (with cos), real x;
    accurate on [-10, 10] as Cephes'; float16/bfloat16 are computed in float32.

    >>> fresnel(jnp.array([0.5, 2.0]))
    (Array([0.06473243, 0.34341568], dtype=float32), Array([0.49234423, 0.4882534 ], dtype=float32))
    """
    xxa, = promote_args_inexact("fresnel", x)
    original_dtype = xxa.dtype
    if dtypes.is_complex(xxa.dtype):
        raise NotImplementedError("Support for complex-valued inputs is not implemented yet.")
    if xxa.dtype in (np.float32, np.float16, dtypes.bfloat16):
        xxa = xxa.astype(np.float32)           # Cephes' series lose too much in half precision
    elif xxa.dtype != np.float64:
        raise NotImplementedError(f"Support for {xxa.dtype} dtype is not implemented yet.")
    single = xxa.dtype == np.float32
    c = {k: jnp.array(v, dtype=xxa.dtype)
         for k, v in (_FRESNEL_F32 if single else _FRESNEL_F64).items()}
    x = jnp.abs(xxa)
    x2 = x * x

    t = x2 * x2                                                   # x^2 < 2.5625
    if single:
        s_small = x * x2 * jnp.polyval(c["sn"], t)
        c_small = x * jnp.polyval(c["cn"], t)
    else:
        s_small = x * x2 * jnp.polyval(c["sn"], t) / jnp.polyval(c["sd"], t)
        c_small = x * jnp.polyval(c["cn"], t) / jnp.polyval(c["cd"], t)

    sinpi, cospi = _sincospi_squared_half(x)
    if single:                                                    # x > 36974
        c_large = s_large = 0.5
    else:
        c_large = 0.5 + 1 / (np.pi * x) * sinpi
        s_large = 0.5 - 1 / (np.pi * x) * cospi

    t = np.pi * x2                                                # in between
    u = 1.0 / (t * t)
    t = 1.0 / t
    if single:
        f = 1.0 - u * jnp.polyval(c["fn"], u)
        g = t * jnp.polyval(c["gn"], u)
    else:
        f = 1.0 - u * jnp.polyval(c["fn"], u) / jnp.polyval(c["fd"], u)
        g = t * jnp.polyval(c["gn"], u) / jnp.polyval(c["gd"], u)
    t = np.pi * x
    c_other = 0.5 + (f * sinpi - g * cospi) / t
    s_other = 0.5 - (f * cospi + g * sinpi) / t

    isinf, small, large = jnp.isinf(xxa), x2 < 2.5625, x > 36974.0
    s = jnp.where(isinf, 0.5, jnp.where(small, s_small, jnp.where(large, s_large, s_other)))
    c = jnp.where(isinf, 0.5, jnp.where(small, c_small, jnp.where(large, c_large, c_other)))
    neg = xxa < 0.0                                               # both are odd
    s, c = jnp.where(neg, -s, s), jnp.where(neg, -c, c)
    if original_dtype != xxa.dtype:
        s, c = s.astype(original_dtype), c.astype(original_dtype)
    return s, c


@fresnel.defjvp
def _fresnel_jvp(primals, tangents):
    # S'(x) = sin(pi x^2 / 2), C'(x) = cos(pi x^2 / 2)
    (x,), (x_dot,) = primals, tangents
    sinpi, cospi = _sincospi_squared_half(x)
    return fresnel(x), (sinpi * x_dot, cospi * x_dot)


# ------------------------------------------------------------------ sine and cosine integrals
# Cephes' sici: Si(x) ~ x SN(x^2) / SD(x^2) and Ci(x) ~ gamma + log x + x^2 CN(x^2) / CD(x^2)
# for x <= 4 (highest degree first)
_SICI_SN = [-8.39167827910303881427E-11, 4.62591714427012837309E-8, -9.75759303843632795789E-6,
            9.76945438170435310816E-4, -4.13470316229406538752E-2, 1.00000000000000000302E0]
_SICI_SD = [2.03269266195951942049E-12, 1.27997891179943299903E-9, 4.41827842801218905784E-7,
            9.96412122043875552487E-5, 1.42085239326149893930E-2, 9.99999999999999996984E-1]
_SICI_CN = [2.02524002389102268789E-11, -1.35249504915790756375E-8, 3.59325051419993077021E-6,
            -4.74007206873407909465E-4, 2.89159652607555242092E-2, -1.00000000000000000080E0]
_SICI_CD = [4.07746040061880559506E-12, 3.06780997581887812692E-9, 1.23210355685883423679E-6,
            3.17442024775032769882E-4, 5.10028056236446052392E-2, 4.00000000000000000080E0]
# beyond 4, the auxiliary f(x) = FN(z) / (x FD(z)) and g(x) = z GN(z) / GD(z) in z = 1/x^2,
# one pair of tables for 4 < x < 8 and one past 8
_SICI_FN4 = [4.23612862892216586994E0, 5.45937717161812843388E0, 1.62083287701538329132E0,
             1.67006611831323023771E-1, 6.81020132472518137426E-3, 1.08936580650328664411E-4,
             5.48900223421373614008E-7]
_SICI_FD4 = [1, 8.16496634205391016773E0, 7.30828822505564552187E0, 1.86792257950184183883E0,
             1.78792052963149907262E-1, 7.01710668322789753610E-3, 1.10034357153915731354E-4,
             5.48900252756255700982E-7]
_SICI_GN4 = [8.71001698973114191777E-2, 6.11379109952219284151E-1, 3.97180296392337498885E-1,
             7.48527737628469092119E-2, 5.38868681462177273157E-3, 1.61999794598934024525E-4,
             1.97963874140963632189E-6, 7.82579040744090311069E-9]
_SICI_GD4 = [1, 1.64402202413355338886E0, 6.66296701268987968381E-1, 9.88771761277688796203E-2,
             6.22396345441768420760E-3, 1.73221081474177119497E-4, 2.02659182086343991969E-6,
             7.82579218933534490868E-9]
_SICI_FN8 = [4.55880873470465315206E-1, 7.13715274100146711374E-1, 1.60300158222319456320E-1,
             1.16064229408124407915E-2, 3.49556442447859055605E-4, 4.86215430826454749482E-6,
             3.20092790091004902806E-8, 9.41779576128512936592E-11, 9.70507110881952024631E-14]
_SICI_FD8 = [1.0, 9.17463611873684053703E-1, 1.78685545332074536321E-1, 1.22253594771971293032E-2,
             3.58696481881851580297E-4, 4.92435064317881464393E-6, 3.21956939101046018377E-8,
             9.43720590350276732376E-11, 9.70507110881952025725E-14]
_SICI_GN8 = [6.97359953443276214934E-1, 3.30410979305632063225E-1, 3.84878767649974295920E-2,
             1.71718239052347903558E-3, 3.48941165502279436777E-5, 3.47131167084116673800E-7,
             1.70404452782044526189E-9, 3.85945925430276600453E-12, 3.14040098946363334640E-15]
_SICI_GD8 = [1.0, 1.68548898811011640017E0, 4.87852258695304967486E-1, 4.67913194259625806320E-2,
             1.90284426674399523638E-3, 3.68475504442561108162E-5, 3.57043223443740838771E-7,
             1.72693748966316146736E-9, 3.87830166023954706752E-12, 3.14040098946363335242E-15]


@custom_jvp
@jnp_jit
def sici(x):
    """The sine and cosine integrals Si(x) = int_0^x sin(t)/t dt and
    Ci(x) = gamma + log x + int_0^x (cos(t) - 1)/t dt, real x. For x < 0, Si is odd and Ci is
    Ci(|x|) (the real part, as scipy's), NaN at -inf.

    >>> sici(2.0)
    (Array(1.605413, dtype=float32), Array(0.42298084, dtype=float32))
    """
    x, = promote_args_inexact("sici", x)
    if dtypes.is_complex(x.dtype):
        raise ValueError(f"Argument `x` to sici must be real-valued. Got dtype {x.dtype}.")
    x_abs = jnp.abs(x)
    si_series, ci_series = _sici_series(x_abs)
    si_asympt, ci_asympt = _sici_asymptotic(x_abs)
    si_approx, ci_approx = _sici_approx(x_abs)
    small, middle = x_abs <= 4, (x_abs > 4) & (x_abs <= 1e9)
    si = jnp.select([small, middle], [si_series, si_asympt], si_approx)
    ci = jnp.select([small, middle], [ci_series, ci_asympt], ci_approx)
    return jnp.sign(x) * si, jnp.where(jnp.isneginf(x), np.nan, ci)


def _sici_approx(x):
    """The leading terms for x > 1e9."""
    si = (np.pi / 2) - jnp.cos(x) / x
    ci = jnp.sin(x) / x
    return jnp.where(jnp.isposinf(x), np.pi / 2, si), jnp.where(jnp.isposinf(x), 0.0, ci)


def _sici_series(x):
    """Cephes' rational approximations for 0 <= x <= 4 (Si(0) = 0, Ci(0) = -inf)."""
    coeffs = lambda c: np.array(c, dtype=x.dtype)                      # noqa: E731
    t = x * x
    si = (x * jnp.polyval(coeffs(_SICI_SN), t)) / jnp.polyval(coeffs(_SICI_SD), t)
    ci = np.euler_gamma + jnp.log(x) + t * jnp.polyval(coeffs(_SICI_CN), t) / \
        jnp.polyval(coeffs(_SICI_CD), t)
    return jnp.where(x == 0, 0.0, si), jnp.where(x == 0, -np.inf, ci)


def _sici_asymptotic(x):
    """Si = pi/2 - f cos x - g sin x, Ci = f sin x - g cos x for 4 < x <= 1e9."""
    coeffs = lambda c: np.array(c, dtype=x.dtype)                      # noqa: E731
    s, c = jnp.sin(x), jnp.cos(x)
    z = 1.0 / (x * x)
    f4 = jnp.polyval(coeffs(_SICI_FN4), z) / (x * jnp.polyval(coeffs(_SICI_FD4), z))
    g4 = z * jnp.polyval(coeffs(_SICI_GN4), z) / jnp.polyval(coeffs(_SICI_GD4), z)
    f8 = jnp.polyval(coeffs(_SICI_FN8), z) / (x * jnp.polyval(coeffs(_SICI_FD8), z))
    g8 = z * jnp.polyval(coeffs(_SICI_GN8), z) / jnp.polyval(coeffs(_SICI_GD8), z)
    below_8 = x < 8.0
    f, g = jnp.where(below_8, f4, f8), jnp.where(below_8, g4, g8)
    return (np.pi / 2) - f * c - g * s, f * s - g * c


@sici.defjvp
@jnp_jit
def _sici_jvp(primals, tangents):
    # Si'(x) = sin(x) / x, Ci'(x) = cos(x) / x
    (x,), (t,) = primals, tangents
    return sici(x), (jnp.sinc(x / np.pi) * t, jnp.cos(x) / x * t)
