"""L-BFGS (Nocedal & Wright, algorithm 7.5; complex variables as Sorber et al. 2012): BFGS
with the inverse Hessian kept implicitly as the last `maxcor` steps and gradient changes,
applied by the two-loop recursion."""
from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...core.avals import get_aval
from ...transforms.ad import value_and_grad
from ._line_search import line_search

_dot = functools.partial(jnp.dot, precision=lax.Precision.HIGHEST)


class LBFGSResults(NamedTuple):
    """As BFGS's results, with the history (s, y, rho, gamma) in place of H; status:
    0 nominal, 1 max iterations, 2 max function evaluations, 3 max gradient evaluations,
    4 insufficient progress (ftol), 5 line search failed."""
    converged: object
    failed: object
    k: object
    nfev: object
    ngev: object
    x_k: object
    f_k: object
    g_k: object
    s_history: object
    y_history: object
    rho_history: object
    gamma: object
    status: object
    ls_status: object


def _minimize_lbfgs(fun, x0, maxiter=None, norm=np.inf, maxcor=10, ftol=2.220446049250313e-09,
                    gtol=1e-05, maxfun=None, maxgrad=None, maxls=20):
    """Minimize `fun` from `x0` by L-BFGS (JAX's experimental method)."""
    d = get_aval(x0).shape[0]
    dtype = get_aval(x0).dtype
    if maxiter is None and maxfun is None and maxgrad is None:
        maxiter = d * 200               # at least one limit must hold
    maxiter = np.inf if maxiter is None else maxiter
    maxfun = np.inf if maxfun is None else maxfun
    maxgrad = np.inf if maxgrad is None else maxgrad
    f_0, g_0 = value_and_grad(fun)(x0)
    state = LBFGSResults(
        converged=jnp.array(False, dtype=bool), failed=jnp.array(False, dtype=bool), k=0,
        nfev=1, ngev=1, x_k=x0, f_k=f_0, g_k=g_0,
        s_history=jnp.zeros((maxcor, d), dtype=dtype),
        y_history=jnp.zeros((maxcor, d), dtype=dtype),
        rho_history=jnp.zeros((maxcor,), dtype=dtype), gamma=1., status=0, ls_status=0)

    def body_fun(state):
        p_k = _two_loop_recursion(state)
        ls = line_search(f=fun, xk=state.x_k, pk=p_k, old_fval=state.f_k, gfk=state.g_k,
                         maxiter=maxls)
        s_k = jnp.asarray(ls.a_k).astype(get_aval(p_k).dtype) * p_k
        x_kp1 = state.x_k + s_k
        y_k = ls.g_k - state.g_k
        rho_k_inv = jnp.real(_dot(y_k, s_k))
        rho_k = jnp.reciprocal(rho_k_inv).astype(get_aval(y_k).dtype)
        gamma = rho_k_inv / jnp.real(_dot(jnp.conj(y_k), y_k))
        status = jnp.array(0)
        status = jnp.where(state.f_k - ls.f_k < ftol, 4, status)
        status = jnp.where(state.ngev >= maxgrad, 3, status)
        status = jnp.where(state.nfev >= maxfun, 2, status)
        status = jnp.where(state.k >= maxiter, 1, status)
        status = jnp.where(ls.failed, 5, status)
        converged = jnp.linalg.norm(ls.g_k, ord=norm) < gtol
        return state._replace(
            converged=converged, failed=(status > 0) & (~converged), k=state.k + 1,
            nfev=state.nfev + ls.nfev, ngev=state.ngev + ls.ngev,
            x_k=x_kp1.astype(get_aval(state.x_k).dtype),
            f_k=ls.f_k.astype(get_aval(state.f_k).dtype),
            g_k=ls.g_k.astype(get_aval(state.g_k).dtype),
            s_history=_push(state.s_history, s_k), y_history=_push(state.y_history, y_k),
            rho_history=_push(state.rho_history, rho_k),
            gamma=gamma.astype(get_aval(state.g_k).dtype),
            status=jnp.where(converged, 0, status), ls_status=ls.status)

    return lax.while_loop(lambda s: (~s.converged) & (~s.failed), body_fun, state)


def _two_loop_recursion(state):
    """-H g with H the L-BFGS inverse Hessian of the stored history."""
    dtype = get_aval(state.rho_history).dtype
    his_size = get_aval(state.rho_history).shape[0]
    curr_size = jnp.where(state.k < his_size, state.k, his_size)
    q = -jnp.conj(state.g_k)
    a_his = jnp.zeros_like(state.rho_history)

    def body_fun1(j, carry):
        i = his_size - 1 - j
        q, a_his = carry
        a_i = state.rho_history[i] * jnp.real(_dot(jnp.conj(state.s_history[i]), q)).astype(dtype)
        return q - a_i * jnp.conj(state.y_history[i]), a_his.at[i].set(a_i)

    q, a_his = lax.fori_loop(0, curr_size, body_fun1, (q, a_his))
    q = state.gamma * q

    def body_fun2(j, q):
        i = his_size - curr_size + j
        b_i = state.rho_history[i] * jnp.real(_dot(state.y_history[i], q)).astype(dtype)
        return q + (a_his[i] - b_i) * state.s_history[i]

    return lax.fori_loop(0, curr_size, body_fun2, q)


def _push(history, new):
    """The history with its oldest entry dropped and `new` appended."""
    return jnp.roll(history, -1, axis=0).at[-1].set(new)
