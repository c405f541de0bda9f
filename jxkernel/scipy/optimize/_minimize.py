"""minimize: scipy.optimize.minimize's interface over JAX's BFGS (and experimental L-BFGS)."""
from __future__ import annotations

from typing import NamedTuple

from ... import numpy as jnp
from ._bfgs import minimize_bfgs
from ._lbfgs import _minimize_lbfgs


class OptimizeResults(NamedTuple):
    """What `minimize` found.

    x: the solution; success: converged without a line search failure; status: 0
    converged, 1 max BFGS iterations, 3 zoom failed, 4 saddle point, 5 max line search
    iterations, -1 undefined; fun, jac: value and gradient at x; hess_inv: the inverse
    Hessian estimate (None for L-BFGS); nfev, njev: function and gradient evaluations;
    nit: iterations.
    """
    x: object
    success: object
    status: object
    fun: object
    jac: object
    hess_inv: object
    nfev: object
    njev: object
    nit: object


def minimize(fun, x0, args=(), *, method, tol=None, options=None):
    """Minimize `fun(x, *args)` (x a 1-D array, result a real scalar) from `x0`, as
    scipy.optimize.minimize. `method` is required: 'BFGS' (or the experimental
    'l-bfgs-experimental-do-not-rely-on-this'). Gradients come from autodiff; `options`
    go to the solver (maxiter, gtol, norm, line_search_maxiter for BFGS). Works under jit.

    >>> res = minimize(lambda x: jnp.sum((x - 1.) ** 2), jnp.zeros(2), method="BFGS")
    >>> res.x
    Array([1., 1.], dtype=float32)
    """
    options = {} if options is None else options
    if not isinstance(args, tuple):
        raise TypeError(f"args argument to jax.scipy.optimize.minimize must be a tuple, got "
                        f"{args}")

    def fun_with_args(x):
        return fun(x, *args)

    if method.lower() == "bfgs":
        r = minimize_bfgs(fun_with_args, x0, **options)
        return OptimizeResults(x=r.x_k, success=r.converged & jnp.logical_not(r.failed),
                               status=r.status, fun=r.f_k, jac=r.g_k, hess_inv=r.H_k,
                               nfev=r.nfev, njev=r.ngev, nit=r.k)
    if method.lower() == "l-bfgs-experimental-do-not-rely-on-this":
        r = _minimize_lbfgs(fun_with_args, x0, **options)
        return OptimizeResults(x=r.x_k, success=r.converged & jnp.logical_not(r.failed),
                               status=r.status, fun=r.f_k, jac=r.g_k, hess_inv=None,
                               nfev=r.nfev, njev=r.ngev, nit=r.k)
    raise ValueError(f"Method {method} not recognized")
