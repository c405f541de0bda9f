"""The pure-JAX iterative algorithms of jax.scipy.linalg: polar (by lax.linalg.qdwh, the
QR-based dynamically weighted Halley iteration, or by an SVD) and eigh_tridiagonal's
eigenvalues (bisection on Sturm sequence counts); JAX 0.10.2's steps.

    >>> u, p = polar(jnp.array([[2., 0.], [0., -3.]]))
    >>> u
    Array([[ 1.,  0.],
           [ 0., -1.]], dtype=float32)
"""
from __future__ import annotations

import functools

import numpy as np

from ..transforms.jit.namesakes import jax_jitted
from .. import lax
from .. import numpy as jnp
from .. import random as jax_random
from ..core import dtypes
from ..lax import linalg as lax_linalg
from ..numpy.util import jnp_jit


@functools.partial(jnp_jit, static_argnames=("side", "method"))
def _polar_2d(a, side, method, eps, max_iterations):
    m, n = a.shape
    if method == "qdwh":
        # lax.linalg's qdwh, as JAX's polar calls it (its iteration count and flag dropped)
        if m >= n and side == "right":
            unitary, posdef, _, _ = lax_linalg.qdwh(a, is_hermitian=False, eps=eps)
        elif m < n and side == "left":
            unitary, posdef, _, _ = lax_linalg.qdwh(a.T.conj(), is_hermitian=False, eps=eps)
            unitary, posdef = unitary.T.conj(), posdef.T.conj()
        else:
            raise NotImplementedError(f"method='qdwh' only supports mxn matrices where m < n "
                                      f"where side='right' and m >= n side='left', got "
                                      f"{a.shape} with side={side!r}")
    elif method == "svd":
        u, s, vh = lax_linalg.svd(a, full_matrices=False)
        s = s.astype(u.dtype)
        unitary = u @ vh
        posdef = (vh.T.conj() * s[None, :] @ vh if side == "right"
                  else u * s[None, :] @ u.T.conj())
    else:
        raise ValueError(f"Unknown polar decomposition method {method}.")
    return unitary, posdef


@jax_jitted
@jnp_jit(static_argnames=("side", "method"))
def polar(a, side: str = "right", *, method: str = "qdwh", eps=None, max_iterations=None):
    """(u, p) with a = u @ p (side='right') or a = p @ u ('left'): u unitary (orthonormal
    columns) and p Hermitian positive semidefinite; method 'qdwh' (default) or 'svd'."""
    arr = jnp.asarray(a)
    if arr.ndim < 2:
        raise ValueError("The input `a` must be at least a 2-D array.")
    if side not in ["right", "left"]:
        raise ValueError("The argument `side` must be either 'right' or 'left'.")
    sig = "(m,n)->(m,n),(n,n)" if side == "right" else "(m,n)->(m,n),(m,m)"
    return jnp.vectorize(functools.partial(_polar_2d, side=side, method=method, eps=eps,
                                           max_iterations=max_iterations), signature=sig)(arr)


# ------------------------------------------------------------------ eigh_tridiagonal
def _sturm_count(alpha, beta_sq, pivmin, alpha0_perturbation, x):
    """How many eigenvalues of the tridiagonal matrix lie below each x: the negative pivots
    of the LDL^T factorization of T - x (16 steps per while-loop iteration, as JAX)."""
    n = alpha.shape[0]
    zeros, ones = jnp.zeros(x.shape, dtype=np.int32), jnp.ones(x.shape, dtype=np.int32)
    q = alpha[0] - x
    count = jnp.where(q < 0, ones, zeros)
    q = jnp.where(alpha[0] == x, alpha0_perturbation, q)

    def steps(start, q, count, num):
        for j in range(num):
            q = alpha[start + j] - beta_sq[start + j - 1] / q - x
            count = jnp.where(q <= pivmin, count + 1, count)
            q = jnp.where(q <= pivmin, jnp.minimum(q, -pivmin), q)
        return start + num, q, count

    blocksize = 16
    i, q, count = steps(1, q, count, (n - 1) % blocksize)
    _, _, count = lax.while_loop(lambda s: jnp.less(s[0], n),
                                 lambda s: steps(*s, blocksize), (i, q, count))
    return count


@jax_jitted
@jnp_jit(static_argnames=("eigvals_only", "select", "select_range"))
def eigh_tridiagonal(d, e, *, eigvals_only: bool = False, select: str = "a",
                     select_range=None, tol=None, key=None):
    """The eigenvalues (ascending) of the Hermitian tridiagonal matrix with diagonal d and
    off-diagonal e, by bisection; select='i' with select_range=(lo, hi) picks indices lo..hi.
    Unless eigvals_only, also the eigenvectors (as columns), by inverse iteration from random
    vectors (`key`, default key(42) as JAX's).

    >>> eigh_tridiagonal(jnp.array([2., 2.]), jnp.array([1.]), eigvals_only=True)
    Array([0.9999999, 3.       ], dtype=float32)
    """
    if not eigvals_only and key is None:
        key = jax_random.key(42)
    alpha, beta = jnp.asarray(d), jnp.asarray(e)
    if alpha.dtype != beta.dtype:
        raise TypeError(f"diagonal and off-diagonal values must have same dtype, got "
                        f"{alpha.dtype} and {beta.dtype}")
    supported = (np.float32, np.float64, np.complex64, np.complex128)
    if alpha.dtype not in supported or beta.dtype not in supported:
        raise TypeError(f"Only float32 and float64 inputs are supported as inputs to "
                        f"jax.scipy.linalg.eigh_tridiagonal, got {alpha.dtype} and "
                        f"{beta.dtype}")
    n = alpha.shape[0]
    if n <= 1:
        return jnp.real(alpha) if eigvals_only else (jnp.real(alpha), jnp.eye(n, dtype=alpha.dtype))
    if dtypes.issubdtype(alpha.dtype, np.complexfloating):
        alpha = jnp.real(alpha)
        beta_sq = jnp.real(beta * jnp.conj(beta))
        beta_abs = jnp.sqrt(beta_sq)
    else:
        beta_abs, beta_sq = jnp.abs(beta), jnp.square(beta)
    # Gershgorin bounds on the spectrum
    row_sum = jnp.concatenate([beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]],
                              axis=0)
    lambda_max = jnp.amax(alpha + row_sum)
    lambda_min = jnp.amin(alpha - row_sum)
    t_norm = jnp.maximum(jnp.abs(lambda_min), jnp.abs(lambda_max))
    finfo = dtypes.finfo(alpha.dtype)
    one = np.ones([], dtype=alpha.dtype)
    safemin = np.maximum(one / finfo.max, (one + finfo.eps) * finfo.tiny)
    pivmin = safemin * jnp.maximum(1, jnp.amax(beta_sq))
    alpha0_perturbation = jnp.square(finfo.eps * beta_abs[0])
    abs_tol = finfo.eps * t_norm
    if tol is not None:
        abs_tol = jnp.maximum(tol, abs_tol)
    max_it = finfo.nmant + 1
    if select == "a":
        targets = jnp.arange(n, dtype=np.int32)
    elif select == "i":
        if select_range is None:
            raise ValueError("for select='i', select_range must be specified.")
        if select_range[0] > select_range[1]:
            raise ValueError("Got empty index range in select_range.")
        targets = jnp.arange(select_range[0], select_range[1] + 1, dtype=np.int32)
    elif select == "v":
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
    else:
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
    fudge = 2.1
    slack = jnp.array(n, alpha.dtype) * fudge * finfo.eps * t_norm
    shape = np.shape(targets)
    lower = jnp.broadcast_to(lambda_min - slack - 2 * fudge * pivmin, shape=shape)
    upper = jnp.broadcast_to(lambda_max + slack + fudge * pivmin, shape=shape)
    mid = 0.5 * (upper + lower)
    pivmin = jnp.broadcast_to(pivmin, shape)
    alpha0_perturbation = jnp.broadcast_to(alpha0_perturbation, shape)

    def cond(state):
        i, lower, _, upper = state
        return jnp.logical_and(jnp.less(i, max_it), jnp.less(abs_tol, jnp.amax(upper - lower)))

    def body(state):
        i, lower, mid, upper = state
        counts = _sturm_count(alpha, beta_sq, pivmin, alpha0_perturbation, mid)
        lower = jnp.where(counts <= targets, mid, lower)
        upper = jnp.where(counts > targets, mid, upper)
        return i + 1, lower, 0.5 * (lower + upper), upper

    _, _, mid, _ = lax.while_loop(cond, body, (0, lower, mid, upper))
    if eigvals_only:
        return mid
    return mid, _eigenvectors(alpha, beta, mid, key).T


def _eigenvectors(alpha, beta, eigvals, key):
    """Inverse iteration for the eigenvectors (rows) of eigenvalues `eigvals` (ascending), all
    at once: each step solves (T - eigval I) x = v with a tridiagonal solver (perturbed where
    singular), normalizes, and makes the vectors of each cluster of close eigenvalues
    orthonormal by a QR; until the norms stop growing by 10% (at most 5 steps, LAPACK's
    xSTEIN). JAX 0.10.2's steps."""
    n, k = alpha.shape[0], eigvals.shape[0]
    dl, du = jnp.pad(jnp.conj(beta), (1, 0)), jnp.pad(beta, (0, 1))
    gap = eigvals[1:] - eigvals[:-1]
    gaptol = np.sqrt(dtypes.finfo(eigvals.dtype).eps) * jnp.maximum(jnp.abs(eigvals[0]),
                                                                 jnp.abs(eigvals[-1]))
    close = gap < gaptol                 # runs of close eigenvalues: their vectors' clusters
    left, right = jnp.pad(close, (1, 0)), jnp.pad(close, (0, 1))
    max_clusters = k // 2 + 1
    starts = jnp.nonzero(jnp.logical_and(jnp.logical_not(left), right), size=max_clusters)[0]
    ends = jnp.nonzero(jnp.logical_and(left, jnp.logical_not(right)), size=max_clusters)[0] + 1
    num_clusters = jnp.sum(jnp.logical_and(jnp.logical_not(left), right))
    arange_k = jnp.arange(k)
    solve_dtype = np.result_type(alpha.dtype, beta.dtype)
    v = jax_random.normal(key, (k, n), dtype=dtypes.finfo(solve_dtype).dtype).astype(solve_dtype)
    v = v / jnp.linalg.norm(v, axis=-1, keepdims=True).astype(solve_dtype)

    def orthogonalize_cluster(i, ev):
        start, end = starts[i], ends[i]
        padded = lax.dynamic_slice(jnp.pad(ev, ((0, k), (0, 0))), (start, 0), (k, n))
        mask = (arange_k < end - start).astype(ev.dtype)
        q, _ = jnp.linalg.qr((padded * mask[:, None]).T)
        update = lax.dynamic_update_slice(jnp.zeros((2 * k, n), dtype=ev.dtype),
                                          q.T * mask[:, None], (start, 0))[:k, :]
        inside = (arange_k >= start) & (arange_k < end)
        return jnp.where(inside[:, None], update, ev)

    shifted = (alpha[None, :] - eigvals[:, None]).astype(solve_dtype)
    dl_k = jnp.broadcast_to(dl[None, :], (k, n)).astype(solve_dtype)
    du_k = jnp.broadcast_to(du[None, :], (k, n)).astype(solve_dtype)

    def step(state):
        i, v, norm, _ = state
        new = jnp.squeeze(lax_linalg.tridiagonal_solve(dl_k, shifted, du_k,
                                                       v[:, :, None].astype(solve_dtype),
                                                       perturb_singular=True), axis=-1)
        new_norm = jnp.linalg.norm(new, axis=-1, keepdims=True)
        new = new / new_norm.astype(new.dtype)
        new = lax.fori_loop(0, num_clusters, orthogonalize_cluster, new)
        return i + 1, new, jnp.squeeze(new_norm, axis=-1), norm

    def growing(state):
        i, _, norm, old = state
        return jnp.logical_and(i < 5, jnp.any(norm >= 1.1 * old))

    _, v, _, _ = lax.while_loop(growing, step, (0, v, jnp.ones(k, dtype=eigvals.dtype),
                                                jnp.zeros(k, dtype=eigvals.dtype)))
    return v
