"""Special functions, as jax.scipy.special defines them (same formulas, so same numbers).

    >>> from jxkernel.scipy.special import logsumexp
    >>> logsumexp(jnp.array([1.0, 2.0, 3.0]))
    Array(3.407606, dtype=float32)
"""
from __future__ import annotations

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..nn.functions import log_softmax as nn_log_softmax
from ..nn.functions import logsumexp
from ..nn.functions import softmax as nn_softmax
from ..numpy import util as numpy_util
from ..numpy.ufuncs import _const
from ..numpy.util import check_real, promote_args_inexact
from ..transforms.custom_derivatives import custom_jvp

__all__ = ["bernoulli", "bessel_jn", "beta", "betainc", "betaln", "boxcox", "boxcox1p", "comb",
           "dawsn", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp1", "expi", "expit",
           "expn", "factorial", "fresnel", "gamma", "gammainc", "gammaincc", "gammaln", "gammasgn",
           "hyp1f1", "hyp2f1", "i0", "i0e", "i1", "i1e", "kl_div", "log_ndtr", "log_softmax",
           "loggamma", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "owens_t", "poch",
           "polygamma", "rel_entr", "sici", "softmax", "spence", "sph_harm_y", "wofz", "xlog1py",
           "xlogy", "zeta"]


def _inexact_unary(name, lax_fn, doc):
    """A function that is one lax function of x made inexact (JAX writes each out)."""
    def fn(x):
        x, = promote_args_inexact(name, x)
        return lax_fn(x)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


gammaln = _inexact_unary("gammaln", lax.lgamma, "log |Gamma(x)|.")
digamma = _inexact_unary("digamma", lax.digamma, "d/dx log Gamma(x).")
erf = _inexact_unary("erf", lax.erf, "The error function.")
erfc = _inexact_unary("erfc", lax.erfc, "1 - erf(x), accurate for large x.")
erfinv = _inexact_unary("erfinv", lax.erf_inv, "The inverse of erf.")
expit = _inexact_unary("expit", lax.logistic, "The logistic sigmoid 1 / (1 + exp(-x)).")


@custom_jvp
def logit(x):
    """log(x / (1 - x)), the inverse of expit."""
    x, = promote_args_inexact("logit", x)
    return lax.log(lax.div(x, lax.sub(_const(x, 1), x)))


logit.defjvps(lambda g, ans, x: lax.div(g, lax.mul(x, lax.sub(_const(x, 1), x))))


def _x_times_log(name, log_fn, y_term, doc):
    """x * log_fn(y) with 0 where x == 0 (unless y is NaN), and its JVP, where
    y_term(x, y, y_dot) is y's part of the tangent, x * log_fn'(y) * y_dot, as JAX writes it."""
    def fn(x, y):
        x, y = promote_args_inexact(name, x, y)
        x_ok = x != 0.0
        return jnp.where(x_ok | jnp.isnan(y), lax.mul(x, log_fn(y)), jnp.zeros_like(x))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn = custom_jvp(fn)

    @fn.defjvp
    def _jvp(primals, tangents):
        (x, y), (x_dot, y_dot) = primals, tangents
        result = fn(x, y)
        return result, (x_dot * log_fn(y) + y_term(x, y, y_dot)).astype(result.dtype)
    _jvp.__name__ = _jvp.__qualname__ = f"_{name}_jvp"
    return fn


xlogy = _x_times_log("xlogy", lax.log, lambda x, y, y_dot: y_dot * x / y,
                     """x * log(y), with 0 where x == 0 (unless y is NaN).

    >>> xlogy(0.0, 0.0)
    Array(0., dtype=float32, weak_type=True)
    """)
xlog1py = _x_times_log("xlog1py", lax.log1p, lambda x, y, y_dot: y_dot * x / (1 + y),
                       "x * log1p(y), with 0 where x == 0 (unless y is NaN).")


@custom_jvp
def _xlogx(x):
    return xlogy(x, x)


@_xlogx.defjvp
def _xlogx_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    return _xlogx(x), x_dot * (lax.log(x) + 1)


def _boxcox_of_log(log_x, lmbda):
    """(x^lmbda - 1) / lmbda from log x, as expm1(lmbda log x) / lmbda (exact for lmbda near
    0), and log x at lmbda = 0; the where's other side divides by 1, so no NaN reaches a
    gradient."""
    at_zero = lmbda == 0
    safe = jnp.where(at_zero, jnp.ones_like(lmbda), lmbda)
    return jnp.where(at_zero, log_x, jnp.expm1(safe * log_x) / safe)


def boxcox(x, lmbda):
    """The Box-Cox transform: (x^lmbda - 1) / lmbda, or log x where lmbda is 0.

    >>> boxcox(jnp.array([1.0, 4.0]), 0.5)
    Array([0., 2.], dtype=float32)
    """
    x, lmbda = promote_args_inexact("boxcox", x, lmbda)
    return _boxcox_of_log(jnp.log(x), lmbda)


def boxcox1p(x, lmbda):
    """boxcox(1 + x, lmbda), exact for small x (through log1p)."""
    x, lmbda = promote_args_inexact("boxcox1p", x, lmbda)
    return _boxcox_of_log(jnp.log1p(x), lmbda)


def entr(x):
    """-x log x for x >= 0, -inf for x < 0."""
    x, = promote_args_inexact("entr", x)
    check_real("entr", x)
    return lax.select(lax.lt(x, _const(x, 0)), numpy_util.full_like(x, -np.inf),
                      lax.neg(_xlogx(x)))


def rel_entr(p, q):
    """p log(p / q) elementwise (0 where p == 0 <= q, inf otherwise off the domain)."""
    p, q = promote_args_inexact("rel_entr", p, q)
    check_real("rel_entr", p)
    zero = _const(p, 0.0)
    both_gt_zero = lax.bitwise_and(lax.gt(p, zero), lax.gt(q, zero))
    one_zero = lax.bitwise_and(lax.eq(p, zero), lax.ge(q, zero))
    safe_p = jnp.where(both_gt_zero, p, 1)
    safe_q = jnp.where(both_gt_zero, q, 1)
    log_val = lax.sub(_xlogx(safe_p), xlogy(safe_p, safe_q))
    return jnp.where(both_gt_zero, log_val, jnp.where(one_zero, zero, np.inf))


def kl_div(p, q):
    """p log(p / q) - p + q elementwise."""
    p, q = promote_args_inexact("kl_div", p, q)
    check_real("kl_div", p)
    return rel_entr(p, q) - p + q


# Cephes' rational approximation of the dilogarithm on [-0.5, 0.5]: spence(1 - w) ~
# -w P(w) / Q(w), with these coefficients (highest power first)
_SPENCE_P = (4.65128586073990045278E-5, 7.31589045238094711071E-3, 1.33847639578309018650E-1,
             8.79691311754530315341E-1, 2.71149851196553469920E0, 4.25697156008121755724E0,
             3.29771340985225106936E0, 1.00000000000000000126E0)
_SPENCE_Q = (6.90990488912553276999E-4, 2.54043763932544379113E-2, 2.82974860602568089943E-1,
             1.41172597751831069617E0, 3.63800533345137075418E0, 5.03278880143316990390E0,
             3.54771340985225096217E0, 9.99999999999999998740E-1)


def _spence(x):
    """Cephes' algorithm: the argument folded into [0.5, 1.5] (x > 2 by 1/x, x > 1.5 through
    1/x - 1, x < 0.5 through the reflection spence(x) = pi^2/6 - log(x) log(1-x) -
    spence(1-x)), the rational approximation, and the folds undone."""
    inverted = x > 2.0
    x = jnp.where(inverted, 1.0 / x, x)
    above, below = x > 1.5, x < 0.5
    w = jnp.where(above, 1.0 / x - 1.0, jnp.where(below, -x, x - 1.0))
    y = -w * jnp.polyval(jnp.array(_SPENCE_P, x.dtype), w) / \
        jnp.polyval(jnp.array(_SPENCE_Q, x.dtype), w)
    # (1 - x is 1 where the reflection is not used: JAX 0.10.2 takes the log of 1 - x < 0
    # there, and its NaN times a zero cotangent makes the gradient NaN for 1 < x <= 2)
    reflected = jnp.log(x) * jnp.log(jnp.where(below, 1.0 - x, 1.0))
    y = jnp.where(below, np.pi ** 2 / 6.0 - reflected - y, y)
    return jnp.where(inverted | above, -0.5 * jnp.log(x) ** 2 - y, y)


def spence(x):
    """Spence's function (scipy's), the dilogarithm for real x >= 0:
    spence(x) = integral from 1 to x of log(t) / (1 - t) dt; NaN for x < 0.

    >>> spence(jnp.array([0.0, 1.0, 2.0]))
    Array([ 1.644934  ,  0.        , -0.82246685], dtype=float32)
    """
    x = jnp.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={x.dtype} is not supported, see docstring for supported "
                        f"types.")
    # piecewise (a switch per element, as JAX's): the cases' own branch alone is
    # differentiated, so the formula's infinite slope at x = 1 makes no NaN gradient there
    return jnp.piecewise(x, [x < 0.0, x == 1.0, x == 0.0], [np.nan, 0, np.pi ** 2 / 6, _spence])


def ndtr(x):
    """The standard normal CDF (float32/float64 inputs)."""
    x = jnp.asarray(x)
    dtype = x.dtype
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={dtype} is not supported, see docstring for supported types.")
    return _ndtr(x)


def softmax(x, /, *, axis=None):
    """jax.scipy.special.softmax: jax.nn.softmax, over all axes by default (SciPy's and
    JAX's default; jax.nn's is the last axis)."""
    return nn_softmax(x, axis=axis)


def log_softmax(x, /, *, axis=None):
    """jax.scipy.special.log_softmax: jax.nn.log_softmax, over all axes by default."""
    return nn_log_softmax(x, axis=axis)


# the rest of the family lives in files by idea; this module is the public face
from ._expint import exp1, expi, expn
from ._gamma import (
    bernoulli,
    beta,
    betainc,
    betaln,
    comb,
    factorial,
    gamma,
    gammainc,
    gammaincc,
    gammasgn,
    loggamma,
    multigammaln,
    poch,
    polygamma,
    zeta,
)
from ._normal import (
    _ndtr,
    bessel_jn,
    dawsn,
    erfcx,
    i0,
    i0e,
    i1,
    i1e,
    log_ndtr,
    ndtri,
    owens_t,
    wofz,
)
from ._trig_integrals import fresnel, sici
from ._hypergeometric import hyp1f1, hyp2f1
from ._legendre import sph_harm_y
