"""jax.scipy.special's gamma family, incomplete gamma/beta, polygamma and zeta, Bessel
functions, ndtri/log_ndtr/erfcx and the exponential integrals: values equal to JAX 0.10.2's
(committed reference), against scipy.special, derivatives by finite differences, vmap and jit."""
import os

import numpy as np
import pytest

import jxkernel
import jxkernel.numpy as jnp
import jxkernel.scipy.special as sp
from jxkernel.test_util import check_grads
from jxkernel.tree_util import tree_leaves

from special_cases import scipy_cases

REF = np.load(os.path.join(os.path.dirname(__file__), "data", "special_reference.npz"))
x64 = lambda: jxkernel.config.override("jax_enable_x64", True)
f32, f64 = np.float32, np.float64


@pytest.mark.parametrize("dtype", [f32, f64])
def test_values_and_derivatives_match_jax(dtype):
    with x64():
        got = {f"{k}#{i}": np.asarray(leaf)
               for k, v in scipy_cases(jxkernel, jnp, sp, [dtype]).items()
               for i, leaf in enumerate(tree_leaves(v))}
    assert len(got) > 40
    for key, value in got.items():
        want = REF[key]
        assert value.shape == want.shape and value.dtype == want.dtype, key
        rtol = 1e-6 if value.dtype == np.float32 else 1e-13
        np.testing.assert_allclose(value, want, rtol=rtol, atol=0, equal_nan=True, err_msg=key)


def test_against_scipy():
    special = pytest.importorskip("scipy.special")
    rng = np.random.RandomState(0)
    pos = rng.uniform(0.1, 20, 32)
    real = rng.uniform(-6, 6, 32)
    close = lambda got, want, rtol=1e-10: np.testing.assert_allclose(got, want, rtol=rtol,
                                                                     atol=1e-300)
    with x64():
        close(sp.gamma(real), special.gamma(real), 1e-9)
        close(sp.gammasgn(real), special.gammasgn(real))
        close(sp.loggamma(pos), special.loggamma(pos))
        close(sp.gammainc(pos, pos[::-1]), special.gammainc(pos, pos[::-1]))
        close(sp.gammaincc(pos, pos[::-1]), special.gammaincc(pos, pos[::-1]), 1e-9)
        big = pos * 1e5
        close(sp.betaln(pos, big), special.betaln(pos, big), 1e-9)
        close(sp.beta(pos, pos[::-1]), special.beta(pos, pos[::-1]), 1e-6)   # algdiv
        close(sp.betainc(pos, pos[::-1], pos / 20), special.betainc(pos, pos[::-1], pos / 20), 1e-9)
        n = np.arange(12.)
        close(sp.factorial(n), special.factorial(n), 1e-12)
        close(sp.comb(n, n[::-1] / 2), special.comb(n, n[::-1] / 2), 1e-9)
        close(sp.comb(n, 3.0, repetition=True), special.comb(n, 3, repetition=True), 1e-9)
        close(sp.poch(pos, real / 2), special.poch(pos, real / 2), 1e-9)
        close(sp.multigammaln(pos + 3, 3), special.multigammaln(pos + 3, 3))
        close(sp.polygamma(np.arange(32) % 4, pos), special.polygamma(np.arange(32) % 4, pos))
        close(sp.zeta(pos + 1.5, pos), special.zeta(pos + 1.5, pos))
        close(sp.bernoulli(12), special.bernoulli(12), 1e-5)   # JAX sums 48 terms only
        for ours, theirs in ((sp.i0e, special.i0e), (sp.i0, special.i0), (sp.i1e, special.i1e),
                             (sp.i1, special.i1)):
            close(ours(real * 5), theirs(real * 5), 1e-13)
        p = rng.uniform(0, 1, 32)
        close(sp.ndtri(p), special.ndtri(p), 1e-12)
        # log(ndtr(x)) for x < 8 (JAX's formula) cancels where ndtr(x) ~ 1 - 1e-12
        np.testing.assert_allclose(sp.log_ndtr(real * 5), special.log_ndtr(real * 5),
                                   rtol=1e-9, atol=1e-16)
        # (as JAX's, erfcx is 0 just below 26.64 in float64, where erfc(x) is subnormal)
        close(sp.erfcx(real * 4), special.erfcx(real * 4), 1e-12)
        close(sp.expi(real * 10), special.expi(real * 10), 1e-12)
        close(sp.exp1(pos), special.exp1(pos), 1e-12)
        orders = np.arange(32) % 7
        close(sp.expn(orders, pos / 4), special.expn(orders, pos / 4), 1e-12)
        close(sp.bessel_jn(pos, v=4), np.stack([special.jv(v, pos) for v in range(5)]), 1e-8)


_X = np.array([0.6, 1.7, 3.2])
_BESSEL = np.array([-2.5, 0.4, 9.0])
# (function, arguments, order): float64 (run in x64 mode); JAX itself fails at order 2 for
# exp1/expn (and its expn(n - 1) rule gives NaN there)
GRAD_CASES = {
    "gamma": (sp.gamma, (np.array([0.6, 2.5, -1.5]),), 2),
    "loggamma": (sp.loggamma, (_X,), 2),
    "betaln": (sp.betaln, (_X, np.array([2.0, 9.0, 30.0])), 2),
    "beta": (sp.beta, (_X, _X[::-1]), 1),
    "gammainc": (sp.gammainc, (_X, _X[::-1]), 1),
    "gammaincc": (lambda x: sp.gammaincc(2.0, x), (_X,), 2),
    "betainc": (lambda x: sp.betainc(2.0, 3.0, x), (_X / 4,), 2),
    "zeta": (sp.zeta, (_X + 1.5, _X), 2),
    "polygamma": (lambda x: sp.polygamma(2, x), (_X,), 2),
    "poch": (sp.poch, (_X, _X[::-1]), 1),
    "multigammaln": (lambda a: sp.multigammaln(a, 2), (_X + 1,), 2),
    "factorial": (sp.factorial, (_X,), 1),
    "comb": (sp.comb, (_X + 4, _X), 1),
    "i0": (sp.i0, (_BESSEL,), 2), "i0e": (sp.i0e, (_BESSEL,), 2),
    "i1": (sp.i1, (_BESSEL,), 2), "i1e": (sp.i1e, (_BESSEL,), 2),
    "ndtri": (sp.ndtri, (np.array([0.01, 0.3, 0.8]),), 2),
    "log_ndtr": (sp.log_ndtr, (np.array([-12.0, -3.0, 0.5, 6.0]),), 2),
    "erfcx": (sp.erfcx, (np.array([-1.0, 0.5, 12.0, 30.0]),), 2),
    "expi": (sp.expi, (np.array([-2.0, 0.5, 3.0, 20.0]),), 2),
    "exp1": (sp.exp1, (_X,), 1),
    "expn": (lambda x: sp.expn(3, x), (_X,), 1),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_by_finite_differences(name):
    f, args, order = GRAD_CASES[name]
    with x64():
        check_grads(f, args, order=order)


BATCH_CASES = {
    "gamma": sp.gamma, "gammasgn": sp.gammasgn, "loggamma": sp.loggamma,
    "factorial": sp.factorial, "i0": sp.i0, "i1": sp.i1, "ndtri": lambda x: sp.ndtri(x / 5),
    "log_ndtr": sp.log_ndtr, "erfcx": sp.erfcx, "expi": sp.expi, "exp1": sp.exp1,
    "zeta": lambda x: sp.zeta(x + 1, x), "betaln": lambda x: sp.betaln(x, 2 * x),
    "polygamma": lambda x: sp.polygamma(1, x), "expn": lambda x: sp.expn(2, x),
    "multigammaln": lambda x: sp.multigammaln(x + 2, 2),
    "bessel_jn": lambda x: sp.bessel_jn(x, v=2),
}


@pytest.mark.parametrize("name", sorted(BATCH_CASES))
def test_vmap_and_jit_agree_with_eager(name):
    f = BATCH_CASES[name]
    x = np.random.RandomState(2).uniform(0.2, 4, (3, 4)).astype(f32)
    eager = np.asarray(f(x))
    np.testing.assert_allclose(jxkernel.jit(f)(x), eager, rtol=2e-6)
    rows = np.stack([np.asarray(f(r)) for r in x])
    np.testing.assert_allclose(jxkernel.vmap(f)(x), rows, rtol=2e-6)


def test_expn_vmapped_over_its_order():
    x = np.array([0.3, 1.5, 2.0, 4.0], f32)
    n = np.array([0, 1, 2, 5])
    np.testing.assert_allclose(jxkernel.vmap(sp.expn)(n, x),
                               [sp.expn(int(k), v) for k, v in zip(n, x)], rtol=1e-6)


def test_argument_errors():
    with pytest.raises(ValueError, match="`n` to polygamma must be of integer type"):
        sp.polygamma(1.0, 2.0)
    with pytest.raises(NotImplementedError, match="Riemann zeta function not implemented"):
        sp.zeta(2.0)
    with pytest.raises(NotImplementedError, match="factorial with exact=True"):
        sp.factorial(3.0, exact=True)
    with pytest.raises(TypeError, match="d argument of multigammaln must be a concrete"):
        jxkernel.jit(sp.multigammaln)(3.0, 2)
    with pytest.raises(ValueError, match="n must be a non-negative integer"):
        sp.bernoulli(-1)
    with pytest.raises(TypeError, match="not supported"):
        sp.ndtri(np.ones(2, np.float16))
    with pytest.raises(ValueError, match="series_order must be <= 30"):
        sp.log_ndtr(1.0, series_order=31)
    with pytest.raises(ValueError, match="beta does not support complex"):
        sp.beta(1j, 2.0)


@pytest.mark.parametrize("module", ["jxkernel.lax.special", "jxkernel.scipy._gamma",
                                    "jxkernel.scipy._normal", "jxkernel.scipy._expint"])
def test_docstring_examples(module):
    import doctest
    import importlib
    mod = importlib.import_module(module)
    globs = {**vars(mod), "jnp": jnp, "np": np, "jax": jxkernel}
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder().find(mod, module, globs=globs):
        runner.run(test)
    assert runner.summarize(verbose=False).attempted > 3
    assert runner.summarize(verbose=False).failed == 0
