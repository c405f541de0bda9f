"""Nonsymmetric eigendecomposition: lax.linalg.eig, jnp.linalg.eig/eigvals and jnp.roots against
JAX 0.10.2's values (tests/data/eig_reference.npz, from reference/make_eig_reference.py: the same
geev kernel, so equal up to the kernel's per-CPU rounding, within the ulps eig_cases.py gives,
eigenvectors up to their sign), the defining property A v = w v, jit, vmap, derivatives against
finite differences, the jaxpr text and the errors."""
import os
import types
import warnings

import numpy as np
import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.lax import linalg
from jxkernel.lax.linalg.nonsymmetric_eigen import _eig_lowering
from grads_together import check_grads_together
from numerics import LAPACK, assert_allclose_ulp

from eig_cases import POLYS, SIGN_FREE, ULPS, cases, inputs, roots_cases
import locations  # tests/support: the repository's folders

REF = np.load(os.path.join(locations.DATA, "eig_reference.npz"))
x64 = lambda: jxkernel.config.override("jax_enable_x64", True)
# geev's backward errors |A v - v w| at |A| |v| (worst 18 ulps, AVX-512), |v| = 1 (worst 1.5),
# eigenvalues against NumPy's in double precision (worst 5.5) and jnp.roots against np.roots
# (worst 20: a companion matrix's eigenvalues, double root 0 included)
RESIDUAL = NORM = EIGVALS = ROOTS = LAPACK


def _column_signs(got, want):
    """+-1 per eigenvector (column) that turns got's sign into want's."""
    overlap = np.sum(np.conj(want) * got, axis=-2, keepdims=True).real
    return np.where(overlap < 0, -1, 1).astype(got.real.dtype)


def check_against_reference(case, leaves):
    """The file's one comparison with JAX's values: each leaf "<case>#<i>" of the reference,
    dtype and shape exactly, floats within ULPS at the leaf's largest |value|, after turning
    eigenvectors (and their tangents) to JAX's sign."""
    leaves = [np.asarray(leaf) for leaf in leaves]
    wants = [REF[f"{case}#{i}"] for i in range(len(leaves))]
    assert f"{case}#{len(leaves)}" not in REF.files, f"{case}: fewer results than JAX gave"
    prefix = next((p for p in sorted(SIGN_FREE, key=len, reverse=True) if case.startswith(p)),
                  None)
    signs = {}
    for i, vectors in (SIGN_FREE[prefix].items() if prefix else ()):
        assert leaves[vectors].shape == wants[vectors].shape, f"{case}#{vectors}"
        signs[i] = _column_signs(leaves[vectors], wants[vectors])
    for i, (got, want) in enumerate(zip(leaves, wants)):
        got = got * signs[i] if i in signs else got
        scale = np.abs(want[np.isfinite(want)]).max(initial=0)     # roots may hold NaN
        assert_allclose_ulp(got, want, ULPS, scale=scale, err_msg=f"{case}#{i}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matches_jax_reference(dtype):
    """Every case of eig_cases.py: decompositions, roots and derivatives. The cases but the
    roots are computed under one jit (one compile instead of ~80; each function alone is one
    program, and test_jit_and_vmap_match_eager compares eager with jit); the roots need
    concrete values and run eagerly."""
    with x64():
        got = jxkernel.jit(lambda: cases(jxkernel, dtypes=(dtype,), roots=False))()
        got.update(roots_cases(jxkernel, dtypes=(dtype,)))
    keys = {k.split("#")[0] for k in REF.files if np.dtype(dtype).name in k}
    assert got and set(got) == keys
    for case, value in got.items():
        check_against_reference(case, jxkernel.tree_util.tree_leaves(value))


def _check_eigenpairs(a, w, vl, vr):
    """Backward errors: A v - v w (and u^H A - w u^H) in complex128, rounded once to w's dtype,
    within RESIDUAL ulps at the scale of |A| |v| (a backward-stable geev's bound)."""
    c128 = lambda z: np.asarray(z, np.complex128)
    a, w, vl, vr, dtype = c128(a), c128(w), c128(vl), c128(vr), w.dtype
    assert_allclose_ulp((a @ vr).astype(dtype), (vr * w[..., None, :]).astype(dtype), RESIDUAL,
                        scale=np.abs(a) @ np.abs(vr), err_msg="A v = v w")
    vlh = np.conj(np.swapaxes(vl, -1, -2))
    assert_allclose_ulp((vlh @ a).astype(dtype), (w[..., :, None] * vlh).astype(dtype), RESIDUAL,
                        scale=np.abs(vlh) @ np.abs(a), err_msg="u^H A = w u^H")
    # geev's normalisation: unit columns whose largest component is real
    real = np.finfo(dtype).dtype
    norm = np.linalg.norm(vr, axis=-2).astype(real)
    assert_allclose_ulp(norm, np.ones_like(norm), NORM, err_msg="|v| = 1")
    big = np.take_along_axis(vr, np.abs(vr).argmax(-2)[..., None, :], -2)
    assert_allclose_ulp(big.imag.astype(real), np.zeros(big.shape, real), 0, scale=1.0,
                        err_msg="largest component real")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_defining_property(dtype):
    with x64():
        x = inputs(dtype)
        for name in ("pair", "r5", "c4", "batch"):
            w, vl, vr = map(np.asarray, linalg.eig(x[name]))
            assert w.dtype == vr.dtype == vl.dtype == np.result_type(dtype, np.complex64)
            assert w.shape == x[name].shape[:-1] and vr.shape == x[name].shape
            _check_eigenpairs(x[name], w, vl, vr)
            # against NumPy's in double precision rounded once, at the spectral radius's scale
            want = np.linalg.eigvals(x[name].astype(np.result_type(x[name], np.float64)))
            assert_allclose_ulp(np.sort_complex(w.ravel()),
                                np.sort_complex(want.ravel()).astype(w.dtype), EIGVALS,
                                scale=np.abs(want).max(), err_msg=name)


def test_real_matrix_gives_conjugate_pairs():
    a = inputs(np.float32)["pair"]
    w, v = jnp.linalg.eig(a)
    w, v = np.asarray(w), np.asarray(v)
    assert w.dtype == np.complex64 and v.dtype == np.complex64
    assert w[2].imag == 0 and w[0].imag > 0
    assert w[1] == np.conj(w[0]) and np.array_equal(v[:, 1], np.conj(v[:, 0]))
    assert np.all(v[:, 2].imag == 0)


def test_options_select_outputs():
    a = inputs(np.float32)["r5"]
    w, vl, _ = linalg.eig(a)
    only_w = linalg.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)
    w_l = linalg.eig(a, compute_right_eigenvectors=False)
    assert len(only_w) == 1 and len(w_l) == 2
    np.testing.assert_array_equal(w_l[1], vl)
    # without vectors geev takes another path (no accumulated Schur vectors)
    scale = np.abs(np.asarray(w)).max()
    assert_allclose_ulp(only_w[0], np.asarray(w), EIGVALS, scale=scale)
    assert_allclose_ulp(jnp.linalg.eigvals(a), np.asarray(w), EIGVALS, scale=scale)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.testing.assert_array_equal(linalg.eig(a, use_magma=False)[0], w)
    assert caught[0].category is DeprecationWarning and "use_magma" in str(caught[0].message)


# one LAPACK geev for every call on the CPU; on CUDA, as JAX's, eig without left vectors
# (jnp.linalg.eig) is cuSOLVER's geev, with them the hybrid kernel's: 12 ulps apart (run 6)
@pytest.mark.cpu_only("CPU backend")
def test_jit_and_vmap_match_eager_and_stacking():
    x = inputs(np.float32)
    batch = x["batch"].reshape(6, 4, 4)
    eager = linalg.eig(batch)
    for got, want in zip(jxkernel.jit(linalg.eig)(batch), eager):
        np.testing.assert_array_equal(got, want)
    for got, want in zip(jxkernel.vmap(linalg.eig)(batch), eager):
        np.testing.assert_array_equal(got, want)
    # batch dim not in front, and vmap of vmap
    got = jxkernel.vmap(jnp.linalg.eig, in_axes=1)(np.moveaxis(batch, 0, 1))
    np.testing.assert_array_equal(got[0], eager[0])
    np.testing.assert_array_equal(got[1], eager[2])
    nested = jxkernel.vmap(jxkernel.vmap(jnp.linalg.eigvals))(x["batch"])
    for i in range(2):
        for j in range(3):
            np.testing.assert_array_equal(nested[i, j], jnp.linalg.eigvals(x["batch"][i, j]))


def test_jaxpr_text_matches_jax():
    a = np.eye(3, dtype=np.float32)
    params = ("      compute_left_eigenvectors=False\n"
              "      compute_right_eigenvectors={}\n"
              "      enable_eigvec_derivs=False\n"
              "      implementation=None\n")
    assert str(jxkernel.make_jaxpr(jnp.linalg.eig)(a)) == (
        "{ lambda ; a:f32[3,3]. let\n    b:c64[3] c:c64[3,3] = eig[\n"
        + params.format(True) + "    ] a\n  in (b, c) }")
    assert str(jxkernel.make_jaxpr(jnp.linalg.eigvals)(a)) == (
        "{ lambda ; a:f32[3,3]. let\n    b:c64[3] = jit[\n      name=eigvals\n"
        "      jaxpr={ lambda ; a:f32[3,3]. let\n          b:c64[3] = eig[\n"
        + "".join("      " + line + "\n" for line in params.format(False).splitlines())
        + "          ] a\n        in (b,) }\n    ] a\n  in (b,) }")


def test_eigenvalue_derivatives_match_finite_differences():
    with x64():
        x = inputs(np.float64)
        # distinct real eigenvalues; a complex pair (order-free |w|); a complex matrix; each
        # check's evaluations in one program (grads_together): 37 -> 8 compiles, 1.8 -> 1.1 s
        check_grads_together(lambda a: jnp.linalg.eigvals(a).real, (x["dist"],), order=1,
                             modes=("fwd", "rev"))
        check_grads_together(lambda a: jnp.abs(jnp.linalg.eigvals(a)), (x["pair"],), order=1,
                             modes=("fwd", "rev"))
        c = lambda a: jnp.linalg.eigvals(a)
        check_grads_together(lambda re, im: jnp.abs(c(re + 1j * im)),
                             (x["c4"].real, x["c4"].imag), order=1, modes=("fwd", "rev"))
        # batched jvp agrees with per-matrix jvps
        t = np.stack([x["tangent"], x["tangent"].T])
        b = np.stack([x["dist"], x["dist"].T])
        _, dw = jxkernel.jvp(jnp.linalg.eigvals, (b,), (t,))
        for i in range(2):
            want = np.asarray(jxkernel.jvp(jnp.linalg.eigvals, (b[i],), (t[i],))[1])
            assert_allclose_ulp(dw[i], want, LAPACK, scale=np.abs(want).max())


def test_eigenvector_derivatives_opt_in():
    with x64():
        a = inputs(np.float64)["dist"]
        vecs = lambda a: linalg.eig(a, enable_eigvec_derivs=True)
        # geev's normalisation makes the eigenvectors differentiable functions of a (the
        # check's evaluations in one program, grads_together: 48 -> 1 compiles, 1.4 -> 0.8 s)
        check_grads_together(lambda a: [v.real for v in vecs(a)[1:]] + [v.imag for v in vecs(a)[1:]],
                             (a,), order=1, modes=("fwd", "rev"))
    msg = "Pass enable_eigvec_derivs=True to jax.lax.linalg.eig to opt in"
    with pytest.raises(NotImplementedError, match=msg):
        jxkernel.grad(lambda a: jnp.linalg.eig(a)[1].real.sum())(np.eye(2, dtype=np.float32))
    with pytest.raises(NotImplementedError, match=msg):     # second order needs vectors too
        jxkernel.grad(jxkernel.grad(lambda a: jnp.linalg.eigvals(a).real.sum()))(
            np.eye(2, dtype=np.float32))


def test_roots_against_numpy_and_jax_order():
    for i, p in enumerate(POLYS):
        got = np.asarray(jnp.roots(np.array(p, np.float32)))
        check_against_reference(f"roots_{i}_float32", [got])
        want = np.sort_complex(np.roots(p).astype(np.complex128)).astype(got.dtype)
        assert_allclose_ulp(np.sort_complex(got), want, ROOTS,
                            scale=np.abs(want).max(initial=0), err_msg=str(p))
    np.testing.assert_array_equal(jnp.roots(np.array([1, -3, 2])), np.complex64([2, 1]))
    assert jnp.roots(3.0).shape == (0,) and jnp.roots(np.zeros(3)).dtype == np.complex64
    # without stripping, the roots of the leading zeros are NaN, and it jits
    f = jxkernel.jit(lambda p: jnp.roots(p, strip_zeros=False))
    got = np.asarray(f(np.float32([0., 0., 1., -3., 2.])))
    check_against_reference("roots_nostrip_3_float32", [got])
    assert np.isnan(got[2:]).all() and np.isnan(f(np.zeros(3, np.float32))).all()


def test_special_inputs():
    empty = jnp.linalg.eig(np.zeros((0, 0), np.float32))
    assert empty.eigenvalues.shape == (0,) and empty.eigenvectors.shape == (0, 0)
    assert jnp.linalg.eigvals(np.zeros((0, 3, 3), np.float32)).shape == (0, 3)
    np.testing.assert_array_equal(jnp.linalg.eig(np.float32([[2.]])).eigenvectors, [[1.]])
    # geev fails on non-finite input: NaN in every output of that matrix only
    bad = np.stack([np.float32([[np.inf, 1.], [1., 1.]]), np.eye(2, dtype=np.float32)])
    w, vl, vr = map(np.asarray, linalg.eig(bad))
    assert np.isnan(w[0]).all() and np.isnan(vl[0]).all() and np.isnan(vr[0]).all()
    np.testing.assert_array_equal(w[1], [1, 1])
    # integer input is promoted, as jnp does
    assert jnp.linalg.eig(np.array([[1, 2], [3, 4]])).eigenvalues.dtype == np.complex64


@pytest.mark.parametrize("call, err, msg", [
    (lambda: linalg.eig(np.ones((2, 3), np.float32)), ValueError,
     r"The input to eig must be a square matrix. Got shape \(2, 3\)."),
    (lambda: jnp.linalg.eig(np.ones((2, 3), np.float32)), ValueError, "square matrix"),
    (lambda: linalg.eig(np.ones(3, np.float32)), TypeError,
     r"Input 0 to eig must have rank at least 2, but got shape=\(3,\)"),
    (lambda: linalg.eig(np.ones((2, 2), np.int32)), TypeError,
     "eig does not accept dtype int32 at position 0"),
    (lambda: linalg.eig(np.ones((2, 2), np.float16)), NotImplementedError,
     "LAPACK has no geev for float16"),
    (lambda: linalg.eig(np.eye(2, dtype=np.float32),
                        implementation=linalg.EigImplementation.MAGMA), ValueError,
     "Only the lapack implementation is supported on CPU."),
    (lambda: jnp.roots(np.ones((2, 2))), ValueError, "Input must be a rank-1 array."),
    (lambda: jnp.roots([1., 2.]), TypeError, "roots requires ndarray or scalar arguments"),
    (lambda: jxkernel.jit(jnp.roots)(np.float32([1., 2., 3.])),
     jxkernel.ConcretizationTypeError, "pass strip_zeros=False"),
])
def test_errors(call, err, msg):
    with pytest.raises(err, match=msg):
        call()


def test_float16_traces_as_jax_does():
    """JAX accepts float16 while tracing (complex64 results) and fails only when lowering."""
    jaxpr = jxkernel.make_jaxpr(jnp.linalg.eigvals)(np.eye(2, dtype=np.float16))
    assert "c64[2] = eig[" in str(jaxpr)


def test_other_backends_are_refused_by_name():
    # JAX 0.10.2's words (tests/data/linalg_platforms_reference.json, "eig@tpu")
    ctx = types.SimpleNamespace(platform="tpu")
    with pytest.raises(NotImplementedError, match="^MLIR translation rule for primitive 'eig' "
                                                  "not found for platform tpu$"):
        _eig_lowering(ctx, None, compute_left_eigenvectors=False,
                      compute_right_eigenvectors=True, enable_eigvec_derivs=False,
                      implementation=None)
