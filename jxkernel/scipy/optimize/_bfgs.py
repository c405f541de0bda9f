"""BFGS (Nocedal & Wright, algorithm 6.1) as one while loop: a quasi-Newton step along
-H g, a strong-Wolfe line search, then the rank-two update of the inverse Hessian H."""
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
_einsum = functools.partial(jnp.einsum, precision=lax.Precision.HIGHEST)


class _BFGSResults(NamedTuple):
    """converged: |g| < gtol; failed: the line search failed; k: iterations; nfev, ngev,
    nhev: function, gradient, Hessian evaluations; x_k, f_k, g_k: the last point, value and
    gradient; H_k: the inverse Hessian estimate; status: 0 converged, 1 maxiter reached,
    2 + the line search's status where it failed, -1 otherwise."""
    converged: object
    failed: object
    k: object
    nfev: object
    ngev: object
    nhev: object
    x_k: object
    f_k: object
    g_k: object
    H_k: object
    old_old_fval: object
    status: object
    line_search_status: object


def minimize_bfgs(fun, x0, maxiter=None, norm=np.inf, gtol=1e-5, line_search_maxiter=10):
    """Minimize `fun` (flat array -> real scalar) from `x0` by BFGS; stops when the `norm`
    of the gradient is below `gtol`, after `maxiter` steps (default 200 * size) or when a
    line search fails."""
    if maxiter is None:
        maxiter = np.size(x0) * 200
    d = get_aval(x0).shape[0]
    dtype = get_aval(x0).dtype
    f_0, g_0 = value_and_grad(fun)(x0)
    state = _BFGSResults(
        converged=jnp.linalg.norm(g_0, ord=norm) < gtol, failed=False, k=0, nfev=1, ngev=1,
        nhev=0, x_k=x0, f_k=f_0, g_k=g_0, H_k=jnp.eye(d, dtype=dtype),
        old_old_fval=f_0 + jnp.linalg.norm(g_0) / 2, status=0, line_search_status=0)

    def cond_fun(state):
        return jnp.logical_not(state.converged) & jnp.logical_not(state.failed) & \
            (state.k < maxiter)

    def body_fun(state):
        p_k = -_dot(state.H_k, state.g_k)
        ls = line_search(fun, state.x_k, p_k, old_fval=state.f_k,
                         old_old_fval=state.old_old_fval, gfk=state.g_k,
                         maxiter=line_search_maxiter)
        state = state._replace(nfev=state.nfev + ls.nfev, ngev=state.ngev + ls.ngev,
                               failed=ls.failed, line_search_status=ls.status)
        s_k = ls.a_k * p_k
        x_kp1 = state.x_k + s_k
        y_k = ls.g_k - state.g_k
        rho_k = jnp.reciprocal(_dot(y_k, s_k))
        sy_k = s_k[:, np.newaxis] * y_k[np.newaxis, :]
        w = jnp.eye(d, dtype=get_aval(rho_k).dtype) - rho_k * sy_k
        H_kp1 = _einsum("ij,jk,lk", w, state.H_k, w) + \
            rho_k * s_k[:, np.newaxis] * s_k[np.newaxis, :]
        # no curvature information (y.s = 0): keep the old estimate
        H_kp1 = jnp.where(jnp.isfinite(rho_k), H_kp1, state.H_k)
        return state._replace(converged=jnp.linalg.norm(ls.g_k, ord=norm) < gtol,
                              k=state.k + 1, x_k=x_kp1, f_k=ls.f_k, g_k=ls.g_k, H_k=H_kp1,
                              old_old_fval=state.f_k)

    state = lax.while_loop(cond_fun, body_fun, state)
    status = jnp.where(state.converged, 0,
                       jnp.where(state.k == maxiter, 1,
                                 jnp.where(state.failed, 2 + state.line_search_status, -1)))
    return state._replace(status=status)
