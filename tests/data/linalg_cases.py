"""jnp.linalg cases evaluated by both real JAX (reference/make_linalg_reference.py writes the results to
linalg_reference.npz) and jxkernel (tests/test_numpy_linalg.py compares): values and
derivatives, float32 and float64 (run in x64 mode). `la` is the jnp.linalg module."""
import numpy as np


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
