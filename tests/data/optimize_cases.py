"""jax.scipy.optimize.minimize cases (BFGS, and JAX's experimental L-BFGS), evaluated by real
JAX (reference/make_optimize_reference.py writes optimize_reference.npz) and by jxkernel
(tests/test_scipy_optimize.py compares). `jax` is the module under test."""
import importlib

import numpy as np

FIELDS = ("x", "success", "status", "fun", "jac", "nfev", "njev", "nit")
LBFGS = "l-bfgs-experimental-do-not-rely-on-this"


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
    """name -> thunk returning an OptimizeResults (each compiled on its own when called)."""
    jnp = jax.numpy
    minimize = importlib.import_module(jax.__name__ + ".scipy.optimize").minimize
    rosen, quad, himmelblau, logsumexp_ridge = problems(jnp)
    a = np.float32([[3., 1.], [1., 2.]])
    b = np.float32([1., -1.])
    w = np.random.RandomState(0).randn(6, 3).astype(np.float32)
    z4 = np.zeros(4, np.float32)

    def x64_rosen():
        with jax.enable_x64(True):
            return minimize(rosen, np.float64([-1.2, 1.0]), method="BFGS")

    out = {
        "rosen4": lambda: minimize(rosen, z4, method="BFGS"),
        "rosen2_classic": lambda: minimize(rosen, np.float32([-1.2, 1.0]), method="BFGS"),
        "quad_args": lambda: minimize(quad, np.zeros(2, np.float32), (a, b), method="BFGS"),
        "himmelblau": lambda: minimize(himmelblau, np.float32([1., 1.]), method="bfgs"),
        "lse_ridge": lambda: minimize(logsumexp_ridge, np.ones(3, np.float32), (w,),
                                      method="BFGS"),
        "maxiter": lambda: minimize(rosen, z4, method="BFGS", options={"maxiter": 5}),
        "gtol_norm2": lambda: minimize(himmelblau, np.float32([1., 1.]), method="BFGS",
                                       options={"gtol": 1e-1, "norm": 2}),
        # JAX ignores tol (only options reach the solver): equal to the jitted run below
        "himmelblau_tol": lambda: minimize(himmelblau, np.float32([-1., 2.]), method="BFGS",
                                           tol=1e-1),
        "himmelblau_jit": lambda: jax.jit(lambda x0: minimize(himmelblau, x0, method="BFGS"))(
            np.float32([-1., 2.])),
        "vmap_x0": lambda: jax.jit(jax.vmap(
            lambda x0: minimize(quad, x0, (a, b), method="BFGS")))(
            np.float32([[0., 0.], [5., -3.], [1., 1.]])),
        "x64_rosen": x64_rosen,
        "lbfgs_rosen": lambda: minimize(rosen, z4, method=LBFGS),
        "lbfgs_maxcor": lambda: minimize(rosen, np.float32([-1.2, 1.0]), method=LBFGS,
                                         options={"maxcor": 3}),
        "lbfgs_lse": lambda: minimize(logsumexp_ridge, np.ones(3, np.float32), (w,),
                                      method=LBFGS),
    }
    return out
