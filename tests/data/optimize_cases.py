"""jax.scipy.optimize.minimize cases (BFGS, and JAX's experimental L-BFGS), evaluated by real
JAX (reference/make_optimize_reference.py writes optimize_reference.npz) and by jxkernel
(tests/scipy/test_scipy_optimize.py compares). `jax` is the module under test."""
import importlib

import numpy as np

FIELDS = ("x", "success", "status", "fun", "jac", "nfev", "njev", "nit")
LBFGS = "l-bfgs-experimental-do-not-rely-on-this"

# How tests/scipy/test_scipy_optimize.py compares the float fields with JAX's (float64 runs, see
# `cases`): the path is JAX's on every CPU (counts, success and status equal exactly), but each
# step's rounding differs per CPU and the iteration carries it along, so floats are compared in
# ulps at max(|value|, 1) (the objective and gradient are O(1) where the runs start; near a
# minimum they are the difference of O(1) terms). Worst seen on AVX without FMA against the
# AMD-recorded data (AVX-512, AVX2 Haswell and Zen: 0) in brackets.
ULPS = {
    "x": 1 << 10,          # [67, rosen2_classic]
    "fun": 1 << 10,        # [142, rosen2_classic]
    "jac": 1 << 13,        # [1970, rosen2_classic: rosen's gradient cancels terms of ~1e3]
    # BFGS's rank-two updates divide by s.y, which shrinks near the minimum [8.4e4, rosen4]
    "hess_inv": 1 << 19,
}
# lbfgs_maxcor stops on a failed line search (status 5) far from the minimum, where the
# two-loop recursion with 3 pairs amplifies rounding [6.2e6 ulps, jac; 1.4e-9 relative]
ULPS_BY_CASE = {"lbfgs_maxcor": 1 << 25}
# On the NumPy backend (`pytest --backend numpy`), bounds of "<case>#<field>" where XLA's
# compiler moves its result and no NumPy rule follows it, measured, as ULPS
NUMPY_BACKEND_ULPS = {
    # the inverse-Hessian updates' small float64 dots: XLA's CPU adds their products one after
    # another, NumPy's matmul calls BLAS; s.y's division near the minimum amplifies it
    # [8.5e5, 1.2e-10 relative]
    "rosen4#hess_inv": 1 << 20,
}


def problems(jnp):
    def rosen(x):
        return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)

    def quad(x, a, b):
        return 0.5 * x @ a @ x - b @ x

    def himmelblau(x):
        return (x[0] ** 2 + x[1] - 11) ** 2 + (x[0] + x[1] ** 2 - 7) ** 2

    def logsumexp_ridge(x, w):
        return jnp.log(jnp.sum(jnp.exp(w @ x))) + 0.5 * jnp.sum(x ** 2)
    return rosen, quad, himmelblau, logsumexp_ridge


def cases(jax):
    """name -> thunk returning an OptimizeResults (each compiled on its own when called).

    Every case runs in float64 (x64 mode): an optimizer's path branches on comparisons (the
    line search's acceptance, the stopping test), and in float32 a last-bit difference in XLA's
    per-CPU code generation flips some of them, so JAX's recorded float32 runs were only
    reproducible on the CPU that recorded them (iteration counts one apart, L-BFGS's success
    flipped, BFGS's inverse Hessian 8% apart on AVX without FMA). In float64 those
    differences are ~1e-16, far below every threshold, and each path is JAX's. Float32 runs are
    tested against scipy and calculus in tests/scipy/test_scipy_optimize.py."""
    jnp = jax.numpy
    minimize = importlib.import_module(jax.__name__ + ".scipy.optimize").minimize
    rosen, quad, himmelblau, logsumexp_ridge = problems(jnp)
    f64 = np.float64
    a = f64([[3., 1.], [1., 2.]])
    b = f64([1., -1.])
    w = np.random.RandomState(0).randn(6, 3)
    z4 = np.zeros(4, f64)

    def x64(thunk):
        def run():
            with jax.enable_x64(True):
                return thunk()
        return run

    out = {
        "rosen4": lambda: minimize(rosen, z4, method="BFGS"),
        "rosen2_classic": lambda: minimize(rosen, f64([-1.2, 1.0]), method="BFGS"),
        "quad_args": lambda: minimize(quad, np.zeros(2, f64), (a, b), method="BFGS"),
        "himmelblau": lambda: minimize(himmelblau, f64([1., 1.]), method="bfgs"),
        "lse_ridge": lambda: minimize(logsumexp_ridge, np.ones(3, f64), (w,),
                                      method="BFGS"),
        "maxiter": lambda: minimize(rosen, z4, method="BFGS", options={"maxiter": 5}),
        "gtol_norm2": lambda: minimize(himmelblau, f64([1., 1.]), method="BFGS",
                                       options={"gtol": 1e-1, "norm": 2}),
        # JAX ignores tol (only options reach the solver): equal to the jitted run below
        "himmelblau_tol": lambda: minimize(himmelblau, f64([-1., 2.]), method="BFGS",
                                           tol=1e-1),
        "himmelblau_jit": lambda: jax.jit(lambda x0: minimize(himmelblau, x0, method="BFGS"))(
            f64([-1., 2.])),
        "vmap_x0": lambda: jax.jit(jax.vmap(
            lambda x0: minimize(quad, x0, (a, b), method="BFGS")))(
            f64([[0., 0.], [5., -3.], [1., 1.]])),
        "x64_rosen": lambda: minimize(rosen, f64([-1.2, 1.0]), method="BFGS"),
        "lbfgs_rosen": lambda: minimize(rosen, z4, method=LBFGS),
        "lbfgs_maxcor": lambda: minimize(rosen, f64([-1.2, 1.0]), method=LBFGS,
                                         options={"maxcor": 3}),
        "lbfgs_lse": lambda: minimize(logsumexp_ridge, np.ones(3, f64), (w,),
                                      method=LBFGS),
    }
    return {name: x64(thunk) for name, thunk in out.items()}
