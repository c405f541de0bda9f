"""lax.linalg on CUDA GPUs (cuSOLVER through the CUDA plugin): results checked against NumPy
and by their defining properties (L L^H = A, P A = L U, Q R = A, A V = V diag(w), ...), under
jit, vmap and grad. Skipped without a GPU backend, except the first tests, which lower for the
GPU without running anything and check the custom calls JAX emits there."""
import re

import numpy as np
import pytest

import jxkernel
from jxkernel.lax import linalg
from jxkernel.xla.client import platform_of
from jxkernel.xla.lowering import lower_module
from matrices import randn


def _gpu_devices():
    try:
        return jxkernel.devices("gpu")
    except (RuntimeError, ValueError):
        return []


GPUS = _gpu_devices()
needs_gpu = pytest.mark.skipif(not GPUS, reason="no GPU backend (CUDA plugin and GPU) here")
x64 = lambda: jxkernel.config.override("jax_enable_x64", True)


def _gpu_text(f, *avals):
    closed = jxkernel.make_jaxpr(f)(*(jxkernel.ShapeDtypeStruct(s, d) for s, d in avals))
    return lower_module(closed.jaxpr, name="f", platform="gpu")[0]


def _targets(text):
    return re.findall(r'call_target_name = "([^"]+)"', text)


# ------------------------------------------------------------------ lowering (runs on CPU)
@pytest.mark.parametrize("f, avals, targets", [
    (linalg.cholesky, [((2, 4, 4), np.float32)], ["cusolver_potrf_ffi"]),
    (linalg.lu, [((4, 3), np.float32)], ["cusolver_getrf_ffi", "cu_lu_pivots_to_permutation"]),
    (linalg.qr, [((5, 3), np.complex64)], ["cusolver_geqrf_ffi", "cusolver_orgqr_ffi"]),
    (lambda a: linalg.qr(a, pivoting=True), [((3, 5), np.float32)],
     ["cuhybrid_geqp3", "cusolver_orgqr_ffi"]),
    (linalg.eigh, [((4, 4), np.float32)], ["cusolver_syevd_ffi"]),
    (linalg.svd, [((4, 3), np.float32)], ["cusolver_gesvdj_ffi"]),
    (lambda a: linalg.svd(a, algorithm=linalg.SvdAlgorithm.QR), [((3, 4), np.float32)],
     ["cusolver_gesvd_ffi"]),
    (linalg.eig, [((3, 3), np.float32)], ["cuhybrid_eig_real"]),
    (linalg.triangular_solve, [((3, 3), np.float32), ((2, 3), np.float32)], []),
    # JAX 0.10.2's GPU lowerings of tridiagonal (cuSOLVER sytrd) and tridiagonal_solve:
    # cuSPARSE's gtsv2 from 3 rows, its own Thomas scan below, the plugin's perturbed LU
    (linalg.tridiagonal, [((2, 4, 4), np.float32)], ["cusolver_sytrd_ffi"]),
    (linalg.tridiagonal_solve, [((4,), np.float32)] * 3 + [((4, 2), np.float32)],
     ["cusparse_gtsv2_ffi"]),
    (linalg.tridiagonal_solve, [((2,), np.float32)] * 3 + [((2, 2), np.float32)], []),
    (lambda *a: linalg.tridiagonal_solve(*a, perturb_singular=True),
     [((4,), np.float32)] * 3 + [((4, 2), np.float32)], ["cu_tridiagonal_solve_perturbed"]),
])
def test_gpu_lowering_emits_jaxs_custom_calls(f, avals, targets):
    text = _gpu_text(f, *avals)
    assert _targets(text) == targets
    assert "lapack_" not in text


def test_gpu_lowering_attributes_and_layouts():
    text = _gpu_text(linalg.cholesky, ((2, 4, 4), np.float32))
    assert "backend_config = {lower = true}" in text
    assert "operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]" in text   # column-major
    text = _gpu_text(lambda a: linalg.eigh(a, lower=False,
                                           implementation=linalg.EighImplementation.JACOBI),
                     ((3, 3), np.float32))
    assert "backend_config = {lower = false, algorithm = 2 : ui8}" in text
    # gesvd of a wide matrix factors its transpose: the operand read row-major
    text = _gpu_text(lambda a: linalg.svd(a, algorithm=linalg.SvdAlgorithm.QR,
                                          full_matrices=False), ((3, 4), np.float32))
    assert "compute_uv = true, transposed = true" in text
    assert "operand_layouts = [dense<[1, 0]> : tensor<2xindex>]" in text
    text = _gpu_text(lambda a, b: linalg.triangular_solve(a, b, left_side=True, lower=True,
                                                          transpose_a=True, conjugate_a=True),
                     ((3, 3), np.complex64), ((3, 2), np.complex64))
    assert ('"stablehlo.triangular_solve"(%arg0, %arg1) {left_side = true, lower = true, '
            'unit_diagonal = false, transpose_a = #stablehlo<transpose ADJOINT>}') in text


def test_gpu_lowering_errors():
    # hessenberg and schur have LAPACK lowerings only: JAX 0.10.2's words for a CUDA lowering
    # (recorded with jax.export(..., platforms=['cuda']))
    for name, f in (("hessenberg", linalg.hessenberg), ("schur", linalg.schur)):
        with pytest.raises(NotImplementedError, match=f"^MLIR translation rule for primitive "
                           f"'{name}' not found for platform cuda$"):
            _gpu_text(f, ((3, 3), np.float32))
    with pytest.raises(NotImplementedError, match="only supported on AMD"):
        _gpu_text(lambda a: linalg.svd(a, algorithm=linalg.SvdAlgorithm.DIVIDE_AND_CONQUER),
                  ((3, 3), np.float32))
    with pytest.raises(NotImplementedError, match="^MLIR translation rule for primitive 'eig' "
                                                  "not found for platform tpu$"):
        lower_module(jxkernel.make_jaxpr(linalg.eig)(np.eye(2, dtype=np.float32)).jaxpr,
                     name="f", platform="tpu")
    with pytest.raises(NotImplementedError, match="QDWH"):
        _gpu_text(lambda a: linalg.eigh(a, implementation=linalg.EighImplementation.QDWH),
                  ((3, 3), np.float32))
    # JAX's order: without cuSOLVER 11.7.1 (no CUDA plugin here) that error comes first
    with pytest.raises((RuntimeError, NotImplementedError),
                       match="cusolver 11.7.1|Left eigenvectors are not supported"):
        _gpu_text(lambda a: linalg.eig(a, implementation=linalg.EigImplementation.CUSOLVER),
                  ((3, 3), np.float32))


def test_an_empty_eigh_lowers_for_the_tpu_as_jaxs():
    """eigh of a 0 x 0 matrix lowered for the TPU: no Eigh kernel, its operations JAX 0.10.2's
    (`jax.jit(jnp.linalg.eigh).trace(x).lower(lowering_platforms=('tpu',))`: transpose, add,
    constant, broadcast_in_dim, divide, reshape, real). The lowering named a module it had not
    imported (NameError: hl)."""
    x = np.zeros((0, 0), np.float32)
    text = jxkernel.jit(jxkernel.numpy.linalg.eigh).trace(x).lower(
        lowering_platforms=("tpu",)).as_text()
    assert re.findall(r"stablehlo\.\w+|custom_call", text) == [
        "stablehlo.transpose", "stablehlo.add", "stablehlo.constant",
        "stablehlo.broadcast_in_dim", "stablehlo.divide", "stablehlo.reshape", "stablehlo.real"]


# ------------------------------------------------------------------ on the GPU
def _H(a):
    return np.conj(np.swapaxes(a, -1, -2))


def _tol(dtype):
    return 1e-10 if np.dtype(dtype) in (np.float64, np.complex128) else 2e-4


def _close(got, want, dtype, scale=1):
    np.testing.assert_allclose(np.asarray(got), want, rtol=scale * _tol(dtype),
                               atol=scale * _tol(dtype))


def _on_gpu(f, *args):
    """f(*args) with the arguments on the GPU, checking its results stayed there."""
    with jxkernel.default_device(GPUS[0]):
        out = f(*(jxkernel.device_put(a, GPUS[0]) for a in args))
    for leaf in jxkernel.tree_util.tree_leaves(out):
        assert platform_of(leaf.device) == "gpu"
    return out


DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_cholesky(dtype):
    with x64():
        a = randn((3, 5, 5), dtype)
        a = a @ _H(a) + 5 * np.eye(5)
        L = np.asarray(_on_gpu(linalg.cholesky, a))
        _close(L, np.linalg.cholesky(a), dtype, 10)
        _close(L @ _H(L), a, dtype, 10)
        bad = np.asarray(_on_gpu(linalg.cholesky, -a))      # not positive definite: NaN
        rows, cols = np.tril_indices(5)
        assert np.isnan(bad[..., rows, cols]).all()


@needs_gpu
@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose_a, conjugate_a", [(False, False), (True, False),
                                                      (True, True), (False, True)])
def test_triangular_solve(left_side, lower, transpose_a, conjugate_a):
    a = np.tril(randn((4, 4), np.complex64)) + 4 * np.eye(4, dtype=np.complex64)
    a = a if lower else a.T
    b = randn((4, 3) if left_side else (3, 4), np.complex64, seed=1)
    x = np.asarray(_on_gpu(lambda a, b: linalg.triangular_solve(
        a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,
        conjugate_a=conjugate_a), a, b))
    op = a.T if transpose_a else a
    op = np.conj(op) if conjugate_a else op
    _close(op @ x if left_side else x @ op, b, np.complex64)


@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 5), (2, 6, 4), (4, 6)])
def test_lu(dtype, shape):
    with x64():
        a = randn(shape, dtype)
        lu, pivots, perm = (np.asarray(r) for r in _on_gpu(linalg.lu, a))
        *batch, m, n = shape
        k = min(m, n)
        L = np.tril(lu[..., :, :k], -1) + np.eye(m, k)
        U = np.triu(lu[..., :k, :])
        _close(L @ U, np.take_along_axis(a, perm[..., :, None], -2), dtype, 10)
        # the permutation is what applying the row swaps (pivots) in order makes
        for i in np.ndindex(*batch):
            order = np.arange(m)
            for j, p in enumerate(pivots[i]):
                order[[j, p]] = order[[p, j]]
            np.testing.assert_array_equal(perm[i], order)


@needs_gpu
@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (2, 5, 5)])
@pytest.mark.parametrize("full_matrices", [True, False])
def test_qr(dtype, shape, full_matrices):
    with x64():
        a = randn(shape, dtype)
        q, r = (np.asarray(x) for x in _on_gpu(
            lambda a: linalg.qr(a, full_matrices=full_matrices), a))
        m, n = shape[-2:]
        k = m if full_matrices else min(m, n)
        assert q.shape[-2:] == (m, k) and r.shape[-2:] == (k, n)
        _close(q @ r, a, dtype, 10)
        _close(_H(q) @ q, np.broadcast_to(np.eye(k), (*shape[:-2], k, k)), dtype, 10)
        np.testing.assert_array_equal(r, np.triu(r))


@needs_gpu
def test_qr_pivoting():
    a = randn((5, 4), np.float32)
    q, r, p = (np.asarray(x) for x in _on_gpu(lambda a: linalg.qr(a, pivoting=True), a))
    _close(q @ r, a[:, p], np.float32, 10)
    d = np.abs(np.diag(r))
    assert (d[:-1] >= d[1:] - 1e-5).all()          # column pivoting: decreasing |r_ii|


@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("implementation", [None, linalg.EighImplementation.JACOBI])
def test_eigh(dtype, implementation):
    with x64():
        a = randn((2, 6, 6), dtype)
        a = a + _H(a)
        v, w = (np.asarray(x) for x in _on_gpu(
            lambda a: linalg.eigh(a, implementation=implementation), a))
        _close(w, np.linalg.eigvalsh(a), dtype, 10)
        _close(a @ v, v * w[..., None, :].astype(dtype), dtype, 10)
        _close(_H(v) @ v, np.broadcast_to(np.eye(6), a.shape), dtype, 10)


@needs_gpu
@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
@pytest.mark.parametrize("shape, algorithm", [
    ((5, 3), None), ((3, 5), None), ((2, 4, 4), None), ((40, 35), None),
    ((5, 3), linalg.SvdAlgorithm.QR), ((3, 5), linalg.SvdAlgorithm.QR),
    ((4, 4), linalg.SvdAlgorithm.JACOBI)])
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd(dtype, shape, algorithm, full_matrices):
    with x64():
        a = randn(shape, dtype)
        u, s, vt = (np.asarray(x) for x in _on_gpu(
            lambda a: linalg.svd(a, full_matrices=full_matrices, algorithm=algorithm), a))
        want = np.linalg.svd(a, compute_uv=False)
        _close(s, want, dtype, 10)
        m, n = shape[-2:]
        k = min(m, n)
        assert u.shape[-2:] == ((m, m) if full_matrices else (m, k))
        assert vt.shape[-2:] == ((n, n) if full_matrices else (k, n))
        _close((u[..., :, :k] * s[..., None, :]) @ vt[..., :k, :], a, dtype, 10)
        j = u.shape[-1]
        _close(_H(u) @ u, np.broadcast_to(np.eye(j), (*u.shape[:-2], j, j)), dtype, 10)
        only_s = np.asarray(_on_gpu(lambda a: linalg.svd(a, compute_uv=False,
                                                         algorithm=algorithm), a))
        _close(only_s, want, dtype, 10)


@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("left", [True, False])
def test_eig(dtype, left):
    with x64():
        a = randn((2, 5, 5), dtype)
        out = [np.asarray(x) for x in _on_gpu(
            lambda a: linalg.eig(a, compute_left_eigenvectors=left), a)]
        w, vr = out[0], out[-1]
        cdtype = w.dtype
        want = np.linalg.eigvals(a)
        _close(np.sort_complex(w), np.sort_complex(want), cdtype, 10)
        _close(a @ vr, vr * w[..., None, :], cdtype, 10)
        _close(np.linalg.norm(vr, axis=-2), np.ones(w.shape), cdtype, 10)
        if left:
            vl = out[1]
            _close(_H(vl) @ a, w[..., :, None] * _H(vl), cdtype, 10)


@needs_gpu
def test_jit_vmap_grad_match_cpu():
    """The transformations work on the GPU and give the CPU's values (to rounding)."""
    with x64():
        a = randn((3, 4, 4), np.float64)
        spd = a @ _H(a) + 4 * np.eye(4)

        def loss(x):
            L = linalg.cholesky(x)
            v, w = linalg.eigh(x)
            s = linalg.svd(x, full_matrices=False)[1]
            lu = linalg.lu(x)[0]
            r = linalg.qr(x)[1]
            return (L.sum() + w.sum() + (v[..., 0] ** 2).sum() + s.sum() + (lu ** 2).sum()
                    + (r ** 2).sum())

        grad = jxkernel.jit(jxkernel.vmap(jxkernel.grad(loss)))
        got = np.asarray(_on_gpu(grad, spd))
        with jxkernel.default_device(jxkernel.devices("cpu")[0]):
            want = np.asarray(grad(jxkernel.device_put(spd, jxkernel.devices("cpu")[0])))
        np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-8)
        solve = jxkernel.vmap(lambda a, b: linalg.triangular_solve(a, b, left_side=True,
                                                                   lower=True), (0, None))
        b = randn((4, 2), np.float64, seed=3)
        x = np.asarray(_on_gpu(solve, np.tril(spd), b))
        _close(np.tril(spd) @ x, np.broadcast_to(b, x.shape), np.float64)


@needs_gpu
@pytest.mark.parametrize("perturb_singular", [False, True])
def test_tridiagonal_solve(perturb_singular):
    dl, d, du = (randn((2, 5), np.float32, seed=s) for s in (1, 2, 3))
    d = d + 4       # diagonally dominant: both kernels solve it exactly
    dl[:, 0] = du[:, -1] = 0
    b = randn((2, 5, 3), np.float32, seed=4)
    x = np.asarray(_on_gpu(lambda *a: linalg.tridiagonal_solve(
        *a, perturb_singular=perturb_singular), dl, d, du, b))
    dense = np.stack([np.diag(d[i]) + np.diag(dl[i, 1:], -1) + np.diag(du[i, :-1], 1)
                      for i in range(2)])
    _close(dense @ x, b, np.float32)


@needs_gpu
def test_tridiagonal():
    a = randn((2, 4, 4), np.float32)
    a = a + a.swapaxes(-1, -2)
    arr, d, e, taus = (np.asarray(x) for x in _on_gpu(linalg.tridiagonal, a))
    # the eigenvalues of the tridiagonal (d, e) are a's: a similarity transform
    t = np.stack([np.diag(d[i]) + np.diag(e[i], -1) + np.diag(e[i], 1) for i in range(2)])
    _close(np.linalg.eigvalsh(t), np.linalg.eigvalsh(a), np.float32, scale=10)
