"""Exponential integrals of jax.scipy.special: Ei (expi), E1 (exp1) and E_n (expn); JAX
0.10.2's algorithms (Cephes' rational approximations for Ei, the power series, continued
fraction and large-n expansion for E_n), so the same numbers.

    >>> expi(jnp.array([1.0, -1.0]))
    Array([ 1.8951179 , -0.21938396], dtype=float32)
"""
from __future__ import annotations

import functools

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..core import dtypes
from ..numpy.util import const as _c
from ..numpy.util import check_real, jnp_jit, promote_args_inexact
from ..transforms.custom_derivatives import custom_jvp

# Cephes' rational approximations of Ei(x) - on (0, 2] in x, then on (2, 4], (4, 8], ...,
# (32, 64] and beyond in w = 1/x: (numerator, denominator), highest degree first
_EXPINT_TABLES = [
    ([
        -5.350447357812542947283e0, 2.185049168816613393830e2, -4.176572384826693777058e3,
        5.541176756393557601232e4, -3.313381331178144034309e5, 1.592627163384945414220e6
    ], [
        1.0, -5.250547959112862969197e1, 1.259616186786790571525e3,
        -1.756549581973534652631e4, 1.493062117002725991967e5, -7.294949239640527645655e5,
        1.592627163384945429726e6
    ]),
    ([
        1.981808503259689673238e-2, -1.271645625984917501326e0, -2.088160335681228318920e0,
        2.755544509187936721172e0, -4.409507048701600257171e-1, 4.665623805935891391017e-2,
        -1.545042679673485262580e-3, 7.059980605299617478514e-5
    ], [
        1.0, 1.476498670914921440652e0, 5.629177174822436244827e-1,
        1.699017897879307263248e-1, 2.291647179034212017463e-2, 4.450150439728752875043e-3,
        1.727439612206521482874e-4, 3.953167195549672482304e-5
    ]),
    ([
        -1.373215375871208729803e0, -7.084559133740838761406e-1, 1.580806855547941010501e0,
        -2.601500427425622944234e-1, 2.994674694113713763365e-2, -1.038086040188744005513e-3,
        4.371064420753005429514e-5, 2.141783679522602903795e-6
    ], [
        1.0, 8.585231423622028380768e-1, 4.483285822873995129957e-1,
        7.687932158124475434091e-2, 2.449868241021887685904e-2, 8.832165941927796567926e-4,
        4.590952299511353531215e-4, -4.729848351866523044863e-6, 2.665195537390710170105e-6
    ]),
    ([
        -2.106934601691916512584e0, 1.732733869664688041885e0, -2.423619178935841904839e-1,
        2.322724180937565842585e-2, 2.372880440493179832059e-4, -8.343219561192552752335e-5,
        1.363408795605250394881e-5, -3.655412321999253963714e-7, 1.464941733975961318456e-8,
        6.176407863710360207074e-10
    ], [
        1.0, -2.298062239901678075778e-1, 1.105077041474037862347e-1,
        -1.566542966630792353556e-2, 2.761106850817352773874e-3, -2.089148012284048449115e-4,
        1.708528938807675304186e-5, -4.459311796356686423199e-7, 1.394634930353847498145e-8,
        6.150865933977338354138e-10
    ]),
    ([
        -2.458119367674020323359e-1, -1.483382253322077687183e-1, 7.248291795735551591813e-2,
        -1.348315687380940523823e-2, 1.342775069788636972294e-3, -7.942465637159712264564e-5,
        2.644179518984235952241e-6, -4.239473659313765177195e-8
    ], [
        1.0, -1.044225908443871106315e-1, -2.676453128101402655055e-1,
        9.695000254621984627876e-2, -1.601745692712991078208e-2, 1.496414899205908021882e-3,
        -8.462452563778485013756e-5, 2.728938403476726394024e-6, -4.239462431819542051337e-8
    ]),
    ([
        1.212561118105456670844e-1, -5.823133179043894485122e-1, 2.348887314557016779211e-1,
        -3.040034318113248237280e-2, 1.510082146865190661777e-3, -2.523137095499571377122e-5
    ], [
        1.0, -1.002252150365854016662e0, 2.928709694872224144953e-1,
        -3.337004338674007801307e-2, 1.560544881127388842819e-3, -2.523137093603234562648e-5
    ]),
    ([
        -7.657847078286127362028e-1, 6.886192415566705051750e-1, -2.132598113545206124553e-1,
        3.346107552384193813594e-2, -3.076541477344756050249e-3, 1.747119316454907477380e-4,
        -6.103711682274170530369e-6, 1.218032765428652199087e-7, -1.086076102793290233007e-9
    ], [
        1.0, -1.888802868662308731041e0, 1.066691687211408896850e0,
        -2.751915982306380647738e-1, 3.930852688233823569726e-2, -3.414684558602365085394e-3,
        1.866844370703555398195e-4, -6.345146083130515357861e-6, 1.239754287483206878024e-7,
        -1.086076102793126632978e-9
    ]),
]


def _expint_small(x):
    """Ei(x) for 0 < x <= 2: gamma + log x + x R(x)."""
    num, den = (np.array(c, dtype=x.dtype) for c in _EXPINT_TABLES[0])
    f = jnp.polyval(num, x) / jnp.polyval(den, x)
    return x * f + np.euler_gamma + jnp.log(x)


def _expint_large(k, x):
    """Ei(x) for x in the k-th interval (k >= 1): e^x / x (1 + R(1/x) / x)."""
    num, den = (np.array(c, dtype=x.dtype) for c in _EXPINT_TABLES[k])
    one = _c(x, 1.0)
    w = one / x
    f = jnp.polyval(num, w) / jnp.polyval(den, w)
    f = w * f + one
    return jnp.exp(x) * w * f


def _expi_pos(x):
    conds = [(_c(x, 0) < x) & (x <= _c(x, 2))] + [
        (_c(x, 2 ** i) < x) & (x <= _c(x, 2 ** (i + 1))) for i in range(1, 6)]
    return jnp.piecewise(x, conds, [_expint_small] +
                         [functools.partial(_expint_large, k) for k in range(1, 7)])


def _expi_neg(x):
    return -exp1(-x)


@custom_jvp
@jnp_jit
def expi(x):
    """The exponential integral Ei(x) = -PV int_{-x}^inf e^-t / t dt (real x).

    >>> expi(1.0)
    Array(1.8951179, dtype=float32)
    """
    x_arr, = promote_args_inexact("expi", x)
    check_real("expi", x_arr)
    return jnp.piecewise(x_arr, [x_arr < 0], [_expi_neg, _expi_pos])


@expi.defjvp
@jnp_jit
def _expi_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return expi(x), jnp.exp(x) / x * x_dot


def _expn_series(x, n):
    """E_n(x) for x <= 1: the power series with its digamma term."""
    machep = dtypes.finfo(x.dtype).eps
    zero, one = _c(x, 0.0), _c(x, 1.0)
    psi = -np.euler_gamma - jnp.log(x)
    psi = lax.fori_loop(_c(n, 1), n, lambda i, psi: psi + one / i, psi)
    n1 = jnp.where(n == _c(n, 1), one + one, n)
    init = {"x": x, "z": -x, "xk": zero, "yk": one, "pk": one - n,
            "ans": jnp.where(n == _c(n, 1), zero, one / (one - n1)), "t": _c(x, np.inf)}

    def body(d):
        d["xk"] += one
        d["yk"] *= d["z"] / d["xk"]
        d["pk"] += one
        d["ans"] += jnp.where(d["pk"] != zero, d["yk"] / d["pk"], zero)
        d["t"] = jnp.where(d["ans"] != zero, abs(d["yk"] / d["ans"]), one)
        return d

    d = lax.while_loop(lambda d: (d["x"] > _c(d["x"], 0.0)) & (d["t"] > machep), body, init)
    return d["z"] ** (n - _c(n, 1)) * psi / jnp.exp(lax.lgamma(n)) - d["ans"]


def _expn_fraction(x, n):
    """E_n(x) for x > 1: its continued fraction, convergents rescaled when they grow big."""
    big = _c(x, 1.44115188075855872e17)
    machep = dtypes.finfo(x.dtype).eps
    zero, one = _c(x, 0.0), _c(x, 1.0)
    init = {"k": _c(n, 1), "pkm2": one, "qkm2": x, "pkm1": one, "qkm1": x + n,
            "ans": one / (x + n), "t": _c(x, np.inf), "r": zero, "x": x}

    def body(d):
        x = d["x"]
        d["k"] += _c(d["k"], 1)
        k = d["k"]
        odd = k % _c(k, 2) == _c(k, 1)
        yk = jnp.where(odd, one, x)
        xk = jnp.where(odd, n + (k - _c(k, 1)) / _c(k, 2), k / _c(k, 2))
        pk = d["pkm1"] * yk + d["pkm2"] * xk
        qk = d["qkm1"] * yk + d["qkm2"] * xk
        nz = qk != zero
        d["r"] = r = jnp.where(nz, pk / qk, d["r"])
        d["t"] = jnp.where(nz, abs((d["ans"] - r) / r), one)
        d["ans"] = jnp.where(nz, r, d["ans"])
        d["pkm2"], d["pkm1"], d["qkm2"], d["qkm1"] = d["pkm1"], pk, d["qkm1"], qk
        is_big = abs(pk) > big
        for key in ("pkm1", "pkm2", "qkm1", "qkm2"):
            d[key] = jnp.where(is_big, d[key] / big, d[key])
        return d

    d = lax.while_loop(lambda d: (d["x"] > _c(d["k"], 0)) & (d["t"] > machep), body, init)
    return d["ans"] * jnp.exp(-x)


def _expn_large_n(x, n):
    """E_n(x) for n >= 5000: the first terms of its large-n expansion."""
    one = _c(x, 1.0)
    xk = x + n
    yk = one / (xk * xk)
    t = n
    ans = yk * t * (_c(x, 6) * x * x - _c(x, 8) * t * x + t * t)
    ans = yk * (ans + t * (t - _c(x, 2) * x))
    ans = yk * (ans + t)
    return (ans + one) * jnp.exp(-x) / xk


@jnp_jit
def _expn(n, x):
    n, x = promote_args_inexact("expn", n, x)
    check_real("expn", x)
    zero, one = _c(x, 0), _c(x, 1)
    conds = [(n < _c(n, 0)) | (x < zero), (x == zero) & (n < _c(n, 2)),
             (x == zero) & (n >= _c(n, 2)), (n == _c(n, 0)) & (x >= zero),
             n >= _c(n, 5000), x > one]
    n1 = jnp.where(n == _c(n, 1), n + n, n)           # keeps 1 / (n - 1) finite
    vals = [np.nan, np.inf, one / n1, jnp.exp(-x) / x, _expn_large_n, _expn_fraction,
            _expn_series]
    return jnp.piecewise(x, conds, vals, n=n)


@functools.partial(custom_jvp, nondiff_argnums=(0,))
def expn(n, x):
    """The generalized exponential integral E_n(x) = int_1^inf e^(-x t) / t^n dt.

    >>> expn(2, 1.0)
    Array(0.14849555, dtype=float32)
    """
    return jnp.vectorize(_expn)(n, x)


@expn.defjvp
def _expn_jvp(n, primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return expn(n, x), lax.mul(lax.neg(x_dot), expn(lax.sub(n, _c(n, 1)), x))


def exp1(x):
    """The exponential integral E1(x) = int_1^inf e^(-x t) / t dt.

    >>> exp1(1.0)
    Array(0.21938422, dtype=float32)
    """
    x, = promote_args_inexact("exp1", x)
    check_real("exp1", x)
    return expn(1, x)
