"""lax.linalg: cholesky and qr through LAPACK custom calls, against NumPy (which calls the
same LAPACK routines), batched, under vmap and jit, and their errors."""
import numpy as np
import pytest

import jxkernel
from jxkernel.lax import linalg


def _spd(n, batch=(), dtype=np.float32, seed=0):
    rng = np.random.RandomState(seed)
    a = rng.randn(*batch, n, n)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.randn(*batch, n, n)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_cholesky_matches_numpy(dtype):
    with jxkernel.config.override("jax_enable_x64", True):
        a = _spd(4, (2,), dtype)
        got = np.asarray(linalg.cholesky(a))
        assert got.dtype == dtype
        tol = 1e-5 if np.dtype(dtype).itemsize <= 8 else 1e-12
        np.testing.assert_allclose(got, np.linalg.cholesky(a), rtol=tol, atol=tol)
        assert (np.triu(got, 1) == 0).all()


def test_cholesky_symmetrizes_and_flags_failure():
    a = _spd(3)
    lower_only = np.tril(a)                  # symmetrize_input=False reads the lower triangle
    np.testing.assert_allclose(np.asarray(linalg.cholesky(lower_only, symmetrize_input=False)),
                               np.linalg.cholesky(a), rtol=1e-5)
    bad = np.asarray(linalg.cholesky(np.stack([a, -a])))
    assert np.isfinite(bad[0]).all() and np.isnan(bad[1][np.tril_indices(3)]).all()


def test_cholesky_vmap_and_jit():
    a = _spd(3, (4,))
    want = np.linalg.cholesky(a)
    np.testing.assert_allclose(np.asarray(jxkernel.vmap(linalg.cholesky)(a)), want, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(jxkernel.jit(linalg.cholesky)(a)), want, rtol=1e-5)
    text = jxkernel.jit(linalg.cholesky).lower(a).as_text()
    assert "lapack_spotrf_ffi" in text


@pytest.mark.parametrize("shape, full", [((5, 3), False), ((5, 3), True), ((3, 5), False),
                                         ((2, 4, 4), False)])
def test_qr(shape, full):
    x = np.random.RandomState(1).randn(*shape).astype(np.float32)
    q, r = (np.asarray(v) for v in linalg.qr(x, full_matrices=full))
    wq, wr = np.linalg.qr(x, mode="complete" if full else "reduced")
    np.testing.assert_allclose(q, wq, atol=1e-5)
    np.testing.assert_allclose(r, wr, atol=1e-5)
    np.testing.assert_allclose(q @ r, x, atol=1e-5)


@pytest.mark.parametrize("x, err, msg", [
    (np.ones((2, 3), np.float32), ValueError, "square"),
    (np.ones(3, np.float32), ValueError, "at least 2 dimensions"),
    (np.ones((2, 2), np.int32), TypeError, "cholesky does not accept dtype int32"),
    (np.ones((2, 2), np.float16), TypeError, "float32, float64, complex64 and complex128"),
])
def test_cholesky_errors(x, err, msg):
    with pytest.raises(err, match=msg):
        linalg.cholesky(x, symmetrize_input=False)


def test_cholesky_jvp_says_it_is_missing():
    with pytest.raises(NotImplementedError, match="Differentiation of cholesky"):
        jxkernel.jvp(linalg.cholesky, (_spd(2),), (np.eye(2, dtype=np.float32),))
