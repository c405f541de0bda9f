"""qdwh: the polar decomposition x = u @ h by QR-based dynamically weighted Halley iterations
(JAX's jax/_src/tpu/linalg/qdwh.py, exported as jax.lax.linalg.qdwh; Nakatsukasa, Bai and
Gygi, SIAM J. Matrix Anal. Appl. 31(5), 2010). No primitive: a jitted function of lax.linalg's
qr, cholesky and triangular_solve, so every transformation goes through theirs.

    >>> u, h, iters, ok = qdwh(np.array([[2., 0.], [0., 3.]], np.float32))
    >>> np.round(np.asarray(u), 5).tolist(), bool(ok)
    ([[1.0, 0.0], [0.0, 1.0]], True)
"""
from __future__ import annotations

import functools

import numpy as np

from ...core import dtypes
from ...core.avals import get_aval
from ...core.interpreter_primitives import typed_constant
from ...transforms.jit import jit
from .. import conversion, elementwise as ew, reductions, shapes, slicing
from ..loops import fori_loop
from ..while_loop import while_loop
from ._common import _H, _dot, _eye, _real
from .cholesky_decomposition import cholesky
from .qr_decomposition import qr
from .triangular import triangular_solve

# c above this: a QR step (stable for ill-conditioned u), else Cholesky
_CHOLESKY_CUTOFF = 100


def _scalar(v, x):
    return typed_constant(v, get_aval(x).dtype)


def _where_in(x, dims, alternative):
    """x where each index i < dims[i] (dims may be traced: the unpadded size), else
    `alternative` (JAX's _mask)."""
    mask = None
    for i, d in enumerate(dims):
        if d is not None:
            inside = ew.lt(shapes.broadcasted_iota(np.int32, get_aval(x).shape, i), d)
            mask = inside if mask is None else ew.bitwise_and(mask, inside)
    if mask is None:
        return x
    alternative = shapes.broadcast_in_dim(alternative, get_aval(x).shape,
                                          tuple(range(np.ndim(alternative))))
    return ew.select(mask, x, alternative)


def _mask(x, dims, alternative=0):
    return _where_in(x, dims, _scalar(alternative, x))


def _use_qr(u, m, n, params):
    """One step through a QR of [sqrt(c) u; I] (u is M x N, its true size m x n)."""
    a_minus_e_by_sqrt_c, sqrt_c, e = params
    M, N = get_aval(u).shape
    eye = _eye(get_aval(u).dtype, N)
    padded = slicing.pad(ew.mul(sqrt_c, u), _scalar(0, u), [(0, N, 0), (0, 0, 0)])
    y = slicing.dynamic_update_slice(padded, eye, (m, np.int32(0)))
    q, _ = qr(y, full_matrices=False)
    q1 = _mask(slicing.slice(q, (0, 0), (M, N)), (m, n))
    q2 = _H(_mask(slicing.dynamic_slice_in_dim(q, m, N, axis=0), (n, n)))
    return ew.add(ew.mul(e, u), ew.mul(a_minus_e_by_sqrt_c, _dot(q1, q2)))


def _use_cholesky(u, m, n, params):
    """One step through a Cholesky factor of c u^H u + I."""
    a_minus_e, c, e = params
    N = get_aval(u).shape[1]
    eye = _eye(get_aval(u).dtype, N)
    x = ew.add(ew.mul(c, _dot(_H(u), u)), eye)
    # the padded corner is the identity, so the padded matrix stays positive definite
    x = _where_in(x, (n, n), eye)
    y = cholesky(x, symmetrize_input=False)
    z = triangular_solve(y, shapes.transpose(u, (1, 0)), left_side=True, lower=True,
                         conjugate_a=True)
    z = _conj(z)
    z = _H(triangular_solve(y, z, left_side=True, lower=True, transpose_a=True,
                            conjugate_a=True))
    return ew.add(ew.mul(e, u), ew.mul(a_minus_e, z))


def _conj(x):
    return ew.conj(x) if dtypes.is_complex(get_aval(x).dtype) else x


def _abs_sum(x, axis):
    return reductions.reduce_sum(ew.abs(x), (axis,))


def _frobenius(x):
    return ew.sqrt(reductions.reduce_sum(ew.real(ew.mul(x, ew.conj(x))) if
                                         dtypes.is_complex(get_aval(x).dtype) else ew.mul(x, x),
                                         (0, 1)))


def _coefficients(eps, max_iterations):
    """The (a, b, c) of each weighted step, computed in Python floats as JAX does: QR steps
    while c is large, then Cholesky steps, until the lower bound l reaches 1."""
    qr_steps, chol_steps = [], []
    l, tol_l, k = eps, 10.0 * eps / 2.0, 0
    while l + tol_l < 1 and k < max_iterations:
        k += 1
        l2 = l * l
        dd = (4 * (1 / l2 - 1) / l2) ** (1 / 3)
        sqd = (1.0 + dd) ** (1 / 2)
        a = sqd + (2 - dd + 2 * (2 - l2) / (l2 * sqd)) ** (1 / 2)
        b = (a - 1) ** 2 / 4
        c = a + b - 1
        l = l * (a + b * l2) / (1 + c * l2)
        e = b / c
        if c > _CHOLESKY_CUTOFF:
            qr_steps.append(((a - e) / c ** (1 / 2), c ** (1 / 2), e))
        else:
            chol_steps.append((a - e, c, e))
    return qr_steps, chol_steps


def _qdwh(x, m, n, max_iterations, eps):
    dtype = get_aval(x).dtype
    if eps is None:
        eps = float(dtypes.finfo(dtype).eps)
    # u = x / alpha with alpha >= ||x||_2: sqrt(||x||_1 ||x||_inf)
    one_norm = reductions.reduce_max(_abs_sum(x, 0), (0,))
    inf_norm = reductions.reduce_max(_abs_sum(x, 1), (0,))
    alpha_inverse = ew.mul(ew.rsqrt(one_norm), ew.rsqrt(inf_norm))
    alpha_inverse = ew.select(ew.eq(one_norm, _scalar(0, one_norm)), _scalar(1, one_norm),
                              alpha_inverse)
    u = ew.mul(x, conversion.convert_element_type(alpha_inverse, dtype))
    tol_norm = ew.cbrt(np.array(10.0 * eps / 2.0, _real(dtype)))
    qr_steps, chol_steps = _coefficients(eps, max_iterations)

    def step(update, coefs, test, k, state):
        u_prev, _ = state
        params = (_scalar(3 - 1 / 3, x), _scalar(3, x), _scalar(1 / 3, x)) if coefs is None \
            else [slicing.dynamic_index_in_dim(c, k, keepdims=False) for c in coefs]
        u = update(u_prev, m, n, params)
        not_converged = ew.gt(_frobenius(ew.sub(u, u_prev)), tol_norm) if test else np.bool_(True)
        return u, not_converged

    def iterate(u, steps, update, test):
        if not steps:
            return u, np.bool_(True)
        # each coefficient a Python float rounded to x's dtype (jnp.array(coefs).astype)
        coefs = [conversion.convert_element_type(np.array([s[i] for s in steps]), dtype)
                 for i in range(3)]
        return fori_loop(0, len(steps), functools.partial(step, update, coefs, test),
                         (u, np.bool_(True)))

    u, _ = iterate(u, qr_steps, _use_qr, False)
    u, not_converged = iterate(u, chol_steps, _use_cholesky, True)

    # l has reached 1 but u may not have: Halley's steps (a, b, c = 3, 1, 3) until it does
    def cond(state):
        k, _, not_converged = state
        return ew.bitwise_and(not_converged, ew.lt(k, np.int32(max_iterations)))

    def body(state):
        k, u, not_converged = state
        u, not_converged = step(_use_cholesky, None, True, k, (u, not_converged))
        return ew.add(k, np.int32(1)), u, not_converged

    k0 = np.int32(len(qr_steps) + len(chol_steps))
    num_iters, u, not_converged = while_loop(cond, body, (k0, u, not_converged))
    # a Newton-Schulz step for accuracy
    u = ew.sub(ew.mul(_scalar(1.5, u), u), ew.mul(_scalar(0.5, u), _dot(u, _dot(_H(u), u))))
    h = _dot(_H(u), x)
    h = ew.div(ew.add(h, _H(h)), _scalar(2, h))
    return u, h, num_iters, ew.bitwise_not(not_converged)


@functools.partial(jit, static_argnames=("is_hermitian", "max_iterations", "eps"))
def qdwh(x, *, is_hermitian: bool = False, max_iterations: int | None = None,
         eps: float | None = None, dynamic_shape: tuple[int, int] | None = None):
    """(u, h, num_iters, is_converged): x = u @ h with u's columns orthonormal and h
    Hermitian positive semi-definite, for a full-rank M x N matrix x with M >= N (optionally
    padded from a true size `dynamic_shape` = (m, n)). `is_hermitian` is unused (JAX keeps
    it for backward compatibility); iterations stop at `max_iterations` (default 10).

    >>> u, h, _, _ = qdwh(np.array([[1., 2.], [3., 4.], [5., 6.]], np.float32))
    >>> np.allclose(u @ h, [[1, 2], [3, 4], [5, 6]], atol=1e-4)
    True
    """
    del is_hermitian                     # (static, as max_iterations and eps: jit's hash)
    max_iterations = 10 if max_iterations is None else int(max_iterations)
    M, N = get_aval(x).shape
    if M < N:
        raise ValueError("The input matrix of shape M x N must have M >= N.")
    if dynamic_shape is not None:
        m, n = dynamic_shape
        x = _mask(x, (m, n))
    else:
        m, n = np.int32(M), np.int32(N)
    return _qdwh(x, m, n, max_iterations, eps)
