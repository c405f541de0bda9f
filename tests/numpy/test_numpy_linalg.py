"""jnp.linalg: values and derivatives against real JAX (committed reference data), values
against NumPy over shapes, batches and dtypes, numerical gradient checks, vmap and jit."""
import os

import numpy as np
import pytest

import jxkernel
from jxkernel.numpy import linalg as la
from compiled import constants_as_arguments, jit_together
from grads_together import check_grads_together
from numerics import assert_allclose_ulp

from linalg_cases import LAPACK, SIGN_FREE, ULPS, align_signs, cases
import locations  # tests/support: the repository's folders
from matrices import randn, spd

x64 = lambda: jxkernel.config.override("jax_enable_x64", True)
REF = np.load(os.path.join(locations.DATA, "linalg_reference.npz"))


def _close(got, want):
    """Against NumPy in the same dtype (its LAPACK's rounding as well as ours) within LAPACK
    ulps of the dtype at the largest |want|: an entry is only as exact as its matrix's scale
    allows (worst seen 11: float32 tensorinv natively, float64 qr slogdet on AVX)."""
    assert_allclose_ulp(np.asarray(got), np.asarray(want), LAPACK,
                        scale=np.abs(np.asarray(want)).max(initial=0))


def check_against_reference(case, leaves):
    """A case's output leaves against JAX's "<case>#<i>": dtype and shape exactly, integers
    exactly, floats within the case's ulps (linalg_cases.ULPS) at the leaf's largest |value|,
    eigen/singular vectors turned to JAX's signs first."""
    name = case.rsplit("_", 1)[0]                     # the case without its dtype
    assert f"{case}#{len(leaves)}" not in REF.files, f"{case}: fewer results than JAX gave"
    wants = [REF[f"{case}#{i}"] for i in range(len(leaves))]
    leaves = align_signs(leaves, wants, SIGN_FREE.get(name, {}))
    for i, (got, want) in enumerate(zip(leaves, wants)):
        scale = np.abs(want[np.isfinite(want)]).max(initial=0)
        assert_allclose_ulp(got, want, ULPS.get(name, LAPACK), scale=scale,
                            err_msg=f"{case}#{i}")


# ------------------------------------------------------------------ against JAX
# cuSOLVER's eigh: other eigenvector signs than LAPACK's (both valid), and g_eigh sums
# the first eigenvector, so its gradient follows the sign (H200, docs/gpu.md run 6)
@pytest.mark.cpu_only("recorded CPU values")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_and_gradients_match_jax(dtype):
    """58 outputs per dtype (values, grads, jvps) of JAX 0.10.2 on CPU, within the ulps that
    LAPACK's per-CPU kernels allow. Computed under one jit: each function alone is already one
    jitted program, and one compile instead of ~90 (the grads' pieces) halves the test's cost;
    the eager calls are checked against NumPy below."""
    with x64(), constants_as_arguments():
        got = jxkernel.jit(lambda: cases(jxkernel, la, [dtype]))()
    assert {f"{k}#{i}" for k, v in got.items()
            for i, _ in enumerate(jxkernel.tree_util.tree_leaves(v))} == {
        k for k in REF.files if k.split("#")[0].endswith(np.dtype(dtype).name)}
    for case, value in got.items():
        check_against_reference(case, jxkernel.tree_util.tree_leaves(value))


# ------------------------------------------------------------------ against NumPy
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_solve_inv_det_slogdet(dtype):
    with x64():
        a = randn((2, 4, 4), dtype)
        b = randn((2, 4, 3), dtype, seed=1)
        _close(la.solve(a, b), np.linalg.solve(a, b))
        _close(la.solve(a[0], b[0, :, 0]), np.linalg.solve(a[0], b[0, :, 0]))
        _close(la.solve(a, b[0]), np.linalg.solve(a, b[0]))     # batch broadcast
        _close(la.inv(a), np.linalg.inv(a))
        for n in (1, 2, 3, 5):
            m = randn((3, n, n), dtype, seed=n)
            _close(la.det(m), np.linalg.det(m))
            sign, logdet = la.slogdet(m)
            want_sign, want_logdet = np.linalg.slogdet(m)
            _close(sign, want_sign)
            _close(logdet, want_logdet)
        if np.dtype(dtype).kind == "f":
            _close(la.slogdet(a, method="qr")[1], np.linalg.slogdet(a)[1])
        singular = np.ones((3, 3), dtype)
        assert float(np.abs(la.det(singular))) == 0
        assert float(np.real(la.slogdet(singular)[0])) == 0
        assert float(la.slogdet(singular)[1]) == -np.inf


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_factorizations(dtype):
    a = spd(4, (2,), dtype)
    _close(la.cholesky(a), np.linalg.cholesky(a))
    _close(la.cholesky(a, upper=True), np.conj(np.swapaxes(np.linalg.cholesky(a), -1, -2)))
    w, v = la.eigh(a)
    _close(w, np.linalg.eigh(a)[0])
    _close((np.asarray(v) * np.asarray(w)[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2)), a)
    _close(la.eigvalsh(a), np.linalg.eigvalsh(a))
    _close(la.eigh(np.triu(a), UPLO="U", symmetrize_input=False)[0], np.linalg.eigvalsh(a))
    x = randn((2, 5, 3), dtype)
    for mode in ("reduced", "complete"):
        q, r = la.qr(x, mode=mode)
        wq, wr = np.linalg.qr(x, mode=mode)
        _close(q, wq)
        _close(r, wr)
    _close(la.qr(x, mode="r"), np.linalg.qr(x, mode="r"))
    h, tau = la.qr(x[0], mode="raw")
    wh, wtau = np.linalg.qr(x[0], mode="raw")
    _close(h, wh)
    _close(tau, wtau)
    for full in (True, False):
        u, s, vh = la.svd(x, full_matrices=full)
        wu, ws, wvh = np.linalg.svd(x, full_matrices=full)
        assert u.shape == wu.shape and vh.shape == wvh.shape
        _close(s, ws)
        _close((np.asarray(u)[..., :, :3] * np.asarray(s)[..., None, :]) @ vh[..., :3, :], x)
    _close(la.svdvals(x), np.linalg.svd(x, compute_uv=False))
    sym = a - 5 * np.eye(4, dtype=dtype)                   # indefinite: |eigenvalues|
    u, s, vh = la.svd(sym, hermitian=True)
    _close(s, np.linalg.svd(sym, compute_uv=False))
    _close((np.asarray(u) * np.asarray(s)[..., None, :]) @ vh, sym)
    _close(la.svd(sym, hermitian=True, compute_uv=False), np.linalg.svd(sym, compute_uv=False))


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
def test_matrix_norms(ord):
    x = randn((2, 3, 4))
    _close(la.norm(x, ord=ord, axis=(1, 2)), np.linalg.norm(x, ord=ord, axis=(1, 2)))
    _close(la.norm(x, ord=ord, axis=(2, 0), keepdims=True),
           np.linalg.norm(x, ord=ord, axis=(2, 0), keepdims=True))
    if ord is not None:
        _close(la.matrix_norm(x, ord=ord), np.linalg.matrix_norm(x, ord=ord))


@pytest.mark.parametrize("ord", [None, 0, 1, 2, 3, 0.5, -1, np.inf, -np.inf])
def test_vector_norms(ord):
    x = randn((3, 4)).astype(np.complex64) * (1 + 1j)
    _close(la.norm(x, ord=ord, axis=1), np.linalg.norm(x, ord=ord, axis=1))
    _close(la.norm(x[0], ord=ord), np.linalg.norm(x[0], ord=ord))
    _close(la.vector_norm(x, ord=2 if ord is None else ord),
           np.linalg.vector_norm(x, ord=2 if ord is None else ord))
    assert la.norm(np.arange(6.0).reshape(1, 2, 3)).shape == ()         # any rank, ord=None


def test_derived_functions():
    a = randn((3, 4, 4))
    for n in (-3, -1, 0, 1, 2, 3, 6):
        _close(la.matrix_power(a, n), np.linalg.matrix_power(a, n))
    r = randn((6, 4))
    _close(la.pinv(r), np.linalg.pinv(r))
    _close(la.pinv(r.T), np.linalg.pinv(r.T))
    low_rank = np.outer(r[:, 0], r[:, 1]).astype(np.float32)
    _close(la.pinv(low_rank), np.linalg.pinv(low_rank, rcond=1e-5))
    assert la.matrix_rank(low_rank) == 1 and la.matrix_rank(r) == 4
    np.testing.assert_array_equal(la.matrix_rank(a), [4, 4, 4])
    b = randn((6, 2), seed=1)
    for rhs in (b, b[:, 0]):
        x, resid, rank, s = la.lstsq(r, rhs)
        wx, wresid, wrank, ws = np.linalg.lstsq(r, rhs, rcond=None)
        _close(x, wx)
        _close(resid, wresid)
        assert rank == wrank
        _close(s, ws)
    assert la.lstsq(r.T, b[:4], numpy_resid=True)[1].shape == (0,)
    chain = [randn((2, 5)), randn((5, 3), seed=1), randn((3, 4), seed=2), randn((4,), seed=3)]
    _close(la.multi_dot(chain), np.linalg.multi_dot(chain))
    for p in (None, 1, -1, 2, -2, np.inf, -np.inf, "fro"):
        _close(la.cond(a, p), np.linalg.cond(a, p))
    t = randn((4, 6, 8, 3))
    _close(la.tensorinv(t, ind=2), np.linalg.tensorinv(t, ind=2))
    t2 = randn((6, 2, 3))
    _close(la.tensorsolve(t2, b[:, 0]), np.linalg.tensorsolve(t2, b[:, 0]))
    _close(la.trace(a), np.trace(a, axis1=-2, axis2=-1))
    _close(la.diagonal(a, offset=1), np.diagonal(a, 1, -2, -1))
    _close(la.outer(b[:, 0], b[:3, 1]), np.outer(b[:, 0], b[:3, 1]))
    _close(la.cross(r[:, :3], b[:, :1] + r[:, 1:]), np.cross(r[:, :3], b[:, :1] + r[:, 1:]))
    _close(la.matrix_transpose(a), np.swapaxes(a, -1, -2))


# ------------------------------------------------------------------ derivatives
_A = randn((3, 3), np.float64) + 3 * np.eye(3)
_B = randn((3, 2), np.float64, seed=1)


@pytest.mark.parametrize("f, args, order", [
    (la.solve, (_A, _B), 2),
    (lambda a, b: la.solve(a, b[:, 0]), (_A, _B), 1),
    (la.det, (randn((4, 4), np.float64),), 1),
    (lambda x: la.slogdet(x)[1], (randn((4, 4), np.float64),), 1),
    (lambda x: la.slogdet(x)[1], (randn((2, 2), np.float64),), 1),
    (la.pinv, (randn((4, 3), np.float64),), 1),
    (la.pinv, (randn((3, 4), np.float64),), 1),
    (lambda x: la.norm(x, ord=2), (randn((4, 3), np.float64),), 1),
    (lambda x: la.lstsq(x, _B[:, 0])[0], (randn((3, 2), np.float64),), 1),
], ids=["solve", "solve_vector", "det", "slogdet", "slogdet_2x2", "pinv_tall", "pinv_wide",
        "norm2", "lstsq"])
def test_gradients(f, args, order):
    # all of check_grads' evaluations in one program: 64 -> 9 compiles, 6.0 -> 2.5 s CPU
    with x64():
        check_grads_together(f, args, order=order, modes=("fwd", "rev") if order == 1 else ("rev",))


def test_det_gradient_of_singular_matrices_is_the_adjugate():
    with x64():
        rank2 = np.array([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]])     # rank n-1
        adjugate_t = np.array([[-3., 6., -3.], [6., -12., 6.], [-3., 6., -3.]])
        _close(jxkernel.grad(la.det)(rank2), adjugate_t)
        _close(jxkernel.grad(la.det)(np.ones((4, 4))), np.zeros((4, 4)))


# ------------------------------------------------------------------ transformations
def test_vmap_and_jit():
    a = randn((3, 4, 4))
    b = randn((3, 4), seed=1)
    funs = [(la.solve, (a, b)), (la.det, (a,)), (la.inv, (a,)),
            (lambda x: la.slogdet(x)[1], (a,)), (la.eigvalsh, (spd(4, (3,)),)),
            (lambda x: la.norm(x, ord=2), (a,)), (la.pinv, (a,))]
    # the jitted ones compile as one program (compiled.jit_together)
    jitted = jit_together(jxkernel, {k: (f, [x[0] for x in args])
                                     for k, (f, args) in enumerate(funs)})
    for k, (f, args) in enumerate(funs):
        batched = np.asarray(jxkernel.vmap(f)(*args))
        stacked = np.stack([np.asarray(f(*(x[i] for x in args))) for i in range(3)])
        _close(batched, stacked)
        one = [x[0] for x in args]
        _close(jitted[k], np.asarray(f(*one)))
    grads = jxkernel.vmap(jxkernel.grad(la.det))(a)
    _close(grads, np.stack([np.asarray(jxkernel.grad(la.det)(x)) for x in a]))


@pytest.mark.parametrize("f, args, err, msg", [
    (la.solve, (np.ones(3), np.ones(3)), ValueError, "at least two dimensional"),
    (la.solve, (np.ones((2, 3, 3)), np.ones((2, 3))), ValueError, "Invalid shapes for solve"),
    (la.inv, (np.ones((2, 3)),), ValueError, r"must have shape \[..., n, n\]"),
    (la.det, (np.ones((2, 3)),), ValueError, r"must have shape \[..., n, n\]"),
    (la.slogdet, (np.ones((2, 3)),), ValueError, r"must have shape \[..., n, n\]"),
    (la.matrix_power, (np.ones((2, 3)), 2), TypeError, "must be square"),
    (la.matrix_power, (np.ones((2, 2)), 1.5), TypeError, "exponent must be an integer"),
    (la.eigh, (np.eye(2), "X"), ValueError, "UPLO must be one of"),
    (la.qr, (np.eye(2), "economic"), ValueError, "Unsupported QR decomposition mode"),
    (lambda x: la.norm(x, ord="bad"), (np.ones(3),), ValueError, "Invalid order"),
    (lambda x: la.norm(x, ord=3), (np.ones((2, 2)),), ValueError, "Invalid order '3'"),
    (lambda x: la.norm(x, axis=(0, 1, 2)), (np.ones((2, 2, 2)),), ValueError, "Improper"),
    (la.multi_dot, ([np.ones((2, 2))],), ValueError, "at least two arrays"),
    (la.cond, (np.ones(3),), ValueError, "at least 2D"),
])
def test_errors(f, args, err, msg):
    with pytest.raises(err, match=msg):
        f(*args)


def test_jnp_linalg_namespace():
    import jxkernel.numpy as jnp
    assert jnp.linalg is la
    assert set(la.__all__) <= set(dir(jnp.linalg))
