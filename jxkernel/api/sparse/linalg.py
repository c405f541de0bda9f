"""jax.experimental.sparse.linalg: `lobpcg_standard`, the top-k eigenpairs of a symmetric
matrix (or of a function applying one) by LOBPCG, and `spsolve`, a direct solve of a CSR
system. JAX 0.10.2 runs `spsolve` on CPU as a host callback to `scipy.sparse.linalg.spsolve`
(cuSOLVER's QR on CUDA); jxkernel's primitive does the same on every platform.

    >>> A = jnp.diag(jnp.arange(1., 11.))
    >>> theta, U, i = lobpcg_standard(A, jnp.ones((10, 1)))
    >>> round(float(theta[0]), 3)
    10.0
"""
from __future__ import annotations

import functools

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...core.avals import ShapeDtypeStruct, ShapedArray
from ...core.basearray import Array
from ...core.primitive import (Primitive, abstract_eval_rules, lowering_rules, numpy_rules,
                               transpose_rules)
from ...lax import _lowering as hl
from ...lax.callbacks import pure_callback
from ...transforms import ad_util as ad
from ...transforms.jit import jit
from .csr import csr_matvec_p

try:        # optional (Pyodide may lack it): only spsolve needs it, as JAX's CPU path
    import scipy.sparse
    import scipy.sparse.linalg
except ImportError:
    scipy = None

__all__ = ["lobpcg_standard", "spsolve"]


# ------------------------------------------------------------------ lobpcg_standard
def lobpcg_standard(A, X, m: int = 100, tol=None):
    """Compute the top-k standard eigenvalues using the LOBPCG routine.

    `A`: an (n, n) symmetric (Hermitian) array, or a function applying one to an (n, j)
    array. `X`: (n, k) starting directions (orthonormalized here; need not be orthogonal
    but must be independent), with 0 < 5 k < n. `m`: the most iterations. `tol`: an
    eigenpair (lambda, v) has converged when |A v - lambda v| < tol * 10 n (lambda + |A v|);
    None means the dtype's epsilon. Returns `(theta, U, i)`: the k largest eigenvalues, in
    descending order, their eigenvectors as columns of U, and the iterations run. Only the
    largest eigenvalues, no preconditioner, no gradient (as JAX 0.10.2's).
    """
    if isinstance(A, (Array, np.ndarray)):
        return _lobpcg_standard_matrix(A, X, m, tol)
    return _lobpcg_standard_callable(A, X, m, tol)


@functools.partial(jit, static_argnames=["m", "debug"])
def _lobpcg_standard_matrix(A, X, m, tol, debug: bool = False):
    """A matrix's LOBPCG compiled once per shape (its action a closure over the operand);
    JAX's private name, which its tests call with `debug=True`."""
    return _lobpcg_standard_callable(functools.partial(_mm, A), X, m, tol, debug)


@functools.partial(jit, static_argnames=["A", "m", "debug"])
def _lobpcg_standard_callable(A, X, m, tol, debug: bool = False):
    """LOBPCG of A's action; with `debug`, exactly m iterations (a scan, no early exit) and a
    fourth result: per iteration, the diagnostics of `_diagnostics` (JAX's keys)."""
    n, k = X.shape
    _check_inputs(A, X)
    if tol is None:
        tol = float(jnp.finfo(X.dtype).eps)
    X = _orthonormalize(X)
    P = _extend_basis(X, k)
    # X (the current eigenvectors), P (search directions) and R (residuals), each (n, k)
    AX = A(X)
    theta = jnp.sum(X * AX, axis=0, keepdims=True)
    R = AX - theta * X

    def cond(state):
        i, _, _, _, converged, _ = state
        return jnp.logical_and(i < m, converged < k)

    def body(state):
        i, X, P, R, _, _ = state
        # X, P and R stay orthonormal (some columns of P and R may be zero, never of X)
        R = _project_out(jnp.concatenate((X, P), axis=1), R)
        XPR = jnp.concatenate((X, P, R), axis=1)
        theta, Q = _rayleigh_ritz(A, XPR)
        X = _unit_columns(_mm(XPR, _unit_columns(Q[:, :k])))
        # the new directions: Q[k:, :k] (as a block under zeros) made orthogonal to Q[:, :k]
        # in the standard basis, then mapped through the orthonormal XPR
        q, _ = jnp.linalg.qr(Q[:k, k:].T)
        P = _unit_columns(_mm(XPR, _mm(Q[:, k:], q)), keep_zeros=True)
        AX = A(X)
        R = AX - theta[jnp.newaxis, :k] * X
        # converged: a residual small next to the rounding error of computing it
        reltol = (jnp.linalg.norm(AX, ord=2, axis=0) + theta[:k]) * n * 10
        resid = jnp.linalg.norm(R, ord=2, axis=0)
        converged = jnp.sum(resid < tol * reltol)
        state = i + 1, X, P, R, converged, theta[jnp.newaxis, :k]
        if debug:
            return state, _diagnostics(XPR, X, P, R, theta[:k], converged, resid / reltol)
        return state

    state = (0, X, P, R, 0, theta)
    if debug:
        state, diagnostics = lax.scan(lambda s, _: body(s), state, xs=None, length=m)
        return state[5][0, :], state[1], state[0], diagnostics
    _, X, _, _, _, theta = state = lax.while_loop(cond, body, state)
    return theta[0, :], X, state[0]


def _diagnostics(XPR, X, P, R, theta, converged, adjusted_residuals):
    """One iteration's health, under JAX's keys: the rank of the basis it searched (XPR's
    nonzero columns), zero columns of X and P, the eigenvalue estimates, residual norms, how
    many converged, the residuals over their tolerances (max, median, min), and how far X and
    P are from orthogonal (mean absolute off-diagonal of X^T X, P^T P, and of X^T P)."""
    k = X.shape[1]

    def off_diagonal(g):
        return jnp.abs(g - jnp.diag(jnp.diag(g))).sum() / k ** 2

    def zero_columns(x):
        return jnp.sum(jnp.all(x == 0.0, axis=0))
    return {"basis rank": XPR.shape[1] - zero_columns(XPR),
            "X zeros": zero_columns(X), "P zeros": zero_columns(P),
            "lambda history": theta, "residual history": jnp.linalg.norm(R, axis=0, ord=2),
            "converged": converged,
            "adjusted residual max": jnp.max(adjusted_residuals),
            "adjusted residual p50": jnp.median(adjusted_residuals),
            "adjusted residual min": jnp.min(adjusted_residuals),
            "X orth": off_diagonal(_mm(X.T, X)), "P orth": off_diagonal(_mm(P.T, P)),
            "P.X": jnp.abs(X.T @ P).sum() / k ** 2}


def _check_inputs(A, X):
    n, k = X.shape
    if k == 0:
        raise ValueError(f"must have search dim > 0, got {k}")
    if k * 5 >= n:
        raise ValueError(f"expected search dim * 5 < matrix dim (got {k * 5}, {n})")
    probe = A(jnp.zeros((n, 1), dtype=X.dtype))
    if probe.dtype != X.dtype:
        raise ValueError(f"A, X must have same dtypes (were {probe.dtype}, {X.dtype})")
    if probe.shape != (n, 1):
        raise ValueError(f"A must be ({n}, {n}) matrix A, got output {probe.shape}")


def _mm(a, b):
    return lax.dot(a, b, precision=(lax.Precision.HIGHEST, lax.Precision.HIGHEST))


def _unit_columns(x, keep_zeros: bool = False):
    """`x` with each column scaled to norm 1 (a zero column left zero with `keep_zeros`)."""
    norms = jnp.linalg.norm(x, ord=2, axis=0, keepdims=True)
    return x / (jnp.where(norms == 0, 1.0, norms) if keep_zeros else norms)


def _eigh_descending(A):
    w, V = jnp.linalg.eigh(A)
    return w[::-1], V[:, ::-1]


def _svqb(X):
    """An orthonormal basis of X's columns by SVQB (the eigenbasis of the small X^T X): a
    direction whose eigenvalue is below eps times the largest is dropped (a zero column)."""
    X = _unit_columns(X, keep_zeros=True)   # (so the diagonal conditioning is a no-op)
    inner = _mm(X.T, X)
    w, V = _eigh_descending(inner)
    tau = jnp.finfo(X.dtype).eps * w[0]
    # X^T X = V diag(w) V^T, so X V diag(w)^(-1/2) is orthonormal; tau == 0: X was all zero
    scale = jnp.where(tau > 0, jnp.maximum(w, tau), 1.0) ** (-0.5)
    ortho = _mm(X, V * scale[jnp.newaxis, :])
    keep = ((w > tau) * (jnp.diag(inner) > 0.0))[jnp.newaxis, :]
    ortho *= keep.astype(ortho.dtype)
    norms = jnp.linalg.norm(ortho, ord=2, axis=0, keepdims=True)
    keep *= norms > 0.0
    return ortho / jnp.where(keep, norms, 1.0)


def _orthonormalize(basis):
    for _ in range(2):      # twice is enough
        basis = _svqb(basis)
    return basis


def _project_out(basis, U):
    """U's part orthogonal to the orthonormal (zero columns allowed) `basis`, its nonzero
    columns orthonormal. Subtracting twice, orthonormalizing after each (Kahan's "twice is
    enough"), then twice more: ending on a subtraction keeps [basis, U] orthogonal when U is
    near zero, where normalizing would bring back basis components; columns that shrank
    below 0.99 are zeroed, as suspect."""
    for _ in range(2):
        U = _orthonormalize(U - _mm(basis, _mm(basis.T, U)))
    for _ in range(2):
        U = U - _mm(basis, _mm(basis.T, U))
    norms = jnp.linalg.norm(U, ord=2, axis=0, keepdims=True)
    return U * (norms >= 0.99).astype(U.dtype)


def _rayleigh_ritz(A, S):
    """The eigenpairs, largest first, of A projected onto the orthonormal columns of S."""
    return _eigh_descending(_mm(S.T, A(S)))


def _extend_basis(X, m):
    """m more orthonormal columns for the orthonormal (n, k) `X`, deterministically: the
    first m columns past X's of a block Householder reflector H(w) = I - 2 w w^T built so
    that H(w) X = [-u vt; 0] (u s vt the SVD of X's top k rows); H is unitary, so
    H [0; I; 0] is orthogonal to X."""
    n, k = X.shape
    upper, lower = jnp.split(X, [k], axis=0)
    u, s, vt = jnp.linalg.svd(upper)
    y = jnp.concatenate([upper + _mm(u, vt), lower], axis=0)
    other = jnp.concatenate([jnp.eye(m, dtype=X.dtype),
                             jnp.zeros((n - k - m, m), dtype=X.dtype)], axis=0)
    w = _mm(y, vt.T * ((2 * (1 + s)) ** (-1 / 2))[jnp.newaxis, :])
    h = -2 * jnp.linalg.multi_dot([w, w[k:, :].T, other], precision=lax.Precision.HIGHEST)
    return h.at[k:].add(other)


# ------------------------------------------------------------------ spsolve
spsolve_p = Primitive("spsolve")


def _spsolve_abstract_eval(data, indices, indptr, b, *, tol, reorder):
    if data.dtype != b.dtype:
        raise ValueError(f"data types do not match: data.dtype={data.dtype!r} "
                         f"b.dtype={b.dtype!r}")
    if not (jnp.issubdtype(indices.dtype, jnp.integer) and
            jnp.issubdtype(indptr.dtype, jnp.integer)):
        raise ValueError(f"index arrays must be integer typed; got indices.dtype="
                         f"{indices.dtype!r} indptr.dtype={indptr.dtype!r}")
    if not data.ndim == indices.ndim == indptr.ndim == b.ndim == 1:
        raise ValueError(f"Arrays must be one-dimensional. Got data.shape={data.shape} "
                         f"indices.shape={indices.shape} indptr.shape={indptr.shape} "
                         f"b.shape={b.shape}")
    if indptr.shape[0] != b.shape[0] + 1 or data.shape != indices.shape:
        raise ValueError(f"Invalid CSR buffer sizes: data.shape={data.shape} "
                         f"indices.shape={indices.shape} indptr.shape={indptr.shape}")
    if reorder not in (0, 1, 2, 3):
        raise ValueError(f"reorder={reorder} not valid, must be one of [1, 2, 3, 4]")
    return ShapedArray(b.shape, b.dtype)


def _solve_on_host(data, indices, indptr, b):
    """SciPy's SuperLU solve of the CSR system, in b's dtype (JAX's CPU callback)."""
    if scipy is None:
        raise ModuleNotFoundError("spsolve needs SciPy (scipy.sparse.linalg.spsolve), as "
                                  "JAX's does on CPU: install scipy")
    A = scipy.sparse.csr_matrix((data, indices, indptr), shape=(b.size, b.size))
    return np.asarray(scipy.sparse.linalg.spsolve(A, b)).astype(b.dtype)


def _spsolve_lowered(data, indices, indptr, b, *, tol, reorder):
    return pure_callback(_solve_on_host, ShapeDtypeStruct(b.shape, b.dtype),
                         data, indices, indptr, b)


def _spsolve_jvp_data(data_dot, ans, data, indices, indptr, b, **params):
    # d(M^-1 b) = -M^-1 dM M^-1 b
    q = csr_matvec_p.bind(data_dot, indices, indptr, ans, shape=(b.shape[0], b.shape[0]),
                          transpose=False)
    return -spsolve(data, indices, indptr, q, **params)


def _csr_transpose(data, indices, indptr):
    """The CSR buffers of a square CSR matrix's transpose: entries sorted by (column, row)."""
    m = indptr.shape[0] - 1
    row = jnp.cumsum(jnp.zeros_like(indices).at[indptr].add(1)) - 1
    row_t, indices_t, data_t = lax.sort((indices, row, data), num_keys=2)
    counts = jnp.cumsum(jnp.bincount(row_t, length=m)).astype(indptr.dtype)
    return data_t, indices_t, jnp.zeros_like(indptr).at[1:].set(counts)


def _spsolve_transpose(ct, data, indices, indptr, b, **params):
    if ad.is_undefined(indices) or ad.is_undefined(indptr):
        raise ValueError("Cannot transpose spsolve with respect to the CSR indices")
    if not ad.is_undefined(b):      # linear only in b: the jvp in data is written with b's
        raise NotImplementedError("spsolve transpose with respect to data")
    if type(ct) is ad.Zero:
        return [None, None, None, ad.Zero(b.aval)]
    return [None, None, None, spsolve(*_csr_transpose(data, indices, indptr), ct, **params)]


abstract_eval_rules[spsolve_p] = _spsolve_abstract_eval
lowering_rules[spsolve_p] = hl.lower_fun(_spsolve_lowered)
numpy_rules[spsolve_p] = lambda data, indices, indptr, b, **_: _solve_on_host(
    data, indices, indptr, b)
ad.defjvp(spsolve_p, _spsolve_jvp_data, None, None,
          lambda b_dot, ans, data, indices, indptr, b, **params:
          spsolve(data, indices, indptr, b_dot, **params))
transpose_rules[spsolve_p] = _spsolve_transpose


def spsolve(data, indices, indptr, b, tol=1e-6, reorder=1):
    """A sparse direct solver using QR factorization.

    Solves A x = b for the square CSR matrix A given by `data, indices, indptr`; on CPU
    (as JAX 0.10.2's) by SciPy's `scipy.sparse.linalg.spsolve`, so `tol` and `reorder`
    (the symrcm/symamd/csrmetisnd reordering cuSOLVER takes, 1-3; 0 for none) are checked
    but unused. Not batched by `vmap` (as JAX's). Returns x, of b's size and dtype.

    >>> spsolve(jnp.array([2., 4.]), jnp.array([0, 1]), jnp.array([0, 1, 2]),
    ...         jnp.array([1., 1.]))
    Array([0.5 , 0.25], dtype=float32)
    """
    return spsolve_p.bind(*map(jnp.asarray, (data, indices, indptr, b)), tol=tol,
                          reorder=reorder)
