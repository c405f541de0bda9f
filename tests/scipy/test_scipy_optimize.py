"""jxkernel.scipy.optimize.minimize (BFGS with JAX's line search, and the experimental
L-BFGS): every field of the result against JAX 0.10.2's recorded runs in float64
(tests/data/optimize_cases.py; iteration and evaluation counts exactly, floats in ulps),
minima against scipy and calculus, jit/vmap, and JAX's errors."""
import os

import numpy as np
import pytest
import scipy.optimize

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel.scipy.optimize import OptimizeResults, minimize
from jxkernel.scipy.optimize._line_search import line_search

from doc_examples import check_docstring_examples
from numerics import ELEMENTWISE, REDUCTION, assert_allclose_ulp
from optimize_cases import FIELDS, NUMPY_BACKEND_ULPS, ULPS, ULPS_BY_CASE, cases, problems
import backend_tier
import locations  # tests/support: the repository's folders

DATA = locations.DATA

REFERENCE = np.load(os.path.join(DATA, "optimize_reference.npz"))
CASES = cases(jax)
ROSEN, QUAD, HIMMELBLAU, _ = problems(jnp)
GTOL = 1e-5            # BFGS's default here and in scipy: it stops once |gradient|_inf < gtol


def assert_near_minimum(x, x_star, hess, grad):
    """Near a minimum x* the gradient is H (x - x*) to first order, so a point whose gradient
    is at most `grad` (inf-norm) lies within |H^-1|_inf grad of x*: a tolerance from the
    optimizers' stopping test and the problem's conditioning, not ulps (worst seen 0.03 of it,
    the x64 Rosenbrock, every CPU)."""
    error = np.abs(np.asarray(x, np.float64) - x_star).max()
    bound = np.linalg.norm(np.linalg.inv(hess), np.inf) * grad
    assert error <= bound, f"|x - x*|_inf = {error:.3g} > |H^-1|_inf grad = {bound:.3g}"


def himmelblau_hessian(x):
    u, v = x[0] ** 2 + x[1] - 11, x[0] + x[1] ** 2 - 7
    jac = np.array([[2 * x[0], 1], [1, 2 * x[1]]])
    return 2 * (jac.T @ jac + np.diag([2 * u, 2 * v]))


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax(name):
    result = CASES[name]()
    assert isinstance(result, OptimizeResults)
    for field in FIELDS + ("hess_inv",):
        key = f"{name}#{field}"
        value = getattr(result, field)
        if key not in REFERENCE.files:
            assert value is None and field == "hess_inv"
            continue
        want, got = REFERENCE[key], np.asarray(value)
        assert got.dtype == want.dtype and got.shape == want.shape, (field, got, want)
        if field in ULPS:
            bound = ULPS_BY_CASE.get(name, ULPS[field])
            if backend_tier.on_numpy_backend():
                bound = NUMPY_BACKEND_ULPS.get(key, bound)
            assert_allclose_ulp(got, want, bound, scale=max(np.abs(want).max(), 1.0),
                                err_msg=field)
        else:
            np.testing.assert_array_equal(got, want, err_msg=field)


def test_tol_is_ignored_and_jit_changes_nothing():
    want = REFERENCE["himmelblau_jit#x"]
    np.testing.assert_array_equal(REFERENCE["himmelblau_tol#x"], want)
    assert int(REFERENCE["himmelblau_tol#nit"]) == int(REFERENCE["himmelblau_jit#nit"])


def test_minima_agree_with_scipy_and_calculus():
    a = np.float32([[3., 1.], [1., 2.]])
    b = np.float32([1., -1.])
    res = minimize(QUAD, np.zeros(2, np.float32), (a, b), method="BFGS")
    a64 = a.astype(np.float64)
    assert bool(res.success) and int(res.status) == 0
    assert_near_minimum(res.x, np.linalg.solve(a64, b), a64, GTOL)
    # the line search's interpolation is exact on a quadratic, so BFGS's secant updates build
    # A^-1 itself; what is left is float32 rounding of the updates, the last ones from steps
    # on a gradient of rounding noise (worst seen 8.4 ulps at max |A^-1|, AVX)
    inv = np.linalg.inv(a64)
    assert_allclose_ulp(res.hess_inv, inv.astype(np.float32), REDUCTION, scale=np.abs(inv).max())
    ours = minimize(HIMMELBLAU, np.float32([1., 1.]), method="BFGS")
    theirs = scipy.optimize.minimize(lambda x: float(HIMMELBLAU(x)), np.float64([1., 1.]),
                                     method="BFGS")
    assert bool(ours.success) and theirs.success
    assert np.abs(np.asarray(ours.jac)).max() < GTOL                  # the stopping test
    # both within |H^-1| gtol of the minimum, so of each other within twice that
    assert_near_minimum(ours.x, theirs.x, himmelblau_hessian(theirs.x), 2 * GTOL)


def test_x64_converges_where_jax_does_to_scipys_minimum():
    with jax.enable_x64(True):
        res = minimize(ROSEN, np.float64([1.3, 0.7, 0.8]), method="BFGS")
        assert res.x.dtype == np.float64 and int(res.status) == 0
    want = scipy.optimize.minimize(scipy.optimize.rosen, [1.3, 0.7, 0.8], method="BFGS")
    # ours stopped on gtol; scipy's stops on precision loss with a larger gradient
    assert_near_minimum(res.x, want.x, scipy.optimize.rosen_hess(want.x),
                        GTOL + np.abs(want.jac).max())


def test_line_search_meets_the_strong_wolfe_conditions():
    def f(x):
        return jnp.sum((x - 3.) ** 4) + jnp.sum(x ** 2)
    x0 = np.float32([0., 1.])
    g0 = jax.grad(f)(x0)
    p = -g0
    r = line_search(f, x0, p, c1=1e-4, c2=0.9)
    a = float(r.a_k)
    assert not bool(r.failed) and int(r.status) == 0 and a > 0
    assert float(f(x0 + a * p)) <= float(f(x0)) + 1e-4 * a * float(g0 @ p)
    assert abs(float(jax.grad(f)(x0 + a * p) @ p)) <= 0.9 * abs(float(g0 @ p))
    # the same float32 f at the same point, compiled in two programs (worst seen 0)
    assert_allclose_ulp(np.asarray(r.f_k), np.asarray(f(x0 + a * p)), ELEMENTWISE)


def test_errors():
    with pytest.raises(TypeError, match="args argument to jax.scipy.optimize.minimize must be "
                                        "a tuple, got 1"):
        minimize(QUAD, np.zeros(2, np.float32), 1, method="BFGS")
    with pytest.raises(ValueError, match="Method Nelder-Mead not recognized"):
        minimize(ROSEN, np.zeros(2, np.float32), method="Nelder-Mead")
    with pytest.raises(TypeError, match="method"):
        minimize(ROSEN, np.zeros(2, np.float32))


@pytest.mark.parametrize("module", ["jxkernel.scipy.optimize._minimize",
                                    "jxkernel.scipy.optimize._line_search"])
def test_docstring_examples(module):
    check_docstring_examples(module, skip_module_docstring=True)
