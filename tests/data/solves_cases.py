"""lax.custom_linear_solve, lax.custom_root, lax.optimization_barrier and
scipy.sparse.linalg (cg, gmres, bicgstab) cases, evaluated by real JAX
(reference/make_solves_reference.py writes solves_reference.npz and solves_jaxprs.json) and
by jxkernel (tests/lax/test_solves.py compares). `jax` is the module under test."""
import importlib

import numpy as np

from numerics import LAPACK, REDUCTION

# How tests/lax/test_solves.py compares each leaf with JAX's: LAPACK solves and the iterative
# solvers' dot products and norms (summed in an order that follows the vector width, FMA or
# not) round differently per CPU, so floats are compared in ulps at the leaf's largest |value|
# (a solve's error scales with the solution, not with its small entries): REDUCTION, or the
# bound below. Worst seen over Intel AVX-512 / AVX2 / AVX / SSE4.2 code generation and
# OpenBLAS kernels against the AMD EPYC data: 4 ulps for the unlisted cases.
ULPS = {
    # Jacobi-preconditioned CG from x0 = b: the preconditioner's divisions feed every step [26.5]
    "cg_precond_x0": LAPACK,
}


def problem():
    rng = np.random.RandomState(0)
    n = 5
    q = rng.randn(n, n).astype(np.float32)
    spd = (q @ q.T + n * np.eye(n)).astype(np.float32)
    gen = (q + n * np.eye(n)).astype(np.float32)
    b = rng.randn(n).astype(np.float32)
    return spd, gen, b


def _solvers(jax):
    jnp, lax = jax.numpy, jax.lax

    def solve(a, b):
        return lax.custom_linear_solve(lambda x: jnp.dot(a, x), b,
                                       lambda mv, r: jnp.linalg.solve(a, r),
                                       lambda vm, r: jnp.linalg.solve(a.T, r))

    def solve_sym(a, b):
        return lax.custom_linear_solve(lambda x: jnp.dot(a, x), b,
                                       lambda mv, r: jnp.linalg.solve(a, r), symmetric=True)

    def newton_sqrt(a):
        def solve_newton(f, x0):
            return lax.while_loop(lambda x: jnp.abs(f(x)) > 1e-6,
                                  lambda x: x - f(x) / (2 * x), x0)
        return lax.custom_root(lambda x: x * x - a, 1.0, solve_newton, lambda g, y: y / g(1.0))

    def vector_root(m, c):
        # root of m @ x + tanh(x) - c (componentwise Newton on a tridiagonal-ish system)
        def f(x):
            return jnp.dot(m, x) + jnp.tanh(x) - c

        def solve_newton(f, x0):
            jac = jax.jacfwd(f)
            return lax.fori_loop(0, 20, lambda i, x: x - jnp.linalg.solve(jac(x), f(x)), x0)
        return lax.custom_root(f, jnp.zeros_like(c), solve_newton,
                               lambda g, y: jnp.linalg.solve(jax.jacfwd(g)(y), y))

    return solve, solve_sym, newton_sqrt, vector_root


def cases(jax):
    """name -> thunk computing the case (each compiled on its own when called)."""
    jnp, lax = jax.numpy, jax.lax
    sl = importlib.import_module(jax.__name__ + ".scipy.sparse.linalg")
    spd, gen, b = problem()
    solve, solve_sym, newton_sqrt, vector_root = _solvers(jax)
    bs = np.stack([b, 2 * b, -b])
    out = {}
    out["cls_value"] = lambda: solve(gen, b)
    out["cls_jit"] = lambda: jax.jit(solve)(gen, b)
    out["cls_grad_a_b"] = lambda: jax.grad(lambda a, r: jnp.sum(jnp.sin(solve(a, r))),
                                           (0, 1))(gen, b)
    out["cls_sym_grad"] = lambda: jax.grad(lambda a, r: jnp.sum(solve_sym(a, r) ** 2),
                                           (0, 1))(spd, b)
    out["cls_jvp"] = lambda: jax.jvp(solve, (gen, b), (spd, b[::-1].copy()))
    out["cls_vmap_b"] = lambda: jax.vmap(solve, (None, 0))(gen, bs)
    out["cls_vmap_a"] = lambda: jax.vmap(solve, (0, None))(np.stack([gen, spd]), b)
    out["cls_vmap_grad"] = lambda: jax.vmap(jax.grad(lambda r, a: jnp.sum(solve(a, r) ** 2)),
                                            (0, None))(bs, gen)
    out["cls_pytree"] = lambda: lax.custom_linear_solve(
        lambda t: {"u": 2. * t["u"], "v": t["v"] * 4.}, {"u": b, "v": b[:2]},
        lambda mv, t: {"u": t["u"] / 2., "v": t["v"] / 4.}, symmetric=True)
    out["cls_aux"] = lambda: lax.custom_linear_solve(
        lambda x: 2. * x, b, lambda mv, r: (r / 2., jnp.sum(r)), has_aux=True)
    out["root_sqrt"] = lambda: newton_sqrt(2.0)
    out["root_sqrt_grad"] = lambda: jax.grad(newton_sqrt)(2.0)
    out["root_sqrt_vmap_grad"] = lambda: jax.vmap(jax.grad(newton_sqrt))(np.float32([1., 4., 9.]))
    m = (np.eye(3) * 2 + 0.5).astype(np.float32)
    c = np.float32([1., -1., 0.5])
    out["root_vector"] = lambda: vector_root(m, c)
    out["root_vector_jac"] = lambda: jax.jacrev(vector_root, (0, 1))(m, c)
    out["barrier"] = lambda: lax.optimization_barrier((b, 1, 2.))
    out["barrier_grad"] = lambda: jax.grad(
        lambda x: jnp.sum(lax.optimization_barrier(x * 2.) ** 2))(b)
    out["barrier_vmap"] = lambda: jax.vmap(lambda x: lax.optimization_barrier((x, x * 2)))(bs)
    # iterative solvers
    out["cg"] = lambda: sl.cg(lambda v: jnp.dot(spd, v), b)[0]
    out["cg_matrix_maxiter"] = lambda: sl.cg(spd, b, maxiter=2)[0]
    jacobi_spd = np.diag(1 / np.diag(spd)).astype(np.float32)
    jacobi_gen = np.diag(1 / np.diag(gen)).astype(np.float32)
    out["cg_precond_x0"] = lambda: sl.cg(spd, b, x0=b, M=jacobi_spd)[0]
    out["cg_tol_atol"] = lambda: sl.cg(spd, b, tol=1e-2, atol=1e-3)[0]
    out["cg_pytree"] = lambda: sl.cg(lambda t: {"u": 2. * t["u"], "v": 3. * t["v"]},
                                     {"u": b[:2], "v": b[2:]})[0]
    out["cg_grad_b"] = lambda: jax.grad(lambda r: jnp.sum(jnp.cos(sl.cg(spd, r)[0])))(b)
    out["cg_grad_a"] = lambda: jax.grad(
        lambda a: jnp.sum(sl.cg(lambda v: jnp.dot(a, v), b)[0]))(spd)
    out["cg_vmap"] = lambda: jax.vmap(lambda r: sl.cg(spd, r)[0])(bs)
    out["bicgstab"] = lambda: sl.bicgstab(lambda v: jnp.dot(gen, v), b)[0]
    out["bicgstab_maxiter"] = lambda: sl.bicgstab(gen, b, maxiter=2)[0]
    out["bicgstab_grad_b"] = lambda: jax.grad(lambda r: jnp.sum(sl.bicgstab(gen, r)[0] ** 2))(b)
    out["gmres_batched"] = lambda: sl.gmres(lambda v: jnp.dot(gen, v), b)
    out["gmres_incremental"] = lambda: sl.gmres(gen, b, solve_method="incremental")
    out["gmres_restart"] = lambda: sl.gmres(gen, b, restart=2, maxiter=3)[0]
    out["gmres_incremental_restart"] = lambda: sl.gmres(gen, b, restart=2, maxiter=3,
                                                        solve_method="incremental")[0]
    out["gmres_precond"] = lambda: sl.gmres(gen, b, M=jacobi_gen)[0]
    out["gmres_grad_b"] = lambda: jax.grad(lambda r: jnp.sum(sl.gmres(gen, r)[0] ** 2))(b)
    out["gmres_jit_vmap"] = lambda: jax.jit(jax.vmap(lambda r: sl.gmres(gen, r)[0]))(bs)
    return out


def jaxpr_cases(jax):
    """name -> (function, args) whose make_jaxpr text must equal JAX's."""
    jnp, lax = jax.numpy, jax.lax
    a = np.float32([[4., 1.], [1., 3.]])
    d = np.float32([4., 3.])
    b = np.ones(2, np.float32)

    def nonsym(a, d, b):
        return lax.custom_linear_solve(lambda x: a @ x, b, lambda mv, r: r / d,
                                       lambda vm, r: r / d)

    def sqrt_root(x):
        return lax.custom_root(lambda y: y * y - x, 1.0, lambda f, y0: jnp.sqrt(x),
                               lambda g, y: y / g(1.0))

    return {
        "cls_scalar": (lambda x: lax.custom_linear_solve(lambda y: 2. * y, x,
                                                         lambda m, r: r / 2.), (b,)),
        "cls_nonsym": (nonsym, (a, d, b)),
        "cls_aux": (lambda x: lax.custom_linear_solve(lambda y: y * 2, x,
                                                      lambda m, r: (r / 2, 3), has_aux=True),
                    (b,)),
        "barrier_tuple": (lambda x: lax.optimization_barrier((x, x + 1)), (b,)),
        "barrier_literals": (lambda x: lax.optimization_barrier((x, 1, 2.)), (b,)),
        "barrier_empty": (lambda: lax.optimization_barrier(()), ()),
        "barrier_grad": (jax.grad(lambda x: lax.optimization_barrier(x * 2) * 3.), (1.,)),
        "root": (sqrt_root, (2.,)),
        "root_grad": (jax.grad(sqrt_root), (2.,)),
    }
