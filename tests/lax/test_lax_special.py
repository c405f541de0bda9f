"""lax's special-function primitives (igamma, igammac, igamma_grad_a, betainc, polygamma, zeta,
bessel_i0e, bessel_i1e) and random_gamma_grad: values equal to JAX 0.10.2's (committed
reference, to the rounding of the CPU's code), against scipy.special, derivatives by finite
differences, vmap, jit, jaxpr text and errors."""
import os

import ml_dtypes
import numpy as np
import pytest

import jxkernel
from jxkernel import lax
from jxkernel.test_util import check_grads
from jxkernel.tree_util import tree_leaves

from numerics import ELEMENTWISE, assert_allclose_ulp
from special_cases import lax_cases, tolerance
import locations  # tests/support: the repository's folders

REF = np.load(os.path.join(locations.DATA, "special_reference.npz"))
x64 = lambda: jxkernel.config.override("jax_enable_x64", True)
f32, f64 = np.float32, np.float64


def recorded(key):
    """The recorded result in its own dtype (the .npz holds bfloat16 as float32: exact)."""
    want = REF[key]
    return want.astype(ml_dtypes.bfloat16) if key.split("#")[0].endswith("bfloat16") else want


@pytest.mark.parametrize("dtype", [f32, f64])
def test_values_and_derivatives_match_jax(dtype):
    # the same algorithms with the same constants and stopping rules, evaluated op by op as JAX
    # recorded them: equal to the rounding of the CPU's code (bounds in special_cases.ULPS)
    # (float32 also covers float16/bfloat16, computed in float32)
    with x64():
        got = {f"{k}#{i}": np.asarray(leaf)
               for k, v in lax_cases(jxkernel, lax, [dtype]).items()
               for i, leaf in enumerate(tree_leaves(v))}
    assert len(got) > 15
    for key, value in got.items():
        ulps, scale = tolerance(key)
        assert_allclose_ulp(value, recorded(key), ulps, scale=scale, err_msg=key)


# Against scipy.special (Cephes): another algorithm, so the bounds are its accuracy, not the
# CPU's rounding (worst seen on AVX-512, AVX2 and SSE4.2 code in brackets). Where a result is
# small (P(a, x) in a tail), its relative error is that of exp(-x + a log x - lgamma(a)) of
# arguments of size ~40-60, i.e. ~100 ulps.
# the GPU keeps igamma's float32 subnormal (3e-39) where the CPU flushes it to SciPy's 0
@pytest.mark.cpu_only("recorded CPU values")
def test_against_scipy():
    special = pytest.importorskip("scipy.special")
    rng = np.random.RandomState(0)
    a = rng.uniform(0.05, 40, 64)
    x = rng.uniform(0.0, 60, 64)
    with x64():
        assert_allclose_ulp(lax.igamma(a, x), special.gammainc(a, x), 1024,
                            err_msg="igamma")                                  # [292]
        assert_allclose_ulp(lax.igammac(a, x), special.gammaincc(a, x), 512,
                            err_msg="igammac")                                 # [158]
        b, t = rng.uniform(0.05, 30, 64), rng.uniform(0, 1, 64)
        assert_allclose_ulp(lax.betainc(a, b, t), special.betainc(a, b, t), 2048,
                            err_msg="betainc")                                 # [666]
        m = rng.randint(0, 5, 64).astype(f64)
        assert_allclose_ulp(lax.polygamma(m, a), special.polygamma(m.astype(int), a), 32,
                            err_msg="polygamma")                               # [11]
        s = rng.uniform(1.1, 8, 64)
        assert_allclose_ulp(lax.zeta(s, a), special.zeta(s, a), 4, err_msg="zeta")        # [2]
        z = rng.uniform(-50, 50, 64)
        assert_allclose_ulp(lax.bessel_i0e(z), special.i0e(z), 8, err_msg="i0e")         # [3]
        assert_allclose_ulp(lax.bessel_i1e(z), special.i1e(z), 4, err_msg="i1e")         # [2]
        # d/da of P(a, x) by a central difference of scipy's values: the difference's own
        # error (truncation ~h^2, rounding ~1e-16/h) sets this tolerance, not ulps
        h = 1e-6
        fd = (special.gammainc(a + h, x) - special.gammainc(a - h, x)) / (2 * h)
        np.testing.assert_allclose(lax.igamma_grad_a(a, x), fd, rtol=1e-4, atol=1e-9)
    # float32 too: scipy's float64 result at the same (rounded) arguments, rounded to float32;
    # XLA's CPU code flushes subnormal results to zero, so a subnormal expected value is zero
    a32, x32 = a.astype(f32), x.astype(f32)
    want = special.gammainc(a32.astype(f64), x32.astype(f64)).astype(f32)
    want[np.abs(want) < np.finfo(f32).tiny] = 0
    assert_allclose_ulp(lax.igamma(a32, x32), want, 1024, err_msg="igamma float32")  # [226]


def test_random_gamma_grad_is_the_implicit_derivative():
    # dx/da = -(dP/da) / (dP/dx) along the sample x of Gamma(a); the shapes are the recorded
    # cases' (8 points), whose compiled programs the values test shares
    a = np.array([0.5, 1.0, 2.5, 7.0, 0.2, 12.0, 0.05, 40.0], f64)
    x = np.array([0.3, 2.0, 1.0, 9.0, 0.01, 10.0, 0.4, 35.0], f64)
    with x64():
        want = -np.asarray(lax.igamma_grad_a(a, x)) / np.asarray(
            jxkernel.vmap(jxkernel.grad(lax.igamma, 1))(a, x))
        # (the same quotient computed by another formula: [21] ulps)
        assert_allclose_ulp(lax.random_gamma_grad(a, x), want, 64)
    assert lax.random_gamma_grad(np.float32(1.0), np.zeros(8, f32)).shape == (8,)


def test_gradients_by_finite_differences():
    # (4 points: the shapes of the recorded derivative cases, whose programs are shared)
    with x64():
        a, x = np.array([0.7, 2.0, 5.0, 1.3]), np.array([0.4, 3.0, 4.5, 1.1])
        check_grads(lambda x: lax.igamma(a, x), (x,), order=2)
        check_grads(lambda x: lax.igammac(a, x), (x,), order=2)
        check_grads(lambda a: lax.igamma(a, x), (a,), order=1)
        check_grads(lambda a: lax.igammac(a, x), (a,), order=1)
        check_grads(lambda x: lax.igamma_grad_a(a, x), (x,), order=1)
        b = np.array([1.5, 3.0, 0.8, 2.2])
        check_grads(lambda t: lax.betainc(a, b, t), (np.array([0.2, 0.5, 0.9, 0.35]),), order=2)
        check_grads(lambda x: lax.polygamma(np.array([0., 1., 3., 2.]), x), (x,), order=2)
        check_grads(lambda q: lax.zeta(np.array([2.0, 3.5, 5.0, 2.5]), q), (x,), order=2)
        z = np.array([-9.0, -0.7, 0.3, 2.0, 12.0])
        check_grads(lax.bessel_i0e, (z,), order=2)
        check_grads(lax.bessel_i1e, (z,), order=2)


def test_derivatives_at_zero_and_unsupported_arguments():
    # i0e'(0) = 0, i1e'(0) = 1/2 and i0e''(0) = 1/2, as JAX's rules give (constants the rules
    # select at 0, times 0 and 1: exact on every CPU)
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
    # d/dq zeta(x, q) = -x zeta(x + 1, q): -2 zeta(3)
    assert_allclose_ulp(np.asarray(jxkernel.grad(lax.zeta, 1)(2.0, 1.0)),
                        f32(-2 * 1.2020569031595942), ELEMENTWISE)


def test_vmap_and_jit():
    # rows of 4: the shapes of the recorded float32 derivative cases, whose programs are shared
    rng = np.random.RandomState(1)
    a = rng.uniform(1.1, 6, (2, 4)).astype(f32)
    x = rng.uniform(0.1, 6, (4,)).astype(f32)
    b = rng.uniform(0.1, 6, (4, 2)).astype(f32)
    t = rng.uniform(0, 1, (4,)).astype(f32)
    # a batch iterates until its slowest element converges, a row until its own do: equal to
    # rounding (all equal on AVX-512, AVX2 and SSE4.2 code; random_gamma_grad's batch and rows
    # 5 ulps apart in code without FMA contraction, the suite's XLA setting)
    out = jxkernel.vmap(lax.betainc, (0, 1, None))(a, b, t)
    want = np.stack([np.asarray(lax.betainc(a[i], b[:, i], t)) for i in range(2)])
    assert_allclose_ulp(out, want, ELEMENTWISE)
    for prim in (lax.igamma, lax.igammac, lax.igamma_grad_a, lax.polygamma, lax.zeta,
                 lax.random_gamma_grad):
        got = jxkernel.vmap(prim, (0, None))(a, x)
        rows = [np.asarray(prim(r, x)) for r in a]
        assert_allclose_ulp(got, np.stack(rows), ELEMENTWISE * 2, err_msg=prim.__name__)
        # (random_gamma_grad runs op by op eagerly: XLA may fuse differently under jit)
        assert_allclose_ulp(jxkernel.jit(prim)(a[0], x), rows[0], ELEMENTWISE,
                            err_msg=prim.__name__)
    y = rng.uniform(0.1, 6, (3, 4)).astype(f32)
    for prim in (lax.bessel_i0e, lax.bessel_i1e):
        assert_allclose_ulp(jxkernel.vmap(prim, 1)(y), np.asarray(prim(y)).T, ELEMENTWISE)
        assert_allclose_ulp(jxkernel.jit(prim)(y), prim(y), ELEMENTWISE)
    grads = jxkernel.vmap(jxkernel.grad(lax.igamma, (0, 1)))(a[0], x)
    for i in range(4):
        one = jxkernel.grad(lax.igamma, (0, 1))(a[0, i], x[i])
        for batched, single in zip(grads, one):
            assert_allclose_ulp(np.asarray(batched)[i], np.asarray(single), ELEMENTWISE)


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
