"""jnp.linalg cases evaluated by both real JAX (reference/make_linalg_reference.py writes the results to
linalg_reference.npz) and jxkernel (tests/numpy/test_numpy_linalg.py compares): values and
derivatives, float32 and float64 (run in x64 mode). `la` is the jnp.linalg module."""
import numpy as np

from numerics import LAPACK

# How tests/numpy/test_numpy_linalg.py compares each output leaf with JAX's: LAPACK's blocked kernels
# (OpenBLAS picks them per CPU) and XLA's fused code around them round differently per CPU, so
# every float is compared in ulps measured at the leaf's largest |value| (a factorization's
# error scales with the matrix's norm, not with each small entry). The bound by case name (the
# key without its dtype), LAPACK where none is listed. Worst seen over Intel AVX-512 / AVX2 /
# AVX / SSE4.2 code generation and OpenBLAS kernels against the AMD EPYC data: 19 ulps (float32)
# and 10 (float64) for the unlisted cases; in brackets for the listed ones.
ULPS = {
    # spd[0]'s two lowest eigenvalues lie 0.13 apart at norm 17: its eigenvectors carry 127x
    # the rounding of the matrix [63, float64]
    "eigh": 4 * LAPACK, "svdh": 4 * LAPACK,
    # and the eigenvectors' derivative divides by that gap once more [127, float64]
    "g_eigh": 8 * LAPACK,
}
# Eigen and singular vectors are defined up to a sign each: by case name, leaf index -> (the
# leaf whose vectors decide the signs, "columns" or "rows"); see align_signs.
SIGN_FREE = {"eigh": {1: (1, "columns")},
             "svd": {0: (0, "columns"), 2: (0, "rows")}, "svdh": {0: (0, "columns"), 2: (0, "rows")}}


def align_signs(got, want, spec):
    """`got`'s leaves with each eigen/singular vector turned to the sign of `want`'s.

    spec: leaf index -> (index of the leaf whose vectors decide, "columns" or "rows"). A
    vector's sign is the sign of its overlap with the reference vector, so a vector that rounding
    changed a little keeps its sign and one that the kernel flipped is flipped back (singular
    vector pairs together: U's columns decide Vh's rows).
    """
    got = [np.asarray(g) for g in got]
    signs = {}
    for j in {j for j, _ in spec.values()}:
        overlap = np.sum(np.conj(want[j]) * got[j], axis=-2).real
        signs[j] = np.where(overlap < 0, -1, 1).astype(got[j].real.dtype)
    out = list(got)
    for i, (j, axis) in spec.items():
        s = signs[j]
        if axis == "columns":
            out[i] = got[i] * s[..., None, :]
        else:
            k = got[i].shape[-2]
            out[i] = got[i] * s[..., :k, None]
    return out


def cases(jax, la, dtypes=(np.float32, np.float64)):
    out = {}
    for dt in dtypes:
        rng = np.random.RandomState(0)
        n = np.dtype(dt).name
        a = rng.randn(2, 4, 4).astype(dt)
        b = rng.randn(2, 4, 3).astype(dt)
        r = rng.randn(5, 3).astype(dt)
        spd = (a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4)).astype(dt)
        t = rng.randn(2, 4, 4).astype(dt)
        out[f"solve_{n}"] = la.solve(a, b)
        out[f"solvev_{n}"] = la.solve(a[0], b[0, :, 0])
        out[f"inv_{n}"] = la.inv(a)
        out[f"det_{n}"] = la.det(a)
        out[f"det5_{n}"] = la.det(rng.randn(5, 5).astype(dt))
        out[f"slogdet_{n}"] = la.slogdet(a)
        out[f"slogdetqr_{n}"] = la.slogdet(a, method="qr")
        out[f"eigh_{n}"] = la.eigh(spd)
        out[f"svd_{n}"] = la.svd(r, full_matrices=False)
        out[f"svdh_{n}"] = la.svd(spd[0], hermitian=True)
        out[f"pinv_{n}"] = la.pinv(r)
        out[f"lstsq_{n}"] = la.lstsq(r, r[:, 0] + 1)
        for o in [None, 1, -1, 2, -2, np.inf, "nuc"]:
            out[f"norm_{o}_{n}"] = la.norm(a, ord=o, axis=(-2, -1))
        for o in [None, 0, 1, 3, np.inf, -1]:
            out[f"vnorm_{o}_{n}"] = la.norm(a, ord=o, axis=-1)
        out[f"mpow_{n}"] = la.matrix_power(a, 5)
        out[f"mpowneg_{n}"] = la.matrix_power(a, -2)
        out[f"rank_{n}"] = la.matrix_rank(a)
        out[f"cond_{n}"] = la.cond(a)
        out[f"chol_{n}"] = la.cholesky(spd, upper=True)
        out[f"qr_{n}"] = la.qr(r)
        # derivatives
        out[f"g_solve_{n}"] = jax.grad(lambda a, b: la.solve(a, b).sum(), (0, 1))(a, b)
        out[f"g_det_{n}"] = jax.grad(lambda a: la.det(a).sum())(a)
        out[f"g_det5_{n}"] = jax.grad(lambda a: la.det(a).sum())(rng.randn(5, 5).astype(dt))
        out[f"g_slogdet_{n}"] = jax.grad(lambda a: la.slogdet(a)[1].sum())(a)
        out[f"j_slogdet_{n}"] = jax.jvp(lambda a: la.slogdet(a), (a,), (t,))[1]
        out[f"g_inv_{n}"] = jax.grad(lambda a: la.inv(a).sum())(a)
        out[f"g_pinv_{n}"] = jax.grad(lambda a: la.pinv(a).sum())(r)
        out[f"g_eigh_{n}"] = jax.grad(
            lambda a: la.eigh(a)[0].sum() + la.eigh(a)[1][..., 0].sum())(spd)
        out[f"g_svd_{n}"] = jax.grad(lambda a: la.svd(a, compute_uv=False).sum())(r)
        out[f"g_norm2_{n}"] = jax.grad(lambda a: la.norm(a, ord=2))(r)
        out[f"g_qr_{n}"] = jax.grad(lambda a: la.qr(a)[0].sum() + la.qr(a)[1].sum())(r)
        out[f"g_chol_{n}"] = jax.grad(lambda a: la.cholesky(a).sum())(spd)
        out[f"g_lstsq_{n}"] = jax.grad(lambda a: la.lstsq(a, r[:, 0] + 1)[0].sum())(r)
        out[f"g_mpow_{n}"] = jax.grad(lambda a: la.matrix_power(a, 3).sum())(a)
    return out
