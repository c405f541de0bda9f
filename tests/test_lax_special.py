"""lax's special-function primitives (igamma, igammac, igamma_grad_a, betainc, polygamma, zeta,
bessel_i0e, bessel_i1e) and random_gamma_grad: values equal to JAX 0.10.2's (committed
reference), against scipy.special, derivatives by finite differences, vmap, jit, jaxpr text
and errors."""
import os

import numpy as np
import pytest

import jxkernel
from jxkernel import lax
from jxkernel.test_util import check_grads
from jxkernel.tree_util import tree_leaves

from special_cases import lax_cases

REF = np.load(os.path.join(os.path.dirname(__file__), "data", "special_reference.npz"))
x64 = lambda: jxkernel.config.override("jax_enable_x64", True)
f32, f64 = np.float32, np.float64


def _np(x):
    x = np.asarray(x)
    return x.astype(np.float32) if x.dtype.itemsize == 2 else x


@pytest.mark.parametrize("dtype", [f32, f64])
def test_values_and_derivatives_match_jax(dtype):
    # the same algorithms with the same constants and stopping rules: equal to rounding
    # (float32 also covers float16/bfloat16, computed in float32)
    with x64():
        got = {f"{k}#{i}": _np(leaf) for k, v in lax_cases(jxkernel, lax, [dtype]).items()
               for i, leaf in enumerate(tree_leaves(v))}
    assert len(got) > 15
    for key, value in got.items():
        want = _np(REF[key])
        assert value.shape == want.shape and value.dtype == want.dtype, key
        rtol = 1e-2 if "float16" in key or "bfloat16" in key else \
            1e-6 if value.dtype == np.float32 else 1e-13
        np.testing.assert_allclose(value, want, rtol=rtol, atol=0, equal_nan=True, err_msg=key)


def test_against_scipy():
    special = pytest.importorskip("scipy.special")
    rng = np.random.RandomState(0)
    a = rng.uniform(0.05, 40, 64)
    x = rng.uniform(0.0, 60, 64)
    with x64():
        np.testing.assert_allclose(lax.igamma(a, x), special.gammainc(a, x), rtol=1e-10,
                                   atol=1e-300)
        np.testing.assert_allclose(lax.igammac(a, x), special.gammaincc(a, x), rtol=1e-9,
                                   atol=1e-300)
        b, t = rng.uniform(0.05, 30, 64), rng.uniform(0, 1, 64)
        np.testing.assert_allclose(lax.betainc(a, b, t), special.betainc(a, b, t), rtol=1e-9,
                                   atol=1e-300)
        m = rng.randint(0, 5, 64).astype(f64)
        np.testing.assert_allclose(lax.polygamma(m, a), special.polygamma(m.astype(int), a),
                                   rtol=1e-10)
        s = rng.uniform(1.1, 8, 64)
        np.testing.assert_allclose(lax.zeta(s, a), special.zeta(s, a), rtol=1e-10)
        z = rng.uniform(-50, 50, 64)
        np.testing.assert_allclose(lax.bessel_i0e(z), special.i0e(z), rtol=1e-13)
        np.testing.assert_allclose(lax.bessel_i1e(z), special.i1e(z), rtol=1e-13)
        # d/da of P(a, x) by a central difference of scipy's values
        h = 1e-6
        fd = (special.gammainc(a + h, x) - special.gammainc(a - h, x)) / (2 * h)
        np.testing.assert_allclose(lax.igamma_grad_a(a, x), fd, rtol=1e-4, atol=1e-9)
    # float32 too
    np.testing.assert_allclose(lax.igamma(a.astype(f32), x.astype(f32)),
                               special.gammainc(a, x), rtol=1e-4, atol=1e-30)


def test_random_gamma_grad_is_the_implicit_derivative():
    # dx/da = -(dP/da) / (dP/dx) along the sample x of Gamma(a)
    a = np.array([0.5, 1.0, 2.5, 7.0, 0.2], f64)
    x = np.array([0.3, 2.0, 1.0, 9.0, 0.01], f64)
    with x64():
        want = -np.asarray(lax.igamma_grad_a(a, x)) / np.asarray(
            jxkernel.vmap(jxkernel.grad(lax.igamma, 1))(a, x))
        np.testing.assert_allclose(lax.random_gamma_grad(a, x), want, rtol=1e-10)
    assert lax.random_gamma_grad(np.float32(1.0), np.zeros(3, f32)).shape == (3,)


def test_gradients_by_finite_differences():
    with x64():
        a, x = np.array([0.7, 2.0, 5.0]), np.array([0.4, 3.0, 4.5])
        check_grads(lambda x: lax.igamma(a, x), (x,), order=2)
        check_grads(lambda x: lax.igammac(a, x), (x,), order=2)
        check_grads(lambda a: lax.igamma(a, x), (a,), order=1)
        check_grads(lambda a: lax.igammac(a, x), (a,), order=1)
        check_grads(lambda x: lax.igamma_grad_a(a, x), (x,), order=1)
        b = np.array([1.5, 3.0, 0.8])
        check_grads(lambda t: lax.betainc(a, b, t), (np.array([0.2, 0.5, 0.9]),), order=2)
        check_grads(lambda x: lax.polygamma(np.array([0., 1., 3.]), x), (x,), order=2)
        check_grads(lambda q: lax.zeta(np.array([2.0, 3.5, 5.0]), q), (x,), order=2)
        z = np.array([-9.0, -0.7, 0.3, 2.0, 12.0])
        check_grads(lax.bessel_i0e, (z,), order=2)
        check_grads(lax.bessel_i1e, (z,), order=2)


def test_derivatives_at_zero_and_unsupported_arguments():
    # i0e'(0) = 0, i1e'(0) = 1/2 and i0e''(0) = 1/2, as JAX's rules give
    assert float(jxkernel.grad(lax.bessel_i0e)(0.0)) == 0.0
    assert float(jxkernel.grad(lax.bessel_i1e)(0.0)) == 0.5
    assert float(jxkernel.grad(jxkernel.grad(lax.bessel_i0e))(0.0)) == 0.5
    with pytest.raises(ValueError, match="Betainc gradient with respect to a and b"):
        jxkernel.grad(lax.betainc)(1.0, 2.0, 0.5)
    with pytest.raises(ValueError, match="polygamma gradient with respect to m"):
        jxkernel.grad(lax.polygamma)(1.0, 2.0)
    with pytest.raises(NotImplementedError, match="'zeta' with respect to x"):
        jxkernel.grad(lax.zeta)(2.0, 1.0)
    with pytest.raises(NotImplementedError, match="'igamma_grad_a' with respect to a"):
        jxkernel.grad(lax.igamma_grad_a)(2.0, 1.0)
    # d/dq zeta(x, q) = -x zeta(x + 1, q)
    np.testing.assert_allclose(jxkernel.grad(lax.zeta, 1)(2.0, 1.0), -2 * 1.2020569, rtol=1e-6)


def test_vmap_and_jit():
    rng = np.random.RandomState(1)
    a = rng.uniform(0.1, 5, (4, 3)).astype(f32)
    x = rng.uniform(0.1, 6, (3, 4)).astype(f32)
    t = rng.uniform(0, 1, (4,)).astype(f32)
    out = jxkernel.vmap(lax.betainc, (0, 1, None))(a, x, t[:3])
    want = np.stack([np.asarray(lax.betainc(a[i], x[:, i], t[:3])) for i in range(4)])
    np.testing.assert_allclose(out, want, rtol=1e-6)
    for prim in (lax.igamma, lax.igammac, lax.igamma_grad_a, lax.polygamma, lax.zeta,
                 lax.random_gamma_grad):
        # a batch iterates until its slowest element converges: equal to float32 rounding
        got = jxkernel.vmap(prim, (0, None))(a + 1, np.float32(2.0))
        np.testing.assert_allclose(got, np.stack([prim(r + 1, np.float32(2.0)) for r in a]),
                                   rtol=1e-6)
        # (random_gamma_grad runs op by op eagerly: XLA may fuse differently under jit)
        np.testing.assert_allclose(jxkernel.jit(prim)(a + 1, x.T), prim(a + 1, x.T), rtol=1e-6)
    for prim in (lax.bessel_i0e, lax.bessel_i1e):
        np.testing.assert_array_equal(jxkernel.vmap(prim, 1)(x), np.asarray(prim(x)).T)
        np.testing.assert_array_equal(jxkernel.jit(prim)(x), prim(x))
    grads = jxkernel.vmap(jxkernel.grad(lax.igamma, (0, 1)))(a[0], x[:, 0])
    for i in range(3):
        one = jxkernel.grad(lax.igamma, (0, 1))(a[0, i], x[i, 0])
        np.testing.assert_allclose([g[i] for g in grads], one, rtol=1e-6)


def test_jaxprs_print_as_jax():
    x = np.ones(3, f32)
    assert str(jxkernel.make_jaxpr(lax.igamma)(x, 2.)) == \
        "{ lambda ; a:f32[3] b:f32[]. let c:f32[3] = igamma a b in (c,) }"
    assert str(jxkernel.make_jaxpr(lax.betainc)(x, x, x)) == (
        "{ lambda ; a:f32[3] b:f32[3] c:f32[3]. let\n"
        "    d:f32[3] = regularized_incomplete_beta a b c\n"
        "  in (d,) }")
    assert str(jxkernel.make_jaxpr(lax.bessel_i0e)(x)) == \
        "{ lambda ; a:f32[3]. let b:f32[3] = bessel_i0e a in (b,) }"
    assert str(jxkernel.make_jaxpr(jxkernel.grad(lax.igamma))(1., 2.)) == (
        "{ lambda ; a:f32[] b:f32[]. let\n"
        "    _:f32[] = igamma a b\n"
        "    c:f32[] = igamma_grad_a a b\n"
        "    d:f32[] = mul 1.0:f32[] c\n"
        "  in (d,) }")
    assert str(jxkernel.make_jaxpr(jxkernel.vmap(lax.zeta, (0, None)))(x, 2.)) == \
        "{ lambda ; a:f32[3] b:f32[]. let c:f32[3] = zeta a b in (c,) }"


def test_errors_name_the_problem():
    with pytest.raises(TypeError, match=r"igamma got incompatible shapes for broadcasting: "
                                        r"\(3,\), \(2,\)"):
        lax.igamma(np.ones(3, f32), np.ones(2, f32))
    with pytest.raises(TypeError, match="igamma does not accept dtype int32 at position 0"):
        lax.igamma(np.ones(3, np.int32), np.ones(3, np.int32))
    with pytest.raises(TypeError, match="requires arguments to have the same dtypes"), x64():
        lax.zeta(np.ones(3, f32), np.ones(3, f64))
    with pytest.raises(TypeError, match="bessel_i1e does not accept dtype int32"):
        lax.bessel_i1e(np.ones(3, np.int32))
