"""lax.linalg: every LAPACK-backed primitive against NumPy/SciPy (which call the same LAPACK
routines), batched, under vmap and jit, differentiated (check_grads, forward and reverse, in
float64), and its errors."""
import functools

import numpy as np
import pytest
import scipy.linalg
from compiled import jit_together
from grads_together import check_grads_together
from numerics import LAPACK, assert_allclose_ulp

import jxkernel
from jxkernel.lax import linalg
from jxkernel.test_util import check_grads
from matrices import randn, spd

x64 = lambda: jxkernel.config.override("jax_enable_x64", True)


def _close(got, want, ulps=LAPACK):
    """Within `ulps` of want rounded to got's dtype, measured at want's largest |value| (a
    factorization's error is norm-wise; LAPACK's blocked kernels are chosen per CPU). Worst
    seen 30 (eigenvectors against NumPy's, float32, AVX-512), 8 (a residual, complex64, AVX)."""
    got = np.asarray(got)
    want = np.asarray(want).astype(got.dtype)
    assert_allclose_ulp(got, want, ulps, scale=np.abs(want).max(initial=0))


def _complex_grads(f, args):
    """check_grads for complex functions: forward mode by check_grads, reverse mode by JAX's
    dot-product test, which conjugates around the VJP (jxkernel's test_util.check_vjp pairs
    them without conjugation, which holds for real functions only)."""
    check_grads(f, args, order=1, modes=("fwd",))
    rng = np.random.RandomState(5)
    like = lambda x: (rng.randn(*x.shape) + 1j * rng.randn(*x.shape) if x.dtype.kind == "c"
                      else rng.randn(*x.shape)).astype(x.dtype)
    leaves = jxkernel.tree_util.tree_leaves
    out, f_vjp = jxkernel.vjp(f, *args)
    ct = jxkernel.tree_util.tree_map(lambda o: like(np.asarray(o)), out)
    t = tuple(like(a) for a in args)
    _, out_t = jxkernel.jvp(f, args, t)
    ct_in = f_vjp(jxkernel.tree_util.tree_map(np.conj, ct))
    inner = lambda xs, ys: sum(np.real(np.vdot(np.asarray(x), np.asarray(y)))
                               for x, y in zip(leaves(xs), leaves(ys)))
    np.testing.assert_allclose(inner(t, jxkernel.tree_util.tree_map(np.conj, ct_in)),
                               inner(out_t, ct), rtol=1e-6, atol=1e-6)


def _vmap_matches_stack(f, *args):
    """vmap(f) over the leading axis equals f applied to each slice."""
    got = jxkernel.vmap(f)(*args)
    for i in range(args[0].shape[0]):
        for g, w in zip(jxkernel.tree_util.tree_leaves(got),
                        jxkernel.tree_util.tree_leaves(f(*(a[i] for a in args)))):
            _close(np.asarray(g)[i], w)


# ------------------------------------------------------------------ cholesky
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_cholesky_matches_numpy(dtype):
    with x64():
        a = spd(4, (2,), dtype)
        got = np.asarray(linalg.cholesky(a))
        assert got.dtype == dtype
        _close(got, np.linalg.cholesky(a))
        assert (np.triu(got, 1) == 0).all()


def test_cholesky_symmetrizes_and_flags_failure():
    a = spd(3)
    lower_only = np.tril(a)                  # symmetrize_input=False reads the lower triangle
    _close(linalg.cholesky(lower_only, symmetrize_input=False), np.linalg.cholesky(a))
    bad = np.asarray(linalg.cholesky(np.stack([a, -a])))
    assert np.isfinite(bad[0]).all() and np.isnan(bad[1][np.tril_indices(3)]).all()


def _called(on_cpu: str, on_gpu: str) -> str:
    """What the lowering calls on this machine's default backend: LAPACK on the CPU; on a CUDA
    GPU what JAX calls there (cuSOLVER, or XLA's own triangular_solve: scripts/gpu_parity.py
    compared them on an H200; tests/lax/test_linalg_gpu.py checks every target on any machine)."""
    return on_gpu if jxkernel.default_backend() == "gpu" else on_cpu


def test_cholesky_vmap_and_jit():
    a = spd(3, (4,))
    want = np.linalg.cholesky(a)
    _close(jxkernel.vmap(linalg.cholesky)(a), want)
    _close(jxkernel.jit(linalg.cholesky)(a), want)
    assert _called("lapack_spotrf_ffi", "cusolver_potrf_ffi") in \
        jxkernel.jit(linalg.cholesky).lower(a).as_text()


def test_cholesky_grads():
    with x64():
        # each check as one program (grads_together): 98 -> 66 compiles, 2.9 -> 2.2 s CPU
        check_grads_together(linalg.cholesky, (spd(3, (), np.float64),), order=2)
        check_grads_together(linalg.cholesky, (spd(2, (2,), np.float64),), order=1)
        _complex_grads(linalg.cholesky, (spd(3, (), np.complex128),))
        # under vmap: the jvp's triangular solves batch
        jac = jxkernel.vmap(jxkernel.jacfwd(linalg.cholesky))(spd(2, (3,), np.float64))
        assert jac.shape == (3, 2, 2, 2, 2)


@pytest.mark.parametrize("x, err, msg", [
    # JAX 0.10.2's classes and words (tests/data/error_parity_cases.py has them whole)
    (np.ones((2, 3), np.float32), ValueError, "must be a square matrix"),
    (np.ones(3, np.float32), TypeError, "must have rank at least 2"),
    (np.ones((2, 2), np.int32), TypeError, "cholesky does not accept dtype int32 at position 0"),
    # float16 traces, and LAPACK refuses it as it lowers, in JAX 0.10.2's words
    (np.ones((2, 2), np.float16), NotImplementedError, "Unsupported dtype float16"),
])
def test_cholesky_errors(x, err, msg):
    with pytest.raises(err, match=msg):
        linalg.cholesky(x, symmetrize_input=False)


# ------------------------------------------------------------------ triangular_solve
def _op(a, lower, transpose_a, conjugate_a, unit_diagonal):
    a = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        a = a - np.diag(np.diag(a)) + np.eye(a.shape[-1], dtype=a.dtype)
    a = np.conj(a) if conjugate_a else a
    return a.T if transpose_a else a


_SOLVES = [dict(left_side=l, lower=lo, transpose_a=t, conjugate_a=c, unit_diagonal=u)
           for l, lo, t, c, u in [(True, True, False, False, False),
                                  (True, False, True, False, False),
                                  (False, True, False, True, True),
                                  (False, False, True, True, False),
                                  (True, True, True, True, True)]]


SOLVE_DTYPES = [np.float32, np.float64, np.complex64]


def _solve_operands(dtype, kw):
    a = randn((4, 4), dtype) + 4 * np.eye(4, dtype=dtype)
    return a, randn((4, 3) if kw["left_side"] else (3, 4), dtype, seed=1)


@functools.cache
def _solves_jitted():
    """triangular_solve of every case of test_triangular_solve_matches_numpy (in x64 mode, as
    the test), compiled together (compiled.jit_together): each eager call is one primitive,
    so one program of its own; together they are one instead of 15."""
    with x64():
        return jit_together(jxkernel, {
            (np.dtype(dtype).name, i): (lambda a, b, kw=kw: linalg.triangular_solve(a, b, **kw),
                                        _solve_operands(dtype, kw))
            for dtype in SOLVE_DTYPES for i, kw in enumerate(_SOLVES)})


@pytest.mark.parametrize("dtype", SOLVE_DTYPES)
@pytest.mark.parametrize("kw", _SOLVES)
def test_triangular_solve_matches_numpy(dtype, kw):
    with x64():
        a, b = _solve_operands(dtype, kw)
        x = np.asarray(_solves_jitted()[np.dtype(dtype).name, _SOLVES.index(kw)])
        assert x.dtype == dtype and x.shape == b.shape
        op = _op(a, kw["lower"], kw["transpose_a"], kw["conjugate_a"], kw["unit_diagonal"])
        _close(op @ x if kw["left_side"] else x @ op, b)


def test_triangular_solve_vector_and_batched():
    a = np.tril(randn((2, 3, 3))) + 3 * np.eye(3, dtype=np.float32)
    b = randn((2, 3), seed=1)
    x = np.asarray(linalg.triangular_solve(a, b, left_side=True, lower=True))
    assert x.shape == (2, 3)
    _close(np.einsum("bij,bj->bi", a, x), b)
    x = np.asarray(linalg.triangular_solve(a, b, left_side=False, lower=True))
    _close(np.einsum("bi,bij->bj", x, a), b)
    assert _called("lapack_strsm_ffi", "stablehlo.triangular_solve") in jxkernel.jit(
        lambda a, b: linalg.triangular_solve(a, b, lower=True)).lower(a, a).as_text()


@pytest.mark.parametrize("left_side", [True, False])
def test_triangular_solve_vmap(left_side):
    a = np.tril(randn((4, 3, 3))) + 3 * np.eye(3, dtype=np.float32)
    b = randn((4, 3, 2) if left_side else (4, 2, 3), seed=1)
    solve = lambda a, b: linalg.triangular_solve(a, b, left_side=left_side, lower=True)
    _vmap_matches_stack(solve, a, b)                                   # both batched
    got = jxkernel.vmap(solve, in_axes=(None, 0))(a[0], b)             # only b: one solve
    _close(got, np.stack([np.asarray(solve(a[0], bi)) for bi in b]))
    got = jxkernel.vmap(solve, in_axes=(None, 2))(a[0], np.moveaxis(b, 0, 2))   # batch last
    _close(got, np.stack([np.asarray(solve(a[0], bi)) for bi in b]))
    got = jxkernel.vmap(solve, in_axes=(0, None))(a, b[0])             # only a
    _close(got, np.stack([np.asarray(solve(ai, b[0])) for ai in a]))


@pytest.mark.parametrize("kw", _SOLVES[:4])
def test_triangular_solve_grads(kw):
    with x64():
        a = randn((3, 3), np.float64) + 3 * np.eye(3)
        b = randn((3, 2) if kw["left_side"] else (2, 3), np.float64, seed=1)
        # each check as one program (grads_together): 63 -> 23 compiles for the four cases
        check_grads_together(lambda a, b: linalg.triangular_solve(a, b, **kw), (a, b), order=2)
        wide = randn((3, 5) if kw["left_side"] else (5, 3), np.float64, seed=2)
        check_grads_together(lambda a, b: linalg.triangular_solve(a, b, **kw), (a, wide), order=1)
        ac = randn((3, 3), np.complex128) + 3 * np.eye(3)
        bc = randn(b.shape, np.complex128, seed=3)
        _complex_grads(lambda a, b: linalg.triangular_solve(a, b, **kw), (ac, bc))


def test_triangular_solve_is_linear_in_b():
    a = np.tril(randn((3, 3))) + 3 * np.eye(3, dtype=np.float32)
    solve = lambda b: linalg.triangular_solve(a, b, left_side=True, lower=True)
    ct = randn((3, 2), seed=4)
    transposed, = jxkernel.linear_transpose(solve, np.zeros((3, 2), np.float32))(ct)
    _close(transposed, np.linalg.solve(a.T, ct))


@pytest.mark.parametrize("a, b, err, msg", [
    (np.ones((2, 3)), np.ones((2, 2)), ValueError, "must be a square matrix"),
    (np.ones((3, 3)), np.ones((2, 2)), ValueError, "Incompatible shapes"),
    (np.ones((2, 3, 3)), np.ones((3, 3, 2)), ValueError, "Incompatible shapes"),
    (np.ones((3, 3)), np.ones((1, 3, 3)), TypeError, "same number of batch dimensions"),
    (np.ones((3, 3), np.int32), np.ones((3, 3)), TypeError, "does not accept dtype int32"),
    (np.ones((3, 3)), np.ones((3, 3), np.float64), TypeError, "same dtypes"),
])
def test_triangular_solve_errors(a, b, err, msg):
    a = a.astype(np.float32) if a.dtype == np.float64 else a
    b = b.astype(np.float32) if b.dtype == np.float64 and "dtypes" not in msg else b
    with x64(), pytest.raises(err, match=msg):
        linalg.triangular_solve(a, b, left_side=True)


# ------------------------------------------------------------------ lu
@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 3), (3, 5)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_lu_matches_scipy(shape, dtype):
    with x64():
        x = randn(shape, dtype)
        lu, pivots, perm = map(np.asarray, linalg.lu(x))
        m, n = shape[-2:]
        assert pivots.dtype == perm.dtype == np.int32
        assert pivots.shape == (*shape[:-2], min(m, n)) and perm.shape == (*shape[:-2], m)
        for i in np.ndindex(*shape[:-2]):
            want_lu, want_piv = scipy.linalg.lu_factor(x[i])
            _close(lu[i], want_lu)
            np.testing.assert_array_equal(pivots[i], want_piv)
            k = min(m, n)
            low = np.tril(lu[i], -1)[:, :k] + np.eye(m, k)
            _close(x[i][perm[i]], low @ np.triu(lu[i])[:k])


def test_lu_pivots_to_permutation():
    pivots = np.array([[2, 2, 3], [0, 1, 2]], np.int32)
    perm = np.asarray(linalg.lu_pivots_to_permutation(pivots, 5))
    np.testing.assert_array_equal(perm, [[2, 0, 3, 1, 4], [0, 1, 2, 3, 4]])
    np.testing.assert_array_equal(jxkernel.vmap(
        lambda p: linalg.lu_pivots_to_permutation(p, 5))(pivots), perm)
    with pytest.raises(ValueError, match="has to exceed"):
        linalg.lu_pivots_to_permutation(pivots, 2)


def test_lu_grads_and_vmap():
    with x64():
        # each check as one program (grads_together): 89 -> 38 compiles, 2.4 -> 1.9 s CPU
        # (eigh's order-2 check stays op by op: svd's gradients share its eager compiles)
        check_grads_together(lambda x: linalg.lu(x)[0], (randn((3, 3), np.float64),), order=2)
        check_grads_together(lambda x: linalg.lu(x)[0], (randn((2, 3, 4), np.float64),), order=1)
        _complex_grads(lambda x: linalg.lu(x)[0], (randn((4, 2), np.complex128),))
    _vmap_matches_stack(linalg.lu, randn((3, 4, 4)))


@pytest.mark.parametrize("trans", [0, 1, 2])
def test_lu_solve(trans):
    with x64():
        a = randn((2, 4, 4), np.complex128)
        b = randn((2, 4, 3), np.complex128, seed=1)
        lu, _, perm = linalg.lu(a)
        op = [a, np.swapaxes(a, -1, -2), np.conj(np.swapaxes(a, -1, -2))][trans]
        _close(linalg.lu_solve(lu, perm, b, trans), np.linalg.solve(op, b))
        _close(linalg.lu_solve(lu, perm, b[..., 0], trans),         # vector right-hand side
               np.linalg.solve(op, b[..., :1])[..., 0])


# ------------------------------------------------------------------ qr
@pytest.mark.parametrize("shape, full", [((5, 3), False), ((5, 3), True), ((3, 5), False),
                                         ((2, 4, 4), False), ((0, 3), True)])
def test_qr(shape, full):
    x = randn(shape)
    q, r = (np.asarray(v) for v in linalg.qr(x, full_matrices=full))
    wq, wr = np.linalg.qr(x, mode="complete" if full else "reduced")
    _close(q, wq)
    _close(r, wr)
    _close(q @ r, x)


def test_qr_pivoting():
    x = randn((5, 4))
    q, r, p = map(np.asarray, linalg.qr(x, pivoting=True, full_matrices=False))
    _, wr, wp = scipy.linalg.qr(x, pivoting=True, mode="economic")
    np.testing.assert_array_equal(p, wp)
    _close(q @ r, x[:, p])
    _close(r, wr)


@pytest.mark.parametrize("shape, full", [((4, 3), False), ((4, 3), True), ((3, 3), True),
                                         ((3, 5), False), ((2, 3, 2), False)])
def test_qr_grads(shape, full):
    with x64():
        x = randn(shape, np.float64)
        # as one program (grads_together): 93 -> 25 compiles, 2.9 -> 1.8 s CPU for the five
        check_grads_together(lambda x: linalg.qr(x, full_matrices=full), (x,), order=1)
    with x64():
        _complex_grads(lambda x: linalg.qr(x, full_matrices=False),
                       (randn((4, 3), np.complex128),))


def test_qr_vmap_and_building_blocks_do_not_differentiate():
    _vmap_matches_stack(lambda x: linalg.qr(x, full_matrices=False), randn((3, 4, 2)))
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'geqrf'"):
        jxkernel.jvp(linalg.geqrf, (randn((3, 3)),), (randn((3, 3)),))
    a, taus = linalg.geqrf(randn((3, 3)))
    with pytest.raises(NotImplementedError,
                       match="Differentiation rule for 'householder_product'"):
        jxkernel.jvp(linalg.householder_product, (a, taus), (a, taus))


# ------------------------------------------------------------------ eigh
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_eigh_matches_numpy(dtype):
    with x64():
        a = spd(4, (2,), dtype) - 3 * np.eye(4, dtype=dtype)
        v, w = map(np.asarray, linalg.eigh(a))
        want_w, want_v = np.linalg.eigh(a)
        assert w.dtype == np.real(np.zeros((), dtype)).dtype and v.dtype == dtype
        _close(w, want_w)
        # eigenvectors up to a phase: compare |v^H v_numpy| with the identity
        _close(np.abs(np.conj(np.swapaxes(v, -1, -2)) @ want_v), np.broadcast_to(
            np.eye(4), v.shape))
        lower = np.asarray(linalg.eigh(np.tril(a), symmetrize_input=False)[1])
        upper = np.asarray(linalg.eigh(np.triu(a), lower=False, symmetrize_input=False)[1])
        _close(lower, want_w)
        _close(upper, want_w)


def test_eigh_grads_and_vmap():
    with x64():
        check_grads(lambda x: linalg.eigh(x), (spd(3, (), np.float64),), order=2)
        _complex_grads(lambda x: linalg.eigh(x)[1], (spd(3, (2,), np.complex128),))
    _vmap_matches_stack(lambda x: linalg.eigh(x)[1], spd(3, (4,)))
    with pytest.raises(NotImplementedError, match="subset_by_index"):
        linalg.eigh(spd(3), subset_by_index=(0, 1))


# ------------------------------------------------------------------ svd
SVD_SHAPES, SVD_DTYPES = [(4, 3), (3, 4), (2, 3, 3)], [np.float32, np.float64, np.complex64]


@functools.cache
def _svds_jitted():
    """svd of every case of test_svd_matches_numpy (in x64 mode, as the test), compiled
    together (compiled.jit_together): each eager call is one primitive, so one program of its
    own; together they are one instead of 27."""
    with x64():
        return jit_together(jxkernel, {
            (shape, np.dtype(dtype).name, full): (
                lambda x, full=full: linalg.svd(x, full_matrices=full) if full is not None
                else linalg.svd(x, compute_uv=False), [randn(shape, dtype)])
            for shape in SVD_SHAPES for dtype in SVD_DTYPES for full in (False, True, None)})


@pytest.mark.parametrize("shape", SVD_SHAPES)
@pytest.mark.parametrize("dtype", SVD_DTYPES)
def test_svd_matches_numpy(shape, dtype):
    with x64():
        x = randn(shape, dtype)
        for full in (False, True):
            u, s, vh = map(np.asarray, _svds_jitted()[shape, np.dtype(dtype).name, full])
            wu, ws, wvh = np.linalg.svd(x, full_matrices=full)
            assert u.shape == wu.shape and vh.shape == wvh.shape and s.dtype == ws.dtype
            _close(s, ws)
            k = s.shape[-1]
            _close((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], x)
        _close(_svds_jitted()[shape, np.dtype(dtype).name, None],
               np.linalg.svd(x, compute_uv=False))


def test_svd_empty_and_algorithms():
    u, s, vh = linalg.svd(np.zeros((0, 3), np.float32))
    assert (u.shape, s.shape, vh.shape) == ((0, 0), (0,), (3, 3))
    x = randn((4, 3))
    _close(linalg.svd(x, compute_uv=False, algorithm=linalg.SvdAlgorithm.QR),
           np.linalg.svd(x, compute_uv=False))
    assert _called("lapack_sgesvd_ffi", "cusolver_gesvd_ffi") in jxkernel.jit(lambda x: linalg.svd(
        x, algorithm=linalg.SvdAlgorithm.QR)).lower(x).as_text()


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3)])
def test_svd_grads(shape):
    with x64():
        x = randn(shape, np.float64)
        check_grads(lambda x: linalg.svd(x, full_matrices=False), (x,), order=2)
        check_grads(lambda x: linalg.svd(x, compute_uv=False), (x,), order=2)
        _complex_grads(lambda x: linalg.svd(x, compute_uv=False), (randn(shape, np.complex128),))
    if shape[0] != shape[1]:
        with pytest.raises(NotImplementedError, match="full matrices"):
            jxkernel.jvp(linalg.svd, (x,), (x,))


def test_svd_vmap():
    _vmap_matches_stack(lambda x: linalg.svd(x, compute_uv=False), randn((3, 4, 2)))
