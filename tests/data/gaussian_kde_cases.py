"""Cases for jax.scipy.stats.gaussian_kde, evaluated by real JAX
(reference/make_gaussian_kde_reference.py writes gaussian_kde_reference.npz) and by jxkernel
(tests/scipy/test_gaussian_kde.py compares values, dtypes and weak types). The x32 cases are one
jitted program (the estimators are built from traced data: they are pytrees of arrays);
`x64` says which mode the caller runs `cases` in."""
import numpy as np


def operands(dtype=np.float32):
    rng = np.random.RandomState(11)
    return {"one": rng.randn(30).astype(dtype),
            "two": (rng.randn(2, 40) * np.array([[1.0], [0.5]])).astype(dtype),
            "other": rng.randn(2, 25).astype(dtype),
            "weights": rng.rand(40).astype(dtype) + 0.1,
            "grid": np.linspace(-3, 3, 7).astype(dtype),
            "points": rng.randn(2, 5).astype(dtype)}


def attributes(kde) -> dict:
    return {"neff": kde.neff, "dataset": kde.dataset, "weights": kde.weights,
            "covariance": kde.covariance, "inv_cov": kde.inv_cov}


def one_dimensional(jax, stats, one, grid):
    """Scott's rule on 1-D data: the density, its log far in the tails (logsumexp keeps it
    finite), the box and Gaussian integrals, the gradient of the log density; the
    covariance the other bandwidth rules give."""
    kde = stats.gaussian_kde(one)
    out = {f"attr_{k}": v for k, v in attributes(kde).items()}
    out.update(evaluate=kde.evaluate(grid), call=kde(grid), logpdf_tails=kde.logpdf(grid * 9),
               pdf_scalar=kde.pdf(0.25), box=kde.integrate_box_1d(-1.0, 0.5),
               box_outside=kde.integrate_box_1d(5.0, 9.0),
               gaussian=kde.integrate_gaussian(0.3, 0.8),
               grad_points=jax.grad(lambda x: kde.logpdf(x).sum())(grid))
    for bw, tag in ((0.3, "scalar"), ("silverman", "silverman"),
                    (lambda k: 0.5 * k.neff ** -0.2, "callable")):
        out[f"bw_{tag}"] = stats.gaussian_kde(one, bw_method=bw).covariance
    return out, kde


def two_dimensional(jax, stats, two, other, weights, points):
    """Weighted 2-D data with Silverman's rule: the density at several points and at one
    given as a flat vector, the Gaussian and KDE integrals, resampling."""
    kde = stats.gaussian_kde(two, bw_method="silverman", weights=weights)
    other_kde = stats.gaussian_kde(other, bw_method=0.6)
    out = {f"attr_{k}": v for k, v in attributes(kde).items()}
    out.update(evaluate=kde.evaluate(points), one_point=kde.evaluate(points[:, 0]),
               gaussian=kde.integrate_gaussian(points[:, 1], 0.5 * np.eye(2, dtype=two.dtype)),
               kde_product=other_kde.integrate_kde(kde),
               resample=kde.resample(jax.random.key(3), (4,)))
    return out


def cases(jax, jnp, stats, x64: bool) -> dict:
    """x32: both groups as one jitted program, whose 1-D estimator comes out of it (a
    pytree) and goes into another jitted function; x64: a 1-D evaluation."""
    ops = operands(np.float64 if x64 else np.float32)
    if x64:
        def doubles(one, grid):
            kde = stats.gaussian_kde(one)
            return {"evaluate": kde.evaluate(grid), "neff": kde.neff}
        return jax.jit(doubles)(ops["one"], ops["grid"])

    def both(one, two, other, weights, grid, points):
        first, kde = one_dimensional(jax, stats, one, grid)
        second = two_dimensional(jax, stats, two, other, weights, points)
        return {**{f"1d/{k}": v for k, v in first.items()},
                **{f"2d/{k}": v for k, v in second.items()}}, kde

    out, kde = jax.jit(both)(ops["one"], ops["two"], ops["other"], ops["weights"],
                             ops["grid"], ops["points"])
    out["1d/through_jit"] = jax.jit(lambda k, x: k.logpdf(x))(kde, ops["grid"] + 0.5)
    return out


def ulps(name: str) -> int:
    """Everything goes through a Cholesky factor or an inverse (LAPACK on CPU) and sums of
    exponentials, compared at the result's largest magnitude: the LAPACK bound (64)."""
    return 64
