"""Rules' formulas and equation orders against JAX 0.10.2's recorded answers
(tests/data/rule_formulas_cases.py, recorded by reference/make_rule_formulas_reference.py)."""

import numpy as np
from numerics import ELEMENTWISE, assert_allclose_ulp
from rule_formulas_cases import ACOSH_COMPLEX_POINTS, ACOSH_POINTS, acosh, scan_zero_carry, where

import jxkernel as jax
import locations  # tests/support: the repository's folders

REF = locations.jax_answers("rule_formulas_reference.json")


def _values(parts, dtype):
    return np.array([complex(float(re), float(im)) for re, im in parts]).astype(dtype)


def _acosh_ulps(x, dtype) -> int:
    """ELEMENTWISE ulps; near x**2 = 1 that many times |x**2| / |x**2 - 1|: XLA's CPU code
    contracts `x * x - 1` into one fused multiply-add inside jnp.arccosh's jit where the CPU
    has FMA (AVX2 and up: where JAX's values were recorded), while the NumPy backend and a CPU
    without FMA round x**2 first, and the cancellation amplifies that rounding so much (XLA's
    own eager ops differ from its jit there too). Whether XLA contracts depends on the CPU:
    JAX 0.10.2's grad at 1.001 (at the suite's JAX_DISABLE_MOST_OPTIMIZATIONS=1), as
    jxkernel's, is 135 float32 ulps from the recorded value without FMA
    (XLA_FLAGS=--xla_cpu_max_isa=AVX), and 130 float64 ulps with AVX2 (stop 88)."""
    with np.errstate(all="ignore"):         # (inf and nan among the points)
        square = np.square(np.asarray(x, np.complex128))
    if not np.isfinite(square) or square == 1 or abs(square - 1) >= abs(square) / 2:
        return ELEMENTWISE
    return int(ELEMENTWISE * abs(square) / abs(square - 1))


def test_acosh_jvp_is_jaxs_formula_and_values():
    # JAX's g * rsqrt(x**2 - 1), not (x - 1) * (x + 1); jnp.arccosh's complex branch takes
    # the real part once; complex squares as chlo.square ((re - im) * (re + im))
    got, want = acosh(jax), REF["acosh"]
    assert got.keys() == want.keys()
    for key in ("jaxpr_float32", "lax_jaxpr_float32", "jaxpr_complex64", "lax_jaxpr_complex64"):
        assert got[key] == want[key], key
    assert "square a" in got["lax_jaxpr_float32"] and "sub d 1.0:f32[]" in \
        got["lax_jaxpr_float32"]
    for key, dtype in (("grad_float32", np.float32), ("grad_float64", np.float64)):
        for x, g, w in zip(ACOSH_POINTS, _values(got[key], np.complex128).real.astype(dtype),
                           _values(want[key], np.complex128).real.astype(dtype)):
            assert_allclose_ulp(g, w, _acosh_ulps(x, dtype), err_msg=f"{key} at {x}")
    for kind in ("jvp_", "square_"):
        for dtype in (np.complex64, np.complex128):
            key = kind + np.dtype(dtype).name
            for z, g, w in zip(ACOSH_COMPLEX_POINTS, _values(got[key], dtype),
                               _values(want[key], dtype)):
                ulps = _acosh_ulps(z, dtype) if kind == "jvp_" else ELEMENTWISE
                assert_allclose_ulp(g, w, ulps, err_msg=f"{key} at {z}")
    # (1+1e-8j)**2 - 1: the two formulas differ by ~1e7 ulps of complex128 there
    at = ACOSH_COMPLEX_POINTS.index(1 + 1e-8j)
    assert float(got["square_complex128"][at][0]) == 0.9999999999999998


def test_the_acosh_bound_covers_other_cpus():
    # JAX 0.10.2's grad of arccosh at 1.001: without FMA, and float64 under AVX2 (above)
    assert_allclose_ulp(np.float32(22.354828), np.float32(22.354568),
                        _acosh_ulps(1.001, np.float32))
    assert_allclose_ulp(float.fromhex("0x1.65ae74a28b6a4p+4"), float.fromhex(
        "0x1.65ae74a28b622p+4"), _acosh_ulps(1.001, np.float64))


def test_where_jaxprs_are_jaxs():
    # scalar/array mixes, an empty result (x, y's broadcast left as JAX leaves it), grad, jvp,
    # vmap, and jnp functions built on jnp.where
    got, want = where(jax), REF["where"]
    assert got.keys() == want.keys()
    for key in want:
        assert got[key] == want[key], key
    assert "jit[" in got["array_scalar"] and "select_n" in got["array_scalar"]


def test_a_scans_zero_carry_tangent_is_staged_where_jaxs_is():
    # jvp: before the scan (its operand); grad and linearize: with the tangent computation,
    # after the forward scan (JAX's scan linearization instantiates it in its tangent part)
    got, want = scan_zero_carry(jax), REF["scan_zero_carry"]
    assert got == want
    assert got["linearize_order"] == ["scan", "broadcast_in_dim", "scan"]
