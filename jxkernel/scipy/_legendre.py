"""Spherical harmonics of jax.scipy.special (sph_harm_y), from the normalized associated
Legendre functions computed by JAX 0.10.2's recurrences over all degrees and orders up to a
static n_max, so the same numbers.

    >>> sph_harm_y(jnp.array([1]), jnp.array([0]), jnp.array([0.0]), jnp.array([0.0]))
    Array([0.4886025+0.j], dtype=complex64)
"""
from __future__ import annotations

import functools

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..core.errors import ConcretizationTypeError
from ..numpy.util import jnp_jit


def _recurrence_masks(l_max: int, is_normalized: bool, dtype):
    """The coefficients of the three-term recurrence in the degree l,
    P_l^m = d0(l, m) x P_{l-1}^m - d1(l, m) P_{l-2}^m, laid out (order, degree, step) so that
    step i of the loop updates the entries with m + l = i (zeros elsewhere)."""
    m_mat, l_mat = jnp.meshgrid(jnp.arange(l_max + 1, dtype=dtype),
                                jnp.arange(l_max + 1, dtype=dtype), indexing="ij")
    if is_normalized:
        c0 = l_mat * l_mat
        c1 = m_mat * m_mat
        c2 = 2.0 * l_mat
        c3 = (l_mat - 1.0) * (l_mat - 1.0)
        d0 = jnp.sqrt((4.0 * c0 - 1.0) / (c0 - c1))
        d1 = jnp.sqrt(((c2 + 1.0) * (c3 - c1)) / ((c2 - 3.0) * (c0 - c1)))
    else:
        d0 = (2.0 * l_mat - 1.0) / (l_mat - m_mat)
        d1 = (l_mat + m_mat - 1.0) / (l_mat - m_mat)
    d0_indices = jnp.triu_indices(l_max + 1, 1)
    d1_indices = jnp.triu_indices(l_max + 1, 2)
    zeros = jnp.zeros((l_max + 1, l_max + 1), dtype=dtype)
    d0_mask = zeros.at[d0_indices].set(d0[d0_indices])
    d1_mask = zeros.at[d1_indices].set(d1[d1_indices])
    i, j, k = jnp.ogrid[:l_max + 1, :l_max + 1, :l_max + 1]
    diagonal_plane = (i + j - k == 0).astype(dtype)
    return (jnp.einsum("jk,ijk->ijk", d0_mask, diagonal_plane),
            jnp.einsum("jk,ijk->ijk", d1_mask, diagonal_plane))


@functools.partial(jnp_jit, static_argnames=("l_max", "is_normalized"))
def _associated_legendre(l_max: int, x, is_normalized: bool):
    """P_l^m(x) for 0 <= m, l <= l_max at each point of the vector x, shape (order, degree,
    point): the diagonal P_l^l by a running product of sqrt(1 - x^2), the first off-diagonal
    P_{l+1}^l from it, then the rest by the recurrence in l (normalized: the spherical
    harmonics' factor N_l^m included, which keeps them in range)."""
    p = jnp.zeros((l_max + 1, l_max + 1, x.shape[0]), dtype=x.dtype)
    a_idx = jnp.arange(1, l_max + 1, dtype=x.dtype)
    b_idx = jnp.arange(l_max, dtype=x.dtype)
    if is_normalized:
        initial_value = 0.5 / jnp.sqrt(np.pi)             # P_0^0
        f_a = jnp.cumprod(-1 * jnp.sqrt(1.0 + 0.5 / a_idx))
        f_b = jnp.sqrt(2.0 * b_idx + 3.0)
    else:
        initial_value = 1.0
        f_a = jnp.cumprod(1.0 - 2.0 * a_idx)
        f_b = 2.0 * b_idx + 1.0
    p = p.at[(0, 0)].set(initial_value)
    y = jnp.cumprod(jnp.broadcast_to(jnp.sqrt(1.0 - x * x), (l_max, x.shape[0])), axis=0)
    p_diag = initial_value * jnp.einsum("i,ij->ij", f_a, y)
    diag_indices = jnp.diag_indices(l_max + 1)
    p = p.at[(diag_indices[0][1:], diag_indices[1][1:])].set(p_diag)
    p_offdiag = jnp.einsum("ij,ij->ij", jnp.einsum("i,j->ij", f_b, x),
                           p[jnp.diag_indices(l_max)])
    offdiag_indices = (diag_indices[0][:l_max], diag_indices[1][:l_max] + 1)
    p = p.at[offdiag_indices].set(p_offdiag)
    d0_mask_3d, d1_mask_3d = _recurrence_masks(l_max, is_normalized, x.dtype)

    def body(i, p_val):
        h = (jnp.einsum("ij,ijk->ijk", d0_mask_3d[i],
                        jnp.einsum("ijk,k->ijk", jnp.roll(p_val, shift=1, axis=1), x))
             - jnp.einsum("ij,ijk->ijk", d1_mask_3d[i], jnp.roll(p_val, shift=2, axis=1)))
        return p_val + h

    p = p.astype(jnp.result_type(p, x, d0_mask_3d))
    if l_max > 1:
        p = lax.fori_loop(lower=2, upper=l_max + 1, body_fun=body, init_val=p)
    return p


@functools.partial(jnp_jit, static_argnames=("n_max",))
def _sph_harm(n, m, theta, phi, n_max: int):
    legendre = _associated_legendre(n_max, jnp.cos(theta), True)
    legendre_val = legendre.at[abs(m), n, jnp.arange(len(n))].get(mode="clip")
    angle = abs(m) * phi
    vandermonde = lax.complex(jnp.cos(angle), jnp.sin(angle))
    harmonics = lax.complex(legendre_val * jnp.real(vandermonde),
                            legendre_val * jnp.imag(vandermonde))
    # Y_n^{-m} = (-1)^m conj(Y_n^m)
    return jnp.where(m < 0, (-1.0) ** abs(m) * jnp.conjugate(harmonics), harmonics)


def sph_harm_y(n, m, theta, phi, diff_n: int | None = None, n_max: int | None = None):
    """The spherical harmonics Y_n^m(theta, phi) = N_n^m P_n^m(cos theta) exp(i m phi) at
    vectors of degrees n >= 0, orders |m| <= n, colatitudes theta in [0, pi] and longitudes phi
    (other n, m undefined). n_max, the largest n, must be static under jit; a smaller one
    clips n to it. diff_n is not supported (as in JAX).

    >>> sph_harm_y(jnp.array([2]), jnp.array([1]), jnp.array([1.0]), jnp.array([0.5]))
    Array([-0.30824044-0.16839254j], dtype=complex64)
    """
    if diff_n is not None:
        raise NotImplementedError(
            "The 'diff_n' argument to jax.scipy.special.sph_harm_y is not supported.")
    if jnp.isscalar(theta):
        theta = jnp.array([theta])
    if n_max is None:
        n_max = np.max(n)
    try:
        n_max = int(n_max)
    except ConcretizationTypeError:        # (JAX's wording)
        raise ConcretizationTypeError(
            n_max, "The `n_max` argument of `jnp.scipy.special.sph_harm` must be statically "
            "specified to use `sph_harm` within JAX transformations.\n") from None
    return _sph_harm(n, m, theta, phi, n_max)
