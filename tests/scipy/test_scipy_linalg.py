"""jxkernel.scipy.linalg: values, dtypes and weak types equal to JAX 0.10.2's (committed
reference; floats within the ulps scipy_cases.py gives, which LAPACK's per-CPU kernels need),
against scipy.linalg, derivatives by finite differences, jit and vmap, and JAX's errors."""
import os
import warnings

import numpy as np
import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.scipy import linalg
from jxkernel.tree_util import tree_leaves
from compiled import jit_together
from recorded_calls import recorder
from grads_together import check_grads_together
from numerics import ELEMENTWISE, assert_allclose_ulp

from linalg_cases import align_signs
from scipy_cases import (LAPACK, LINALG_EXACT, LINALG_SIGN_FREE, LINALG_ULPS, NUMPY_BACKEND_LINALG_ULPS,
                         linalg_cases)
import backend_tier
import locations  # tests/support: the repository's folders

REF = np.load(os.path.join(locations.DATA, "scipy_reference.npz"))
x64 = lambda: jxkernel.config.override("jax_enable_x64", True)
# Against scipy (float64, at the matrix's largest |value|), where the algorithms differ:
# scipy's expm picks its own Pade order and squarings; the error grows with the squarings
EXPM_ULPS = 8 * LAPACK          # worst seen 249 (expm(50 a), AVX), 62 (AVX-512)
# inverses of the Hilbert and Pascal matrices: alternating products of binomials
INVERSE_ULPS = 2 * LAPACK       # worst seen 34 (invhilbert, AVX-512 and AVX2), 23 (AVX)
# pascal's binomials in float32 through exp(gammaln) (JAX's way) against scipy's exact ones
PASCAL_ULPS = 4 * ELEMENTWISE   # worst seen 12 (AVX-512 and AVX2), 3.5 (AVX)


def check_against_reference(tag, name, leaves):
    """One case's leaves against JAX's "<tag>:linalg/<name>#<i>": dtype, shape and weak type
    exactly; exact-by-construction cases bit for bit, other floats within the case's ulps at
    the leaf's largest |value|, eigen/singular vectors turned to JAX's signs first."""
    keys = [f"{tag}:linalg/{name}#{i}" for i in range(len(leaves))]
    assert f"{tag}:linalg/{name}#{len(leaves)}" not in REF.files, f"{name}: fewer results"
    for leaf, key in zip(leaves, keys):
        assert bool(jxkernel.typeof(leaf).weak_type) == bool(REF[key + "@weak"]), key
    wants = [REF[key] for key in keys]
    gots = align_signs(leaves, wants, LINALG_SIGN_FREE.get(name, {}))
    for got, want, key in zip(gots, wants, keys):
        if name in LINALG_EXACT:
            assert got.shape == want.shape and got.dtype == want.dtype, key
            np.testing.assert_array_equal(got, want, err_msg=key)
        else:
            scale = np.abs(want[np.isfinite(want)]).max(initial=0)
            assert_allclose_ulp(got, want, _linalg_ulps(name), scale=scale, err_msg=key)


def _linalg_ulps(name):
    """The case's bound: LINALG_ULPS's, on the NumPy backend NUMPY_BACKEND_LINALG_ULPS's first."""
    if backend_tier.on_numpy_backend() and name in NUMPY_BACKEND_LINALG_ULPS:
        return NUMPY_BACKEND_LINALG_ULPS[name]
    return LINALG_ULPS.get(name, LAPACK)


# one of its programs holds an integer convolution, which XLA's GPU compiler refuses
# ("Can't lower one or more integer convolutions to idioms supported by CuDNN"; run 6)
@pytest.mark.cpu_only("CPU backend")
@pytest.mark.parametrize("tag,dtype", [("f32", np.float32), ("f64", np.float64)])
def test_values_dtypes_and_weak_types_match_jax(tag, dtype):
    """Computed under one jit: each function alone is already one jitted program, and one
    compile instead of ~150 halves the test's cost (jit keeps the weak types of its outputs);
    the functions' eager calls are checked against scipy below."""
    with jxkernel.enable_x64(dtype == np.float64), warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)     # JAX's own cho_solve warns too
        cases = jxkernel.jit(lambda: linalg_cases(jxkernel, jnp, linalg, dtype))()
    assert len(cases) > 75
    for name, value in cases.items():
        check_against_reference(tag, name, tree_leaves(value))


def test_against_scipy():
    sl = pytest.importorskip("scipy.linalg")
    rng = np.random.RandomState(2)
    a = rng.randn(5, 5)
    spd = a @ a.T + 5 * np.eye(5)
    b = rng.randn(5, 2)

    checks = []             # (our call, scipy's value, bound in ulps; None: exactly equal)
    close = lambda call, want, ulps=LAPACK: checks.append((call, want, ulps))    # noqa: E731
    same = lambda call, want: checks.append((call, want, None))     # noqa: E731
    ours = recorder(linalg)          # calls recorded, compiled together at the end
    with x64():
        for scale in (0.01, 0.3, 1.0, 4.0, 50.0):
            close(ours.expm(scale * a), sl.expm(scale * a), EXPM_ULPS)
        close(ours.expm(np.triu(a), upper_triangular=True), sl.expm(np.triu(a)), EXPM_ULPS)
        e = rng.randn(5, 5)
        close(ours.expm_frechet(0.5 * a, e, compute_expm=False),
              sl.expm_frechet(0.5 * a, e, compute_expm=False), EXPM_ULPS)
        for lower in (False, True):
            close(ours.cholesky(spd, lower=lower), sl.cholesky(spd, lower=lower))
            close(ours.cho_solve(ours.cho_factor(spd, lower=lower), b),
                  sl.cho_solve(sl.cho_factor(spd, lower=lower), b))
        for trans in (0, 1, 2):
            close(ours.lu_solve(ours.lu_factor(a), b, trans=trans),
                  sl.lu_solve(sl.lu_factor(a), b, trans=trans))
            close(ours.solve_triangular(a, b, trans=trans, lower=True),
                  sl.solve_triangular(a, b, trans=trans, lower=True))
        close(ours.lu(a[:, :4]), sl.lu(a[:, :4]))
        close(ours.solve(spd, b, assume_a="pos"), sl.solve(spd, b, assume_a="pos"))
        close(ours.solve(a, b), sl.solve(a, b))
        close(ours.inv(a), sl.inv(a))
        close(ours.det(a), sl.det(a))
        close(ours.eigh(spd, eigvals_only=True), sl.eigh(spd, eigvals_only=True))
        close(ours.svd(a, compute_uv=False), sl.svd(a, compute_uv=False))
        for side in ("right", "left"):
            for method in ("qdwh", "svd"):
                m = a if side == "right" else a[:3]
                if side == "left" and method == "qdwh":
                    m = a[:3]
                close(ours.polar(m, side, method=method), sl.polar(m, side))   # worst 5.5
        d, off = rng.randn(6), rng.randn(5)
        close(ours.eigh_tridiagonal(d, off, eigvals_only=True),
              sl.eigh_tridiagonal(d, off, eigvals_only=True))
        same(ours.block_diag(a[:2, :3], 7.0, b), sl.block_diag(a[:2, :3], 7.0, b))
        same(ours.toeplitz(b[:, 0], a[0]), sl.toeplitz(b[:, 0], a[0]))
        same(ours.hankel(b[:, 0], a[0]), sl.hankel(b[:, 0], a[0]))
        same(ours.circulant(a[0]), sl.circulant(a[0]))
        close(ours.companion(a[0]), sl.companion(a[0]), ELEMENTWISE)   # a / a[0]: worst 1
        same(ours.leslie(a[0], a[1, :4]), sl.leslie(a[0], a[1, :4]))
        same(ours.fiedler(a[0]), sl.fiedler(a[0]))
        close(ours.fiedler_companion(a[0]), sl.fiedler_companion(a[0]), ELEMENTWISE)  # a / a[0]
        for mode in ("full", "same", "valid"):
            same(ours.convolution_matrix(a[0], 3, mode), sl.convolution_matrix(a[0], 3, mode))
        close(ours.invhilbert(4), sl.invhilbert(4), INVERSE_ULPS)
        close(ours.invpascal(4), sl.invpascal(4).astype(np.float64), INVERSE_ULPS)
        close(ours.helmert(5, full=True), sl.helmert(5, full=True), ELEMENTWISE)   # sqrt
        same(ours.hadamard(8), sl.hadamard(8))
        close(ours.dft(5, "n"), sl.dft(5, "n"), ELEMENTWISE)   # exp(-2 pi i k / n)
        _check_together(checks)
    checks.clear()
    close(ours.hilbert(4), sl.hilbert(4).astype(np.float32), ELEMENTWISE)   # 1 / (i + j + 1)
    close(ours.pascal(4), sl.pascal(4).astype(np.float32), PASCAL_ULPS)
    _check_together(checks)


def _check_together(checks):
    """Each (call, want, ulps) of test_against_scipy: the calls jitted, compiled as one program
    (compiled.jit_together: 44 compiles, 7.3 CPU s -> 2, 5.3 s), then compared with scipy's
    values: within `ulps` at want's largest |value| (matrix functions err norm-wise; LAPACK's
    bound for factorizations and solves, worst seen 25, det on AVX-512), or exactly (ulps
    None: matrices built by copying entries). Tuples of results leaf by leaf."""
    ours = jit_together(jxkernel, {i: (call, call.arrays()) for i, (call, _, _) in
                                    enumerate(checks)})
    for i, (call, want, ulps) in enumerate(checks):
        pairs = zip(ours[i], want) if isinstance(want, tuple) else [(ours[i], want)]
        for got, want_leaf in pairs:
            got, want_leaf = np.asarray(got), np.asarray(want_leaf)
            if ulps is None:
                np.testing.assert_array_equal(got, want_leaf, err_msg=call.fun.__name__)
            else:
                assert_allclose_ulp(got, want_leaf, ulps, scale=np.abs(want_leaf).max(initial=0),
                                    err_msg=call.fun.__name__)


def test_gradients():
    # each check's evaluations compiled as one program (grads_together.py; the same checks):
    # 6.0 -> 2.2 CPU s, where op by op expm's jvps alone compiled 2.7 s of programs
    rng = np.random.RandomState(3)
    with x64():
        a = 0.4 * rng.randn(3, 3)
        check_grads_together(linalg.expm, (a,), order=1, modes=("fwd", "rev"))
        check_grads_together(linalg.expm, (6.0 * a,), order=1,
                             modes=("fwd", "rev"))      # squarings
        tri = np.tril(rng.randn(3, 3)) + 3 * np.eye(3)
        b = rng.randn(3, 2)
        check_grads_together(lambda t, r: linalg.solve_triangular(t, r, lower=True, trans="T"),
                             (tri, b), order=2, modes=("fwd", "rev"))
        check_grads_together(lambda c, r: linalg.cho_solve((c, False), r), (tri.T, b),
                             order=2, modes=("fwd", "rev"))
        spd = tri @ tri.T
        # the forward pass reads one triangle of a, the jvp (JAX's, by implicit
        # differentiation) all of da: finite differences agree on symmetric perturbations
        check_grads_together(lambda m, r: linalg.solve(m + m.T, r, assume_a="pos"),
                             (spd / 2, b), order=1, modes=("fwd", "rev"))
        # expm_frechet is expm's jvp
        e = rng.randn(3, 3)
        _, want = jxkernel.jvp(linalg.expm, (a,), (e,))
        assert_allclose_ulp(linalg.expm_frechet(a, e, compute_expm=False), np.asarray(want),
                            LAPACK, scale=np.abs(want).max())


def test_jit_and_vmap():
    rng = np.random.RandomState(4)
    mats = jnp.asarray(0.5 * rng.randn(3, 4, 4), dtype=np.float32)
    close = lambda got, want: assert_allclose_ulp(
        np.asarray(got), np.asarray(want), LAPACK, scale=np.abs(np.asarray(want)).max())
    close(jxkernel.jit(linalg.expm)(mats), linalg.expm(mats))
    close(jxkernel.vmap(linalg.expm)(mats), np.stack([linalg.expm(m) for m in mats]))
    tri = jnp.tril(mats) + 4 * jnp.eye(4)
    rhs = jnp.asarray(rng.randn(3, 4), dtype=np.float32)
    solve = lambda t, r: linalg.solve_triangular(t, r, lower=True)
    close(jxkernel.vmap(solve)(tri, rhs), np.stack([solve(t, r) for t, r in zip(tri, rhs)]))
    c = linalg.cho_factor(tri @ tri.mT)[0]
    close(jxkernel.jit(lambda c, r: linalg.cho_solve((c, False), r))(c[0], rhs[0]),
          linalg.cho_solve((c[0], False), rhs[0]))


def test_errors():
    with pytest.raises(ValueError, match="Expected A to be a \\(batched\\) square matrix"):
        linalg.expm(jnp.ones((2, 3)))
    with pytest.raises(ValueError, match="expected A and E to be the same shape"):
        linalg.expm_frechet(jnp.eye(2), jnp.eye(3))
    with pytest.raises(ValueError, match="Expected assume_a to be one of"):
        linalg.solve(jnp.eye(2), jnp.ones(2), assume_a="diag")
    with pytest.raises(ValueError, match="The arguments to solve must have shapes"):
        linalg.solve(jnp.eye(2), jnp.ones(3), assume_a="pos")
    with pytest.raises(ValueError, match="Invalid 'trans' value 3"):
        linalg.solve_triangular(jnp.eye(2), jnp.ones(2), trans=3)
    with pytest.raises(ValueError, match="Unsupported QR decomposition mode 'raw'"):
        linalg.qr(jnp.eye(2), mode="raw")
    with pytest.raises(NotImplementedError, match="b=None"):
        linalg.eigh(jnp.eye(2), jnp.eye(2))
    with pytest.raises(ValueError, match="side"):
        linalg.polar(jnp.eye(2), side="up")
    with pytest.raises(NotImplementedError, match="qdwh"):
        linalg.polar(jnp.ones((2, 3)))
    with pytest.raises(ValueError, match="power of 2"):
        linalg.hadamard(6)
    with pytest.raises(ValueError, match="at most 2 dimensions"):
        linalg.block_diag(jnp.ones((1, 1, 1)))
    with pytest.raises(ValueError, match="Expected kind"):
        linalg.pascal(3, "diag")
    with pytest.warns(FutureWarning, match="batched 1D solves"):     # warns when traced
        linalg.cho_solve((jnp.ones((3, 7, 7)), False), jnp.ones((3, 7)))
