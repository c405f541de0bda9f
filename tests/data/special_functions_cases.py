"""Cases for jax.scipy.special's wofz (and erfcx of complex z), dawsn, fresnel, sici, hyp1f1,
hyp2f1, owens_t and sph_harm_y, evaluated by real JAX
(reference/make_special_functions_reference.py writes special_functions_reference.npz) and by
jxkernel (tests/test_scipy_special_functions.py compares values, dtypes and weak types). Each
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


def operands(dtype):
    complex_dtype = np.complex128 if dtype == np.float64 else np.complex64
    z = (_WOFZ_RE[:, None] + 1j * _WOFZ_IM[None, :]).ravel().astype(complex_dtype)
    return {"z": z, "dawsn_x": DAWSN_X.astype(dtype), "fresnel_x": FRESNEL_X.astype(dtype),
            "sici_x": SICI_X.astype(dtype)}


def faddeeva(jax, special, z, x):
    """wofz on a grid of the plane (its reflection below the real axis) and of real x (promoted
    to complex), its derivative by jvp, erfcx(z) = w(iz); dawsn, its gradient, and float16 (in
    float32 inside)."""
    w, w_dot = jax.jvp(special.wofz, (z,), (jax.numpy.ones_like(z),))
    return {"wofz": w, "wofz_jvp": w_dot, "wofz_real": special.wofz(x),
            "erfcx_complex": special.erfcx(z[::3]),
            "dawsn": special.dawsn(x), "d_dawsn": jax.vmap(jax.grad(special.dawsn))(x),
            "dawsn_f16": special.dawsn(x.astype(np.float16))}


def trig_integrals(jax, special, fresnel_x, sici_x):
    """fresnel and sici with both derivatives (at finite x; sici's also away from 0); fresnel
    in float16 (computed in float32)."""
    grads = lambda f, x: [jax.vmap(jax.grad(lambda v: f(v)[i]))(x) for i in (0, 1)]  # noqa
    finite = fresnel_x[1:-1]
    nonzero = sici_x[np.array([2, 3, 4, 5, 6, 8, 9, 10, 12, 13, 15, 16, 17])]
    return {"fresnel": special.fresnel(fresnel_x), "d_fresnel": grads(special.fresnel, finite),
            "fresnel_f16": special.fresnel(finite[:12].astype(np.float16)),
            "sici": special.sici(sici_x), "d_sici": grads(special.sici, nonzero)}


def cases(jax, special, x64=False):
    ops = operands(np.float64 if x64 else np.float32)
    out = {}
    out.update(jax.jit(partial(faddeeva, jax, special))(ops["z"], ops["dawsn_x"]))
    out.update(jax.jit(partial(trig_integrals, jax, special))(ops["fresnel_x"], ops["sici_x"]))
    return out


def ulps(name: str) -> int:
    """Bounds at each result's largest magnitude: the same algorithm op for op, so a few ulps
    of XLA's code generation (FMA contraction, vectorized exp/sin)."""
    return 4
