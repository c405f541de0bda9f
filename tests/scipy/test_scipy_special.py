"""jax.scipy.special's gamma family, incomplete gamma/beta, polygamma and zeta, Bessel
functions, ndtri/log_ndtr/erfcx and the exponential integrals: values equal to JAX 0.10.2's
(committed reference), against scipy.special, derivatives by finite differences, vmap and jit."""
import functools
import os

import numpy as np
import pytest
import scipy.special

import jxkernel
import jxkernel.numpy as jnp
import jxkernel.scipy.special as sp
from jxkernel.test_util import check_grads
from jxkernel.tree_util import tree_leaves

from doc_examples import check_docstring_examples
from numerics import ELEMENTWISE, assert_allclose_ulp
from compiled import compiled_per_call, compiled_transforms, jit_together
from grads_together import check_grads_together
from special_cases import COMPLEX_GAMMA_Z, scipy_cases, tolerance
import backend_tier
import locations  # tests/support: the repository's folders

REF = np.load(os.path.join(locations.DATA, "special_reference.npz"))
x64 = lambda: jxkernel.config.override("jax_enable_x64", True)
f32, f64 = np.float32, np.float64


@pytest.mark.parametrize("dtype", [f32, f64])
def test_values_and_derivatives_match_jax(dtype):
    # each case compiled as one program (op by op, these cases cost ~350 compiles per dtype;
    # the eager path is compared with jit below); bounds in special_cases.ULPS
    with x64():
        cases = scipy_cases(compiled_transforms(jxkernel), jnp, compiled_per_call(jxkernel, sp),
                            [dtype])
        got = {f"{k}#{i}": np.asarray(leaf) for k, v in cases.items()
               for i, leaf in enumerate(tree_leaves(v))}
    assert len(got) > 40
    numpy_backend = backend_tier.on_numpy_backend()
    for key, value in got.items():
        ulps, scale = tolerance(key, numpy_backend)
        assert_allclose_ulp(value, REF[key], ulps, scale=scale, err_msg=key)


# (function, arguments, scipy.special's float64 values, bound in ulps): another algorithm, so
# each bound is the accuracy of JAX's algorithm against Cephes/Boost, not the CPU's rounding
# (worst seen on AVX-512, AVX2 and SSE4.2 code in brackets); the large ones are JAX's own
# approximations, as the old relative tolerances (1e-10 to 1e-5) allowed
def test_against_scipy():
    special = pytest.importorskip("scipy.special")
    rng = np.random.RandomState(0)
    pos = rng.uniform(0.1, 20, 32)
    real = rng.uniform(-6, 6, 32)
    n = np.arange(12.)
    p = rng.uniform(0, 1, 32)
    orders = np.arange(32) % 7
    big = pos * 1e5
    cases = [
        ("gamma", (real,), special.gamma(real), 64),                           # [19]
        ("gammasgn", (real,), special.gammasgn(real), 0),                       # signs: exact
        ("loggamma", (pos,), special.loggamma(pos), 512),                       # [240]
        ("gammainc", (pos, pos[::-1]), special.gammainc(pos, pos[::-1]), 256),  # [120]
        ("gammaincc", (pos, pos[::-1]), special.gammaincc(pos, pos[::-1]), 256),  # [86]
        # JAX's betaln(a, b) for b ~ 1e5 a: relative error 4.5e-11
        ("betaln", (pos, big), special.betaln(pos, big), 1 << 19),              # [2.0e5]
        # JAX's beta without algdiv: relative error 4.9e-7
        ("beta", (pos, pos[::-1]), special.beta(pos, pos[::-1]), 1 << 33),      # [2.2e9]
        ("betainc", (pos, pos[::-1], pos / 20),
         special.betainc(pos, pos[::-1], pos / 20), 1024),                     # [285]
        ("factorial", (n,), special.factorial(n), 128),                         # [37]
        ("comb", (n, n[::-1] / 2), special.comb(n, n[::-1] / 2), 256),          # [67]
        ("poch", (pos, real / 2), special.poch(pos, real / 2), 512),            # [188]
        ("polygamma", (np.arange(32) % 4, pos),
         special.polygamma(np.arange(32) % 4, pos), 32),                        # [11]
        ("zeta", (pos + 1.5, pos), special.zeta(pos + 1.5, pos), 4),           # [2]
        ("i0e", (real * 5,), special.i0e(real * 5), 4),                         # [2]
        ("i0", (real * 5,), special.i0(real * 5), 4),                           # [2]
        ("i1e", (real * 5,), special.i1e(real * 5), 4),                         # [1]
        ("i1", (real * 5,), special.i1(real * 5), 4),                           # [2]
        ("ndtri", (p,), special.ndtri(p), 4),                                   # [2]
        # (as JAX's, erfcx is 0 just below 26.64 in float64, where erfc(x) is subnormal)
        ("erfcx", (real * 4,), special.erfcx(real * 4), 4),                     # [2]
        ("expi", (real * 10,), special.expi(real * 10), 32),                    # [9]
        ("exp1", (pos,), special.exp1(pos), 16),                                # [7]
        ("expn", (orders, pos / 4), special.expn(orders, pos / 4), 32),         # [13]
    ]
    # each call jitted (static Python scalars), the programs compiled as one: 3.6 -> 3.0 CPU s
    # (compiled.jit_together)
    calls = {name: (getattr(sp, name), list(args)) for name, args, _, _ in cases}
    calls.update({
        "comb_rep": (lambda n: sp.comb(n, 3.0, repetition=True), [n]),
        "multigammaln": (lambda a: sp.multigammaln(a, 3), [pos + 3]),
        "bernoulli": (lambda: sp.bernoulli(12), []),
        "log_ndtr": (sp.log_ndtr, [real * 5]),
        "bessel_jn": (lambda x: sp.bessel_jn(x, v=4), [pos]),
    })
    with x64():
        ours = jit_together(jxkernel, calls)
        for name, args, want, ulps in cases:
            assert_allclose_ulp(ours[name], want, ulps, err_msg=name)
        assert_allclose_ulp(ours["comb_rep"], special.comb(n, 3, repetition=True), 256,
                            err_msg="comb_rep")                                 # [69]
        assert_allclose_ulp(ours["multigammaln"], special.multigammaln(pos + 3, 3), 16,
                            err_msg="multigammaln")                             # [6]
        # JAX sums 48 terms only: relative error 2.7e-6
        assert_allclose_ulp(ours["bernoulli"], special.bernoulli(12), 1 << 35,
                            err_msg="bernoulli")                                # [1.2e10]
        # log(ndtr(x)) for x < 8 (JAX's formula) is ~ -(1 - ndtr(x)) where ndtr(x) ~ 1 - 1e-12:
        # only as exact as ndtr's rounding near 1, so errors are measured at the scale of 1;
        # for x < -20 JAX's asymptotic series is within 1.7e-11 of Cephes (relative)
        assert_allclose_ulp(ours["log_ndtr"], special.log_ndtr(real * 5), 1 << 18,
                            scale=1.0, err_msg="log_ndtr")                      # [1.25e5]
        assert_allclose_ulp(ours["bessel_jn"], np.stack([special.jv(v, pos) for v in range(5)]),
                            512, err_msg="bessel_jn")                           # [186]


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


# The cases whose check_grads evaluations are cheaper compiled as one program
# (grads_together.py; the same checks): expi's jitted jvps and vjps were 14 compiles of a
# large program, zeta's op-by-op derivatives 170 compiles. Measured (CPU s, alone -> together):
# expi 4.3 -> 1.0, zeta 4.4 -> 3.4, beta 0.9 -> 0.7, multigammaln 0.7 -> 0.3; the others cost
# more together (ndtri 3.5 -> 4.9, betaln 0.5 -> 3.6, i0e 0.0 -> 1.6: their eager compiles were
# shared with the cases before them).
GRADS_TOGETHER = {"expi", "zeta", "beta", "multigammaln"}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_by_finite_differences(name):
    f, args, order = GRAD_CASES[name]
    check = check_grads_together if name in GRADS_TOGETHER else check_grads
    # ndtri at 0.01 is steep (f' = 66): JAX's step 1e-4 is 9e-5 off there, so a smaller one
    eps = {"ndtri": 1e-6}.get(name)
    with x64():
        check(f, args, order=order, eps=eps)


BATCH_CASES = {
    "gamma": sp.gamma, "gammasgn": sp.gammasgn, "loggamma": sp.loggamma,
    "factorial": sp.factorial, "i0": sp.i0, "i1": sp.i1, "ndtri": lambda x: sp.ndtri(x / 5),
    "log_ndtr": sp.log_ndtr, "erfcx": sp.erfcx, "expi": sp.expi, "exp1": sp.exp1,
    "zeta": lambda x: sp.zeta(x + 1, x), "betaln": lambda x: sp.betaln(x, 2 * x),
    "polygamma": lambda x: sp.polygamma(1, x), "expn": lambda x: sp.expn(2, x),
    "multigammaln": lambda x: sp.multigammaln(x + 2, 2),
    "bessel_jn": lambda x: sp.bessel_jn(x, v=2),
}


# Eager evaluation runs op by op (or nested jits), jit and vmap compile one program: XLA fuses
# them differently, so the last bits may differ. Bounds in ulps (ELEMENTWISE where not listed;
# worst seen in brackets):
BATCH_ULPS = {
    "polygamma": 32,        # [16]
    "factorial": 16,        # [7] exp(lgamma(x + 1))
    "erfcx": 8,             # [5] without FMA contraction (the suite's XLA setting); [2] with
    # [18] since eager exp1/expn run JAX's jits (_expn, _piecewise, _where, cumsum): a row and
    # the whole batch are two programs XLA vectorizes otherwise; each is ~20 ulps from the
    # float64 value (scipy) alike, eager, jit and vmap
    "exp1": 32,
    "expn": 32,
}


def _batch_input():
    return np.random.RandomState(2).uniform(0.2, 4, (3, 4)).astype(f32)


@functools.cache
def _batch_jitted():
    """jit(f)(x) of every case of test_vmap_and_jit_agree_with_eager, compiled together
    (compiled.jit_together)."""
    return jit_together(jxkernel, {name: (f, [_batch_input()])
                                   for name, f in BATCH_CASES.items()})


@pytest.mark.parametrize("name", sorted(BATCH_CASES))
def test_vmap_and_jit_agree_with_eager(name):
    f, ulps = BATCH_CASES[name], BATCH_ULPS.get(name, ELEMENTWISE)
    x = _batch_input()
    eager = np.asarray(f(x))
    assert_allclose_ulp(_batch_jitted()[name], eager, ulps, err_msg="jit")
    rows = np.stack([np.asarray(f(r)) for r in x])
    assert_allclose_ulp(jxkernel.vmap(f)(x), rows, ulps, err_msg="vmap")


def test_expn_vmapped_over_its_order():
    x = np.array([0.3, 1.5, 2.0, 4.0], f32)
    n = np.array([0, 1, 2, 5])
    assert_allclose_ulp(jxkernel.vmap(sp.expn)(n, x),
                        np.array([sp.expn(int(k), v) for k, v in zip(n, x)]), ELEMENTWISE)


def test_argument_errors():
    with pytest.raises(ValueError, match="`n` to polygamma must be of integer type"):
        sp.polygamma(1.0, 2.0)
    with pytest.raises(NotImplementedError, match="Riemann zeta function not implemented"):
        sp.zeta(2.0)
    with pytest.raises(NotImplementedError, match="factorial with exact=True"):
        sp.factorial(3.0, exact=True)
    # JAX's ConcretizationTypeError (tests/data/jax_error_texts_cases.py's multigammaln_*)
    with pytest.raises(jxkernel.errors.ConcretizationTypeError,
                       match="with shape int32\\[\\]\nd argument of multigammaln\n"):
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
    # float32 results printed in full; SSE4.2-era code (no FMA) moves them up to 14 ulps
    # (expint, beta)
    check_docstring_examples(module, ulps=32)


def test_scipy_softmax_defaults_to_all_axes_as_jax_and_scipy():
    # found by JAX 0.10.2's own tests/lax_scipy_special_functions_test.py, which compares with
    # SciPy: jax.scipy.special's softmax/log_softmax take `axis` by keyword, default None
    x = np.random.RandomState(0).randn(3, 4).astype(np.float32)
    np.testing.assert_allclose(np.asarray(sp.softmax(x)), scipy.special.softmax(x), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(np.asarray(sp.log_softmax(x)), scipy.special.log_softmax(x), rtol=1e-6,
                               atol=1e-6)
    np.testing.assert_allclose(np.asarray(sp.softmax(x, axis=0)), scipy.special.softmax(x, axis=0),
                               rtol=1e-6, atol=1e-7)
    assert float(sp.softmax(np.float32(2.0))) == 1.0          # a scalar: all (no) axes
    with pytest.raises(TypeError):
        sp.softmax(x, 0)                                       # keyword only, as JAX's


@pytest.mark.parametrize("jitted", [False, True])
def test_ndtri_under_debug_infs_reports_only_infinite_results(jitted):
    # JAX 0.10.2's testNdtriDebugInfs: the infinities made for p == 0 and 1 whatever p is
    # must not be reported; an infinite result is
    f = jxkernel.jit(sp.ndtri) if jitted else sp.ndtri
    with jxkernel.debug_infs(True):
        assert float(f(0.5)) == 0.0
        for p in (1.0, 0.0):
            with pytest.raises(FloatingPointError, match=r"invalid value \(inf\)"):
                f(p)


@pytest.mark.parametrize("name", ["gamma", "loggamma"])
def test_complex_gamma_of_a_matrix_under_rank_promotion_raise(name):
    # found by JAX 0.10.2's own tests/lax_scipy_special_functions_test.py, which sets
    # jax_numpy_rank_promotion='raise': Lanczos's sum must broadcast its terms explicitly.
    # The recorded float32 case, as a 7 x 2 matrix (elementwise: the same values)
    want = REF[f"{name}_complex_float32#0"]
    z = np.array(COMPLEX_GAMMA_Z, np.complex64)
    with jxkernel.numpy_rank_promotion("raise"):
        got = np.asarray(getattr(sp, name)(z.reshape(7, 2))).reshape(-1)
    ulps, _ = tolerance(f"{name}_complex_float32#0")
    assert_allclose_ulp(got, want, ulps)
