"""lax.custom_linear_solve, lax.custom_root, lax.optimization_barrier and
jxkernel.scipy.sparse.linalg (cg, gmres, bicgstab): values and derivatives against JAX
0.10.2's recorded results (tests/data/solves_cases.py), NumPy/scipy, finite differences and
differentiation through the unrolled solver; vmap, jit, printed jaxprs and errors."""
import os

import numpy as np
import pytest
import scipy.sparse.linalg as ssl

import jxkernel as jax
import jxkernel.numpy as jnp
import jxkernel.scipy.sparse.linalg as sl
from jxkernel import lax
from jxkernel.core.check import check_jaxpr
from jxkernel.test_util import check_grads
import locations  # tests/support: the repository's folders

DATA = locations.DATA
from doc_examples import check_docstring_examples
from numerics import ELEMENTWISE, LAPACK, assert_allclose_ulp
from solves_cases import REDUCTION, ULPS, cases, jaxpr_cases, problem

REFERENCE = np.load(os.path.join(DATA, "solves_reference.npz"))
JAXPRS = locations.recorded("solves_jaxprs.json")
CASES = cases(jax)
SPD, GEN, B = problem()


def _f32(want):
    """A float64 reference rounded once to float32, the solves' dtype."""
    return np.asarray(want, np.float64).astype(np.float32)


def _solution(a, b):
    """a x = b in float64, rounded once to float32, and |x|'s largest (a solve's error scales
    with the solution, not with its small entries)."""
    x = np.linalg.solve(np.asarray(a, np.float64), np.asarray(b, np.float64))
    return _f32(x), np.abs(x).max()


def assert_converged(got, a, b, tol):
    """An iterative solver stops once |b - a x| <= tol |b|, so its x is within cond(a) tol |x|
    of the solution (2-norms): a tolerance, not ulps (worst seen 0.06 of it, gmres on AVX-512:
    the solvers here overshoot tol)."""
    a128, b128 = np.asarray(a, np.complex128), np.asarray(b, np.complex128)
    want = np.linalg.solve(a128, b128)
    error = np.linalg.norm(np.asarray(got) - want) / np.linalg.norm(want)
    bound = np.linalg.cond(a128) * tol
    assert error <= bound, f"relative error {error:.3g} > cond(a) tol = {bound:.3g}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax(name):
    """Each leaf against JAX's: dtype and shape exactly, integers exactly, floats within the
    case's ulps (solves_cases.ULPS) at the leaf's largest |value|."""
    leaves = jax.tree_util.tree_leaves(CASES[name]())
    assert len(leaves) == len([k for k in REFERENCE.files if k.startswith(f"{name}#")])
    for i, leaf in enumerate(leaves):
        want = REFERENCE[f"{name}#{i}"]
        scale = np.abs(want[np.isfinite(want)]).max(initial=0)
        assert_allclose_ulp(np.asarray(leaf), want, ULPS.get(name, REDUCTION), scale=scale,
                            err_msg=f"{name} leaf {i}")


@pytest.mark.parametrize("name", sorted(JAXPRS))
def test_jaxpr_text_matches_jax(name):
    f, args = jaxpr_cases(jax)[name]
    jaxpr = jax.make_jaxpr(f)(*args)
    check_jaxpr(jaxpr)
    assert str(jaxpr) == JAXPRS[name]


# ------------------------------------------------------------------ custom_linear_solve
# Jacobi sweeps are matvecs: float32's fixed point within a reduction's rounding (worst 2.5,
# AVX); Newton's square root stops at |x^2 - 2| <= 1e-6, a few ulps of sqrt(2) (worst 0)
JACOBI = REDUCTION
NEWTON = ELEMENTWISE


def _solve(a, b):
    return lax.custom_linear_solve(lambda x: jnp.dot(a, x), b,
                                   lambda mv, r: jnp.linalg.solve(a, r),
                                   lambda vm, r: jnp.linalg.solve(a.T, r))


def _jacobi(a, b, steps=60):
    """x with a x = b by Jacobi iteration, unrolled (a fori_loop with static bounds)."""
    d = jnp.diag(a)
    return lax.fori_loop(0, steps, lambda i, x: x + (b - jnp.dot(a, x)) / d, jnp.zeros_like(b))


def _solve_by_jacobi(a, b):
    return lax.custom_linear_solve(lambda x: jnp.dot(a, x), b,
                                   lambda mv, r: _jacobi(a, r), lambda vm, r: _jacobi(a.T, r))


def test_solution_matches_numpy():
    want, scale = _solution(GEN, B)
    assert_allclose_ulp(_solve(GEN, B), want, LAPACK, scale=scale)      # worst 1
    # 60 Jacobi sweeps reach float32's fixed point: each sweep's rounding, damped
    assert_allclose_ulp(_solve_by_jacobi(GEN, B), want, JACOBI, scale=scale)


def test_gradients_by_finite_differences():
    check_grads(_solve, (GEN, B), order=2, modes=("fwd", "rev"), atol=2e-2, rtol=2e-2)


def test_implicit_gradient_equals_gradient_through_the_unrolled_solver():
    def loss(solver):
        return lambda a, b: jnp.sum(jnp.sin(solver(a, b)))
    implicit = jax.grad(loss(_solve_by_jacobi), (0, 1))(GEN, B)
    unrolled = jax.grad(loss(_jacobi), (0, 1))(GEN, B)
    # the same Jacobi fixed point reached two ways: apart by the sweeps' rounding
    for got, want in zip(implicit, unrolled):
        want = np.asarray(want)
        assert_allclose_ulp(got, want, JACOBI, scale=np.abs(want).max())
    # the derivative is a second solve, not the solver differentiated
    jaxpr = jax.make_jaxpr(jax.grad(loss(_solve_by_jacobi), (0, 1)))(GEN, B)
    names = [e.primitive.name for e in jaxpr.jaxpr.eqns]
    assert names.count("custom_linear_solve") == 2 and "scan" not in names


def test_forward_mode_needs_no_transpose_solve_but_reverse_does():
    def f(b):
        return lax.custom_linear_solve(lambda x: 2. * x, b, lambda mv, r: r / 2.)
    _, t = jax.jvp(f, (B,), (np.ones_like(B),))
    assert_allclose_ulp(t, np.full_like(B, 0.5), 0)         # 1 / 2: exact
    with pytest.raises(TypeError, match="transpose_solve required for backwards mode"):
        jax.grad(lambda b: f(b).sum())(B)


def test_symmetric_reuses_solve_for_the_transpose():
    def f(a, b):
        return lax.custom_linear_solve(lambda x: jnp.dot(a, x), b,
                                       lambda mv, r: jnp.linalg.solve(a, r), symmetric=True)
    g = jax.grad(lambda b: jnp.sum(f(SPD, b) * B))(B)
    want, scale = _solution(SPD.T, B)
    assert_allclose_ulp(g, want, LAPACK, scale=scale)


def test_vmap_agrees_with_a_loop_for_every_batching_pattern():
    a_s = np.stack([GEN, SPD, GEN * 2])
    b_s = np.stack([B, -B, B * 3])

    def by_scale(s, b):      # only solve's constant is batched (s scales nothing in matvec)
        return lax.custom_linear_solve(lambda x: jnp.dot(GEN, x), b,
                                       lambda mv, r: jnp.linalg.solve(GEN, r) * s / s)
    for f, axes, args in [(_solve, (0, None), (a_s, B)), (_solve, (None, 0), (GEN, b_s)),
                          (_solve, (0, 0), (a_s, b_s)),
                          (by_scale, (0, None), (np.float32([1., 2., 3.]), B))]:
        got = jax.vmap(f, axes)(*args)
        want = np.stack([f(*[x[i] if ax == 0 else x for x, ax in zip(args, axes)])
                         for i in range(3)])
        # batched and single getrf may block differently
        assert_allclose_ulp(np.asarray(got), want, LAPACK, scale=np.abs(want).max())
    jaxpr = jax.make_jaxpr(jax.vmap(_solve, (0, None)))(a_s, B)
    check_jaxpr(jaxpr)


def test_has_aux_passes_aux_through_without_derivative():
    def f(b):
        return lax.custom_linear_solve(lambda x: 2. * x, b,
                                       lambda mv, r: (r / 2., {"n": jnp.sum(r)}),
                                       symmetric=True, has_aux=True)
    x, aux = f(B)
    assert_allclose_ulp(x, B / 2, 0)                        # halving: exact
    total, scale = B.astype(np.float64).sum(), np.abs(B).sum()
    assert_allclose_ulp(aux["n"], _f32(total), REDUCTION, scale=scale)
    assert_allclose_ulp(jax.grad(lambda b: f(b)[0].sum())(B), np.full_like(B, 0.5), 0)
    _xs, auxs = jax.vmap(f)(np.stack([B, 2 * B]))
    assert_allclose_ulp(auxs["n"], _f32([total, 2 * total]), REDUCTION, scale=2 * scale)


def test_lowering_inlines_the_solve():
    f = jax.jit(lambda b: lax.custom_linear_solve(lambda x: 2. * x, b, lambda m, r: r / 2.))
    text = f.lower(B).as_text()
    assert "stablehlo.divide" in text and "stablehlo.multiply" not in text
    assert "func.func private" not in text and "stablehlo.call" not in text


def test_custom_linear_solve_errors():
    b = jnp.ones(2)
    with pytest.raises(ValueError, match=r"matvec\(\) output shapes must match b, got "
                                         r"\[\(2,\), \(2,\)\] and \[\(2,\)\]"):
        lax.custom_linear_solve(lambda x: (x, x), b, lambda m, r: r)
    with pytest.raises(ValueError, match=r"solve\(\) output shapes must match b, got \[\(1,\)\]"):
        lax.custom_linear_solve(lambda x: x, b, lambda m, r: r[:1])
    with pytest.raises(ValueError, match=r"solve\(\) output shapes must match b, got \[\(\)\]"):
        lax.custom_linear_solve(lambda x: x, b, lambda m, r: r, has_aux=True)
    with pytest.raises(TypeError, match=r"solve\(\) output pytree structure must match b, got "
                                        r"PyTreeDef\(\(\*,\)\) and PyTreeDef\(\*\)"):
        lax.custom_linear_solve(lambda x: x, b, lambda m, r: (r,))
    with pytest.raises(ValueError, match=r"too many values to unpack \(expected 2\)"):
        lax.custom_linear_solve(lambda x: x, b, lambda m, r: [r, r, r], has_aux=True)


# ------------------------------------------------------------------ custom_root
def _newton(f, x0, steps=None):
    if steps is None:
        return lax.while_loop(lambda x: jnp.abs(f(x)) > 1e-6, lambda x: x - f(x) / (2 * x), x0)
    return lax.fori_loop(0, steps, lambda i, x: x - f(x) / (2 * x), x0)


def _sqrt(a):
    return lax.custom_root(lambda x: x * x - a, 1.0, _newton, lambda g, y: y / g(1.0))


def test_custom_root_value_and_gradients():
    # Newton's iteration stops at |x^2 - 2| <= 1e-6, a few ulps of sqrt(2) in float32
    assert_allclose_ulp(_sqrt(2.0), _f32(np.sqrt(2.0)), NEWTON)
    assert_allclose_ulp(jax.grad(_sqrt)(2.0), _f32(0.5 / np.sqrt(2.0)), NEWTON)
    check_grads(_sqrt, (3.0,), order=2, modes=("fwd", "rev"), atol=1e-2, rtol=1e-2)
    unrolled = jax.grad(lambda a: _newton(lambda x: x * x - a, 1.0, steps=8))(2.0)
    assert_allclose_ulp(jax.grad(_sqrt)(2.0), np.asarray(unrolled), NEWTON)
    # square roots of 1 and 4 and their 1 / (2 x): exact
    assert_allclose_ulp(jax.jit(jax.vmap(jax.grad(_sqrt)))(np.float32([1., 4.])),
                        np.float32([0.5, 0.25]), 0)


def test_custom_root_pytree_and_aux():
    def f(p, c):
        return lax.custom_root(lambda x: {"u": x["u"] * p - c, "v": x["v"] - 2 * c},
                               {"u": 0., "v": 0.},
                               lambda g, x0: ({"u": c / p, "v": 2 * c}, 7),
                               lambda g, y: {"u": y["u"] / g({"u": 1., "v": 0.})["u"],
                                             "v": y["v"]},
                               has_aux=True)
    sol, aux = f(2.0, 3.0)
    assert float(sol["u"]) == 1.5 and float(sol["v"]) == 6.0 and int(aux) == 7
    g = jax.grad(lambda p, c: f(p, c)[0]["u"] + f(p, c)[0]["v"], (0, 1))(2.0, 3.0)
    assert_allclose_ulp(np.asarray(g), np.float32([-0.75, 2.5]), 0)  # exact quotients


def test_custom_root_errors():
    with pytest.raises(TypeError, match=r"f\(\) output pytree structure must match "
                                        r"initial_guess, got PyTreeDef\(\(\*, \*\)\)"):
        lax.custom_root(lambda x: (x, x), 1., lambda f, x: x, lambda g, y: y)
    with pytest.raises(TypeError, match=r"solve\(\) output pytree structure must match"):
        lax.custom_root(lambda x: x, 1., lambda f, x: (x, x), lambda g, y: y)
    with pytest.raises(TypeError, match=r"tangent_solve\(\) output pytree structure must "
                                        r"match x"):
        lax.custom_root(lambda x: x, 1., lambda f, x: x, lambda g, y: (y, y))
    with pytest.raises(ValueError, match=r"solve\(\) produced a pytree with structure "
                                         r"PyTreeDef\(\*\), but a pytree tuple"):
        lax.custom_root(lambda x: x, 1., lambda f, x: x, lambda g, y: y, has_aux=True)


# ------------------------------------------------------------------ optimization_barrier
def test_optimization_barrier_rules():
    x = np.float32([1., 2., 3.])
    out = lax.optimization_barrier({"a": x, "b": (2, 3.)})
    assert set(out) == {"a", "b"} and int(out["b"][0]) == 2
    text = jax.jit(lambda v: lax.optimization_barrier((v, v + 1))).lower(x).as_text()
    assert "stablehlo.optimization_barrier" in text
    # second order in float32 by JAX's step: float32's tolerance 1e-2, as JAX's own tests
    check_grads(lambda v: lax.optimization_barrier(jnp.sin(v)) * v, (x,), order=2,
                modes=("fwd", "rev"), atol=1e-2, rtol=1e-2)
    got = jax.vmap(lambda v: lax.optimization_barrier(v) * 2, in_axes=1, out_axes=1)(
        np.stack([x, x]))
    assert_allclose_ulp(got, 2 * np.stack([x, x]), 0)      # doubling: exact
    f_t = jax.linear_transpose(lambda v: lax.optimization_barrier((v * 2.,))[0], x)
    assert_allclose_ulp(f_t(np.ones(3, np.float32))[0], np.full(3, 2., np.float32), 0)
    jaxpr = jax.make_jaxpr(jax.vmap(jax.grad(lambda v: jnp.sum(lax.optimization_barrier(v)))))(
        np.stack([x, x]))
    check_jaxpr(jaxpr)
    assert "optimization_barrier" in str(jaxpr)


# ------------------------------------------------------------------ scipy.sparse.linalg
def test_iterative_solvers_match_scipy_and_numpy():
    tol = 1e-6
    assert_converged(sl.cg(SPD, B, tol=tol)[0], SPD, B, tol)
    assert_converged(sl.bicgstab(GEN, B, tol=tol)[0], GEN, B, tol)
    assert_converged(sl.gmres(GEN, B, tol=tol)[0], GEN, B, tol)
    assert_converged(sl.cg(lambda v: SPD @ v, B, tol=tol)[0], SPD, B, tol)
    # scipy's cg (in float64, rounded once) takes the same step: x = (r.r / p.A p) b (worst 2)
    want = _f32(ssl.cg(SPD.astype(np.float64), B.astype(np.float64), maxiter=1)[0])
    assert_allclose_ulp(sl.cg(SPD, B, maxiter=1)[0], want, REDUCTION, scale=np.abs(want).max())


def test_cg_complex_hermitian():
    rng = np.random.RandomState(1)
    q = (rng.randn(4, 4) + 1j * rng.randn(4, 4)).astype(np.complex64)
    h = (q @ q.conj().T + 4 * np.eye(4)).astype(np.complex64)
    b = (rng.randn(4) + 1j * rng.randn(4)).astype(np.complex64)
    x, info = sl.cg(h, b, tol=1e-6)
    assert info is None and x.dtype == np.complex64
    assert_converged(x, h, b, 1e-6)


def test_iterative_solver_gradients_are_implicit():
    got = jax.jit(jax.grad(lambda b: jnp.sum(sl.cg(SPD, b, tol=1e-6)[0])))(B)
    assert_converged(got, SPD.T, np.ones(5), 1e-6)      # the transposed solve, by cg too
    jaxpr = jax.make_jaxpr(jax.grad(lambda b: jnp.sum(sl.bicgstab(GEN, b)[0])))(B)
    check_jaxpr(jaxpr)
    assert [e.primitive.name for e in jaxpr.jaxpr.eqns].count("custom_linear_solve") == 2


def test_iterative_solver_errors():
    with pytest.raises(ValueError, match="x0 and b must have matching tree structure"):
        sl.cg(SPD, B, x0=(B,))
    with pytest.raises(ValueError, match=r"arrays in x0 and b must have matching shapes: "
                                         r"\[\(4,\)\] vs \[\(5,\)\]"):
        sl.bicgstab(GEN, B, x0=B[:4])
    with pytest.raises(ValueError, match=r"linear operator must be a square matrix, but has "
                                         r"shape: \(5, 4\)"):
        sl.cg(SPD[:, :4], B)
    with pytest.raises(TypeError, match="linear operator must be either a function or ndarray"):
        sl.cg("A", B)
    with pytest.raises(ValueError, match="invalid solve_method foo, must be either "
                                         "'incremental' or 'batched'"):
        sl.gmres(GEN, B, solve_method="foo")


@pytest.mark.parametrize("module", ["jxkernel.lax.solves", "jxkernel.lax.barrier",
                                    "jxkernel.scipy.sparse.linalg"])
def test_docstring_examples(module):
    # (the module's overview sketches; the functions' examples run)
    check_docstring_examples(module, skip_module_docstring=True)
