"""Inexact line search for the strong Wolfe conditions (Nocedal & Wright, algorithms 3.5
and 3.6), written with while loops and selects so that it traces once and runs under jit.
It is JAX's line search: the same trial steps, interpolations and limits."""
from __future__ import annotations

import functools
from typing import NamedTuple

from ... import lax
from ... import numpy as jnp
from ...core import dtypes
from ...core.avals import get_aval
from ...numpy.util import promote_dtypes_inexact
from ...transforms.ad import value_and_grad

_dot = functools.partial(jnp.dot, precision=lax.Precision.HIGHEST)


def _dtype(x):
    return get_aval(x).dtype


def _cubicmin(a, fa, fpa, b, fb, c, fc):
    """Minimizer of the cubic through (a, fa) with slope fpa at a, (b, fb) and (c, fc)."""
    dtype = dtypes.result_type(a, fa, fpa, b, fb, c, fc)[0]
    C = fpa
    db = b - a
    dc = c - a
    denom = (db * dc) ** 2 * (db - dc)
    d1 = jnp.array([[dc ** 2, -db ** 2], [-dc ** 3, db ** 3]], dtype=dtype)
    d2 = jnp.array([fb - fa - C * db, fc - fa - C * dc], dtype=dtype)
    A, B = _dot(d1, d2) / denom
    radical = B * B - 3. * A * C
    return a + (-B + jnp.sqrt(radical)) / (3. * A)


def _quadmin(a, fa, fpa, b, fb):
    """Minimizer of the quadratic through (a, fa) with slope fpa at a and (b, fb)."""
    db = b - a
    B = (fb - fa - fpa * db) / (db ** 2)
    return a - fpa / (2. * B)


def _binary_replace(replace_bit, original, new, keys=None):
    keys = new.keys() if keys is None else keys
    return {k: jnp.where(replace_bit, new[k], original[k]) for k in keys}


class _ZoomState(NamedTuple):
    done: object
    failed: object
    j: object
    a_lo: object
    phi_lo: object
    dphi_lo: object
    a_hi: object
    phi_hi: object
    dphi_hi: object
    a_rec: object
    phi_rec: object
    a_star: object
    phi_star: object
    dphi_star: object
    g_star: object
    nfev: object
    ngev: object


def _zoom(restricted_func_and_grad, wolfe_one, wolfe_two, a_lo, phi_lo, dphi_lo, a_hi, phi_hi,
          dphi_hi, g_0, pass_through):
    """Shrink [a_lo, a_hi] (cubic, else quadratic, else bisection step) until a step meets
    the strong Wolfe conditions; does nothing where `pass_through`."""
    state = _ZoomState(done=False, failed=False, j=0, a_lo=a_lo, phi_lo=phi_lo, dphi_lo=dphi_lo,
                       a_hi=a_hi, phi_hi=phi_hi, dphi_hi=dphi_hi, a_rec=(a_lo + a_hi) / 2.,
                       phi_rec=(phi_lo + phi_hi) / 2., a_star=1., phi_star=phi_lo,
                       dphi_star=dphi_lo, g_star=g_0, nfev=0, ngev=0)
    delta1, delta2 = 0.2, 0.1

    def body(state):
        # selects rather than lax.cond: every branch is cheap, and selects batch well
        dalpha = state.a_hi - state.a_lo
        a = jnp.minimum(state.a_hi, state.a_lo)
        b = jnp.maximum(state.a_hi, state.a_lo)
        cchk, qchk = delta1 * dalpha, delta2 * dalpha
        # an interval this small means no Wolfe point was found: the search fails
        threshold = jnp.where(dtypes.finfo(_dtype(dalpha)).bits < 64, 1e-5, 1e-10)
        state = state._replace(failed=state.failed | (dalpha <= threshold))

        a_j_cubic = _cubicmin(state.a_lo, state.phi_lo, state.dphi_lo, state.a_hi, state.phi_hi,
                              state.a_rec, state.phi_rec)
        use_cubic = (state.j > 0) & (a_j_cubic > a + cchk) & (a_j_cubic < b - cchk)
        a_j_quad = _quadmin(state.a_lo, state.phi_lo, state.dphi_lo, state.a_hi, state.phi_hi)
        use_quad = (~use_cubic) & (a_j_quad > a + qchk) & (a_j_quad < b - qchk)
        use_bisection = (~use_cubic) & (~use_quad)
        a_j = jnp.where(use_cubic, a_j_cubic, state.a_rec)
        a_j = jnp.where(use_quad, a_j_quad, a_j)
        a_j = jnp.where(use_bisection, (state.a_lo + state.a_hi) / 2., a_j)

        phi_j, dphi_j, g_j = restricted_func_and_grad(a_j)
        phi_j = phi_j.astype(_dtype(state.phi_lo))
        dphi_j = dphi_j.astype(_dtype(state.dphi_lo))
        g_j = g_j.astype(_dtype(state.g_star))
        state = state._replace(nfev=state.nfev + 1, ngev=state.ngev + 1)

        hi_to_j = wolfe_one(a_j, phi_j) | (phi_j >= state.phi_lo)
        star_to_j = wolfe_two(dphi_j) & (~hi_to_j)
        hi_to_lo = (dphi_j * (state.a_hi - state.a_lo) >= 0.) & (~hi_to_j) & (~star_to_j)
        lo_to_j = (~hi_to_j) & (~star_to_j)

        state = state._replace(**_binary_replace(hi_to_j, state._asdict(), {
            "a_hi": a_j, "phi_hi": phi_j, "dphi_hi": dphi_j, "a_rec": state.a_hi,
            "phi_rec": state.phi_hi}))
        state = state._replace(done=star_to_j | state.done, **_binary_replace(
            star_to_j, state._asdict(),
            {"a_star": a_j, "phi_star": phi_j, "dphi_star": dphi_j, "g_star": g_j}))
        state = state._replace(**_binary_replace(hi_to_lo, state._asdict(), {
            "a_hi": state.a_lo, "phi_hi": state.phi_lo, "dphi_hi": state.dphi_lo,
            "a_rec": state.a_hi, "phi_rec": state.phi_hi}))
        state = state._replace(**_binary_replace(lo_to_j & ~hi_to_lo, state._asdict(),
                                                 {"a_rec": state.a_lo, "phi_rec": state.phi_lo}))
        state = state._replace(**_binary_replace(lo_to_j, state._asdict(),
                                                 {"a_lo": a_j, "phi_lo": phi_j, "dphi_lo": dphi_j}))
        state = state._replace(j=state.j + 1)
        # a higher cap than scipy's 10: JAX's search needs more steps to reach the same point
        return state._replace(failed=state.failed | (state.j >= 30))

    return lax.while_loop(lambda s: (~s.done) & (~pass_through) & (~s.failed), body, state)


class _LineSearchState(NamedTuple):
    done: object
    failed: object
    i: object
    a_i1: object
    phi_i1: object
    dphi_i1: object
    nfev: object
    ngev: object
    a_star: object
    phi_star: object
    dphi_star: object
    g_star: object


class _LineSearchResults(NamedTuple):
    """failed: the strong Wolfe conditions were not met; nit: iterations; nfev/ngev: function
    and gradient evaluations; k: the last iteration index; a_k: the step; f_k/g_k: value and
    gradient there; status: 0 passed, 1 zoom failed, 3 maxiter reached."""
    failed: object
    nit: object
    nfev: object
    ngev: object
    k: object
    a_k: object
    f_k: object
    g_k: object
    status: object


def line_search(f, xk, pk, old_fval=None, old_old_fval=None, gfk=None, c1=1e-4, c2=0.9,
                maxiter=20):
    """A step a along descent direction `pk` from `xk` with the strong Wolfe conditions:
    sufficient decrease (c1) and curvature (c2). `old_fval`/`gfk` are f and its gradient at
    xk if known; `old_old_fval` (the previous f) picks the first trial step.

    >>> line_search(lambda x: jnp.sum(x ** 2), jnp.ones(2), -jnp.ones(2)).a_k
    Array(1., dtype=float32)
    """
    xk, pk = promote_dtypes_inexact(xk, pk)

    def restricted_func_and_grad(t):
        t = jnp.array(t, dtype=_dtype(pk))
        phi, g = value_and_grad(f)(xk + t * pk)
        return phi, jnp.real(_dot(g, pk)), g

    if old_fval is None or gfk is None:
        phi_0, dphi_0, gfk = restricted_func_and_grad(0)
    else:
        phi_0 = old_fval
        dphi_0 = jnp.real(_dot(gfk, pk))
    if old_old_fval is not None:
        candidate = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
        start_value = jnp.where(candidate > 1, 1.0, candidate)
    else:
        start_value = 1

    def wolfe_one(a_i, phi_i):          # sufficient decrease fails
        return phi_i > phi_0 + c1 * a_i * dphi_0

    def wolfe_two(dphi_i):              # curvature holds
        return jnp.abs(dphi_i) <= -c2 * dphi_0

    fresh = old_fval is None or gfk is None
    state = _LineSearchState(
        done=jnp.array(False, dtype=bool), failed=jnp.array(False, dtype=bool),
        # the search starts at i = 1 as in Nocedal & Wright (scipy starts at 0)
        i=1, a_i1=0., phi_i1=phi_0, dphi_i1=dphi_0, nfev=1 if fresh else 0,
        ngev=1 if fresh else 0, a_star=0., phi_star=phi_0, dphi_star=dphi_0, g_star=gfk)

    def body(state):
        # no amax: the trial step doubles each time, as in scipy
        a_i = jnp.where(state.i == 1, start_value, state.a_i1 * 2.)
        phi_i, dphi_i, g_i = restricted_func_and_grad(a_i)
        state = state._replace(nfev=state.nfev + 1, ngev=state.ngev + 1)

        star_to_zoom1 = wolfe_one(a_i, phi_i) | ((phi_i >= state.phi_i1) & (state.i > 1))
        star_to_i = wolfe_two(dphi_i) & (~star_to_zoom1)
        star_to_zoom2 = (dphi_i >= 0.) & (~star_to_zoom1) & (~star_to_i)

        zoom1 = _zoom(restricted_func_and_grad, wolfe_one, wolfe_two, state.a_i1, state.phi_i1,
                      state.dphi_i1, a_i, phi_i, dphi_i, gfk, ~star_to_zoom1)
        state = state._replace(nfev=state.nfev + zoom1.nfev, ngev=state.ngev + zoom1.ngev)
        zoom2 = _zoom(restricted_func_and_grad, wolfe_one, wolfe_two, a_i, phi_i, dphi_i,
                      state.a_i1, state.phi_i1, state.dphi_i1, gfk, ~star_to_zoom2)
        state = state._replace(nfev=state.nfev + zoom2.nfev, ngev=state.ngev + zoom2.ngev)

        keys = ["a_star", "phi_star", "dphi_star", "g_star"]
        state = state._replace(
            done=star_to_zoom1 | state.done, failed=(star_to_zoom1 & zoom1.failed) | state.failed,
            **_binary_replace(star_to_zoom1, state._asdict(), zoom1._asdict(), keys=keys))
        state = state._replace(done=star_to_i | state.done, **_binary_replace(
            star_to_i, state._asdict(),
            {"a_star": a_i, "phi_star": phi_i, "dphi_star": dphi_i, "g_star": g_i}))
        state = state._replace(
            done=star_to_zoom2 | state.done, failed=(star_to_zoom2 & zoom2.failed) | state.failed,
            **_binary_replace(star_to_zoom2, state._asdict(), zoom2._asdict(), keys=keys))
        return state._replace(i=state.i + 1, a_i1=a_i, phi_i1=phi_i, dphi_i1=dphi_i)

    state = lax.while_loop(lambda s: (~s.done) & (s.i <= maxiter) & (~s.failed), body, state)
    status = jnp.where(state.failed, jnp.array(1),
                       jnp.where(state.i > maxiter, jnp.array(3), jnp.array(0)))
    # below 64 bits a tiny step would leave the minimizer stuck: floor its size at 1e-8
    alpha_k = jnp.asarray(state.a_star)
    alpha_k = jnp.where((dtypes.finfo(_dtype(alpha_k)).bits != 64) & (jnp.abs(alpha_k) < 1e-8),
                        jnp.sign(alpha_k) * 1e-8, alpha_k)
    return _LineSearchResults(failed=state.failed | (~state.done), nit=state.i - 1,
                              nfev=state.nfev, ngev=state.ngev, k=state.i, a_k=alpha_k,
                              f_k=state.phi_star, g_k=state.g_star, status=status)
