"""jax.flatten_util.ravel_pytree, jnp.ufunc/frompyfunc, promotion and matmul-precision
context managers: values and dtypes as JAX 0.10.2 gives them (checked by hand against it;
all exact: ints, bools, dtypes and small float sums)."""
import operator

import numpy as np
import pytest
from doc_examples import check_docstring_examples

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel.flatten_util import ravel_pytree


def test_ravel_pytree_promotes_and_unravel_casts_back():
    tree = {"a": jnp.ones(2, jnp.int32), "b": jnp.zeros(1, jnp.float16), "c": 1.0}
    flat, unravel = ravel_pytree(tree)
    assert flat.dtype == np.float32 and flat.tolist() == [1, 1, 0, 1]
    back = unravel(jnp.arange(4.0))
    assert [back[k].dtype for k in "abc"] == [np.int32, np.float16, np.float32]
    assert back["a"].tolist() == [0, 1] and back["b"].tolist() == [2] and back["c"].shape == ()
    with pytest.raises(TypeError, match="dtype int32, but expected dtype float32"):
        unravel(jnp.ones(4, jnp.int32))
    with pytest.raises(ValueError, match=r"shape \(3,\), expected shape \(4,\)"):
        unravel(jnp.ones(3))


def test_ravel_pytree_one_dtype_empty_and_under_jit():
    flat, unravel = ravel_pytree([jnp.ones(2, jnp.int32), jnp.ones((1, 1), jnp.int32)])
    assert flat.dtype == np.int32
    same_dtype_free = unravel(jnp.arange(3.0))     # one dtype: unravel keeps the given dtype
    assert same_dtype_free[1].shape == (1, 1) and same_dtype_free[1].dtype == np.float32
    assert unravel == ravel_pytree([jnp.zeros(2, jnp.int32), jnp.zeros((1, 1), jnp.int32)])[1]
    empty, unravel_empty = ravel_pytree({})
    assert empty.shape == (0,) and empty.dtype == np.float32 and unravel_empty(empty) == {}
    assert ravel_pytree([True, 1])[0].dtype == np.int32
    out = jax.jit(lambda x: ravel_pytree({"a": x, "b": 2 * x})[0])(jnp.ones(2))
    assert out.tolist() == [1, 1, 2, 2]


def test_frompyfunc_ufunc_methods():
    add = jnp.frompyfunc(operator.add, nin=2, nout=1, identity=0)
    big = jnp.frompyfunc(jnp.maximum, 2, 1)
    x = jnp.arange(6).reshape(2, 3)
    assert (repr(add), add.nin, add.nout, add.nargs, add.identity) == \
        ("<jnp.ufunc 'add'>", 2, 1, 2, 0)
    assert add == jnp.frompyfunc(operator.add, 2, 1, identity=0) and isinstance(add, jnp.ufunc)
    assert add(x, 10).tolist() == [[10, 11, 12], [13, 14, 15]]
    assert add.outer(jnp.arange(3), jnp.arange(2.0)).tolist() == [[0, 1], [1, 2], [2, 3]]
    assert add.reduce(x).tolist() == [3, 5, 7]
    assert add.reduce(x, axis=1, keepdims=True).tolist() == [[3], [12]]
    assert add.reduce(x, axis=None, initial=5).tolist() == 20
    assert add.reduce(x, where=x > 1).tolist() == [3, 4, 7]
    assert big.reduce(x, axis=1).tolist() == [2, 5]
    assert add.accumulate(x, axis=1).tolist() == [[0, 1, 3], [3, 7, 12]]
    ones = jnp.ones(5, int)
    assert add.at(ones, jnp.array([0, 0, 3]), jnp.array([1, 2, 3]), inplace=False).tolist() \
        == [4, 1, 1, 4, 1]
    assert add.at(ones, 2, 7, inplace=False).tolist() == [1, 1, 8, 1, 1]
    assert add.reduceat(jnp.arange(8), jnp.array([0, 2, 5])).tolist() == [1, 9, 18]
    assert add.reduceat(x, jnp.array([0, 2]), axis=1).tolist() == [[1, 2], [7, 5]]
    square = jnp.frompyfunc(lambda a: a * a, 1, 1)
    assert square(jnp.arange(3.0)).tolist() == [0, 1, 4]
    assert jax.jit(lambda u, v: u(v, v), static_argnums=0)(add, 2.0).tolist() == 4.0


def test_ufunc_errors_match_jax():
    add = jnp.frompyfunc(operator.add, 2, 1, identity=0)
    big = jnp.frompyfunc(jnp.maximum, 2, 1)
    x = jnp.arange(6).reshape(2, 3)
    with pytest.raises(ValueError, match="reduce only supported for binary ufuncs"):
        jnp.frompyfunc(lambda a: a, 1, 1).reduce(x)
    with pytest.raises(ValueError, match="zero-size array to reduction operation"):
        big.reduce(jnp.zeros(0))
    with pytest.raises(NotImplementedError, match="inplace=False"):
        add.at(x, 0, 1)
    with pytest.raises(ValueError, match="does not have an identity"):
        big.reduce(x, where=x > 1)
    with pytest.raises(NotImplementedError, match="out argument"):
        add(x, x, out=x)
    with pytest.raises(ValueError, match="accumulate does not allow multiple axes"):
        add.accumulate(x, axis=None)


@pytest.mark.parametrize("module", ["jxkernel.flatten_util", "jxkernel.numpy.ufunc_api"])
def test_docstring_examples(module):
    check_docstring_examples(module)


def test_strict_promotion_raises_type_promotion_error():
    i32, f32 = jnp.ones(2, jnp.int32), jnp.ones(2, jnp.float32)
    assert (i32 + f32).dtype == np.float32 and jax.config.jax_numpy_dtype_promotion == "standard"
    with jax.numpy_dtype_promotion("strict"):
        for mix in [lambda: i32 + f32, lambda: i32 + 1.0, lambda: jnp.ones(2, bool) + 1,
                    lambda: jnp.promote_types(jnp.int8, jnp.int16),
                    lambda: jnp.ones(2, jnp.float16) * f32, lambda: f32 + jnp.ones(2, jnp.complex64)]:
            with pytest.raises(jax.dtypes.TypePromotionError, match="jax_numpy_dtype_promotion=strict"):
                mix()
        # weak Python scalars of the array's kind (or below) still promote, as in JAX
        assert (f32 + 1).dtype == np.float32 and (i32 * 2).dtype == np.int32
        assert (jnp.ones(2, jnp.complex64) + 1.0).dtype == np.complex64
        both_weak = jnp.add(1, 1.0)
        assert both_weak.dtype == np.float32 and both_weak.weak_type
        assert jnp.sin(i32).dtype == np.float32             # to-inexact is not a promotion
    assert (i32 + 1.0).dtype == np.float32                   # the cached pair verdicts reset
    add = jax.jit(lambda a, b: a + b)
    assert add(i32, f32).dtype == np.float32
    with jax.numpy_dtype_promotion("strict"), pytest.raises(jax.dtypes.TypePromotionError):
        add(i32, f32)                                        # the mode is part of jit's key
    assert issubclass(jax.dtypes.TypePromotionError, ValueError)
    with pytest.raises(ValueError, match="'bad' is not a valid NumpyDtypePromotion"):
        jax.config.update("jax_numpy_dtype_promotion", "bad")
    with pytest.raises(TypeError, match="requires an argument"):
        jax.numpy_dtype_promotion()


def test_default_matmul_precision_context():
    assert jax.config.jax_default_matmul_precision is None
    with jax.default_matmul_precision("float32"):
        assert jax.config.jax_default_matmul_precision == "float32"
        assert jnp.dot(jnp.ones((2, 2)), jnp.ones((2, 2))).tolist() == [[2, 2], [2, 2]]
    assert jax.config.jax_default_matmul_precision is None
