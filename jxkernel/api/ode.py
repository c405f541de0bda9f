"""jax.experimental.ode: `odeint`, adaptive Dormand–Prince (RK45) integration with the
step-size control of JAX 0.10.2, differentiable by the adjoint method (a custom_vjp that
integrates the augmented system backwards in time).

    >>> ys = odeint(lambda y, t, k: -k * y, 1.0, jnp.linspace(0., 1., 4), 2.0)
    >>> jnp.round(ys, 4)
    Array([1.    , 0.5134, 0.2636, 0.1353], dtype=float32)
"""
import functools
import operator

import numpy as np

from .. import lax
from .. import numpy as jnp
from .config_states import default_matmul_precision
from .flatten_util import ravel_pytree
from ..core.avals import valid_jaxtype
from ..numpy.util import promote_dtypes_inexact
from ..transforms.ad import vjp
from ..transforms.batching import vmap
from ..transforms.custom_derivatives import custom_vjp
from ..transforms.custom_gradient import closure_convert
from ..transforms.jit import jit
from ..tree_util import tree_leaves, tree_map

__all__ = ["odeint"]

# The Dormand–Prince 5(4) tableau: stage times, stage weights, the 5th-order solution's
# weights, and the difference of the 5th- and 4th-order weights (the error estimate).
_ALPHA = [1 / 5, 3 / 10, 4 / 5, 8 / 9, 1., 1., 0]
_BETA = [[1 / 5, 0, 0, 0, 0, 0, 0],
         [3 / 40, 9 / 40, 0, 0, 0, 0, 0],
         [44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0],
         [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0],
         [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0],
         [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]]
_C_SOL = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]
_C_ERROR = [35 / 384 - 1951 / 21600, 0, 500 / 1113 - 22642 / 50085, 125 / 192 - 451 / 720,
            -2187 / 6784 - -12231 / 42400, 11 / 84 - 649 / 6300, -1. / 60.]
# the midpoint's weights, for the dense-output polynomial of each step
_C_MID = [6025192743 / 30085553152 / 2, 0, 51252292925 / 65400821598 / 2,
          -2691868925 / 45128329728 / 2, 187940372067 / 1594534317056 / 2,
          -1776094331 / 19743644256 / 2, 11237099 / 235043384 / 2]


def odeint(func, y0, t, *args, rtol=1.4e-8, atol=1.4e-8, mxstep=np.inf, hmax=np.inf):
    """The solution of dy/dt = func(y, t, *args) from y(t[0]) = y0, at each time of `t`
    (strictly increasing floats): `y0`'s structure with a leading axis of len(t).
    `rtol`/`atol` bound each step's local error, `mxstep` the steps between two outputs,
    `hmax` the step size.

        >>> def decay(y, t, k):
        ...     return -k * y
        >>> round(float(odeint(decay, 1.0, jnp.linspace(0., 1., 4), 2.0)[-1]), 6)  # exp(-2)
        0.135335
    """
    for arg in tree_leaves(args):
        if not valid_jaxtype(arg):
            raise TypeError(
                f"The contents of odeint *args must be arrays or scalars, but got {arg}.")
    t_dtype = getattr(t, "dtype", None)
    if t_dtype is None or not jnp.issubdtype(t_dtype, jnp.floating):
        raise TypeError(f"t must be an array of floats, but got {t}.")
    converted, consts = closure_convert(func, y0, t[0], *args)
    return _odeint_wrapper(converted, rtol, atol, mxstep, hmax, y0, t, *args, *consts)


@functools.partial(jit, static_argnums=(0, 1, 2, 3, 4))
@default_matmul_precision("highest")
def _odeint_wrapper(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    y0_flat, unravel = ravel_pytree(y0)
    flat_func = _ravel_first_arg(func, unravel)
    return vmap(unravel)(_odeint(flat_func, rtol, atol, mxstep, hmax, y0_flat, ts, *args))


def _ravel_first_arg(func, unravel):
    """`func` on a flat state vector, giving a flat derivative vector."""
    def flat_func(y_flat, *args):
        return ravel_pytree(func(unravel(y_flat), *args))[0]
    return flat_func


@functools.partial(custom_vjp, nondiff_argnums=(0, 1, 2, 3, 4))
@default_matmul_precision("highest")
def _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    deriv = lambda y, t: func(y, t, *args)
    f0 = deriv(y0, ts[0])
    dt = jnp.clip(_initial_step_size(deriv, ts[0], y0, 4, rtol, atol, f0), min=0., max=hmax)
    init = [y0, f0, ts[0], dt, ts[0], jnp.array([y0] * 5)]
    advance = functools.partial(_advance_to, deriv, rtol, atol, mxstep, hmax)
    _, ys = lax.scan(advance, init, ts[1:])
    return jnp.concatenate((y0[None], ys))


def _advance_to(deriv, rtol, atol, mxstep, hmax, carry, target_t):
    """Steps until `target_t` is passed, then the state there from the last step's
    interpolating polynomial."""
    def more(state):
        i, _, _, t, dt, _, _ = state
        return (t < target_t) & (i < mxstep) & (dt > 0)

    def attempt(state):
        i, y, f, t, dt, last_t, coeffs = state
        next_y, next_f, error, k = _runge_kutta_step(deriv, y, f, t, dt)
        next_t = t + dt
        ratio = _mean_error_ratio(error, rtol, atol, y, next_y)
        next_coeffs = _interp_fit_dopri(y, next_y, k, dt)
        dt = jnp.clip(_optimal_step_size(dt, ratio), min=0., max=hmax)
        accepted = [i + 1, next_y, next_f, next_t, dt, t, next_coeffs]
        rejected = [i + 1, y, f, t, dt, last_t, coeffs]
        return [jnp.where(ratio <= 1., a, r) for a, r in zip(accepted, rejected)]

    _, *carry = lax.while_loop(more, attempt, [0] + carry)
    _, _, t, _, last_t, coeffs = carry
    fraction = (target_t - last_t) / (t - last_t)
    return carry, jnp.polyval(coeffs, fraction.astype(coeffs.dtype))


def _runge_kutta_step(deriv, y0, f0, t0, dt):
    """One Dormand–Prince step: (5th-order y1, its derivative, error estimate, stages)."""
    alpha = jnp.array(_ALPHA, dtype=dt.dtype)
    beta = jnp.array(_BETA, dtype=f0.dtype)
    dt_y = dt.astype(f0.dtype)

    def stage(i, k):
        yi = y0 + dt_y * jnp.dot(beta[i - 1, :], k)
        return k.at[i, :].set(deriv(yi, t0 + dt * alpha[i - 1]))

    k = jnp.zeros((7, f0.shape[0]), f0.dtype).at[0, :].set(f0)
    k = lax.fori_loop(1, 7, stage, k)
    y1 = dt_y * jnp.dot(jnp.array(_C_SOL, dtype=f0.dtype), k) + y0
    error = dt_y * jnp.dot(jnp.array(_C_ERROR, dtype=f0.dtype), k)
    return y1, k[-1], error, k


def _interp_fit_dopri(y0, y1, k, dt):
    """Coefficients of the quartic through the step (value and slope at both ends, and
    the Dormand–Prince midpoint), in the step's fraction, for jnp.polyval."""
    y_mid = y0 + dt.astype(y0.dtype) * jnp.dot(jnp.array(_C_MID, dtype=y0.dtype), k)
    return jnp.asarray(_fit_quartic(y0, y1, y_mid, k[0], k[-1], dt))


def _fit_quartic(y0, y1, y_mid, dy0, dy1, dt):
    dt = dt.astype(y0.dtype)
    a = -2. * dt * dy0 + 2. * dt * dy1 - 8. * y0 - 8. * y1 + 16. * y_mid
    b = 5. * dt * dy0 - 3. * dt * dy1 + 18. * y0 + 14. * y1 - 32. * y_mid
    c = -4. * dt * dy0 + dt * dy1 - 11. * y0 - 5. * y1 + 16. * y_mid
    return a, b, c, dt * dy0, y0


def _initial_step_size(deriv, t0, y0, order, rtol, atol, f0):
    """The first step's size (Hairer, Nørsett & Wanner, Solving ODEs I, sec. II.4)."""
    y0, f0 = promote_dtypes_inexact(y0, f0)
    dtype = y0.dtype
    scale = (atol + jnp.abs(y0) * rtol).astype(dtype)
    d0, d1 = jnp.linalg.norm(y0 / scale), jnp.linalg.norm(f0 / scale)
    h0 = jnp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
    f1 = deriv(y0 + h0.astype(dtype) * f0, t0 + h0)
    d2 = jnp.linalg.norm((f1 - f0) / scale) / h0
    h1 = jnp.where((d1 <= 1e-15) & (d2 <= 1e-15), jnp.maximum(1e-6, h0 * 1e-3),
                   (0.01 / jnp.maximum(d1, d2)) ** (1. / (order + 1.)))
    return jnp.minimum(100. * h0, h1)


def _mean_error_ratio(error, rtol, atol, y0, y1):
    """The RMS of the error over each component's tolerance: a step is accepted at <= 1."""
    tolerance = atol + rtol * jnp.maximum(jnp.abs(y0), jnp.abs(y1))
    ratio = error / tolerance.astype(error.dtype)
    return jnp.sqrt(jnp.mean(_abs2(ratio)))


def _abs2(x):
    return x.real ** 2 + x.imag ** 2 if jnp.iscomplexobj(x) else x ** 2


def _optimal_step_size(last_step, error_ratio, safety=0.9, ifactor=10.0, dfactor=0.2,
                       order=5.0):
    """The next step: scaled by safety·ratio^(-1/order), within [dfactor, ifactor] (no
    shrinking after an accepted step)."""
    dfactor = jnp.where(error_ratio < 1, 1.0, dfactor)
    factor = jnp.minimum(ifactor, jnp.maximum(error_ratio ** (-1.0 / order) * safety, dfactor))
    return jnp.where(error_ratio == 0, last_step * ifactor, last_step * factor)


def _odeint_fwd(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    ys = _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args)
    return ys, (ys, ts, args)


@default_matmul_precision("highest")
def _odeint_rev(func, rtol, atol, mxstep, hmax, residuals, g):
    """The adjoint method (Chen et al. 2018, appendix C): between each pair of output
    times, integrate (y, y_bar, t0_bar, args_bar) backwards, adding each output's cotangent."""
    ys, ts, args = residuals

    def augmented(state, minus_t, *args):
        # time runs backwards here: the solver sees -t, increasing
        y, y_bar, *_ = state
        y_dot, pullback = vjp(func, y, -minus_t, *args)
        return (-y_dot, *pullback(y_bar))

    def back_one_interval(carry, i):
        y_bar, t0_bar, args_bar = carry
        t_bar = jnp.dot(func(ys[i], ts[i], *args), g[i]).real    # moving the output time
        t0_bar = t0_bar - t_bar
        _, y_bar, t0_bar, args_bar = odeint(
            augmented, (ys[i], y_bar, t0_bar, args_bar), jnp.array([-ts[i], -ts[i - 1]]),
            *args, rtol=rtol, atol=atol, mxstep=mxstep, hmax=hmax)
        y_bar, t0_bar, args_bar = tree_map(operator.itemgetter(1), (y_bar, t0_bar, args_bar))
        return (y_bar + g[i - 1], t0_bar, args_bar), t_bar

    init = (g[-1], 0., tree_map(jnp.zeros_like, args))
    (y_bar, t0_bar, args_bar), rev_ts_bar = lax.scan(
        back_one_interval, init, jnp.arange(len(ts) - 1, 0, -1))
    ts_bar = jnp.concatenate([jnp.array([t0_bar]), rev_ts_bar[::-1]])
    return (y_bar, ts_bar, *args_bar)


_odeint.defvjp(_odeint_fwd, _odeint_rev)
