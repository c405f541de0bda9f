"""lax.linalg's tridiagonal_solve, symmetric_product, cholesky_update and tridiagonal against
JAX 0.10.2's recorded answers (values, grads, jvps, vmaps in both modes; errors by class and
words), against NumPy/SciPy (residuals), and by the repo's gradient checks.

Bounds, in ulps at each result's largest |value| (tests/support/recorded_modes.py):
gtsv, sytrd/hetrd and the perturbed-LU kernel are the same LAPACK code on both sides, but
OpenBLAS and the XLA code around them round per CPU; the systems here are diagonally
dominant (condition number under 10), so their solutions and gradients stay within LAPACK
ulps of the result's scale, as for the other LAPACK-backed primitives. cholesky_update is n = 5
Givens rotations of XLA elementwise ops (each entry rotated up to n times): LAPACK as well.
symmetric_product is one dot of 4 terms plus a scaled add: REDUCTION.
"""

import numpy as np
import pytest
from doc_examples import check_docstring_examples
from numerics import LAPACK, REDUCTION, assert_allclose_ulp
from recorded_answers import families_sorted
from recorded_modes import cases_test
from linalg_extras_cases import cases, error_cases

import jxkernel as jax
import locations
from jxkernel.lax import linalg
from jxkernel.lax.linalg.symmetric_eigen import _eigh_numpy
from jxkernel.test_util import check_grads


def ulps(name):
    return REDUCTION if name.startswith("symmetric_product") else LAPACK


test_every_case_matches_jax = cases_test(cases, (jax, linalg), "linalg_extras_reference.npz",
                                         ulps)

ERRORS = locations.jax_answers("linalg_extras_errors.json")["errors"]


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_jaxs(name):
    cls, words = ERRORS[name]
    with pytest.raises(Exception) as info:
        error_cases(jax, linalg)[name]()
    assert type(info.value).__name__ == cls
    assert families_sorted(str(info.value)) == families_sorted(words)


def test_half_precision_has_no_lapack_routine():
    # JAX's words ("Unsupported dtype float16.", in a tuple with the KeyError behind it)
    h = np.ones(3, np.float16)
    with pytest.raises(NotImplementedError, match="Unsupported dtype float16"):
        linalg.tridiagonal_solve(h, h, h, np.ones((3, 1), np.float16))
    with pytest.raises(NotImplementedError, match="Unsupported dtype float16"):
        linalg.tridiagonal(np.eye(3, dtype=np.float16))


def _tridiagonal_matrix(dl, d, du):
    return np.diag(d) + np.diag(dl[1:], -1) + np.diag(du[:-1], 1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_tridiagonal_solve_residual(dtype):
    rng = np.random.default_rng(1)
    dl, d, du = (rng.normal(size=6) + (4 if i == 1 else 0) for i in range(3))
    b = rng.normal(size=(6, 3))
    dl, d, du, b = (x.astype(dtype) for x in (dl, d, du, b))
    with jax.config.override("jax_enable_x64", True):
        x = np.asarray(linalg.tridiagonal_solve(dl, d, du, b))
    assert x.dtype == dtype and x.shape == b.shape
    assert_allclose_ulp(_tridiagonal_matrix(dl, d, du) @ x, b, LAPACK, scale=np.abs(b).max())


def test_tridiagonal_solve_grads_and_transpose():
    rng = np.random.default_rng(2)
    args = (rng.normal(size=(2, 4)), rng.normal(size=(2, 4)) + 5, rng.normal(size=(2, 4)),
            rng.normal(size=(2, 4, 2)))
    with jax.config.override("jax_enable_x64", True):
        check_grads(linalg.tridiagonal_solve, args, order=2, modes=("fwd", "rev"))
        # linear in b: its transpose is the solve with A^T
        f = lambda b: linalg.tridiagonal_solve(*args[:3], b)
        ct = rng.normal(size=args[3].shape)
        got, = jax.linear_transpose(f, args[3])(ct)
        want = np.stack([np.linalg.solve(_tridiagonal_matrix(*(a[i] for a in args[:3])).T, ct[i])
                         for i in range(2)])
        assert_allclose_ulp(np.asarray(got), want, LAPACK, scale=np.abs(want).max())


def test_tridiagonal_solve_thomas_lowering_matches_gtsv():
    # off the CPU jxkernel lowers JAX's default rule (the Thomas algorithm in scans): checked
    # on the CPU here; no pivoting, so on a diagonally dominant system both agree to LAPACK
    from jxkernel.lax.linalg.tridiagonal import _tridiagonal_solve_thomas
    rng = np.random.default_rng(3)
    dl, d, du = (rng.normal(size=(2, 7)).astype(np.float32) for _ in range(3))
    d = d + 5
    b = rng.normal(size=(2, 7, 3)).astype(np.float32)
    thomas = jax.jit(lambda *a: _tridiagonal_solve_thomas(*a, perturb_singular=False))
    want = np.asarray(linalg.tridiagonal_solve(dl, d, du, b))
    assert_allclose_ulp(np.asarray(thomas(dl, d, du, b)), want, LAPACK,
                        scale=np.abs(want).max())


def test_cholesky_update_is_the_factor_of_the_updated_matrix():
    rng = np.random.default_rng(4)
    a = rng.normal(size=(6, 6))
    spd = a @ a.T + 6 * np.eye(6)
    w = rng.normal(size=6)
    with jax.config.override("jax_enable_x64", True):
        r = np.asarray(linalg.cholesky_update(np.linalg.cholesky(spd).T, w))
    assert_allclose_ulp(r, np.linalg.cholesky(spd + np.outer(w, w)).T, LAPACK,
                        scale=np.abs(r).max())


def test_tridiagonal_reconstructs_the_matrix():
    # Q^T a Q = T, Q from the reflectors: orgtr's product, here built with SciPy from a' and
    # taus (lower: reflector i is e_{i+1} + a'[i+2:, i])
    rng = np.random.default_rng(5)
    a = rng.normal(size=(5, 5))
    a = a + a.T
    with jax.config.override("jax_enable_x64", True):
        arr, d, e, taus = (np.asarray(x) for x in linalg.tridiagonal(a))
    q = np.eye(5)
    for i in range(4):
        v = np.zeros(5)
        v[i + 1], v[i + 2:] = 1, arr[i + 2:, i]
        q = q @ (np.eye(5) - taus[i] * np.outer(v, v))
    t = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    assert_allclose_ulp(q.T @ a @ q, t, LAPACK, scale=np.abs(a).max())


@pytest.mark.parametrize("module", ["jxkernel.lax.linalg.tridiagonal",
                                    "jxkernel.lax.linalg.symmetric_product"])
def test_docstring_examples(module):
    check_docstring_examples(module)


def test_eigh_numpy_rule_gives_nans_for_a_non_finite_matrix():
    # JAX 0.10.2 on CPU: eigh of [[1, inf], [inf, 2]] is all NaN (LAPACK's failed info),
    # the batch's finite matrix unchanged; numpy.linalg.eigh would raise LinAlgError
    x = np.array([[[1., np.inf], [np.inf, 2.]], [[2., 0.], [0., 3.]]], np.float32)
    v, w = _eigh_numpy(x, lower=True, sort_eigenvalues=True, subset_by_index=None,
                       algorithm=None)
    assert np.isnan(w[0]).all() and np.isnan(v[0]).all()
    np.testing.assert_array_equal(w[1], [2., 3.])
    np.testing.assert_array_equal(np.abs(v[1]), np.eye(2))
