"""Iterative solvers of A x = b (jax.scipy.sparse.linalg): cg, gmres, bicgstab.

    >>> x, info = jax.scipy.sparse.linalg.cg(lambda v: a @ v, b)

A is a function (or a square matrix, or anything with `@`), b any pytree of arrays.
Each solver is a `lax.while_loop` wrapped in `lax.custom_linear_solve`, so derivatives
are found by another solve with the same method (implicit differentiation), never by
differentiating the iterations. The algorithms, tolerances and defaults are JAX's
(scipy's "non-legacy" tolerance: stop when |r| <= max(tol |b|, atol)).
"""
from __future__ import annotations

import functools
import operator

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...core import dtypes
from ...core.avals import get_aval
from ...lax.conversion import _convert_element_type
from ...tree_util import tree_leaves, tree_map, tree_reduce, tree_structure

__all__ = ["bicgstab", "cg", "gmres"]

_HIGHEST = lax.Precision.HIGHEST
_dot = functools.partial(jnp.dot, precision=_HIGHEST)
_vdot = functools.partial(jnp.vdot, precision=_HIGHEST)
_einsum = functools.partial(jnp.einsum, precision=_HIGHEST)


# ------------------------------------------------------------------ pytree vector algebra
def _vdot_real_part(x, y):
    """Re(x^H y) without the cross terms: real even for complex inputs (z^H M z is real for
    the Hermitian positive definite M that cg works with)."""
    out = _vdot(jnp.real(x), jnp.real(y))
    if jnp.iscomplexobj(x) or jnp.iscomplexobj(y):
        out = out + _vdot(jnp.imag(x), jnp.imag(y))
    return out


def _vdot_real_tree(x, y):
    return sum(tree_leaves(tree_map(_vdot_real_part, x, y)))


def _vdot_tree(x, y):
    return sum(tree_leaves(tree_map(_vdot, x, y)))


def _norm(x):
    leaves = tree_leaves(x)
    return jnp.sqrt(sum(map(_vdot_real_part, leaves, leaves)))


def _mul(scalar, tree):
    return tree_map(functools.partial(operator.mul, scalar), tree)


_add = functools.partial(tree_map, operator.add)
_sub = functools.partial(tree_map, operator.sub)


def _identity(x):
    return x


def _is_array(x):
    return isinstance(x, np.ndarray) or hasattr(x, "aval")


def _normalize_matvec(f):
    """A function computing the matrix-vector product, from a function or a square matrix."""
    if callable(f):
        return f
    if _is_array(f):
        shape = get_aval(f).shape
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(f"linear operator must be a square matrix, but has shape: {shape}")
        return functools.partial(_dot, f)
    if hasattr(f, "__matmul__"):
        if hasattr(f, "shape") and (len(f.shape) != 2 or f.shape[0] != f.shape[1]):
            raise ValueError(f"linear operator must be a square matrix, but has shape: "
                             f"{f.shape}")
        return functools.partial(operator.matmul, f)
    raise TypeError(f"linear operator must be either a function or ndarray: {f}")


def _dtype_of(tree):
    return dtypes.result_type(*tree_leaves(tree))[0]


def _size(tree):
    return sum(int(np.prod(get_aval(x).shape)) for x in tree_leaves(tree))


def _shapes(tree):
    return [get_aval(x).shape for x in tree_leaves(tree)]


def _as_arrays(tree):
    return tree_map(jnp.asarray, tree)


# ------------------------------------------------------------------ cg
def _cg_solve(A, b, x0=None, *, maxiter, tol=1e-5, atol=0.0, M=_identity):
    atol2 = jnp.maximum(jnp.square(tol) * _vdot_real_tree(b, b), jnp.square(atol))

    def cond_fun(value):
        _, r, gamma, _, k = value
        rs = jnp.real(gamma) if M is _identity else _vdot_real_tree(r, r)
        return (rs > atol2) & (k < maxiter)

    def body_fun(value):
        x, r, gamma, p, k = value
        ap = A(p)
        alpha = gamma / _vdot_real_tree(p, ap).astype(dtype)
        x_ = _add(x, _mul(alpha, p))
        r_ = _sub(r, _mul(alpha, ap))
        z_ = M(r_)
        gamma_ = _vdot_real_tree(r_, z_).astype(dtype)
        beta_ = gamma_ / gamma
        p_ = _add(z_, _mul(beta_, p))
        return x_, r_, gamma_, p_, k + 1

    r0 = _sub(b, A(x0))
    p0 = z0 = M(r0)
    dtype = _dtype_of(p0)
    gamma0 = _vdot_real_tree(r0, z0).astype(dtype)
    x_final, *_ = lax.while_loop(cond_fun, body_fun, (x0, r0, gamma0, p0, 0))
    return x_final


# ------------------------------------------------------------------ bicgstab
def _bicgstab_solve(A, b, x0=None, *, maxiter, tol=1e-5, atol=0.0, M=_identity):
    atol2 = jnp.maximum(jnp.square(tol) * _vdot_real_tree(b, b), jnp.square(atol))

    def cond_fun(value):
        _, r, *_, k = value
        # k < 0 flags a breakdown (rho, alpha or omega became zero)
        return (_vdot_real_tree(r, r) > atol2) & (k < maxiter) & (k >= 0)

    def body_fun(value):
        x, r, rhat, alpha, omega, rho, p, q, k = value
        rho_ = _vdot_tree(rhat, r)
        beta = rho_ / rho * alpha / omega
        p_ = _add(r, _mul(beta, _sub(p, _mul(omega, q))))
        phat = M(p_)
        q_ = A(phat)
        alpha_ = rho_ / _vdot_tree(rhat, q_)
        s = _sub(r, _mul(alpha_, q_))
        exit_early = _vdot_real_tree(s, s) < atol2
        shat = M(s)
        t = A(shat)
        omega_ = _vdot_tree(t, s) / _vdot_tree(t, t)
        where = functools.partial(jnp.where, exit_early)
        x_ = tree_map(where, _add(x, _mul(alpha_, phat)),
                      _add(x, _add(_mul(alpha_, phat), _mul(omega_, shat))))
        r_ = tree_map(where, s, _sub(s, _mul(omega_, t)))
        k_ = jnp.where((omega_ == 0) | (alpha_ == 0), -11, k + 1)
        k_ = jnp.where(rho_ == 0, -10, k_)
        return x_, r_, rhat, alpha_, omega_, rho_, p_, q_, k_

    r0 = _sub(b, A(x0))
    one = _convert_element_type(1, *dtypes.result_type(*tree_leaves(b)))
    init = (x0, r0, r0, one, one, one, r0, r0, 0)
    x_final, *_ = lax.while_loop(cond_fun, body_fun, init)
    return x_final


def _isolve(solve, A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None,
            check_symmetric=False):
    if x0 is None:
        x0 = tree_map(jnp.zeros_like, b)
    b, x0 = _as_arrays((b, x0))
    if maxiter is None:
        maxiter = 10 * _size(b)          # scipy's default
    A = _normalize_matvec(A)
    M = _identity if M is None else _normalize_matvec(M)
    if tree_structure(x0) != tree_structure(b):
        raise ValueError(f"x0 and b must have matching tree structure: {tree_structure(x0)} vs "
                         f"{tree_structure(b)}")
    if _shapes(x0) != _shapes(b):
        raise ValueError(f"arrays in x0 and b must have matching shapes: {_shapes(x0)} vs "
                         f"{_shapes(b)}")
    isolve = functools.partial(solve, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)
    # a real positive definite operator is symmetric, so its transpose solve is the solve
    symmetric = check_symmetric and all(not jnp.iscomplexobj(x) for x in tree_leaves(b))
    x = lax.custom_linear_solve(A, b, solve=isolve, transpose_solve=isolve, symmetric=symmetric)
    return x, None


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Solve A x = b by conjugate gradients (A Hermitian positive definite); returns (x, None).

    A is a function v -> A v (or a square matrix); b, x0 any pytree of arrays; M a
    preconditioner approximating A^-1. Stops when |r| <= max(tol |b|, atol) or after
    `maxiter` steps (default 10 * size of b). Derivatives: another cg solve.

    >>> a = jnp.array([[4., 1.], [1., 3.]])
    >>> cg(lambda v: a @ v, jnp.array([1., 2.]))[0]
    Array([0.09090909, 0.6363636 ], dtype=float32)
    """
    return _isolve(_cg_solve, A=A, b=b, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M,
                   check_symmetric=True)


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Solve A x = b by BiCGSTAB (A any nonsingular operator); returns (x, None).

    Arguments as for `cg`. Derivatives: another bicgstab solve with the transposed operator.

    >>> a = jnp.array([[4., 1.], [2., 3.]])
    >>> bicgstab(lambda v: a @ v, jnp.array([6., 8.]))[0]
    Array([1., 2.], dtype=float32)
    """
    return _isolve(_bicgstab_solve, A=A, b=b, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)


# ------------------------------------------------------------------ gmres
def _safe_normalize(x, thresh=None):
    """(x / |x|, |x|), or (0, 0) where |x| is below `thresh` (default: machine epsilon)."""
    norm = _norm(x)
    dtype, weak = dtypes.result_type(*tree_leaves(x))
    if thresh is None:
        thresh = dtypes.finfo(get_aval(norm).dtype).eps
    thresh = jnp.real(jnp.asarray(thresh).astype(dtype))
    use_norm = norm > thresh
    norm_cast = _convert_element_type(norm, dtype, weak)
    normalized = tree_map(lambda y: jnp.where(use_norm, y / norm_cast, 0.0), x)
    return normalized, jnp.where(use_norm, norm, 0.0)


def _project_on_columns(Q, v):
    """Q^H v, Q's columns along the last axis of each leaf."""
    parts = tree_map(lambda X, y: _einsum("...n,...->n", jnp.conj(X), y), Q, v)
    return tree_reduce(operator.add, parts)


def _iterative_classical_gram_schmidt(Q, x, xnorm, max_iterations=2):
    """(q, r): x made orthonormal to Q's columns (q), and its overlaps with them (r).
    Classical Gram-Schmidt repeated ("twice is enough") while |r| is not small."""
    q0 = tree_leaves(Q)[0]
    r = jnp.zeros(get_aval(q0).shape[-1], dtype=get_aval(q0).dtype)
    xnorm_scaled = xnorm / jnp.sqrt(2.0)

    def body_function(carry):
        k, q, r, qnorm_scaled = carry
        h = _project_on_columns(Q, q)
        q = _sub(q, tree_map(lambda X: _dot(X, h), Q))
        r = _add(r, h)

        def qnorm_cond(c):
            k, not_done, _, _ = c
            return jnp.logical_and(not_done, k < (max_iterations - 1))

        def qnorm(c):
            k, _, q, _ = c
            _, qn = _safe_normalize(q)
            return k, False, q, qn / jnp.sqrt(2.0)

        _, _, q, qnorm_scaled = lax.while_loop(qnorm_cond, qnorm, (k, True, q, qnorm_scaled))
        return k + 1, q, r, qnorm_scaled

    def cond_function(carry):
        k, _, r, qnorm_scaled = carry
        _, rnorm = _safe_normalize(r)
        return jnp.logical_and(k < (max_iterations - 1), rnorm < qnorm_scaled)

    carry = body_function((0, x, r, xnorm_scaled))
    _, q, r, _ = lax.while_loop(cond_function, body_function, carry)
    return q, r


def _kth_arnoldi_iteration(k, A, M, V, H):
    """Step k of Arnoldi: the new Krylov vector M A V[:, k], orthonormalized, goes to column
    k + 1 of V and its overlaps to row k of H; a vector below eps is an invariant subspace
    (breakdown) and is taken as zero."""
    dtype, _ = dtypes.result_type(*tree_leaves(V))
    eps = dtypes.finfo(dtype).eps
    v = M(A(tree_map(lambda X: X[..., k], V)))
    _, v_norm_0 = _safe_normalize(v)
    v, h = _iterative_classical_gram_schmidt(V, v, v_norm_0, max_iterations=2)
    unit_v, v_norm_1 = _safe_normalize(v, thresh=eps * v_norm_0)
    V = tree_map(lambda X, y: X.at[..., k + 1].set(y), V, unit_v)
    h = h.at[k + 1].set(v_norm_1.astype(dtype))
    H = H.at[k, :].set(h)
    return V, H, v_norm_1 == 0.


def _rotate_vectors(H, i, cs, sn):
    x1, y1 = H[i], H[i + 1]
    H = H.at[i].set(jnp.conj(cs) * x1 - jnp.conj(sn) * y1)
    return H.at[i + 1].set(sn * x1 + cs * y1)


def _givens_rotation(a, b):
    b_zero = abs(b) == 0
    a_lt_b = abs(a) < abs(b)
    t = -jnp.where(a_lt_b, a, b) / jnp.where(a_lt_b, b, a)
    r = lax.rsqrt(1 + abs(t) ** 2).astype(get_aval(t).dtype)
    cs = jnp.where(b_zero, 1, jnp.where(a_lt_b, r * t, r))
    sn = jnp.where(b_zero, 0, jnp.where(a_lt_b, r, r * t))
    return cs, sn


def _apply_givens_rotations(H_row, givens, k):
    """H_row with the k stored rotations applied, then a new one zeroing element k + 1."""
    R_row = lax.fori_loop(0, k, lambda i, row: _rotate_vectors(row, i, *givens[i, :]), H_row)
    factors = _givens_rotation(R_row[k], R_row[k + 1])
    givens = givens.at[k, :].set(jnp.array(factors))
    return _rotate_vectors(R_row, k, *factors), givens


def _krylov_basis(unit_residual, restart):
    return tree_map(lambda x: jnp.pad(x[..., None], ((0, 0),) * x.ndim + ((0, restart),)),
                    unit_residual)


def _gmres_incremental(A, b, x0, unit_residual, residual_norm, ptol, restart, M):
    """One restart of GMRES, building the QR factors of the Hessenberg matrix by Givens
    rotations as the Arnoldi process goes (so it can stop early at ptol)."""
    V = _krylov_basis(unit_residual, restart)
    dtype = _dtype_of(b)
    R = jnp.eye(restart, restart + 1, dtype=dtype)   # eye: stays nonsingular if we stop early
    givens = jnp.zeros((restart, 2), dtype=dtype)
    beta_vec = jnp.zeros((restart + 1), dtype=dtype).at[0].set(residual_norm.astype(dtype))

    def loop_cond(carry):
        k, err, _, _, _, _ = carry
        return jnp.logical_and(k < restart, err > ptol)

    def arnoldi_qr_step(carry):
        k, _, V, R, beta_vec, givens = carry
        V, H, _ = _kth_arnoldi_iteration(k, A, M, V, R)
        R_row, givens = _apply_givens_rotations(H[k, :], givens, k)
        R = R.at[k, :].set(R_row)
        beta_vec = _rotate_vectors(beta_vec, k, *givens[k, :])
        return k + 1, abs(beta_vec[k + 1]), V, R, beta_vec, givens

    carry = lax.while_loop(loop_cond, arnoldi_qr_step,
                           (0, residual_norm, V, R, beta_vec, givens))
    _, _, V, R, beta_vec, _ = carry
    y = lax.linalg.triangular_solve(R[:, :-1].T, beta_vec[:-1], left_side=True, lower=False)
    x = _add(x0, tree_map(lambda X: _dot(X[..., :-1], y), V))
    residual = M(_sub(b, A(x)))
    unit_residual, residual_norm = _safe_normalize(residual)
    return x, unit_residual, residual_norm


def _solve_positive_definite(a, b):
    # scipy's solve(assume_a='pos') as JAX computes it: Cholesky of the upper triangle
    lower = lax.linalg.cholesky(jnp.conj(a.T), symmetrize_input=False)
    c = jnp.conj(lower.T)
    y = lax.linalg.triangular_solve(c, b, left_side=True, lower=False, transpose_a=True,
                                    conjugate_a=True)
    return lax.linalg.triangular_solve(c, y, left_side=True, lower=False)


def _gmres_batched(A, b, x0, unit_residual, residual_norm, ptol, restart, M):
    """One restart of GMRES that builds the whole Krylov basis, then solves the small
    least-squares problem by its normal equations (no early exit; cheaper on accelerators)."""
    del ptol
    V = _krylov_basis(unit_residual, restart)
    dtype, weak = dtypes.result_type(*tree_leaves(b))
    H = _convert_element_type(jnp.eye(restart, restart + 1, dtype=dtype), dtype, weak)

    def loop_cond(carry):
        _, _, breakdown, k = carry
        return jnp.logical_and(k < restart, jnp.logical_not(breakdown))

    def arnoldi_process(carry):
        V, H, _, k = carry
        V, H, breakdown = _kth_arnoldi_iteration(k, A, M, V, H)
        return V, H, breakdown, k + 1

    V, H, _, _ = lax.while_loop(loop_cond, arnoldi_process, (V, H, False, 0))
    beta_vec = jnp.zeros_like(H, shape=(restart + 1,)).at[0].set(residual_norm.astype(dtype))
    ht = H.T
    y = _solve_positive_definite(_dot(jnp.conj(ht.T), ht), _dot(jnp.conj(ht.T), beta_vec))
    x = _add(x0, tree_map(lambda X: _dot(X[..., :-1], y), V))
    residual = M(_sub(b, A(x)))
    unit_residual, residual_norm = _safe_normalize(residual)
    return x, unit_residual, residual_norm


def _gmres_solve(A, b, x0, atol, ptol, restart, maxiter, M, gmres_func):
    """Restart GMRES (each restart projecting onto a fresh Krylov space from the current x)
    until |residual| <= atol or `maxiter` restarts."""
    unit_residual, residual_norm = _safe_normalize(M(_sub(b, A(x0))))

    def cond_fun(value):
        _, k, _, residual_norm = value
        return jnp.logical_and(k < maxiter, residual_norm > atol)

    def body_fun(value):
        x, k, unit_residual, residual_norm = value
        x, unit_residual, residual_norm = gmres_func(A, b, x, unit_residual, residual_norm,
                                                     ptol, restart, M)
        return x, k + 1, unit_residual, residual_norm

    x_final, *_ = lax.while_loop(cond_fun, body_fun, (x0, 0, unit_residual, residual_norm))
    return x_final


def gmres(A, b, x0=None, *, tol=1e-5, atol=0.0, restart=20, maxiter=None, M=None,
          solve_method="batched"):
    """Solve A x = b by restarted GMRES (A any nonsingular operator); returns (x, info), info
    -1 if x came out NaN, else 0.

    `restart` is the Krylov space size per restart, `maxiter` the number of restarts
    (default 10 * size of b); `solve_method` 'batched' solves each restart's least squares
    at its end, 'incremental' by Givens rotations as it goes (and may stop early).

    >>> a = jnp.array([[4., 1.], [2., 3.]])
    >>> x, info = gmres(a, jnp.array([6., 8.]), solve_method="incremental")
    >>> jnp.round(x, 3), info
    (Array([1., 2.], dtype=float32), Array(0, dtype=int32, weak_type=True))
    """
    if x0 is None:
        x0 = tree_map(jnp.zeros_like, b)
    M = _identity if M is None else _normalize_matvec(M)
    A = _normalize_matvec(A)
    b, x0 = _as_arrays((b, x0))
    size = _size(b)
    if maxiter is None:
        maxiter = 10 * size
    restart = min(restart, size)
    if tree_structure(x0) != tree_structure(b):
        raise ValueError(f"x0 and b must have matching tree structure: {tree_structure(x0)} vs "
                         f"{tree_structure(b)}")
    b_norm = _norm(b)
    atol = jnp.maximum(tol * b_norm, atol)
    ptol = _norm(M(b)) * jnp.minimum(1.0, atol / b_norm)
    if solve_method == "incremental":
        gmres_func = _gmres_incremental
    elif solve_method == "batched":
        gmres_func = _gmres_batched
    else:
        raise ValueError(f"invalid solve_method {solve_method}, must be either 'incremental' or "
                         f"'batched'")

    def _solve(A, b):
        return _gmres_solve(A, b, x0, atol, ptol, restart, maxiter, M, gmres_func)
    x = lax.custom_linear_solve(A, b, solve=_solve, transpose_solve=_solve)
    info = jnp.where(jnp.isnan(_norm(x)), -1, 0)
    return x, info
