"""jnp.poly, jnp.save/savez/load, jnp.fromfile/fromiter (refused, as in JAX) and the dtype
names jnp.bool / object_ / ComplexWarning; values recorded from JAX 0.10.2."""
import io

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp

from numerics import LAPACK, assert_allclose_ulp


def test_poly_as_jax():
    # JAX 0.10.2's results (convolved (1, -root) factors, exact for these integers; a square
    # matrix's eigenvalues, from LAPACK: JAX's recorded coefficients to LAPACK's rounding,
    # measured at the scale of the largest coefficient since -2 = 5.37 x -0.37 cancels)
    np.testing.assert_array_equal(jnp.poly(jnp.array([1., 2., 3.])), [1, -6, 11, -6])
    matrix = jnp.poly(jnp.array([[1., 2.], [3., 4.]]))
    assert matrix.dtype == np.complex64
    assert_allclose_ulp(matrix, np.complex64([1, -5.0000005, -1.9999988]), LAPACK, scale=5.0)
    conj = jnp.poly(jnp.array([2, 1 + 2j, 1 - 2j]))
    np.testing.assert_array_equal(conj, np.complex64([1, -4, 9, -10]))
    empty = jnp.poly(jnp.zeros(0))
    assert empty.shape == () and float(empty) == 1.0
    # (products and sums of these roots are exact in float32)
    np.testing.assert_array_equal(jnp.poly(np.array([0.5, -2.0])), np.poly([0.5, -2.0]))
    np.testing.assert_array_equal(jax.grad(lambda r: jnp.poly(r)[-1])(jnp.array([2.0, 3.0])),
                                  np.float32([3.0, 2.0]))    # d(r0 r1)/dr
    with pytest.raises(ValueError, match="input must be 1d or non-empty square 2d array"):
        jnp.poly(jnp.ones((2, 3)))


def test_save_and_load_round_trip_bfloat16():
    f = io.BytesIO()
    jnp.save(f, jnp.array([2, 4], dtype="bfloat16"))
    f.seek(0)
    back = jnp.load(f)
    assert isinstance(back, jax.Array) and back.dtype == jnp.bfloat16
    np.testing.assert_array_equal(np.asarray(back, np.float32), [2, 4])
    f = io.BytesIO()
    jnp.savez(f, a=np.arange(3))
    f.seek(0)
    np.testing.assert_array_equal(jnp.load(f)["a"], np.arange(3))   # .npz stays NumPy's


def test_impure_constructors_are_refused_as_in_jax():
    for name in ("fromfile", "fromiter"):
        with pytest.raises(NotImplementedError, match=f"jnp.{name}\\(\\) is not implemented "
                                                      f"because it may be non-pure"):
            getattr(jnp, name)("x")


def test_dtype_names():
    assert jnp.bool is jnp.bool_ and jnp.zeros(2, dtype=jnp.bool).dtype == np.bool_
    assert jnp.object_ is np.object_ and issubclass(jnp.ComplexWarning, Warning)
