"""Cases for jax.scipy.special's wofz (and erfcx of complex z), dawsn, fresnel, sici, hyp1f1,
hyp2f1, owens_t and sph_harm_y, evaluated by real JAX
(reference/make_special_functions_reference.py writes special_functions_reference.npz) and by
jxkernel (tests/scipy/test_scipy_special_functions.py compares values, dtypes and weak types). Each
function runs as one jitted program over a vector of points chosen to cross every branch of
its algorithm, with its derivatives (vmap of grad, or jvp for complex functions) where JAX
defines them; `x64` says which mode the caller runs `cases` in."""
from functools import partial

import numpy as np

# (real, imaginary) parts: every quadrant, the axes, near 0 and far out (exp(-z^2) stays
# finite in float32 where Im z < 0)
_WOFZ_RE = np.array([-6.0, -2.5, -1.0, -0.3, 0.0, 0.2, 1.0, 3.0, 8.0])
_WOFZ_IM = np.array([-3.0, -1.0, -0.1, 0.0, 0.5, 2.0, 10.0])
# each of dawsn's three intervals (edges 3.25 and 6.25), both signs, 0 and far out
DAWSN_X = np.array([-8.0, -4.0, -1.5, -0.2, 0.0, 1e-3, 0.5, 1.0, 2.0, 3.2, 3.3, 5.0, 6.2, 6.3,
                    10.0, 100.0, 1e6])

# fresnel: each side of x^2 = 2.5625 and x = 36974 (float64's large-x formula), 0, infinities
FRESNEL_X = np.array([-np.inf, -4e4, -5.0, -1.6, -1.0, 0.0, 0.3, 1.5, 1.601, 2.0, 4.5, 10.0,
                      100.0, 36974.0, 4e4, np.inf])
# sici: the series to 4, the asymptotic expansions to 8 and beyond, the leading terms past 1e9
SICI_X = np.array([-np.inf, -1e10, -20.0, -5.0, -4.0, -1.0, -1e-3, 0.0, 1e-3, 0.5, 3.9, 4.0, 4.1,
                   7.9, 8.0, 8.1, 50.0, 1e8, 1e9, 2e9, np.inf])

# hyp1f1 (a, b, x): the series (|x| < 100) and the asymptotic expansion, both signs of x, and
# the special cases a = 0, a = b, b = 0
HYP1F1 = np.array([[0.5, 1.0, 2.5, 0.0, 3.0, 1.5, 0.3, 2.0, 1.0, 4.0, 0.7, 2.0],
                   [1.5, 2.0, 3.5, 2.0, 3.0, 0.0, 1.7, 5.0, 3.0, 2.0, 1.2, 0.5],
                   [0.3, -2.0, 5.0, 1.0, 2.0, 1.0, 120.0, -150.0, -0.7, 10.0, 40.0, 101.0]])
# hyp2f1 (a, b, c, x): each branch of its selector (x = 0, c a non-positive integer, Euler's
# transformation for c - a - b <= -1, b or a equal to c, x = 1 (Gauss's sum) and x > 1), the
# series, the digamma transformation near 1 with c - a - b an integer (0, positive, negative)
# and the terminating series for a negative integer a or b
HYP2F1 = np.array([
    [0.5, 1.0, -2.0, 1.5, 0.3, 2.0, 1.0, 0.5, 0.7, 1.0, 2.0, 0.5, 3.0, 1.5, 1.0, 0.5, 2.0, 1.0],
    [1.5, 2.0, 3.0, 2.5, 0.7, 1.0, 3.0, 0.5, 0.2, 2.0, 1.0, 1.5, 1.0, 0.5, -3.0, 1.0, 1.5, 1.0],
    [2.5, 3.0, 4.0, 1.2, 2.0, 3.0, 3.0, 3.2, -1.0, 5.0, 1.0, 2.5, 2.0, 3.0, 2.5, 1.5, 1.5, 2.0],
    [0.3, -0.5, 0.5, 0.95, 0.7, 0.95, 0.4, 1.0, 0.5, 0.9, 1.5, 0.0, 0.99, 0.97, 0.6, 0.93, 0.3,
     0.5]])

# owens_t (h, a): the quadrature (|a| <= 1), its reciprocal fold on both sides of a h = 0.67,
# the exact values at h = 0 and a = 1, both signs, a = 0 and large a
OWENS_T = np.array([[-2.0, -0.5, 0.0, 0.3, 1.0, 2.5, 5.0, 0.7, 1.2, 0.0, 0.4, 3.0, 0.2],
                    [0.5, 1.0, 2.0, -0.3, 1.0, 3.0, 0.1, -4.0, 1e3, 0.0, 1.5, -1.2, 3.0]])

# sph_harm_y: degrees to 5 with every sign of order (m = +-n included), colatitudes over
# (0, pi) and longitudes over [0, 2 pi)
SPH_N = np.array([0, 1, 1, 2, 2, 3, 4, 4, 5, 5, 3, 2])
SPH_M = np.array([0, -1, 1, 2, -2, 1, 0, -3, 5, -4, -3, 0])
SPH_THETA = np.linspace(0.1, 3.0, 12)
SPH_PHI = np.linspace(0.0, 6.0, 12)


def operands(dtype):
    complex_dtype = np.complex128 if dtype == np.float64 else np.complex64
    z = (_WOFZ_RE[:, None] + 1j * _WOFZ_IM[None, :]).ravel().astype(complex_dtype)
    return {"z": z, "dawsn_x": DAWSN_X.astype(dtype), "fresnel_x": FRESNEL_X.astype(dtype),
            "sici_x": SICI_X.astype(dtype), "hyp1f1": HYP1F1.astype(dtype),
            "hyp2f1": HYP2F1.astype(dtype), "owens_t": OWENS_T.astype(dtype),
            "theta": SPH_THETA.astype(dtype), "phi": SPH_PHI.astype(dtype)}


def faddeeva(jax, special, z, x, owens):
    """wofz on a grid of the plane (its reflection below the real axis) and of real x (promoted
    to complex), its derivative by jvp, erfcx(z) = w(iz); dawsn, its gradient, and float16 (in
    float32 inside); owens_t and its gradients in h and a."""
    w, w_dot = jax.jvp(special.wofz, (z,), (jax.numpy.ones_like(z),))
    return {"wofz": w, "wofz_jvp": w_dot, "wofz_real": special.wofz(x),
            "erfcx_complex": special.erfcx(z[::3]),
            "dawsn": special.dawsn(x), "d_dawsn": jax.vmap(jax.grad(special.dawsn))(x),
            "dawsn_f16": special.dawsn(x.astype(np.float16)),
            "owens_t": special.owens_t(*owens),
            "d_owens_t": jax.vmap(jax.grad(special.owens_t, (0, 1)))(*owens)}


def trig_integrals(jax, special, fresnel_x, sici_x):
    """fresnel and sici with both derivatives (at finite x; sici's also away from 0); fresnel
    in float16 (computed in float32)."""
    grads = lambda f, x: [jax.vmap(jax.grad(lambda v: f(v)[i]))(x) for i in (0, 1)]  # noqa
    finite = fresnel_x[1:-1]
    nonzero = sici_x[np.array([2, 3, 4, 5, 6, 8, 9, 10, 12, 13, 15, 16, 17])]
    return {"fresnel": special.fresnel(fresnel_x), "d_fresnel": grads(special.fresnel, finite),
            "fresnel_f16": special.fresnel(finite[:12].astype(np.float16)),
            "sici": special.sici(sici_x), "d_sici": grads(special.sici, nonzero)}


def hypergeometric(jax, special, p1, p2, grads_2f1):
    """hyp1f1 and hyp2f1 with their gradients in every argument (JAX's series in a, b, c and
    its contiguous relation in x; inf or NaN where a series meets a pole, as JAX's), the points
    of moderate size apart from the large ones (each result is compared at its largest
    magnitude). Not the gradients of 1F1 at x = -150 (JAX's Taylor series in a and b cancel
    terms of 1e60 there: rounding noise) nor of 2F1 at x = 1.5 (its series diverge: 1e47 or
    inf). Values and gradients come from one value_and_grad over all points, so each
    function compiles once; hyp2f1's takes seconds (for JAX too: ~5 s of CPU for its values,
    twice that with gradients), so its gradients are run in 64-bit mode only."""
    def value_and_grads(f, p):
        return jax.vmap(jax.value_and_grad(f, tuple(range(len(p)))))(*p)

    v1, g1 = value_and_grads(special.hyp1f1, p1)
    v2, g2 = value_and_grads(special.hyp2f1, p2) if grads_2f1 else (special.hyp2f1(*p2), None)
    small1, large1 = np.array([0, 1, 2, 3, 4, 5, 8]), np.array([6, 7, 9, 10, 11])
    small2 = np.array([i for i in range(p2.shape[1]) if i not in (3, 12)])
    large2 = np.array([3, 12])
    pick = lambda grads, at: [g[at] for g in grads]        # noqa: E731
    out = {"hyp1f1": v1[small1], "hyp1f1_large": v1[large1], "d_hyp1f1": pick(g1, small1),
           "d_hyp1f1_large": pick(g1, np.array([9, 10])),
           "hyp2f1": v2[small2], "hyp2f1_large": v2[large2]}
    if grads_2f1:
        out.update({"d_hyp2f1": pick(g2, small2[small2 != 10]),
                    "d_hyp2f1_large": pick(g2, large2)})
    return out


def spherical_harmonics(jax, special, theta, phi):
    """sph_harm_y at a static n_max (the Legendre recurrences run to it), its derivatives in
    theta and phi (JAX differentiates the recurrences) and the scalar-theta form (one point
    broadcast to all)."""
    def parts(t, p):
        y = special.sph_harm_y(SPH_N, SPH_M, t, p, n_max=5)
        return y.real.sum(), y.imag.sum()

    return {"sph_harm_y": special.sph_harm_y(SPH_N, SPH_M, theta, phi, n_max=5),
            "d_sph_harm_y": jax.jacrev(parts, (0, 1))(theta, phi),
            "sph_harm_y_scalar_theta": special.sph_harm_y(SPH_N, SPH_M, 0.7, phi, n_max=5)}


def cases(jax, special, x64=False):
    ops = operands(np.float64 if x64 else np.float32)
    out = {}
    out.update(jax.jit(partial(faddeeva, jax, special))(ops["z"], ops["dawsn_x"],
                                                         ops["owens_t"]))
    out.update(jax.jit(partial(trig_integrals, jax, special))(ops["fresnel_x"], ops["sici_x"]))
    out.update(jax.jit(partial(hypergeometric, jax, special, grads_2f1=x64))(ops["hyp1f1"],
                                                                            ops["hyp2f1"]))
    out.update(jax.jit(partial(spherical_harmonics, jax, special))(ops["theta"], ops["phi"]))
    return out


def ulps(name: str) -> int:
    """Bounds at each result's largest magnitude: the same algorithm op for op, so a few ulps
    of XLA's code generation (FMA contraction, vectorized exp/sin), more for the
    hypergeometric functions' series of up to 250 terms, whose every step rounds with or
    without FMA (9 ulps seen in 1F1's asymptotic expansion, 1 elsewhere), and for the
    spherical harmonics' Legendre recurrences (1.5 seen)."""
    if "hyp" in name:
        return 64
    return 16 if "sph" in name else 4
