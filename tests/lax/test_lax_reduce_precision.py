"""lax.reduce_precision: rounding to a narrower float format inside the input dtype, checked
against ml_dtypes' casts (round to nearest even, overflow to inf, underflow to zero; XLA flushes
the narrow format's subnormals to zero, which a cast keeps), with all
its rules: jit, vmap, linear jvp/transpose, the printed jaxpr and the argument errors."""
import ml_dtypes
import numpy as np
import pytest

import jxkernel as jax
from jxkernel import lax
from jxkernel.test_util import check_grads

X = np.float32([1.0001, 3.14159, -2.71828, 1e-30, 65519.0, 1e6, 0.0, -0.0, np.inf])
# (exponent_bits, mantissa_bits) of narrower formats, and the dtype that rounds the same way
FORMATS = [(8, 7, ml_dtypes.bfloat16), (5, 10, np.float16), (4, 3, ml_dtypes.float8_e4m3fn),
           (5, 2, ml_dtypes.float8_e5m2)]


def reference(x, dtype):
    with np.errstate(over="ignore"):
        return np.asarray(x).astype(dtype).astype(np.asarray(x).dtype)


@pytest.mark.parametrize("exponent_bits,mantissa_bits,dtype", FORMATS[:2])
def test_matches_a_cast_through_the_narrow_dtype(exponent_bits, mantissa_bits, dtype):
    want = reference(X, dtype)
    got = lax.reduce_precision(X, exponent_bits, mantissa_bits)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(got), want)
    jitted = jax.jit(lambda x: lax.reduce_precision(x, exponent_bits, mantissa_bits))
    np.testing.assert_array_equal(np.asarray(jitted(X)), want)


def test_subnormals_of_the_narrow_format_flush_to_zero():
    # as XLA (and so JAX 0.10.2) does: 6e-5 and 5e-8 are float16 subnormals
    got = lax.reduce_precision(np.float32([6e-5, -5e-8, 6.2e-5]), 5, 10)
    np.testing.assert_array_equal(np.asarray(got), np.float32([0, -0.0, np.float16(6.2e-5)]))


def test_e5m2_keeps_inf_and_rounds_mantissa():
    # float8_e5m2 has IEEE infinities, so reduce_precision(5, 2) agrees with the cast everywhere
    x = np.float32([0.3, 1.7, -9.5, 57000.0, 1e-6])
    np.testing.assert_array_equal(np.asarray(lax.reduce_precision(x, 5, 2)),
                                  reference(x, ml_dtypes.float8_e5m2))


def test_float64_and_float16_inputs():
    x16 = np.float16([1.0, 1.1, 3.3, -7.77])
    np.testing.assert_array_equal(np.asarray(lax.reduce_precision(x16, 5, 3)),
                                  np.float16([1.0, 1.125, 3.25, -8.0]))
    jax.config.update("jax_enable_x64", True)
    try:
        x64 = np.float64([np.pi, 1 / 3, 1e-30])
        got = lax.reduce_precision(x64, 8, 23)            # float64 -> float32 precision
        assert got.dtype == np.float64
        np.testing.assert_array_equal(np.asarray(got), reference(x64, np.float32))
    finally:
        jax.config.update("jax_enable_x64", False)


def test_python_scalar_stays_weak():
    out = lax.reduce_precision(1.0001, 5, 10)
    assert out.dtype == np.float32 and out.weak_type and float(out) == 1.0


def test_vmap_keeps_the_batch_axis():
    xs = X[:8].reshape(2, 4)
    got = jax.vmap(lambda x: lax.reduce_precision(x, 8, 7), in_axes=1)(xs)
    np.testing.assert_array_equal(np.asarray(got), reference(xs, ml_dtypes.bfloat16).T)


def test_derivative_rounds_the_tangent():
    """Linear in JAX's sense: the tangent and cotangent pass through the same rounding."""
    x = np.float32([0.5, 1.5, 2.5])
    _, t = jax.jvp(lambda x: lax.reduce_precision(x, 5, 2), (x,), (np.float32([1.1, 3.3, 0.3]),))
    np.testing.assert_array_equal(np.asarray(t), np.float32([1.0, 3.5, 0.3125]))
    g = jax.grad(lambda x: (lax.reduce_precision(x, 8, 7) * np.float32([1.01, 2, 3])).sum())(x)
    np.testing.assert_array_equal(np.asarray(g), np.float32([1.0078125, 2, 3]))
    check_grads(lambda x: lax.reduce_precision(x, 11, 52), (x,), order=2)  # exact for f32


def test_jaxpr_and_stablehlo():
    f = lambda x: lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10)
    assert str(jax.make_jaxpr(f)(np.float32([1, 2]))) == (
        "{ lambda ; a:f32[2]. let\n"
        "    b:f32[2] = reduce_precision[exponent_bits=5 mantissa_bits=10] a\n"
        "  in (b,) }")
    text = jax.jit(f).lower(np.float32([1, 2])).as_text()
    assert "stablehlo.reduce_precision %arg0, format = e5m10" in text     # as MLIR prints it


def test_errors():
    with pytest.raises(ValueError, match="exponent_bits must be positive; got 0"):
        lax.reduce_precision(X, 0, 3)
    with pytest.raises(ValueError, match="mantissa_bits must be non-negative; got -1"):
        lax.reduce_precision(X, 5, -1)
    with pytest.raises(TypeError, match="reduce_precision"):
        lax.reduce_precision(np.int32([1, 2]), 5, 10)
    with pytest.raises(TypeError):
        lax.reduce_precision(X, 5.5, 10)
