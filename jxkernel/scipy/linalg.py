"""jxkernel.scipy.linalg: SciPy's linear algebra as jax.scipy.linalg defines it (JAX 0.10.2's
signatures, algorithms and derivatives), built on lax.linalg's LAPACK primitives and
jnp.linalg; special matrices (block_diag, toeplitz, hilbert, ...) are in _matrices.py.

    >>> c = cho_factor(jnp.array([[2., 1.], [1., 2.]]))
    >>> cho_solve(c, jnp.array([3., 4.]))
    Array([0.6666666, 1.6666666], dtype=float32)
    >>> expm(jnp.zeros((2, 2)))
    Array([[1., 0.],
           [0., 1.]], dtype=float32)

Not provided: the eigenvectors of eigh_tridiagonal (its eigenvalues are here), which need a
LAPACK primitive jxkernel's lax.linalg does not have (JAX's tridiagonal_solve_p).
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from .. import lax
from ..core import dtypes as _core_dtypes
from ..core.source_info import user_stacklevel
from .. import numpy as jnp
from ..lax import linalg as lax_linalg
from ..lax.loops import fori_loop
from ..numpy import linalg as jnp_linalg
from ..numpy.util import jnp_jit, promote_dtypes_complex, promote_dtypes_inexact
from ..transforms.ad import jvp
from ..transforms.batching import vmap
from ..transforms.custom_derivatives import custom_jvp
from ..transforms.jit.namesakes import jax_jitted
from ._matrices import (
    block_diag,
    circulant,
    companion,
    convolution_matrix,
    dft,
    fiedler,
    fiedler_companion,
    hadamard,
    hankel,
    helmert,
    hilbert,
    invhilbert,
    invpascal,
    leslie,
    pascal,
    toeplitz,
)
from ._polar import eigh_tridiagonal, polar

__all__ = ["block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "companion",
           "convolution_matrix", "det", "dft", "eigh", "eigh_tridiagonal", "expm",
           "expm_frechet", "fiedler", "fiedler_companion", "funm", "hadamard", "hankel",
           "helmert", "hessenberg",
           "hilbert", "inv", "invhilbert", "invpascal", "leslie", "lu", "lu_factor",
           "lu_solve", "pascal", "polar", "qr", "qr_multiply", "rsf2csf", "schur", "solve",
           "solve_sylvester", "solve_triangular", "sqrtm", "svd", "toeplitz"]


def _vector_or_matrix_rhs(name, a, b, extra_vector_args=0):
    """The jnp.vectorize signature for solving against b: a vector b (n,), a (deprecated)
    batch of vectors, or (..., n, k) matrices."""
    vec_in, mat_in = ",(n)" * extra_vector_args, ",(n)" * extra_vector_args
    if b.ndim == 1:
        return f"(n,n){vec_in},(n)->(n)"
    if a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1]:
        warnings.warn(f"jax.scipy.linalg.{name}: batched 1D solves with b.ndim > 1 are "
                      f"deprecated, and in the future will be treated as a batched 2D solve. "
                      f"Use {name}(..., b[..., None]).squeeze(-1) to avoid this warning.",
                      category=FutureWarning, stacklevel=user_stacklevel())
        return f"(n,n){vec_in},(n)->(n)"
    return f"(n,n){mat_in},(n,k)->(n,k)"


# ------------------------------------------------------------------ cholesky
@jnp_jit(static_argnames=("lower",))
def _cholesky(a, lower):
    a, = promote_dtypes_inexact(jnp.asarray(a))
    # only one triangle is read (no symmetrization): the upper factor is the lower factor
    # of a^H, conjugate-transposed
    chol = lax_linalg.cholesky(a if lower else jnp.conj(a.mT), symmetrize_input=False)
    return chol if lower else jnp.conj(chol.mT)


def cholesky(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """The Cholesky factor of Hermitian positive-definite a: upper U (a = U^H U) by default,
    lower L (a = L L^H) with lower=True; NaN if a is not positive definite.

    >>> cholesky(jnp.array([[4., 2.], [2., 5.]]))
    Array([[2., 1.],
           [0., 2.]], dtype=float32)
    """
    del overwrite_a, check_finite
    return _cholesky(a, bool(lower))


def cho_factor(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """(c, lower): the Cholesky factor for cho_solve."""
    del overwrite_a, check_finite
    return cholesky(a, lower=lower), lower


def _cho_solve_sig(c, b, lower, sig):
    # a = L L^H: solve with L, then with L^H (for the upper factor U = L^H, the reverse)
    first = functools.partial(lax_linalg.triangular_solve, left_side=True, lower=lower,
                              transpose_a=not lower, conjugate_a=not lower)
    second = functools.partial(lax_linalg.triangular_solve, left_side=True, lower=lower,
                               transpose_a=lower, conjugate_a=lower)
    b = jnp.vectorize(first, signature=sig)(c, b)
    return jnp.vectorize(second, signature=sig)(c, b)


@jnp_jit(static_argnames=("lower",))
def _cho_solve(c, b, lower):
    c, b = promote_dtypes_inexact(jnp.asarray(c), jnp.asarray(b))
    return _cho_solve_sig(c, b, lower, _vector_or_matrix_rhs("cho_solve", c, b))


def cho_solve(c_and_lower, b, overwrite_b: bool = False, check_finite: bool = True):
    """x with a @ x = b, from cho_factor(a) = (c, lower).

    >>> cho_solve(cho_factor(jnp.array([[2., 0.], [0., 4.]])), jnp.array([2., 2.]))
    Array([0.99999994, 0.5       ], dtype=float32)
    """
    del overwrite_b, check_finite
    c, lower = c_and_lower
    return _cho_solve(c, b, bool(lower))


# ------------------------------------------------------------------ svd, det, eigh, inv
@jnp_jit(static_argnames=("full_matrices", "compute_uv"))
def _svd(a, *, full_matrices, compute_uv):
    a, = promote_dtypes_inexact(jnp.asarray(a))
    return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def svd(a, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd"):
    """(u, s, vh) with a = u @ diag(s) @ vh (s descending), or s alone without compute_uv.

    >>> svd(jnp.array([[3., 0.], [0., 4.]]), compute_uv=False)
    Array([4., 3.], dtype=float32)
    """
    del overwrite_a, check_finite, lapack_driver
    return _svd(a, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv))


def det(a, overwrite_a: bool = False, check_finite: bool = True):
    """The determinant of (batched) square matrices. ``det(jnp.eye(2))`` is 1."""
    del overwrite_a, check_finite
    return jnp_linalg.det(a)


@jnp_jit(static_argnames=("lower", "eigvals_only", "eigvals", "type"))
def _eigh(a, b, lower, eigvals_only, eigvals, type):
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    a, = promote_dtypes_inexact(jnp.asarray(a))
    v, w = lax_linalg.eigh(a, lower=lower)
    return w if eigvals_only else (w, v)


def eigh(a, b=None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, turbo: bool = True, eigvals=None, type: int = 1,
         check_finite: bool = True):
    """(w, v): ascending eigenvalues and eigenvectors (columns) of Hermitian a, or w alone
    with eigvals_only; only the standard problem (b=None).

    >>> eigh(jnp.array([[2., 1.], [1., 2.]]), eigvals_only=True)
    Array([1., 3.], dtype=float32)
    """
    del overwrite_a, overwrite_b, turbo, check_finite
    return _eigh(a, b, bool(lower), bool(eigvals_only), eigvals, type)


def inv(a, overwrite_a: bool = False, check_finite: bool = True):
    """The inverse of (batched) square matrices.

    >>> inv(jnp.array([[2., 0.], [0., 4.]]))
    Array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
    """
    del overwrite_a, check_finite
    return jnp_linalg.inv(a)


# ------------------------------------------------------------------ lu
@jax_jitted
@jnp_jit(static_argnames=("overwrite_a", "check_finite"))
def lu_factor(a, overwrite_a: bool = False, check_finite: bool = True):
    """(lu, piv) for lu_solve: L (unit diagonal, below) and U (on and above) packed in lu,
    and LAPACK's row swaps piv (0-based)."""
    del overwrite_a, check_finite
    a, = promote_dtypes_inexact(jnp.asarray(a))
    lu_, pivots, _ = lax_linalg.lu(a)
    return lu_, pivots


@jax_jitted
@jnp_jit(static_argnames=("trans", "overwrite_b", "check_finite"))
def lu_solve(lu_and_piv, b, trans: int = 0, overwrite_b: bool = False,
             check_finite: bool = True):
    """x with a @ x = b (trans=0), a^T x = b (1) or a^H x = b (2), from lu_factor(a).

    >>> lu_solve(lu_factor(jnp.array([[2., 1.], [1., 2.]])), jnp.array([3., 3.]))
    Array([1., 1.], dtype=float32)
    """
    del overwrite_b, check_finite
    lu_, pivots = lu_and_piv
    lu_, b = promote_dtypes_inexact(jnp.asarray(lu_), jnp.asarray(b))
    perm = lax_linalg.lu_pivots_to_permutation(pivots, lu_.shape[-2])
    sig = _vector_or_matrix_rhs("lu_solve", lu_, b, extra_vector_args=1)
    return jnp.vectorize(functools.partial(lax_linalg.lu_solve, trans=trans),
                         signature=sig)(lu_, perm, b)


@jnp_jit(static_argnames=("permute_l",))
def _lu(a, permute_l):
    a, = promote_dtypes_inexact(jnp.asarray(a))
    lu_, _, permutation = lax_linalg.lu(a)
    dtype = a.dtype
    m, n = np.shape(a)
    p = jnp.real(jnp.array(permutation[None, :] == jnp.arange(m, dtype=permutation.dtype)[:, None],
                           dtype=dtype))
    k = min(m, n)
    lower = jnp.tril(lu_, -1)[:, :k] + jnp.eye(m, k, dtype=dtype)
    upper = jnp.triu(lu_)[:k, :]
    if permute_l:
        return jnp.matmul(p, lower, precision=lax.Precision.HIGHEST), upper
    return p, lower, upper


@jax_jitted
@jnp_jit(static_argnames=("permute_l", "overwrite_a", "check_finite"))
def lu(a, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """(p, l, u) with a = p @ l @ u for a 2-D a (m, n): p a permutation matrix, l (m, k) unit
    lower, u (k, n) upper, k = min(m, n); (p @ l, u) with permute_l=True.

    >>> p, l, u = lu(jnp.array([[1., 2.], [3., 4.]]))
    >>> u
    Array([[3.       , 4.       ],
           [0.       , 0.6666666]], dtype=float32)
    """
    del overwrite_a, check_finite
    return _lu(a, permute_l)


# ------------------------------------------------------------------ qr
@jnp_jit(static_argnames=("mode", "pivoting"))
def _qr(a, mode, pivoting):
    if mode in ("full", "r"):
        full_matrices = True
    elif mode == "economic":
        full_matrices = False
    else:
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    a, = promote_dtypes_inexact(jnp.asarray(a))
    q, r, *p = lax_linalg.qr(a, pivoting=pivoting, full_matrices=full_matrices)
    if mode == "r":
        return (r, p[0]) if pivoting else (r,)
    return (q, r, p[0]) if pivoting else (q, r)


def qr(a, overwrite_a: bool = False, lwork=None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True):
    """(q, r) with a = q @ r; mode 'full' (default), 'economic' (reduced) or 'r' (the tuple
    (r,)); pivoting=True appends the column permutation p with a[:, p] = q @ r.

    >>> q, r = qr(jnp.array([[3., 1.], [4., 2.]]))
    """
    del overwrite_a, lwork, check_finite
    return _qr(a, mode, bool(pivoting))


# ------------------------------------------------------------------ solve
def _pos_solve_with(factor, lower, b):
    """x with a x = b for a batch of vectors b (..., n), from a's Cholesky factor."""
    return _cho_solve_sig(factor, b, lower, "(n,n),(n)->(n)")


@functools.partial(custom_jvp, nondiff_argnums=(0,))
def _pos_solve(lower, a, b):
    """x with a x = b, a Hermitian positive definite (..., n, n) and b (..., n) with a's
    batch; the factorization sees no gradient (the jvp below differentiates implicitly)."""
    return _pos_solve_with(cholesky(lax.stop_gradient(a), lower=lower), lower, b)


@_pos_solve.defjvp
def _pos_solve_jvp(lower, primals, tangents):
    # implicit differentiation at the solution, as JAX's custom_linear_solve: a dx = db - da x
    (a, b), (a_dot, b_dot) = primals, tangents
    factor = cholesky(lax.stop_gradient(a), lower=lower)
    x = _pos_solve_with(factor, lower, b)
    da_x = jnp.matmul(a_dot, x[..., None], precision=lax.Precision.HIGHEST)[..., 0]
    return x, _pos_solve_with(factor, lower, b_dot - da_x)


@jnp_jit(static_argnames=("assume_a", "lower"))
def _solve(a, b, assume_a, lower):
    if assume_a != "pos":
        return jnp_linalg.solve(a, b)
    a, b = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(b))
    if not (a.ndim >= 2 and b.ndim in (a.ndim, a.ndim - 1)
            and a.shape[-1] == a.shape[-2] == b.shape[a.ndim - 2]):
        raise ValueError(f"The arguments to solve must have shapes a=[..., m, m] and "
                         f"b=[..., m, k] or b=[..., m]; got a={a.shape} and b={b.shape}")
    vector = a.ndim == b.ndim + 1
    core = b.shape[-1:] if vector else b.shape[-2:]
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:len(b.shape) - len(core)])
    a = jnp.broadcast_to(a, (*batch, *a.shape[-2:]))
    b = jnp.broadcast_to(b, (*batch, *core))
    if vector:
        return _pos_solve(lower, a, b)
    # column by column, as JAX (a vmap over b's columns)
    return vmap(lambda col: _pos_solve(lower, a, col), in_axes=b.ndim - 1, out_axes=b.ndim - 1)(b)


def solve(a, b, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          debug: bool = False, check_finite: bool = True, assume_a: str = "gen"):
    """x with a @ x = b; assume_a='pos' uses a Cholesky factorization (a Hermitian positive
    definite), 'gen', 'sym' and 'her' an LU.

    >>> solve(jnp.array([[2., 0.], [0., 4.]]), jnp.array([2., 2.]), assume_a="pos")
    Array([0.99999994, 0.5       ], dtype=float32)
    """
    del overwrite_a, overwrite_b, debug, check_finite
    valid = ["gen", "sym", "her", "pos"]
    if assume_a not in valid:
        raise ValueError(f"Expected assume_a to be one of {valid}; got {assume_a!r}")
    return _solve(a, b, assume_a, bool(lower))


@jnp_jit(static_argnames=("trans", "lower", "unit_diagonal"))
def _solve_triangular(a, b, trans, lower, unit_diagonal):
    ops = {0: (False, False), "N": (False, False), 1: (True, False), "T": (True, False),
           2: (True, True), "C": (True, True)}
    if trans not in ops:
        raise ValueError(f"Invalid 'trans' value {trans}")
    transpose_a, conjugate_a = ops[trans]
    a, b = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(b))
    sig = _vector_or_matrix_rhs("solve_triangular", a, b)
    fun = functools.partial(lax_linalg.triangular_solve, left_side=True, lower=lower,
                            transpose_a=transpose_a, conjugate_a=conjugate_a,
                            unit_diagonal=unit_diagonal)
    return jnp.vectorize(fun, signature=sig)(a, b)


def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False,
                     overwrite_b: bool = False, debug=None, check_finite: bool = True):
    """x with op(a) @ x = b for triangular a (only its `lower` or upper triangle is read);
    trans 0/'N': a, 1/'T': a^T, 2/'C': a^H.

    >>> solve_triangular(jnp.array([[2., 0.], [1., 1.]]), jnp.array([2., 3.]), lower=True)
    Array([1., 2.], dtype=float32)
    """
    del overwrite_b, debug, check_finite
    return _solve_triangular(a, b, trans, bool(lower), bool(unit_diagonal))


# ------------------------------------------------------------------ expm
# Pade approximants r_m(A) = (V - U)^{-1} (V + U) of exp, with scaling and squaring
# (Higham 2005): A is scaled by 2^-s until its 1-norm is below the largest theta_m, the
# degree m is chosen from the 1-norm, and the result is squared s times. float32 uses
# degrees 3, 5, 7; float64 also 9 and 13.
_PADE = {
    3: (120., 60., 12., 1.),
    5: (30240., 15120., 3360., 420., 30., 1.),
    7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
    9: (17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880.,
        3960., 90., 1.),
    13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
         129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
         40840800., 960960., 16380., 182., 1.),
}
# (theta thresholds between the degrees, the largest theta) per precision
_EXPM_THETAS = {
    32: ((0.4258730016922831, 1.880152677804762), 3.92572478313866, (3, 5, 7)),
    64: ((0.01495585217958292, 0.253939833006323, 0.9504178996162932, 2.097847961257068),
         5.371920351148152, (3, 5, 7, 9, 13)),
}


def _dot(a, b):
    return jnp.dot(a, b, precision=lax.Precision.HIGHEST)


def _pade(degree):
    """U, V of the degree-m Pade approximant: odd and even parts of the numerator."""
    b = _PADE[degree]

    def uv(A):
        ident = jnp.eye(*A.shape, dtype=A.dtype)
        A2 = _dot(A, A)
        if degree == 13:
            A4 = _dot(A2, A2)
            A6 = _dot(A4, A2)
            U = _dot(A, _dot(A6, b[13] * A6 + b[11] * A4 + b[9] * A2)
                     + b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * ident)
            V = (_dot(A6, b[12] * A6 + b[10] * A4 + b[8] * A2)
                 + b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * ident)
            return U, V
        powers = [A2]                               # A^2, A^4, A^6, A^8 as needed
        for _ in range(degree // 2 - 1):
            powers.append(_dot(powers[-1], A2))
        odd = b[degree] * powers[-1]
        even = b[degree - 1] * powers[-1]
        for i in range(len(powers) - 2, -1, -1):
            odd = odd + b[2 * i + 3] * powers[i]
            even = even + b[2 * i + 2] * powers[i]
        return _dot(A, odd + b[1] * ident), even + b[0] * ident
    return uv


@jnp_jit
def _calc_P_Q(A):
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError("expected A to be a square matrix")
    bits = {"float32": 32, "complex64": 32, "float64": 64, "complex128": 64}.get(A.dtype.name)
    if bits is None:
        raise TypeError(f"A.dtype={A.dtype} is not supported.")
    conds, maxnorm, degrees = _EXPM_THETAS[bits]
    A_L1 = jnp_linalg.norm(A, 1)
    n_squarings = jnp.maximum(0, jnp.floor(jnp.log2(A_L1 / maxnorm)))
    A = A / 2 ** n_squarings.astype(A.dtype)
    idx = jnp.digitize(A_L1, jnp.array(conds, dtype=A_L1.dtype))
    U, V = lax.switch(idx, [_pade(m) for m in degrees], A)
    return U + V, -U + V, n_squarings


@functools.partial(jnp_jit, static_argnames=("max_squarings",))
def _squaring(R, n_squarings, max_squarings):
    def step(c, i):
        return lax.cond(i < n_squarings, lambda x: _dot(x, x), lambda x: x, c), None
    out, _ = lax.scan(step, R, jnp.arange(max_squarings, dtype=n_squarings.dtype))
    return out


# ------------------------------------------------------------------ schur, sqrtm
@jnp_jit(static_argnames=("output",))
def _schur(a, output):
    if output == "complex":
        a = a.astype(_core_dtypes.to_complex_dtype(a.dtype))
    return lax_linalg.schur(a)


def schur(a, output: str = "real"):
    """(T, Z) with a = Z T Z^H: T upper triangular, or for output='real' with a real `a`
    quasi-triangular (a 2x2 block per conjugate pair of eigenvalues); Z unitary.

    >>> T, Z = schur(jnp.array([[0., -1.], [1., 0.]]), output="complex")
    >>> jnp.round(jnp.abs(jnp.diag(T)), 4)
    Array([1., 1.], dtype=float32)
    """
    if output not in ("real", "complex"):
        raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got {output=}.")
    return _schur(a, output)


def _sqrt_upper_triangular(t):
    """The square root r of upper triangular t with r's diagonal the principal square roots
    of t's, column by column (Björck and Hammarling, 1983): for i < j,
    r[i, j] = (t[i, j] - sum_{i<k<j} r[i, k] r[k, j]) / (r[i, i] + r[j, j]), 0 where the
    numerator is 0 (so a zero eigenvalue's 0 / 0 is 0)."""
    root = jnp.sqrt(jnp.diagonal(t))
    n = root.shape[0]
    k = jnp.arange(n)

    def column(j, r):
        def entry(step, r):
            i = j - 1 - step                              # from the diagonal upwards
            between = (k > i) & (k < j)
            total = jnp.sum(jnp.where(between, r[i, :] * r[:, j], 0))
            value = jnp.where(t[i, j] == total, 0, (t[i, j] - total) / (root[i] + root[j]))
            return r.at[i, j].set(value)
        return fori_loop(0, j, entry, r)
    return fori_loop(0, n, column, jnp.diag(root))


@jnp_jit
def _sqrtm(a):
    t, z = _schur(a, "complex")
    highest = lax.Precision.HIGHEST
    return jnp.matmul(jnp.matmul(z, _sqrt_upper_triangular(t), precision=highest),
                      jnp.conj(z.T), precision=highest)


def sqrtm(A, blocksize: int = 1):
    """The principal square root of square A (complex: a real A can have a complex root):
    A = Z T Z^H (complex Schur form), then the root of triangular T, then Z sqrt(T) Z^H.

    >>> jnp.real(sqrtm(jnp.array([[4., 0.], [0., 9.]])))
    Array([[2., 0.],
           [0., 3.]], dtype=float32)
    """
    if blocksize > 1:
        raise NotImplementedError("Blocked version is not implemented yet.")
    return _sqrtm(A)


# ------------------------------------------------------------------ funm
@jnp_jit
def _parlett(f, t):
    """f(T) above the diagonal from its diagonal, for upper triangular T, one superdiagonal
    at a time (Parlett's recurrence; Golub and Van Loan, Matrix Computations, 11.1.1):
    F[i, j] = (T[i, j] (F[j, j] - F[i, i]) + sum_{i<k<j} T[i, k] F[k, j] - F[i, k] T[k, j])
              / (T[j, j] - T[i, i]),
    with the smallest |T[j, j] - T[i, i]| met (a measure of how exact F is)."""
    n = t.shape[0]
    index = jnp.arange(n)

    def diagonal(p, state):
        def entry(i, state):
            f, smallest = state
            j = i + p
            between = (index > i) & (index < j)
            s = t[i, j] * (f[j, j] - f[i, i]) + \
                jnp.where(between, t[i], 0) @ jnp.where(between, f[:, j], 0) - \
                jnp.where(between, f[i], 0) @ jnp.where(between, t[:, j], 0)
            gap = t[j, j] - t[i, i]
            f = f.at[i, j].set(jnp.where(gap != 0, s / gap, s))
            return f, jnp.minimum(smallest, jnp.abs(gap))
        return fori_loop(0, n - p, entry, state)
    return fori_loop(1, n, diagonal, (f, jnp.abs(t[0, 0])))


def funm(A, func, disp: bool = True):
    """func(A) for a square matrix A, with `func` an elementwise function of an array (e.g.
    jnp.exp): from the complex Schur form A = Z T Z^H, f(T) by Parlett's recurrence, then
    Z f(T) Z^H (complex). With disp=False, also an estimate of its relative error, which is
    large when eigenvalues are close (the recurrence divides by their differences).

    >>> jnp.real(funm(jnp.array([[1., 2.], [0., 3.]]), jnp.exp))
    Array([[ 2.7182817, 17.367256 ],
           [ 0.       , 20.085537 ]], dtype=float32)
    """
    a = jnp.asarray(A)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError("expected square array_like input")
    t, z = rsf2csf(*schur(a))
    f, smallest = _parlett(jnp.diag(func(jnp.diag(t))).astype(t.dtype), t)
    f = z @ f @ z.conj().T
    if disp:
        return f
    eps = jnp.finfo(f.dtype).eps
    smallest = jnp.where(smallest == 0, eps, smallest)
    err = jnp.minimum(1, jnp.maximum(eps, eps / smallest * jnp_linalg.norm(jnp.triu(t, 1), 1)))
    return f, jnp.where(jnp.any(jnp.isinf(f)), np.inf, err)


# ------------------------------------------------------------------ qr_multiply
def qr_multiply(a, c, mode: str = "right", pivoting: bool = False, conjugate: bool = False,
                overwrite_a: bool = False, overwrite_c: bool = False):
    """(Q @ c, R) for mode='left' (c with min(M, N) rows) or (c @ Q, R) for mode='right' (c
    with M columns) of a's QR decomposition, Q never formed (LAPACK's ormqr); conj(Q) for
    `conjugate`; with `pivoting`, also the column permutation (0-based). A 1-d c is a column
    (left) or a row (right), and the product comes back 1-d.

    >>> A = jnp.array([[1., 1.], [1., 2.], [1., 3.], [1., 4.]])
    >>> Qtb, R = qr_multiply(A, jnp.array([2., 4., 5., 4.]))
    >>> jnp.round(solve_triangular(R, Qtb), 4)       # the least-squares line
    Array([2. , 0.7], dtype=float32)
    """
    del overwrite_a, overwrite_c
    a, c = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(c))
    if mode not in ("right", "left"):
        raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
    vector = c.ndim == 1
    if vector:
        c = c[:, None] if mode == "left" else c[None, :]
    m, n = a.shape[-2:]
    k = min(m, n)
    if mode == "left" and c.shape[-2] != k:
        raise ValueError(f"Array shapes are not compatible for Q @ c operation: a has shape "
                         f"{tuple(a.shape)} so Q has {k} columns, but c has {c.shape[-2]} rows "
                         f"(expected {k}).")
    if mode == "right" and c.shape[-1] != m:
        raise ValueError(f"Array shapes are not compatible for c @ Q operation: a has shape "
                         f"{tuple(a.shape)} so Q has {m} rows, but c has {c.shape[-1]} columns "
                         f"(expected {m}).")
    batch = jnp.broadcast_shapes(a.shape[:-2], c.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    c = jnp.broadcast_to(c, batch + c.shape[-2:])
    if pivoting:
        r, perm, taus = lax_linalg.geqp3(a, jnp.zeros(batch + (n,), jnp.int32))
        perm = perm - 1                                  # geqp3 counts from 1
    else:
        r, taus = lax_linalg.geqrf(a)
    if mode == "left" and m > n:                         # Q is m×m: pad c's rows to m
        c = jnp.concatenate([c, jnp.zeros(c.shape[:-2] + (m - k,) + c.shape[-1:], c.dtype)],
                            axis=-2)
    # conj(Q) c = (c^T Q^H)^T: transposing c swaps the side and asks for Q^H
    if conjugate:
        c = c.swapaxes(-1, -2)
    product = lax_linalg.ormqr(r, taus, c, left=(mode == "left") != conjugate,
                               transpose=conjugate)
    if conjugate:
        product = product.swapaxes(-1, -2)
    if mode == "right":
        product = product[..., :k]
    if vector:
        product = product.ravel()
    r = jnp.triu(r[..., :k, :])
    return (product, r, perm) if pivoting else (product, r)


# ------------------------------------------------------------------ hessenberg
@jax_jitted
@jnp_jit(static_argnames=("calc_q", "overwrite_a", "check_finite"))
def hessenberg(a, *, calc_q: bool = False, overwrite_a: bool = False,
               check_finite: bool = True):
    """H (and with `calc_q`, also Q) with a = Q H Q^H: H zero below the first subdiagonal, Q
    unitary. Batched over leading dims; `overwrite_a` and `check_finite` are ignored.

    >>> h = hessenberg(jnp.array([[1., 2., 3.], [4., 5., 6.], [7., 8., 10.]]))
    >>> h[2, 0]
    Array(0., dtype=float32)
    """
    del overwrite_a, check_finite
    n = np.shape(a)[-1]
    if n == 0:
        return (jnp.zeros_like(a), jnp.zeros_like(a)) if calc_q else jnp.zeros_like(a)
    packed, taus = lax_linalg.hessenberg(a)
    h = jnp.triu(packed, -1)
    if not calc_q:
        return h
    # the reflectors act on rows and columns 1.. only: Q = [[1, 0], [0, their product]]
    inner = lax_linalg.householder_product(packed[..., 1:, :-1], taus)
    q = jnp.zeros_like(packed).at[..., 0, 0].set(1).at[..., 1:, 1:].set(inner)
    return h, q


def _rsf2csf_2d(t, z):
    """Each 2x2 block of the real Schur form t, bottom to top, turned triangular by a complex
    Givens rotation g (applied to t's rows and columns, and to z's columns): g maps the
    block's first eigenvalue (geev's order) to the top."""
    t, z = promote_dtypes_complex(t, z)
    n = t.shape[0]
    if n == 1:
        return t, z
    eps = jnp.finfo(t.dtype).eps
    index = jnp.arange(n)

    def rotate(m, t, z):
        mu = jnp_linalg.eigvals(lax.dynamic_slice(t, (m - 1, m - 1), (2, 2))) - t[m, m]
        r = jnp_linalg.norm(jnp.array([mu[0], t[m, m - 1]])).astype(t.dtype)
        c, s = mu[0] / r, t[m, m - 1] / r
        g = jnp.array([[c.conj(), s], [-s, c]], dtype=t.dtype)
        rows = lax.dynamic_slice_in_dim(t, m - 1, 2, axis=0)      # columns m-1 on change
        rows = jnp.where(index >= m - 1, g @ jnp.where(index >= m - 1, rows, 0), rows)
        t = lax.dynamic_update_slice_in_dim(t, rows, m - 1, axis=0)
        cols = lax.dynamic_slice_in_dim(t, m - 1, 2, axis=1)      # rows up to m change
        above = index[:, None] < m + 1
        cols = jnp.where(above, jnp.where(above, cols, 0) @ g.conj().T, cols)
        t = lax.dynamic_update_slice_in_dim(t, cols, m - 1, axis=1)
        zc = lax.dynamic_slice_in_dim(z, m - 1, 2, axis=1)
        return t, lax.dynamic_update_slice_in_dim(z, zc @ g.conj().T, m - 1, axis=1)

    def step(i, tz):
        m = n - i
        t, z = tz
        block = jnp.abs(t[m, m - 1]) > eps * (jnp.abs(t[m - 1, m - 1]) + jnp.abs(t[m, m]))
        t, z = lax.cond(block, rotate, lambda m, t, z: (t, z), m, t, z)
        return t.at[m, m - 1].set(0), z
    return fori_loop(1, n, step, (t, z))


@jax_jitted(static_argnames=("check_finite",))
def rsf2csf(T, Z, check_finite: bool = True):
    """(T, Z) of a real Schur decomposition (`schur(a)`) as a complex one: T made upper
    triangular, Z unitary, still a = Z T Z^H. Batched over leading dims.

    >>> T, Z = rsf2csf(*schur(jnp.array([[0., -1.], [1., 0.]])))
    >>> jnp.round(T, 4)
    Array([[0.+1.j, 0.+0.j],
           [0.+0.j, 0.-1.j]], dtype=complex64)
    """
    del check_finite                    # (no value checks under jit, as in JAX)
    t, z = jnp.asarray(T), jnp.asarray(Z)
    if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
        raise ValueError("Input 'T' must be square.")
    if z.ndim < 2 or z.shape[-1] != z.shape[-2]:
        raise ValueError("Input 'Z' must be square.")
    if t.shape[-1] != z.shape[-1]:
        raise ValueError(f"Input array shapes must match: Z: {z.shape} vs. T: {t.shape}")
    return jnp.vectorize(_rsf2csf_2d, signature="(n,n),(n,n)->(n,n),(n,n)")(t, z)


def _triangular_sylvester(r, s, f):
    """Y with r Y + Y s = f, r upper and s lower triangular: each Y[i, j] from those below
    and right of it, bottom-right first (Bartels and Stewart's back substitution)."""
    m, n = f.shape
    rows, cols = jnp.arange(m), jnp.arange(n)

    def element(step, y):
        i, j = (m * n - 1 - step) // n, (m * n - 1 - step) % n
        known = jnp.sum(jnp.where(rows > i, r[i, :] * y[:, j], 0)) + \
            jnp.sum(jnp.where(cols > j, y[i, :] * s[:, j], 0))
        return y.at[i, j].set((f[i, j] - known) / (r[i, i] + s[j, j]))
    return fori_loop(0, m * n, element, jnp.zeros_like(f))


def _solve_sylvester_2d(a, b, c, *, method, tol):
    if method == "schur":
        r, u = _schur(a, "complex")
        s, v = _schur(b.conj().T, "complex")
        f = u.conj().T @ c.astype(r.dtype) @ v
        x = u @ _triangular_sylvester(r, s.conj().T, f) @ v.conj().T
    elif method == "eigen":
        wa, ua = jnp_linalg.eig(a)
        wb, ub = jnp_linalg.eig(b)
        f = solve(ua, c.astype(wa.dtype) @ ub)
        x = ua @ (f / (wa[:, None] + wb[None, :])) @ inv(ub)
    else:
        raise ValueError(f'Unrecognized method {method}. The two valid methods are either '
                         f'"schur" or "eigen".')
    if not jnp.iscomplexobj(c):
        x = x.real
    # no unique solution where an eigenvalue of a and one of -b (nearly) meet: NaN
    sums = jnp_linalg.eigvals(a)[:, None] + jnp_linalg.eigvals(b)[None, :]
    return lax.cond(jnp.any(jnp.abs(sums) < tol), lambda: jnp.zeros_like(x) * np.nan,
                    lambda: x)


@jax_jitted
@jnp_jit(static_argnames=("method",))
def solve_sylvester(A, B, C, *, method: str = "schur", tol: float = 1e-8):
    """X with A X + X B = C (A m×m, B n×n, C m×n, batched over leading dims): by the Schur
    forms of A and B^H and back substitution ('schur', Bartels-Stewart, CPU only), or by
    eigendecompositions ('eigen'). NaN where the equation has no unique solution (an
    eigenvalue of A within `tol` of minus one of B).

    >>> solve_sylvester(jnp.eye(2), 2 * jnp.eye(2), 3 * jnp.ones((2, 2)))
    Array([[1., 1.],
           [1., 1.]], dtype=float32)
    """
    A, B, C = promote_dtypes_inexact(jnp.asarray(A), jnp.asarray(B), jnp.asarray(C))
    m, n = C.shape[-2:]
    if A.shape[-2:] != (m, m) or B.shape[-2:] != (n, n):
        raise ValueError(f"Incompatible shapes for Sylvester equation:\nA: {A.shape}\n"
                         f"B: {B.shape}\nC: {C.shape}")
    return jnp.vectorize(functools.partial(_solve_sylvester_2d, method=method, tol=tol),
                         signature="(m,m),(n,n),(m,n)->(m,n)")(A, B, C)


@jax_jitted
@jnp_jit(static_argnames=("upper_triangular", "max_squarings"))
def expm(A, *, upper_triangular: bool = False, max_squarings: int = 16):
    """The matrix exponential of (batched) square A, by Pade approximation with scaling and
    squaring; NaN if more than max_squarings squarings would be needed. Differentiable
    (through the algorithm, as in JAX); upper_triangular=True uses a triangular solve.

    >>> expm(jnp.array([[0., 1.], [0., 0.]]))
    Array([[1., 1.],
           [0., 1.]], dtype=float32)
    """
    A, = promote_dtypes_inexact(A)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"Expected A to be a (batched) square matrix, got A.shape={A.shape!r}.")
    if A.ndim > 2:
        return jnp.vectorize(functools.partial(expm, upper_triangular=upper_triangular,
                                               max_squarings=max_squarings),
                             signature="(n,n)->(n,n)")(A)
    P, Q, n_squarings = _calc_P_Q(jnp.asarray(A))

    def compute(args):
        _, P, Q = args
        R = solve_triangular(Q, P) if upper_triangular else jnp_linalg.solve(Q, P)
        return _squaring(R, n_squarings, max_squarings)

    return lax.cond(n_squarings > max_squarings, lambda args: jnp.full_like(args[0], np.nan),
                    compute, (A, P, Q))


@jax_jitted
@jnp_jit(static_argnames=("method", "compute_expm"))
def expm_frechet(A, E, *, method=None, compute_expm: bool = True):
    """The Frechet derivative of expm at A in direction E (the jvp of expm), with expm(A)
    first unless compute_expm=False.

    >>> expm_frechet(jnp.zeros((2, 2)), jnp.eye(2), compute_expm=False)
    Array([[1., 0.],
           [0., 1.]], dtype=float32)
    """
    del method
    A, E = jnp.asarray(A), jnp.asarray(E)
    if A.ndim < 2 or A.shape[-2] != A.shape[-1]:
        raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={A.shape}")
    if E.ndim < 2 or E.shape[-2] != E.shape[-1]:
        raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={E.shape}")
    if A.shape != E.shape:
        raise ValueError(f"expected A and E to be the same shape, got A.shape={A.shape} "
                         f"E.shape={E.shape}")
    expm_A, frechet = jvp(functools.partial(expm, upper_triangular=False, max_squarings=16),
                          (A,), (E,))
    return (expm_A, frechet) if compute_expm else frechet
