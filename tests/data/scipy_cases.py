"""jax.scipy.stats and jax.scipy.linalg cases evaluated by both real JAX
(reference/make_scipy_reference.py writes scipy_reference.npz) and jxkernel
(tests/scipy/test_scipy_stats.py, tests/scipy/test_scipy_linalg.py compare values, dtypes and weak
types). `dt` is the float dtype of the array inputs (float64 cases run in x64 mode); Python
scalars stay Python scalars, so weak types show."""
import numpy as np

from numerics import LAPACK, REDUCTION

NAN, INF = np.nan, np.inf


def _a(values, dt):
    return np.array(values, dtype=dt)


# How tests/scipy/test_scipy_stats.py compares each case with JAX's: XLA's vectorized exp/log/lgamma
# and its fusions round differently per CPU (FMA or not, vector width), so floats are compared
# in ulps: REDUCTION for a composition of a few such functions, the bound below where more is
# needed (a case name without its dtype). Log-space results (log-densities, logcdf, logsf) are
# measured at max(|value|, 1): one near 0 is the difference of O(1) terms. Worst seen over Intel
# AVX-512 / AVX2 / AVX / SSE4.2 code generation against the AMD EPYC data: 8 ulps for the
# unlisted cases; in brackets for the listed ones (float32 / float64).
STATS_ULPS = {
    # regularized incomplete gamma and beta: series and continued fractions [12 / 21]
    "beta.cdf": 4 * REDUCTION, "beta.sf": 4 * REDUCTION, "gamma.sf": 4 * REDUCTION,
    "chi2.cdf": 4 * REDUCTION, "chi2.sf": 4 * REDUCTION, "d.beta.cdf": 4 * REDUCTION,
    "poisson.cdf": 8 * REDUCTION,                                           # [50 / 47]
    # exp of a sum of lgamma terms up to ~75: the sum's rounding, at the terms' size, becomes
    # the result's relative error
    "nbinom.pmf": 32 * REDUCTION,                                           # [201 / 161]
    "binom.pmf": 16 * REDUCTION, "chi2.pdf": 16 * REDUCTION,                # [62 / 69]
    "poisson.pmf": 8 * REDUCTION, "gennorm.pdf": 8 * REDUCTION,             # [51 / 42]
    "t.pdf": 8 * REDUCTION,                                                 # [32 / 33]
    "gamma.pdf": 4 * REDUCTION, "betabinom.pmf": 4 * REDUCTION,             # [10 / 18]
    "dirichlet.pdf_short": 4 * REDUCTION,                                   # [12]
    # the same sums in log space, measured at 1 [32 / 16]
    "binom.logpmf": 8 * REDUCTION, "nbinom.logpmf": 4 * REDUCTION,
    "dirichlet.logpdf": 2 * REDUCTION,                                      # [10]
    # a sum of ~100 series terms [71 / 79]
    "poisson.entropy": 16 * REDUCTION,
    # through the covariance's Cholesky factor (LAPACK): at the largest |value| [0.16 there]
    "d.mvn.logpdf": LAPACK,
    # exp(kappa (cos(x - loc) - 1)): the exponent's rounding times its size (~20) at 2.8e-9;
    # float64's 24 at XLA's default level (JAX_DISABLE_MOST_OPTIMIZATIONS=0)
    "vonmises.pdf": 2 * REDUCTION,
}
STATS_AT_LARGEST = {"d.mvn.logpdf"}


def stats_log_space(name):
    """Whether case `name`'s values are logarithms (measured at max(|value|, 1))."""
    method = name.split(".")[-1]
    return not name.startswith("d.") and (method.startswith("log") or name in (
        "norm.weak", "norm.int", "norm.logcdf_tail"))


def stats_cases(jax, jnp, stats, dt):
    """In float64 the cases that only repeat float32's code paths are left out (the suite
    runs every case eagerly, and each compiles)."""
    s, out = stats, {}
    full = dt == np.float32
    x = _a([-3.0, -1.0, -0.25, 0.0, 0.5, 1.0, 2.5, 7.0, INF, NAN], dt)
    pos = _a([0.05, 0.3, 0.5, 1.0, 2.0, 3.5, 10.0, 40.0], dt)
    unit = _a([0.0, 1e-4, 0.1, 0.3, 0.5, 0.9, 0.999, 1.0], dt)
    q = _a([1e-6, 0.025, 0.3, 0.5, 0.8, 0.975, 1.0, 0.0, -0.5, 1.5], dt)
    k = _a([0.0, 1.0, 2.0, 3.0, 7.0, 2.5, -1.0, 20.0], dt)
    for f in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
        out[f"norm.{f}"] = getattr(s.norm, f)(x, 0.5, 2.0)
    out["norm.logcdf_tail"] = s.norm.logcdf(_a([-40.0, -20.0, -9.0, 9.0], dt))
    for f in ("ppf", "isf"):
        out[f"norm.{f}"] = getattr(s.norm, f)(q, 1.0, 3.0)
    out["norm.weak"] = s.norm.logpdf(0.5)
    out["norm.weak_ppf"] = s.norm.ppf(0.5)
    out["norm.int"] = s.norm.logpdf(np.arange(3))
    out["t.logpdf"] = s.t.logpdf(x, _a(3.0, dt), 0.5, 2.0)
    out["t.pdf"] = s.t.pdf(x[:8], pos)
    for f in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
        out[f"beta.{f}"] = getattr(s.beta, f)(unit, pos, pos[::-1])
        out[f"gamma.{f}"] = getattr(s.gamma, f)(pos[::-1], pos, 0.0, 1.5)
        out[f"chi2.{f}"] = getattr(s.chi2, f)(pos, pos[::-1])
    out["beta.logpdf_bad"] = s.beta.logpdf(_a([0.5, 0.5, 2.0, -1.0], dt), _a([0., 1., 1., 1.], dt),
                                           1.0)
    out["gamma.logpdf_below"] = s.gamma.logpdf(_a([-1.0, 0.0], dt), 2.0, 0.5)
    for f in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"):
        arg = unit if f == "ppf" else x
        out[f"expon.{f}"] = getattr(s.expon, f)(arg, -0.5, 2.0)
    for f in ("logpdf", "pdf", "cdf"):
        out[f"laplace.{f}"] = getattr(s.laplace, f)(x, 0.5, 2.0)
    for f in ("logpdf", "pdf", "cdf", "sf"):
        out[f"logistic.{f}"] = getattr(s.logistic, f)(x, 0.5, 2.0)
    for f in ("ppf", "isf"):
        out[f"logistic.{f}"] = getattr(s.logistic, f)(unit, 0.5, 2.0)
    for f in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
        out[f"cauchy.{f}"] = getattr(s.cauchy, f)(x, 0.5, 2.0)
    for f in ("ppf", "isf"):
        out[f"cauchy.{f}"] = getattr(s.cauchy, f)(unit[1:-1], 0.5, 2.0)
    for f in ("logpdf", "pdf", "cdf"):
        out[f"uniform.{f}"] = getattr(s.uniform, f)(x, -1.0, 3.0)
    out["uniform.ppf"] = s.uniform.ppf(q, -1.0, 3.0)
    for f in ("logpmf", "pmf", "cdf"):
        out[f"poisson.{f}"] = getattr(s.poisson, f)(k, pos)
    out["poisson.entropy"] = s.poisson.entropy(_a([0.0, 0.5, 3.0, 12.0, 80.0, 150.0], dt))
    bk = _a([0.0, 1.0, 1.0, 0.0, 2.0, -1.0, 0.5, 1.0], dt)
    bp = _a([0.3, 0.3, 0.0, 1.0, 0.5, 0.5, 0.2, 1.5], dt)
    for f in ("logpmf", "pmf"):
        out[f"bernoulli.{f}"] = getattr(s.bernoulli, f)(bk, bp)
    out["bernoulli.cdf"] = s.bernoulli.cdf(bk, bp)
    out["bernoulli.ppf"] = s.bernoulli.ppf(unit, 0.4)
    n = _a([5.0, 5.0, 10.0, 0.0, 3.0, 20.0, 4.0, 30.0], dt)
    p = _a([0.3, 0.0, 0.5, 0.5, 1.0, 0.1, 0.9, 0.45], dt)
    for f in ("logpmf", "pmf"):
        out[f"binom.{f}"] = getattr(s.binom, f)(k, n, p)
        out[f"nbinom.{f}"] = getattr(s.nbinom, f)(k, n + 1, p[::-1] * 0.9 + 0.05)
        out[f"geom.{f}"] = getattr(s.geom, f)(k, p * 0.9 + 0.05)
        out[f"betabinom.{f}"] = getattr(s.betabinom, f)(k, n, pos, pos[::-1])
    alpha = _a([0.5, 2.0, 3.0], dt)
    xs = _a([[0.2, 0.1, 0.5], [0.3, 0.6, 0.2], [0.5, 0.3, 0.3]], dt)
    out["dirichlet.logpdf"] = s.dirichlet.logpdf(xs, alpha)
    out["dirichlet.pdf_short"] = s.dirichlet.pdf(xs[:2, 0], alpha)
    for f in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf") if full else ("logpdf", "cdf"):
        out[f"truncnorm.{f}"] = getattr(s.truncnorm, f)(x, -1.0, _a(2.0, dt), 0.25, 1.5)
    out["truncnorm.tails"] = s.truncnorm.logpdf(_a([5.5, 9.0, -7.0, 0.0], dt),
                                                _a([5.0, 8.0, -9.0, 1.0], dt),
                                                _a([6.0, 10.0, -6.0, 0.5], dt))
    ang = _a([0.0, 0.5, 1.5, 3.0, 6.0, 7.0, -0.1, 3.14], dt)
    for f in ("logpdf", "pdf"):
        out[f"vonmises.{f}"] = getattr(s.vonmises, f)(ang, _a([1.0, 0.5, 2.0, 10.0, 0.1, 50.,
                                                               -1.0, 3.0], dt))
        out[f"wrapcauchy.{f}"] = getattr(s.wrapcauchy, f)(ang, _a([0.5, 0.1, 0.9, 0.3, 0.0,
                                                                   0.5, 0.5, 1.0], dt))
    for f in ("logpdf", "pdf", "cdf"):
        out[f"gennorm.{f}"] = getattr(s.gennorm, f)(x[:8], pos)
    for f in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
        out[f"pareto.{f}"] = getattr(s.pareto, f)(x + 2, pos[:1], 0.5, 1.0)
    out["pareto.ppf"] = s.pareto.ppf(q, 3.0, 0.5, 2.0)
    for mod in ("gumbel_r", "gumbel_l") if full else ():
        for f in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
            out[f"{mod}.{f}"] = getattr(getattr(s, mod), f)(x, 0.5, 2.0)
        out[f"{mod}.ppf"] = getattr(s, mod).ppf(q, 0.5, 2.0)
    out["multinomial.logpmf"] = s.multinomial.logpmf(np.array([[1, 2, 0], [1, 1, 1]]), 3,
                                                     _a([0.2, 0.5, 0.3], dt))
    mean = _a([0.5, -1.0, 2.0], dt)
    cov = _a([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]], dt)
    mx = _a([[0.0, 0.0, 0.0], [1.0, -1.0, 2.5], [3.0, 2.0, 1.0]], dt)
    out["mvn.logpdf"] = s.multivariate_normal.logpdf(mx, mean, cov)
    out["mvn.pdf"] = s.multivariate_normal.pdf(mx[0], mean, cov)
    out["mvn.iso"] = s.multivariate_normal.logpdf(mx, mean, _a(2.0, dt))
    out["mvn.scalar"] = s.multivariate_normal.logpdf(x[:8], _a(0.5, dt), _a(2.0, dt))
    out["mvn.batched_cov"] = s.multivariate_normal.logpdf(mx, mean, np.stack([cov, 2 * cov,
                                                                             cov + np.eye(3)]))
    if not full:
        return out
    data = _a([[3.0, 1.0, 2.0, 2.0], [1.0, 1.0, 5.0, 0.0]], dt)
    out["mode"] = s.mode(data, axis=1)
    out["mode_none"] = s.mode(np.array([1, 3, 3, 2, 2, 2]), axis=None, keepdims=True)
    for method in ("average", "min", "max", "dense", "ordinal"):
        out[f"rankdata.{method}"] = s.rankdata(data[0], method)
    out["rankdata.axis"] = s.rankdata(data, axis=1)
    out["sem"] = s.sem(data, axis=1)
    out["sem_none"] = s.sem(data, axis=None, ddof=0)
    # derivatives
    g = jax.grad
    out["d.norm.logpdf"] = jax.vmap(g(s.norm.logpdf, (0, 1, 2)))(x[:8], pos, pos[::-1])
    out["d.norm.cdf"] = jax.vmap(g(s.norm.cdf, (0, 1, 2)))(x[:8], pos, pos[::-1])
    out["d.norm.logcdf"] = jax.vmap(g(s.norm.logcdf))(_a([-30.0, -5.0, 0.0, 3.0], dt))
    out["d.mvn.logpdf"] = g(lambda m, c: s.multivariate_normal.logpdf(mx, m, c).sum(),
                            (0, 1))(mean, cov)
    out["d.t.logpdf"] = jax.vmap(g(s.t.logpdf, (0, 1)))(x[:8], pos)
    out["d.gamma.logpdf"] = jax.vmap(g(s.gamma.logpdf, (0, 1)))(pos, pos[::-1])
    out["d.beta.cdf"] = jax.vmap(g(s.beta.cdf, 0))(unit[1:-1], pos[:6], pos[2:])
    out["d.truncnorm.logpdf"] = jax.vmap(g(s.truncnorm.logpdf, (0, 1, 2)))(
        _a([0.0, 0.5, 1.0], dt), _a([-1.0, 0.2, 0.9], dt), _a([2.0, 3.0, 1.5], dt))
    return out


# How tests/scipy/test_scipy_linalg.py compares each leaf with JAX's: LAPACK's kernels (chosen per
# CPU) and XLA's fused code round differently per CPU, so floats are compared in ulps measured
# at the leaf's largest |value| (a factorization's error scales with the matrix's norm), the
# bound by case name, LAPACK where none is listed. Worst seen over Intel AVX-512 / AVX2 / AVX /
# SSE4.2 code generation and OpenBLAS kernels against the AMD EPYC data: 26 ulps (invhilbert,
# float32) for the unlisted cases; in brackets for the listed ones.
LINALG_ULPS = {
    # a's spd (= a a^T + 4): its two lowest eigenvalues lie 0.13 apart at norm 17, so its
    # eigenvectors carry 127x the rounding [63, float64]
    "eigh": 4 * LAPACK,
    # 30 a: six squarings, each doubling the Pade approximant's relative error [147, float32]
    "expm_30.0": 8 * LAPACK,
    # 3 a: the same through the derivative's squarings [36, float32]
    "d.expm_f64_degrees": 2 * LAPACK,
}
# On the NumPy backend (`pytest --backend numpy`), bounds by case name where XLA's compiler
# moves its result and no NumPy rule follows it, measured, as LINALG_ULPS
NUMPY_BACKEND_LINALG_ULPS = {
    # XLA's CPU adds a small float64 dot's products one after another (measured bit for bit
    # for 4x4 to 7x7, not 8x4 by 4x8), NumPy's matmul calls BLAS; six squarings of a norm-30
    # matrix compound it [1,180, float64]
    "expm_30.0": 24 * LAPACK,
}
# Copies, gathers and single IEEE operations (a negation, one division, |a - b|): the same
# bits on every CPU, compared exactly.
LINALG_EXACT = {"block_diag", "block_diag_int", "toeplitz", "toeplitz_int", "toeplitz_batched",
                "hankel", "circulant", "leslie", "companion", "fiedler", "fiedler_companion",
                "convolution_matrix_full", "convolution_matrix_same", "convolution_matrix_valid",
                "hilbert", "hadamard", "hadamard_float"}
# Eigen and singular vectors are defined up to a sign each: leaf index -> (the leaf whose
# vectors decide the signs, "columns" or "rows"), as linalg_cases.align_signs takes them.
LINALG_SIGN_FREE = {"svd": {0: (0, "columns"), 2: (0, "rows")},
                    "svd_thin": {0: (0, "columns"), 2: (0, "rows")},
                    "eigh": {1: (1, "columns")}}


def linalg_cases(jax, jnp, linalg, dt):
    L, out = linalg, {}
    rng = np.random.RandomState(0)
    a = _a(rng.randn(4, 4), dt)
    spd = _a(a @ a.T + 4 * np.eye(4), dt)
    b = _a(rng.randn(4, 3), dt)
    bv = _a(rng.randn(4), dt)
    tri = np.tril(a) + _a(4 * np.eye(4), dt)
    batch = _a(rng.randn(2, 3, 3), dt)
    out["cholesky"] = L.cholesky(spd)
    out["cholesky_lower"] = L.cholesky(spd, lower=True)
    for lower in (False, True):
        c = L.cho_factor(spd, lower=lower)
        out[f"cho_solve_{lower}"] = L.cho_solve(c, b)
        out[f"cho_solve_vec_{lower}"] = L.cho_solve(c, bv)
    out["svd"] = L.svd(a)
    out["svd_thin"] = L.svd(a[:, :3], full_matrices=False)
    out["svdvals"] = L.svd(a, compute_uv=False)
    out["det"] = L.det(batch)
    out["eigh"] = L.eigh(spd)
    out["eigh_upper_vals"] = L.eigh(spd, lower=False, eigvals_only=True)
    out["inv"] = L.inv(a)
    out["lu_factor"] = L.lu_factor(a)
    for trans in (0, 1, 2):
        out[f"lu_solve_{trans}"] = L.lu_solve(L.lu_factor(a), b, trans=trans)
    out["lu_solve_vec"] = L.lu_solve(L.lu_factor(a), bv)
    out["lu"] = L.lu(a)
    out["lu_wide"] = L.lu(a[:3])
    out["lu_permute_l"] = L.lu(a[:, :3], permute_l=True)
    out["qr"] = L.qr(a)
    out["qr_economic"] = L.qr(a[:, :3], mode="economic")
    out["qr_r"] = L.qr(a, mode="r")
    out["qr_pivoting"] = L.qr(a, pivoting=True)
    out["solve"] = L.solve(a, b)
    out["solve_pos"] = L.solve(spd, b, assume_a="pos")
    out["solve_pos_vec_lower"] = L.solve(spd, bv, assume_a="pos", lower=True)
    out["solve_pos_batched"] = L.solve(np.stack([spd, 2 * spd]), np.stack([b, b + 1]),
                                        assume_a="pos")
    for trans in (0, "T", 2):
        out[f"solve_triangular_{trans}"] = L.solve_triangular(tri, b, trans=trans, lower=True)
    out["solve_triangular_upper_unit"] = L.solve_triangular(tri.T, bv, unit_diagonal=True)
    out["solve_triangular_batched"] = L.solve_triangular(np.stack([tri, 2 * tri]), b, lower=True)
    for scale in (0.05, 0.5, 2.0, 30.0):        # every Pade degree and some squarings
        out[f"expm_{scale}"] = L.expm(_a(scale * a, dt))
    out["expm_batched"] = L.expm(batch)
    out["expm_upper"] = L.expm(np.triu(a), upper_triangular=True)
    out["expm_nan"] = L.expm(_a(1e4 * a, dt), max_squarings=4)
    out["expm_frechet"] = L.expm_frechet(a, b[:, :1] @ bv[None, :])
    out["expm_frechet_only"] = L.expm_frechet(0.3 * a, spd, compute_expm=False)
    out["polar"] = L.polar(a)
    out["polar_left_svd"] = L.polar(a[:3], side="left", method="svd")
    out["polar_tall"] = L.polar(_a(rng.randn(5, 3), dt))
    out["eigh_tridiagonal"] = L.eigh_tridiagonal(_a([1.0, 2.0, -1.0, 0.5, 3.0], dt),
                                                 _a([0.5, 1.0, 2.0, -0.3], dt), eigvals_only=True)
    out["eigh_tridiagonal_i"] = L.eigh_tridiagonal(_a([1.0, 2.0, -1.0, 0.5], dt),
                                                   _a([0.5, 1.0, 2.0], dt), eigvals_only=True,
                                                   select="i", select_range=(1, 2))
    # the eigenvectors too (inverse iteration from key(42)'s normal vectors, as JAX's), and a
    # cluster of equal eigenvalues, whose vectors are made orthonormal
    out["eigh_tridiagonal_vectors"] = L.eigh_tridiagonal(
        _a([1.0, 2.0, -1.0, 0.5, 3.0], dt), _a([0.5, 1.0, 2.0, -0.3], dt))
    out["eigh_tridiagonal_cluster"] = L.eigh_tridiagonal(_a([1.0, 1.0, 1.0, 2.0], dt),
                                                         _a([0.0, 0.0, 1e-3], dt))
    # special matrices
    out["block_diag"] = L.block_diag(np.ones((1, 2), dt), 2, _a([[3.0], [4.0]], dt))
    out["block_diag_int"] = L.block_diag(np.arange(4).reshape(2, 2), np.array([5]))
    out["toeplitz"] = L.toeplitz(bv, b[:, 0])
    out["toeplitz_int"] = L.toeplitz(np.arange(1, 4))
    out["toeplitz_batched"] = L.toeplitz(b.T)
    out["hankel"] = L.hankel(bv, b[:3, 1])
    out["circulant"] = L.circulant(bv)
    out["leslie"] = L.leslie(bv, b[:3, 0])
    out["companion"] = L.companion(bv)
    out["fiedler"] = L.fiedler(bv)
    out["fiedler_companion"] = L.fiedler_companion(_a([2.0, 1.0, -3.0, 0.5, 4.0], dt))
    for mode in ("full", "same", "valid"):
        out[f"convolution_matrix_{mode}"] = L.convolution_matrix(bv, 3, mode)
    out["hilbert"] = L.hilbert(4)
    out["invhilbert"] = L.invhilbert(4)
    for kind in ("symmetric", "lower", "upper"):
        out[f"pascal_{kind}"] = L.pascal(4, kind)
        out[f"invpascal_{kind}"] = L.invpascal(4, kind)
    out["helmert"] = L.helmert(4)
    out["helmert_full"] = L.helmert(3, full=True)
    out["hadamard"] = L.hadamard(4)
    out["hadamard_float"] = L.hadamard(2, dtype=np.float32)
    out["dft"] = L.dft(3)
    out["dft_sqrtn"] = L.dft(4, scale="sqrtn")
    # derivatives (vjps with fixed cotangents keep the reference small)
    g = jax.grad
    w = _a(rng.randn(4, 4), dt)
    out["d.expm"] = g(lambda m: (L.expm(m) * w).sum())(0.5 * a)
    out["d.expm_f64_degrees"] = g(lambda m: (L.expm(m) * w).sum())(3.0 * a)
    out["d.solve_triangular"] = g(lambda t, r: (L.solve_triangular(t, r, lower=True)
                                                * b).sum(), (0, 1))(tri, b)
    out["d.cho_solve"] = g(lambda c, r: (L.cho_solve((c, False), r) * b).sum(),
                           (0, 1))(L.cholesky(spd), b)
    out["d.solve_pos"] = g(lambda m, r: (L.solve(m, r, assume_a="pos") * b).sum(),
                           (0, 1))(spd, b)
    out["d.det"] = g(lambda m: L.det(m).sum())(batch)
    return out
