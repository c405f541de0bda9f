"""Nonsymmetric eigendecomposition cases evaluated by both real JAX 0.10.2
(reference/make_eig_reference.py writes eig_reference.npz) and jxkernel (tests/lax/test_linalg_eig.py
compares): lax.linalg.eig, jnp.linalg.eig/eigvals, their derivatives, and jnp.roots.
`jax` is the jax module (jxkernel or the real one), run in x64 mode."""
import numpy as np

from numerics import LAPACK

# How tests/lax/test_linalg_eig.py compares every leaf with JAX's (tests/support/numerics.py): geev and its
# Hessenberg/QR kernels differ per CPU (OpenBLAS's blocking, FMA), so all floats here (values,
# vectors, derivatives, roots) are compared within ULPS, measured at the largest |value| of the
# leaf: eigen-errors scale with the matrix's norm, not with each small entry. Worst seen over
# Intel AVX-512 / AVX2 / AVX / SSE4.2 code generation and OpenBLAS kernels, against data from
# an AMD EPYC: 17 ulps (float32), 14 (float64), eigenvectors sign-aligned.
ULPS = LAPACK
# Eigenvectors are defined up to a sign per column (geev: unit norm, largest component real;
# the sign is the kernel's choice, and AVX-512 flips some): by case-name prefix, leaf index ->
# the eigenvector leaf whose column signs it shares (a tangent flips with its vector). The test
# aligns those signs with JAX's before comparing.
SIGN_FREE = {"jvp_eigvecs_": {1: 1, 2: 2, 4: 1, 5: 2}, "eig_full_": {1: 1, 2: 2},
             "eig_left_": {1: 1}, "eig_": {1: 1}}

# real polynomials (leading zeros and zero roots included) for jnp.roots
POLYS = [[1., -6., 11., -6.], [1., 0., 1.], [2., 3., -1., 5., .5], [0., 0., 1., -3., 2.],
         [1., -3., 2., 0., 0.], [0., 1., -3., 2., 0., 0.], [3., 1.]]


def inputs(dtype):
    """Named matrices of `dtype` (a real float dtype; complex inputs are built from it)."""
    rng = np.random.RandomState(0)
    cdtype = np.result_type(dtype, np.complex64)
    return {
        # one real eigenvalue and a complex-conjugate pair
        "pair": np.array([[1., 2., 0.], [-2., 1., 1.], [.5, 0., 3.]], dtype),
        "r5": rng.randn(5, 5).astype(dtype),
        "c4": (rng.randn(4, 4) + 1j * rng.randn(4, 4)).astype(cdtype),
        "batch": rng.randn(2, 3, 4, 4).astype(dtype),
        # well separated real eigenvalues (near 1, 2, 3, 4), for derivatives
        "dist": (np.diag([1., 2., 3., 4.]) + .2 * rng.randn(4, 4)).astype(dtype),
        "tangent": rng.randn(4, 4).astype(dtype),
        "ctangent": (rng.randn(4, 4) + 1j * rng.randn(4, 4)).astype(cdtype),
    }


def cases(jax, dtypes=(np.float32, np.float64), roots=True):
    """Every case ({name: result}); without `roots`, the jnp.roots cases are left out (they
    strip leading zeros by their values, so they cannot run under jit: roots_cases)."""
    jnp, eig = jax.numpy, jax.lax.linalg.eig
    out = {}
    for dt in dtypes:
        n = np.dtype(dt).name
        x = inputs(dt)
        for name in ("pair", "r5", "c4"):
            out[f"eig_full_{name}_{n}"] = eig(x[name])
            out[f"eig_{name}_{n}"] = tuple(jnp.linalg.eig(x[name]))
            out[f"eigvals_{name}_{n}"] = jnp.linalg.eigvals(x[name])
            out[f"eig_left_{name}_{n}"] = eig(x[name], compute_right_eigenvectors=False)
        out[f"eig_batch_{n}"] = tuple(jnp.linalg.eig(x["batch"]))
        out[f"eigvals_batch_{n}"] = jnp.linalg.eigvals(x["batch"])
        out[f"jvp_eigvals_dist_{n}"] = jax.jvp(jnp.linalg.eigvals, (x["dist"],),
                                               (x["tangent"],))
        out[f"jvp_eigvals_pair_{n}"] = jax.jvp(jnp.linalg.eigvals, (x["pair"],),
                                               (x["tangent"][:3, :3],))
        out[f"jvp_eigvals_c4_{n}"] = jax.jvp(jnp.linalg.eigvals, (x["c4"],), (x["ctangent"],))
        out[f"grad_absw_pair_{n}"] = jax.grad(
            lambda a: jnp.abs(jnp.linalg.eigvals(a)).sum())(x["pair"])
        full = lambda a: eig(a, enable_eigvec_derivs=True)
        out[f"jvp_eigvecs_dist_{n}"] = jax.jvp(full, (x["dist"],), (x["tangent"],))
        out[f"jvp_eigvecs_c4_{n}"] = jax.jvp(full, (x["c4"],), (x["ctangent"],))
    return {**out, **roots_cases(jax, dtypes)} if roots else out


def roots_cases(jax, dtypes=(np.float32, np.float64)):
    """The jnp.roots cases of `cases`."""
    out = {}
    for dt in dtypes:
        n = np.dtype(dt).name
        for i, p in enumerate(POLYS):
            out[f"roots_{i}_{n}"] = jax.numpy.roots(np.array(p, dt))
            out[f"roots_nostrip_{i}_{n}"] = jax.numpy.roots(np.array(p, dt), strip_zeros=False)
    return out
