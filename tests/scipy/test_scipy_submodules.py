"""jxkernel.scipy's fft (DCT), ndimage (map_coordinates), interpolate (RegularGridInterpolator),
integrate (trapezoid), cluster (vq), special's boxcox, boxcox1p and spence, and linalg's schur,
sqrtm, rsf2csf, solve_sylvester, hessenberg, qr_multiply and funm (with lax.linalg's schur,
hessenberg and ormqr) against JAX's recorded results (tests/data/scipy_extras_cases.py, recorded by
reference/make_scipy_extras_reference.py), against scipy itself, and their derivatives
against finite differences."""
import functools
import itertools

import numpy as np
import pytest
import scipy.fft
from compiled import jit_together
from doc_examples import check_docstring_examples
from fresh_process import run_code
from grads_together import check_grads_together
from numerics import REDUCTION, assert_allclose_ulp
from recorded_modes import assert_cases_match, load
from scipy_extras_cases import cases, ulps

import jxkernel as jax
import jxkernel.numpy as jnp
import jxkernel.scipy
from jxkernel.scipy import fft, integrate, ndimage
from jxkernel.scipy import special as sp
from jxkernel.scipy.interpolate import RegularGridInterpolator
from jxkernel.scipy.cluster import vq

# schur and hessenberg lower for the CPU alone (LAPACK), as JAX's: on a GPU "MLIR translation
# rule for primitive 'schur' not found for platform cuda" (H200, docs/gpu.md run 6): for the
# tests whose programs or docstring examples call them
LAPACK_ONLY = pytest.mark.cpu_only("CPU backend")


@functools.cache
def results(mode: str) -> dict:
    with jax.config.override("jax_enable_x64", mode == "x64"):
        return cases(jax, jxkernel.scipy, mode == "x64")


@LAPACK_ONLY
@pytest.mark.parametrize("mode", ["x32", "x64"])
def test_every_case_matches_jax(mode):
    assert_cases_match(mode, results(mode), load("scipy_extras_reference.npz"), ulps)


def test_dcts_match_scipy_and_invert():
    sfft = pytest.importorskip("scipy.fft")
    x = np.random.RandomState(0).randn(6, 5)
    # float64 against SciPy's own FFT, which sums in another order
    close = lambda got, want, terms: assert_allclose_ulp(      # noqa: E731
        np.asarray(got), want, REDUCTION, scale=np.abs(x).max() * terms)
    norms_axes = list(itertools.product((None, "ortho"), (0, 1)))
    calls = {(norm, axis): (functools.partial(_dct_and_idct, axis=axis, norm=norm), [x])
             for norm, axis in norms_axes}
    calls.update({norm: (functools.partial(_idctn_of_dctn, norm=norm), [x])
                  for norm in (None, "ortho")})
    calls["s"] = (lambda v: fft.dctn(v, s=(8, 3)), [x])
    with jax.enable_x64():
        ours = jit_together(jax, calls)           # the 7 jitted programs compiled as one
        for norm, axis in norms_axes:
            close(ours[norm, axis][0], sfft.dct(x, axis=axis, norm=norm), 12)
            close(ours[norm, axis][1], sfft.idct(x, axis=axis, norm=norm), 1)
        for norm in (None, "ortho"):
            close(ours[norm], x, 1)
        close(ours["s"], sfft.dctn(x, s=(8, 3)), 4 * 8 * 3)


def _dct_and_idct(v, axis, norm):
    return fft.dct(v, axis=axis, norm=norm), fft.idct(v, axis=axis, norm=norm)


def _idctn_of_dctn(v, norm):
    return fft.idctn(fft.dctn(v, norm=norm), norm=norm)


def test_map_coordinates_matches_scipy_where_their_modes_agree():
    nd = pytest.importorskip("scipy.ndimage")
    image = np.arange(20.0).reshape(4, 5) ** 1.5
    coords = [np.array([0.2, 1.5, 2.9, -0.7, 3.4]), np.array([4.6, 0.1, 2.5, 1.0, -1.3])]
    # scipy's 'grid-wrap' is JAX's 'wrap'; scipy's 'constant' also interpolates towards cval
    # half a cell beyond the edge, where JAX reads cval for any corner outside: compared inside
    for mode, theirs in (("nearest", "nearest"), ("wrap", "grid-wrap"), ("mirror", "mirror"),
                         ("reflect", "reflect")):
        for order in (0, 1):
            got = np.asarray(ndimage.map_coordinates(image, coords, order, mode))
            want = nd.map_coordinates(image, np.array(coords), order=order, mode=theirs)
            assert_allclose_ulp(got, want.astype(np.float32), 4, scale=np.abs(want).max(),
                                err_msg=f"{mode} {order}")
    inside = [np.array([0.2, 1.5, 2.9]), np.array([3.6, 0.1, 2.5])]
    got = ndimage.map_coordinates(image, inside, 1, "constant", cval=7.0)
    want = nd.map_coordinates(image, np.array(inside), order=1, cval=7.0)
    assert_allclose_ulp(np.asarray(got), want.astype(np.float32), 4, scale=np.abs(image).max())


def test_regular_grid_interpolator_matches_scipy_and_is_a_pytree():
    interpolate = pytest.importorskip("scipy.interpolate")
    grid = (np.array([0.0, 1.0, 2.5, 4.0]), np.array([-1.0, 0.0, 2.0]))
    values = np.random.RandomState(4).randn(4, 3, 2)
    points = np.array([[0.5, -0.5], [4.0, 2.0], [2.5, 1.9], [-0.1, 0.0], [3.9, 2.2]])
    for method in ("linear", "nearest"):
        theirs = interpolate.RegularGridInterpolator(grid, values, method=method,
                                                     bounds_error=False)
        with jax.enable_x64():
            got = np.asarray(jax.jit(lambda v, p: RegularGridInterpolator(
                grid, v, method=method)(p))(values, points))
        # (scipy's nearest breaks a tie of two grid points upwards, JAX's downwards: none here)
        assert_allclose_ulp(got, theirs(points), 4, scale=np.abs(values).max())
    f = RegularGridInterpolator(grid, values.astype(np.float32))
    leaves, treedef = jax.tree_util.tree_flatten(f)
    assert len(leaves) == 4 and jax.tree_util.tree_unflatten(treedef, leaves).method == "linear"
    # vmap over a batch of interpolators: the same grid, values v and 2 v
    stacked = jax.tree_util.tree_map(lambda a: jnp.stack([a, a]), f)
    stacked.values = jnp.stack([f.values, 2 * f.values])
    both = jax.jit(jax.vmap(lambda g: g(points[:3].astype(np.float32))))(stacked)
    np.testing.assert_allclose(np.asarray(both[1]), 2 * np.asarray(both[0]), rtol=1e-6)


def test_regular_grid_interpolator_rejects_what_jax_rejects():
    grid, values = (jnp.arange(3.0), jnp.arange(2.0)), jnp.ones((3, 2))
    with pytest.raises(ValueError, match="method 'cubic' is not defined"):
        RegularGridInterpolator(grid, values, method="cubic")
    with pytest.raises(NotImplementedError, match="`bounds_error` takes no effect under JIT"):
        RegularGridInterpolator(grid, values, bounds_error=True)
    with pytest.raises(ValueError, match="there are 3 point arrays, but values has 2 dim"):
        RegularGridInterpolator(grid + (jnp.arange(2.0),), values)
    with pytest.raises(ValueError, match="fill_value must be either 'None' or of a type"):
        RegularGridInterpolator(grid, values, fill_value=1j)
    with pytest.raises(ValueError, match="the requested sample points xi have dimension 3, "
                                         "but this RegularGridInterpolator has dimension 2"):
        RegularGridInterpolator(grid, values)(jnp.ones((4, 3)))


def test_boxcox_matches_scipy():
    special = pytest.importorskip("scipy.special")
    x = np.array([0.5, 2.5, 10.0, 1e-3])[:, None]
    lmbda = np.array([0.0, 0.5, -1.3, 1e-6])[None, :]
    with jax.enable_x64():
        got = jax.jit(lambda x, lm: (sp.boxcox(x, lm), sp.boxcox1p(x - 0.4, lm)))(x, lmbda)
    # scipy has the same formula (JAX's exact values are compared above): 4 ulps apart for
    # boxcox; boxcox1p is 45 ulps off at x = -0.399, because XLA's float64 log1p is there (up
    # to ~100 ulps from libm's near -0.4, in JAX too)
    assert_allclose_ulp(np.asarray(got[0]), special.boxcox(x, lmbda), 4, scale=1.0)
    assert_allclose_ulp(np.asarray(got[1]), special.boxcox1p(x - 0.4, lmbda), 64, scale=1.0)


@LAPACK_ONLY
def test_schur_and_sqrtm_hold_their_definitions_and_match_scipy():
    sl = pytest.importorskip("scipy.linalg")
    a = np.random.RandomState(5).randn(3, 6, 6)
    with jax.enable_x64():
        t, z = jax.jit(jax.vmap(jax.scipy.linalg.schur))(a)          # batched: lax's rule
        root = jax.jit(jax.vmap(jax.scipy.linalg.sqrtm))(a)
    t, z, root = map(np.asarray, (t, z, root))
    for b in range(3):
        # numerics.LAPACK, at the matrix's scale (worst seen: 2, 1.5 and 7.5 ulps)
        assert_allclose_ulp(z[b] @ t[b] @ z[b].T, a[b], 64, scale=np.abs(a[b]).max() * 6)
        assert_allclose_ulp(z[b] @ z[b].T, np.eye(6), 64, scale=6.0)
        assert np.all(np.tril(t[b], -2) == 0)       # quasi-triangular: 2x2 blocks at most
        assert_allclose_ulp(root[b] @ root[b], a[b].astype(complex), 64,
                            scale=np.abs(a[b]).max() * 6)
    # against scipy where the principal root is well defined (no eigenvalue on the negative
    # real axis, where the branch taken depends on a rounding): eigenvalues' real parts >= 1
    m = np.einsum("bij,bkj->bik", a, a) / 6 + np.eye(6) + 0.3 * (a - a.transpose(0, 2, 1))
    with jax.enable_x64():
        root = np.asarray(jax.jit(jax.vmap(jax.scipy.linalg.sqrtm))(m))
    for b in range(3):
        # (scipy's sqrtm is blocked, another order of the same recurrence: 24 ulps seen)
        assert_allclose_ulp(root[b], sl.sqrtm(m[b]).astype(complex), 128,
                            scale=np.abs(root[b]).max())
    assert jax.scipy.linalg.schur(np.eye(2, dtype=np.float32), output="complex")[0].dtype == \
        np.complex64
    text = str(jax.make_jaxpr(jax.lax.linalg.schur)(np.eye(2, dtype=np.float32)))
    assert "schur[\n      compute_schur_vectors=True\n      select_callable=None\n" \
           "      sort_eig_vals=False\n    ] a" in text          # JAX's jaxpr


@LAPACK_ONLY
def test_rsf2csf_and_solve_sylvester_match_scipy():
    sl = pytest.importorskip("scipy.linalg")
    rng = np.random.RandomState(6)
    a, b, c = rng.randn(5, 5), rng.randn(3, 3), rng.randn(5, 3)
    with jax.enable_x64():
        t, z = sl.schur(a)
        ours = jax.jit(lambda t, z, a, b, c: (
            jax.scipy.linalg.rsf2csf(t, z), jax.scipy.linalg.solve_sylvester(a, b, c),
            jax.scipy.linalg.solve_sylvester(a, b, c, method="eigen")))(t, z, a, b, c)
    (tc, zc), x_schur, x_eigen = jax.tree_util.tree_map(np.asarray, ours)
    # the same rotations as scipy's (worst seen 1 ulp; each block's eigenvalues from LAPACK)
    for got, want in zip((tc, zc), sl.rsf2csf(t, z)):
        assert_allclose_ulp(got, want, 16, scale=np.abs(want).max())
    want = sl.solve_sylvester(a, b, c)
    # another route to the one solution (worst seen 22 ulps at its largest entry)
    for got in (x_schur, x_eigen):
        assert_allclose_ulp(got, want, 128, scale=np.abs(want).max())


@LAPACK_ONLY
def test_hessenberg_matches_scipy_and_its_definition():
    sl = pytest.importorskip("scipy.linalg")
    a = np.random.RandomState(7).randn(2, 6, 6)
    with jax.enable_x64():
        h, q = map(np.asarray, jax.jit(lambda a: jax.scipy.linalg.hessenberg(a, calc_q=True))(a))
    for b in range(2):
        assert np.all(np.tril(h[b], -2) == 0)
        assert_allclose_ulp(q[b] @ h[b] @ q[b].T, a[b], 64, scale=np.abs(a[b]).max() * 6)
        # the same LAPACK routine as scipy's (gehrd, orghr): bit for bit here, LAPACK's bound
        for got, want in zip((h[b], q[b]), sl.hessenberg(a[b], calc_q=True)):
            assert_allclose_ulp(got, want, 64, scale=np.abs(want).max())
    empty = jax.scipy.linalg.hessenberg(np.zeros((0, 0), np.float32), calc_q=True)
    assert [e.shape for e in empty] == [(0, 0), (0, 0)]


def test_qr_multiply_matches_scipy_on_each_side_and_shape():
    sl = pytest.importorskip("scipy.linalg")
    rng = np.random.RandomState(8)
    calls = {}
    for m, n in ((5, 3), (3, 5)):
        a = rng.randn(m, n) + 1j * rng.randn(m, n)
        for mode, conjugate, pivoting in itertools.product(("left", "right"), (False, True),
                                                           (False, True)):
            if pivoting and conjugate:
                continue
            c = rng.randn(min(m, n), 2) if mode == "left" else rng.randn(2, m)
            calls[m, n, mode, conjugate, pivoting] = (functools.partial(
                jax.scipy.linalg.qr_multiply, mode=mode, conjugate=conjugate,
                pivoting=pivoting), [a, c])
    with jax.enable_x64():
        ours = jit_together(jax, calls)           # the 12 jitted programs compiled as one
    for (m, n, mode, conjugate, pivoting), (_, [a, c]) in calls.items():
        got = ours[m, n, mode, conjugate, pivoting]
        want = sl.qr_multiply(a, c, mode=mode, conjugate=conjugate, pivoting=pivoting)
        what = f"{m}x{n} {mode} conjugate={conjugate} pivoting={pivoting}"
        # the same LAPACK routines as scipy's (geqrf or geqp3, ormqr): LAPACK's bound
        for g, w in zip(got, want):
            assert_allclose_ulp(np.asarray(g), w, 64, scale=np.abs(w).max(), err_msg=what)


@LAPACK_ONLY
def test_funm_matches_scipy_and_expm():
    sl = pytest.importorskip("scipy.linalg")
    a = np.random.RandomState(9).randn(5, 5)
    with jax.enable_x64():           # one program (op by op: 31 compiles)
        (f, err), g = jax.jit(lambda a: (jax.scipy.linalg.funm(a, jnp.exp, disp=False),
                                         jax.scipy.linalg.funm(a, jnp.cos)))(a)
    want, want_err = sl.funm(a, np.exp, disp=False)
    # the same recurrence on the same Schur form (1 ulp from scipy seen; 7 and 20 from expm
    # and cosm, which take other routes)
    assert_allclose_ulp(np.asarray(f), want.astype(complex), 64, scale=np.abs(want).max())
    assert_allclose_ulp(np.asarray(f), sl.expm(a).astype(complex), 64, scale=np.abs(want).max())
    assert_allclose_ulp(np.asarray(g), sl.cosm(a).astype(complex), 64, scale=np.abs(g).max())
    assert 0 < float(err) <= 1e-12 and abs(float(err) - want_err) <= 1e-14
    with pytest.raises(ValueError, match="expected square array_like input"):
        jax.scipy.linalg.funm(np.ones((2, 3)), jnp.exp)


def test_schur_and_sqrtm_refuse_what_jax_refuses():
    x = np.eye(3, dtype=np.float32)
    with pytest.raises(ValueError, match="Expected 'output' to be either 'real' or 'complex', "
                                         "got output='x'."):
        jax.scipy.linalg.schur(x, output="x")
    with pytest.raises(NotImplementedError, match="Blocked version is not implemented yet."):
        jax.scipy.linalg.sqrtm(x, blocksize=2)
    with pytest.raises(ValueError, match=r"The input to schur must be a square matrix. Got "
                                         r"shape \(2, 3\)."):
        jax.lax.linalg.schur(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match="schur does not accept dtype int32 at position 0"):
        jax.scipy.linalg.schur(np.eye(2, dtype=np.int32))
    with pytest.raises(NotImplementedError, match="The sort feature of LAPACK's gees routine"):
        jax.lax.linalg.schur(x, sort_eig_vals=True)
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'schur' not impl"):
        jax.grad(lambda m: jax.lax.linalg.schur(m)[0].sum())(x)
    with pytest.raises(ValueError, match=r"Argument to Hessenberg reduction must have shape "
                                         r"\[..., n, n\], got shape \(2, 3\)"):
        jax.lax.linalg.hessenberg(np.ones((2, 3), np.float32))
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'hessenberg'"):
        jax.grad(lambda m: jax.scipy.linalg.hessenberg(m).sum())(x)
    with pytest.raises(ValueError, match="mode must be 'right' or 'left', got 'up'"):
        jax.scipy.linalg.qr_multiply(x, x, mode="up")
    with pytest.raises(ValueError, match=r"not compatible for Q @ c operation: a has shape "
                                         r"\(3, 3\) so Q has 3 columns, but c has 2 rows"):
        jax.scipy.linalg.qr_multiply(x, np.ones((2, 2)), mode="left")
    with pytest.raises(ValueError, match=r"not compatible for c @ Q operation: a has shape "
                                         r"\(3, 3\) so Q has 3 rows, but c has 2 columns"):
        jax.scipy.linalg.qr_multiply(x, np.ones((2, 2)))
    with pytest.raises(ValueError, match="ormqr with left=True expects c to have the same "
                                         "number of rows as the Householder matrix a"):
        jax.lax.linalg.ormqr(x, np.ones(3, np.float32), np.ones((2, 2), np.float32))
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'ormqr'"):
        jax.grad(lambda c: jax.lax.linalg.ormqr(x, np.ones(3, np.float32), c).sum())(x)
    with pytest.raises(ValueError, match="Input 'T' must be square."):
        jax.scipy.linalg.rsf2csf(np.ones((2, 3)), x)
    with pytest.raises(ValueError, match=r"Input array shapes must match: Z: \(3, 3\) vs. "
                                         r"T: \(2, 2\)"):
        jax.scipy.linalg.rsf2csf(np.eye(2), x)
    with pytest.raises(ValueError, match="Incompatible shapes for Sylvester equation:\nA: "
                                         r"\(2, 2\)\nB: \(3, 3\)\nC: \(2, 2\)"):
        jax.scipy.linalg.solve_sylvester(np.eye(2), x, np.ones((2, 2)))
    with pytest.raises(ValueError, match='Unrecognized method x. The two valid methods are '
                                         'either "schur" or "eigen".'):
        jax.scipy.linalg.solve_sylvester(x, x, x, method="x")


def test_spence_matches_scipy_and_refuses_other_dtypes():
    special = pytest.importorskip("scipy.special")
    x = np.array([0.0, 1e-3, 0.2, 0.5, 0.8, 1.0, 1.3, 1.6, 2.0, 3.5, 1e4])
    with jax.enable_x64():
        got = np.asarray(jax.jit(sp.spence)(x))
    # Cephes' algorithm, as scipy's: a few ulps of its largest value (pi^2/6)
    assert_allclose_ulp(got, special.spence(x), 4, scale=np.pi ** 2 / 6)
    assert np.isnan(np.asarray(sp.spence(np.float32(-1.0))))
    # its derivative log(x) / (1 - x), also for 1 < x <= 2 where JAX 0.10.2's is NaN (the
    # rational approximation differentiated: 43 ulps seen, at x = 0.5)
    with jax.enable_x64():
        slope = np.asarray(jax.jit(jax.grad(lambda v: sp.spence(v).sum()))(x[1:]))
    inner, exact = x[1:], np.zeros(len(x) - 1)      # 0 at x = 1: its constant branch, as JAX
    away = inner != 1
    exact[away] = np.log(inner[away]) / (1 - inner[away])
    assert_allclose_ulp(slope, exact, 64, scale=1.0)
    with pytest.raises(TypeError, match="x.dtype=int32 is not supported"):
        sp.spence(np.arange(3, dtype=np.int32))


def test_derivatives_by_finite_differences():
    # each check's evaluations compiled as one program (grads_together.py; the same checks as
    # check_grads of the jitted functions, which compiled each jvp and vjp: 5.3 -> 1.8 CPU s)
    with jax.enable_x64():
        x = np.random.RandomState(1).randn(4, 6)
        # the transforms are linear: first order says it all
        for f in (fft.dct, fft.idct, functools.partial(fft.dctn, norm="ortho"),
                  functools.partial(fft.idctn, axes=(1,))):
            check_grads_together(f, (x,), order=1, modes=("fwd", "rev"))
        image = np.random.RandomState(2).randn(4, 5)
        # coordinates away from the grid lines, where order 1 is differentiable
        rows, cols = np.array([0.3, 1.6, 2.2, -0.4]), np.array([3.7, 0.2, 4.6, 2.45])
        for mode in ("constant", "mirror"):       # (cval masked; indices folded back)
            check_grads_together(lambda im, r, c: ndimage.map_coordinates(im, [r, c], 1, mode),
                                 (image, rows, cols), order=1, modes=("fwd", "rev"))
        check_grads_together(sp.spence, (np.array([0.2, 0.7, 1.4, 1.8, 3.0]),), order=1,
                             modes=("fwd", "rev"))
        check_grads_together(lambda y, at: integrate.trapezoid(y, x=at),
                             (x, np.cumsum(np.ones(6))), order=2, modes=("fwd", "rev"))
        grid = (np.array([0.0, 1.0, 3.0]), np.array([0.0, 0.5, 2.0, 3.0]))
        check_grads_together(lambda v, p: RegularGridInterpolator(grid, v)(p),
                             (x[:3, :4], np.array([[0.4, 1.2], [2.6, 2.9], [1.5, 0.1]])),
                             order=1, modes=("fwd", "rev"))
        obs, book = x[:, :3], x[1:3, 3:]
        check_grads_together(lambda o: vq.vq(o, book)[1], (obs,), order=1, modes=("fwd", "rev"))


def test_bad_arguments_raise_jaxs_errors():
    x = jnp.ones((3, 4))
    with pytest.raises(NotImplementedError, match="Only DCT type 2 is implemented."):
        fft.dct(x, type=3)
    with pytest.raises(ValueError, match=r"jax.scipy.fft.idct: norm='forward' is not impl"):
        fft.idct(x, norm="forward")
    with pytest.raises(ValueError, match=r"s must have at most x.ndim \(2\) elements, got 3"):
        fft.dctn(x, s=(1, 2, 3))
    with pytest.raises(ValueError, match=r"repeated axis: \(1, 1\)"):
        fft.idctn(x, axes=(1, -1))
    with pytest.raises(ValueError, match="coordinates must be a sequence of length input.ndim, "
                                         "but 1 != 2"):
        ndimage.map_coordinates(x, [jnp.zeros(2)], 1)
    with pytest.raises(NotImplementedError, match="does not yet support mode grid-wrap"):
        ndimage.map_coordinates(x, [jnp.zeros(2)] * 2, 1, "grid-wrap")
    with pytest.raises(NotImplementedError, match="currently requires order<=1"):
        ndimage.map_coordinates(x, [jnp.zeros(2)] * 2, 3)
    with pytest.raises(ValueError, match="Observation and code_book should have the same rank"):
        vq.vq(x, jnp.ones(4))
    with pytest.raises(ValueError, match="ndim different than 1 or 2 are not supported"):
        vq.vq(jnp.ones((2, 2, 2)), jnp.ones((2, 2, 2)))


@LAPACK_ONLY
def test_docstring_examples():
    for module in ("jxkernel.scipy.fft", "jxkernel.scipy.ndimage", "jxkernel.scipy.integrate",
                   "jxkernel.scipy.cluster.vq", "jxkernel.scipy.interpolate",
                   "jxkernel.scipy.linalg", "jxkernel.lax.linalg"):
        check_docstring_examples(module, {"jnp": jnp, "jax": jax})


def test_the_new_submodules_load_on_first_use():
    """`import jxkernel` loads neither these submodules nor jxkernel.scipy.signal, nor SciPy;
    attribute access loads each, signal still without SciPy (one subprocess checks both:
    tests/scipy/test_scipy_signal.py relies on it)."""
    code = ("import sys, jxkernel\n"
            "signal_before = ['jxkernel.scipy.signal' in sys.modules, 'scipy' in sys.modules]\n"
            "import jxkernel.scipy as s\n"
            "names = ('fft', 'ndimage', 'integrate', 'cluster', 'interpolate')\n"
            "before = [f'jxkernel.scipy.{n}' in sys.modules for n in names]\n"
            "signal = [jxkernel.scipy.signal.__name__, 'scipy' in sys.modules]\n"
            "after = [getattr(s, n).__name__ for n in names]\n"
            "print(signal_before, signal, before, after, all(n in dir(s) for n in names))")
    out = run_code(code)
    assert out.stdout.strip() == ("[False, False] ['jxkernel.scipy.signal', False] "
                                  "[False, False, False, False, False] ['jxkernel.scipy.fft', "
                                  "'jxkernel.scipy.ndimage', 'jxkernel.scipy.integrate', "
                                  "'jxkernel.scipy.cluster', 'jxkernel.scipy.interpolate'] True")


@pytest.mark.parametrize("name", ["dct", "idct", "dctn", "idctn"])
@pytest.mark.parametrize("norm", [None, "ortho"])
def test_dct_under_strict_dtype_promotion(name, norm):
    # found by JAX 0.10.2's own tests/scipy_fft_test.py, which runs under strict promotion:
    # the twiddle factors multiplied a complex scalar into a float array (refused there)
    x = np.random.RandomState(0).randn(3, 8).astype(np.float32)
    with jax.numpy_dtype_promotion("strict"):
        got = getattr(fft, name)(x, norm=norm)
    want = getattr(scipy.fft, name)(x.astype(np.float64), norm=norm)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
