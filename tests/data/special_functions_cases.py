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


def operands(dtype):
    complex_dtype = np.complex128 if dtype == np.float64 else np.complex64
    z = (_WOFZ_RE[:, None] + 1j * _WOFZ_IM[None, :]).ravel().astype(complex_dtype)
    return {"z": z, "dawsn_x": DAWSN_X.astype(dtype)}


def faddeeva(jax, special, z, x):
    """wofz on a grid of the plane (its reflection below the real axis) and of real x (promoted
    to complex), its derivative by jvp, erfcx(z) = w(iz); dawsn, its gradient, and float16 (in
    float32 inside)."""
    w, w_dot = jax.jvp(special.wofz, (z,), (jax.numpy.ones_like(z),))
    return {"wofz": w, "wofz_jvp": w_dot, "wofz_real": special.wofz(x),
            "erfcx_complex": special.erfcx(z[::3]),
            "dawsn": special.dawsn(x), "d_dawsn": jax.vmap(jax.grad(special.dawsn))(x),
            "dawsn_f16": special.dawsn(x.astype(np.float16))}


def cases(jax, special, x64=False):
    ops = operands(np.float64 if x64 else np.float32)
    out = {}
    out.update(jax.jit(partial(faddeeva, jax, special))(ops["z"], ops["dawsn_x"]))
    return out


def ulps(name: str) -> int:
    """Bounds at each result's largest magnitude: the same algorithm op for op, so a few ulps
    of XLA's code generation (FMA contraction, vectorized exp/sin)."""
    return 4
