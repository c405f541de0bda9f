"""Special-function cases evaluated by both real JAX (reference/make_special_reference.py writes the
results to special_reference.npz) and jxkernel (tests/lax/test_lax_special.py and
tests/scipy/test_scipy_special.py compare): lax's special-function primitives and
jax.scipy.special's functions over their domains, edge cases included (0, poles, large
arguments, inf, NaN), in float32 and float64 (run in x64 mode), plus some derivatives.
`lax` is jax.lax, `sp` jax.scipy.special."""
import numpy as np

NAN, INF = np.nan, np.inf


def _a(values, dt):
    return np.array(values, dtype=dt)


def lax_cases(jax, lax, dtypes=(np.float32, np.float64)):
    out = {}
    for dt in dtypes:
        n = np.dtype(dt).name
        a = _a([0.5, 1.0, 2.0, 5.0, 0.1, 30.0, 3.0, 100.0, 0.0, 1.0, -1.0, NAN, 2.0, 1e-3], dt)
        x = _a([0.3, 1.0, 1.5, 7.0, 2.0, 25.0, 0.0, 120.0, 1.0, INF, 1.0, 1.0, NAN, 1e-4], dt)
        out[f"lax_igamma_{n}"] = lax.igamma(a, x)
        out[f"lax_igammac_{n}"] = lax.igammac(a, x)
        pos_a, pos_x = a[:8], x[:8]
        out[f"lax_igamma_grad_a_{n}"] = lax.igamma_grad_a(pos_a, pos_x)
        out[f"lax_random_gamma_grad_{n}"] = lax.random_gamma_grad(pos_a, pos_x + 0.25)
        ba = _a([0.5, 1.0, 2.0, 5.0, 0.1, 30.0, 2.0, 1.0, 0.0, 1.0, -1.0, NAN, 1e-3], dt)
        bb = _a([0.5, 3.0, 2.0, 1.5, 4.0, 40.0, 2.0, INF, 1.0, 1.0, 1.0, 1.0, 2.0], dt)
        bx = _a([0.3, 0.5, 0.9, 0.99, 0.01, 0.45, 0.0, 0.5, 0.5, 1.0, 0.5, 0.5, 0.7], dt)
        out[f"lax_betainc_{n}"] = lax.betainc(ba, bb, bx)
        m = _a([0, 1, 2, 3, 1, 4, 1, 2], dt)
        px = _a([1.0, 1.0, 0.5, 2.5, 10.0, 0.25, -1.5, 30.0], dt)
        out[f"lax_polygamma_{n}"] = lax.polygamma(m, px)
        zx = _a([2.0, 3.0, 1.5, 4.0, 2.0, 10.0, 1.0, 0.5], dt)
        zq = _a([1.0, 2.0, 0.5, 0.1, 30.0, 1.0, 1.0, 1.0], dt)
        out[f"lax_zeta_{n}"] = lax.zeta(zx, zq)
        bx = _a([0.0, 1e-6, 0.5, -1.0, 3.0, -7.9, 8.0, 8.1, 20.0, -100.0, 1e4, INF, NAN], dt)
        out[f"lax_bessel_i0e_{n}"] = lax.bessel_i0e(bx)
        out[f"lax_bessel_i1e_{n}"] = lax.bessel_i1e(bx)
        # derivatives
        ga, gx = _a([0.5, 2.0, 5.0, 3.0], dt), _a([0.3, 1.5, 7.0, 2.5], dt)
        out[f"lax_d_igamma_{n}"] = jax.vmap(jax.grad(lax.igamma, (0, 1)))(ga, gx)
        out[f"lax_d_igammac_{n}"] = jax.vmap(jax.grad(lax.igammac, (0, 1)))(ga, gx)
        out[f"lax_d_betainc_x_{n}"] = jax.vmap(jax.grad(lax.betainc, 2))(ga, gx, ga / 6)
        out[f"lax_d_polygamma_{n}"] = jax.vmap(jax.grad(lax.polygamma, 1))(_a([0, 1, 2, 1], dt), gx)
        out[f"lax_d_bessel_i0e_{n}"] = jax.vmap(jax.grad(lax.bessel_i0e))(bx[:11])
        out[f"lax_d_bessel_i1e_{n}"] = jax.vmap(jax.grad(lax.bessel_i1e))(bx[:11])
        out[f"lax_dd_bessel_i0e_{n}"] = jax.vmap(jax.grad(jax.grad(lax.bessel_i0e)))(bx[:11])
        if dt == np.float32:
            for low in (np.float16, "bfloat16"):
                lo = np.dtype(low).name if low is np.float16 else low
                out[f"lax_igamma_{lo}"] = lax.igamma(a.astype(low), x.astype(low))
                out[f"lax_bessel_i0e_{lo}"] = lax.bessel_i0e(bx.astype(low))
    return out


COMPLEX_GAMMA_Z = [1 + 1j, 0.5 + 1j, 0.5 - 1j, -0.5, -1.5, -2.5 + 1e-3j, -2.5 - 1e-3j, 3 - 4j,
                   -7.3 + 2j, 0, -2, 20 + 30j, 2.5, complex(NAN, 1)]


def scipy_cases(jax, jnp, sp, dtypes=(np.float32, np.float64)):
    out = {}
    for dt in dtypes:
        n = np.dtype(dt).name
        g = _a([0.5, 1.0, 4.0, 5.5, -0.5, -1.5, -2.0, 0.0, -0.0, 30.0, 171.5, -INF, INF, NAN], dt)
        out[f"gamma_{n}"] = sp.gamma(g)
        out[f"gammasgn_{n}"] = sp.gammasgn(g)
        out[f"loggamma_{n}"] = sp.loggamma(g)
        # complex: Lanczos's series, the reflection below Re z = 1/2, the poles, both sides of
        # the negative real axis (loggamma's cut), a large |z|, and NaN
        z = np.array(COMPLEX_GAMMA_Z, np.complex64 if dt == np.float32 else np.complex128)
        out[f"gamma_complex_{n}"] = sp.gamma(z)
        out[f"loggamma_complex_{n}"] = sp.loggamma(z)
        a = _a([0.5, 1.0, 2.0, 5.0, 0.1, 30.0, 3.0, 0.0, -1.0], dt)
        x = _a([0.3, 1.0, 1.5, 7.0, 2.0, 25.0, 0.0, 1.0, 1.0], dt)
        out[f"gammainc_{n}"] = sp.gammainc(a, x)
        out[f"gammaincc_{n}"] = sp.gammaincc(a, x)
        ba = _a([0.5, 2.0, 10.0, 1e3, 1e6, 3.0, -0.5, 0.1], dt)
        bb = _a([0.5, 3.0, 20.0, 2.0, 1e6, 9.0, 2.0, 50.0], dt)
        out[f"betaln_{n}"] = sp.betaln(ba, bb)
        out[f"beta_{n}"] = sp.beta(ba, bb)
        out[f"betainc_{n}"] = sp.betainc(ba[:6] % 40, bb[:6] % 40, _a([.3, .5, .2, .9, .5, .1], dt))
        f = _a([0, 1, 4, 10, 20, -1, 2.5], dt)
        out[f"factorial_{n}"] = sp.factorial(f)
        cn = _a([5, 10, 4, 3, 0, 7, -1, 6.5], dt)
        ck = _a([2, 3, 5, 0, 0, -1, 1, 2], dt)
        out[f"comb_{n}"] = sp.comb(cn, ck)
        out[f"comb_rep_{n}"] = sp.comb(cn, ck, repetition=True)
        out[f"poch_{n}"] = sp.poch(_a([3, 0.5, 1, 4, -2.5, 10], dt), _a([2, 3, 0, 1.5, 2, -3], dt))
        out[f"multigammaln_{n}"] = sp.multigammaln(_a([3.0, 5.5, 10.0], dt), 3)
        out[f"polygamma_{n}"] = sp.polygamma(np.array([0, 1, 2, 3], np.int32),
                                             _a([1.0, 0.5, 3.0, 2.0], dt))
        out[f"zeta_{n}"] = sp.zeta(_a([2.0, 3.0, 1.5, 4.0], dt), _a([1.0, 2.0, 0.5, 3.0], dt))
        i = _a([0.0, 0.5, -1.0, 3.0, -8.0, 9.0, 30.0, -50.0], dt)
        out[f"i0e_{n}"], out[f"i0_{n}"] = sp.i0e(i), sp.i0(i)
        out[f"i1e_{n}"], out[f"i1_{n}"] = sp.i1e(i), sp.i1(i)
        p = _a([0.0, 1e-30, 1e-10, 0.01, 0.1, 0.135, 0.5, 0.9, 0.99, 1 - 1e-7, 1.0, 1.5, -0.1,
                NAN], dt)
        out[f"ndtri_{n}"] = sp.ndtri(p)
        lx = _a([-40.0, -20.0, -10.5, -5.0, -1.0, 0.0, 1.0, 4.9, 6.0, 9.0, 40.0, INF, -INF], dt)
        out[f"log_ndtr_{n}"] = sp.log_ndtr(lx)
        out[f"log_ndtr_1_{n}"] = sp.log_ndtr(lx, series_order=1)
        ex = _a([-3.0, -0.5, 0.0, 0.5, 2.0, 9.0, 10.0, 27.0, 50.0, 1e4, INF, NAN], dt)
        out[f"erfcx_{n}"] = sp.erfcx(ex)
        ei = _a([-60.0, -3.0, -0.5, 0.0, 0.1, 1.0, 2.0, 3.0, 5.0, 12.0, 20.0, 40.0, 70.0], dt)
        out[f"expi_{n}"] = sp.expi(ei)
        e1 = _a([0.0, 1e-3, 0.5, 1.0, 1.5, 4.0, 20.0, -1.0], dt)
        out[f"exp1_{n}"] = sp.exp1(e1)
        en = np.array([0, 1, 2, 3, 5, 2, 10, 6000], np.int32)
        out[f"expn_{n}"] = sp.expn(en, _a([1.0, 0.5, 0.0, 2.5, 0.7, 3.0, 1.2, 2.0], dt))
        out[f"bessel_jn_{n}"] = sp.bessel_jn(_a([0.5, 1.0, 3.0, 10.0], dt), v=3)
        # derivatives
        out[f"d_gamma_{n}"] = jax.vmap(jax.grad(sp.gamma))(_a([0.5, 2.5, -1.5], dt))
        out[f"d_zeta_{n}"] = jax.vmap(jax.grad(sp.zeta, (0, 1)))(_a([2.0, 3.0], dt),
                                                                 _a([1.0, 2.5], dt))
        out[f"jvp_zeta_{n}"] = jax.jvp(sp.zeta, (_a([2.0, 3.5], dt), _a([1.0, 0.5], dt)),
                                       (_a([1.0, 1.0], dt), _a([0.5, -1.0], dt)))
        out[f"d_poch_{n}"] = jax.vmap(jax.grad(sp.poch, (0, 1)))(_a([3.0, 0.5], dt),
                                                                 _a([2.0, 1.5], dt))
        out[f"d_log_ndtr_{n}"] = jax.vmap(jax.grad(sp.log_ndtr))(lx[:11])
        out[f"d_ndtri_{n}"] = jax.vmap(jax.grad(sp.ndtri))(p[2:10])
        out[f"d_erfcx_{n}"] = jax.vmap(jax.grad(sp.erfcx))(ex[:10])
        out[f"d_expi_{n}"] = jax.vmap(jax.grad(sp.expi))(ei[4:9])
        out[f"d_expn_{n}"] = jax.vmap(jax.grad(sp.expn, 1), (None, 0))(3, e1[1:7])
        out[f"d_betaln_{n}"] = jax.vmap(jax.grad(sp.betaln, (0, 1)))(ba[:6], bb[:6])
        out[f"d_i1_{n}"] = jax.vmap(jax.grad(sp.i1))(i)
    return out


# Bounds for comparing jxkernel's results with the recorded ones, in ulps of each result's dtype
# (tests/support/numerics.py): case -> (float32 bound, float64 bound[, scale]); float16 and bfloat16
# results use the float32 bound. A scale, where given, is the magnitude errors are measured at:
# results of cancellation (a difference of nearly equal terms of that size) are only as exact
# as the terms. Cases not listed: DEFAULT_ULPS (= numerics.ELEMENTWISE). In brackets, the
# worst seen [float32, float64] against the AMD-recorded data on Intel AVX-512, AVX2 and SSE4.2
# code generation (the lax cases evaluated op by op, as recorded; the jax.scipy.special cases as
# one jitted program each): SSE4.2's code (no FMA) sets nearly all of them, and the bounds are
# two to four times those, rounded up to a power of two. Where a bound is much above a few
# ulps, the function amplifies a rounding of an intermediate result (exp of a large logarithm,
# a long recurrence), which the comment names. Unlisted cases: worst 2 (float16 and bfloat16:
# 0 on AVX-512 and AVX2; XLA cannot generate float16 code for SSE4.2 without F16C).
DEFAULT_ULPS = 4
ULPS = {
    # lax, evaluated op by op
    "lax_igamma": (16, 16),              # [7, 7] series / continued fraction
    "lax_igammac": (16, 32),             # [8, 10]
    "lax_igamma_grad_a": (16, 32),       # [5, 14]
    "lax_random_gamma_grad": (8, 256),   # [4, 78] exp(a log x - x - lgamma(a)) near the sample
    "lax_betainc": (64, 32),             # [21, 13] exp of a sum of logarithms
    "lax_polygamma": (16, 16),           # [7, 7]
    "lax_bessel_i0e": (8, 4),            # [4, 1]
    "lax_bessel_i1e": (8, 8),            # [4, 4]
    "lax_d_igamma": (16, 32),            # [6, 14]
    "lax_d_igammac": (16, 32),           # [6, 14]
    "lax_d_betainc_x": (16, 16),         # [7, 7]
    "lax_d_polygamma": (16, 16),         # [6, 6]
    # i1e(x) - sign(x) i0e(x) and its derivative cancel for large |x|; the terms are <= 1
    "lax_d_bessel_i0e": (4, 4, 1.0),     # [2, 0.5] at scale 1 ([64, 64] unscaled)
    "lax_d_bessel_i1e": (4, 4, 1.0),     # [1.5, 0.6] ([128, 160] unscaled)
    "lax_dd_bessel_i0e": (8, 4, 1.0),    # [3, 1.1] ([1024, 1152] unscaled)
    # jax.scipy.special, one jitted program per case
    "gamma": (16, 2048),                 # [8, 540] exp(lgamma(171.5) ~ 707): 707 x its rounding
    "d_gamma": (16, 16),                 # [7, 7]
    # exp(log Gamma(20+30j) ~ 21+97j): 97 x the rounding of its imaginary part
    "gamma_complex": (64, 512),          # [14, 138]
    "loggamma": (16, 16),                # [8, 8]
    # Lanczos's sum and the reflection: [4, 2] at the suite's level, float32's 8 at XLA's
    # default level (FMA contraction moves the sum), so the bound covers both
    "loggamma_complex": (16, 4),
    "gammainc": (16, 16),                # [7, 7]
    "gammaincc": (16, 32),               # [8, 10]
    "beta": (32, 32),                    # [12, 13] exp(betaln)
    "betaln": (16, 16),                  # [8, 8]
    "betainc": (32, 128),                # [13, 53] exp of a sum of logarithms
    "factorial": (128, 8),               # [34, 4] gamma(21) in float32: exp(lgamma(21) ~ 42)
    "comb_rep": (64, 64),                # [27, 27] exp of lgamma differences
    "poch": (32, 16),                    # [11, 7]
    "d_poch": (8, 32),                   # [3, 15]
    "multigammaln": (8, 4),              # [4, 2]
    "polygamma": (16, 16),               # [5, 5]
    "exp1": (4, 8),                      # [0, 4]
    "expi": (8, 8),                      # [2, 3]
    "expn": (8, 32),                     # [4, 9]
    "d_expn": (8, 32),                   # [4, 14]
    # 2x erfcx(x) - 2/sqrt(pi) cancels for large x (the derivative is ~1/x^2 there)
    "d_erfcx": (4, 4, 2 / np.sqrt(np.pi)),  # [0.4, 1] at that scale ([3e6, 6e7] unscaled)
}
_DTYPES = ("bfloat16", "float16", "float32", "float64")


# On the NumPy backend (`pytest --backend numpy`), bounds of cases where XLA's compiler moves
# its result and no NumPy rule follows it, measured, keyed and bracketed as ULPS.
NUMPY_BACKEND_ULPS = {
    # XLA constant-folds lgamma(1.0) in the series with its HLO evaluator (the C library's log
    # and sin: exactly 0) where the formula on the CPU, and the NumPy rule, give 4.8e-7 [20, 4]
    "exp1": (24, 8),
    "d_expn": (32, 32),                  # [27, 14] expn's derivative -expn(n - 1): exp1's series
}


def tolerance(key, numpy_backend=False):
    """(ulps, scale) for the recorded result `key` ("<case>_<dtype>#<leaf>"), on the NumPy
    backend NUMPY_BACKEND_ULPS first."""
    case, dtype = key.split("#")[0].rsplit("_", 1)
    assert dtype in _DTYPES, key
    table = {**ULPS, **NUMPY_BACKEND_ULPS} if numpy_backend else ULPS
    bound = table.get(case, (DEFAULT_ULPS, DEFAULT_ULPS))
    return bound[1] if dtype == "float64" else bound[0], (bound[2] if len(bound) > 2 else None)
