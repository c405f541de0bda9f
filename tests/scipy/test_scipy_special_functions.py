"""jax.scipy.special's wofz (and erfcx of complex z), dawsn, fresnel, sici, hyp1f1, hyp2f1,
owens_t and sph_harm_y: values, dtypes, weak types and derivatives against JAX 0.10.2's
recorded ones (tests/data/special_functions_cases.py, recorded by
reference/make_special_functions_reference.py; each function one jitted program with vmap of
grad), against scipy.special, and the errors JAX raises."""
import functools

import numpy as np
import pytest
from numerics import assert_allclose_ulp
from recorded_modes import assert_cases_match, load
from doc_examples import check_docstring_examples
from special_functions_cases import (
    DAWSN_X,
    FRESNEL_X,
    HYP1F1,
    HYP2F1,
    OWENS_T,
    SICI_X,
    SPH_M,
    SPH_N,
    SPH_PHI,
    SPH_THETA,
    cases,
    ulps,
)

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel.scipy import special as sp


@functools.cache
def results(mode: str) -> dict:
    with jax.config.override("jax_enable_x64", mode == "x64"):
        return cases(jax, sp, mode == "x64")


# the GPU's hyp1f1 derivative: -inf where JAX's CPU gave nan (H200, docs/gpu.md run 6)
@pytest.mark.cpu_only("recorded CPU values")
@pytest.mark.parametrize("mode", ["x32", "x64"])
def test_every_case_matches_jax(mode):
    assert_cases_match(mode, results(mode), load("special_functions_reference.npz"), ulps)


# scipy's own algorithms differ (Faddeeva package, Cephes, Boost), so each bound is the
# accuracy of JAX's algorithm, measured at the largest value compared (in float64 ulps)
def test_faddeeva_and_dawson_match_scipy():
    special = pytest.importorskip("scipy.special")
    re, im = np.meshgrid(np.linspace(-7, 7, 15), np.linspace(-2.5, 9, 13))
    z = (re + 1j * im).ravel()
    with jax.enable_x64():
        w, dawson = jax.jit(lambda z, x: (sp.wofz(z), sp.dawsn(x)))(z, DAWSN_X)
    # Weideman's N = 32 approximation: ~7e-14 of |w| (312 ulps seen)
    for part in (np.real, np.imag):
        assert_allclose_ulp(part(np.asarray(w)), part(special.wofz(z)), 1024,
                            scale=np.abs(special.wofz(z)), err_msg="wofz")
    assert_allclose_ulp(np.asarray(dawson), special.dawsn(DAWSN_X), 4,
                        scale=np.abs(special.dawsn(DAWSN_X)).max(), err_msg="dawsn")


def test_owens_t_matches_scipy():
    special = pytest.importorskip("scipy.special")
    # the float64 cases' values (no compile of their own): 4 ulps seen (Patefield & Tandy's
    # quadrature, scipy's their full method)
    assert_allclose_ulp(np.asarray(results("x64")["owens_t"]), special.owens_t(*OWENS_T), 16)


def test_spherical_harmonics_match_scipy_and_refuse_what_jax_refuses():
    special = pytest.importorskip("scipy.special")
    # the float64 cases' values (no compile of their own); scipy's own recurrences
    want = special.sph_harm_y(SPH_N, SPH_M, SPH_THETA, SPH_PHI)
    assert_allclose_ulp(np.asarray(results("x64")["sph_harm_y"]), want, 16,
                        scale=np.abs(want).max())
    with pytest.raises(NotImplementedError, match="'diff_n' argument"):
        sp.sph_harm_y(SPH_N, SPH_M, SPH_THETA, SPH_PHI, diff_n=1)
    with pytest.raises(jax.errors.ConcretizationTypeError, match="must be statically"):
        jax.jit(lambda k: sp.sph_harm_y(SPH_N, SPH_M, SPH_THETA, SPH_PHI, n_max=k))(5)


def test_complex_erfcx_is_wofz_of_iz_and_dawsn_refuses_complex():
    z = np.array([0.5 + 1j, -2 - 0.3j], np.complex64)
    assert_allclose_ulp(np.asarray(sp.erfcx(z)), np.asarray(sp.wofz(1j * z)), 0)
    assert sp.wofz(np.float32(1)).dtype == np.complex64
    with pytest.raises(ValueError, match="dawsn does not support complex-valued inputs"):
        sp.dawsn(z)


def test_trig_integrals_match_scipy():
    special = pytest.importorskip("scipy.special")
    with jax.enable_x64():
        (s, c), (si, ci) = jax.jit(lambda a, b: (sp.fresnel(a), sp.sici(b)))(FRESNEL_X, SICI_X)
    want_s, want_c = special.fresnel(FRESNEL_X)
    want_si, want_ci = special.sici(SICI_X)
    # Cephes' algorithms as scipy's (JAX's phase reduction for large x is scipy's too);
    # errors at each result's largest magnitude (Ci: at 1, it has a -inf at 0)
    assert_allclose_ulp(np.asarray(s), want_s, 4, scale=0.5, err_msg="fresnel S")
    assert_allclose_ulp(np.asarray(c), want_c, 4, scale=0.5, err_msg="fresnel C")
    assert_allclose_ulp(np.asarray(si), want_si, 4, scale=np.pi / 2, err_msg="Si")
    assert_allclose_ulp(np.asarray(ci), want_ci, 4, scale=1.0, err_msg="Ci")


def test_trig_integrals_refuse_complex():
    with pytest.raises(NotImplementedError, match="complex-valued inputs"):
        sp.fresnel(np.complex64(1))
    with pytest.raises(ValueError, match="Argument `x` to sici must be real-valued. Got dtype "
                                         "complex64"):
        sp.sici(np.complex64(1))


def test_hypergeometric_functions_match_scipy():
    special = pytest.importorskip("scipy.special")
    # the float64 cases' values (no compile of their own) where scipy defines the same: not
    # at b = 0 or a = b = 0 (scipy's NaN), c a non-positive integer or x > 1; another
    # algorithm, so the bound is JAX's accuracy (12.5 ulps seen, at each value)
    got = results("x64")
    p1, p2 = HYP1F1[:, [0, 1, 2, 4, 8]], HYP2F1[:, [0, 1, 2, 4, 5, 6, 7, 9, 13, 14, 15, 16, 17]]
    assert_allclose_ulp(np.asarray(got["hyp1f1"])[[0, 1, 2, 4, 6]], special.hyp1f1(*p1), 64,
                        err_msg="hyp1f1")
    assert_allclose_ulp(np.asarray(got["hyp1f1_large"])[[0, 2, 3, 4]],
                        special.hyp1f1(*HYP1F1[:, [6, 9, 10, 11]]), 64, err_msg="hyp1f1 large")
    assert_allclose_ulp(np.asarray(got["hyp2f1"])[[0, 1, 2, 3, 4, 5, 6, 8, 11, 12, 13, 14, 15]],
                        special.hyp2f1(*p2), 64, err_msg="hyp2f1")
    assert_allclose_ulp(np.asarray(got["hyp2f1_large"]), special.hyp2f1(*HYP2F1[:, [3, 12]]), 64,
                        err_msg="hyp2f1 large")


def test_hypergeometric_functions_refuse_complex():
    with pytest.raises(ValueError, match="hyp1f1 does not support complex-valued inputs"):
        sp.hyp1f1(1.0, 2.0, 1j)


@pytest.mark.parametrize("module", ["jxkernel.scipy._trig_integrals",
                                    "jxkernel.scipy._hypergeometric", "jxkernel.scipy._legendre"])
def test_docstring_examples(module):
    # float32 results printed in full: a few ulps between eager and jitted code, or other CPUs
    check_docstring_examples(module, ulps=32)
